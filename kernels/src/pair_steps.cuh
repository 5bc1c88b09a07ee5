// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The steps of the pair kernel's body (pair_kernels.cu, pairCount): the block's shared memory,
// its next unit, the sub-tile masks, the i-tile in registers, a tile pair binned whole, the
// staged j-tile, the pair-by-pair loops a tile pair's class asks for, and the private
// histogram's rows and flushes. Device code, included by pair_kernels.cu alone.
#include "device_point.h"
#include "pair_histograms.cuh"
#include "pair_kernels.h"
#include "pair_loops.cuh"
#include "pair_projection.cuh"

#include <cstdint>
#include <type_traits>

namespace tpacf::cuda::detail {

namespace {

/// Sub-tile masks of the unit's first maskedTiles j-tiles into s_visit and s_narrow (this warp's
/// rows), made at the unit's start where few registers are live (the i-points are loaded after):
/// lane k tests j sub-box k against each of the warp's i sub-boxes (one per register r); the
/// ballots per r give the j sub-tiles group r visits pair by pair and those it counts by compares.
/// Only in tile pairs the tile loop counts pair by pair (classifyTilePair, the same function
/// there: neither skipped nor one bin), and never in the diagonal tile (whose loop takes the pairs
/// i < j one by one):
/// - whole sub-tiles (addWholeSubTiles): a sub-tile pair whose pairs all lie in one bin is added
///   here, by the lane that judged it, and left out of the masks;
/// - narrow sub-tiles (addNarrow): a sub-tile pair of at most two neighbouring slots (one bin not
///   added whole included) goes to the narrow mask instead of the visit mask (narrowPairs), in
///   double and, in float, in kFast tile pairs (hi parts alone). Float pairs that need their lo
///   parts measured no faster by compares (the lookup is a small share of their arithmetic) and
///   slower near θ_max, where the pair loop's range check drops most of them after the hi parts.
/// Projected tile pairs (addProjected, projectTilePair) are counted apart: nothing of them here.
template <class Real, class Hist>
__device__ __forceinline__ void
markSubTiles(const WorkUnit& unit, const CatalogView& catA, const CatalogView& catB,
             const TileBox& boxA, const BinTables& bins, bool addWholeSubTiles, bool addNarrow,
             bool addProjected, std::uint32_t subBoxesPerTile, std::uint32_t maskedTiles,
             Hist& hist, uint4* s_visit, uint4* s_narrow) {
    const std::uint32_t binCount = bins.binCount;
    const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const SubBox* iBoxes = catA.d_subBoxes +
                           static_cast<std::size_t>(unit.tileA) * subBoxesPerTile +
                           warp * kPointsPerThread;
    const bool real = lane < subBoxesPerTile;
    const std::uint32_t tiles = min(unit.tileB1 - unit.tileB0, maskedTiles);
    for (std::uint32_t t = 0; t < tiles; ++t) {
        const std::uint32_t tileB = unit.tileB0 + t;
        const SubBox* jBox =
            catB.d_subBoxes + static_cast<std::size_t>(tileB) * subBoxesPerTile + lane;
        // Whether the warp's masks of this tile pair can be read: not where the tile loop
        // settles it without them (skipped, one bin, projected).
        bool settledHere = false, narrowHere = false, judged = true;
        std::uint32_t pointsJ = 0;
        if ((addWholeSubTiles || addNarrow) && !(unit.isAuto != 0 && tileB == unit.tileA)) {
            const TileBox boxB = catB.d_tiles[tileB];
            int oneBin = -1;
            bool mixed = false;
            const int cls =
                classifyTilePair(boxA, boxB, bins, Traits<Real>::kHasLows, &oneBin, &mixed);
            std::uint32_t slotLo = 0, slotHi = 0;
            settledHere = cls != kSkip && cls != kOneBin &&
                          !(addProjected && projectTilePair(boxA, boxB, bins, slotLo, slotHi));
            judged = settledHere;
            narrowHere = addNarrow && settledHere && (!Traits<Real>::kHasLows || cls == kFast);
            pointsJ = subBoxPoints(boxB.count, lane);
        }
        std::uint32_t masks[kPointsPerThread], narrowMasks[kPointsPerThread];
#pragma unroll
        for (int r = 0; r < kPointsPerThread; ++r) {
            const int verdict =
                real && judged ? judgeSubBoxes(iBoxes + r, jBox, bins.d_thresholdsDouble, binCount)
                               : kSubOut;
            const bool whole = addWholeSubTiles && settledHere && verdict >= 0;
            if (whole) {
                const std::uint32_t pairs =
                    subBoxPoints(boxA.count, warp * kPointsPerThread + r) * pointsJ;
                if (pairs != 0)
                    hist.addPairs(verdict + 1, pairs);
            }
            const bool narrow = narrowHere && !whole && (verdict >= 0 || verdict == kSubNarrow);
            masks[r] = ~__ballot_sync(0xffffffffu, real && (verdict == kSubOut || whole || narrow));
            narrowMasks[r] = __ballot_sync(0xffffffffu, real && narrow);
        }
        if (lane == 0) {
            s_visit[warp * maskedTiles + t] = make_uint4(masks[0], masks[1], masks[2], masks[3]);
            if (addNarrow)
                s_narrow[warp * maskedTiles + t] =
                    make_uint4(narrowMasks[0], narrowMasks[1], narrowMasks[2], narrowMasks[3]);
        }
    }
    __syncwarp(); // read by this warp only; rewritten after the next unit's barriers
}

/// The i-tile into registers: this thread's point r is tile index iPointIndex(r), its hi parts
/// (and lo parts where the kernel holds them, holdsLows; else zeros) and, weighted, its weight.
template <class Real, bool Weighted, bool Lows = Traits<Real>::kHasLows, class Weights>
__device__ __forceinline__ void
loadITile(const CatalogView& catA, std::uint32_t tileA, std::uint32_t tileSize,
          Real (&ix)[kPointsPerThread], Real (&iy)[kPointsPerThread], Real (&iz)[kPointsPerThread],
          Weights& iw, float (&lx)[kPointsPerThread], float (&ly)[kPointsPerThread],
          float (&lz)[kPointsPerThread]) {
    using Point = typename Traits<Real>::Point;
    const Point* pts = static_cast<const Point*>(catA.d_points);
    const float4* lows = static_cast<const float4*>(catA.d_lows);
    const std::size_t tileStart = static_cast<std::size_t>(tileA) * tileSize;
#pragma unroll
    for (int r = 0; r < kPointsPerThread; ++r) {
        const std::size_t idx = tileStart + static_cast<std::size_t>(iPointIndex(r));
        const Point p = pts[idx];
        ix[r] = p.x;
        iy[r] = p.y;
        iz[r] = p.z;
        if constexpr (Weighted)
            iw[r] = p.w;
        if constexpr (Lows) {
            const float4 l = lows[idx];
            lx[r] = l.x;
            ly[r] = l.y;
            lz[r] = l.z;
        } else {
            lx[r] = ly[r] = lz[r] = 0.f;
        }
    }
}

/// A tile pair whose pairs all lie in bin `oneBin`, added whole by the block's first thread:
/// N_A·N_B pairs (the diagonal tile of an auto task N(N−1)/2), weighted Σw_A·Σw_B (((Σw)² −
/// Σw²)/2), into the task's rows (with regions, those of the tiles' region pair).
template <bool Regions, bool Weighted>
__device__ __forceinline__ void
addOneBinTilePair(const PairKernelArgs& args, const WorkUnit& unit, std::uint32_t tileB,
                  const TileBox& boxA, const TileBox& boxB, bool diagonal, std::uint32_t oneBin,
                  unsigned long long* taskCounts) {
    if (threadIdx.x != 0)
        return;
    const unsigned long long pairs =
        diagonal ? static_cast<unsigned long long>(boxA.count) * (boxA.count - 1) / 2
                 : static_cast<unsigned long long>(boxA.count) * boxB.count;
    if (pairs == 0)
        return;
    addToRows<Regions>(Regions ? counterRows<Regions>(args, unit.task, boxA.region, boxB.region)
                               : CounterRows{taskCounts, nullptr, nullptr},
                       oneBin, pairs);
    if constexpr (Weighted) {
        const TileWeight wa = args.d_tileWeights[unit.catA][unit.tileA];
        const TileWeight wb = args.d_tileWeights[unit.catB][tileB];
        const double sum = diagonal ? 0.5 * (wa.sum * wa.sum - wa.sumSquares) : wa.sum * wb.sum;
        addToRows<Regions>(weightRows<Regions>(args, unit.task, boxA.region, boxB.region), oneBin,
                           sum);
    }
}

/// The j-tile into shared memory (its lo parts where the kernel holds them, holdsLows), by the
/// whole block (the caller holds the barriers around it).
template <class Real, bool Lows = Traits<Real>::kHasLows>
__device__ __forceinline__ void stageJTile(const CatalogView& catB, std::uint32_t tileB,
                                           std::uint32_t tileSize,
                                           typename Traits<Real>::Point* s_pts, float4* s_lo) {
    using Point = typename Traits<Real>::Point;
    const Point* pts = static_cast<const Point*>(catB.d_points);
    const float4* lows = static_cast<const float4*>(catB.d_lows);
    const std::size_t tileStart = static_cast<std::size_t>(tileB) * tileSize;
    for (std::uint32_t k = threadIdx.x; k < tileSize; k += blockDim.x) {
        s_pts[k] = pts[tileStart + k];
        if constexpr (Lows)
            s_lo[k] = lows[tileStart + k];
    }
}

/// Where the pair loops find the lo parts (LowParts): staged and in registers where the kernel
/// holds them (Lows, holdsLows), else both tiles' in global memory (double: none, nothing reads
/// them).
template <class Real, bool Lows>
__device__ __forceinline__ LowParts lowPartsOf(const float4* s_lo, const CatalogView& catA,
                                               std::uint32_t tileA, const CatalogView& catB,
                                               std::uint32_t tileB, std::uint32_t tileSize) {
    if constexpr (Lows || !Traits<Real>::kHasLows)
        return LowParts{s_lo, nullptr};
    const auto tileLows = [tileSize](const CatalogView& cat, std::uint32_t tile) {
        return static_cast<const float4*>(cat.d_lows) + static_cast<std::size_t>(tile) * tileSize;
    };
    return LowParts{tileLows(catB, tileB), tileLows(catA, tileA)};
}

/// The block's dynamic shared memory as the kernel uses it: the staged j-tile (and its lo parts),
/// the thresholds, the c² lookup, the private histogram (and weighted sums), the sub-tile masks
/// (visit and narrow).
template <class Real> struct BlockShared {
    typename Traits<Real>::Point* pts;
    float4* lows;
    Real* thresholds;
    std::uint16_t* lookup;         ///< the table as slots (LookupKind Step and Loop)
    LookupCell<Real>* lookupCells; ///< the table packed (LookupKind Packed), at the same place
    BandCell* bandCells;           ///< the table banded (LookupKind Banded), at the same place
    std::uint32_t* hist;
    uint4* visit;
    uint4* narrow;
    Real* weights; ///< weighted kernels only, else null
};

/// The bin tables into shared memory (thresholds, lookup) and the private histogram (and weighted
/// sums) zeroed, by the whole block; the caller holds the barrier after it.
template <class Real, HistMode Mode, bool Weighted, LookupKind Lookup>
__device__ __forceinline__ void loadTablesAndClear(const BinTables& bins, std::uint32_t stride,
                                                   const BlockShared<Real>& shared) {
    const std::uint32_t binCount = bins.binCount;
    std::uint32_t* const s_hist = shared.hist;
    Real* const s_weights = shared.weights;
    const Real* g_thr = static_cast<const Real*>(bins.d_thresholds);
    for (std::uint32_t k = threadIdx.x; k < binCount + 2; k += blockDim.x)
        shared.thresholds[k] = g_thr[k];
    for (std::uint32_t k = threadIdx.x; k < bins.lookupSize; k += blockDim.x) {
        if constexpr (Lookup == LookupKind::Banded) {
            shared.bandCells[k] = bins.d_bands[k];
            continue;
        }
        const std::uint16_t slot = bins.d_lookup[k];
        if constexpr (Lookup == LookupKind::Packed)
            shared.lookupCells[k] = LookupCell<Real>{g_thr[slot], slot};
        else
            shared.lookup[k] = slot;
    }
    if constexpr (Mode != HistMode::Global) {
        for (std::uint32_t k = threadIdx.x; k < (binCount + 2) * stride; k += blockDim.x)
            s_hist[k] = 0;
        if constexpr (Weighted)
            for (std::uint32_t k = threadIdx.x; k < (binCount + 2) * stride; k += blockDim.x)
                s_weights[k] = Real(0);
    }
}

/// This thread's view of the block's private histogram: its own column (per-thread modes), its
/// warp's (per-warp), or none (global: the rows are set per task).
template <class Hist, HistMode Mode, bool Weighted, class Real>
__device__ __forceinline__ Hist privateHistogram(std::uint32_t* s_hist, Real* s_weights,
                                                 std::uint32_t stride, std::uint32_t binCount) {
    constexpr bool kPerThread = Mode == HistMode::PerThreadAtomic;
    Hist hist{};
    hist.stride = stride;
    hist.binCount = binCount;
    if constexpr (kPerThread)
        hist.mine = s_hist + threadIdx.x;
    else if constexpr (Mode == HistMode::PerWarp)
        hist.mine = s_hist + threadIdx.x / 32;
    if constexpr (Weighted) {
        if constexpr (kPerThread)
            hist.wmine = s_weights + threadIdx.x;
        else if constexpr (Mode == HistMode::PerWarp)
            hist.wmine = s_weights + threadIdx.x / 32;
    }
    return hist;
}

/// One tile pair's pairs one by one, by the loop its class asks for: the diagonal tile (i < j),
/// far enough apart for the hi parts alone (float, kFast), in range whole, or (float, packed
/// cells) with a range check per pair that spares the lo parts' arithmetic out of range; float
/// selects per pair only where the pair may straddle kFastMinChord2 (`mixed`). The banded and
/// the double loops check no range: their lookup bins every pair exactly, out of range included.
/// lows: the lo parts, where the kernel holds them (Lows: lx, ly, lz and s_lo, staged) or not
/// (the j-tile's and the i-tile's in global memory, for the banded loop's pairs inside a band).
template <class Real, LookupKind Lookup, bool Lows, class Weights, class Hist>
__device__ __forceinline__ void
countPairByPair(bool diagonal, int cls, bool mixed, const Real (&ix)[kPointsPerThread],
                const Real (&iy)[kPointsPerThread], const Real (&iz)[kPointsPerThread],
                const float (&lx)[kPointsPerThread], const float (&ly)[kPointsPerThread],
                const float (&lz)[kPointsPerThread], const Weights& iw,
                const typename Traits<Real>::Point* s_pts, const LowParts& lows, const Real* s_thr,
                const LookupContext& lookup, int tileSize, float lowMargin, float highMargin,
                const uint4* visit, Hist& hist) {
    if constexpr (Traits<Real>::kHasLows) {
        const auto floatLoop = [&]<bool Diag, bool Fast, bool Margin>() {
            if (!Fast && mixed) // (Fast: both calls are the one without select)
                pairLoopFloat<Diag, Fast, Margin, !Fast, Lookup, Lows>(
                    ix, iy, iz, lx, ly, lz, s_pts, lows, s_thr, lookup, tileSize, lowMargin,
                    highMargin, visit, hist, iw);
            else
                pairLoopFloat<Diag, Fast, Margin, false, Lookup, Lows>(
                    ix, iy, iz, lx, ly, lz, s_pts, lows, s_thr, lookup, tileSize, lowMargin,
                    highMargin, visit, hist, iw);
        };
        // Banded loops check no margins (bandedGuess): one loop serves both classes.
        constexpr bool kMargin = Lookup != LookupKind::Banded;
        if (diagonal)
            floatLoop.template operator()<true, false, kMargin>();
        else if (cls == kFast)
            floatLoop.template operator()<false, true, false>();
        else if (cls == kInRange || !kMargin)
            floatLoop.template operator()<false, false, false>();
        else
            floatLoop.template operator()<false, false, true>();
    } else {
        if (diagonal)
            pairLoopDouble<true, Lookup>(ix, iy, iz, s_pts, s_thr, lookup, tileSize, visit, hist,
                                         iw);
        else
            pairLoopDouble<false, Lookup>(ix, iy, iz, s_pts, s_thr, lookup, tileSize, visit, hist,
                                          iw);
    }
}

/// One tile pair's narrow sub-tile pairs (this warp's mask `narrow`, made by markSubTiles), by
/// compares (narrowPairs): per j sub-tile, each register group the mask marks. Float marks them
/// in kFast tile pairs only, whose pairs are binned on their hi parts alone. jCount: the j-tile's
/// real points.
template <class Real, LookupKind Lookup, class Hist>
__device__ __forceinline__ void
countNarrowPairs(const Real (&ix)[kPointsPerThread], const Real (&iy)[kPointsPerThread],
                 const Real (&iz)[kPointsPerThread], const typename Traits<Real>::Point* s_pts,
                 const Real* s_thr, const LookupContext& lookup, int tileSize, std::uint32_t jCount,
                 std::uint32_t binCount, const uint4* narrow, const Hist& hist) {
    for (int jBegin = 0; jBegin < tileSize; jBegin += kSubTileSize) {
        const std::uint32_t groups = groupsVisiting(narrow, jBegin);
        if (groups == 0)
            continue;
        const std::uint32_t realJ = subBoxPoints(jCount, jBegin / kSubTileSize);
#pragma unroll
        for (int r = 0; r < kPointsPerThread; ++r) {
            if (((groups >> r) & 1u) == 0)
                continue;
            narrowPairs<Lookup>(ix[r], iy[r], iz[r], s_pts, s_thr, lookup, jBegin, realJ, binCount,
                                hist);
        }
    }
}

/// The next unit of the grid's list for this block: one atomic step of the shared cursor, taken
/// by thread 0 and read by all (unitEnd or beyond: none left).
__device__ __forceinline__ std::uint32_t nextUnit(const PairKernelArgs& args,
                                                  std::uint32_t& s_unit) {
    if (threadIdx.x == 0)
        s_unit = args.unitBegin + atomicAdd(args.d_unitCursor, 1u);
    __syncthreads();
    const std::uint32_t unitIndex = s_unit;
    __syncthreads();
    return unitIndex;
}

/// Flushes the block's private histogram into the rows of (task, region pair): flushPrivate with
/// the block's fixed arguments.
template <HistMode Mode, bool Regions, bool Weighted, class Real> struct PrivateFlush {
    std::uint32_t* s_hist;
    Real* s_weights;
    std::uint32_t stride, columns, binCount;
    const PairKernelArgs& args;

    __device__ __forceinline__ void operator()(std::uint32_t task, std::uint32_t regionA,
                                               std::uint32_t regionB) const {
        flushPrivate<Mode, Regions, Weighted>(s_hist, s_weights, stride, columns, binCount, args,
                                              task, regionA, regionB);
    }
};

/// What the private histogram holds since its last flush: pairs of `task` (−1: none yet) and, in
/// a region kernel, of the region pair regionA/B once `open`.
struct HistHolding {
    int task = -1;
    bool open = false;
    std::uint32_t regionA = 0, regionB = 0;
    std::uint32_t unitsSinceFlush = 0;
};

/// Flushes the private histogram where it may hold pairs.
template <bool Regions, class Flush>
__device__ __forceinline__ void flushHeld(const Flush& flush, const HistHolding& held) {
    if (Regions ? held.open : held.task >= 0)
        flush(static_cast<std::uint32_t>(held.task), held.regionA, held.regionB);
}

/// Before a unit of `task`: the private histogram flushed where it holds another task's pairs,
/// or after args.flushEveryUnits units (a region kernel opens its region pair later, for the
/// first tile pair it computes).
template <bool Regions, class Flush>
__device__ __forceinline__ void holdUnitTask(const PairKernelArgs& args, std::uint32_t task,
                                             const Flush& flush, HistHolding& held) {
    if (static_cast<int>(task) != held.task || held.unitsSinceFlush >= args.flushEveryUnits) {
        flushHeld<Regions>(flush, held);
        held.task = static_cast<int>(task);
        held.unitsSinceFlush = 0;
        held.open = false;
    }
    ++held.unitsSinceFlush;
}

/// Region kernels: makes (regionA, regionB) the region pair the private histogram holds, flushing
/// what it held for another pair first (global mode: its rows point at the pair's).
template <HistMode Mode, bool Weighted, class Flush, class Hist>
__device__ __forceinline__ void
openRegionPair(const PairKernelArgs& args, std::uint32_t task, std::uint32_t regionA,
               std::uint32_t regionB, const Flush& flush, bool& open, std::uint32_t& openRegionA,
               std::uint32_t& openRegionB, Hist& hist) {
    if (open && regionA == openRegionA && regionB == openRegionB)
        return;
    if (open)
        flush(task, openRegionA, openRegionB);
    open = true;
    openRegionA = regionA;
    openRegionB = regionB;
    if constexpr (Mode == HistMode::Global)
        hist.rows = counterRows<true>(args, task, regionA, regionB);
    if constexpr (Mode == HistMode::Global && Weighted)
        hist.wrows = weightRows<true>(args, task, regionA, regionB);
}

template <class Real, bool Weighted>
__device__ __forceinline__ BlockShared<Real> carveShared(unsigned char* raw,
                                                         const PairKernelArgs& args) {
    using Point = typename Traits<Real>::Point;
    const SharedLayout& layout = args.layout;
    BlockShared<Real> shared{};
    shared.pts = reinterpret_cast<Point*>(raw);
    shared.lows = reinterpret_cast<float4*>(raw + layout.lowsOffset);
    shared.thresholds = reinterpret_cast<Real*>(raw + layout.thresholdsOffset);
    shared.lookup = reinterpret_cast<std::uint16_t*>(raw + layout.lookupOffset);
    shared.lookupCells = reinterpret_cast<LookupCell<Real>*>(raw + layout.lookupOffset);
    shared.bandCells = reinterpret_cast<BandCell*>(raw + layout.lookupOffset);
    shared.hist = reinterpret_cast<std::uint32_t*>(raw + layout.histOffset);
    shared.visit = reinterpret_cast<uint4*>(raw + layout.visitOffset);
    shared.narrow = reinterpret_cast<uint4*>(raw + layout.narrowOffset);
    if constexpr (Weighted)
        shared.weights = reinterpret_cast<Real*>(raw + weightOffsetOf(layout, args.bins.binCount));
    return shared;
}

/// The block's view of the c² lookup in shared memory (the packed and the banded cells lie at
/// the same place).
template <class Real>
__device__ __forceinline__ LookupContext lookupContextOf(const BlockShared<Real>& shared,
                                                         const BinTables& bins) {
    return LookupContext{shared.lookup,
                         shared.lookupCells,
                         bins.lookupShift,
                         -bins.lookupBase,
                         static_cast<int>(bins.lookupSize) - 1,
                         static_cast<int>(bins.slotMask)};
}

/// The task's counters (plain kernels: the histogram's rows point at them, and at its weighted
/// sums; region kernels set their rows per region pair).
template <bool Regions, bool Weighted, class Hist>
__device__ __forceinline__ unsigned long long* taskRows(const PairKernelArgs& args,
                                                        std::uint32_t task, Hist& hist) {
    unsigned long long* const counts =
        args.d_counts + static_cast<std::size_t>(task) * args.bins.binCount;
    if constexpr (!Regions)
        hist.rows.total = counts;
    if constexpr (Weighted && !Regions)
        hist.wrows.total = args.d_weighted + static_cast<std::size_t>(task) * args.bins.binCount;
    return counts;
}

/// A projected tile pair (countProjected, after the caller's barrier: the staged j-tile is
/// rewritten), then the unit's state reloaded rather than kept across the projection's call
/// (registers: what the call would keep alive, the other paths would pay for in spills).
/// tileSize is args.tileSize, read by the caller before it builds `projection`: in that order the
/// generated code is the one measured (BENCHMARKS.md, "Projected tile pairs"; PTX compared).
template <class Real, bool Weighted, class Hist, class Weights>
__device__ __forceinline__ void countProjectedTilePair(
    const PairKernelArgs& args, std::uint32_t unitIndex, std::uint32_t tileB, const TileBox& boxB,
    std::uint32_t slotLo, std::uint32_t slotHi, const BlockShared<Real>& shared,
    std::uint32_t tileSize, const ProjectionShared& projection, const Hist& hist, WorkUnit& unit,
    CatalogView& catA, CatalogView& catB, TileBox& boxA, Real (&ix)[kPointsPerThread],
    Real (&iy)[kPointsPerThread], Real (&iz)[kPointsPerThread], Weights& iw,
    float (&lx)[kPointsPerThread], float (&ly)[kPointsPerThread], float (&lz)[kPointsPerThread]) {
    countProjected<Real>(catA, unit.tileA, boxA, catB, tileB, boxB, tileSize, slotLo, slotHi,
                         shared.pts, shared.lows, shared.thresholds, args.bins, projection, hist);
    unit = args.d_units[unitIndex];
    catA = args.d_catalogs[unit.catA];
    catB = args.d_catalogs[unit.catB];
    boxA = catA.d_tiles[unit.tileA];
    loadITile<Real, Weighted>(catA, unit.tileA, args.tileSize, ix, iy, iz, iw, lx, ly, lz);
}

} // namespace

} // namespace tpacf::cuda::detail
