// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Interface between gpu_moments.cpp and moments_kernel.cu: the mean-separation pass
// (separation_moments.h) on the device. Plain structs plus cudaStream_t.
#include "tpacf/separation_moments.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace tpacf::cuda::detail {

/// One catalog of the plan on the device, structure of arrays in the plan's order; w null: every
/// weight is 1.
struct MomentsCatalogView {
    const double* x = nullptr;
    const double* y = nullptr;
    const double* z = nullptr;
    const double* w = nullptr;
};

/// Threads per block of the moments kernel: one plan block per CUDA block, a thread per a-point
/// (plan cells hold at most 64 points, more only where points coincide to ~0.2″).
inline constexpr int kMomentsThreads = 64;
/// Bins whose sums a block keeps in shared memory; above, every run of pairs goes straight to
/// the global sums.
inline constexpr std::uint32_t kMomentsSharedBins = 1000;

struct MomentsKernelArgs {
    const MomentsBlock* blocks = nullptr; ///< the plan's blocks [blockBegin, blockEnd)
    std::uint32_t blockBegin = 0, blockEnd = 0;
    const MomentsCatalogView* catalogs = nullptr;
    const std::uint8_t* weighted = nullptr; ///< per task
    const double* thresholds = nullptr;     ///< binCount + 1 c² edges (Binning::chord2Edges)
    std::uint32_t binCount = 0;
    // [task][bin]
    unsigned long long* pairs = nullptr;
    double* weight = nullptr;
    double* theta = nullptr;
    double* logTheta = nullptr;
};

/// Bytes of dynamic shared memory the launch takes for `binCount` bins.
std::size_t momentsSharedBytes(std::uint32_t binCount) noexcept;
void launchMomentsKernel(const MomentsKernelArgs& args, cudaStream_t stream);

} // namespace tpacf::cuda::detail
