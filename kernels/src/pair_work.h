// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the host schedule (gpu_schedule.cpp, plain C++) and the pair kernel (pair_kernels.cu)
// agree on: the tile and work-unit geometry and the WorkUnit record. No CUDA types, so the
// schedule compiles and can be tested without the CUDA toolkit's headers.
#include <cstdint>

namespace tpacf::cuda::detail {

/// i-points each thread keeps in registers; a tile is blockDim.x * kPointsPerThread points.
inline constexpr int kPointsPerThread = 4;
/// j-points one work unit visits (one i-tile against a run of j-tiles), at least: 8 tiles of the
/// largest block, more tiles of smaller ones (unitTiles()); more where the batch would otherwise
/// need more than kMaxWorkUnits units (N ~ 1e7 and up).
inline constexpr int kPointsPerUnit = 8 * 1024;
inline constexpr std::uint64_t kMaxWorkUnits = std::uint64_t{1} << 23; // 256 MB of WorkUnits
/// Relative margin on box distances, shared by the kernel's tile classification and the host's
/// cell-pair list (spatial culling): far above the rounding of any c² either precision computes
/// (float hi + lo: ~2e-7, hi alone where |d| >= 0.5: ~6e-7 relative), far below any sane bin
/// width. A tile pair dropped or binned whole with it therefore holds no pair that a pair-by-pair
/// count, in either precision, would bin differently: culled counts equal brute-force counts.
inline constexpr double kTileBoxMargin = 1e-5;

/// Points per sub-box. Each warp holds kPointsPerThread x 32 consecutive (curve-sorted)
/// i-points, register r of its lanes being one sub-box; inside a tile pair that may cross the
/// range boundary, register group r skips each run of kSubTileSize j-points whose sub-box is out
/// of reach of its own (lane k tests j sub-box k, a ballot per r gives the masks: 4 tests per
/// 32 x 128 pairs). That is culling finer than the tiles, which matters where tiles are large
/// against θ_max (N = 1e6 at 10°: the listed tile pairs hold 6.4x the in-range pairs, the kept
/// 32 x 32 sub-tile pairs 1.7x).
inline constexpr int kSubTileSize = 32;
/// Points per k-d group (kd_groups.h): a run of the sorted order split at medians down to the
/// sub-tiles. A tile size that divides it keeps every tile inside one group.
inline constexpr int kKdGroupBits = 13;
inline constexpr std::uint32_t kKdGroupPoints = 1u << kKdGroupBits;
/// Largest block the pair kernel is launched with: a tile then holds at most 32 sub-boxes, one
/// per lane of the warp that tests them (a 32-bit ballot).
inline constexpr int kMaxPairBlock = 256;
static_assert(kMaxPairBlock * kPointsPerThread / kSubTileSize <= 32);
static_assert(kPointsPerUnit % (kMaxPairBlock * kPointsPerThread) == 0);
/// j-tiles per work unit for a tile size: kPointsPerUnit of j-points. The sub-tile masks of that
/// many j-tiles are kept per warp (shared memory); where a batch needs longer units (more than
/// kMaxWorkUnits), the further j-tiles of a unit are visited without sub-tile culling (slower,
/// still exact).
constexpr std::uint32_t unitTiles(std::uint32_t tileSize) noexcept {
    return tileSize > 0 ? static_cast<std::uint32_t>(kPointsPerUnit) / tileSize : 1u;
}

/// One block's work: i-tile tileA of catalog catA against j-tiles [tileB0, tileB1) of catB.
/// For an auto task (catA == catB) tileB0 >= tileA and the diagonal tile counts i < j only.
struct WorkUnit {
    std::uint32_t task;
    std::uint32_t catA;
    std::uint32_t catB;
    std::uint32_t tileA;
    std::uint32_t tileB0;
    std::uint32_t tileB1;
    std::uint32_t isAuto;
    std::uint32_t padding;
};

} // namespace tpacf::cuda::detail
