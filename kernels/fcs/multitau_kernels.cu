// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA multi-tau correlator's launches: the level passes (kernels in multitau_levels.cuh, one
// unit per lags-per-level P) and the coalescing of a level's samples into the next.
#include "multitau_kernels.h"

#include "cuda_check.h"

#include <algorithm>
#include <string>
#include <type_traits>

namespace tpacf::cuda::detail::fcs {

// Each instantiation lives in its own unit (multitau_levels.cuh says why).
template <int P> void launchFor(const LevelPass& pass, cudaStream_t stream);
extern template void launchFor<8>(const LevelPass&, cudaStream_t);
extern template void launchFor<16>(const LevelPass&, cudaStream_t);
extern template void launchFor<32>(const LevelPass&, cudaStream_t);
extern template void launchFor<64>(const LevelPass&, cudaStream_t);

namespace {

constexpr int kBlock = 128;

__global__ void coalesceKernel(const std::uint8_t* __restrict__ in8,
                               const std::uint32_t* __restrict__ in32, std::size_t count,
                               std::size_t channels, bool pendingIn, bool pendingOut,
                               const std::uint32_t* __restrict__ pendingRead,
                               std::uint32_t* __restrict__ pendingWrite,
                               std::uint32_t* __restrict__ out, std::size_t outCount) {
    const std::size_t thread = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    const std::size_t c = thread % channels;
    const std::size_t m = thread / channels;
    const auto value = [&](std::size_t index) -> std::uint32_t {
        if (pendingIn) {
            if (index == 0)
                return pendingRead[c];
            --index;
        }
        return in8 ? static_cast<std::uint32_t>(in8[index * channels + c])
                   : in32[index * channels + c];
    };
    if (m < outCount)
        out[m * channels + c] = value(2 * m) + value(2 * m + 1);
    else if (m == outCount && pendingOut)
        pendingWrite[c] = value(2 * m);
}

// The same for four neighbouring channels a thread (channels a multiple of 4): one 4- or 16-byte
// load per input row and one 16-byte store, which the one-channel kernel's byte loads and word
// stores leave at a fraction of the memory bandwidth.
__global__ void coalesce4Kernel(const std::uint8_t* __restrict__ in8,
                                const std::uint32_t* __restrict__ in32, std::size_t channels,
                                bool pendingIn, bool pendingOut,
                                const std::uint32_t* __restrict__ pendingRead,
                                std::uint32_t* __restrict__ pendingWrite,
                                std::uint32_t* __restrict__ out, std::size_t outCount) {
    const std::size_t thread = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    const std::size_t groups = channels / 4;
    const std::size_t c = thread % groups * 4;
    const std::size_t m = thread / groups;
    const auto value = [&](std::size_t index) -> uint4 {
        if (pendingIn) {
            if (index == 0)
                return *reinterpret_cast<const uint4*>(pendingRead + c);
            --index;
        }
        if (in8) {
            const uchar4 b = *reinterpret_cast<const uchar4*>(in8 + index * channels + c);
            return make_uint4(b.x, b.y, b.z, b.w);
        }
        return *reinterpret_cast<const uint4*>(in32 + index * channels + c);
    };
    if (m < outCount) {
        const uint4 a = value(2 * m), b = value(2 * m + 1);
        *reinterpret_cast<uint4*>(out + m * channels + c) =
            make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    } else if (m == outCount && pendingOut) {
        *reinterpret_cast<uint4*>(pendingWrite + c) = value(2 * m);
    }
}

} // namespace

bool kernelSupportsLags(int lagsPerLevel) noexcept {
    return lagsPerLevel == 8 || lagsPerLevel == 16 || lagsPerLevel == 32 || lagsPerLevel == 64;
}

void launchLevelPass(const LevelPass& pass, void* stream) {
    if (pass.count == 0 || pass.channels == 0)
        return;
    const auto s = static_cast<cudaStream_t>(stream);
    switch (pass.lagsPerLevel) {
    case 8:
        return launchFor<8>(pass, s);
    case 16:
        return launchFor<16>(pass, s);
    case 32:
        return launchFor<32>(pass, s);
    case 64:
        return launchFor<64>(pass, s);
    default:
        throw CudaError("the CUDA multi-tau kernels have no build for " +
                            std::to_string(pass.lagsPerLevel) + " lags per level",
                        0);
    }
}

void launchCoalesce(const CoalescePass& pass, void* stream) {
    const std::size_t total = pass.count + (pass.pendingIn ? 1 : 0);
    const std::size_t outCount = total / 2;
    const std::size_t rows = outCount + (pass.pendingOut ? 1 : 0);
    if (rows == 0 || pass.channels == 0)
        return;
    const bool byFour = pass.channels % 4 == 0;
    const std::size_t threads = rows * (byFour ? pass.channels / 4 : pass.channels);
    const auto blocks = static_cast<unsigned>((threads + kBlock - 1) / kBlock);
    if (byFour)
        coalesce4Kernel<<<blocks, kBlock, 0, static_cast<cudaStream_t>(stream)>>>(
            pass.in8, pass.in32, pass.channels, pass.pendingIn, pass.pendingOut, pass.pendingRead,
            pass.pendingWrite, pass.out, outCount);
    else
        coalesceKernel<<<blocks, kBlock, 0, static_cast<cudaStream_t>(stream)>>>(
            pass.in8, pass.in32, pass.count, pass.channels, pass.pendingIn, pass.pendingOut,
            pass.pendingRead, pass.pendingWrite, pass.out, outCount);
    TPACF_CUDA_CHECK_LAUNCH("multi-tau coalesce");
}

} // namespace tpacf::cuda::detail::fcs
