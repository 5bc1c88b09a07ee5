// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf bench: pairs per second of each backend and precision on generated points (uniform or
// clustered, full sky or a footprint), with spatial culling as asked.
#include "cli/args.h"
#include "cli/bench_read.h"
#include "cli/context.h"
#include "cli/failure.h"
#include "cli/flag_help.h"
#include "cli/rank_group.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "bench_flags.h"
#include "tpacf/backend.h"
#include "tpacf/device_choice.h"
#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"
#include "tpacf/mock.h"
#include "tpacf/pair_counter.h"
#include "tpacf/version.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace tpacf::cli {

std::string benchHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf bench [--backend cpu|cuda|all] [--precision float|double|all] [--n N]
                   [--nbins N] [--min X --max Y --unit U] [--sets S]
                   [--footprint F] [--clustered [clustering]] [--culling auto|on|off]
                   [--weighted] [--repeat R] [--seed S] [--json] [--quiet] [--cuda-... tuning]
       tpacf bench --read FILE [--repeat R] [--threads N] [--json]

Times pair counting on N generated points (default: uniform over the whole sky), for every
available backend x precision: DD (auto count of N points, N(N-1)/2 pairs) and DR (cross count
of N x N points); with --sets S also one batch of DD + S DR_i + S RR_i scheduled together, as a
real run with S random sets does. Each measurement is run once to warm up, then R times; the
report gives the median wall time, unique pairs/s (the pairs the count covers / median wall
time, also where culling skips most of them), whether spatial culling was used, the device,
and the device-timed seconds where the backend measures them (GPU events).

With --read FILE it times reading a catalog instead: readCatalog on FILE once to warm up, then
R times (default 3); the report gives the file size, points, parser threads, the best wall
time and MB/s (10^6 bytes per second).

)" + flagHelp(flags::kBenchFlags, backends) + R"(
Examples:
  tpacf bench --n 100000 --backend all --precision all --sets 2 --repeat 5
  tpacf bench --read d.txt --repeat 5
  tpacf bench --backend cpu --n 100000 --clustered --footprint box:150,190,0,40 --nbins 20 \
              --min 0.01 --max 10 --unit deg --culling on
)";
}

namespace {

struct Measurement {
    std::string kind;    // "DD", "DR", "batch"
    bool culled = false; // the counter's lastBatchCulled() after the timed runs
    std::size_t taskCount = 0;
    std::uint64_t pairs = 0;
    std::vector<double> wallSeconds;
    std::vector<double> deviceSeconds; // empty where the backend has no device timer
    double medianWall = 0;
    std::optional<double> medianDevice;
};

struct Configuration {
    std::string backend;
    std::string precision;
    std::string kernel; // the CPU's inner-loop variant; "" for backends without variants
    bool skipped = false;
    std::string reason;
    std::string device;
    std::vector<Measurement> measurements;
    std::vector<std::string> notes; // how the counts were made (PairCounter::lastBatchNotes)
};

double median(std::vector<double> values) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

double pairsPerSecond(std::uint64_t pairs, double seconds) {
    return seconds > 0 ? static_cast<double>(pairs) / seconds : 0.0;
}

struct BenchInputs {
    Catalog data, other;
    std::vector<Catalog> randomSets;
};

/// What the points are and how the counters are set.
struct BenchSetup {
    std::size_t n = 0;
    Footprint footprint = Footprint::fullSky();
    bool clustered = false;
    MockParams mock; // count, seed, footprint and clustering of the data when clustered
    CullingMode culling = CullingMode::Auto;
    bool weighted = false; // every catalog carries weights (uniform in [0.5, 1.5])

    /// "100000 clustered (Soneira-Peebles) data points and uniform randoms per catalog, box RA…".
    std::string describe() const {
        std::string text = std::to_string(n);
        text += clustered ? " clustered (Soneira-Peebles) data points and uniform randoms"
                          : " uniform points";
        text += " per catalog, ";
        text += footprint.shape == Footprint::Shape::FullSky ? std::string("full sky")
                                                             : footprint.describe();
        if (weighted)
            text += ", weighted (w uniform in [0.5, 1.5])";
        return text;
    }
};

/// The same points with seeded weights, uniform in [0.5, 1.5] (bench --weighted).
Catalog withBenchWeights(const Catalog& catalog, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> weight(0.5, 1.5);
    std::vector<double> weights(catalog.size());
    for (double& w : weights)
        w = weight(rng);
    return Catalog::fromRadians(
        catalog.name(), std::vector<double>(catalog.ra().begin(), catalog.ra().end()),
        std::vector<double>(catalog.dec().begin(), catalog.dec().end()), std::move(weights),
        std::vector<std::int32_t>(catalog.region().begin(), catalog.region().end()));
}

Measurement measure(PairCounter& counter, const std::string& kind,
                    const std::vector<CountTask>& tasks, const Binning& binning, int repeats,
                    const Context& context, bool showProgress, const std::string& label,
                    bool warmUp) {
    Measurement measurement;
    measurement.kind = kind;
    measurement.taskCount = tasks.size();
    for (const auto& task : tasks)
        measurement.pairs += task.pairTotal();

    // Warm-up first (device context, caches, kernel loading); its time is not reported.
    for (int run = warmUp ? 0 : 1; run <= repeats; ++run) {
        std::string runLabel = label;
        if (run == 0) {
            runLabel += " warm-up";
        } else {
            runLabel += ' ';
            runLabel += std::to_string(run);
            runLabel += '/';
            runLabel += std::to_string(repeats);
        }
        ProgressBar bar(context.err, showProgress, runLabel);
        CountControl control;
        control.cancelRequested = context.cancelRequested;
        control.onProgress = [&](const CountProgress& progress) {
            bar.update(progress.pairsTotal > 0 ? static_cast<double>(progress.pairsDone) /
                                                     static_cast<double>(progress.pairsTotal)
                                               : 0.0,
                       progress.pairsDone);
        };
        // Under MPI every rank counts its share of the batch; the ranks start together and the
        // run takes as long as the slowest of them.
        RankGroup& ranks = context.ranks;
        if (ranks.distributed())
            control.share = WorkShare{static_cast<std::uint32_t>(ranks.rank()),
                                      static_cast<std::uint32_t>(ranks.size())};
        ranks.barrier();
        const auto start = std::chrono::steady_clock::now();
        collectively(ranks, "bench", [&] { counter.countBatch(tasks, binning, control); });
        const double wall = ranks.maxOverRanks(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        bar.finish();
        if (run == 0)
            continue;
        measurement.wallSeconds.push_back(wall);
        measurement.culled = counter.lastBatchCulled();
        if (const auto device = counter.lastDeviceSeconds())
            measurement.deviceSeconds.push_back(*device);
    }
    measurement.medianWall = median(measurement.wallSeconds);
    if (!measurement.deviceSeconds.empty())
        measurement.medianDevice = median(measurement.deviceSeconds);
    return measurement;
}

std::string withThousands(std::uint64_t value) {
    const std::string digits = std::to_string(value);
    std::string grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            grouped.push_back(',');
        grouped.push_back(digits[i]);
    }
    return grouped;
}

void printTable(std::ostream& out, const std::vector<Configuration>& configurations) {
    char line[320];
    std::snprintf(line, sizeof line, "%-8s %-9s %-9s %-6s %-7s %18s %12s %12s %10s  %s\n",
                  "backend", "precision", "kernel", "count", "culling", "pairs", "median wall",
                  "device time", "pairs/s", "device");
    out << line;
    for (const auto& configuration : configurations) {
        if (configuration.skipped) {
            std::snprintf(line, sizeof line, "%-8s %-9s skipped: %s\n",
                          configuration.backend.c_str(), configuration.precision.c_str(),
                          configuration.reason.c_str());
            out << line;
            continue;
        }
        for (const auto& m : configuration.measurements) {
            const std::string device =
                m.medianDevice ? formatSeconds(*m.medianDevice) : std::string("-");
            std::snprintf(line, sizeof line, "%-8s %-9s %-9s %-6s %-7s %18s %12s %12s %10s  %s\n",
                          configuration.backend.c_str(), configuration.precision.c_str(),
                          configuration.kernel.empty() ? "-" : configuration.kernel.c_str(),
                          m.kind.c_str(), m.culled ? "on" : "off", withThousands(m.pairs).c_str(),
                          formatSeconds(m.medianWall).c_str(), device.c_str(),
                          formatRate(pairsPerSecond(m.pairs, m.medianWall)).c_str(),
                          configuration.device.c_str());
            out << line;
        }
    }
}

std::string jsonArray(const std::vector<double>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + jsonNumber(values[i]);
    return text + "]";
}

void printJson(std::ostream& out, const std::vector<Configuration>& configurations,
               const BenchSetup& setup, const Binning& binning, int sets, int repeats,
               std::uint64_t seed, const std::string& cudaTuning, int mpiRanks, bool warmUp) {
    out << "{\n";
    out << "  \"tool\": \"tpacf bench\",\n";
    out << "  \"version\": " << jsonString(version()) << ",\n";
    out << "  \"points\": " << setup.n << ",\n";
    out << "  \"footprint\": " << jsonString(setup.footprint.describe()) << ",\n";
    out << "  \"data\": " << jsonString(setup.clustered ? "clustered" : "uniform") << ",\n";
    out << "  \"clustering\": ";
    if (setup.clustered)
        out << "{\"model\": \"Soneira-Peebles\", \"levels\": " << setup.mock.levels
            << ", \"eta\": " << setup.mock.eta << ", \"lambda\": " << jsonNumber(setup.mock.lambda)
            << ", \"outer_radius_deg\": " << jsonNumber(setup.mock.outerRadiusDeg) << "},\n";
    else
        out << "null,\n";
    out << "  \"culling_requested\": " << jsonString(cullingModeName(setup.culling)) << ",\n";
    out << "  \"weighted\": " << (setup.weighted ? "true" : "false") << ",\n";
    out << "  \"cuda_tuning\": " << jsonString(cudaTuning.empty() ? "default" : cudaTuning)
        << ",\n";
    out << "  \"bins\": {\"count\": " << binning.count()
        << ", \"description\": " << jsonString(binning.spec().describe()) << "},\n";
    out << "  \"sets\": " << sets << ",\n";
    out << "  \"mpi_ranks\": " << mpiRanks << ",\n";
    out << "  \"repeat\": " << repeats << ",\n";
    out << "  \"warmup\": " << (warmUp ? 1 : 0) << ",\n";
    out << "  \"seed\": " << seed << ",\n";
    out << "  \"results\": [";
    for (std::size_t c = 0; c < configurations.size(); ++c) {
        const auto& configuration = configurations[c];
        out << (c ? ",\n" : "\n") << "    {\"backend\": " << jsonString(configuration.backend)
            << ", \"precision\": " << jsonString(configuration.precision);
        if (configuration.skipped) {
            out << ", \"status\": \"skipped\", \"reason\": " << jsonString(configuration.reason)
                << "}";
            continue;
        }
        out << ", \"status\": \"ok\", \"kernel\": "
            << (configuration.kernel.empty() ? std::string("null")
                                             : jsonString(configuration.kernel))
            << ", \"device\": " << jsonString(configuration.device) << ", \"notes\": [";
        for (std::size_t i = 0; i < configuration.notes.size(); ++i)
            out << (i ? ", " : "") << jsonString(configuration.notes[i]);
        out << "], \"measurements\": [";
        for (std::size_t i = 0; i < configuration.measurements.size(); ++i) {
            const auto& m = configuration.measurements[i];
            out << (i ? ",\n" : "\n") << "      {\"count\": " << jsonString(m.kind)
                << ", \"culling\": " << jsonString(m.culled ? "on" : "off")
                << ", \"tasks\": " << m.taskCount << ", \"pairs\": " << m.pairs
                << ", \"median_seconds\": " << jsonNumber(m.medianWall)
                << ", \"pairs_per_second\": " << jsonNumber(pairsPerSecond(m.pairs, m.medianWall))
                << ", \"device_median_seconds\": "
                << (m.medianDevice ? jsonNumber(*m.medianDevice) : "null")
                << ", \"device_pairs_per_second\": "
                << (m.medianDevice ? jsonNumber(pairsPerSecond(m.pairs, *m.medianDevice)) : "null")
                << ", \"seconds\": " << jsonArray(m.wallSeconds)
                << ", \"device_seconds\": " << jsonArray(m.deviceSeconds) << "}";
        }
        out << "\n    ]}";
    }
    out << "\n  ]\n}\n";
}

} // namespace

int benchCommand(const Context& context) {
    using namespace flags::bench;
    const ParsedArgs args = parseArgs(flags::kBenchFlags, context.args);
    RankGroup& ranks = context.ranks;
    const bool distributed = ranks.distributed();
    if (distributed && args.has(kRead))
        args.fail("--read times one process reading a file: run it without MPI");
    if (args.has(kRead))
        return benchReadCommand(args, context);

    // "all" is bench's own word; single values go through the same parsing as everywhere else.
    const std::string backendText = args.value(kBackend).value_or("all");
    const std::string precisionText = args.value(kPrecision).value_or("all");
    const bool allBackends = backendText == "all";
    const bool allPrecisions = precisionText == "all";
    std::vector<std::string> kinds = context.backends.names(); // every backend but "auto"
    kinds.erase(std::remove(kinds.begin(), kinds.end(), kAutoBackend), kinds.end());
    if (!allBackends) {
        const auto kind = context.backends.resolve(backendText);
        if (!kind || *kind == kAutoBackend) {
            std::string names;
            for (const std::string& name : kinds)
                names += name + ", ";
            args.fail("--backend: " + quote(backendText) + " is not a bench backend (" + names +
                      "all)");
        }
        kinds = {*kind};
    }
    // The ranks must measure the same things in the same order: one configuration.
    if (distributed && (allBackends || allPrecisions))
        args.fail("under MPI, bench times one backend and precision across the ranks: give "
                  "--backend and --precision");
    std::vector<Precision> precisions;
    if (allPrecisions) {
        precisions = {Precision::Double, Precision::Float};
    } else {
        const auto precision = parsePrecision(precisionText);
        if (!precision)
            args.fail("--precision: " + quote(precisionText) +
                      " is not a precision (float, double, all)");
        precisions = {*precision};
    }

    const auto n = static_cast<std::size_t>(args.integer(kN, 10000, 2, 1'000'000'000));
    const int binCount =
        static_cast<int>(args.integer(kNbins, 30, 1, static_cast<std::int64_t>(kMaxBinCount)));
    const AngleUnit unit = [&] {
        const auto text = args.value(flags::kUnit);
        if (!text)
            return AngleUnit::Arcminute;
        const auto parsed = parseAngleUnit(*text);
        if (!parsed)
            args.fail(args.spelling(flags::kUnit) + ": " + quote(*text) +
                      " is not an angle unit (deg, arcmin, arcsec)");
        return *parsed;
    }();
    const Binning binning(BinSpec::logCount(args.number(kMin, 0.01),
                                            args.number(kMax, 10000.0), unit, binCount));
    const int sets = static_cast<int>(args.integer(kSets, 0, 0, 1000));
    const int repeats = static_cast<int>(args.integer(kRepeat, 3, 1, 1000));
    const std::uint64_t seed = args.unsignedInteger(kSeed).value_or(1);
    const bool json = args.has(kJson);
    BackendOptions common;
    common.cpuThreads = static_cast<int>(args.integer(kThreads, 0, 0, 4096));
    common.gpuDevices = gpuDevicesFrom(args);
    common.culling = cullingModeFrom(args);
    common.deviceMemoryLimit = byteSizeFrom(args, kGpuMemoryLimit);

    // CUDA tuning from the flags (never from the environment): a provider of its own when set.
    cuda::CudaTuning tuning;
    if (const auto text = args.value(kCudaHist)) {
        const auto histogram = cuda::parseCudaHistogram(*text);
        if (!histogram)
            args.fail("--cuda-hist: " + quote(*text) +
                      " is not a histogram path (thread, thread-atomic, warp, global)");
        tuning.histogram = *histogram;
    }
    tuning.bruteForce = args.has(kCudaBruteForce);
    tuning.trace = args.has(kCudaTrace);
    tuning.blockSizeCap = static_cast<int>(args.integer(kCudaBlock, 0, 0, 256));
    if (const auto text = args.value(kCudaSubtiles)) {
        if (*text != "on" && *text != "off")
            args.fail("--cuda-subtiles: " + quote(*text) + " is not on or off");
        tuning.subTileCulling = *text == "on";
    }
    tuning.regionCellLevel = static_cast<int>(args.integer(kCudaRegionLevel, 0, 0, 5));
    try {
        tuning.validate();
    } catch (const ConfigError& error) {
        args.fail(error.what());
    }
    const std::string tuningText = tuning.describe();
    BackendRegistry backends = context.backends;
    if (!tuningText.empty())
        backends.replace(cuda::makeProvider(tuning));

    BenchSetup setup;
    setup.n = n;
    setup.culling = common.culling;
    setup.footprint = footprintFrom(args);
    setup.clustered = args.has(kClustered);
    setup.weighted = args.has(kWeighted);
    if (hasClusteringOptions(args) && !setup.clustered)
        args.fail("--levels, --eta, --lambda and --outer-radius shape the clustering of "
                  "--clustered data; add --clustered");
    if (setup.clustered) {
        setup.mock.count = n;
        setup.mock.seed = seed;
        setup.mock.footprint = setup.footprint;
        applyClusteringOptions(args, setup.mock);
    }

    // Explicit requests that cannot run are errors; under "all" they are reported as skipped.
    if (!allBackends && kinds.front() == kCpuBackend && !allPrecisions &&
        precisions.front() == Precision::Float)
        args.fail("--precision float needs a GPU backend; the CPU backend counts in double");
    if (!allBackends && kinds.front() != kCpuBackend)
        collectively(ranks, "bench", [&] {
            BackendOptions check = common;
            check.name = kinds.front();
            checkBackendUsable(check, backends);
        });
    // Each rank of a host counts on its own share of the host's GPUs (a single process: every
    // one, or those of --devices), and the GPUs the bench does not use stay out of the driver.
    common.placement = {ranks.hostRank(), ranks.hostSize()};
    if (allBackends || kinds.front() != kCpuBackend) {
        BackendOptions gpus = common;
        if (!allBackends)
            gpus.name = kinds.front();
        gpus = reserveJobDevices(gpus, backends, nullptr);
        common.gpuDevices = gpus.gpuDevices;
        common.placement = gpus.placement;
    }

    // The data as 'tpacf mock' would write it; the randoms uniform over the same footprint.
    const Footprint& sky = setup.footprint;
    const std::string only = args.value(kOnly).value_or("");
    if (!only.empty() && only != "dd" && only != "dr")
        args.fail("--only: " + quote(only) + " is not a measurement (dd or dr)");
    if (!only.empty() && sets > 0)
        args.fail("--only measures DD or DR alone: no --sets batch with it");
    const bool warmUp = !args.has(kNoWarmUp);
    // DD alone needs no second catalog: at 10^9 points that is 40 GB not generated.
    BenchInputs inputs{setup.clustered ? generateClusteredMock(setup.mock, "bench-data")
                                       : generateUniformRandoms(n, sky, seed, "bench-data"),
                       only == "dd" ? Catalog()
                                    : generateUniformRandoms(n, sky, seed + 1, "bench-random-1"),
                       {}};
    for (int i = 1; i < sets; ++i)
        inputs.randomSets.push_back(
            generateUniformRandoms(n, sky, seed + 1 + static_cast<std::uint64_t>(i),
                                   "bench-random-" + std::to_string(i + 1)));
    if (setup.weighted) {
        // The same points as unweighted (same seeds), with weights from a seed of their own per
        // catalog: the weighted pairs/s compares with the unweighted on identical catalogs.
        constexpr std::uint64_t kWeightSeed = 0x5745494748545321ull; // "WEIGHTS!"
        inputs.data = withBenchWeights(inputs.data, seed ^ kWeightSeed);
        inputs.other = withBenchWeights(inputs.other, (seed + 1) ^ kWeightSeed);
        for (std::size_t i = 0; i < inputs.randomSets.size(); ++i)
            inputs.randomSets[i] =
                withBenchWeights(inputs.randomSets[i], (seed + 2 + i) ^ kWeightSeed);
    }

    std::vector<CountTask> batch;
    if (sets > 0) {
        std::vector<const Catalog*> randoms{&inputs.other};
        for (const auto& set : inputs.randomSets)
            randoms.push_back(&set);
        batch.push_back(CountTask{&inputs.data, nullptr});
        for (const Catalog* random : randoms)
            batch.push_back(CountTask{&inputs.data, random});
        for (const Catalog* random : randoms)
            batch.push_back(CountTask{random, nullptr});
    }

    const bool showProgress = context.errIsTerminal && !args.has(kQuiet);
    std::vector<Configuration> configurations;
    for (const std::string& kind : kinds) {
        for (const Precision precision : precisions) {
            Configuration configuration;
            configuration.backend = kind;
            configuration.precision = std::string(precisionName(precision));
            if (kind == kCpuBackend && precision == Precision::Float) {
                configuration.skipped = true;
                configuration.reason = "the CPU backend counts in double only";
                configurations.push_back(std::move(configuration));
                continue;
            }
            const BackendModule* module = backends.find(kind);
            if (module && module->devices().empty()) {
                configuration.skipped = true;
                configuration.reason = module->unavailableReason();
                configurations.push_back(std::move(configuration));
                continue;
            }
            // The CPU runs once per inner-loop variant this processor has (the vector kernel and
            // the portable one), so the bench shows what the vector code buys.
            std::vector<std::unique_ptr<PairCounter>> counters;
            if (kind == kCpuBackend) {
                auto best = std::make_unique<CpuPairCounter>(common.cpuThreads, CpuKernel::Best);
                // Under MPI only the best: nodes may differ in what vector code they have.
                const bool vectorised = best->kernelName() != "portable" && !distributed;
                counters.push_back(std::move(best));
                if (vectorised)
                    counters.push_back(
                        std::make_unique<CpuPairCounter>(common.cpuThreads, CpuKernel::Portable));
                for (const auto& counter : counters)
                    counter->setCulling(common.culling);
            } else {
                BackendOptions backend = common;
                backend.name = kind;
                backend.precision = precision;
                try {
                    if (distributed)
                        collectively(ranks, "bench", [&] {
                            counters.push_back(selectBackend(backend, backends).counter);
                        });
                    else
                        counters.push_back(selectBackend(backend, backends).counter);
                } catch (const BackendUnavailable& error) {
                    if (!allBackends)
                        throw;
                    configuration.skipped = true;
                    configuration.reason = error.what();
                    configurations.push_back(std::move(configuration));
                    continue;
                }
            }
            for (const auto& counter : counters) {
                Configuration variant = configuration;
                if (const auto* cpu = dynamic_cast<const CpuPairCounter*>(counter.get()))
                    variant.kernel = cpu->kernelName();
                variant.device = counter->deviceDescription();
                std::string label = variant.backend + " " + variant.precision;
                if (!variant.kernel.empty())
                    label += " " + variant.kernel;
                const Catalog& data = inputs.data;
                if (only != "dr")
                    variant.measurements.push_back(
                        measure(*counter, "DD", {CountTask{&data, nullptr}}, binning, repeats,
                                context, showProgress, label + " DD", warmUp));
                if (only != "dd")
                    variant.measurements.push_back(
                        measure(*counter, "DR", {CountTask{&data, &inputs.other}}, binning,
                                repeats, context, showProgress, label + " DR", warmUp));
                if (!batch.empty())
                    variant.measurements.push_back(measure(*counter, "batch", batch, binning,
                                                           repeats, context, showProgress,
                                                           label + " batch", warmUp));
                // How a count was made (in chunks through a GPU's memory) goes with its figures.
                for (const std::string& note : counter->lastBatchNotes())
                    variant.notes.push_back(note);
                configurations.push_back(std::move(variant));
            }
        }
    }

    if (json) {
        printJson(context.out, configurations, setup, binning, sets, repeats, seed, tuningText,
                  ranks.size(), warmUp);
        return 0;
    }
    auto& out = context.out;
    out << "tpacf bench: " << setup.describe() << ", "
        << describeBins(binning.spec(), binning.count()) << ", culling "
        << cullingModeName(setup.culling) << ", median of " << repeats
        << (repeats == 1 ? " run" : " runs") << (warmUp ? " after 1 warm-up" : ", no warm-up")
        << ", seed " << seed;
    if (!tuningText.empty())
        out << ", CUDA tuning: " << tuningText;
    if (distributed)
        out << ", across " << ranks.size()
            << " MPI ranks (each counts a share; the wall time is the slowest rank's)";
    out << '\n';
    if (sets > 0)
        out << "batch = DD + " << sets << " DR_i + " << sets << " RR_i in one countBatch\n";
    out << '\n';
    printTable(out, configurations);
    for (const auto& configuration : configurations)
        for (const std::string& note : configuration.notes)
            out << "note (" << configuration.backend << ' ' << configuration.precision
                << "): " << note << '\n';
    return 0;
}

} // namespace tpacf::cli
