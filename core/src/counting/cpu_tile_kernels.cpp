// SPDX-License-Identifier: GPL-3.0-or-later
#include "counting/cpu_tile_kernels.h"

#include <algorithm>
#include <bit>

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

namespace tpacf::cpu {

namespace {

// Squared chords are computed for this many j at a time, then binned.
constexpr std::size_t kChunk = 256;
static_assert(kChunk % 8 == 0, "the AVX-512 kernel stores whole vectors of 8");

// Adds n binned pairs to the histogram copies. `slot` holds the guess after its one comparison,
// with the kMultiEdgeCell flag where more comparisons are needed.
inline void addSlots(const double* __restrict c2, const std::uint32_t* __restrict slot,
                     std::size_t n, const double* __restrict thresholds, std::size_t slots,
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
inline void addSlotsWeighted(const double* __restrict c2, const std::uint32_t* __restrict slot,
                             std::size_t n, const double* __restrict thresholds, std::size_t slots,
                             std::uint32_t* __restrict histogram, double wi,
                             const double* __restrict wj, double* __restrict weighted) {
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

// The portable kernel: counts pairs (i in [i0, i1) of a) x (j in [j0, j1) of b) into
// `histogram` (kHistogramCopies copies of `slots` slots, one after the other). `diagonal`: a == b
// on the same range, so only j > i. The squared chord is the contract's arithmetic, in its
// order: dx, dy, dz, then (dx² + dy²) + dz², each operation rounded on its own (core is built
// with -ffp-contract=off); the GPU double kernel does the same. That loop vectorises over j.
// Weighted: the same, and the weights' products through addSlotsWeighted (`weighted` unused
// otherwise: the plain instantiation is the plain kernel).
template <bool Weighted>
void countTilePortableOf(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
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

void countTilePortable(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                       std::size_t j0, std::size_t j1, bool diagonal, const SlotLookup& lookup,
                       std::uint32_t* histogram) {
    countTilePortableOf<false>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, nullptr);
}

void countTilePortableWeighted(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                               std::size_t j0, std::size_t j1, bool diagonal,
                               const SlotLookup& lookup, std::uint32_t* histogram,
                               double* weighted) {
    countTilePortableOf<true>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, weighted);
}

#ifdef TPACF_HAVE_AVX512_KERNEL
// The same with AVX-512 (8 pairs a step, gathers for the table reads). Same operations in the
// same order on each lane, each rounded as in the portable kernel, so the counts are identical.
template <bool Weighted, bool Packed>
__attribute__((target("avx512f"))) void
countTileAvx512Of(const Points& a, std::size_t i0, std::size_t i1, const Points& b, std::size_t j0,
                  std::size_t j1, bool diagonal, const SlotLookup& lookup,
                  std::uint32_t* __restrict histogram, double* __restrict weighted) {
    const std::size_t slots = lookup.slotCount();
    const double* __restrict thresholds = lookup.m_thresholds.data();
    const std::uint32_t* __restrict guessTable = lookup.m_guess.data();
    const __m128i shift = _mm_cvtsi64_si128(static_cast<long long>(lookup.m_shift));
    const __m512i baseCell = _mm512_set1_epi64(static_cast<long long>(lookup.m_baseCell));
    const __m512i lastCell = _mm512_set1_epi64(lookup.m_lastCell);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi64(1);
    const double* __restrict cellThreshold = lookup.m_cellThreshold.data();
    const long long* __restrict packedTable =
        reinterpret_cast<const long long*>(lookup.m_packed.data());
    const __m128i offsetBits = _mm_cvtsi64_si128(static_cast<long long>(lookup.m_shift + 1));
    const __m512i offsetMask =
        _mm512_set1_epi64(static_cast<long long>((std::uint64_t{2} << lookup.m_shift) - 1));
    const __m512i multiFlag = _mm512_set1_epi64(static_cast<long long>(kMultiEdgeCell));
    // Plain counts keep only the pairs inside the bins: the slots below and above them are
    // dropped by every caller, so those pairs need no table lookup and no histogram increment
    // (at small or large θ most pairs of a run lie outside). Weighted counts keep every pair:
    // their summation order (cpu_tile_kernels.h) puts pair k of a chunk in copy k mod 4.
    const __m512d firstEdge = _mm512_set1_pd(thresholds[0]);
    const __m512d lastEdge = _mm512_set1_pd(thresholds[lookup.m_edgeCount - 1]);
    // Compressed stores write whole vectors at the running end: 8 lanes of slack.
    alignas(64) double c2[kChunk + 8];
    alignas(64) std::uint32_t slot[kChunk + 8];
    for (std::size_t i = i0; i < i1; ++i) {
        const __m512d xi = _mm512_set1_pd(a.x[i]);
        const __m512d yi = _mm512_set1_pd(a.y[i]);
        const __m512d zi = _mm512_set1_pd(a.z[i]);
        for (std::size_t jc = diagonal ? i + 1 : j0; jc < j1; jc += kChunk) {
            std::size_t n = std::min(kChunk, j1 - jc);
            std::size_t kept = 0; // plain counts: pairs inside the bins, compressed to the front
            for (std::size_t k = 0; k < n; k += 8) {
                __mmask8 lanes = n - k >= 8 ? __mmask8(0xff) : __mmask8((1u << (n - k)) - 1u);
                const __m512d dx = _mm512_sub_pd(xi, _mm512_maskz_loadu_pd(lanes, b.x + jc + k));
                const __m512d dy = _mm512_sub_pd(yi, _mm512_maskz_loadu_pd(lanes, b.y + jc + k));
                const __m512d dz = _mm512_sub_pd(zi, _mm512_maskz_loadu_pd(lanes, b.z + jc + k));
                const __m512d d2 =
                    _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                                  _mm512_mul_pd(dz, dz));
                if constexpr (!Weighted) {
                    lanes = _mm512_mask_cmp_pd_mask(lanes, d2, firstEdge, _CMP_GE_OQ);
                    lanes = _mm512_mask_cmp_pd_mask(lanes, d2, lastEdge, _CMP_LT_OQ);
                    if (lanes == 0)
                        continue;
                }
                const __m512i bits = _mm512_castpd_si512(d2);
                __m512i cell = _mm512_sub_epi64(_mm512_srl_epi64(bits, shift), baseCell);
                cell = _mm512_min_epi64(_mm512_max_epi64(cell, zero), lastCell);
                __m512i result;
                if constexpr (Packed) {
                    // One gather: the guess and the threshold's offset in the cell (SlotLookup).
                    const __m512i entry =
                        _mm512_mask_i64gather_epi64(zero, lanes, cell, packedTable, 8);
                    const __m512i first = _mm512_sll_epi64(_mm512_add_epi64(cell, baseCell), shift);
                    const __mmask8 above = _mm512_cmpge_epi64_mask(
                        _mm512_sub_epi64(bits, first), _mm512_and_si512(entry, offsetMask));
                    const __m512i tagged = _mm512_srl_epi64(entry, offsetBits);
                    // (slot << 1 | flag) → slot | flag << 31, the unpacked guess.
                    const __m512i guess =
                        _mm512_or_si512(_mm512_srli_epi64(tagged, 1),
                                        _mm512_and_si512(_mm512_slli_epi64(tagged, 31), multiFlag));
                    result = _mm512_mask_add_epi64(guess, above, guess, one);
                } else {
                    const __m512i guess = _mm512_cvtepu32_epi64(_mm512_mask_i64gather_epi32(
                        _mm256_setzero_si256(), lanes, cell, guessTable, 4));
                    const __m512d threshold = _mm512_mask_i64gather_pd(_mm512_setzero_pd(), lanes,
                                                                       cell, cellThreshold, 8);
                    const __mmask8 above = _mm512_cmp_pd_mask(d2, threshold, _CMP_GE_OQ);
                    result = _mm512_mask_add_epi64(guess, above, guess, one);
                }
                if constexpr (Weighted) {
                    // Whole-vector stores stay inside the buffers (kChunk is a multiple of 8);
                    // lanes past n are never read.
                    _mm512_store_pd(c2 + k, d2);
                    _mm256_store_si256(reinterpret_cast<__m256i*>(slot + k),
                                       _mm512_cvtepi64_epi32(result));
                } else {
                    // Register compress, then a whole store (a compressing store to memory is
                    // microcoded and slow on some processors); lanes past `kept` are never read.
                    _mm512_storeu_pd(c2 + kept, _mm512_maskz_compress_pd(lanes, d2));
                    _mm256_storeu_si256(
                        reinterpret_cast<__m256i*>(slot + kept),
                        _mm512_cvtepi64_epi32(_mm512_maskz_compress_epi64(lanes, result)));
                    kept += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(lanes)));
                }
            }
            if constexpr (!Weighted)
                n = kept;
            if constexpr (Weighted)
                addSlotsWeighted(c2, slot, n, thresholds, slots, histogram, a.w[i], b.w + jc,
                                 weighted);
            else
                addSlots(c2, slot, n, thresholds, slots, histogram);
        }
    }
}

__attribute__((target("avx512f"))) void
countTileAvx512(const Points& a, std::size_t i0, std::size_t i1, const Points& b, std::size_t j0,
                std::size_t j1, bool diagonal, const SlotLookup& lookup, std::uint32_t* histogram) {
    if (lookup.packed())
        countTileAvx512Of<false, true>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, nullptr);
    else
        countTileAvx512Of<false, false>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, nullptr);
}

__attribute__((target("avx512f"))) void
countTileAvx512Weighted(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                        std::size_t j0, std::size_t j1, bool diagonal, const SlotLookup& lookup,
                        std::uint32_t* histogram, double* weighted) {
    if (lookup.packed())
        countTileAvx512Of<true, true>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, weighted);
    else
        countTileAvx512Of<true, false>(a, i0, i1, b, j0, j1, diagonal, lookup, histogram, weighted);
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
