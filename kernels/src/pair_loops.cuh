// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to pair_kernels.cu: what the pair kernel does per tile pair. Precision traits, the
// constant-time bin lookup, the classification of tile pairs and sub-tiles by their boxes, and
// the float (hi+lo) and double pair loops.
#include "cuda_check.h"
#include "device_point.h"
#include "pair_kernels.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tpacf::cuda::detail {
// Only pair_kernels.cu includes this file: its definitions stay local to that translation unit.
namespace {
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

// ---- bin lookup --------------------------------------------------------------------------

struct LookupContext {
    const std::uint16_t* s_lookup; ///< Step and Loop: each cell's slot
    const void* s_cells;           ///< Packed: a LookupCell<Real> per cell; Banded: a BandCell
    std::uint32_t shift;
    int minusBase; ///< −(the table's first cell), added to a key's cell
    int lastCell;
    int slotMask; ///< Banded: the bits of BandCell::below that hold the slot
};

/// The cell of c² in the table (clamped to it by one add-min-max: a Hopper DPX instruction,
/// emulated elsewhere): keys below the table go to cell 0, above it and NaN to the last.
template <class Real>
__device__ __forceinline__ int lookupCell(Real c2, const LookupContext& lookup) {
    return __viaddmin_s32_relu(static_cast<int>(Traits<Real>::key(c2) >> lookup.shift),
                               lookup.minusBase, lookup.lastCell);
}

/// Slot of c² in constant time: the table over the float bits of c² (exponent and top
/// mantissa bits) gives the slot of the cell's smallest value; the host sized the cells so that
/// at most one threshold lies inside a cell (Packed, Step) and one compare finishes the job: with
/// the threshold packed beside the slot (Packed: one load), or read after it (Step: a table too
/// large to pack). Otherwise (very dense bins) a short loop does. Banded cells hold a band
/// around their threshold instead (below <= threshold <= above): outside it one compare, inside
/// it the slot's threshold read after it.
template <LookupKind Lookup, class Real>
__device__ __forceinline__ int lookupSlot(Real c2, const Real* s_thr, const LookupContext& lookup) {
    const int cell = lookupCell(c2, lookup);
    if constexpr (Lookup == LookupKind::Banded) {
        static_assert(std::is_same_v<Real, float>, "banded cells are float only");
        const BandCell entry = static_cast<const BandCell*>(lookup.s_cells)[cell];
        const int slot = __float_as_int(entry.below) & lookup.slotMask;
        if (c2 < entry.below)
            return slot;
        if (c2 >= entry.above)
            return slot + 1;
        return slot + (c2 >= s_thr[slot] ? 1 : 0);
    } else if constexpr (Lookup == LookupKind::Packed) {
        const LookupCell<Real> entry = static_cast<const LookupCell<Real>*>(lookup.s_cells)[cell];
        return entry.slot + (c2 >= entry.threshold ? 1 : 0);
    } else if constexpr (Lookup == LookupKind::Step) {
        const int slot = lookup.s_lookup[cell];
        return slot + (c2 >= s_thr[slot] ? 1 : 0);
    } else {
        int slot = lookup.s_lookup[cell];
        while (c2 >= s_thr[slot]) // s_thr[binCount + 1] = +inf ends it
            ++slot;
        return slot;
    }
}

// ---- tile classification -----------------------------------------------------------------

/// The bounds of every pair's c² in two tiles: their boxes' least and greatest chord², widened by
/// the margin (lo below every pair's computed c², hi above).
__device__ __forceinline__ void tilePairChord2Bounds(const TileBox& a, const TileBox& b, double& lo,
                                                     double& hi) {
    double minD2 = 0, maxD2 = 0;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        const double gap =
            fmax(0.0, fmax(__dsub_rn(a.lo[axis], b.hi[axis]), __dsub_rn(b.lo[axis], a.hi[axis])));
        const double span =
            fmax(__dsub_rn(a.hi[axis], b.lo[axis]), __dsub_rn(b.hi[axis], a.lo[axis]));
        minD2 = __dadd_rn(minD2, __dmul_rn(gap, gap));
        maxD2 = __dadd_rn(maxD2, __dmul_rn(span, span));
    }
    lo = __dmul_rn(minD2, 1.0 - kTileBoxMargin);
    hi = __dmul_rn(maxD2, 1.0 + kTileBoxMargin);
}

/// What the bounding boxes of two tiles say about all their pairs (conservatively, with a
/// relative margin far above the rounding of either precision, kTileBoxMargin). mixed: whether
/// some pair may reach kFastMinChord2 (float: the pair loop must apply the hi-only rule per pair).
/// The arithmetic is spelled out (_rn intrinsics, no contraction the compiler could choose per
/// call site): the sub-tile masks (whole sub-tiles) and the tile loop both classify a tile pair,
/// and must give it the same class, to the bit.
__device__ int classifyTilePair(const TileBox& a, const TileBox& b, const BinTables& bins,
                                bool fastAllowed, int* oneBin, bool* mixed) {
    double lo = 0, hi = 0;
    tilePairChord2Bounds(a, b, lo, hi);
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

/// Real points of sub-box `index` of a tile with `tilePoints` real points (they come first).
__device__ __forceinline__ std::uint32_t subBoxPoints(std::uint32_t tilePoints, std::uint32_t index) {
    const std::uint32_t before = index * kSubTileSize;
    return tilePoints > before ? min(tilePoints - before, static_cast<std::uint32_t>(kSubTileSize))
                               : 0u;
}

/// What two sub-boxes say about all their pairs, by the tile classification's rule and margin:
/// kSubOut (every pair out of range, or a box empty: padding only has +inf gaps), the bin k >= 0
/// that holds every pair, kSubNarrow (every pair in one of two neighbouring slots, a bin and a
/// bin or the range's outside: the pair loop may count them by compares, narrowPairs) or
/// kSubOpen. Why a pair binned whole here is the bin the pair loop would give it: the margin
/// covers the rounding of either precision (pair_work.h, kTileBoxMargin), as for whole tiles.
/// The same holds threshold by threshold: t[m] <= lo means every pair's computed c² is at or
/// above the kernel's threshold m, hi < t[m] every one below it; so every pair's slot lies
/// between the slots of lo and hi.
constexpr int kSubOut = -1;
constexpr int kSubOpen = -2;
constexpr int kSubNarrow = -3;
__device__ __forceinline__ int judgeSubBoxes(const SubBox* a, const SubBox* b, const double* t,
                                             std::uint32_t binCount) {
    double minD2 = 0, maxD2 = 0;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        const double aLo = a->lo[axis], aHi = a->hi[axis], bLo = b->lo[axis], bHi = b->hi[axis];
        const double gap = fmax(0.0, fmax(aLo - bHi, bLo - aHi));
        const double span = fmax(aHi - bLo, bHi - aLo);
        minD2 += gap * gap;
        maxD2 += span * span;
    }
    const double lo = minD2 * (1.0 - kTileBoxMargin);
    const double hi = maxD2 * (1.0 + kTileBoxMargin);
    if (!(lo < __ldg(t + binCount) && hi >= __ldg(t)))
        return kSubOut;
    // slotLo: the number of thresholds t[0..binCount] at or below lo (t[binCount + 1] = +inf).
    std::uint32_t slotLo = 0, count = binCount + 1;
    while (count > 0) {
        const std::uint32_t half = count / 2;
        if (__ldg(t + slotLo + half) <= lo) {
            slotLo += half + 1;
            count -= half + 1;
        } else {
            count = half;
        }
    }
    if (hi < __ldg(t + slotLo)) // one slot, a bin: slotLo >= 1 since hi >= t[0]
        return static_cast<int>(slotLo) - 1;
    return hi < __ldg(t + slotLo + 1) ? kSubNarrow : kSubOpen;
}

/// The i-weights argument of the unweighted kernels' pair loops: nothing.
struct NoWeights {};

// ---- pair loops ----------------------------------------------------------------------------
//
// Point 32 r + lane of warp w's 128 points (tile index 128 w + 32 r + lane) is held by that lane
// in register r: each r of a warp is one sub-box of 32 consecutive curve-sorted points, so the
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

/// Float c² from the hi parts' differences alone.
__device__ __forceinline__ float hiChord2(float dx, float dy, float dz) {
    return __fmaf_rn(dz, dz, __fmaf_rn(dy, dy, __fmul_rn(dx, dx)));
}

/// Float c² of d = (hi_i - hi_j) + (lo_i - lo_j): the hi differences and the i-point's lo parts,
/// with the j-point's lo parts l.
__device__ __forceinline__ float fullChord2(float dx, float dy, float dz, float lx, float ly,
                                            float lz, const float4& l) {
    const float ex = __fadd_rn(dx, __fsub_rn(lx, l.x));
    const float ey = __fadd_rn(dy, __fsub_rn(ly, l.y));
    const float ez = __fadd_rn(dz, __fsub_rn(lz, l.z));
    return __fmaf_rn(ez, ez, __fmaf_rn(ey, ey, __fmul_rn(ex, ex)));
}

/// Double c², the reference's arithmetic: ((dx*dx + dy*dy) + dz*dz), each operation rounded on
/// its own (no FMA contraction).
__device__ __forceinline__ double doubleChord2(double ix, double iy, double iz,
                                               const DoublePoint& p) {
    const double dx = __dsub_rn(ix, p.x);
    const double dy = __dsub_rn(iy, p.y);
    const double dz = __dsub_rn(iz, p.z);
    return __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
}

/// Banded: a pair's slot from its hi-only c² (the cell's slot below the band, the next one from
/// its top; inside it the cell's slot, a guess), and whether it lies inside the band; NaN
/// (padding) takes the last cell's slot, as its full c², NaN too, would. Skipped pairs (groups
/// not visiting, the diagonal's lower half) go to slot 0, a row never flushed, as out-of-range
/// pairs do, and are in no band. No range margins: outside the bands the cells give every pair,
/// out of range or not, the slot of its full c², so the margins would only skip a lookup that
/// is made anyway (two compares a pair in the tile pairs that straddle θ_max, most of them).
template <bool Diagonal, bool Check>
__device__ __forceinline__ int bandedGuess(float c2h, int r, int j, std::uint32_t groups,
                                           const LookupContext& lookup, bool& inBand) {
    const BandCell cell = static_cast<const BandCell*>(lookup.s_cells)[lookupCell(c2h, lookup)];
    const bool above = c2h >= cell.above;
    inBand = !above && c2h >= cell.below;
    const int slot = (__float_as_int(cell.below) & lookup.slotMask) + (above ? 1 : 0);
    bool skipped = false;
    if constexpr (Check)
        skipped = ((groups >> r) & 1u) == 0;
    if constexpr (Diagonal)
        skipped = skipped || j <= iPointIndex(r);
    inBand = inBand && !skipped;
    return skipped ? 0 : slot;
}

/// Where a float pair loop finds the lo parts: j, the j-tile's (staged in shared memory, or in
/// global memory where the kernel holds none, holdsLows), and i, the i-tile's in global memory
/// (where the kernel holds none; else null: they are in registers).
struct LowParts {
    const float4* j;
    const float4* i;
};

/// A thread's i-points as the banded loop reads them: K of them, point c being the one of its
/// register group group[c] (hi parts x, y, z; lo parts where the kernel holds them, holdsLows).
template <int K> struct BandPoints {
    float x[K], y[K], z[K], lx[K], ly[K], lz[K];
    int group[K];
};

/// All of the thread's i-points, register group r as point r.
__device__ __forceinline__ BandPoints<kPointsPerThread>
allGroups(const float (&ix)[kPointsPerThread], const float (&iy)[kPointsPerThread],
          const float (&iz)[kPointsPerThread], const float (&lx)[kPointsPerThread],
          const float (&ly)[kPointsPerThread], const float (&lz)[kPointsPerThread]) {
    BandPoints<kPointsPerThread> p;
#pragma unroll
    for (int r = 0; r < kPointsPerThread; ++r) {
        p.x[r] = ix[r];
        p.y[r] = iy[r];
        p.z[r] = iz[r];
        p.lx[r] = lx[r];
        p.ly[r] = ly[r];
        p.lz[r] = lz[r];
        p.group[r] = r;
    }
    return p;
}

/// v[g] for a group g known at run time only, by selects: indexing the register array would
/// move it to local memory.
__device__ __forceinline__ float ofGroup(const float (&v)[kPointsPerThread], int g) {
    float out = v[0];
#pragma unroll
    for (int r = 1; r < kPointsPerThread; ++r)
        out = g == r ? v[r] : out;
    return out;
}

/// The i-points of the K register groups set in `groups` (K = its population), in order.
template <int K>
__device__ __forceinline__ BandPoints<K>
visitingGroups(std::uint32_t groups, const float (&ix)[kPointsPerThread],
               const float (&iy)[kPointsPerThread], const float (&iz)[kPointsPerThread],
               const float (&lx)[kPointsPerThread], const float (&ly)[kPointsPerThread],
               const float (&lz)[kPointsPerThread]) {
    BandPoints<K> p;
#pragma unroll
    for (int c = 0; c < K; ++c) {
        const int g = __ffs(groups) - 1;
        groups &= groups - 1;
        p.group[c] = g;
        p.x[c] = ofGroup(ix, g);
        p.y[c] = ofGroup(iy, g);
        p.z[c] = ofGroup(iz, g);
        p.lx[c] = ofGroup(lx, g);
        p.ly[c] = ofGroup(ly, g);
        p.lz[c] = ofGroup(lz, g);
    }
    return p;
}

/// Banded, unweighted, below kFastMinChord2's tile class: the j sub-tile at jBegin against the
/// thread's i-points p. Each pair is added to its slot from the hi parts alone, with no branch;
/// the few that lie inside a band are marked (a bit per j-point) and afterwards computed in full,
/// as the other loops compute them, moving the pair where the full c² says otherwise. Lows: the
/// i-points' lo parts are in p (else read from lows.i for the band's pairs).
template <int K, bool Diagonal, bool Select, bool Check, bool Lows, class Hist>
__device__ __forceinline__ void
bandedSubTile(int jBegin, std::uint32_t groups, const BandPoints<K>& p, const float4* s_hi,
              LowParts lows, const float* s_thr, const LookupContext& lookup, const Hist& hist) {
    std::uint32_t marked = 0; // bit k: a pair with j-point jBegin + k lies inside a band
    for (int k = 0; k < kSubTileSize; ++k) {
        const int j = jBegin + k;
        const float4 h = s_hi[j];
        bool anyInBand = false;
#pragma unroll
        for (int c = 0; c < K; ++c) {
            const float c2h =
                hiChord2(__fsub_rn(p.x[c], h.x), __fsub_rn(p.y[c], h.y), __fsub_rn(p.z[c], h.z));
            bool inBand = false;
            hist.add(bandedGuess<Diagonal, Check>(c2h, p.group[c], j, groups, lookup, inBand));
            anyInBand = anyInBand || inBand;
        }
        marked |= anyInBand ? 1u << k : 0u;
    }
    while (marked != 0) {
        const int j = jBegin + __ffs(marked) - 1;
        marked &= marked - 1;
        const float4 h = s_hi[j];
        const float4 l = lows.j[j];
#pragma unroll
        for (int c = 0; c < K; ++c) {
            const float dx = __fsub_rn(p.x[c], h.x);
            const float dy = __fsub_rn(p.y[c], h.y);
            const float dz = __fsub_rn(p.z[c], h.z);
            const float c2h = hiChord2(dx, dy, dz);
            bool inBand = false;
            const int guess =
                bandedGuess<Diagonal, Check>(c2h, p.group[c], j, groups, lookup, inBand);
            if (!inBand)
                continue;
            float4 li{};
            if constexpr (Lows)
                li = make_float4(p.lx[c], p.ly[c], p.lz[c], 0.f);
            else
                li = lows.i[iPointIndex(p.group[c])];
            float c2 = fullChord2(dx, dy, dz, li.x, li.y, li.z, l);
            if constexpr (Select)
                c2 = c2h >= kFastMinChord2 ? c2h : c2;
            const int slot = lookupSlot<LookupKind::Banded>(c2, s_thr, lookup);
            if (slot != guess) {
                hist.remove(guess);
                hist.add(slot);
            }
        }
    }
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
/// Banded, unweighted, not Fast: sub-tile by sub-tile (bandedSubTile). Lows: the kernel holds the
/// lo parts (lx, ly, lz, and lows.j staged; holdsLows); only banded loops do without.
template <bool Diagonal, bool Fast, bool Margin, bool Select, LookupKind Lookup, bool Lows,
          class Hist, class Weights>
__device__ void
pairLoopFloat(const float (&ix)[kPointsPerThread], const float (&iy)[kPointsPerThread],
              const float (&iz)[kPointsPerThread], const float (&lx)[kPointsPerThread],
              const float (&ly)[kPointsPerThread], const float (&lz)[kPointsPerThread],
              const float4* s_hi, LowParts lows, const float* s_thr, const LookupContext& lookup,
              int tileSize, float lowMargin, float highMargin, const uint4* visit, const Hist& hist,
              const Weights& iw) {
    static_assert(Lows || (Lookup == LookupKind::Banded && !Hist::kWeighted),
                  "only the banded loop reads the lo parts from global memory");
    for (int jBegin = 0; jBegin < tileSize; jBegin += kSubTileSize) {
        const std::uint32_t groups = groupsVisiting(visit, jBegin);
        if (groups == 0)
            continue;
        // Every group visits (the common case): the loop without the per-group test.
        const auto block = [&]<bool Check>() {
            if constexpr (Lookup == LookupKind::Banded && !Fast && !Hist::kWeighted) {
                if constexpr (Check && !Diagonal) {
                    // Some register groups sit this j sub-tile out (the same ones on every lane):
                    // only the others' pairs, rather than every pair with theirs sent to slot 0.
                    const auto some = [&]<int K>() {
                        bandedSubTile<K, false, Select, false, Lows>(
                            jBegin, groups, visitingGroups<K>(groups, ix, iy, iz, lx, ly, lz), s_hi,
                            lows, s_thr, lookup, hist);
                    };
                    const int visiting = __popc(groups);
                    if (visiting == 1)
                        some.template operator()<1>();
                    else if (visiting == 2)
                        some.template operator()<2>();
                    else
                        some.template operator()<3>();
                } else {
                    bandedSubTile<kPointsPerThread, Diagonal, Select, Check, Lows>(
                        jBegin, groups, allGroups(ix, iy, iz, lx, ly, lz), s_hi, lows, s_thr,
                        lookup, hist);
                }
            } else {
                for (int j = jBegin; j < jBegin + kSubTileSize; ++j) {
                    const float4 h = s_hi[j];
                    [[maybe_unused]] float4 l{};
                    if constexpr (!Fast)
                        l = lows.j[j];
#pragma unroll
                    for (int r = 0; r < kPointsPerThread; ++r) {
                        if (Check && ((groups >> r) & 1u) == 0)
                            continue;
                        if (Diagonal && j <= iPointIndex(r))
                            continue;
                        const float dx = __fsub_rn(ix[r], h.x);
                        const float dy = __fsub_rn(iy[r], h.y);
                        const float dz = __fsub_rn(iz[r], h.z);
                        const float c2h = hiChord2(dx, dy, dz);
                        if constexpr (Fast) {
                            if constexpr (Hist::kWeighted)
                                hist.add(lookupSlot<Lookup>(c2h, s_thr, lookup),
                                         __fmul_rn(iw[r], h.w));
                            else
                                hist.add(lookupSlot<Lookup>(c2h, s_thr, lookup));
                        } else {
                            if constexpr (Margin) {
                                if (!(c2h >= lowMargin && c2h < highMargin))
                                    continue;
                            }
                            float c2 = fullChord2(dx, dy, dz, lx[r], ly[r], lz[r], l);
                            if constexpr (Select)
                                c2 = c2h >= kFastMinChord2 ? c2h : c2;
                            if constexpr (Hist::kWeighted)
                                hist.add(lookupSlot<Lookup>(c2, s_thr, lookup),
                                         __fmul_rn(iw[r], h.w));
                            else
                                hist.add(lookupSlot<Lookup>(c2, s_thr, lookup));
                        }
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
/// rounded on its own (no FMA contraction). No range check: the lookup puts a pair out of range
/// in a row never flushed, and a branch per pair to skip it cost more than the lookup and the
/// add it saved (the standard job's batch in double 7-9 % slower with it, BENCHMARKS.md, "The
/// banded loop without range margins").
/// Hist: PrivateHist, or WeightedHist (then each pair also adds w_i·w_j = iw[r] · p.w, the
/// reference's product).
template <bool Diagonal, LookupKind Lookup, class Hist, class Weights>
__device__ void pairLoopDouble(const double (&ix)[kPointsPerThread],
                               const double (&iy)[kPointsPerThread],
                               const double (&iz)[kPointsPerThread], const DoublePoint* s_pts,
                               const double* s_thr, const LookupContext& lookup, int tileSize,
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
                    const double c2 = doubleChord2(ix[r], iy[r], iz[r], p);
                    if constexpr (Hist::kWeighted)
                        hist.add(lookupSlot<Lookup>(c2, s_thr, lookup), __dmul_rn(iw[r], p.w));
                    else
                        hist.add(lookupSlot<Lookup>(c2, s_thr, lookup));
                }
            }
        };
        if (groups == (1u << kPointsPerThread) - 1)
            block.template operator()<false>();
        else
            block.template operator()<true>();
    }
}

// ---- narrow sub-tile pairs ------------------------------------------------------------------
//
// A narrow sub-tile pair (judgeSubBoxes: kSubNarrow, or one bin where it is not added whole)
// holds pairs of two neighbouring slots s and s + 1 at most. Its pairs are counted by two
// compares each instead of a lookup and an add to the private histogram: q, the slot of the
// warp's first pair (lane 0 with the sub-tile's first point, both real in a box that is not
// empty), is s or s + 1, so each pair's slot is q + 1 when c² >= t[q], q − 1 when c² < t[q − 1],
// else q (t[binCount + 1] = +inf and t[−1] = −inf at the ends). The c² is computed as the pair
// loops compute it for the same tile class, so each pair's slot is the one they would give it.

/// Adds a thread's narrow counts: `above` into q + 1, `below` into q − 1 and the rest of its real
/// pairs (NaN padding fails both compares and is not among them) into q; bins only (slots
/// 1..binCount: the others are out of range).
template <class Hist>
__device__ __forceinline__ void addNarrowCounts(const Hist& hist, int q, std::uint32_t above,
                                                std::uint32_t below, std::uint32_t realPairs,
                                                std::uint32_t binCount) {
    const auto add = [&](int slot, std::uint32_t pairs) {
        if (pairs != 0 && slot >= 1 && slot <= static_cast<int>(binCount))
            hist.addPairs(slot, pairs);
    };
    add(q + 1, above);
    add(q - 1, below);
    add(q, realPairs - above - below);
}

/// The c² of a narrow sub-tile pair's pair, as the pair loops compute it for its tile class:
/// float in kFast tile pairs, on the hi parts alone (as pairLoopFloat's Fast loop); double, the
/// reference's (doubleChord2).
__device__ __forceinline__ float narrowChord2(float ix, float iy, float iz, const float4* s_hi,
                                              int j) {
    const float4 h = s_hi[j];
    return hiChord2(__fsub_rn(ix, h.x), __fsub_rn(iy, h.y), __fsub_rn(iz, h.z));
}

__device__ __forceinline__ double narrowChord2(double ix, double iy, double iz,
                                               const DoublePoint* s_pts, int j) {
    return doubleChord2(ix, iy, iz, s_pts[j]);
}

/// This thread's i-point against the j sub-tile at jBegin (realJ real points), by compares.
template <LookupKind Lookup, class Real, class Point, class Hist>
__device__ __forceinline__ void narrowPairs(Real ix, Real iy, Real iz, const Point* s_pts,
                                            const Real* s_thr, const LookupContext& lookup,
                                            int jBegin, std::uint32_t realJ, std::uint32_t binCount,
                                            const Hist& hist) {
    const int q = __shfl_sync(
        0xffffffffu, lookupSlot<Lookup>(narrowChord2(ix, iy, iz, s_pts, jBegin), s_thr, lookup), 0);
    const Real tAbove = s_thr[q];
    const Real tBelow = q > 0 ? s_thr[q - 1] : -static_cast<Real>(INFINITY);
    std::uint32_t above = 0, below = 0;
#pragma unroll 8
    for (int j = jBegin; j < jBegin + kSubTileSize; ++j) {
        const Real c2 = narrowChord2(ix, iy, iz, s_pts, j);
        above += c2 >= tAbove ? 1u : 0u;
        below += c2 < tBelow ? 1u : 0u;
    }
    addNarrowCounts(hist, q, above, below, ix == ix ? realJ : 0u, binCount);
}

} // namespace
} // namespace tpacf::cuda::detail
