// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf autocorr --bench: a correlator's throughput on random frames held in memory, fed in
// chunks as a running experiment would (what BENCHMARKS.md quotes), optionally checked against
// the CPU reference.
#include "cli/args.h"
#include "cli/autocorr.h"
#include "cli/context.h"
#include "cli/output.h"
#include "tpacf/errors.h"
#include "tpacf/version.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace tpacf::cli {

namespace {

// Photon-count-like bytes: per byte the bits set in the AND of two random bytes, Binomial(8,
// 1/4) (mean 2, 0-8), eight bytes per pair of 64-bit draws (a per-byte popcount in SWAR).
std::vector<std::uint8_t> randomFrames(std::size_t bytes, std::uint64_t seed) {
    std::vector<std::uint8_t> frames(bytes);
    std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    const auto next = [&state] {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    for (std::size_t i = 0; i < bytes; i += 8) {
        std::uint64_t v = next() & next();
        v = v - ((v >> 1) & 0x5555555555555555ull);
        v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
        v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
        for (std::size_t b = 0; b < 8 && i + b < bytes; ++b)
            frames[i + b] = static_cast<std::uint8_t>(v >> (8 * b));
    }
    return frames;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string jsonList(const std::vector<double>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + jsonNumber(values[i]);
    return text + "]";
}

} // namespace

int autocorrBench(const Context& context, const ParsedArgs& args) {
    for (const char* notHere : {"--input", "--output", "--write-frames", "--particles",
                                "--tau-d-frames", "--kappa", "--brightness", "--background"})
        if (args.has(notHere))
            args.fail(std::string(notHere) + " does not apply to --bench");
    const fcs::MultiTauSettings settings = multiTauSettingsFrom(args);
    const auto frames = static_cast<std::size_t>(args.integer("--frames", 65536, 1, 1 << 30));
    const auto channels = static_cast<std::size_t>(args.integer("--channels", 1024, 0, 1 << 20));
    if (channels == 0)
        args.fail("--channels 0: a frame needs at least one channel (C >= 1)");
    const auto chunk = static_cast<std::size_t>(args.integer("--chunk", 4096, 1, 1 << 30));
    const int repeat = static_cast<int>(args.integer("--repeat", 3, 1, 1000));
    const std::uint64_t seed = args.unsignedInteger("--seed").value_or(1);
    const double frameSeconds = args.number("--frame-time", 1.6e-6);
    if (!(frameSeconds > 0) || !std::isfinite(frameSeconds))
        args.fail("--frame-time: " + quote(*args.value("--frame-time")) +
                  " is not a positive duration in seconds");
    // 16 GiB of frames is beyond any GPU's chunking need and most hosts' memory.
    if (static_cast<double>(frames) * static_cast<double>(channels) > 17179869184.0)
        args.fail("--frames x --channels is more than 16 GiB of frames");

    const std::vector<std::uint8_t> data = randomFrames(frames * channels, seed);
    const auto setupStart = std::chrono::steady_clock::now();
    ChosenCorrelator chosen = chooseCorrelator(context, args, settings, channels);
    const double setupSeconds = secondsSince(setupStart);
    printNotice(context.err, chosen.notice);
    fcs::MultiTauCorrelator& correlator = *chosen.correlator;

    // One pass: every chunk fed, then the counts (which waits for a GPU's work and copies back).
    double readbackSeconds = 0;
    double passDeviceSeconds = -1; // the device's counting time of the pass, where measured
    const auto pass = [&](fcs::MultiTauCorrelator& target) {
        const std::optional<double> deviceBefore = target.deviceSeconds();
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t f = 0; f < frames; f += chunk) {
            if (context.cancelRequested && context.cancelRequested->load())
                throw Cancelled();
            const std::size_t n = std::min(chunk, frames - f);
            target.feed(std::span<const std::uint8_t>(data).subspan(f * channels, n * channels));
        }
        const auto fed = std::chrono::steady_clock::now();
        (void)target.counts();
        readbackSeconds = secondsSince(fed);
        const double wall = secondsSince(start);
        const std::optional<double> deviceAfter = target.deviceSeconds();
        passDeviceSeconds = deviceBefore && deviceAfter ? *deviceAfter - *deviceBefore : -1.0;
        return wall;
    };
    pass(correlator); // warm-up: caches, clocks, a GPU's first launches
    std::vector<double> seconds, readbacks, deviceSeconds;
    for (int r = 0; r < repeat; ++r) {
        seconds.push_back(pass(correlator));
        readbacks.push_back(readbackSeconds);
        if (passDeviceSeconds >= 0)
            deviceSeconds.push_back(passDeviceSeconds);
    }
    // Once the frames are on the device: the samples over the device's counting time alone.
    const double deviceRate = deviceSeconds.empty()
                                  ? 0.0
                                  : static_cast<double>(frames) * static_cast<double>(channels) /
                                        median(deviceSeconds);
    const double medianSeconds = median(seconds);
    const double best = *std::min_element(seconds.begin(), seconds.end());
    const double samples = static_cast<double>(frames) * static_cast<double>(channels);
    const double rate = samples / medianSeconds;
    const double realTime = (static_cast<double>(frames) / medianSeconds) * frameSeconds;

    // The counts after the warm-up and every timed pass: the CPU's of the same frames.
    std::string check = "not checked";
    bool identical = true;
    if (args.has("--check")) {
        if (correlator.backendName() == "cpu") {
            check = "the CPU is the reference";
        } else {
            auto reference = fcs::makeCpuCorrelator(
                settings, channels, static_cast<int>(args.integer("--threads", 0, 0, 4096)));
            for (int r = 0; r <= repeat; ++r)
                pass(*reference);
            identical = reference->counts() == correlator.counts();
            check = identical ? "counts identical to the CPU reference"
                              : "COUNTS DIFFER from the CPU reference";
        }
    }

    std::ostream& out = context.out;
    if (args.has("--json")) {
        out << "{\n"
            << "  \"tool\": \"tpacf autocorr --bench\",\n"
            << "  \"version\": " << jsonString(version()) << ",\n"
            << "  \"backend\": " << jsonString(correlator.backendName()) << ",\n"
            << "  \"device\": " << jsonString(correlator.deviceDescription()) << ",\n"
            << "  \"frames\": " << frames << ",\n"
            << "  \"channels\": " << channels << ",\n"
            << "  \"lags_per_level\": " << settings.lagsPerLevel << ",\n"
            << "  \"levels\": " << settings.levels << ",\n"
            << "  \"chunk_frames\": " << chunk << ",\n"
            << "  \"repeat\": " << repeat << ",\n"
            << "  \"setup_seconds\": " << jsonNumber(setupSeconds) << ",\n"
            << "  \"seconds\": " << jsonList(seconds) << ",\n"
            << "  \"readback_seconds\": " << jsonList(readbacks) << ",\n"
            << "  \"median_seconds\": " << jsonNumber(medianSeconds) << ",\n"
            << "  \"best_seconds\": " << jsonNumber(best) << ",\n"
            << "  \"samples_per_second\": " << jsonNumber(rate) << ",\n"
            << "  \"best_samples_per_second\": " << jsonNumber(samples / best) << ",\n"
            << "  \"samples_per_second_without_readback\": "
            << jsonNumber(samples / (medianSeconds - median(readbacks))) << ",\n"
            << "  \"frame_time\": " << jsonNumber(frameSeconds) << ",\n"
            << "  \"real_time_factor\": " << jsonNumber(realTime) << ",\n"
            << "  \"device_seconds\": " << jsonList(deviceSeconds) << ",\n"
            << "  \"device_samples_per_second\": "
            << (deviceSeconds.empty() ? std::string("null") : jsonNumber(deviceRate)) << ",\n"
            << "  \"check\": " << jsonString(check) << "\n"
            << "}\n";
    } else {
        char line[300];
        std::snprintf(line, sizeof line,
                      "tpacf autocorr --bench: %zu frames x %zu channels (P = %d, L = %d), "
                      "chunks of %zu frames, %d timed passes after a warm-up\n",
                      frames, channels, settings.lagsPerLevel, settings.levels, chunk, repeat);
        out << line << "backend " << correlator.backendName() << " ("
            << correlator.deviceDescription() << "), set up in " << formatSeconds(setupSeconds)
            << "\n";
        for (std::size_t r = 0; r < seconds.size(); ++r) {
            std::snprintf(line, sizeof line, "  pass %zu: %s, %.3g samples/s (counts() %s)\n",
                          r + 1, formatSeconds(seconds[r]).c_str(), samples / seconds[r],
                          formatSeconds(readbacks[r]).c_str());
            out << line;
        }
        std::snprintf(line, sizeof line,
                      "median %s: %.3g samples/s (best %.3g; %.3g without the final counts()), "
                      "%.3g x real time (%.4g kHz frames)\n",
                      formatSeconds(medianSeconds).c_str(), rate, samples / best,
                      samples / (medianSeconds - median(readbacks)), realTime,
                      1e-3 / frameSeconds);
        out << line;
        if (!deviceSeconds.empty()) {
            std::snprintf(line, sizeof line,
                          "device time (kernels, frames already on the GPU): median %s, %.3g "
                          "samples/s\n",
                          formatSeconds(median(deviceSeconds)).c_str(), deviceRate);
            out << line;
        }
        if (args.has("--check"))
            out << check << "\n";
    }
    return identical ? kExitOk : kExitInternal;
}

} // namespace tpacf::cli
