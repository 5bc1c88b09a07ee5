// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The multi-tau level-pass kernels (device code, included by the multitau_levels_pN.cu units
// only). Each thread takes one channel over one segment of a level's new samples (channel
// fastest, so a warp reads 32 neighbouring bytes or words of one frame), holds the P samples
// before the segment and the next P in a register window that the unrolled loops index at
// compile time, and adds its privately accumulated lag products to the level's 64-bit counters
// once at the end (atomicAdd: segments of one channel meet there). Level 0 multiplies bytes
// (products <= 255^2): 32-bit private sums are exact for segments of up to 65,536 samples; the
// coalesced levels multiply 32-bit sums into 64 bits.
//
// The window is unrolled P x (new samples a step): each P is compiled in a unit of its own
// (multitau_levels_p8.cu ... _p64.cu), which a parallel build runs side by side.
#include "multitau_kernels.h"

#include "cuda_check.h"

#include <algorithm>
#include <string>
#include <type_traits>

namespace tpacf::cuda::detail::fcs {

namespace {

constexpr int kBlock = 128;
/// Threads a level pass aims at: enough segments x channels to fill an H100's 132 SMs several
/// times over, few enough that each thread amortises its window loads and final atomics.
constexpr std::size_t kTargetThreads = std::size_t{1} << 18;
/// Level 0's private 32-bit sums hold 65,536 products of two bytes.
constexpr std::size_t kMaxLevel0Segment = 65536;
/// New samples a step of a level pass takes into the window: all P up to P = 32; for P = 64,
/// 32 at a time (the window then shifts by 32 registers every 32 samples, an eighth more
/// instructions for the coalesced levels), which halves the unrolled body and takes the unit's
/// compile from minutes to about as long as P = 32. Segment lengths are multiples of P, so of
/// this too.
template <int P> constexpr int kNewSamplesPerStep = P < 32 ? P : 32;

template <int P, bool Level0, bool Wide>
__global__ void __launch_bounds__(kBlock)
    levelPassKernel(const std::uint8_t* __restrict__ samples8,
                    const std::uint32_t* __restrict__ samples32, std::size_t count,
                    std::size_t channels, std::size_t segmentLength, std::size_t segments,
                    const std::uint32_t* __restrict__ history,
                    std::uint32_t* __restrict__ historyOut,
                    unsigned long long* __restrict__ products,
                    unsigned long long* __restrict__ sums) {
    // Private sums in 32 bits where the host has seen that the segment's products fit (level 0,
    // and the low coalesced levels), else 64.
    using Acc = std::conditional_t<Wide, unsigned long long, std::uint32_t>;
    constexpr int kFirstLag = Level0 ? 0 : P / 2;
    constexpr int kLags = P - kFirstLag;
    const std::size_t thread = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    const std::size_t c = thread % channels;
    const std::size_t segment = thread / channels;
    if (segment >= segments)
        return;
    const auto load = [&](std::size_t m) -> std::uint32_t {
        return Level0 ? static_cast<std::uint32_t>(samples8[m * channels + c])
                      : samples32[m * channels + c];
    };
    const std::size_t begin = segment * segmentLength;
    const std::size_t end = begin + segmentLength < count ? begin + segmentLength : count;

    // w[0..P-1]: the P samples before the segment, oldest first (from the history before the
    // pass where the segment starts less than P samples in); w[P..P+B-1]: the next B.
    constexpr int B = kNewSamplesPerStep<P>;
    std::uint32_t w[P + B];
#pragma unroll
    for (int i = 0; i < P; ++i) {
        const std::ptrdiff_t r = static_cast<std::ptrdiff_t>(begin) - P + i;
        w[i] = r >= 0 ? load(static_cast<std::size_t>(r))
                      : history[static_cast<std::size_t>(P + r) * channels + c];
    }
    Acc acc[kLags]; // acc[j - kFirstLag]: lag j
#pragma unroll
    for (int j = 0; j < kLags; ++j)
        acc[j] = 0;
    unsigned long long sum = 0;

    std::size_t m = begin;
    for (; m + B <= end; m += B) {
#pragma unroll
        for (int i = 0; i < B; ++i)
            w[P + i] = load(m + i);
#pragma unroll
        for (int i = 0; i < B; ++i) {
            const std::uint32_t x = w[P + i];
            sum += x;
#pragma unroll
            for (int j = kFirstLag; j < P; ++j)
                acc[j - kFirstLag] += static_cast<Acc>(x) * w[P + i - j];
        }
#pragma unroll
        for (int i = 0; i < P; ++i)
            w[i] = w[B + i];
    }
    // The last samples, fewer than B: one at a time, the window shifted by one each.
    for (; m < end; ++m) {
        const std::uint32_t x = load(m);
        sum += x;
        if (kFirstLag == 0)
            acc[0] += static_cast<Acc>(x) * x;
#pragma unroll
        for (int j = (kFirstLag > 1 ? kFirstLag : 1); j < P; ++j)
            acc[j - kFirstLag] += static_cast<Acc>(x) * w[P - j];
#pragma unroll
        for (int i = 0; i + 1 < P; ++i)
            w[i] = w[i + 1];
        w[P - 1] = x;
    }

#pragma unroll
    for (int j = kFirstLag; j < P; ++j)
        if (acc[j - kFirstLag] != 0)
            atomicAdd(&products[static_cast<std::size_t>(j) * channels + c],
                      static_cast<unsigned long long>(acc[j - kFirstLag]));
    if (sum != 0)
        atomicAdd(&sums[c], sum);
    // The segment that ends the pass leaves the last P samples for the next one.
    if (segment + 1 == segments) {
#pragma unroll
        for (int i = 0; i < P; ++i)
            historyOut[static_cast<std::size_t>(i) * channels + c] = w[i];
    }
}

// Level 0 with the bytes packed four to a word: four consecutive frames of one channel, the
// oldest in the low byte. The product sum of a lag j = 4q + s over four new frames is one __dp4a
// of the new word with the word of the frames j earlier, which is a stored word (s = 0) or a
// byte_perm of two neighbouring ones (s = 1..3); the three shifted copies of each word are made
// once when it arrives and then move along the window with it. Four products per instruction
// instead of one, exact in the same 32-bit private sums.
template <int P>
__global__ void __launch_bounds__(kBlock)
    level0PackedKernel(const std::uint8_t* __restrict__ samples, std::size_t count,
                       std::size_t channels, std::size_t segmentLength, std::size_t segments,
                       const std::uint32_t* __restrict__ history,
                       std::uint32_t* __restrict__ historyOut,
                       unsigned long long* __restrict__ products,
                       unsigned long long* __restrict__ sums) {
    static_assert(P % 4 == 0);
    constexpr int Q = P / 4;
    constexpr int BQ = kNewSamplesPerStep<P> / 4; // new words a step
    const std::size_t thread = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    const std::size_t c = thread % channels;
    const std::size_t segment = thread / channels;
    if (segment >= segments)
        return;
    const auto load = [&](std::size_t m) -> std::uint32_t {
        return static_cast<std::uint32_t>(samples[m * channels + c]);
    };
    const auto pack = [](std::uint32_t x0, std::uint32_t x1, std::uint32_t x2, std::uint32_t x3) {
        return __byte_perm(__byte_perm(x0, x1, 0x0040), __byte_perm(x2, x3, 0x0040), 0x5410);
    };
    // shifted<s>(older, newer): the four frames starting s frames before `newer`'s first.
    constexpr unsigned kShift[4] = {0, 0x6543, 0x5432, 0x4321};
    const std::size_t begin = segment * segmentLength; // a multiple of P
    const std::size_t end = begin + segmentLength < count ? begin + segmentLength : count;

    // W[0..Q-1]: the P frames before the segment; W[Q..Q+BQ-1]: the next 4 BQ. T[s][k]: W[k]
    // shifted back by s frames (valid for k >= 1).
    std::uint32_t W[Q + BQ], T[4][Q + BQ];
#pragma unroll
    for (int k = 0; k < Q; ++k) {
        std::uint32_t x[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const std::ptrdiff_t r = static_cast<std::ptrdiff_t>(begin) - P + 4 * k + i;
            x[i] = r >= 0 ? load(static_cast<std::size_t>(r))
                          : history[static_cast<std::size_t>(P + r) * channels + c];
        }
        W[k] = pack(x[0], x[1], x[2], x[3]);
    }
#pragma unroll
    for (int k = 1; k < Q; ++k)
#pragma unroll
        for (int s = 1; s < 4; ++s)
            T[s][k] = __byte_perm(W[k - 1], W[k], kShift[s]);
    std::uint32_t acc[P];
#pragma unroll
    for (int j = 0; j < P; ++j)
        acc[j] = 0;
    std::uint32_t sum = 0;

    std::size_t m = begin;
    for (; m + 4 * BQ <= end; m += 4 * BQ) {
#pragma unroll
        for (int k = 0; k < BQ; ++k)
            W[Q + k] = pack(load(m + 4 * k), load(m + 4 * k + 1), load(m + 4 * k + 2),
                            load(m + 4 * k + 3));
#pragma unroll
        for (int k = Q; k < Q + BQ; ++k) {
#pragma unroll
            for (int s = 1; s < 4; ++s)
                T[s][k] = __byte_perm(W[k - 1], W[k], kShift[s]);
            sum = __dp4a(W[k], 0x01010101u, sum);
#pragma unroll
            for (int q = 0; q < Q; ++q) {
                acc[4 * q] = __dp4a(W[k], W[k - q], acc[4 * q]);
#pragma unroll
                for (int s = 1; s < 4; ++s)
                    acc[4 * q + s] = __dp4a(W[k], T[s][k - q], acc[4 * q + s]);
            }
        }
#pragma unroll
        for (int k = 0; k < Q; ++k) {
            W[k] = W[BQ + k];
#pragma unroll
            for (int s = 1; s < 4; ++s)
                T[s][k] = T[s][BQ + k];
        }
    }
    // The last frames, fewer than 4 BQ: one at a time on the unpacked window.
    std::uint32_t w[P];
#pragma unroll
    for (int i = 0; i < P; ++i)
        w[i] = (W[i / 4] >> (8 * (i % 4))) & 0xffu;
    for (; m < end; ++m) {
        const std::uint32_t x = load(m);
        sum += x;
        acc[0] += x * x;
#pragma unroll
        for (int j = 1; j < P; ++j)
            acc[j] += x * w[P - j];
#pragma unroll
        for (int i = 0; i + 1 < P; ++i)
            w[i] = w[i + 1];
        w[P - 1] = x;
    }

#pragma unroll
    for (int j = 0; j < P; ++j)
        if (acc[j] != 0)
            atomicAdd(&products[static_cast<std::size_t>(j) * channels + c],
                      static_cast<unsigned long long>(acc[j]));
    if (sum != 0)
        atomicAdd(&sums[c], static_cast<unsigned long long>(sum));
    if (segment + 1 == segments) {
#pragma unroll
        for (int i = 0; i < P; ++i)
            historyOut[static_cast<std::size_t>(i) * channels + c] = w[i];
    }
}

} // namespace

/// The pass for P lags per level (instantiated in multitau_levels_pP.cu).
template <int P> void launchFor(const LevelPass& pass, cudaStream_t stream) {
    const bool level0 = pass.samples8 != nullptr;
    std::size_t segmentLength = (pass.count * pass.channels + kTargetThreads - 1) / kTargetThreads;
    // At least 4P samples at level 0; the coalesced levels, with few samples a chunk, go down
    // to P (the window's own length): there a thread's samples run one after another, so more
    // and shorter segments finish sooner (measured: ~55 us a level pass at 4P on an H100,
    // whatever its size).
    segmentLength = std::max<std::size_t>(segmentLength, level0 ? 4 * P : P);
    segmentLength = (segmentLength + P - 1) / P * P;
    if (level0)
        segmentLength = std::min(segmentLength, kMaxLevel0Segment);
    const std::size_t segments = (pass.count + segmentLength - 1) / segmentLength;
    const std::size_t threads = segments * pass.channels;
    const auto blocks = static_cast<unsigned>((threads + kBlock - 1) / kBlock);
    // A sample of level k is at most 255 * 2^k: 32-bit private sums hold a segment's products
    // while 255^2 * 4^k * length < 2^32 (with k = log2 of the largest coalesced sample).
    const double largest = 255.0 * static_cast<double>(pass.coalescedFrames);
    const bool wide = largest * largest * static_cast<double>(segmentLength) >= 4294967295.0;
    if (level0)
        level0PackedKernel<P><<<blocks, kBlock, 0, stream>>>(
            pass.samples8, pass.count, pass.channels, segmentLength, segments, pass.history,
            pass.historyOut, pass.products, pass.sums);
    else if (!wide)
        levelPassKernel<P, false, false><<<blocks, kBlock, 0, stream>>>(
            nullptr, pass.samples32, pass.count, pass.channels, segmentLength, segments,
            pass.history, pass.historyOut, pass.products, pass.sums);
    else
        levelPassKernel<P, false, true><<<blocks, kBlock, 0, stream>>>(
            nullptr, pass.samples32, pass.count, pass.channels, segmentLength, segments,
            pass.history, pass.historyOut, pass.products, pass.sums);
    TPACF_CUDA_CHECK_LAUNCH("multi-tau level pass");
}

} // namespace tpacf::cuda::detail::fcs
