// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf autocorr --bench: a correlator's throughput on random frames held in memory, fed in
// chunks as a running experiment would (what BENCHMARKS.md quotes), optionally checked against
// the CPU reference.
#include "cli/args.h"
#include "cli/autocorr.h"
#include "cli/context.h"
#include "cli/number_text.h"
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

std::string jsonList(const std::vector<double>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + jsonNumber(values[i]);
    return text + "]";
}

// What --bench measures, from the flags.
struct BenchRequest {
    fcs::MultiTauSettings settings;
    std::size_t frames = 0, channels = 0, chunk = 0;
    int repeat = 0;
    std::uint64_t seed = 1;
    double frameSeconds = 0;
};

BenchRequest benchRequestFrom(const ParsedArgs& args) {
    for (const char* notHere : {"--input", "--output", "--write-frames", "--particles",
                                "--tau-d-frames", "--kappa", "--brightness", "--background"})
        if (args.has(notHere))
            args.fail(std::string(notHere) + " does not apply to --bench");
    BenchRequest request;
    request.settings = multiTauSettingsFrom(args);
    request.frames = static_cast<std::size_t>(args.integer("--frames", 65536, 1, 1 << 30));
    request.channels = static_cast<std::size_t>(args.integer("--channels", 1024, 0, 1 << 20));
    if (request.channels == 0)
        args.fail("--channels 0: a frame needs at least one channel (C >= 1)");
    request.chunk = static_cast<std::size_t>(args.integer("--chunk", 4096, 1, 1 << 30));
    request.repeat = static_cast<int>(args.integer("--repeat", 3, 1, 1000));
    request.seed = args.unsignedInteger("--seed").value_or(1);
    request.frameSeconds = args.number("--frame-time", 1.6e-6);
    if (!(request.frameSeconds > 0) || !std::isfinite(request.frameSeconds))
        args.fail("--frame-time: " + quote(*args.value("--frame-time")) +
                  " is not a positive duration in seconds");
    // 16 GiB of frames is beyond any GPU's chunking need and most hosts' memory.
    if (static_cast<double>(request.frames) * static_cast<double>(request.channels) > 17179869184.0)
        args.fail("--frames x --channels is more than 16 GiB of frames");
    return request;
}

// One pass: every chunk fed, then the counts (which waits for a GPU's work and copies back).
// Returns its wall time; readbackSeconds: the counts() part; deviceSeconds: the device's
// counting time of the pass where the correlator measures it, else -1.
class BenchPass {
public:
    BenchPass(const Context& context, const BenchRequest& request,
              const std::vector<std::uint8_t>& data)
        : m_context(context), m_request(request), m_data(data) {}

    double operator()(fcs::MultiTauCorrelator& target) {
        const std::optional<double> deviceBefore = target.deviceSeconds();
        const auto start = std::chrono::steady_clock::now();
        const std::size_t frames = m_request.frames, channels = m_request.channels;
        for (std::size_t f = 0; f < frames; f += m_request.chunk) {
            if (m_context.cancelRequested && m_context.cancelRequested->load())
                throw Cancelled();
            const std::size_t n = std::min(m_request.chunk, frames - f);
            target.feed(std::span<const std::uint8_t>(m_data).subspan(f * channels, n * channels));
        }
        const auto fed = std::chrono::steady_clock::now();
        (void)target.counts();
        readbackSeconds = secondsSince(fed);
        const double wall = secondsSince(start);
        const std::optional<double> deviceAfter = target.deviceSeconds();
        deviceSeconds = deviceBefore && deviceAfter ? *deviceAfter - *deviceBefore : -1.0;
        return wall;
    }

    double readbackSeconds = 0;
    double deviceSeconds = -1;

private:
    const Context& m_context;
    const BenchRequest& m_request;
    const std::vector<std::uint8_t>& m_data;
};

// The timed passes after the warm-up, and what they make of the rate.
struct BenchTimes {
    std::vector<double> seconds, readbacks, deviceSeconds;
    double setupSeconds = 0;
    double medianSeconds = 0, best = 0, samples = 0, rate = 0, realTime = 0;
    double deviceRate = 0; // samples over the device's counting time alone; 0: not measured
};

BenchTimes timePasses(const BenchRequest& request, BenchPass& pass,
                      fcs::MultiTauCorrelator& correlator) {
    BenchTimes times;
    pass(correlator); // warm-up: caches, clocks, a GPU's first launches
    for (int r = 0; r < request.repeat; ++r) {
        times.seconds.push_back(pass(correlator));
        times.readbacks.push_back(pass.readbackSeconds);
        if (pass.deviceSeconds >= 0)
            times.deviceSeconds.push_back(pass.deviceSeconds);
    }
    const double frames = static_cast<double>(request.frames);
    // Once the frames are on the device: the samples over the device's counting time alone.
    times.deviceRate =
        times.deviceSeconds.empty()
            ? 0.0
            : frames * static_cast<double>(request.channels) / median(times.deviceSeconds);
    times.medianSeconds = median(times.seconds);
    times.best = *std::min_element(times.seconds.begin(), times.seconds.end());
    times.samples = frames * static_cast<double>(request.channels);
    times.rate = times.samples / times.medianSeconds;
    times.realTime = (frames / times.medianSeconds) * request.frameSeconds;
    return times;
}

void printBenchJson(std::ostream& out, const BenchRequest& request,
                    const fcs::MultiTauCorrelator& correlator, const BenchTimes& times,
                    const std::string& check) {
    out << "{\n"
        << "  \"tool\": \"tpacf autocorr --bench\",\n"
        << "  \"version\": " << jsonString(version()) << ",\n"
        << "  \"backend\": " << jsonString(correlator.backendName()) << ",\n"
        << "  \"device\": " << jsonString(correlator.deviceDescription()) << ",\n"
        << "  \"frames\": " << request.frames << ",\n"
        << "  \"channels\": " << request.channels << ",\n"
        << "  \"lags_per_level\": " << request.settings.lagsPerLevel << ",\n"
        << "  \"levels\": " << request.settings.levels << ",\n"
        << "  \"chunk_frames\": " << request.chunk << ",\n"
        << "  \"repeat\": " << request.repeat << ",\n"
        << "  \"setup_seconds\": " << jsonNumber(times.setupSeconds) << ",\n"
        << "  \"seconds\": " << jsonList(times.seconds) << ",\n"
        << "  \"readback_seconds\": " << jsonList(times.readbacks) << ",\n"
        << "  \"median_seconds\": " << jsonNumber(times.medianSeconds) << ",\n"
        << "  \"best_seconds\": " << jsonNumber(times.best) << ",\n"
        << "  \"samples_per_second\": " << jsonNumber(times.rate) << ",\n"
        << "  \"best_samples_per_second\": " << jsonNumber(times.samples / times.best) << ",\n"
        << "  \"samples_per_second_without_readback\": "
        << jsonNumber(times.samples / (times.medianSeconds - median(times.readbacks))) << ",\n"
        << "  \"frame_time\": " << jsonNumber(request.frameSeconds) << ",\n"
        << "  \"real_time_factor\": " << jsonNumber(times.realTime) << ",\n"
        << "  \"device_seconds\": " << jsonList(times.deviceSeconds) << ",\n"
        << "  \"device_samples_per_second\": "
        << (times.deviceSeconds.empty() ? std::string("null") : jsonNumber(times.deviceRate))
        << ",\n"
        << "  \"check\": " << jsonString(check) << "\n"
        << "}\n";
}

// printCheck: whether --check was given (the text then ends with the check's line).
void printBenchText(std::ostream& out, const BenchRequest& request,
                    const fcs::MultiTauCorrelator& correlator, const BenchTimes& times,
                    const std::string& check, bool printCheck) {
    char line[300];
    std::snprintf(line, sizeof line,
                  "tpacf autocorr --bench: %zu frames x %zu channels (P = %d, L = %d), "
                  "chunks of %zu frames, %d timed passes after a warm-up\n",
                  request.frames, request.channels, request.settings.lagsPerLevel,
                  request.settings.levels, request.chunk, request.repeat);
    out << line << "backend " << correlator.backendName() << " (" << correlator.deviceDescription()
        << "), set up in " << formatSeconds(times.setupSeconds) << "\n";
    for (std::size_t r = 0; r < times.seconds.size(); ++r) {
        std::snprintf(line, sizeof line, "  pass %zu: %s, %.3g samples/s (counts() %s)\n", r + 1,
                      formatSeconds(times.seconds[r]).c_str(), times.samples / times.seconds[r],
                      formatSeconds(times.readbacks[r]).c_str());
        out << line;
    }
    std::snprintf(line, sizeof line,
                  "median %s: %.3g samples/s (best %.3g; %.3g without the final counts()), "
                  "%.3g x real time (%.4g kHz frames)\n",
                  formatSeconds(times.medianSeconds).c_str(), times.rate,
                  times.samples / times.best,
                  times.samples / (times.medianSeconds - median(times.readbacks)), times.realTime,
                  1e-3 / request.frameSeconds);
    out << line;
    if (!times.deviceSeconds.empty()) {
        std::snprintf(line, sizeof line,
                      "device time (kernels, frames already on the GPU): median %s, %.3g "
                      "samples/s\n",
                      formatSeconds(median(times.deviceSeconds)).c_str(), times.deviceRate);
        out << line;
    }
    if (printCheck)
        out << check << "\n";
}

} // namespace

int autocorrBench(const Context& context, const ParsedArgs& args) {
    const BenchRequest request = benchRequestFrom(args);
    const std::vector<std::uint8_t> data =
        randomFrames(request.frames * request.channels, request.seed);
    const auto setupStart = std::chrono::steady_clock::now();
    ChosenCorrelator chosen = chooseCorrelator(context, args, request.settings, request.channels);
    const double setupSeconds = secondsSince(setupStart);
    printNotice(context.err, chosen.notice);
    fcs::MultiTauCorrelator& correlator = *chosen.correlator;

    BenchPass pass(context, request, data);
    BenchTimes times = timePasses(request, pass, correlator);
    times.setupSeconds = setupSeconds;

    // The counts after the warm-up and every timed pass: the CPU's of the same frames.
    std::string check = "not checked";
    bool identical = true;
    if (args.has("--check")) {
        if (correlator.backendName() == "cpu") {
            check = "the CPU is the reference";
        } else {
            auto reference =
                fcs::makeCpuCorrelator(request.settings, request.channels,
                                       static_cast<int>(args.integer("--threads", 0, 0, 4096)));
            for (int r = 0; r <= request.repeat; ++r)
                pass(*reference);
            identical = reference->counts() == correlator.counts();
            check = identical ? "counts identical to the CPU reference"
                              : "COUNTS DIFFER from the CPU reference";
        }
    }

    if (args.has("--json"))
        printBenchJson(context.out, request, correlator, times, check);
    else
        printBenchText(context.out, request, correlator, times, check, args.has("--check"));
    return identical ? kExitOk : kExitInternal;
}

} // namespace tpacf::cli
