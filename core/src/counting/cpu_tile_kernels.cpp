// SPDX-License-Identifier: GPL-3.0-or-later
#include "counting/cpu_tile_kernels.h"

#include <algorithm>
#include <bit>
#include <limits>

#if defined(__GNUC__) && defined(__x86_64__)
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() through and trip
// -Wmaybe-uninitialized in its own header (GCC bug 105593, fixed in GCC 13).
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#define TPACF_HAVE_AVX512_KERNEL 1
#endif

// The portable kernels are also built for AVX2, the loader picking the clone the processor runs
// (GCC's ifunc): four doubles a vector instead of SSE2's two made the portable DD of 10^6 points
// to 10° 1.6× faster (BENCHMARKS.md, "The portable kernel for AVX2"). The same IEEE operations per
// lane and no contraction (-ffp-contract=off), so every clone counts alike.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TPACF_PORTABLE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TPACF_PORTABLE_CLONES
#endif

namespace tpacf::cpu {

namespace {

// Squared chords are computed for this many j at a time, then binned.
constexpr std::size_t kChunk = 256;
static_assert(kChunk % 8 == 0, "the AVX-512 kernel stores whole vectors of 8");

// Adds n binned pairs to the histogram copies. `slot` holds the guess after its one comparison,
// with the kMultiEdgeCell flag where more comparisons are needed.
[[gnu::always_inline]] inline void addSlots(const double* __restrict c2,
                                            const std::uint32_t* __restrict slot, std::size_t n,
                                            const double* __restrict thresholds, std::size_t slots,
                                            std::uint32_t* __restrict histogram) {
    const auto finish = [&](std::size_t k) -> std::size_t {
        std::uint32_t s = slot[k];
        if (s & kMultiEdgeCell) [[unlikely]] {
            s &= ~kMultiEdgeCell;
            while (c2[k] >= thresholds[s])
                ++s;
        }
        return s;
    };
    std::size_t k = 0;
    for (; k + kHistogramCopies <= n; k += kHistogramCopies) {
        ++histogram[finish(k)];
        ++histogram[slots + finish(k + 1)];
        ++histogram[2 * slots + finish(k + 2)];
        ++histogram[3 * slots + finish(k + 3)];
    }
    for (; k < n; ++k)
        ++histogram[finish(k)];
}

// addSlots for a weighted count: also adds wi·wj[k] to the same slot of the double histogram
// copies, pair k to copy k mod kHistogramCopies and the tail to copy 0, as the counts go.
[[gnu::always_inline]] inline void
addSlotsWeighted(const double* __restrict c2, const std::uint32_t* __restrict slot, std::size_t n,
                 const double* __restrict thresholds, std::size_t slots,
                 std::uint32_t* __restrict histogram, double wi, const double* __restrict wj,
                 double* __restrict weighted) {
    const auto finish = [&](std::size_t k) -> std::size_t {
        std::uint32_t s = slot[k];
        if (s & kMultiEdgeCell) [[unlikely]] {
            s &= ~kMultiEdgeCell;
            while (c2[k] >= thresholds[s])
                ++s;
        }
        return s;
    };
    std::size_t k = 0;
    for (; k + kHistogramCopies <= n; k += kHistogramCopies) {
        const std::size_t s0 = finish(k), s1 = slots + finish(k + 1),
                          s2 = 2 * slots + finish(k + 2), s3 = 3 * slots + finish(k + 3);
        ++histogram[s0];
        ++histogram[s1];
        ++histogram[s2];
        ++histogram[s3];
        weighted[s0] += wi * wj[k];
        weighted[s1] += wi * wj[k + 1];
        weighted[s2] += wi * wj[k + 2];
        weighted[s3] += wi * wj[k + 3];
    }
    for (; k < n; ++k) {
        const std::size_t s = finish(k);
        ++histogram[s];
        weighted[s] += wi * wj[k];
    }
}

// The smallest and largest squared chord of a chunk.
struct ChordRange {
    double lowest, highest;
};

// The range of n ≥ 1 chords, on four independent running minima and maxima (one would wait on
// the latency of the previous comparison at every pair).
[[gnu::always_inline]] inline ChordRange chordRange(const double* __restrict c2, std::size_t n) {
    double low[4] = {c2[0], c2[0], c2[0], c2[0]};
    double high[4] = {c2[0], c2[0], c2[0], c2[0]};
    std::size_t k = 0;
    for (; k + 4 <= n; k += 4)
        for (std::size_t lane = 0; lane < 4; ++lane) {
            low[lane] = std::min(low[lane], c2[k + lane]);
            high[lane] = std::max(high[lane], c2[k + lane]);
        }
    for (; k < n; ++k) {
        low[0] = std::min(low[0], c2[k]);
        high[0] = std::max(high[0], c2[k]);
    }
    return {std::min(std::min(low[0], low[1]), std::min(low[2], low[3])),
            std::max(std::max(high[0], high[1]), std::max(high[2], high[3]))};
}

// Most thresholds a chunk's chords may straddle and still be counted by cuts in the portable
// kernel: a cut costs one comparison and one addition per pair, the slot lookup with its table
// read and histogram increment about ten operations.
constexpr std::uint32_t kMostPortableCuts = 3;

// Adds a chunk whose chords all lie in slots [first, last] by cuts: the pairs at or above each
// threshold between (those of slot > t for threshold t) give every slot's count by differences.
// Exact: the same chords compared with the same thresholds as the slot lookup's.
[[gnu::always_inline]] inline void addChunkByCuts(const double* __restrict c2, std::size_t n,
                                                  std::uint32_t first, std::uint32_t last,
                                                  const double* __restrict thresholds,
                                                  std::uint32_t* __restrict histogram) {
    std::uint32_t notBelow = static_cast<std::uint32_t>(n); // at or above the last cut passed
    for (std::uint32_t slot = first; slot < last; ++slot) {
        const double edge = thresholds[slot];
        std::uint32_t above = 0;
        for (std::size_t k = 0; k < n; ++k)
            above += c2[k] >= edge ? 1u : 0u;
        histogram[slot] += notBelow - above;
        notBelow = above;
    }
    histogram[last] += notBelow;
}

// The portable kernel: counts pairs (i in [i0, i1) of a) x (j in [j0, j1) of b) into
// `histogram` (kHistogramCopies copies of `slots` slots, one after the other). `diagonal`: a == b
// on the same range, so only j > i. The squared chord is the contract's arithmetic, in its
// order: dx, dy, dz, then (dx² + dy²) + dz², each operation rounded on its own (core is built
// with -ffp-contract=off); the GPU double kernel does the same. That loop vectorises over j.
// Weighted: the same, and the weights' products through addSlotsWeighted (`weighted` unused
// otherwise: the plain instantiation is the plain kernel).
template <bool Weighted>
[[gnu::always_inline]] inline void
countTilePortableOf(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                    std::size_t j0, std::size_t j1, bool diagonal, const SlotLookup& lookup,
                    std::uint32_t* __restrict histogram, double* __restrict weighted) {
    const std::size_t slots = lookup.slotCount();
    const double* __restrict thresholds = lookup.m_thresholds.data();
    const std::uint32_t* __restrict guessTable = lookup.m_guess.data();
    const std::uint64_t shift = lookup.m_shift;
    const auto baseCell = static_cast<std::int64_t>(lookup.m_baseCell);
    const std::int64_t lastCell = lookup.m_lastCell;
    alignas(64) double c2[kChunk];
    alignas(64) std::uint32_t slot[kChunk];
    for (std::size_t i = i0; i < i1; ++i) {
        const double xi = a.x[i], yi = a.y[i], zi = a.z[i];
        for (std::size_t jc = diagonal ? i + 1 : j0; jc < j1; jc += kChunk) {
            const std::size_t n = std::min(kChunk, j1 - jc);
            const double* __restrict xj = b.x + jc;
            const double* __restrict yj = b.y + jc;
            const double* __restrict zj = b.z + jc;
            for (std::size_t k = 0; k < n; ++k) {
                const double dx = xi - xj[k];
                const double dy = yi - yj[k];
                const double dz = zi - zj[k];
                c2[k] = dx * dx + dy * dy + dz * dz;
            }
            if constexpr (!Weighted) {
                const ChordRange range = chordRange(c2, n);
                const std::uint32_t first = lookup.slotOf(range.lowest);
                const std::uint32_t last = lookup.slotOf(range.highest);
                if (last - first <= kMostPortableCuts) {
                    addChunkByCuts(c2, n, first, last, thresholds, histogram);
                    continue;
                }
            }
            for (std::size_t k = 0; k < n; ++k) {
                const auto bits =
                    static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(c2[k]) >> shift);
                const std::int64_t cell = std::clamp(bits - baseCell, std::int64_t{0}, lastCell);
                const std::uint32_t guess = guessTable[cell];
                const std::uint32_t start = guess & ~kMultiEdgeCell;
                slot[k] = guess + (c2[k] >= thresholds[start] ? 1u : 0u);
            }
            if constexpr (Weighted)
                addSlotsWeighted(c2, slot, n, thresholds, slots, histogram, a.w[i], b.w + jc,
                                 weighted);
            else
                addSlots(c2, slot, n, thresholds, slots, histogram);
        }
    }
}

TPACF_PORTABLE_CLONES void countTilePortable(const Points& a, std::size_t i0, std::size_t i1,
                                             const Points& b, std::size_t j0, std::size_t j1,
                                             bool diagonal, const SlotLookup& lookup,
                                             std::uint32_t* histogram) {
    countTilePortableOf<false>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, nullptr);
}

TPACF_PORTABLE_CLONES void countTilePortableWeighted(const Points& a, std::size_t i0,
                                                     std::size_t i1, const Points& b,
                                                     std::size_t j0, std::size_t j1, bool diagonal,
                                                     const SlotLookup& lookup,
                                                     std::uint32_t* histogram, double* weighted) {
    countTilePortableOf<true>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, weighted);
}

#ifdef TPACF_HAVE_AVX512_KERNEL
#define TPACF_AVX512 __attribute__((target("avx512f")))

// The slot guesses of eight squared chords at once (SlotLookup's tables read by gathers): each
// lane's slot after its one comparison, with kMultiEdgeCell where more are needed.
template <bool Packed> class VectorSlotGuess {
public:
    TPACF_AVX512 explicit VectorSlotGuess(const SlotLookup& lookup)
        : m_guessTable(lookup.m_guess.data()), m_cellThreshold(lookup.m_cellThreshold.data()),
          m_packedTable(reinterpret_cast<const long long*>(lookup.m_packed.data())),
          m_shift(_mm_cvtsi64_si128(static_cast<long long>(lookup.m_shift))),
          m_offsetBits(_mm_cvtsi64_si128(static_cast<long long>(lookup.m_shift + 1))),
          m_baseCell(_mm512_set1_epi64(static_cast<long long>(lookup.m_baseCell))),
          m_lastCell(_mm512_set1_epi64(lookup.m_lastCell)),
          m_offsetMask(
              _mm512_set1_epi64(static_cast<long long>((std::uint64_t{2} << lookup.m_shift) - 1))),
          m_multiFlag(_mm512_set1_epi64(static_cast<long long>(kMultiEdgeCell))) {}

    /// The guesses of the lanes of d2 in `lanes` (64-bit integers; other lanes undefined).
    TPACF_AVX512 __m512i operator()(__m512d d2, __mmask8 lanes) const {
        const __m512i zero = _mm512_setzero_si512();
        const __m512i one = _mm512_set1_epi64(1);
        const __m512i bits = _mm512_castpd_si512(d2);
        __m512i cell = _mm512_sub_epi64(_mm512_srl_epi64(bits, m_shift), m_baseCell);
        cell = _mm512_min_epi64(_mm512_max_epi64(cell, zero), m_lastCell);
        if constexpr (Packed) {
            // One gather: the guess and the threshold's offset in the cell (SlotLookup).
            const __m512i entry = _mm512_mask_i64gather_epi64(zero, lanes, cell, m_packedTable, 8);
            const __m512i first = _mm512_sll_epi64(_mm512_add_epi64(cell, m_baseCell), m_shift);
            const __mmask8 above = _mm512_cmpge_epi64_mask(_mm512_sub_epi64(bits, first),
                                                           _mm512_and_si512(entry, m_offsetMask));
            const __m512i tagged = _mm512_srl_epi64(entry, m_offsetBits);
            // (slot << 1 | flag) → slot | flag << 31, the unpacked guess.
            const __m512i guess =
                _mm512_or_si512(_mm512_srli_epi64(tagged, 1),
                                _mm512_and_si512(_mm512_slli_epi64(tagged, 31), m_multiFlag));
            return _mm512_mask_add_epi64(guess, above, guess, one);
        } else {
            const __m512i guess = _mm512_cvtepu32_epi64(
                _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), lanes, cell, m_guessTable, 4));
            const __m512d threshold =
                _mm512_mask_i64gather_pd(_mm512_setzero_pd(), lanes, cell, m_cellThreshold, 8);
            const __mmask8 above = _mm512_cmp_pd_mask(d2, threshold, _CMP_GE_OQ);
            return _mm512_mask_add_epi64(guess, above, guess, one);
        }
    }

private:
    const std::uint32_t* m_guessTable;
    const double* m_cellThreshold;
    const long long* m_packedTable;
    __m128i m_shift, m_offsetBits;
    __m512i m_baseCell, m_lastCell, m_offsetMask, m_multiFlag;
};

TPACF_AVX512 inline __mmask8 lanesOf(std::size_t n, std::size_t k) {
    return n - k >= 8 ? __mmask8(0xff) : __mmask8((1u << (n - k)) - 1u);
}

// The squared chord of i (xi, yi, zi) and j (xj, yj, zj): the portable kernel's operations in
// its order, each rounded on its own, so both kernels' counts are identical.
TPACF_AVX512 inline __m512d chord2Of(__m512d xi, __m512d yi, __m512d zi, __m512d xj, __m512d yj,
                                     __m512d zj) {
    const __m512d dx = _mm512_sub_pd(xi, xj);
    const __m512d dy = _mm512_sub_pd(yi, yj);
    const __m512d dz = _mm512_sub_pd(zi, zj);
    return _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                         _mm512_mul_pd(dz, dz));
}

// The same with j loaded from b's point j on (lanes outside `lanes` read as 0).
TPACF_AVX512 inline __m512d chord2Of(__m512d xi, __m512d yi, __m512d zi, const Points& b,
                                     std::size_t j, __mmask8 lanes) {
    return chord2Of(xi, yi, zi, _mm512_maskz_loadu_pd(lanes, b.x + j),
                    _mm512_maskz_loadu_pd(lanes, b.y + j), _mm512_maskz_loadu_pd(lanes, b.z + j));
}

// Writes the squared chords of `Rows` consecutive points of a, from i, against b's points
// [jc, jc + n) to `chord2`, row after row, each row `stride` long (n rounded up to whole vectors,
// the lanes past n set to −1: below every threshold, as no edge is negative). Each j vector is
// loaded once for all rows. Returns the range of the chords.
template <std::size_t Rows>
TPACF_AVX512 inline ChordRange rowChords(const Points& a, std::size_t i, const Points& b,
                                         std::size_t jc, std::size_t n, std::size_t stride,
                                         double* __restrict chord2) {
    const __m512d none = _mm512_set1_pd(-1.0);
    __m512d low = _mm512_set1_pd(std::numeric_limits<double>::infinity());
    __m512d high = _mm512_set1_pd(-std::numeric_limits<double>::infinity());
    __m512d xi[Rows], yi[Rows], zi[Rows];
    for (std::size_t r = 0; r < Rows; ++r) {
        xi[r] = _mm512_set1_pd(a.x[i + r]);
        yi[r] = _mm512_set1_pd(a.y[i + r]);
        zi[r] = _mm512_set1_pd(a.z[i + r]);
    }
    for (std::size_t k = 0; k < n; k += 8) {
        const __mmask8 lanes = lanesOf(n, k);
        const __m512d xj = _mm512_maskz_loadu_pd(lanes, b.x + jc + k);
        const __m512d yj = _mm512_maskz_loadu_pd(lanes, b.y + jc + k);
        const __m512d zj = _mm512_maskz_loadu_pd(lanes, b.z + jc + k);
        for (std::size_t r = 0; r < Rows; ++r) {
            const __m512d d2 = chord2Of(xi[r], yi[r], zi[r], xj, yj, zj);
            _mm512_store_pd(chord2 + r * stride + k, _mm512_mask_mov_pd(none, lanes, d2));
            low = _mm512_mask_min_pd(low, lanes, low, d2);
            high = _mm512_mask_max_pd(high, lanes, high, d2);
        }
    }
    return {_mm512_reduce_min_pd(low), _mm512_reduce_max_pd(high)};
}

// Most thresholds a chunk's chords may straddle and still be counted by cuts: a cut costs about
// one vector comparison per eight pairs, the slot lookup with its gather and the scalar
// histogram increments about twenty.
constexpr std::uint32_t kMostCuts = 24;

// addChunkByCuts with AVX-512: eight comparisons a step, counted in vector lanes. chord2 holds
// `stored` values (whole vectors), `pairs` of them chords, the others −1.
TPACF_AVX512 inline void addChunkByVectorCuts(const double* __restrict chord2, std::size_t stored,
                                              std::size_t pairs, std::uint32_t first,
                                              std::uint32_t last,
                                              const double* __restrict thresholds,
                                              std::uint32_t* __restrict histogram) {
    const __m512i one = _mm512_set1_epi64(1);
    std::uint64_t notBelow = pairs; // pairs at or above the last threshold passed
    for (std::uint32_t slot = first; slot < last; ++slot) {
        const __m512d edge = _mm512_set1_pd(thresholds[slot]);
        __m512i reached = _mm512_setzero_si512();
        for (std::size_t k = 0; k < stored; k += 8) {
            const __mmask8 atOrAbove =
                _mm512_cmp_pd_mask(_mm512_load_pd(chord2 + k), edge, _CMP_GE_OQ);
            reached = _mm512_mask_add_epi64(reached, atOrAbove, reached, one);
        }
        const auto above = static_cast<std::uint64_t>(_mm512_reduce_add_epi64(reached));
        histogram[slot] += static_cast<std::uint32_t>(notBelow - above);
        notBelow = above;
    }
    histogram[last] += static_cast<std::uint32_t>(notBelow);
}

// Adds a chunk by the slot lookup: the pairs inside the bins compressed to the front of c2 and
// slot with their guesses, then counted one by one (addSlots).
template <bool Packed>
TPACF_AVX512 inline void addChunkByLookup(const double* __restrict chord2, std::size_t n,
                                          const VectorSlotGuess<Packed>& guessOf,
                                          const SlotLookup& lookup, double* __restrict c2,
                                          std::uint32_t* __restrict slot,
                                          std::uint32_t* __restrict histogram) {
    const double* thresholds = lookup.m_thresholds.data();
    const __m512d firstEdge = _mm512_set1_pd(thresholds[0]);
    const __m512d lastEdge = _mm512_set1_pd(thresholds[lookup.m_edgeCount - 1]);
    std::size_t kept = 0;
    for (std::size_t k = 0; k < n; k += 8) {
        const __m512d d2 = _mm512_load_pd(chord2 + k);
        __mmask8 lanes = _mm512_mask_cmp_pd_mask(lanesOf(n, k), d2, firstEdge, _CMP_GE_OQ);
        lanes = _mm512_mask_cmp_pd_mask(lanes, d2, lastEdge, _CMP_LT_OQ);
        if (lanes == 0)
            continue;
        const __m512i guess = guessOf(d2, lanes);
        // Register compress, then a whole store (a compressing store to memory is microcoded and
        // slow on some processors); lanes past `kept` are never read.
        _mm512_storeu_pd(c2 + kept, _mm512_maskz_compress_pd(lanes, d2));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(slot + kept),
                            _mm512_cvtepi64_epi32(_mm512_maskz_compress_epi64(lanes, guess)));
        kept += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(lanes)));
    }
    addSlots(c2, slot, kept, thresholds, lookup.slotCount(), histogram);
}

// Counts the chords of `Rows` rows (consecutive points of a from i) against b's points
// [jc, jc + n): by cuts where they straddle few thresholds (far points against a few rows mostly
// straddle one or two), else row by row by the slot lookup.
template <std::size_t Rows, bool Packed>
TPACF_AVX512 inline void
countRows(const Points& a, std::size_t i, const Points& b, std::size_t jc, std::size_t n,
          const SlotLookup& lookup, const VectorSlotGuess<Packed>& guessOf,
          double* __restrict chord2, double* __restrict c2, std::uint32_t* __restrict slot,
          std::uint32_t* __restrict histogram) {
    const std::size_t stride = (n + 7) & ~std::size_t{7};
    const ChordRange range = rowChords<Rows>(a, i, b, jc, n, stride, chord2);
    const std::uint32_t first = lookup.slotOf(range.lowest);
    const std::uint32_t last = lookup.slotOf(range.highest);
    if (last - first <= kMostCuts) {
        addChunkByVectorCuts(chord2, Rows * stride, Rows * n, first, last,
                             lookup.m_thresholds.data(), histogram);
        return;
    }
    for (std::size_t r = 0; r < Rows; ++r)
        addChunkByLookup(chord2 + r * stride, n, guessOf, lookup, c2, slot, histogram);
}

// Rows counted together by the plain AVX-512 kernel: the chords' range, its two lookups and the
// cuts' loops are paid once for all of them, and each j vector is loaded once.
constexpr std::size_t kRowsAtOnce = 4;

// The plain kernel with AVX-512: chunks of kRowsAtOnce rows by kChunk columns (a triangle's rows
// one by one, as each starts at its own diagonal), counted by countRows. Only the bins' slots
// are exact (the slots below and above are dropped by every caller: the lookup skips those
// pairs, the cuts count them).
template <bool Packed>
TPACF_AVX512 void countTileAvx512Plain(const Points& a, std::size_t i0, std::size_t i1,
                                       const Points& b, std::size_t j0, std::size_t j1,
                                       bool diagonal, const SlotLookup& lookup,
                                       std::uint32_t* __restrict histogram) {
    const VectorSlotGuess<Packed> guessOf(lookup);
    alignas(64) double chord2[kRowsAtOnce * kChunk];
    alignas(64) double c2[kChunk + 8]; // compressed stores write whole vectors at the running end
    alignas(64) std::uint32_t slot[kChunk + 8];
    std::size_t i = i0;
    if (!diagonal)
        for (; i + kRowsAtOnce <= i1; i += kRowsAtOnce)
            for (std::size_t jc = j0; jc < j1; jc += kChunk)
                countRows<kRowsAtOnce>(a, i, b, jc, std::min(kChunk, j1 - jc), lookup, guessOf,
                                       chord2, c2, slot, histogram);
    for (; i < i1; ++i)
        for (std::size_t jc = diagonal ? i + 1 : j0; jc < j1; jc += kChunk)
            countRows<1>(a, i, b, jc, std::min(kChunk, j1 - jc), lookup, guessOf, chord2, c2, slot,
                         histogram);
}

// The weighted kernel with AVX-512: every pair's slot by the lookup (8 pairs a step), then its
// count and weight product added in the summation order of cpu_tile_kernels.h.
template <bool Packed>
TPACF_AVX512 void
countTileAvx512WeightedOf(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                          std::size_t j0, std::size_t j1, bool diagonal, const SlotLookup& lookup,
                          std::uint32_t* __restrict histogram, double* __restrict weighted) {
    const VectorSlotGuess<Packed> guessOf(lookup);
    const std::size_t slots = lookup.slotCount();
    const double* __restrict thresholds = lookup.m_thresholds.data();
    alignas(64) double c2[kChunk];
    alignas(64) std::uint32_t slot[kChunk];
    for (std::size_t i = i0; i < i1; ++i) {
        const __m512d xi = _mm512_set1_pd(a.x[i]);
        const __m512d yi = _mm512_set1_pd(a.y[i]);
        const __m512d zi = _mm512_set1_pd(a.z[i]);
        for (std::size_t jc = diagonal ? i + 1 : j0; jc < j1; jc += kChunk) {
            const std::size_t n = std::min(kChunk, j1 - jc);
            for (std::size_t k = 0; k < n; k += 8) {
                const __mmask8 lanes = lanesOf(n, k);
                const __m512d d2 = chord2Of(xi, yi, zi, b, jc + k, lanes);
                // Whole-vector stores stay inside the buffers (kChunk is a multiple of 8);
                // lanes past n are never read.
                _mm512_store_pd(c2 + k, d2);
                _mm256_store_si256(reinterpret_cast<__m256i*>(slot + k),
                                   _mm512_cvtepi64_epi32(guessOf(d2, lanes)));
            }
            addSlotsWeighted(c2, slot, n, thresholds, slots, histogram, a.w[i], b.w + jc, weighted);
        }
    }
}

TPACF_AVX512 void countTileAvx512(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                                  std::size_t j0, std::size_t j1, bool diagonal,
                                  const SlotLookup& lookup, std::uint32_t* histogram) {
    if (lookup.packed())
        countTileAvx512Plain<true>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram);
    else
        countTileAvx512Plain<false>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram);
}

TPACF_AVX512 void countTileAvx512Weighted(const Points& a, std::size_t i0, std::size_t i1,
                                          const Points& b, std::size_t j0, std::size_t j1,
                                          bool diagonal, const SlotLookup& lookup,
                                          std::uint32_t* histogram, double* weighted) {
    if (lookup.packed())
        countTileAvx512WeightedOf<true>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram,
                                        weighted);
    else
        countTileAvx512WeightedOf<false>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram,
                                         weighted);
}
#endif

} // namespace

bool avx512KernelAvailable() noexcept {
#ifdef TPACF_HAVE_AVX512_KERNEL
    return __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

TileKernel kernelFor(bool avx512) noexcept {
#ifdef TPACF_HAVE_AVX512_KERNEL
    if (avx512)
        return countTileAvx512;
#else
    (void)avx512;
#endif
    return countTilePortable;
}

WeightedTileKernel weightedKernelFor(bool avx512) noexcept {
#ifdef TPACF_HAVE_AVX512_KERNEL
    if (avx512)
        return countTileAvx512Weighted;
#else
    (void)avx512;
#endif
    return countTilePortableWeighted;
}

void addWeightedCopies(double* copies, std::size_t slots, double* into) noexcept {
    for (std::size_t s = 0; s < slots; ++s) {
        double unit = 0;
        for (std::size_t copy = 0; copy < kHistogramCopies; ++copy) {
            unit += copies[copy * slots + s];
            copies[copy * slots + s] = 0;
        }
        into[s] += unit;
    }
}

} // namespace tpacf::cpu
