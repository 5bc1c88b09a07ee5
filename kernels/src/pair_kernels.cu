// The pair-counting kernel (catalog_prepare.cu prepares the catalogs it reads).
//
// Work: a list of WorkUnits (one i-tile against a run of j-tiles of one task, unitTiles) that a
// persistent grid takes from an atomic cursor. Each block keeps its i-tile in registers
// (kPointsPerThread points per thread), stages each j-tile in shared memory, and counts into a
// private histogram in shared memory that it flushes into the task's 64-bit global counters.
// Before a tile pair is computed, the bounding boxes of both tiles classify it: out of range
// (skipped), inside one bin (counted whole), far enough apart for the hi parts alone (float),
// or computed pair by pair in full precision.
//
// Jackknife (regionPairCountKernel): the same body over region-pure tiles; each flush goes to the
// three rows of the tile pair's region pair (total, touching[a], within[a] or touching[b]).
#include "cuda_check.h"
#include "device_point.h"
#include "pair_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tpacf::cuda::detail {

const char* histModeName(HistMode mode) noexcept {
    switch (mode) {
    case HistMode::PerThread:
        return "per-thread shared";
    case HistMode::PerThreadAtomic:
        return "per-thread shared (atomic update)";
    case HistMode::PerWarp:
        return "per-warp shared";
    case HistMode::Global:
        return "global";
    }
    return "?";
}

namespace {

constexpr std::size_t alignUp(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

enum TileClass : int { kSkip, kOneBin, kFast, kInRange, kPrecise };

// ---- precision traits -------------------------------------------------------------------

template <class Real> struct Traits;

template <> struct Traits<float> {
    using Point = float4;
    static constexpr bool kHasLows = true;
    __device__ static std::uint32_t key(float c2) { return __float_as_uint(c2); }
};

template <> struct Traits<double> {
    using Point = DoublePoint;
    static constexpr bool kHasLows = false;
    __device__ static std::uint32_t key(double c2) {
        return static_cast<std::uint32_t>(
            static_cast<unsigned long long>(__double_as_longlong(c2)) >> 32);
    }
};

// ---- histogram privatisation ------------------------------------------------------------
//
// Counters are indexed by "slot" = number of thresholds <= c²: slot 0 is below the first edge,
// slots 1..binCount are the bins, slot binCount+1 is above the last edge (and NaN padding). The
// two outer rows are never flushed, so the pair loops need no range branch.

/// The global rows one tile pair's pairs go to. Without regions: the task's counts (total).
/// With regions, a pair in regions (a, b) adds to exactly three rows: total, touching[a], and
/// within[a] when b == a, touching[b] otherwise (pair_counter.h's RegionPairCounts).
template <class T> struct Rows {
    T* total;
    T* first;
    T* second;
};
using CounterRows = Rows<unsigned long long>;
/// The weighted sums' rows (weighted kernels): the same layout over args.d_weighted.
using WeightRows = Rows<double>;

template <bool Regions, class T>
__device__ __forceinline__ Rows<T> rowsOf(T* base, const PairKernelArgs& args, std::uint32_t task,
                                          std::uint32_t regionA, std::uint32_t regionB) {
    const std::size_t binCount = args.bins.binCount;
    if constexpr (!Regions) {
        return {base + task * binCount, nullptr, nullptr};
    } else {
        const std::size_t regions = args.regionCount;
        T* total = base + task * (1 + 2 * regions) * binCount;
        T* touching = total + binCount;
        T* within = touching + regions * binCount;
        return {total, touching + regionA * binCount,
                regionA == regionB ? within + regionA * binCount : touching + regionB * binCount};
    }
}

template <bool Regions>
__device__ __forceinline__ CounterRows counterRows(const PairKernelArgs& args, std::uint32_t task,
                                                   std::uint32_t regionA, std::uint32_t regionB) {
    return rowsOf<Regions>(args.d_counts, args, task, regionA, regionB);
}

template <bool Regions>
__device__ __forceinline__ WeightRows weightRows(const PairKernelArgs& args, std::uint32_t task,
                                                 std::uint32_t regionA, std::uint32_t regionB) {
    return rowsOf<Regions>(args.d_weighted, args, task, regionA, regionB);
}

template <bool Regions, class T>
__device__ __forceinline__ void addToRows(const Rows<T>& rows, std::uint32_t bin, T value) {
    atomicAdd(rows.total + bin, value);
    if constexpr (Regions) {
        atomicAdd(rows.first + bin, value);
        atomicAdd(rows.second + bin, value);
    }
}

template <HistMode Mode, bool Regions> struct PrivateHist {
    static constexpr bool kWeighted = false;
    std::uint32_t* mine;  // this thread's (or warp's) column
    std::uint32_t stride; // counters between slots
    std::uint32_t binCount;
    CounterRows rows; // Global mode: where each pair goes

    __device__ __forceinline__ void add(int slot) const {
        if constexpr (Mode == HistMode::PerThread) {
            mine[slot * stride] += 1u;
        } else if constexpr (Mode == HistMode::PerWarp || Mode == HistMode::PerThreadAtomic) {
            atomicAdd(mine + slot * stride, 1u);
        } else {
            if (slot >= 1 && slot <= static_cast<int>(binCount))
                addToRows<Regions>(rows, static_cast<std::uint32_t>(slot - 1), 1ull);
        }
    }
};

/// The weighted variant: beside each private counter, a private sum of w_i·w_j in the kernel's
/// precision (Real), in the same layout (wmine: this thread's or warp's column). Per-thread
/// columns are private, so a plain load/add/store updates them; per-warp ones take a shared
/// atomic; Global adds each product to the double rows.
template <HistMode Mode, bool Regions, class Real> struct WeightedHist : PrivateHist<Mode, Regions> {
    static constexpr bool kWeighted = true;
    Real* wmine;
    WeightRows wrows; // Global mode

    __device__ __forceinline__ void add(int slot, Real weight) const {
        PrivateHist<Mode, Regions>::add(slot);
        if constexpr (Mode == HistMode::PerThread || Mode == HistMode::PerThreadAtomic) {
            wmine[slot * this->stride] += weight;
        } else if constexpr (Mode == HistMode::PerWarp) {
            atomicAdd(wmine + slot * this->stride, weight);
        } else {
            if (slot >= 1 && slot <= static_cast<int>(this->binCount))
                addToRows<Regions>(wrows, static_cast<std::uint32_t>(slot - 1),
                                   static_cast<double>(weight));
        }
    }
};

/// Sums the private columns of slots 1..binCount into the global rows and zeroes every row;
/// weighted kernels (s_weights set) the private weighted sums alike, in double. Block-wide.
template <HistMode Mode, bool Regions, bool Weighted = false, class Real = float>
__device__ void flushHist(std::uint32_t* s_hist, std::uint32_t stride, std::uint32_t columns,
                          std::uint32_t binCount, const CounterRows& rows,
                          Real* s_weights = nullptr, const WeightRows& wrows = {}) {
    if constexpr (Mode != HistMode::Global) {
        __syncthreads();
        for (std::uint32_t slot = threadIdx.x; slot < binCount + 2; slot += blockDim.x) {
            std::uint32_t* row = s_hist + slot * stride;
            unsigned long long sum = 0;
            for (std::uint32_t c = 0; c < columns; ++c) {
                sum += row[c];
                row[c] = 0;
            }
            if (sum != 0 && slot >= 1 && slot <= binCount)
                addToRows<Regions>(rows, slot - 1, sum);
            if constexpr (Weighted) {
                Real* wrow = s_weights + slot * stride;
                double wsum = 0;
                for (std::uint32_t c = 0; c < columns; ++c) {
                    wsum += static_cast<double>(wrow[c]);
                    wrow[c] = Real(0);
                }
                if (sum != 0 && slot >= 1 && slot <= binCount)
                    addToRows<Regions>(wrows, slot - 1, wsum);
            }
        }
        __syncthreads();
    }
}

/// Flushes the private histogram into the rows of (task, region pair); weighted kernels the
/// private weighted sums too. Unweighted: exactly flushHist<Mode, Regions> as before.
template <HistMode Mode, bool Regions, bool Weighted, class Real>
__device__ __forceinline__ void flushPrivate(std::uint32_t* s_hist, Real* s_weights,
                                             std::uint32_t stride, std::uint32_t columns,
                                             std::uint32_t binCount, const PairKernelArgs& args,
                                             std::uint32_t task, std::uint32_t regionA,
                                             std::uint32_t regionB) {
    if constexpr (Weighted)
        flushHist<Mode, Regions, true, Real>(s_hist, stride, columns, binCount,
                                             counterRows<Regions>(args, task, regionA, regionB),
                                             s_weights,
                                             weightRows<Regions>(args, task, regionA, regionB));
    else
        flushHist<Mode, Regions>(s_hist, stride, columns, binCount,
                                 counterRows<Regions>(args, task, regionA, regionB));
}

// ---- bin lookup --------------------------------------------------------------------------

struct LookupContext {
    const std::uint16_t* s_lookup;
    std::uint32_t shift;
    int base;
    int lastCell;
};

/// Slot of c² in constant time: the table over the float bits of c² (exponent and top
/// mantissa bits) gives the slot of the cell's smallest value; the host sized the cells so that
/// at most one threshold lies inside a cell (SingleStep) and one compare finishes the job.
/// Otherwise (very dense bins) a short loop does.
template <bool SingleStep, class Real>
__device__ __forceinline__ int lookupSlot(Real c2, const Real* s_thr, const LookupContext& lookup) {
    int cell = static_cast<int>(Traits<Real>::key(c2) >> lookup.shift) - lookup.base;
    cell = min(max(cell, 0), lookup.lastCell);
    int slot = lookup.s_lookup[cell];
    if constexpr (SingleStep) {
        slot += c2 >= s_thr[slot] ? 1 : 0;
    } else {
        while (c2 >= s_thr[slot]) // s_thr[binCount + 1] = +inf ends it
            ++slot;
    }
    return slot;
}

// ---- tile classification -----------------------------------------------------------------

/// What the bounding boxes of two tiles say about all their pairs (conservatively, with a
/// relative margin far above the rounding of either precision, kTileBoxMargin). mixed: whether
/// some pair may reach kFastMinChord2 (float: the pair loop must apply the hi-only rule per pair).
__device__ int classifyTilePair(const TileBox& a, const TileBox& b, const BinTables& bins,
                                bool fastAllowed, int* oneBin, bool* mixed) {
    double minD2 = 0, maxD2 = 0;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        const double gap = fmax(0.0, fmax(a.lo[axis] - b.hi[axis], b.lo[axis] - a.hi[axis]));
        const double span = fmax(a.hi[axis] - b.lo[axis], b.hi[axis] - a.lo[axis]);
        minD2 += gap * gap;
        maxD2 += span * span;
    }
    const double lo = minD2 * (1.0 - kTileBoxMargin);
    const double hi = maxD2 * (1.0 + kTileBoxMargin);
    *mixed = hi >= kFastMinChord2;
    const double* t = bins.d_thresholdsDouble;
    const std::uint32_t n = bins.binCount;
    const double first = __ldg(t), last = __ldg(t + n);
    if (hi < first || lo >= last)
        return kSkip;
    if (lo >= first) {
        // Largest k with t[k] <= lo; k < n since lo < t[n].
        std::uint32_t k = 0, count = n;
        while (count > 0) {
            const std::uint32_t half = count / 2;
            if (__ldg(t + k + half + 1) <= lo) {
                k += half + 1;
                count -= half + 1;
            } else {
                count = half;
            }
        }
        if (hi < __ldg(t + k + 1)) {
            *oneBin = static_cast<int>(k);
            return kOneBin;
        }
    }
    if (fastAllowed && lo >= kFastMinChord2)
        return kFast;
    if (lo >= first && hi < last)
        return kInRange;
    return kPrecise;
}

/// Sub-tile culling inside one tile pair: whether the points of two sub-boxes (a warp's i-points
/// and kSubTileSize j-points) are all out of range, by the classification's rule and margin (so
/// what it skips, no precision would have counted). Empty boxes (padding only) give +inf gaps:
/// skipped, nothing lost.
__device__ __forceinline__ bool subBoxesOutOfRange(const SubBox* a, const SubBox* b, double first,
                                                   double last) {
    // Read axis by axis through the pointers: few registers live (the kernel is at its cap).
    double minD2 = 0, maxD2 = 0;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        const double aLo = a->lo[axis], aHi = a->hi[axis], bLo = b->lo[axis], bHi = b->hi[axis];
        const double gap = fmax(0.0, fmax(aLo - bHi, bLo - aHi));
        const double span = fmax(aHi - bLo, bHi - aLo);
        minD2 += gap * gap;
        maxD2 += span * span;
    }
    return !(minD2 * (1.0 - kTileBoxMargin) < last && maxD2 * (1.0 + kTileBoxMargin) >= first);
}

/// The i-weights argument of the unweighted kernels' pair loops: nothing.
struct NoWeights {};

// ---- pair loops ----------------------------------------------------------------------------
//
// Point 32 r + lane of warp w's 128 points (tile index 128 w + 32 r + lane) is held by that lane
// in register r: each r of a warp is one sub-box of 32 consecutive Morton-sorted points, so the
// sub-tile culling can drop (r, j sub-tile) pairs, and the i-loads are coalesced.

/// Index, inside its tile, of the i-point this thread holds in register r.
__device__ __forceinline__ int iPointIndex(int r) {
    return static_cast<int>((threadIdx.x & ~31u) * kPointsPerThread + (threadIdx.x & 31u)) + r * 32;
}

/// Which i groups (registers r) visit the j sub-tile starting at jBegin: bit r of the result.
/// visit: this warp's masks (bit k of visit[r]: j sub-tile k may hold pairs of group r), or null
/// (no sub-tile culling: every group visits everything).
__device__ __forceinline__ std::uint32_t groupsVisiting(const uint4* visit, int jBegin) {
    if (visit == nullptr)
        return (1u << kPointsPerThread) - 1;
    static_assert(kPointsPerThread == 4, "one 32-bit mask per register group, read as a uint4");
    const uint4 masks = *visit;
    const int k = jBegin / kSubTileSize;
    return ((masks.x >> k) & 1u) | (((masks.y >> k) & 1u) << 1) | (((masks.z >> k) & 1u) << 2) |
           (((masks.w >> k) & 1u) << 3);
}

/// Float. The c² of a pair is a function of the pair alone, whichever path computes it, so that
/// culled counts equal brute-force counts: c²_hi from the hi parts; if c²_hi >= kFastMinChord2
/// (|d| >= 0.5) the pair is binned on c²_hi, else on d = (hi_i - hi_j) + (lo_i - lo_j). The
/// arithmetic is spelled out (_rn intrinsics: no contraction the compiler could choose
/// differently per instantiation). Fast: every pair is known to be past the cut (hi parts
/// only). Select: some pair may be on either side (else all are below: no select). Margin:
/// pairs whose c²_hi is outside the margins of the range are out of range whatever the lo parts
/// say, and skip the rest.
/// Hist: PrivateHist, or WeightedHist (then each pair also adds w_i·w_j, the float product of
/// the hi parts' w: iw[r] · h.w; iw is the i-weights, NoWeights in the unweighted kernels).
template <bool Diagonal, bool Fast, bool Margin, bool Select, bool SingleStep, class Hist,
          class Weights>
__device__ void
pairLoopFloat(const float (&ix)[kPointsPerThread], const float (&iy)[kPointsPerThread],
              const float (&iz)[kPointsPerThread], const float (&lx)[kPointsPerThread],
              const float (&ly)[kPointsPerThread], const float (&lz)[kPointsPerThread],
              const float4* s_hi, const float4* s_lo, const float* s_thr,
              const LookupContext& lookup, int tileSize, float lowMargin, float highMargin,
              const uint4* visit, const Hist& hist, const Weights& iw) {
    for (int jBegin = 0; jBegin < tileSize; jBegin += kSubTileSize) {
        const std::uint32_t groups = groupsVisiting(visit, jBegin);
        if (groups == 0)
            continue;
        // Every group visits (the common case): the loop without the per-group test.
        const auto block = [&]<bool Check>() {
            for (int j = jBegin; j < jBegin + kSubTileSize; ++j) {
                const float4 h = s_hi[j];
                [[maybe_unused]] float4 l{};
                if constexpr (!Fast)
                    l = s_lo[j];
#pragma unroll
                for (int r = 0; r < kPointsPerThread; ++r) {
                    if (Check && ((groups >> r) & 1u) == 0)
                        continue;
                    if (Diagonal && j <= iPointIndex(r))
                        continue;
                    const float dx = __fsub_rn(ix[r], h.x);
                    const float dy = __fsub_rn(iy[r], h.y);
                    const float dz = __fsub_rn(iz[r], h.z);
                    const float c2h = __fmaf_rn(dz, dz, __fmaf_rn(dy, dy, __fmul_rn(dx, dx)));
                    if constexpr (Fast) {
                        if constexpr (Hist::kWeighted)
                            hist.add(lookupSlot<SingleStep>(c2h, s_thr, lookup),
                                     __fmul_rn(iw[r], h.w));
                        else
                            hist.add(lookupSlot<SingleStep>(c2h, s_thr, lookup));
                    } else {
                        if constexpr (Margin) {
                            if (!(c2h >= lowMargin && c2h < highMargin))
                                continue;
                        }
                        const float ex = __fadd_rn(dx, __fsub_rn(lx[r], l.x));
                        const float ey = __fadd_rn(dy, __fsub_rn(ly[r], l.y));
                        const float ez = __fadd_rn(dz, __fsub_rn(lz[r], l.z));
                        float c2 = __fmaf_rn(ez, ez, __fmaf_rn(ey, ey, __fmul_rn(ex, ex)));
                        if constexpr (Select)
                            c2 = c2h >= kFastMinChord2 ? c2h : c2;
                        if constexpr (Hist::kWeighted)
                            hist.add(lookupSlot<SingleStep>(c2, s_thr, lookup),
                                     __fmul_rn(iw[r], h.w));
                        else
                            hist.add(lookupSlot<SingleStep>(c2, s_thr, lookup));
                    }
                }
            }
        };
        if (groups == (1u << kPointsPerThread) - 1)
            block.template operator()<false>();
        else
            block.template operator()<true>();
    }
}

/// Double: the reference's arithmetic exactly, ((dx*dx + dy*dy) + dz*dz), each operation
/// rounded on its own (no FMA contraction). EarlyReject: skip the lookup for pairs out of range.
/// Hist: PrivateHist, or WeightedHist (then each pair also adds w_i·w_j = iw[r] · p.w, the
/// reference's product).
template <bool Diagonal, bool EarlyReject, bool SingleStep, class Hist, class Weights>
__device__ void
pairLoopDouble(const double (&ix)[kPointsPerThread], const double (&iy)[kPointsPerThread],
               const double (&iz)[kPointsPerThread], const DoublePoint* s_pts, const double* s_thr,
               const LookupContext& lookup, int tileSize, double thrLow, double thrHigh,
               const uint4* visit, const Hist& hist, const Weights& iw) {
    for (int jBegin = 0; jBegin < tileSize; jBegin += kSubTileSize) {
        const std::uint32_t groups = groupsVisiting(visit, jBegin);
        if (groups == 0)
            continue;
        const auto block = [&]<bool Check>() {
            for (int j = jBegin; j < jBegin + kSubTileSize; ++j) {
                const DoublePoint p = s_pts[j];
#pragma unroll
                for (int r = 0; r < kPointsPerThread; ++r) {
                    if (Check && ((groups >> r) & 1u) == 0)
                        continue;
                    if (Diagonal && j <= iPointIndex(r))
                        continue;
                    const double dx = __dsub_rn(ix[r], p.x);
                    const double dy = __dsub_rn(iy[r], p.y);
                    const double dz = __dsub_rn(iz[r], p.z);
                    const double c2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)),
                                                __dmul_rn(dz, dz));
                    if (EarlyReject && !(c2 >= thrLow && c2 < thrHigh))
                        continue;
                    if constexpr (Hist::kWeighted)
                        hist.add(lookupSlot<SingleStep>(c2, s_thr, lookup),
                                 __dmul_rn(iw[r], p.w));
                    else
                        hist.add(lookupSlot<SingleStep>(c2, s_thr, lookup));
                }
            }
        };
        if (groups == (1u << kPointsPerThread) - 1)
            block.template operator()<false>();
        else
            block.template operator()<true>();
    }
}

// ---- the kernel ------------------------------------------------------------------------------

/// The kernel body; pairCountKernel (plain) and regionPairCountKernel (jackknife) wrap it, and
/// their weighted variants (Weighted: every pair also adds w_i·w_j to a private sum beside its
/// counter; a tile pair binned whole adds the product of the tiles' weight sums).
template <class Real, HistMode Mode, bool SingleStep, bool Regions, bool Weighted = false>
__device__ __forceinline__ void pairCount(const PairKernelArgs& args) {
    using Point = typename Traits<Real>::Point;
    using Hist = std::conditional_t<Weighted, WeightedHist<Mode, Regions, Real>,
                                    PrivateHist<Mode, Regions>>;
    extern __shared__ __align__(32) unsigned char s_raw[];
    __shared__ std::uint32_t s_unit;

    Point* s_pts = reinterpret_cast<Point*>(s_raw);
    float4* s_lo = reinterpret_cast<float4*>(s_raw + args.layout.lowsOffset);
    Real* s_thr = reinterpret_cast<Real*>(s_raw + args.layout.thresholdsOffset);
    std::uint16_t* s_lookup = reinterpret_cast<std::uint16_t*>(s_raw + args.layout.lookupOffset);
    std::uint32_t* s_hist = reinterpret_cast<std::uint32_t*>(s_raw + args.layout.histOffset);
    uint4* s_visit = reinterpret_cast<uint4*>(s_raw + args.layout.visitOffset);
    [[maybe_unused]] Real* s_weights = nullptr;
    if constexpr (Weighted)
        s_weights = reinterpret_cast<Real*>(s_raw + weightOffsetOf(args.layout, args.bins.binCount));

    const BinTables& bins = args.bins;
    const std::uint32_t binCount = bins.binCount;
    const bool cullSubTiles = bins.classifyTiles != 0 && bins.cullSubTiles != 0;
    const std::uint32_t subBoxesPerTile = args.tileSize / kSubTileSize;
    const std::uint32_t maskedTiles = args.layout.maskedTiles;
    const Real* g_thr = static_cast<const Real*>(bins.d_thresholds);
    for (std::uint32_t k = threadIdx.x; k < binCount + 2; k += blockDim.x)
        s_thr[k] = g_thr[k];

    for (std::uint32_t k = threadIdx.x; k < bins.lookupSize; k += blockDim.x)
        s_lookup[k] = bins.d_lookup[k];

    const std::uint32_t stride = static_cast<std::uint32_t>(args.layout.histStride);
    constexpr bool kPerThread = Mode == HistMode::PerThread || Mode == HistMode::PerThreadAtomic;
    const std::uint32_t columns = kPerThread ? blockDim.x : blockDim.x / 32;
    if constexpr (Mode != HistMode::Global) {
        for (std::uint32_t k = threadIdx.x; k < (binCount + 2) * stride; k += blockDim.x)
            s_hist[k] = 0;
        if constexpr (Weighted)
            for (std::uint32_t k = threadIdx.x; k < (binCount + 2) * stride; k += blockDim.x)
                s_weights[k] = Real(0);
    }
    __syncthreads();

    const Real thrLow = s_thr[0];
    const Real thrHigh = s_thr[binCount];
    const LookupContext lookup{s_lookup, bins.lookupShift, bins.lookupBase,
                               static_cast<int>(bins.lookupSize) - 1};
    const int tileSize = static_cast<int>(args.tileSize);
    const float lowMargin = static_cast<float>(bins.lowMargin);
    const float highMargin = static_cast<float>(bins.highMargin);

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

    // The private histogram holds pairs of currentTask (and, with regions, of the region pair
    // openRegionA/B: region tiles are region-pure, so a whole tile pair has one region pair)
    // since the last flush; `open` says whether it may hold any. Rows are recomputed at each
    // flush rather than kept: registers are what limits the blocks per SM.
    int currentTask = -1;
    bool open = false;
    std::uint32_t openRegionA = 0, openRegionB = 0;
    std::uint32_t unitsSinceFlush = 0;
    for (;;) {
        if (threadIdx.x == 0)
            s_unit = args.unitBegin + atomicAdd(args.d_unitCursor, 1u);
        __syncthreads();
        const std::uint32_t unitIndex = s_unit;
        __syncthreads();
        if (unitIndex >= args.unitEnd)
            break;
        const WorkUnit unit = args.d_units[unitIndex];
        if (static_cast<int>(unit.task) != currentTask || unitsSinceFlush >= args.flushEveryUnits) {
            if (Regions ? open : currentTask >= 0)
                flushPrivate<Mode, Regions, Weighted>(s_hist, s_weights, stride, columns, binCount,
                                                      args, static_cast<std::uint32_t>(currentTask),
                                                      openRegionA, openRegionB);
            currentTask = static_cast<int>(unit.task);
            unitsSinceFlush = 0;
            open = false; // regions: opened below for the first computed tile pair
        }
        ++unitsSinceFlush;
        unsigned long long* taskCounts = // plain only
            args.d_counts + static_cast<std::size_t>(unit.task) * binCount;
        if constexpr (!Regions)
            hist.rows.total = taskCounts;
        if constexpr (Weighted && !Regions)
            hist.wrows.total = args.d_weighted + static_cast<std::size_t>(unit.task) * binCount;

        const CatalogView catA = args.d_catalogs[unit.catA];
        const CatalogView catB = args.d_catalogs[unit.catB];
        const TileBox boxA = catA.d_tiles[unit.tileA];

        if (cullSubTiles) {
            // Sub-tile masks of the unit's (first maskedTiles) j-tiles, made here where
            // few registers are live (the i-points are loaded after): lane k tests j sub-box k
            // against each of the warp's i sub-boxes (one per register r); the ballot per r
            // gives the j sub-tiles group r visits (a tile holds <= 32 sub-boxes).
            const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
            const SubBox* iBoxes = catA.d_subBoxes +
                                   static_cast<std::size_t>(unit.tileA) * subBoxesPerTile +
                                   warp * kPointsPerThread;
            const bool real = lane < subBoxesPerTile;
            const std::uint32_t tiles = min(unit.tileB1 - unit.tileB0, maskedTiles);
            for (std::uint32_t t = 0; t < tiles; ++t) {
                const SubBox* jBox = catB.d_subBoxes +
                                     static_cast<std::size_t>(unit.tileB0 + t) * subBoxesPerTile +
                                     lane;
                std::uint32_t masks[kPointsPerThread];
#pragma unroll
                for (int r = 0; r < kPointsPerThread; ++r)
                    masks[r] = ~__ballot_sync(
                        0xffffffffu,
                        real && subBoxesOutOfRange(iBoxes + r, jBox, __ldg(bins.d_thresholdsDouble),
                                                   __ldg(bins.d_thresholdsDouble + binCount)));
                if (lane == 0)
                    s_visit[warp * maskedTiles + t] =
                        make_uint4(masks[0], masks[1], masks[2], masks[3]);
            }
            __syncwarp(); // read by this warp only; rewritten after the next unit's barriers
        }

        // The i-tile: this thread's point r is tile index iPointIndex(r).
        Real ix[kPointsPerThread], iy[kPointsPerThread], iz[kPointsPerThread];
        [[maybe_unused]] std::conditional_t<Weighted, Real[kPointsPerThread], NoWeights> iw;
        float lx[kPointsPerThread], ly[kPointsPerThread], lz[kPointsPerThread];
        {
            const Point* pts = static_cast<const Point*>(catA.d_points);
            const float4* lows = static_cast<const float4*>(catA.d_lows);
            const std::size_t tileStart = static_cast<std::size_t>(unit.tileA) * args.tileSize;
#pragma unroll
            for (int r = 0; r < kPointsPerThread; ++r) {
                const std::size_t idx = tileStart + static_cast<std::size_t>(iPointIndex(r));
                const Point p = pts[idx];
                ix[r] = p.x;
                iy[r] = p.y;
                iz[r] = p.z;
                if constexpr (Weighted)
                    iw[r] = p.w;
                if constexpr (Traits<Real>::kHasLows) {
                    const float4 l = lows[idx];
                    lx[r] = l.x;
                    ly[r] = l.y;
                    lz[r] = l.z;
                } else {
                    lx[r] = ly[r] = lz[r] = 0.f;
                }
            }
        }

        for (std::uint32_t tileB = unit.tileB0; tileB < unit.tileB1; ++tileB) {
            const TileBox boxB = catB.d_tiles[tileB];
            const bool diagonal = unit.isAuto != 0 && tileB == unit.tileA;
            int oneBin = -1;
            bool mixed = bins.bruteForceSelect != 0;
            const int cls =
                bins.classifyTiles
                    ? classifyTilePair(boxA, boxB, bins, Traits<Real>::kHasLows, &oneBin, &mixed)
                    : kPrecise;
            if (cls == kSkip)
                continue;
            if (cls == kOneBin) {
                if (threadIdx.x == 0) {
                    const unsigned long long pairs =
                        diagonal
                            ? static_cast<unsigned long long>(boxA.count) * (boxA.count - 1) / 2
                            : static_cast<unsigned long long>(boxA.count) * boxB.count;
                    if (pairs != 0)
                        addToRows<Regions>(Regions ? counterRows<Regions>(args, unit.task,
                                                                          boxA.region, boxB.region)
                                                   : CounterRows{taskCounts, nullptr, nullptr},
                                           static_cast<std::uint32_t>(oneBin), pairs);
                    if constexpr (Weighted) {
                        // Σ_i Σ_j w_i·w_j = Σw_A·Σw_B; the diagonal's i < j: ((Σw)² − Σw²)/2.
                        const TileWeight wa = args.d_tileWeights[unit.catA][unit.tileA];
                        const TileWeight wb = args.d_tileWeights[unit.catB][tileB];
                        const double sum = diagonal ? 0.5 * (wa.sum * wa.sum - wa.sumSquares)
                                                    : wa.sum * wb.sum;
                        if (pairs != 0)
                            addToRows<Regions>(
                                weightRows<Regions>(args, unit.task, boxA.region, boxB.region),
                                static_cast<std::uint32_t>(oneBin), sum);
                    }
                }
                continue;
            }
            if constexpr (Regions) {
                // Uniform over the block (boxes and unit are), so the flush's barriers are safe.
                if (!open || boxA.region != openRegionA || boxB.region != openRegionB) {
                    if (open)
                        flushPrivate<Mode, Regions, Weighted>(s_hist, s_weights, stride, columns,
                                                              binCount, args, unit.task,
                                                              openRegionA, openRegionB);
                    open = true;
                    openRegionA = boxA.region;
                    openRegionB = boxB.region;
                    if constexpr (Mode == HistMode::Global)
                        hist.rows = counterRows<Regions>(args, unit.task, openRegionA, openRegionB);
                    if constexpr (Mode == HistMode::Global && Weighted)
                        hist.wrows = weightRows<Regions>(args, unit.task, openRegionA, openRegionB);
                }
            }
            // Sub-tile culling where the tile pair may cross the range boundary (the paths with
            // a range check per pair), with the masks made at the unit's start.
            const std::uint32_t unitTile = tileB - unit.tileB0;
            const uint4* visit =
                cullSubTiles && (diagonal || cls == kPrecise) && unitTile < maskedTiles
                    ? s_visit + (threadIdx.x / 32) * maskedTiles + unitTile
                    : nullptr;
            // Stage the j-tile.
            __syncthreads();
            {
                const Point* pts = static_cast<const Point*>(catB.d_points);
                const float4* lows = static_cast<const float4*>(catB.d_lows);
                const std::size_t tileStart = static_cast<std::size_t>(tileB) * args.tileSize;
                for (std::uint32_t k = threadIdx.x; k < args.tileSize; k += blockDim.x) {
                    s_pts[k] = pts[tileStart + k];
                    if constexpr (Traits<Real>::kHasLows)
                        s_lo[k] = lows[tileStart + k];
                }
            }
            __syncthreads();
            if constexpr (Traits<Real>::kHasLows) {
                // Select only where the tile pair may hold pairs on both sides of kFastMinChord2.
                const auto floatLoop = [&]<bool Diag, bool Fast, bool Margin>() {
                    if (!Fast && mixed) // (Fast: both calls are the one without select)
                        pairLoopFloat<Diag, Fast, Margin, !Fast, SingleStep>(
                            ix, iy, iz, lx, ly, lz, s_pts, s_lo, s_thr, lookup, tileSize, lowMargin,
                            highMargin, visit, hist, iw);
                    else
                        pairLoopFloat<Diag, Fast, Margin, false, SingleStep>(
                            ix, iy, iz, lx, ly, lz, s_pts, s_lo, s_thr, lookup, tileSize, lowMargin,
                            highMargin, visit, hist, iw);
                };
                if (diagonal)
                    floatLoop.template operator()<true, false, true>();
                else if (cls == kFast)
                    floatLoop.template operator()<false, true, false>();
                else if (cls == kInRange)
                    floatLoop.template operator()<false, false, false>();
                else
                    floatLoop.template operator()<false, false, true>();
            } else {
                if (diagonal)
                    pairLoopDouble<true, true, SingleStep>(ix, iy, iz, s_pts, s_thr, lookup,
                                                           tileSize, thrLow, thrHigh, visit, hist,
                                                           iw);
                else if (cls == kInRange)
                    pairLoopDouble<false, false, SingleStep>(ix, iy, iz, s_pts, s_thr, lookup,
                                                             tileSize, thrLow, thrHigh, visit,
                                                             hist, iw);
                else
                    pairLoopDouble<false, true, SingleStep>(ix, iy, iz, s_pts, s_thr, lookup,
                                                            tileSize, thrLow, thrHigh, visit, hist,
                                                            iw);
            }
        }
    }
    if (Regions ? open : currentTask >= 0)
        flushPrivate<Mode, Regions, Weighted>(s_hist, s_weights, stride, columns, binCount, args,
                                              static_cast<std::uint32_t>(currentTask), openRegionA,
                                              openRegionB);
}

/// The bounds keep the kernel at 80 registers (three blocks of 256 per SM, as before the sub-tile
/// culling and the per-pair hi-only rule, which left alone take it to 96-99: two blocks).
template <class Real, HistMode Mode, bool SingleStep>
__global__ void __launch_bounds__(kMaxPairBlock, 3)
    pairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, SingleStep, false>(args);
}

/// With regions the kernel holds a few more values across the pair loops, which would cost a
/// block per SM (92 registers instead of 70: two blocks of 256 instead of three); the bounds
/// keep it at three.
template <class Real, HistMode Mode, bool SingleStep>
__global__ void __launch_bounds__(kMaxPairBlock, 3)
    regionPairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, SingleStep, true>(args);
}

/// The weighted variants: a separate instantiation, so the unweighted kernels stay exactly what
/// they were. The private weighted sums, the i-weights in registers and the product per pair
/// need more registers than the plain kernel's 80; the shared memory of the sums already keeps
/// fewer threads per SM, so the bounds ask for two blocks of 256 (at most 128 registers).
template <class Real, HistMode Mode, bool SingleStep>
__global__ void __launch_bounds__(kMaxPairBlock, 2)
    weightedPairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, SingleStep, false, true>(args);
}

template <class Real, HistMode Mode, bool SingleStep>
__global__ void __launch_bounds__(kMaxPairBlock, 2)
    weightedRegionPairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, SingleStep, true, true>(args);
}

using KernelFn = void (*)(PairKernelArgs);

template <class Real, HistMode Mode, bool SingleStep, bool Regions, bool Weighted>
KernelFn kernelFor() {
    if constexpr (Weighted && Regions)
        return weightedRegionPairCountKernel<Real, Mode, SingleStep>;
    else if constexpr (Weighted)
        return weightedPairCountKernel<Real, Mode, SingleStep>;
    else if constexpr (Regions)
        return regionPairCountKernel<Real, Mode, SingleStep>;
    else
        return pairCountKernel<Real, Mode, SingleStep>;
}

template <class Real, bool SingleStep, bool Regions, bool Weighted>
KernelFn kernelForMode(HistMode mode) {
    switch (mode) {
    case HistMode::PerThread:
        return kernelFor<Real, HistMode::PerThread, SingleStep, Regions, Weighted>();
    case HistMode::PerThreadAtomic:
        return kernelFor<Real, HistMode::PerThreadAtomic, SingleStep, Regions, Weighted>();
    case HistMode::PerWarp:
        return kernelFor<Real, HistMode::PerWarp, SingleStep, Regions, Weighted>();
    case HistMode::Global:
        return kernelFor<Real, HistMode::Global, SingleStep, Regions, Weighted>();
    }
    return nullptr;
}

template <class Real, bool Regions, bool Weighted>
KernelFn kernelForStep(HistMode mode, bool singleStep) {
    return singleStep ? kernelForMode<Real, true, Regions, Weighted>(mode)
                      : kernelForMode<Real, false, Regions, Weighted>(mode);
}

template <class Real, bool Weighted>
KernelFn kernelForLayout(HistMode mode, bool singleStep, bool regions) {
    return regions ? kernelForStep<Real, true, Weighted>(mode, singleStep)
                   : kernelForStep<Real, false, Weighted>(mode, singleStep);
}

/// The one dispatch ladder from runtime choices to kernel instantiations.
KernelFn pairKernelFor(RealKind real, HistMode mode, bool singleStep, bool regions,
                       bool weighted) {
    if (real == RealKind::Float)
        return weighted ? kernelForLayout<float, true>(mode, singleStep, regions)
                        : kernelForLayout<float, false>(mode, singleStep, regions);
    return weighted ? kernelForLayout<double, true>(mode, singleStep, regions)
                    : kernelForLayout<double, false>(mode, singleStep, regions);
}

} // namespace

SharedLayout sharedLayout(RealKind real, HistMode mode, int blockSize, std::uint32_t binCount,
                          std::uint32_t lookupSize, bool weighted) noexcept {
    SharedLayout layout;
    const std::size_t tile = static_cast<std::size_t>(blockSize) * kPointsPerThread;
    const bool isFloat = real == RealKind::Float;
    std::size_t offset = tile * (isFloat ? sizeof(float4) : sizeof(DoublePoint));
    layout.lowsOffset = offset;
    offset += isFloat ? tile * sizeof(float4) : 0;
    offset = alignUp(offset, 16);
    layout.visitOffset = offset;
    layout.maskedTiles = unitTiles(static_cast<std::uint32_t>(tile));
    offset += static_cast<std::size_t>(blockSize) / 32 * layout.maskedTiles * sizeof(uint4);
    layout.thresholdsOffset = offset;
    offset = alignUp(offset + (binCount + 2) * (isFloat ? sizeof(float) : sizeof(double)), 16);
    layout.lookupOffset = offset;
    offset = alignUp(offset + lookupSize * sizeof(std::uint16_t), 16);
    layout.histOffset = offset;
    switch (mode) {
    case HistMode::PerThread:
    case HistMode::PerThreadAtomic:
        layout.histStride = static_cast<std::size_t>(blockSize) + 1;
        break;
    case HistMode::PerWarp:
        layout.histStride = static_cast<std::size_t>(blockSize) / 32;
        break;
    case HistMode::Global:
        layout.histStride = 0;
        break;
    }
    offset += layout.histStride * (binCount + 2) * sizeof(std::uint32_t);
    if (weighted) {
        const std::size_t realBytes = isFloat ? sizeof(float) : sizeof(double);
        offset = weightOffsetOf(layout, binCount) + layout.histStride * (binCount + 2) * realBytes;
    }
    layout.totalBytes = alignUp(offset, 16);
    return layout;
}

KernelPlan planPairKernel(RealKind real, std::uint32_t binCount, std::uint32_t lookupSize,
                          bool singleStep, bool regions, int blockSizeCap,
                          std::optional<HistMode> forcedMode, bool weighted) {
    int device = 0;
    TPACF_CUDA_TRY(cudaGetDevice(&device));
    cudaDeviceProp props{};
    TPACF_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    const int cap = blockSizeCap > 0 ? std::min(blockSizeCap, kMaxPairBlock) : kMaxPairBlock;
    const std::size_t optin = props.sharedMemPerBlockOptin;

    // Per-thread counters updated by a shared atomic measured fastest on H100 (one instruction
    // instead of load/add/store; 1.38e12 against 1.20e12 pairs/s, BENCHMARKS.md).
    std::vector<HistMode> modes{HistMode::PerThreadAtomic, HistMode::PerWarp, HistMode::Global};
    if (forcedMode)
        modes = {*forcedMode, HistMode::Global};
    for (HistMode mode : modes) {
        KernelFn kernel = pairKernelFor(real, mode, singleStep, regions, weighted);
        cudaFuncAttributes attributes{};
        TPACF_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
        const std::size_t dynamicLimit = optin - attributes.sharedSizeBytes;
        TPACF_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(dynamicLimit)));
        // Private copies per thread only while they leave room for several blocks per SM.
        const bool perThread = mode == HistMode::PerThread || mode == HistMode::PerThreadAtomic;
        const std::size_t budget = perThread ? props.sharedMemPerMultiprocessor / 4 : dynamicLimit;
        int best = 0;
        for (int block = cap; block >= 64; block -= 32) {
            if (sharedLayout(real, mode, block, binCount, lookupSize, weighted).totalBytes <=
                budget) {
                best = block;
                break;
            }
        }
        if (best == 0)
            continue;
        int minGrid = 0, blockSize = 0;
        auto smemFor = [&](int block) {
            return static_cast<std::size_t>(
                sharedLayout(real, mode, block, binCount, lookupSize, weighted).totalBytes);
        };
        TPACF_CUDA_TRY(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&minGrid, &blockSize, kernel,
                                                                      smemFor, best));
        blockSize = std::max(64, blockSize / 32 * 32);
        if (smemFor(blockSize) > budget)
            blockSize = best;
        KernelPlan plan;
        plan.real = real;
        plan.hist = mode;
        plan.singleStep = singleStep;
        plan.regions = regions;
        plan.weighted = weighted;
        plan.blockSize = blockSize;
        plan.tileSize = blockSize * kPointsPerThread;
        plan.layout = sharedLayout(real, mode, blockSize, binCount, lookupSize, weighted);
        TPACF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &plan.blocksPerSm, kernel, blockSize, plan.layout.totalBytes));
        if (plan.blocksPerSm <= 0)
            continue;
        plan.gridSize = plan.blocksPerSm * props.multiProcessorCount;
        return plan;
    }
    throw CudaError("no launch configuration of the pair kernel fits this device", 0);
}

void launchPairKernel(const KernelPlan& plan, const PairKernelArgs& args, int gridSize,
                      cudaStream_t stream) {
    KernelFn kernel =
        pairKernelFor(plan.real, plan.hist, plan.singleStep, plan.regions, plan.weighted);
    kernel<<<gridSize, plan.blockSize, plan.layout.totalBytes, stream>>>(args);
    TPACF_CUDA_CHECK_LAUNCH("pairCountKernel");
}

} // namespace tpacf::cuda::detail

