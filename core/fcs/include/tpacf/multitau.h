// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Multi-tau autocorrelation of photon-count streams (fluorescence correlation spectroscopy): C
// channels, each delivering one count (0-255) per frame, correlated in a streaming fashion. The
// correlator is defined exactly in docs/fcs-multitau.md; every backend (the CPU reference here,
// CUDA in kernels/fcs/, offered through a CorrelatorProvider the programs register) follows it
// and gives identical integer sums.
//
// Definition (P lags per level, L levels): level 0 uses the raw series y[n], lags j = 0 .. P-1;
// level k >= 1 uses the coalesced series y_k[m] = sum_{i < 2^k} y[m 2^k + i], lags
// j = P/2 .. P-1 (tau = j 2^k frames). Over the M_k complete coalesced samples seen so far,
// A_k(j) = sum_{m=j}^{M_k-1} y_k[m] y_k[m-j] (exact, 64-bit) and S_k = sum_m y_k[m];
// G(tau) = [A_k(j) / (M_k - j)] / (S_k / M_k)^2 - 1.
#include "tpacf/provider_registry.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tpacf::fcs {

/// The shape of the correlator: P lags per level (even, >= 2) and L levels (>= 1).
struct MultiTauSettings {
    int lagsPerLevel = 32;
    int levels = 12;

    /// Throws ConfigError naming the bad value (P odd or < 2, P > 1024, L < 1, L > 40).
    void validate() const;
    /// The first lag index of a level: 0 for level 0, P/2 above.
    int firstLag(int level) const noexcept { return level == 0 ? 0 : lagsPerLevel / 2; }
    bool operator==(const MultiTauSettings&) const = default;
};

/// One lag of the correlator: its level, its index j and tau = j 2^level frames.
struct Lag {
    int level = 0;
    int j = 0;
    std::uint64_t tauFrames = 0;
};

/// Every lag of the settings in order of tau (level 0's P lags, then P/2 per level).
std::vector<Lag> lagsOf(const MultiTauSettings& settings);

struct MultiTauCounts;
/// The counts of `channels` channels before any frame: every vector sized for the settings,
/// every sum 0. What a backend starts from and fills.
MultiTauCounts emptyCounts(const MultiTauSettings& settings, std::size_t channels);

/// The exact sums of a correlator after some frames: what every backend must agree on.
struct MultiTauCounts {
    MultiTauSettings settings;
    std::size_t channels = 0;
    std::uint64_t frames = 0; ///< frames fed so far
    /// M_k: complete coalesced samples of level k (the same for every channel), per level.
    std::vector<std::uint64_t> samples;
    /// S_k per channel and level (channels x levels, row-major by channel).
    std::vector<std::uint64_t> sums;
    /// A_k(j) per channel, level and lag index j in [0, P) (channels x levels x P, row-major);
    /// j below firstLag(k) is unused and 0.
    std::vector<std::uint64_t> products;

    std::uint64_t product(std::size_t channel, int level, int j) const noexcept {
        return products[(channel * static_cast<std::size_t>(settings.levels) +
                         static_cast<std::size_t>(level)) *
                            static_cast<std::size_t>(settings.lagsPerLevel) +
                        static_cast<std::size_t>(j)];
    }
    std::uint64_t sum(std::size_t channel, int level) const noexcept {
        return sums[channel * static_cast<std::size_t>(settings.levels) +
                    static_cast<std::size_t>(level)];
    }
    /// G(tau) of a channel at lag (level, j); NaN where M_k <= j or S_k = 0.
    double g(std::size_t channel, int level, int j) const noexcept;
    /// G averaged over the channels where it is defined; NaN where none.
    double meanG(int level, int j) const noexcept;
    bool operator==(const MultiTauCounts&) const = default;
};

/// A streaming multi-tau correlator of C channels. Frames are frame-major: frame n holds one
/// byte per channel, channel c at n * C + c.
class MultiTauCorrelator {
public:
    virtual ~MultiTauCorrelator() = default;

    /// "cpu" or "cuda".
    virtual std::string backendName() const = 0;
    /// e.g. "CPU, 16 threads" or "NVIDIA H100 80GB HBM3".
    virtual std::string deviceDescription() const = 0;
    virtual std::size_t channels() const noexcept = 0;
    virtual const MultiTauSettings& settings() const noexcept = 0;

    /// Feeds whole frames (frames.size() a multiple of channels(), else ConfigError); the state
    /// carries across calls, so feeding a series in chunks of any size gives the counts of one
    /// pass over it.
    virtual void feed(std::span<const std::uint8_t> frames) = 0;
    /// The sums so far (complete coalesced samples only).
    virtual MultiTauCounts counts() const = 0;
    /// Seconds the device spent counting since the correlator was made (GPU-timed kernels, not
    /// the copies of the frames to it), where the backend measures it; nullopt otherwise.
    virtual std::optional<double> deviceSeconds() const { return std::nullopt; }
};

/// The CPU reference correlator over `threads` threads (0: all; channels are split across
/// them). Throws ConfigError for bad settings or channels == 0.
std::unique_ptr<MultiTauCorrelator> makeCpuCorrelator(const MultiTauSettings& settings,
                                                      std::size_t channels, int threads = 0);

/// A correlator beside the CPU's (the CUDA one), registered by the programs in a
/// CorrelatorRegistry beside their backends. The queries never throw.
class CorrelatorProvider {
public:
    virtual ~CorrelatorProvider() = default;
    /// Lower-case, unique in a registry: what --backend and the FCS window call it ("cuda").
    virtual std::string name() const = 0;
    /// For messages ("CUDA unavailable: ...").
    virtual std::string displayName() const = 0;
    /// Why it cannot correlate here ("" when it can): no device, built without it.
    virtual std::string unavailableReason() const = 0;
    /// A correlator on the first of `deviceIndices` (empty: the first device; a stream is one
    /// sequence, counted in order). Throws BackendUnavailable or ConfigError.
    virtual std::unique_ptr<MultiTauCorrelator> create(const MultiTauSettings& settings,
                                                       std::size_t channels,
                                                       const std::vector<int>& deviceIndices) const = 0;
};

/// The correlators a program offers beside the CPU's, in the order "auto" tries them.
using CorrelatorRegistry = ProviderRegistry<CorrelatorProvider>;

} // namespace tpacf::fcs
