// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The mean-separation pass (separation_moments.h) on one device: the host plan uploaded and
// walked by moments_kernel.cu. Plain C++ header.
#include "tpacf/separation_moments.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::cuda::detail {

/// Walks `plan` on CUDA device `device` (its index in the runtime), launching the blocks in
/// chunks between which progress is reported and the cancel token checked (Cancelled).
/// One SeparationMoments per task. Where the plan's catalogs need more than `memoryLimit` bytes
/// (0: the device's free memory less a tenth), the host walks it instead (same sums).
std::vector<SeparationMoments> walkMomentsPlanOnDevice(int device, const MomentsPlan& plan,
                                                       const Binning& binning,
                                                       std::uint64_t memoryLimit,
                                                       const CountControl& control);

} // namespace tpacf::cuda::detail
