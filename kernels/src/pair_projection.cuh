// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to pair_kernels.cu: projected tile pairs. A tile pair whose pairs straddle one or two
// bin edges, its tiles small against their distance, is counted without computing most of its
// pairs. Write p and q for the centres of the two tiles' boxes, d = p − q, and for the points
// α = a − p, β = b − q. Then, exactly,
//
//     |a − b|² = |d|² + u(a) + v(b) − 2 α·β,   u(a) = α·(α + 2d),   v(b) = β·(β − 2d),
//
// where only the last term mixes the two points, and |2 α·β| <= 2 |α| R_B (R_B bounds |β| over
// the j-tile); the part of α along d moves with v itself (BandCuts), which leaves 2 |α⊥| R_B. So
// for an i-point, the j-points whose key v(b) lies above a cut are certainly at or beyond an edge,
// those below another cut certainly before it, and only the band between the cuts (its width
// about 4 |α⊥| R_B against a key spread of about 3 |d| R_B: a few per cent of the j-tile where |d|
// is large against the tiles) is computed pair by pair. Per tile pair the block sorts the
// j-points by key into buckets (a counting sort, one bucket per thread) and stages them in that
// order, each with its key; it sorts the i-points by u alike, and thread t takes the i-points at
// t, t + blockDim, ... of that order, so that the 32 lanes of a warp hold i-points of neighbouring
// u: their cuts, hence the stretches of staged j-points they scan, nearly coincide (neighbouring
// shared-memory words, similar lengths). Each i-point and edge then counts the buckets above its
// band whole and compares the keys of the few between, the band's pairs by their c².
//
// Why the counts are exact. A pair's bin is decided here only when the bounds leave no doubt:
// - the pair's computed c² (float hi-only or hi + lo, as the pair loops compute it, or double)
//   is within 1e-6 relative of the real |a − b|² of its points (a and b: the hi + lo sums in
//   float mode, exact in double; pair_work.h gives ~6e-7 at worst), and the cuts keep a
//   relative margin of 1e-5 on the edge (the larger of the kernel's and the double threshold
//   above, the smaller below, so the float edges' rounding, and the 4.0625 that stands for 4, are
//   inside it);
// - the key is v rounded to float (|error| <= 2^-24 |v|), and u, v, |d|², the cuts and the
//   bounds are computed in double from magnitudes at most S = (|d| + |α| + R_B)²: a margin of
//   1e-6 · S covers the keys' rounding (6e-8 · S, times 1 + s <= 1.5 in BandCuts) and every
//   double rounding (~1e-15 · S; any share s keeps the split exact, and α⊥'s rounding, ~1e-16
//   · |d|, is of that order), and an absolute 1e-12 the rounding of the reconstructed points
//   (hi + lo, the centres: ~1e-15);
//   projected tile pairs have c² >= 1e-6, so that floor is below 1e-6 of any edge tested;
// - R_B is the j-box's half-diagonal widened by 1e-9 relative and 1e-12 absolute (the box holds
//   the double points; hi + lo differs from them by < 4e-15);
// - the bucket of a key is a monotone function of it (a clamp, a subtraction, a product by a
//   positive scale, rounded each, and a floor), so every key in a bucket above the cut's bucket
//   is above the cut and every key in a bucket below it is below; keys in the cuts' own buckets
//   are compared one by one.
// A pair left in the band is binned on its own computed c² against the kernel's thresholds,
// exactly as the pair loops bin it. So every pair lands in the slot the pair loops would give it,
// and raw counts stay those of brute force.
#include "pair_loops.cuh"

#include <cstdint>

namespace tpacf::cuda::detail {
namespace {

/// At most this many bin edges inside a projected tile pair's c² range: each costs a band scan
/// per i-point.
constexpr std::uint32_t kMaxProjectedEdges = 2;
/// Projected only where every pair's c² is at least this (~0.06°): the absolute margin (1e-12)
/// stays below 1e-6 of every edge tested.
constexpr double kProjectionMinChord2 = 1e-6;

/// Thresholds among t[0..count) at or below value (t ascending, global memory).
__device__ __forceinline__ std::uint32_t thresholdsAtOrBelow(const double* t, std::uint32_t count,
                                                             double value) {
    std::uint32_t below = 0;
    while (count > 0) {
        const std::uint32_t half = count / 2;
        if (__ldg(t + below + half) <= value) {
            below += half + 1;
            count -= half + 1;
        } else {
            count = half;
        }
    }
    return below;
}

__device__ __forceinline__ double boxCentre(const TileBox& box, int axis) {
    return __dmul_rn(__dadd_rn(box.lo[axis], box.hi[axis]), 0.5);
}

__device__ __forceinline__ double boxHalfSide(const TileBox& box, int axis) {
    return __dmul_rn(__dsub_rn(box.hi[axis], box.lo[axis]), 0.5);
}

/// Whether a tile pair (classified neither skipped nor one bin, not a diagonal tile) is counted
/// by projection, and its pairs' slots [slotLo, slotHi]. The sub-tile masks and the tile loop
/// both ask, and must get the same answer: the arithmetic is spelled out (_rn intrinsics).
__device__ __forceinline__ bool projectTilePair(const TileBox& a, const TileBox& b,
                                                const BinTables& bins, std::uint32_t& slotLo,
                                                std::uint32_t& slotHi) {
    double lo = 0, hi = 0;
    tilePairChord2Bounds(a, b, lo, hi);
    if (!(lo >= kProjectionMinChord2))
        return false;
    slotLo = thresholdsAtOrBelow(bins.d_thresholdsDouble, bins.binCount + 1, lo);
    slotHi = thresholdsAtOrBelow(bins.d_thresholdsDouble, bins.binCount + 1, hi);
    const std::uint32_t edges = slotHi - slotLo;
    if (edges == 0 || edges > kMaxProjectedEdges)
        return false;
    double d2 = 0, ra2 = 0, rb2 = 0;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        const double d = __dsub_rn(boxCentre(a, axis), boxCentre(b, axis));
        const double ha = boxHalfSide(a, axis), hb = boxHalfSide(b, axis);
        d2 = __dadd_rn(d2, __dmul_rn(d, d));
        ra2 = __dadd_rn(ra2, __dmul_rn(ha, ha));
        rb2 = __dadd_rn(rb2, __dmul_rn(hb, hb));
    }
    const double reach =
        __dmul_rn(static_cast<double>(edges), __dadd_rn(__dsqrt_rn(ra2), __dsqrt_rn(rb2)));
    // Projected only where edges · (R_A + R_B) <= projectionReach · |d| (box half-diagonals
    // against the centres' distance): the band holds about R_A / |d| of a tile pair's pairs per
    // edge. The default reach (1) was the fastest measured (BENCHMARKS.md).
    const double limit = __dmul_rn(bins.projectionReach, bins.projectionReach);
    return __dmul_rn(reach, reach) <= __dmul_rn(limit, d2);
}

/// The shared memory of the projection, none of its own: the buckets' starts (one more, the
/// end) and the cursors of a sort under way are the private histogram's rows of slots 0 and
/// binCount + 1 (per-thread columns: blockDim + 1 counters each), which no pair is flushed from
/// and which nothing else writes while the block projects (the tile loop's barriers come
/// before and after); each staged j-point carries its key, and the i-points' tile indices in key
/// order ride in the staged points' spare components (ProjectedPoint).
struct ProjectionShared {
    std::uint32_t* starts;
    std::uint32_t* cursors;
};

/// One point of a prepared catalog as the double its parts make (float: hi + lo, exact in
/// double), and its parts as the pair loops read them; how a staged point carries the keys.
template <class Real> struct ProjectedPoint;

template <> struct ProjectedPoint<float> {
    using Staged = float4;
    float4 hi, lo;
    __device__ __forceinline__ void load(const CatalogView& catalog, std::size_t index) {
        hi = static_cast<const float4*>(catalog.d_points)[index];
        lo = static_cast<const float4*>(catalog.d_lows)[index];
    }
    __device__ __forceinline__ void whole(double (&out)[3]) const {
        out[0] = __dadd_rn(static_cast<double>(hi.x), static_cast<double>(lo.x));
        out[1] = __dadd_rn(static_cast<double>(hi.y), static_cast<double>(lo.y));
        out[2] = __dadd_rn(static_cast<double>(hi.z), static_cast<double>(lo.z));
    }
    /// Staged at `at` with its key in the hi part's w (a weight: the unweighted kernels never
    /// read it).
    __device__ __forceinline__ void stage(float4* s_pts, float4* s_lo, std::uint32_t at,
                                          float key) const {
        s_pts[at] = make_float4(hi.x, hi.y, hi.z, key);
        s_lo[at] = lo;
    }
    __device__ static float key(const float4& staged) { return staged.w; }
    /// The i-tile index of the at-th i-point in key order: in the staged lo part's w (unused).
    __device__ static void setOrder(float4*, float4* s_lo, std::uint32_t at, std::uint32_t i) {
        s_lo[at].w = __uint_as_float(i);
    }
    __device__ static std::uint32_t order(const float4*, const float4* s_lo, std::uint32_t at) {
        return __float_as_uint(s_lo[at].w);
    }
    /// The pair's c² as the pair loops compute it (pairLoopFloat's rule: hi parts alone from
    /// kFastMinChord2 on, else hi + lo), against the staged j-point at `at` (h: its hi part).
    __device__ __forceinline__ float chord2(const float4& h, const float4* s_lo,
                                            std::uint32_t at) const {
        const float dx = __fsub_rn(hi.x, h.x), dy = __fsub_rn(hi.y, h.y), dz = __fsub_rn(hi.z, h.z);
        const float c2h = hiChord2(dx, dy, dz);
        return c2h >= kFastMinChord2 ? c2h : fullChord2(dx, dy, dz, lo.x, lo.y, lo.z, s_lo[at]);
    }
};

template <> struct ProjectedPoint<double> {
    using Staged = DoublePoint;
    DoublePoint p;
    __device__ __forceinline__ void load(const CatalogView& catalog, std::size_t index) {
        p = static_cast<const DoublePoint*>(catalog.d_points)[index];
    }
    __device__ __forceinline__ void whole(double (&out)[3]) const {
        out[0] = p.x;
        out[1] = p.y;
        out[2] = p.z;
    }
    /// Staged at `at` with its key in the low half of w (a weight: never read unweighted).
    __device__ __forceinline__ void stage(DoublePoint* s_pts, float4*, std::uint32_t at,
                                          float key) const {
        DoublePoint staged = p;
        staged.w = __hiloint2double(0, __float_as_int(key));
        s_pts[at] = staged;
    }
    __device__ static float key(const DoublePoint& staged) {
        return __int_as_float(__double2loint(staged.w));
    }
    /// The i-tile index of the at-th i-point in key order: in the high half of w.
    __device__ static void setOrder(DoublePoint* s_pts, float4*, std::uint32_t at,
                                    std::uint32_t i) {
        auto* halves = reinterpret_cast<std::uint32_t*>(&s_pts[at].w);
        halves[1] = i;
    }
    __device__ static std::uint32_t order(const DoublePoint* s_pts, const float4*,
                                          std::uint32_t at) {
        return static_cast<std::uint32_t>(__double2hiint(s_pts[at].w));
    }
    /// The reference's arithmetic (doubleChord2), as the pair loops.
    __device__ __forceinline__ double chord2(const DoublePoint& staged, const float4*,
                                             std::uint32_t) const {
        return doubleChord2(p.x, p.y, p.z, staged);
    }
};

/// The key's bucket: monotone in the key (see the file's comment).
struct Buckets {
    float low, high, scale;
    int last;
    /// Buckets evenly over [-span, span + square] (a key outside lands in an end bucket).
    __device__ __forceinline__ Buckets(double span, double square) {
        low = __double2float_rd(-span);
        high = __double2float_ru(__dadd_rn(span, square));
        const float width = __fsub_rn(high, low);
        last = static_cast<int>(blockDim.x) - 1;
        scale = width > 1e-30f ? __fdiv_rn(static_cast<float>(blockDim.x), width) : 0.f;
    }
    __device__ __forceinline__ int of(float key) const {
        const float clamped = fminf(fmaxf(key, low), high);
        return min(last, max(0, __float2int_rd(__fmul_rn(__fsub_rn(clamped, low), scale))));
    }
};

/// x·(x + 2 offset) over the axes: u of an i-point (x = α, offset = d) or v of a j-point (x = β,
/// offset = −d), the separable parts of |d + α − β|².
__device__ __forceinline__ double projectedKey(const double (&point)[3], const double (&centre)[3],
                                               const double (&d)[3], double sign,
                                               double* squared = nullptr) {
    double key = 0, square = 0;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        const double x = __dsub_rn(point[axis], centre[axis]);
        square = __dadd_rn(square, __dmul_rn(x, x));
        key = __dadd_rn(key, __dmul_rn(x, __dadd_rn(x, __dmul_rn(2.0 * sign, d[axis]))));
    }
    if (squared != nullptr)
        *squared = square;
    return key;
}

/// An i-point's cuts on the j-points' keys (the file's comment): for an edge, the key below which
/// every pair is certainly before it and the key at or above which every pair is certainly at or
/// beyond it. With α = a − p split along d, α = s d + α⊥ (α⊥ = α − s d, the share s = α·d / |d|²),
/// and d·β = (|β|² − v) / 2, the mixed term is −2 α·β = s v − s |β|² − 2 α⊥·β, so
///   |a − b|² = |d|² + u + (1 + s) v − s |β|² − 2 α⊥·β,
/// exactly for any s: the part of α along d moves with v, and only |α⊥| R_B (and |s| R_B²) widens
/// the band. A share beyond ±1/2 (tiles wide against |d|, reach > 1) is taken as 0, the plain
/// split, so that 1 + s stays far from 0. The margin, 1e-6 · (|d| + |α| + R_B)² + 1e-12, is the
/// file's: a key compared against cuts divided by 1 + s <= 1.5 carries its rounding (6e-8 of that
/// square) times 1 + s, under a tenth of the margin.
struct BandCuts {
    double base, above, below, perV;
    __device__ __forceinline__ BandCuts(const double (&a)[3], const double (&p)[3],
                                        const double (&d)[3], double d2, double dn, double rb) {
        double alpha2 = 0;
        const double u = projectedKey(a, p, d, 1.0, &alpha2);
        double along = 0;
#pragma unroll
        for (int axis = 0; axis < 3; ++axis)
            along = __dadd_rn(along, __dmul_rn(__dsub_rn(a[axis], p[axis]), d[axis]));
        double share = __ddiv_rn(along, d2);
        if (!(fabs(share) <= 0.5))
            share = 0.0;
        double perp2 = 0;
#pragma unroll
        for (int axis = 0; axis < 3; ++axis) {
            const double x = __dsub_rn(__dsub_rn(a[axis], p[axis]), __dmul_rn(share, d[axis]));
            perp2 = __dadd_rn(perp2, __dmul_rn(x, x));
        }
        const double na = __dsqrt_rn(alpha2);
        base = __dadd_rn(d2, u);
        const double reach = __dadd_rn(dn, __dadd_rn(na, rb));
        const double margin = __dadd_rn(__dmul_rn(1e-6, __dmul_rn(reach, reach)), 1e-12);
        const double spread = __dmul_rn(2.0, __dmul_rn(__dsqrt_rn(perp2), rb));
        const double squares = __dmul_rn(share, __dmul_rn(rb, rb));
        above = __dadd_rn(__dadd_rn(fmax(squares, 0.0), spread), margin);
        below = __dsub_rn(__dsub_rn(fmin(squares, 0.0), spread), margin);
        perV = __drcp_rn(__dadd_rn(1.0, share));
    }
    /// The keys of the edge whose double threshold is tDouble and kernel threshold tKernel, with
    /// the edges' relative margin 1e-5 on the larger above and the smaller below.
    __device__ __forceinline__ void keys(double tDouble, double tKernel, float& keyLow,
                                         float& keyHigh) const {
        const double cutHigh = __dmul_rn(
            __dadd_rn(__dsub_rn(__dmul_rn(fmax(tDouble, tKernel), 1.0 + 1e-5), base), above), perV);
        const double cutLow = __dmul_rn(
            __dadd_rn(__dsub_rn(__dmul_rn(fmin(tDouble, tKernel), 1.0 - 1e-5), base), below), perV);
        keyHigh = __double2float_ru(cutHigh);
        keyLow = __double2float_rd(cutLow);
    }
};

/// Counting sort of `count` keys into buckets (one per thread). Key k (k < count, at most
/// kPointsPerThread per thread: a tile) is this thread's keys[m] for k = threadIdx.x + m blockDim,
/// computed once by the caller; each is placed by place(m, position), and shared.starts ends as
/// the buckets' starts (one more: the end). Every thread of the block calls it; it ends with a
/// barrier.
template <class Place>
__device__ __forceinline__ void
sortIntoBuckets(std::uint32_t count, const Buckets& buckets, const ProjectionShared& shared,
                const float (&keys)[kPointsPerThread], const Place& place) {
    const std::uint32_t tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    shared.cursors[tid] = 0;
    __syncthreads();
#pragma unroll
    for (int m = 0; m < kPointsPerThread; ++m)
        if (tid + m * blockDim.x < count)
            atomicAdd(shared.cursors + buckets.of(keys[m]), 1u);
    __syncthreads();
    const std::uint32_t mine = shared.cursors[tid];
    std::uint32_t inclusive = mine;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        const std::uint32_t before = __shfl_up_sync(0xffffffffu, inclusive, offset);
        if (lane >= static_cast<std::uint32_t>(offset))
            inclusive += before;
    }
    if (lane == 31)
        shared.starts[warp] = inclusive; // the warps' totals, for a moment
    __syncthreads();
    std::uint32_t start = inclusive - mine;
    for (std::uint32_t w = 0; w < warp; ++w)
        start += shared.starts[w];
    __syncthreads();
    shared.starts[tid] = start;
    shared.cursors[tid] = start;
    if (tid == 0)
        shared.starts[blockDim.x] = count;
    __syncthreads();
#pragma unroll
    for (int m = 0; m < kPointsPerThread; ++m)
        if (tid + m * blockDim.x < count)
            place(m, atomicAdd(shared.cursors + buckets.of(keys[m]), 1u));
    __syncthreads();
}

/// Counts one projected tile pair, i-tile tileA of catA against j-tile tileB of catB (every
/// thread of the block, after a barrier that frees the staging buffers): the j-tile is staged in
/// the order of its keys, the i-points taken in the order of theirs, so that the lanes of a warp
/// scan neighbouring stretches of the staged j-points. slotLo..slotHi: the slots its pairs may
/// take (projectTilePair). Into the private histogram.
template <class Real, class Hist>
__device__ __noinline__ void
countProjected(const CatalogView& catA, std::uint32_t tileA, const TileBox& boxA,
               const CatalogView& catB, std::uint32_t tileB, const TileBox& boxB,
               std::uint32_t tileSize, std::uint32_t slotLo, std::uint32_t slotHi,
               typename Traits<Real>::Point* s_pts, float4* s_lo, const Real* s_thr,
               const BinTables& bins, const ProjectionShared& shared, const Hist& hist) {
    double p[3], q[3], d[3];
    double d2 = 0, ra2 = 0, rb2 = 0, spanA = 0, spanB = 0;
#pragma unroll
    for (int axis = 0; axis < 3; ++axis) {
        p[axis] = boxCentre(boxA, axis);
        q[axis] = boxCentre(boxB, axis);
        d[axis] = __dsub_rn(p[axis], q[axis]);
        const double ha = boxHalfSide(boxA, axis), hb = boxHalfSide(boxB, axis);
        d2 = __dadd_rn(d2, __dmul_rn(d[axis], d[axis]));
        ra2 = __dadd_rn(ra2, __dmul_rn(ha, ha));
        rb2 = __dadd_rn(rb2, __dmul_rn(hb, hb));
        spanA = __dadd_rn(spanA, __dmul_rn(2.0, __dmul_rn(fabs(d[axis]), ha)));
        spanB = __dadd_rn(spanB, __dmul_rn(2.0, __dmul_rn(fabs(d[axis]), hb)));
    }
    const double rb = __dadd_rn(__dmul_rn(__dsqrt_rn(rb2), 1.0 + 1e-9), 1e-12);
    const std::size_t startA = static_cast<std::size_t>(tileA) * tileSize;
    const std::size_t startB = static_cast<std::size_t>(tileB) * tileSize;
    const std::uint32_t iCount = boxA.count, jCount = boxB.count;

    // The keys of this thread's points of a tile (k = threadIdx.x + m blockDim, k < count), u
    // (sign 1, about p) or v (sign −1, about q), rounded to float: computed once per sort.
    using Point = ProjectedPoint<Real>;
    const auto keysOf = [&d](const CatalogView& catalog, std::size_t start, std::uint32_t count,
                             const double(&centre)[3], double sign,
                             float(&keys)[kPointsPerThread]) {
#pragma unroll
        for (int m = 0; m < kPointsPerThread; ++m) {
            const std::uint32_t k = threadIdx.x + m * blockDim.x;
            keys[m] = 0.f;
            if (k < count) {
                Point point;
                point.load(catalog, start + k);
                double x[3];
                point.whole(x);
                keys[m] = __double2float_rn(projectedKey(x, centre, d, sign));
            }
        }
    };
    float keys[kPointsPerThread];
    // The j-tile staged in key order, each point with its key; the j buckets' starts kept.
    const Buckets jBuckets(spanB, rb2);
    keysOf(catB, startB, jCount, q, -1.0, keys);
    sortIntoBuckets(jCount, jBuckets, shared, keys, [&](int m, std::uint32_t at) {
        Point point;
        point.load(catB, startB + threadIdx.x + m * blockDim.x);
        point.stage(s_pts, s_lo, at, keys[m]);
    });
    // The i-points in key order (their tile indices), beside the staged points. The buckets'
    // starts of this sort are not kept: the j-tile's are read back below, so they are
    // restored first.
    std::uint32_t jStarts[2] = {shared.starts[threadIdx.x], 0};
    if (threadIdx.x == 0)
        jStarts[1] = shared.starts[blockDim.x];
    const Buckets iBuckets(spanA, ra2);
    keysOf(catA, startA, iCount, p, 1.0, keys);
    sortIntoBuckets(iCount, iBuckets, shared, keys, [&](int m, std::uint32_t at) {
        Point::setOrder(s_pts, s_lo, at, threadIdx.x + m * blockDim.x);
    });
    shared.starts[threadIdx.x] = jStarts[0];
    if (threadIdx.x == 0)
        shared.starts[blockDim.x] = jStarts[1];
    __syncthreads();

    const std::uint32_t binCount = bins.binCount;
    const auto addSlot = [&](std::uint32_t slot, std::uint32_t pairs) {
        if (pairs != 0 && slot >= 1 && slot <= binCount)
            hist.addPairs(static_cast<int>(slot), pairs);
    };
    const double dn = __dsqrt_rn(d2);
#pragma unroll 1
    for (std::uint32_t at = threadIdx.x; at < iCount; at += blockDim.x) {
        Point point;
        point.load(catA, startA + Point::order(s_pts, s_lo, at));
        double a[3];
        point.whole(a);
        const BandCuts cuts(a, p, d, d2, dn, rb);
        std::uint32_t atOrAbovePrevious = jCount; // pairs at or above the last edge passed
        for (std::uint32_t k = slotLo; k < slotHi; ++k) {
            const Real edge = s_thr[k];
            float keyLow = 0, keyHigh = 0;
            cuts.keys(__ldg(bins.d_thresholdsDouble + k), static_cast<double>(edge), keyLow,
                      keyHigh);
            const std::uint32_t first = shared.starts[jBuckets.of(keyLow)];
            const std::uint32_t last = shared.starts[jBuckets.of(keyHigh) + 1];
            std::uint32_t atOrAbove = jCount - last;
            for (std::uint32_t j = first; j < last; ++j) {
                const typename Point::Staged staged = s_pts[j];
                const float key = Point::key(staged);
                if (key >= keyHigh)
                    ++atOrAbove;
                else if (key >= keyLow)
                    atOrAbove += point.chord2(staged, s_lo, j) >= edge ? 1u : 0u;
            }
            addSlot(k, atOrAbovePrevious - atOrAbove);
            atOrAbovePrevious = atOrAbove;
        }
        addSlot(slotHi, atOrAbovePrevious);
    }
}

} // namespace
} // namespace tpacf::cuda::detail
