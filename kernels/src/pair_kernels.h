// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Interface between the host side (launch_loop.cpp, device_catalogs.cpp) and the kernels
// (pair_kernels.cu). Internal to kernels/src: plain structs plus cudaStream_t; the tile and unit
// geometry the host schedule shares with the kernels is in pair_work.h (no CUDA types).
#include "pair_work.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace tpacf::cuda::detail {

// Weighted counts (CountTask::weighted): separate instantiations of the pair kernel
// (weightedPairCountKernel, weightedRegionPairCountKernel), so the unweighted kernels keep their
// code. Each point's weight rides in the spare fourth component of its point (double: w; float:
// the hi part's w, rounded to float), so it follows the device's sort and costs no extra
// load. Beside every private 32-bit counter a block keeps a private sum of w_i·w_j in the kernel's
// precision (per-thread columns: plain load/add/store); the sums are flushed into the double
// global sums after every work unit, and a tile pair binned whole adds the product of the tiles'
// weight sums (TileWeight). Accuracy against the double reference (CpuPairCounter), per bin:
// - double: the same products, summed in another order: |Δ| <= 1e-12 · Σ|w_i·w_j| (measured
//   worst 6.6e-14 on an H100, 2026-11-24, tests/gpu/gpu_weighted_test.cpp); raw counts identical.
// - float: float products of float weights summed in float for at most one unit per thread
//   (<= kPointsPerThread · kPointsPerUnit terms), then in double: |Δ| <= 1e-5 · Σ|w_i·w_j|, plus
//   the weights of the pairs whose c² lies within ~1e-6 of the bin's edges (those the float
//   mode may bin differently, as for the raw counts). Measured worst 1.4e-7 of Σ|w_i·w_j| (H100,
//   2026-11-24, same test).

/// Largest lookup table over the float bits of c², in entries.
inline constexpr std::uint32_t kMaxLookupEntries = 4096;
/// Largest single-step table whose cells the kernels keep packed (LookupCell: 8 bytes a cell in
/// float, 16 in double, 4 and 8 KB here); a larger one stays 16-bit slots (LookupKind::Step).
inline constexpr std::uint32_t kMaxPackedLookupCells = 512;

/// How the kernels read the c² lookup table (pair_loops.cuh, lookupSlot).
enum class LookupKind {
    Packed, ///< at most one threshold a cell, slot and threshold side by side: one load
    Step,   ///< at most one threshold a cell, too many cells to pack: the slot, then its threshold
    Loop,   ///< denser bins: the slot, then a compare per threshold inside the cell
    /// Float, culled, unweighted, bins wholly below kFastMinChord2, a table that packs: cells of
    /// BandCell, where a pair far enough from every edge is binned on its hi parts alone
    /// (bin_bands.h).
    Banded,
};

/// A cell of the single-step lookup as the kernels hold it in shared memory: the slot of the
/// cell's smallest value and the threshold after it, read in one load (the slot is the threshold's
/// index: the compare no longer waits for a second load).
template <class Real> struct LookupCell;
template <> struct alignas(8) LookupCell<float> {
    float threshold;
    std::int32_t slot;
};
template <> struct alignas(16) LookupCell<double> {
    double threshold;
    std::int32_t slot;
    std::int32_t unused;
};
/// A cell of the banded lookup (LookupKind::Banded) as the kernels hold it in shared memory: a
/// float pair whose hi-only c² lies in the cell below `below` has the cell's slot whatever its lo
/// parts say, one at or above `above` the next slot; between the two its c² is computed in full
/// (bin_bands.h). The low bits of below's representation (BinTables::slotMask) hold the slot,
/// so that a cell stays 8 bytes as LookupCell<float> is.
struct alignas(8) BandCell {
    float below;
    float above;
};

/// Whether a kernel keeps the lo parts at hand: its staged j-tile's in shared memory and its
/// i-points' in registers. Float kernels do, but for the banded ones that project nothing: their
/// pairs read lo parts only inside a band (within a few float roundings of an edge: rare), and
/// read them there from global memory. Without them (4 KB of shared memory in a block of 64
/// threads, 12 registers) the plain kernel's blocks of 64 fit 15 to an SM instead of 12
/// (pair_kernels.cu, kPairBlocksPerSm).
constexpr bool holdsLows(bool isFloat, LookupKind lookup, bool projected) noexcept {
    return isFloat && !(lookup == LookupKind::Banded && !projected);
}
/// Float: a pair whose hi-only c² is >= this (|d| >= 0.5) is binned on the hi parts alone, in
/// every path (brute force too), so a pair's bin never depends on the path that computed it; tile
/// pairs at least this far apart (with the margin) skip the lo parts altogether. There the hi
/// parts keep c² to 2|d||dl| <= 1.03e-7 absolute, 4e-7 relative, inside DESIGN.md's ~1e-6.
inline constexpr float kFastMinChord2 = 0.25f;

enum class RealKind { Float, Double };

/// Where each block keeps its private histogram.
enum class HistMode : int {
    PerThreadAtomic, ///< [slot][thread] 32-bit counters in shared memory, each add one shared
                     ///< atomic instruction (default)
    PerWarp,         ///< [bin][warp] 32-bit counters in shared memory, shared atomics
    Global,          ///< straight into the 64-bit global counters (fallback for huge bin counts)
};
const char* histModeName(HistMode mode) noexcept;

/// Bounding box of one tile of (sorted) points, in double; count = real points in the tile;
/// region = jackknife region of every point of the tile (region layouts; 0 otherwise).
struct TileBox {
    double lo[3];
    double hi[3];
    std::uint32_t count;
    std::uint32_t region;
};

/// Weights of one tile's real points (weighted batches): Σw and Σw², in double. A tile pair binned
/// whole adds Σw_A·Σw_B (cross) or ((Σw)² − Σw²)/2 (the diagonal tile of an auto task).
struct TileWeight {
    double sum;
    double sumSquares;
};

/// Bounding box of kSubTileSize consecutive sorted points (real ones only; empty: lo = +inf).
struct SubBox {
    double lo[3];
    double hi[3];
};

/// A prepared catalog on one device. points: float4 hi parts (float) or double4 (double);
/// lows: float4 lo parts (float only). Padded to whole tiles with NaN points. The fourth
/// component of each point is its weight (1 for a catalog without weights, 0 for padding): in
/// double (double) or rounded to float (float, the hi part's w); only weighted kernels read it.
struct CatalogView {
    const void* d_points = nullptr;
    const void* d_lows = nullptr;
    const TileBox* d_tiles = nullptr;
    const SubBox* d_subBoxes = nullptr; ///< tileSize / kSubTileSize per tile
    std::uint32_t size = 0;
    std::uint32_t tileCount = 0;
};

/// Bin thresholds and the c² lookup table, on the device.
struct BinTables {
    const void* d_thresholds = nullptr; ///< binCount+1 thresholds and +inf, kernel precision
    const double* d_thresholdsDouble = nullptr; ///< the same in double (tile classification)
    const std::uint16_t* d_lookup = nullptr;    ///< slot (thresholds <= c²) of each cell's start
    const BandCell* d_bands = nullptr; ///< LookupKind::Banded: the cells (lookupSize of them)
    std::uint32_t slotMask = 0;        ///< LookupKind::Banded: the bits of BandCell::below's slot
    std::uint32_t lookupSize = 0;
    std::uint32_t lookupShift = 0;
    std::int32_t lookupBase = 0;
    std::uint32_t binCount = 0;
    double lowMargin = 0;  ///< float: pairs whose hi-only c² is below this are out of range
    double highMargin = 0; ///< float: ... or at/above this
    int classifyTiles = 1; ///< 0: brute force (no culling, no whole-tile binning)
    int cullSubTiles = 1;  ///< with classifyTiles: skip out-of-range sub-tiles inside a tile pair
    /// With cullSubTiles, in the unweighted plain kernels: sub-tile pairs whose pairs all lie in
    /// one bin are added whole (their points' product) instead of computed.
    int wholeSubTiles = 1;
    /// With cullSubTiles, in the unweighted kernels: sub-tile pairs whose pairs lie in two
    /// neighbouring slots at most are counted by compares instead of a lookup and an add each.
    int narrowSubTiles = 1;
    /// The projected kernel variants (KernelPlan::projected), with classifyTiles: tile pairs
    /// whose pairs straddle one or two bin edges and whose edges · (R_A + R_B) <= this · |d|
    /// are counted by ranking projections (pair_projection.cuh) instead of sub-tile masks and
    /// pair loops (CudaTuning::projectionReach).
    double projectionReach = 1.0;
    /// Brute force, float: whether the bins reach kFastMinChord2 (else no pair that survives
    /// the range check can take the hi-only rule, and the loops skip the select).
    int bruteForceSelect = 0;
};

/// Shared-memory layout of one block, in bytes from the start of dynamic shared memory.
struct SharedLayout {
    std::size_t lowsOffset = 0;
    /// Per warp and j-tile of the unit (maskedTiles of them): 4 masks of the j sub-tiles its i
    /// groups visit.
    std::size_t visitOffset = 0;
    /// The same count of masks: the j sub-tiles each i group counts by compares (narrow); only
    /// where narrowMasks (else the kernel neither writes nor reads them).
    std::size_t narrowOffset = 0;
    bool narrowMasks = true;
    std::uint32_t maskedTiles = 0;
    std::size_t thresholdsOffset = 0;
    std::size_t lookupOffset = 0;
    std::size_t histOffset = 0;
    std::size_t histStride = 0; ///< counters between consecutive bins
    std::size_t totalBytes = 0;
};
/// Weighted kernels: where the private weighted sums (kernel precision, laid out like the
/// counters, histStride apart) start, after the counters. Derived rather than stored, so that
/// the unweighted kernels' argument layout (and code) stays what it was.
constexpr std::size_t weightOffsetOf(const SharedLayout& layout, std::uint32_t binCount) noexcept {
    return (layout.histOffset + layout.histStride * (binCount + 2) * sizeof(std::uint32_t) + 15) /
           16 * 16;
}
/// lookup: Packed holds the table as LookupCells, Banded as BandCells, the others as 16-bit
/// slots. projected: the projected variant's layout (per-thread counters blockSize + 1 apart).
SharedLayout sharedLayout(RealKind real, HistMode mode, int blockSize, std::uint32_t binCount,
                          std::uint32_t lookupSize, LookupKind lookup, bool weighted = false,
                          bool narrowMasks = true, bool projected = false) noexcept;

struct KernelPlan {
    RealKind real = RealKind::Float;
    HistMode hist = HistMode::PerThreadAtomic;
    LookupKind lookup = LookupKind::Packed;
    bool regions = false;   ///< counts keyed by jackknife region (region-pure tiles)
    bool weighted = false;  ///< also sums w_i·w_j per bin (the weighted kernel variant)
    /// Counts far tile pairs that straddle one or two edges by projection (pair_projection.cuh);
    /// unweighted per-thread histogram modes only.
    bool projected = false;
    int blockSize = 0;
    int tileSize = 0;
    int blocksPerSm = 0;
    int gridSize = 0;
    SharedLayout layout;
};

/// Chooses the histogram mode and block size for the current device from its shared-memory
/// limits and the occupancy API. blockSizeCap > 0 forces at most that block size.
KernelPlan planPairKernel(RealKind real, std::uint32_t binCount, std::uint32_t lookupSize,
                          LookupKind lookup, bool regions, int blockSizeCap,
                          std::optional<HistMode> forcedMode, bool weighted = false,
                          bool projected = false, bool narrowMasks = true);

struct PairKernelArgs {
    const WorkUnit* d_units = nullptr;
    std::uint32_t unitBegin = 0;
    std::uint32_t unitEnd = 0;
    std::uint32_t* d_unitCursor = nullptr; ///< zeroed before the launch; blocks take units from it
    const CatalogView* d_catalogs = nullptr;
    /// [task][bin]; with regions [task][row][bin], rows: total, touching[K], within[K].
    unsigned long long* d_counts = nullptr;
    std::uint32_t regionCount = 0; ///< K (region plans only)
    BinTables bins;
    SharedLayout layout;
    std::uint32_t tileSize = 0;
    /// Private 32-bit counters flushed at least this often (weighted kernels: every unit, which
    /// bounds the terms a private weighted sum adds up before it reaches the double counters).
    std::uint32_t flushEveryUnits = 0;
    // Added fields go last: the unweighted kernels' code stays byte for byte what it was.
    /// Weighted kernels: Σ w_i·w_j in the same layout as d_counts; null otherwise.
    double* d_weighted = nullptr;
    /// Weighted kernels: per catalog, its tiles' weight sums (beside CatalogView rather than in
    /// it, which would change the unweighted kernels' stride over the views).
    const TileWeight* const* d_tileWeights = nullptr;
};

void launchPairKernel(const KernelPlan& plan, const PairKernelArgs& args, int gridSize,
                      cudaStream_t stream);

/// Catalog preparation: sort the unit vectors along the sky curve (sky_curve.h), split into hi/lo
/// floats (float) or keep double, pad to whole tiles with NaN, compute the tile boxes.
struct PrepareBuffers {
    const double* d_x;
    const double* d_y;
    const double* d_z;
    const double* d_w; ///< size weights, or null: every weight is 1
    std::uint32_t size;
    std::uint32_t paddedSize;
    std::uint32_t tileSize;
    std::uint32_t* d_keys;        ///< size
    std::uint32_t* d_keysSorted;  ///< size
    std::uint32_t* d_order;       ///< size
    std::uint32_t* d_orderSorted; ///< size
    void* d_sortTemp;
    std::size_t sortTempBytes;
    void* d_sorted;     ///< double4[paddedSize]
    void* d_hi;         ///< float4[paddedSize] or null (double)
    void* d_lo;         ///< float4[paddedSize] or null (double)
    TileBox* d_tiles;   ///< paddedSize / tileSize
    SubBox* d_subBoxes; ///< paddedSize / kSubTileSize
    TileWeight* d_tileWeights = nullptr; ///< per tile, or null (unweighted batch: not computed)
    /// Region layout (all null otherwise): points sorted by (layout group, curve key), every
    /// group (one region in one coarse cell) padded to whole tiles, so that every tile holds
    /// one region's points.
    const std::int32_t* d_regions = nullptr;          ///< size: layout group of each point
    std::uint64_t* d_regionKeys = nullptr;            ///< size
    std::uint64_t* d_regionKeysSorted = nullptr;      ///< size
    const std::uint32_t* d_tileRegion = nullptr;      ///< per tile
    const std::uint32_t* d_tileSortedStart = nullptr; ///< per tile: sorted index of its first point
    const std::uint32_t* d_tileCount = nullptr;       ///< per tile: its real points
    int regionBits = 0;                               ///< bits of the largest group index
    /// The curve's order refined into k-d groups (kd_groups.h): in the plain layout where they
    /// apply, in the region layout at the kdGroupCount runs that start at d_kdGroupStarts.
    bool kdGroups = false;
    const std::uint32_t* d_kdGroupStarts = nullptr; ///< region layout only
    std::uint32_t kdGroupCount = 0;                 ///< region layout only
};
/// Temporary bytes the radix sort needs for `size` keys (32-bit keys, or 64-bit region keys).
std::size_t sortTempBytes(std::uint32_t size);
std::size_t regionSortTempBytes(std::uint32_t size, int regionBits);
void launchPrepareCatalog(const PrepareBuffers& buffers, cudaStream_t stream);

/// Loads, on the current device, the kernels a count in `real` launches first and that CUDA's
/// lazy loading would otherwise load at their first use inside the count (0.03-0.04 s of the
/// standard job's count on one H200, BENCHMARKS.md, "Kernels loaded beside the reading"): the
/// preparation's own kernels and the unweighted pair kernels without regions, every lookup.
/// The radix sort's and the other variants' kernels still load at first use. Never throws; a
/// kernel that cannot load fails again, with its error, where it is used.
void preloadCountKernels(RealKind real) noexcept;
/// The preparation's part of preloadCountKernels (catalog_prepare.cu).
void preloadPrepareKernels() noexcept;

} // namespace tpacf::cuda::detail
