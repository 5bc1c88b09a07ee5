// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA multi-tau correlator's kernels (multitau_kernels.cu), declared without CUDA types so
// that the host side (cuda_correlator.cpp) compiles as plain C++. Layouts are channel-minor
// (frame or sample m of channel c at m * C + c), as the frames arrive.
#include <cstddef>
#include <cstdint>

namespace tpacf::cuda::detail::fcs {

/// Lags per level the kernels are built for (the register window is unrolled at compile time).
bool kernelSupportsLags(int lagsPerLevel) noexcept;

/// One level's pass over `count` new samples of every channel. `history` (P x C, oldest first:
/// row P-1 is the sample just before this pass) holds each channel's last P samples before the
/// pass, `historyOut` receives those after it (two buffers: the pass's segments run at once);
/// `products` (P x C, row j = lag j) and `sums` (C) are added to. Lags [firstLag, P) are counted.
/// Level 0 reads bytes (`samples8`), the others 32-bit coalesced samples (`samples32`); exactly
/// one is non-null. Exact: 64-bit sums of 32-bit products of level 0, 64-bit products above.
struct LevelPass {
    int lagsPerLevel = 32;
    int firstLag = 0;
    std::uint64_t coalescedFrames = 1; ///< 2^level: frames summed in one sample of the level
    std::size_t channels = 0;
    std::size_t count = 0; ///< new samples per channel
    const std::uint8_t* samples8 = nullptr;
    const std::uint32_t* samples32 = nullptr;
    const std::uint32_t* history = nullptr;
    std::uint32_t* historyOut = nullptr;
    unsigned long long* products = nullptr;
    unsigned long long* sums = nullptr;
};
/// Enqueues the pass on `stream` (a cudaStream_t). Throws CudaError.
void launchLevelPass(const LevelPass& pass, void* stream);

/// Coalesces `count` samples of every channel (bytes or 32-bit, one of them non-null) into
/// pairs: with `pendingIn` (a sample held from the previous chunk of this level, per channel, in
/// `pendingRead`), out[m] = in'[2m] + in'[2m+1] over in' = [pending?, in...]; an odd leftover goes
/// to `pendingWrite` (per channel). The counts are the same for every channel: the host keeps them.
struct CoalescePass {
    std::size_t channels = 0;
    std::size_t count = 0;
    bool pendingIn = false;  ///< pending[c] holds a sample that comes first
    bool pendingOut = false; ///< the last sample is left over into pending[c]
    const std::uint8_t* in8 = nullptr;
    const std::uint32_t* in32 = nullptr;
    const std::uint32_t* pendingRead = nullptr; ///< C values
    std::uint32_t* pendingWrite = nullptr;      ///< C values (another buffer than pendingRead)
    std::uint32_t* out = nullptr;               ///< (pendingIn + count) / 2 samples x C
};
void launchCoalesce(const CoalescePass& pass, void* stream);

} // namespace tpacf::cuda::detail::fcs
