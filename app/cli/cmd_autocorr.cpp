// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf autocorr: the multi-tau autocorrelation of photon-count streams (fluorescence
// correlation spectroscopy): a file of raw uint8 frames or ASCII columns, or a simulated stream,
// streamed through a correlator (the CPU reference or a GPU module's) into an ECSV table of
// G(tau) per channel and lag. --bench lives in cmd_autocorr_bench.cpp.
#include "cli/args.h"
#include "cli/autocorr.h"
#include "cli/context.h"
#include "cli/file_plan.h"
#include "cli/flag_help.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "autocorr_flags.h"
#include "tpacf/backend.h"
#include "tpacf/errors.h"
#include "tpacf/fcs_io.h"
#include "tpacf/fcs_simulation.h"
#include "tpacf/output_file.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tpacf::cli {

std::string autocorrHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf autocorr --input frames.u8 --channels C --output g.csv [options]
       tpacf autocorr --input counts.txt --output g.csv [options]
       tpacf autocorr --simulate [--frames N --channels C ...] --output g.csv [options]
       tpacf autocorr --bench [--frames N --channels C --chunk F --repeat R] [--json]

The multi-tau autocorrelation of photon-count streams (fluorescence correlation spectroscopy):
every channel delivers one count (0-255) per frame; G(tau) is computed on P lags per level over
L levels, level k summing blocks of 2^k frames (docs/fcs-multitau.md). The stream is read in
pieces, so files may be larger than memory. The table (ECSV) has one row per channel and lag,
columns channel,level,j,tau_frames,tau_s,A,G (A: the exact sum of products), then one row per
lag with channel "mean": G averaged over the channels.

)" + flagHelp(flags::kAutocorrFlags, backends) + R"(
Examples:
  tpacf autocorr --input spad.u8 --channels 1024 --output g.csv
  tpacf autocorr --simulate --frames 1048576 --channels 16 --output g.csv --write-frames sim.u8
  tpacf autocorr --bench --backend cpu
)";
}

fcs::MultiTauSettings multiTauSettingsFrom(const ParsedArgs& args) {
    fcs::MultiTauSettings settings;
    // Wide ranges here: the settings themselves say what is wrong with a value, and P is
    // checked before L so that the message names the flag at fault.
    constexpr std::int64_t kWide = 1'000'000'000;
    settings.lagsPerLevel =
        static_cast<int>(args.integer("--lags-per-level", settings.lagsPerLevel, -kWide, kWide));
    try {
        settings.validate();
    } catch (const ConfigError& error) {
        args.fail(std::string("--lags-per-level: ") + error.what());
    }
    settings.levels = static_cast<int>(args.integer("--levels", settings.levels, -kWide, kWide));
    try {
        settings.validate();
    } catch (const ConfigError& error) {
        args.fail(std::string("--levels: ") + error.what());
    }
    return settings;
}

ChosenCorrelator chooseCorrelator(const Context& context, const ParsedArgs& args,
                                  const fcs::MultiTauSettings& settings, std::size_t channels) {
    const fcs::CorrelatorRegistry& correlators = *context.correlators;
    const std::string text = args.value("--backend").value_or(std::string(kAutoBackend));
    const auto name = correlators.resolve(text);
    if (!name)
        args.fail("--backend: " + quote(text) + " is not a backend (" + correlators.namesText() +
                  ")");
    const int threads = static_cast<int>(args.integer("--threads", 0, 0, 4096));
    const std::vector<int> devices = gpuDevicesFrom(args);
    if (*name == kCpuBackend) {
        if (!devices.empty())
            args.fail("--devices names GPUs, and the cpu backend uses none");
        return {fcs::makeCpuCorrelator(settings, channels, threads), ""};
    }
    if (*name == kAutoBackend) {
        std::string why;
        for (const auto& provider : correlators.providers()) {
            if (const std::string reason = provider->unavailableReason(); !reason.empty()) {
                why = provider->displayName() + " unavailable: " + reason;
                continue;
            }
            try {
                return {provider->create(settings, channels, devices), ""};
            } catch (const BackendUnavailable& error) {
                why = error.what();
            }
        }
        return {fcs::makeCpuCorrelator(settings, channels, threads),
                why.empty() ? std::string() : "correlating on the CPU (" + why + ")"};
    }
    const fcs::CorrelatorProvider* provider = correlators.find(*name);
    if (const std::string reason = provider->unavailableReason(); !reason.empty())
        throw BackendUnavailable(provider->displayName() + " backend unavailable: " + reason);
    auto correlator = provider->create(settings, channels, devices);
    return {std::move(correlator), ""};
}

namespace {

bool cancelled(const Context& context) {
    return context.cancelRequested && context.cancelRequested->load(std::memory_order_relaxed);
}

// Where the frames come from: a file's reader or the simulator, behind one read().
class FrameSource {
public:
    std::unique_ptr<fcs::FrameReader> reader;
    std::unique_ptr<fcs::FcsSimulator> simulator;
    std::uint64_t simulatedFrames = 0;

    std::size_t channels() const {
        return reader ? reader->channels() : simulator->channels();
    }
    std::size_t read(std::vector<std::uint8_t>& frames, std::size_t most,
                     const std::atomic<bool>* cancel) {
        if (reader)
            return reader->read(frames, most, cancel);
        const auto left = simulatedFrames - simulator->framesGenerated();
        const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(most, left));
        if (count == 0)
            return 0;
        simulator->generate(count, frames, cancel);
        return count;
    }
    double fractionDone() const {
        if (reader)
            return reader->fileBytes() ? static_cast<double>(reader->bytesRead()) /
                                             static_cast<double>(reader->fileBytes())
                                       : 1.0;
        return static_cast<double>(simulator->framesGenerated()) /
               static_cast<double>(simulatedFrames);
    }
};

fcs::FcsSimulationParams simulationFrom(const ParsedArgs& args) {
    fcs::FcsSimulationParams params;
    params.channels = static_cast<std::size_t>(args.integer("--channels", 4, 0, 1 << 20));
    if (params.channels == 0)
        args.fail("--channels 0: a frame needs at least one channel (C >= 1)");
    params.particles = args.number("--particles", params.particles);
    params.tauDFrames = args.number("--tau-d-frames", params.tauDFrames);
    params.kappa = args.number("--kappa", params.kappa);
    params.brightness = args.number("--brightness", params.brightness);
    params.background = args.number("--background", params.background);
    params.seed = args.unsignedInteger("--seed").value_or(1);
    try {
        params.validate();
    } catch (const ConfigError& error) {
        args.fail(error.what());
    }
    return params;
}

// The mean G at each level's first lag, beside the simulation's expectation where there is one.
void printSummaryTable(std::ostream& out, const fcs::MultiTauCounts& counts, double frameSeconds,
                       const std::vector<double>* expected) {
    const std::vector<fcs::Lag> lags = fcs::lagsOf(counts.settings);
    out << (expected ? "  tau_frames        tau_s   G (mean)   expected\n"
                     : "  tau_frames        tau_s   G (mean)\n");
    for (std::size_t i = 0; i < lags.size(); ++i) {
        const fcs::Lag& lag = lags[i];
        if (lag.j != counts.settings.firstLag(lag.level) && !(lag.level == 0 && lag.j == 1))
            continue;
        const double g = counts.meanG(lag.level, lag.j);
        if (std::isnan(g))
            break;
        char line[120];
        std::snprintf(line, sizeof line, "  %10llu  %11.4g  %9.5f",
                      static_cast<unsigned long long>(lag.tauFrames),
                      static_cast<double>(lag.tauFrames) * frameSeconds, g);
        out << line;
        if (expected) {
            std::snprintf(line, sizeof line, "  %9.5f", (*expected)[i]);
            out << line;
        }
        out << '\n';
    }
}

// The frames as read or simulated, and how the report and the table name them.
struct OpenedSource {
    FrameSource source;
    std::string inputText;
    fcs::FcsSimulationParams simulation; // --simulate only
};

// The simulator (--simulate) or the file's reader: raw uint8 frames with --channels, else
// ASCII columns.
OpenedSource openFrameSource(const ParsedArgs& args, bool simulate) {
    OpenedSource opened;
    FrameSource& source = opened.source;
    if (simulate) {
        opened.simulation = simulationFrom(args);
        source.simulatedFrames =
            static_cast<std::uint64_t>(args.integer("--frames", 262144, 1, std::int64_t{1} << 40));
        source.simulator = std::make_unique<fcs::FcsSimulator>(
            opened.simulation, static_cast<int>(args.integer("--threads", 0, 0, 4096)));
        opened.inputText = "simulated: " + opened.simulation.describe();
        return opened;
    }
    const std::string path = args.required("--input");
    if (args.has("--channels")) {
        const auto channels = args.integer("--channels", 0, std::int64_t{1} << 24);
        if (*channels == 0)
            args.fail("--channels 0: a frame needs at least one channel (C >= 1)");
        source.reader = fcs::openRawFrames(path, static_cast<std::size_t>(*channels));
    } else {
        source.reader = fcs::openAsciiCounts(path);
    }
    opened.inputText = path + " (" + source.reader->formatName() + ", " +
                       std::to_string(source.reader->channels()) + " channels)";
    return opened;
}

// --write-frames: the frames as they were fed, through a staged file that replaces the target
// only once complete. Inactive without the flag.
class FramesCopy {
public:
    explicit FramesCopy(const std::optional<std::string>& path) : m_path(path) {
        if (!m_path)
            return;
        m_file.emplace(*m_path);
        m_stream.open(m_file->temporaryPath(), std::ios::binary | std::ios::trunc);
        if (!m_stream)
            throw InputError(*m_path, 0, 0, "cannot write the frames here");
    }
    void write(const std::vector<std::uint8_t>& frames) {
        if (m_path)
            m_stream.write(reinterpret_cast<const char*>(frames.data()),
                           static_cast<std::streamsize>(frames.size()));
    }
    void commit() {
        if (!m_path)
            return;
        m_stream.close();
        if (!m_stream)
            throw InputError(*m_path, 0, 0, "writing the frames failed (disk full?)");
        m_file->commit();
    }

private:
    std::optional<std::string> m_path;
    std::optional<StagedOutputFile> m_file;
    std::ofstream m_stream;
};

// The stream fed through the correlator, piece by piece, with a progress bar.
struct StreamedFrames {
    std::uint64_t frames = 0;
    double correlatorSeconds = 0; // in feed(): the correlator's own share
};

StreamedFrames streamFrames(const Context& context, FrameSource& source, std::size_t chunk,
                            bool quiet, ChosenCorrelator& chosen, FramesCopy& copy) {
    const std::size_t channels = source.channels();
    StreamedFrames streamed;
    ProgressBar bar(context.err, context.errIsTerminal && !quiet, "correlating");
    std::vector<std::uint8_t> buffer;
    while (const std::size_t count = source.read(buffer, chunk, context.cancelRequested)) {
        if (cancelled(context))
            throw Cancelled();
        const auto fed = std::chrono::steady_clock::now();
        chosen.correlator->feed(buffer);
        streamed.correlatorSeconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - fed).count();
        copy.write(buffer);
        // Said once the stream reads well, as 'run' does once counting began: bad input then
        // stays one line.
        if (streamed.frames == 0)
            printNotice(context.err, chosen.notice);
        streamed.frames += count;
        bar.update(source.fractionDone(), streamed.frames * channels);
    }
    return streamed;
}

// The G table (ECSV) with what produced it; a simulation's model in its metadata.
void writeGTable(const Context& context, const std::string& path, const fcs::MultiTauCounts& counts,
                 const fcs::MultiTauCorrelator& correlator, const OpenedSource& opened,
                 bool simulate, double frameSeconds, double elapsed) {
    fcs::AutocorrelationInfo info;
    info.frameSeconds = frameSeconds;
    info.invocation = commandLine("autocorr", context.args);
    info.input = opened.inputText;
    info.backend = correlator.backendName();
    info.device = correlator.deviceDescription();
    info.elapsedSeconds = elapsed;
    if (simulate) {
        const fcs::FcsModel model = fcs::fcsModelOf(opened.simulation);
        char text[200];
        std::snprintf(text, sizeof text,
                      "%zu particles per channel in a periodic box, N_eff = %.6g, mean "
                      "%.6g photons/frame, signal fraction %.6g",
                      model.boxParticles, model.effectiveParticles, model.meanCounts,
                      model.signalFraction);
        info.extra.emplace_back("simulation", text);
    }
    writeFileAtomically(
        path, [&](std::ostream& out) { fcs::writeAutocorrelationEcsv(out, counts, info); });
}

} // namespace

int autocorrCommand(const Context& context) {
    const ParsedArgs args = parseArgs(flags::kAutocorrFlags, context.args);

    const int modes = args.has("--input") + args.has("--simulate") + args.has("--bench");
    if (modes != 1)
        args.fail(modes == 0 ? "give --input FILE, --simulate or --bench"
                             : "give only one of --input, --simulate and --bench");
    for (const char* benchOnly : {"--repeat", "--check", "--json"})
        if (!args.has("--bench") && args.has(benchOnly))
            args.fail(std::string(benchOnly) + " belongs to --bench");
    if (args.has("--bench"))
        return autocorrBench(context, args);
    const bool simulate = args.has("--simulate");
    if (!simulate)
        for (const char* simulationOnly : {"--frames", "--particles", "--tau-d-frames", "--kappa",
                                           "--brightness", "--background", "--seed"})
            if (args.has(simulationOnly))
                args.fail(std::string(simulationOnly) + " belongs to --simulate (or --bench)");

    const fcs::MultiTauSettings settings = multiTauSettingsFrom(args);
    const double frameSeconds = args.number("--frame-time", 1.6e-6);
    if (!(frameSeconds > 0) || !std::isfinite(frameSeconds))
        args.fail("--frame-time: " + quote(*args.value("--frame-time")) +
                  " is not a positive duration in seconds");
    const auto output = args.value("--output");
    const auto framesOutput = args.value("--write-frames");
    if (!output && !framesOutput)
        args.fail("give --output FILE (the G table) and/or --write-frames FILE");
    const auto chunkFlag = args.integer("--chunk", 1, std::int64_t{1} << 30);

    FilePlan files;
    if (!simulate)
        files.input("--input", args.required("--input"));
    if (output)
        files.output("--output", *output);
    if (framesOutput)
        files.output("--write-frames", *framesOutput);
    files.check();

    OpenedSource opened = openFrameSource(args, simulate);
    const std::size_t channels = opened.source.channels();
    ChosenCorrelator chosen = chooseCorrelator(context, args, settings, channels);
    fcs::MultiTauCorrelator& correlator = *chosen.correlator;
    FramesCopy framesCopy(framesOutput);

    // Pieces of ~16 MiB: large enough for a GPU's copies, small enough to stream any file. A
    // simulation takes ~0.2-0.5 us per sample: 1 MiB pieces keep the progress bar moving.
    const std::size_t chunkBytes = std::size_t(simulate ? 1 : 16) << 20;
    const std::size_t chunk = chunkFlag ? static_cast<std::size_t>(*chunkFlag)
                                        : std::max<std::size_t>(1, chunkBytes / channels);
    const bool quiet = args.has("--quiet");
    const auto start = std::chrono::steady_clock::now();
    StreamedFrames streamed =
        streamFrames(context, opened.source, chunk, quiet, chosen, framesCopy);
    if (cancelled(context))
        throw Cancelled();
    // counts() waits for a GPU's work and copies back: the correlator's share too.
    const auto finishing = std::chrono::steady_clock::now();
    const fcs::MultiTauCounts counts = correlator.counts();
    const auto finished = std::chrono::steady_clock::now();
    const double correlatorSeconds =
        streamed.correlatorSeconds + std::chrono::duration<double>(finished - finishing).count();
    const double elapsed = std::chrono::duration<double>(finished - start).count();
    framesCopy.commit();

    std::vector<double> expected;
    if (simulate)
        expected = fcs::expectedMultiTauG(opened.simulation, settings, counts.frames);
    if (output)
        writeGTable(context, *output, counts, correlator, opened, simulate, frameSeconds, elapsed);

    std::ostream& out = context.out;
    const std::size_t lagCount = fcs::lagsOf(settings).size();
    char line[400];
    std::snprintf(line, sizeof line,
                  "correlated %llu frames x %zu channels (P = %d, L = %d: %zu lags up to %llu "
                  "frames) on %s (%s) in %s, %s of it in the correlator: %.3g samples/s\n",
                  static_cast<unsigned long long>(counts.frames), channels,
                  settings.lagsPerLevel, settings.levels, lagCount,
                  static_cast<unsigned long long>(fcs::lagsOf(settings).back().tauFrames),
                  correlator.backendName().c_str(), correlator.deviceDescription().c_str(),
                  formatSeconds(elapsed).c_str(), formatSeconds(correlatorSeconds).c_str(),
                  correlatorSeconds > 0
                      ? static_cast<double>(counts.frames * channels) / correlatorSeconds
                      : 0.0);
    out << line;
    if (simulate)
        out << "simulated " << opened.inputText.substr(11) << "\n";
    if (!quiet)
        printSummaryTable(out, counts, frameSeconds, simulate ? &expected : nullptr);
    if (output)
        out << "wrote " << *output << ": " << (channels + 1) * lagCount << " rows (" << channels
            << " channels x " << lagCount << " lags, then the mean over channels)\n";
    if (framesOutput)
        out << "wrote " << *framesOutput << ": " << counts.frames << " frames x " << channels
            << " channels, raw uint8\n";
    return kExitOk;
}

} // namespace tpacf::cli
