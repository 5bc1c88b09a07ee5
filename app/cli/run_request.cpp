// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf run's flags into a RunRequest, checked before anything is read.
#include "cli/run_request.h"

#include "cli/flag_help.h"
#include "cli/options.h"
#include "run_flags.h"
#include "tpacf/errors.h"
#include "tpacf/estimator.h"
#include "tpacf/bootstrap.h"
#include "tpacf/jackknife.h"
#include "tpacf/regions_file.h"
#include "tpacf/sky_mask.h"
#include "tpacf/units.h"

#include <cstdint>
#include <limits>
#include <string_view>

namespace tpacf::cli {

namespace {

/// The jackknife flags as the core's settings, with the column the readers must read; fails
/// (usage) on a combination that cannot mean anything, before any catalog is read.
struct JackknifeRequest {
    JackknifeSettings settings;
    ColumnRef column;
};

JackknifeRequest jackknifeFrom(const ParsedArgs& args) {
    JackknifeRequest request;
    const auto regions = args.integer("--jackknife", std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::max());
    const auto column = args.value("--jackknife-column");
    const auto seed = args.unsignedInteger("--jackknife-seed");
    if (regions && *regions < kMinJackknifeRegions)
        args.fail("--jackknife: K = " + std::to_string(*regions) +
                  " regions cannot give error bars: K must be at least " +
                  std::to_string(kMinJackknifeRegions) +
                  " (w is recomputed with each region left out; 10-100 is usual)");
    if (regions && *regions > kMaxJackknifeRegions)
        args.fail("--jackknife: K = " + std::to_string(*regions) +
                  " regions is more than the limit of " + std::to_string(kMaxJackknifeRegions));
    // With --jackknife-column too, the job checks that the column holds K regions.
    if (regions)
        request.settings.regions = static_cast<int>(*regions);
    if (seed && (!regions || column))
        args.fail("--jackknife-seed seeds the regions --jackknife K grows on the sky; regions "
                  "from --jackknife-column take no seed");
    if (seed)
        request.settings.seed = *seed;
    if (column) {
        try {
            request.column = ColumnRef::parse(*column);
        } catch (const ConfigError& error) {
            args.fail(std::string("--jackknife-column: ") + error.what());
        }
        request.settings.regionColumn = *column;
    }
    const auto nside = args.integer("--jackknife-healpix", 1, kMaxMaskNside);
    if (nside && (*nside & (*nside - 1)) != 0)
        args.fail("--jackknife-healpix " + std::to_string(*nside) + " is not a power of 2");
    const auto regionsFile = args.value("--regions");
    if (nside && !regions && !regionsFile)
        args.fail("--jackknife-healpix NSIDE says how the --jackknife K regions are grown: add "
                  "--jackknife K");
    if ((nside || regionsFile) && column)
        args.fail("--jackknife-column gives the regions itself: not with " +
                  std::string(nside ? "--jackknife-healpix" : "--regions"));
    if (regionsFile && seed)
        args.fail("--jackknife-seed seeds regions grown here; --regions takes them as they are");
    if (nside)
        request.settings.healpixNside = *nside;
    if (regionsFile) // read now: a bad file costs no catalog read
        request.settings.given = std::make_shared<const RegionsDefinition>(readRegionsFile(*regionsFile));
    const auto bootstrap = args.integer("--bootstrap", kMinBootstrapSamples, kMaxBootstrapSamples);
    if (bootstrap && !request.settings.enabled())
        args.fail("--bootstrap resamples the jackknife regions: add --jackknife K, "
                  "--jackknife-column C or --regions FILE");
    if (args.has("--bootstrap-seed") && !bootstrap)
        args.fail("--bootstrap-seed seeds the draws of --bootstrap B: add --bootstrap B");
    if (bootstrap) {
        request.settings.bootstrapSamples = static_cast<int>(*bootstrap);
        request.settings.bootstrapSeed = args.unsignedInteger("--bootstrap-seed").value_or(1);
    }
    if (const auto weight = args.value("--cross-region-weight")) {
        if (!request.settings.enabled())
            args.fail("--cross-region-weight weighs pairs between jackknife regions: add "
                      "--jackknife K, --jackknife-column C or --regions FILE");
        request.settings.crossRegionWeight = parseCrossRegionWeight(*weight);
        if (!request.settings.crossRegionWeight)
            args.fail("--cross-region-weight: '" + *weight + "' is none of " +
                      crossRegionWeightKeys());
        try {
            (void)request.settings.crossWeight();
        } catch (const ConfigError& error) {
            args.fail(std::string("--cross-region-weight: ") + error.what());
        }
    }
    if (args.has("--save-regions") && (!request.settings.enabled() || column))
        args.fail("--save-regions writes regions grown by --jackknife K (k-means or HEALPix) or "
                  "taken by --regions; a --jackknife-column's labels are in the catalogs");
    for (const Flag* flag : {&flags::run::kCovariance, &flags::run::kJackknifeSamples})
        if (args.has(*flag) && !request.settings.enabled())
            args.fail(args.spelling(*flag) + " needs jackknife error bars: add --jackknife K or "
                      "--jackknife-column C");
    return request;
}

/// --share K/N as a WorkShare (0-based part); nullopt without the flag.
std::optional<WorkShare> shareFrom(const ParsedArgs& args) {
    const auto text = args.value("--share");
    if (!text)
        return std::nullopt;
    const std::size_t slash = text->find('/');
    const auto parse = [](std::string_view digits) -> std::optional<std::uint32_t> {
        if (digits.empty() || digits.size() > 9 ||
            digits.find_first_not_of("0123456789") != std::string_view::npos)
            return std::nullopt;
        return static_cast<std::uint32_t>(std::stoul(std::string(digits)));
    };
    const auto part = slash == std::string::npos ? std::nullopt
                                                 : parse(std::string_view(*text).substr(0, slash));
    const auto parts = slash == std::string::npos ? std::nullopt
                                                  : parse(std::string_view(*text).substr(slash + 1));
    if (!part || !parts || *parts < 1 || *part < 1 || *part > *parts)
        args.fail("--share: " + quote(*text) + " is not K/N with 1 <= K <= N (part K of N)");
    return WorkShare{*part - 1, *parts};
}


} // namespace


// --fit THETA_MIN:THETA_MAX, checked before anything is read.
static std::optional<PowerLawFitOptions> fitOptionsFrom(const ParsedArgs& args) {
    const auto text = args.value("--fit");
    if (!text)
        return std::nullopt;
    const auto colon = text->find(':');
    if (colon == std::string::npos)
        args.fail("--fit: " + quote(*text) + " is not a range THETA_MIN:THETA_MAX (bin unit)");
    PowerLawFitOptions options;
    try {
        options.thetaMin = parseNumber("--fit", std::string_view(*text).substr(0, colon));
        options.thetaMax = parseNumber("--fit", std::string_view(*text).substr(colon + 1));
    } catch (const Error& error) {
        args.fail(error.what());
    }
    if (!(options.thetaMin > 0) || !(options.thetaMax > options.thetaMin))
        args.fail("--fit: " + quote(*text) + " needs 0 < THETA_MIN < THETA_MAX (bin unit)");
    return options;
}

namespace {

using namespace flags::run;


/// --data, --random, --data2, --random2.
void readCatalogFlags(const ParsedArgs& args, RunRequest& run) {
    if (!args.has(kData) && args.has(kData2))
        args.fail("--data2 needs --data: the cross-correlation is of --data with --data2");
    run.dataPath = args.required(kData);
    run.randomPaths = args.values(kRandom);
    if (run.randomPaths.empty())
        args.fail("--random is required (at least one random catalog)");
    run.data2Path = args.value(kData2);
    run.random2Paths = args.values(kRandom2);
    if (!run.random2Paths.empty() && !run.data2Path)
        args.fail("--random2 gives randoms of the second sample: add --data2");
    if (!run.random2Paths.empty() && run.random2Paths.size() != run.randomPaths.size())
        args.fail("--random2 names " + std::to_string(run.random2Paths.size()) +
                  " random catalog(s) and --random " + std::to_string(run.randomPaths.size()) +
                  ": give as many (set i of each sample pairs with set i of the other) or no "
                  "--random2 (the second sample then uses the first's randoms)");
}

/// --save-counts, --reuse-counts, --share: what they allow, alone and under MPI.
void readCountFileFlags(const ParsedArgs& args, bool distributed, RunRequest& run) {
    run.savePath = args.value(kSaveCounts);
    run.reusePath = args.value(kReuseCounts);
    run.share = shareFrom(args);
    if (run.share) {
        if (!run.savePath)
            args.fail("--share counts part of the work into a count file: add --save-counts FILE");
        for (const Flag* flag : {&kOutput, &kJsonOutput, &kCovariance, &kJackknifeSamples, &kPlot})
            if (args.has(*flag))
                args.fail("--share counts part of the work, whose w means nothing: " +
                          args.spelling(*flag) +
                          " is not written with it ('tpacf combine' the parts, then run with "
                          "--reuse-counts)");
        if (run.reusePath)
            args.fail("--share counts part of every count: it cannot --reuse-counts");
    }
    if (distributed && run.share)
        args.fail("--share splits the work by hand: under MPI the ranks split it themselves "
                  "(leave --share out)");
    if (args.has(kMeanTheta) && (run.share || distributed))
        args.fail("--mean-theta sums every pair's separation in a pass over the whole batch: " +
                  std::string(distributed
                                  ? "it is not taken under MPI (run it in one process, where "
                                    "a GPU takes the pass)"
                                  : "it cannot be split with --share (count files do not "
                                    "carry the sums)"));
    if (distributed && run.reusePath)
        args.fail("--reuse-counts is not taken under MPI: the ranks count shares of every count "
                  "and reused counts are whole (reuse them in a run of one process)");
    for (const auto& path : {run.savePath, run.reusePath})
        if (path) {
            try {
                requireCountFileFormat(*path);
            } catch (const ConfigError& error) {
                args.fail(std::string(path == run.savePath ? "--save-counts: "
                                                           : "--reuse-counts: ") +
                          error.what());
            }
        }
}

/// --output, --json-output, --covariance, --jackknife-samples, --format, --quiet, the
/// jackknife and the fit.
JackknifeRequest readOutputFlags(const ParsedArgs& args, RunRequest& run) {
    run.outputPath = run.share ? std::string() : args.required(kOutput);
    run.jsonPath = args.value(kJsonOutput).value_or("");
    run.covariancePath = args.value(kCovariance).value_or("");
    run.quiet = args.has(kQuiet);
    run.progressInterval = progressIntervalFrom(args, kDefaultProgressInterval);
    // The result table's form: --format, else the name's extension; the covariance's, its own.
    run.format = tableFormatFrom(args, run.outputPath, "--output");
    run.samplesPath = args.value(kJackknifeSamples).value_or("");
    run.regionsOutPath = args.value(kSaveRegions).value_or("");
    run.regionsInPath = args.value(kRegions).value_or("");
    run.covarianceFormat = tableFormatWithoutJson(args, run.covariancePath, "--covariance",
                                                "the covariance");
    run.samplesFormat = tableFormatWithoutJson(args, run.samplesPath, "--jackknife-samples",
                                             "the jackknife samples");
    const JackknifeRequest jackknife = jackknifeFrom(args);
    run.fitOptions = fitOptionsFrom(args);
    run.fitOutputPath = args.value(kFitOutput).value_or("");
    if (!run.fitOutputPath.empty() && !run.fitOptions)
        args.fail("--fit-output writes the power-law fit: add --fit THETA_MIN:THETA_MAX");
    if (run.fitOptions && run.share)
        args.fail("--share counts part of the work, whose w means nothing: no --fit with it");
    return jackknife;
}

/// The job's settings (estimator, bins, backend, jackknife, how catalogs are read), checked as
/// far as they can be without the catalogs; then the figure, which needs a build with Qt.
void readJobSettings(const ParsedArgs& args, const Context& context,
                     const JackknifeRequest& jackknife, RunRequest& run) {
    CorrelationParams& params = run.params;
    if (const auto text = args.value(kEstimator)) {
        const auto estimator = parseEstimator(*text);
        if (!estimator)
            args.fail("--estimator: " + quote(*text) + " is not an estimator (" +
                      estimatorKeyList() + ")");
        params.estimator = *estimator;
    }
    params.invocation = commandLine("run", context.args);
    params.bins = binSpecFrom(args);
    params.backend = backendOptionsFrom(args, context.backends);
    params.jackknife = jackknife.settings;
    params.meanSeparation = args.has(kMeanTheta);
    ReadOptions readOptions = readOptionsFrom(args);
    readOptions.regionColumn = jackknife.column; // read from the data and every random set
    run.dataOptions = readOptions;
    run.randomOptions = readOptions;
    run.dataOptions.weightColumn = weightColumnFor(args, kDataWeightCol);
    run.randomOptions.weightColumn = weightColumnFor(args, kRandomWeightCol);

    static_cast<void>(Binning(params.bins)); // throws ConfigError naming the bad bin value
    if (params.jackknife.regions > 0) { // a column's K is known once read: the job checks that
        const JackknifeMemory memory = estimateJackknifeMemory(
            static_cast<std::size_t>(params.jackknife.regions), Binning(params.bins).count(),
            // Two samples count 1 + 3n pairs of catalogs, as (3n + 1)/2 sets of one sample.
            run.data2Path ? (3 * run.randomPaths.size() + 2) / 2 : run.randomPaths.size(),
            params.backend.cpuThreads);
        checkJackknifeMemory(memory);
        if (memory.peak() > kJackknifeMemoryNoticeBytes)
            printNotice(context.err, memory.describe());
    }
    // A build without Qt or a bad plot suffix fails here, not after the count.
    if (args.has(kPlotStyle) && !args.has(kPlot))
        args.fail("--plot-style styles the figure of --plot: add --plot FILE");
    if (const auto plotPath = args.value(kPlot))
        run.plot.emplace(*plotPath, args.value(kPlotStyle));
}

} // namespace

void readRunRequest(const ParsedArgs& args, const Context& context, bool distributed,
                    RunRequest& run) {
    readCatalogFlags(args, run);
    run.mask = maskRequestFrom(args);
    readCountFileFlags(args, distributed, run);
    const JackknifeRequest jackknife = readOutputFlags(args, run);
    readJobSettings(args, context, jackknife, run);
}

} // namespace tpacf::cli
