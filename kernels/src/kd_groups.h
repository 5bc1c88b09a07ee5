// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// K-d groups (kd_groups.cu): the sorted order of a catalog refined, within aligned groups of
// kKdGroupPoints curve-ordered points, into a k-d order whose leaves are the 32-point sub-tiles.
#include "pair_work.h"
#include "tpacf/cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace tpacf::cuda::detail {

/// Whether a catalog of `size` points in tiles of `tileSize` gets k-d groups: one full group at
/// least, and tiles that divide a group (a ragged last group keeps the curve's order).
bool kdGroupsApply(std::uint32_t size, std::uint32_t tileSize) noexcept;

/// Whether a batch's catalogs get k-d groups: as the tuning says, and for Auto where the count
/// is culled pair by pair (θ_max <= 20°: the small tiles, not projected) without regions. The
/// plain pair-by-pair counts measured faster on them; the projected kernel, and the region
/// kernels at 10°, no faster (BENCHMARKS.md, "K-d groups").
bool kdGroupsWanted(CudaTileOrder order, bool culled, bool projected, bool regions) noexcept;

/// Loads the kernel and allows its shared memory on the current device. Never throws.
void preloadKdGroupKernel() noexcept;

/// order[0, size): point indices in the sky curve's order, rewritten group by group in k-d
/// order; x, y, z: the unit vectors the indices point into. The groups: the full ones from 0
/// (d_starts null), or the `count` runs of kKdGroupPoints that start at d_starts[0, count) (the
/// region layout's, each inside one region's stretch: RegionLayout::kdGroupStarts). On `stream`.
void launchKdGroups(const double* x, const double* y, const double* z, std::uint32_t* order,
                    std::uint32_t size, const std::uint32_t* d_starts, std::uint32_t count,
                    cudaStream_t stream);

} // namespace tpacf::cuda::detail
