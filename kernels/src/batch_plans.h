// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The kernel plans of a batch on its devices: the variants it needs (plain, weighted, projected,
// by region), one tile size for all, from the tuning and the bins.
#include "bin_tables.h"
#include "launch_loop.h"
#include "pair_kernels.h"
#include "tpacf/cuda/cuda_backend.h"

#include <cstddef>
#include <span>
#include <vector>

namespace tpacf::cuda::detail {

/// What a batch asks of its kernels.
struct BatchNeeds {
    RealKind real = RealKind::Float;
    std::size_t binCount = 0;
    bool regions = false;
    bool culled = false;
    double thetaMaxDegrees = 0;
    bool plain = false;    ///< the batch has unweighted tasks
    bool weighted = false; ///< the batch has weighted tasks
};

/// The plans of each device for the variants the batch needs, all with the same tile size (the
/// smallest block any device and variant wants).
std::vector<DevicePlans> planBatchKernels(const CudaTuning& tuning, std::span<const int> devices,
                                          const HostBinTables& tables, const BatchNeeds& needs);

} // namespace tpacf::cuda::detail
