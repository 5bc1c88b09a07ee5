// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel plans of a batch on its devices (batch_plans.h).
#include "batch_plans.h"

#include "cuda_check.h"
#include "gpu_schedule.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace tpacf::cuda::detail {

namespace {

std::optional<HistMode> histModeOf(CudaHistogram histogram) {
    switch (histogram) {
    case CudaHistogram::Auto:
        return std::nullopt;
    case CudaHistogram::PerThreadAtomic:
        return HistMode::PerThreadAtomic;
    case CudaHistogram::PerWarp:
        return HistMode::PerWarp;
    case CudaHistogram::Global:
        return HistMode::Global;
    }
    return std::nullopt;
}

} // namespace

std::vector<DevicePlans> planBatchKernels(const CudaTuning& tuning, std::span<const int> devices,
                                          const HostBinTables& tables, const BatchNeeds& needs) {
    const RealKind real = needs.real;
    const bool regions = needs.regions, culled = needs.culled;
    const double thetaMaxDegrees = needs.thetaMaxDegrees;
    // Culling at small θ_max: 256-point tiles (64 threads). There most tile pairs straddle
    // θ_max, each warp of a block keeps a different share of its sub-tiles, and a block waits
    // for its busiest warp at every tile; smaller blocks wait less (N = 1e6, 10°, H100: the job
    // DD + 10 DR + 10 RR 0.30 s of GPU time against 0.35 s with 1024-point tiles; BENCHMARKS.md).
    // At large θ_max most pairs are in range and big tiles stay best (not measured at 256
    // points: not switched).
    // A weighted variant's private sums take more shared memory and may want smaller blocks;
    // the plain variant then runs with the same (one tile size for both) in a mixed batch.
    const auto lookupSize = static_cast<std::uint32_t>(tables.lookup.size());
    std::vector<DevicePlans> plans;
    int blockCap = tuning.blockSizeCap;
    if (blockCap == 0 && culled && thetaMaxDegrees <= kSmallTileThetaMaxDegrees)
        blockCap = kSmallTileBlock;
    // Projected tile pairs beyond the small tiles' θ_max: there many tile pairs far apart for
    // their size straddle one or two wide bins' edges (DD float 0.01'-180°, N = 2^22: 1.19 →
    // 0.87 s). Below it, on a uniform sky, the tiles are wide against the bins and the variant
    // is slower (DD of 2^22 points to 10°: 0.142-0.143 s of device time against 0.138-0.139 s;
    // the standard job's batch 0.448-0.454 s against 0.41 s; BENCHMARKS.md, "Projected tile
    // pairs II"). A dense field gained from it while the tiles were Morton runs; with the sky
    // curve's compact tiles it loses there too (the 10^7 clustered box to 10°, DD double: 1.36 s
    // against 1.28 s; "Tiles along a Hilbert curve of the cube's faces"): `--cuda-projection on`.
    const bool projected = culled && (tuning.projection == CudaProjection::On ||
                                      (tuning.projection == CudaProjection::Auto &&
                                       thetaMaxDegrees > kSmallTileThetaMaxDegrees));
    // Narrow sub-tile masks only where a pair can be counted by compares: in double, and in float
    // beyond 29° (kFast tile pairs, hi parts alone); float to 10° with 64-thread blocks spends
    // their 1 KB on a twelfth block per SM instead (BENCHMARKS.md, "Where the GPU's remaining
    // time goes, and twelve blocks per SM").
    const bool narrowMasks = culled && tuning.narrowSubTiles &&
                             (real == RealKind::Double || tables.highMargin > kFastMinChord2);
    // Block sizes only shrink from pass to pass (each is capped at the last smallest).
    for (int pass = 0;; ++pass) {
        if (pass == 8)
            throw CudaError("CUDA backend: the kernel plans found no common block size", 0);
        plans.clear();
        int smallest = std::numeric_limits<int>::max();
        bool same = true;
        auto plan = [&](bool variantWeighted) {
            KernelPlan p =
                planPairKernel(real, static_cast<std::uint32_t>(needs.binCount), lookupSize,
                               tables.kind, regions, blockCap, histModeOf(tuning.histogram),
                               variantWeighted, projected, narrowMasks && !variantWeighted);
            same = same && (smallest == std::numeric_limits<int>::max() || p.blockSize == smallest);
            smallest = std::min(smallest, p.blockSize);
            return p;
        };
        for (int device : devices) {
            DeviceGuard guard(device);
            DevicePlans devicePlans;
            if (needs.plain)
                devicePlans.plain = plan(false);
            if (needs.weighted)
                devicePlans.weighted = plan(true);
            plans.push_back(std::move(devicePlans));
        }
        if (same)
            break;
        blockCap = smallest;
    }
    return plans;
}

} // namespace tpacf::cuda::detail
