// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, the multi-tau correlator of photon streams (multitau.h): the CUDA correlator's exact
// sums (A_k(j), S_k, M_k) against a brute force on the explicitly coalesced series (docs/
// fcs-multitau.md), and against the CPU reference correlator; streaming in chunks of 1, 7, 4096
// and odd sizes equals one pass; chunks larger than the correlator's own upload chunk; bytes up
// to 255; P = 8, 16, 32, 64 and L from 1 to 14; the settings it refuses. Plain executable.
// Exit 0: all passed; 1: a failure; 77: skipped.
#include "gpu_test_support.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/cuda/cuda_correlator.h"
#include "tpacf/errors.h"
#include "tpacf/multitau.h"

#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

/// Frame-major bytes: `frames` frames of `channels` channels. Poisson counts of a rate that
/// differs per channel, with bursts to 255 now and then (the largest products).
std::vector<std::uint8_t> makeFrames(std::size_t frames, std::size_t channels, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> bytes(frames * channels);
    std::vector<std::poisson_distribution<int>> rates;
    for (std::size_t c = 0; c < channels; ++c)
        rates.emplace_back(0.5 + static_cast<double>(c % 17));
    std::uniform_int_distribution<int> burst(0, 999);
    for (std::size_t n = 0; n < frames; ++n)
        for (std::size_t c = 0; c < channels; ++c)
            bytes[n * channels + c] =
                burst(rng) == 0 ? 255 : static_cast<std::uint8_t>(std::min(255, rates[c](rng)));
    return bytes;
}

/// The definition, directly: per channel the coalesced series of every level, then the sums.
fcs::MultiTauCounts bruteForce(const std::vector<std::uint8_t>& bytes, std::size_t channels,
                               const fcs::MultiTauSettings& settings) {
    const std::size_t frames = bytes.size() / channels;
    const auto p = static_cast<std::size_t>(settings.lagsPerLevel);
    const auto levels = static_cast<std::size_t>(settings.levels);
    fcs::MultiTauCounts out;
    out.settings = settings;
    out.channels = channels;
    out.frames = frames;
    out.samples.resize(levels);
    out.sums.assign(channels * levels, 0);
    out.products.assign(channels * levels * p, 0);
    for (std::size_t c = 0; c < channels; ++c) {
        std::vector<std::uint64_t> y(frames);
        for (std::size_t n = 0; n < frames; ++n)
            y[n] = bytes[n * channels + c];
        for (std::size_t k = 0; k < levels; ++k) {
            if (k > 0) { // y_k[m] = y_{k-1}[2m] + y_{k-1}[2m+1]: complete samples only
                std::vector<std::uint64_t> next(y.size() / 2);
                for (std::size_t m = 0; m < next.size(); ++m)
                    next[m] = y[2 * m] + y[2 * m + 1];
                y = std::move(next);
            }
            out.samples[k] = y.size();
            std::uint64_t sum = 0;
            for (const std::uint64_t v : y)
                sum += v;
            out.sums[c * levels + k] = sum;
            for (std::size_t j = static_cast<std::size_t>(settings.firstLag(static_cast<int>(k)));
                 j < p; ++j) {
                std::uint64_t a = 0;
                for (std::size_t m = j; m < y.size(); ++m)
                    a += y[m] * y[m - j];
                out.products[(c * levels + k) * p + j] = a;
            }
        }
    }
    return out;
}

fcs::MultiTauCounts feedInChunks(fcs::MultiTauCorrelator& correlator,
                                 const std::vector<std::uint8_t>& bytes, std::size_t channels,
                                 std::size_t chunkFrames) {
    const std::size_t frames = bytes.size() / channels;
    for (std::size_t first = 0; first < frames; first += chunkFrames) {
        const std::size_t count = std::min(chunkFrames, frames - first);
        correlator.feed(std::span<const std::uint8_t>(bytes.data() + first * channels,
                                                      count * channels));
    }
    return correlator.counts();
}

std::string describe(const fcs::MultiTauCounts& a, const fcs::MultiTauCounts& b) {
    if (a.samples != b.samples)
        return "M_k differ";
    if (a.sums != b.sums)
        return "S_k differ";
    for (std::size_t i = 0; i < a.products.size(); ++i)
        if (a.products[i] != b.products[i])
            return "A differs at index " + std::to_string(i) + ": " +
                   std::to_string(a.products[i]) + " vs " + std::to_string(b.products[i]);
    return a.frames != b.frames ? "frames differ" : "equal";
}

} // namespace

int main() {
    const auto correlators = cuda::makeCorrelatorProvider();
    const auto provider = cuda::makeProvider();
    if (gputest::skipWithoutDevice(*provider))
        return kSkip;
    Stats stats;
    try {
        struct Case {
            std::size_t channels, frames;
            int p, levels;
        };
        const Case cases[] = {
            {1, 5000, 8, 1},     {3, 7777, 16, 6},    {5, 40001, 32, 12},
            {64, 20011, 64, 9},  {1024, 9001, 32, 12}, {7, 70000, 32, 14},
            {33, 257, 32, 12},   // fewer frames than the top levels need: empty levels
            {4, 3001, 8, 5},     {12, 5003, 16, 8},   // channels a multiple of 4: coalesced 4 a thread
        };
        for (const Case& c : cases) {
            const fcs::MultiTauSettings settings{c.p, c.levels};
            const auto bytes = makeFrames(c.frames, c.channels, 1000 + c.frames);
            const fcs::MultiTauCounts reference = bruteForce(bytes, c.channels, settings);
            const std::string label = "C=" + std::to_string(c.channels) + " N=" +
                                      std::to_string(c.frames) + " P=" + std::to_string(c.p) +
                                      " L=" + std::to_string(c.levels);
            for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{4096},
                                            std::size_t{1} << 30}) {
                if (chunk == 1 && c.frames * c.channels > 200000)
                    continue; // frame by frame: kept to the small cases (a launch per level each)
                auto gpu = correlators->create(settings, c.channels, {});
                if (!expect(stats, gpu != nullptr, "the CUDA module offers a correlator"))
                    return 1;
                const fcs::MultiTauCounts counts = feedInChunks(*gpu, bytes, c.channels, chunk);
                const std::string result = describe(counts, reference);
                expect(stats, result == "equal",
                       label + ", chunks of " + std::to_string(chunk) + ": " + result);
            }
            // The CPU reference correlator gives the same sums.
            auto cpu = fcs::makeCpuCorrelator(settings, c.channels, 0);
            const fcs::MultiTauCounts cpuCounts = feedInChunks(*cpu, bytes, c.channels, 4096);
            expect(stats, describe(cpuCounts, reference) == "equal",
                   label + ": the CPU correlator equals the brute force");
        }
        // More frames than one upload chunk of the correlator (64 MB): 70,000 frames of 1024.
        {
            const fcs::MultiTauSettings settings{32, 12};
            const std::size_t channels = 1024, frames = 70000;
            const auto bytes = makeFrames(frames, channels, 77);
            auto gpu = correlators->create(settings, channels, {});
            auto cpu = fcs::makeCpuCorrelator(settings, channels, 0);
            const auto gpuCounts = feedInChunks(*gpu, bytes, channels, frames);
            const auto cpuCounts = feedInChunks(*cpu, bytes, channels, 10007);
            expect(stats, describe(gpuCounts, cpuCounts) == "equal",
                   "C=1024 N=70000 in one feed (two upload chunks) equals the CPU: " +
                       describe(gpuCounts, cpuCounts));
        }
        // Refused: lags per level the kernels are not built for; bytes that are not frames.
        bool refused = false;
        try {
            correlators->create(fcs::MultiTauSettings{12, 4}, 4, {});
        } catch (const ConfigError&) {
            refused = true;
        }
        expect(stats, refused, "P = 12 is refused by the CUDA correlator (ConfigError)");
        refused = false;
        try {
            auto gpu = correlators->create(fcs::MultiTauSettings{32, 4}, 4, {});
            const std::vector<std::uint8_t> bytes(10, 1);
            gpu->feed(bytes);
        } catch (const ConfigError&) {
            refused = true;
        }
        expect(stats, refused, "10 bytes of 4 channels are refused (ConfigError)");
    } catch (const std::exception& error) {
        std::printf("FAIL exception: %s\n", error.what());
        return 1;
    }
    std::printf("%s: %d checks, %d failures\n", stats.failures ? "FAIL" : "PASS", stats.checks,
                stats.failures);
    return stats.failures ? 1 : 0;
}
