// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf bench: pairs per second of each backend and precision on generated points (uniform or
// clustered, full sky or a footprint), with spatial culling as asked.
#include "cli/args.h"
#include "cli/bench_read.h"
#include "cli/bench_report.h"
#include "cli/context.h"
#include "cli/failure.h"
#include "cli/flag_help.h"
#include "cli/number_text.h"
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
                   [--weighted] [--repeat R] [--seed S] [--cpu-kernel best|portable|all]
                   [--json] [--quiet] [--cuda-... tuning]
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



struct BenchInputs {
    Catalog data, other;
    std::vector<Catalog> randomSets;
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

/// What bench times: the backends (every one but "auto", or the one asked for) and the
/// precisions (both, or the one asked for).
struct BenchTargets {
    std::vector<std::string> kinds;
    std::vector<Precision> precisions;
    bool allBackends = true;
    bool allPrecisions = true;
    // The CPU backend's kernels: the best this processor has, the portable one, or both.
    bool cpuBest = true;
    bool cpuPortable = true;
};

BenchTargets benchTargetsFrom(const ParsedArgs& args, const Context& context) {
    using namespace flags::bench;
    BenchTargets targets;
    // "all" is bench's own word; single values go through the same parsing as everywhere else.
    const std::string backendText = args.value(kBackend).value_or("all");
    const std::string precisionText = args.value(kPrecision).value_or("all");
    targets.allBackends = backendText == "all";
    targets.allPrecisions = precisionText == "all";
    std::vector<std::string>& kinds = targets.kinds;
    kinds = context.backends.names(); // every backend but "auto"
    kinds.erase(std::remove(kinds.begin(), kinds.end(), kAutoBackend), kinds.end());
    if (!targets.allBackends) {
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
    if (context.ranks.distributed() && (targets.allBackends || targets.allPrecisions))
        args.fail("under MPI, bench times one backend and precision across the ranks: give "
                  "--backend and --precision");
    if (targets.allPrecisions) {
        targets.precisions = {Precision::Double, Precision::Float};
    } else {
        const auto precision = parsePrecision(precisionText);
        if (!precision)
            args.fail("--precision: " + quote(precisionText) +
                      " is not a precision (float, double, all)");
        targets.precisions = {*precision};
    }
    const std::string kernelText = args.value(kCpuKernel).value_or("all");
    if (kernelText != "best" && kernelText != "portable" && kernelText != "all")
        args.fail("--cpu-kernel: " + quote(kernelText) +
                  " is not a CPU kernel (best, portable, all)");
    targets.cpuBest = kernelText != "portable";
    targets.cpuPortable = kernelText != "best";
    return targets;
}

/// Log bins from --nbins, --min, --max, --unit (bench's defaults: 30 bins, 0.01'-10000').
Binning benchBinningFrom(const ParsedArgs& args) {
    using namespace flags::bench;
    const int binCount =
        static_cast<int>(args.integer(kNbins, 30, 1, static_cast<std::int64_t>(kMaxBinCount)));
    AngleUnit unit = AngleUnit::Arcminute;
    if (const auto text = args.value(flags::kUnit)) {
        const auto parsed = parseAngleUnit(*text);
        if (!parsed)
            args.fail(args.spelling(flags::kUnit) + ": " + quote(*text) +
                      " is not an angle unit (deg, arcmin, arcsec)");
        unit = *parsed;
    }
    return Binning(
        BinSpec::logCount(args.number(kMin, 0.01), args.number(kMax, 10000.0), unit, binCount));
}

/// The CUDA tuning flags (never the environment): the module's provider replaced by a tuned
/// one in `backends` where any is given. Returns the tuning in words ("" for none).
std::string applyCudaTuning(const ParsedArgs& args, BackendRegistry& backends) {
    using namespace flags::bench;
    cuda::CudaTuning tuning;
    if (const auto text = args.value(kCudaHist)) {
        const auto histogram = cuda::parseCudaHistogram(*text);
        if (!histogram)
            args.fail("--cuda-hist: " + quote(*text) +
                      " is not a histogram path (thread-atomic, warp, global)");
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
    if (const auto text = args.value(kCudaWholeSubtiles)) {
        if (*text != "on" && *text != "off")
            args.fail("--cuda-whole-subtiles: " + quote(*text) + " is not on or off");
        tuning.wholeSubTiles = *text == "on";
    }
    if (const auto text = args.value(kCudaNarrowSubtiles)) {
        if (*text != "on" && *text != "off")
            args.fail("--cuda-narrow-subtiles: " + quote(*text) + " is not on or off");
        tuning.narrowSubTiles = *text == "on";
    }
    if (const auto text = args.value(kCudaBandedLookup)) {
        if (*text != "on" && *text != "off")
            args.fail("--cuda-banded-lookup: " + quote(*text) + " is not on or off");
        tuning.bandedLookup = *text == "on";
    }
    if (const auto text = args.value(kCudaProjection)) {
        const auto projection = cuda::parseCudaProjection(*text);
        if (!projection)
            args.fail("--cuda-projection: " + quote(*text) + " is not auto, on or off");
        tuning.projection = *projection;
    }
    tuning.projectionReach = args.number(kCudaProjectionReach, tuning.projectionReach);
    if (const auto text = args.value(kCudaTileOrder)) {
        const auto order = cuda::parseCudaTileOrder(*text);
        if (!order)
            args.fail("--cuda-tile-order: " + quote(*text) + " is not auto, curve or kd");
        tuning.tileOrder = *order;
    }
    tuning.regionCellLevel = static_cast<int>(args.integer(kCudaRegionLevel, 0, 0, 5));
    if (const auto text = args.value(kCudaSharedUploads)) {
        const auto shared = cuda::parseCudaSharedUploads(*text);
        if (!shared)
            args.fail("--cuda-shared-uploads: " + quote(*text) + " is not auto, all or off");
        tuning.sharedUploads = *shared;
    }
    try {
        tuning.validate();
    } catch (const ConfigError& error) {
        args.fail(error.what());
    }
    const std::string text = tuning.describe();
    if (!text.empty())
        backends.replace(cuda::makeProvider(tuning));
    return text;
}

/// The points (how many, where, clustered or not, weighted) and how they are timed.
BenchSetup benchSetupFrom(const ParsedArgs& args, CullingMode culling) {
    using namespace flags::bench;
    BenchSetup setup;
    setup.n = static_cast<std::size_t>(args.integer(kN, 10000, 2, 1'000'000'000));
    setup.sets = static_cast<int>(args.integer(kSets, 0, 0, 1000));
    setup.repeats = static_cast<int>(args.integer(kRepeat, 3, 1, 1000));
    setup.seed = args.unsignedInteger(kSeed).value_or(1);
    setup.culling = culling;
    setup.footprint = footprintFrom(args);
    setup.clustered = args.has(kClustered);
    setup.weighted = args.has(kWeighted);
    if (hasClusteringOptions(args) && !setup.clustered)
        args.fail("--levels, --eta, --lambda and --outer-radius shape the clustering of "
                  "--clustered data; add --clustered");
    if (setup.clustered) {
        setup.mock.count = setup.n;
        setup.mock.seed = setup.seed;
        setup.mock.footprint = setup.footprint;
        applyClusteringOptions(args, setup.mock);
    }
    return setup;
}

/// Explicit requests that cannot run are errors (under "all" they are reported as skipped);
/// then the GPUs the bench uses are reserved and the others kept out of the driver.
void reserveBenchDevices(const ParsedArgs& args, const Context& context,
                         const BenchTargets& targets, const BackendRegistry& backends,
                         BackendOptions& common) {
    RankGroup& ranks = context.ranks;
    const std::string& only = targets.kinds.front();
    if (!targets.allBackends && only == kCpuBackend && !targets.allPrecisions &&
        targets.precisions.front() == Precision::Float)
        args.fail("--precision float needs a GPU backend; the CPU backend counts in double");
    if (!targets.allBackends && only != kCpuBackend)
        collectively(ranks, "bench", [&] {
            BackendOptions check = common;
            check.name = only;
            checkBackendUsable(check, backends);
        });
    // Each rank of a host counts on its own share of the host's GPUs (a single process: every
    // one, or those of --devices), and the GPUs the bench does not use stay out of the driver.
    common.placement = {ranks.hostRank(), ranks.hostSize()};
    if (targets.allBackends || only != kCpuBackend) {
        BackendOptions gpus = common;
        if (!targets.allBackends)
            gpus.name = only;
        gpus = reserveJobDevices(gpus, backends, nullptr);
        common.gpuDevices = gpus.gpuDevices;
        common.placement = gpus.placement;
    }
}

/// The data as 'tpacf mock' would write it; the randoms uniform over the same footprint. DD
/// alone (--only dd) needs no second catalog: at 10^9 points that is 40 GB not generated.
BenchInputs generateBenchInputs(const BenchSetup& setup, const std::string& only) {
    const Footprint& sky = setup.footprint;
    const std::size_t n = setup.n;
    const std::uint64_t seed = setup.seed;
    BenchInputs inputs{setup.clustered ? generateClusteredMock(setup.mock, "bench-data")
                                       : generateUniformRandoms(n, sky, seed, "bench-data"),
                       only == "dd" ? Catalog()
                                    : generateUniformRandoms(n, sky, seed + 1, "bench-random-1"),
                       {}};
    for (int i = 1; i < setup.sets; ++i)
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
    return inputs;
}

/// The batch of a run with S random sets: DD, every DR_i, every RR_i.
std::vector<CountTask> batchTasks(const BenchInputs& inputs, int sets) {
    std::vector<CountTask> batch;
    if (sets <= 0)
        return batch;
    std::vector<const Catalog*> randoms{&inputs.other};
    for (const auto& set : inputs.randomSets)
        randoms.push_back(&set);
    batch.push_back(CountTask{&inputs.data, nullptr});
    for (const Catalog* random : randoms)
        batch.push_back(CountTask{&inputs.data, random});
    for (const Catalog* random : randoms)
        batch.push_back(CountTask{random, nullptr});
    return batch;
}

/// The counters of one backend x precision: on the CPU one per inner-loop variant this
/// processor has (the vector kernel and the portable one, so that the bench shows what the
/// vector code buys; --cpu-kernel picks one). Empty, with `configuration` marked skipped, where it
/// cannot run here.
std::vector<std::unique_ptr<PairCounter>> countersFor(const Context& context,
                                                      const BenchTargets& targets,
                                                      const BackendRegistry& backends,
                                                      const BackendOptions& common,
                                                      Configuration& configuration,
                                                      Precision precision) {
    std::vector<std::unique_ptr<PairCounter>> counters;
    const std::string& kind = configuration.backend;
    if (kind == kCpuBackend && precision == Precision::Float) {
        configuration.skipped = true;
        configuration.reason = "the CPU backend counts in double only";
        return counters;
    }
    const BackendModule* module = backends.find(kind);
    if (module && module->devices().empty()) {
        configuration.skipped = true;
        configuration.reason = module->unavailableReason();
        return counters;
    }
    const bool distributed = context.ranks.distributed();
    if (kind == kCpuBackend) {
        auto best = std::make_unique<CpuPairCounter>(common.cpuThreads, CpuKernel::Best);
        // Where the best is the portable one, it is timed once. Under MPI, "all" times only the
        // best: nodes may differ in what vector code they have, and the ranks measure alike.
        const bool vectorised = best->kernelName() != "portable";
        if (targets.cpuBest || !vectorised)
            counters.push_back(std::move(best));
        if (vectorised && targets.cpuPortable && !(distributed && targets.cpuBest))
            counters.push_back(
                std::make_unique<CpuPairCounter>(common.cpuThreads, CpuKernel::Portable));
        for (const auto& counter : counters)
            counter->setCulling(common.culling);
        return counters;
    }
    BackendOptions backend = common;
    backend.name = kind;
    backend.precision = precision;
    try {
        if (distributed)
            collectively(context.ranks, "bench", [&] {
                counters.push_back(selectBackend(backend, backends).counter);
            });
        else
            counters.push_back(selectBackend(backend, backends).counter);
    } catch (const BackendUnavailable& error) {
        if (!targets.allBackends)
            throw;
        configuration.skipped = true;
        configuration.reason = error.what();
    }
    return counters;
}

/// What one bench measures per counter: DD, DR and the batch, as asked.
struct BenchWork {
    const BenchInputs& inputs;
    const std::vector<CountTask>& batch;
    const Binning& binning;
    const BenchSetup& setup;
    std::string only; // "dd", "dr" or "" for both
    bool showProgress = false;
};

Configuration measureCounter(const Context& context, const BenchWork& work,
                             const Configuration& configuration, PairCounter& counter) {
    Configuration variant = configuration;
    if (const auto* cpu = dynamic_cast<const CpuPairCounter*>(&counter))
        variant.kernel = cpu->kernelName();
    variant.device = counter.deviceDescription();
    std::string label = variant.backend + " " + variant.precision;
    if (!variant.kernel.empty())
        label += " " + variant.kernel;
    const Catalog& data = work.inputs.data;
    const int repeats = work.setup.repeats;
    const bool warmUp = work.setup.warmUp;
    if (work.only != "dr")
        variant.measurements.push_back(measure(counter, "DD", {CountTask{&data, nullptr}},
                                               work.binning, repeats, context, work.showProgress,
                                               label + " DD", warmUp));
    if (work.only != "dd")
        variant.measurements.push_back(
            measure(counter, "DR", {CountTask{&data, &work.inputs.other}}, work.binning, repeats,
                    context, work.showProgress, label + " DR", warmUp));
    if (!work.batch.empty())
        variant.measurements.push_back(measure(counter, "batch", work.batch, work.binning, repeats,
                                               context, work.showProgress, label + " batch",
                                               warmUp));
    // How a count was made (in chunks through a GPU's memory) goes with its figures.
    for (const std::string& note : counter.lastBatchNotes())
        variant.notes.push_back(note);
    return variant;
}

} // namespace

int benchCommand(const Context& context) {
    using namespace flags::bench;
    const ParsedArgs args = parseArgs(flags::kBenchFlags, context.args);
    RankGroup& ranks = context.ranks;
    if (ranks.distributed() && args.has(kRead))
        args.fail("--read times one process reading a file: run it without MPI");
    if (args.has(kRead))
        return benchReadCommand(args, context);

    const BenchTargets targets = benchTargetsFrom(args, context);
    const Binning binning = benchBinningFrom(args);
    BackendOptions common;
    common.cpuThreads = static_cast<int>(args.integer(kThreads, 0, 0, 4096));
    common.gpuDevices = gpuDevicesFrom(args);
    common.culling = cullingModeFrom(args);
    common.deviceMemoryLimit = byteSizeFrom(args, kGpuMemoryLimit);
    BackendRegistry backends = context.backends;
    const std::string tuningText = applyCudaTuning(args, backends);
    BenchSetup setup = benchSetupFrom(args, common.culling);
    setup.cudaTuning = tuningText;
    reserveBenchDevices(args, context, targets, backends, common);

    const std::string only = args.value(kOnly).value_or("");
    if (!only.empty() && only != "dd" && only != "dr")
        args.fail("--only: " + quote(only) + " is not a measurement (dd or dr)");
    if (!only.empty() && setup.sets > 0)
        args.fail("--only measures DD or DR alone: no --sets batch with it");
    setup.warmUp = !args.has(kNoWarmUp);
    const BenchInputs inputs = generateBenchInputs(setup, only);
    const std::vector<CountTask> batch = batchTasks(inputs, setup.sets);

    const BenchWork work{inputs, batch, binning, setup, only,
                         context.errIsTerminal && !args.has(kQuiet)};
    std::vector<Configuration> configurations;
    for (const std::string& kind : targets.kinds)
        for (const Precision precision : targets.precisions) {
            Configuration configuration;
            configuration.backend = kind;
            configuration.precision = std::string(precisionName(precision));
            const auto counters =
                countersFor(context, targets, backends, common, configuration, precision);
            if (configuration.skipped)
                configurations.push_back(std::move(configuration));
            for (const auto& counter : counters)
                configurations.push_back(measureCounter(context, work, configuration, *counter));
        }

    if (args.has(kJson))
        printBenchJson(context.out, configurations, setup, binning, ranks.size());
    else
        printBenchText(context.out, configurations, setup, binning, ranks.size());
    return 0;
}

} // namespace tpacf::cli
