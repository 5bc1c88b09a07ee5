// tpacf run: w(theta) of a data catalog against random catalogs, through CorrelationJob.
#include "cli/args.h"
#include "cli/context.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "tpacf/correlation_job.h"
#include "tpacf/errors.h"
#include "tpacf/estimator.h"
#include "tpacf/result_io.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

namespace tpacf::cli {

std::string runHelp() {
    return std::string(
               R"(Usage: tpacf run --data D --random R1 [--random R2 ...] [bins] [flags] --output result.csv

Computes w(theta) of the data catalog D against one or more random catalogs of the same
footprint: pair counts DD, DR_i and RR_i, then the estimator. Writes a CSV with '#' metadata
lines and one row per bin: theta_lo,theta_hi,theta_mid,DD,DR,RR,DD_norm,DR_norm,RR_norm,w.

Inputs and outputs:
  --data FILE        data catalog (ASCII: RA Dec columns; .fits where built with cfitsio)
  --random FILE      random catalog; repeat for several sets (DR and RR are averaged)
  --output FILE      result CSV (required)
  --json FILE        the same result as JSON, with per-set raw counts
  --estimator E      ls (Landy-Szalay, default), natural, dp (Davis-Peebles), hamilton
  --quiet            no progress bar and no summary on the terminal
  --jackknife K      reserved: jackknife errors are not supported by the CLI yet
  --plot FILE        reserved: plotting needs the GUI build and is not available yet

)") + std::string(readOptionsHelp()) +
           "\n" + std::string(binOptionsHelp()) + "\n" + std::string(backendOptionsHelp()) +
           R"(
A progress bar (percent, pairs/s, ETA) appears on stderr when it is a terminal.
Ctrl-C cancels cleanly (exit 130).

Example:
  tpacf run --data data.txt --random r1.txt --random r2.txt --bins log --min 0.1 \
            --max 600 --unit arcmin --per-decade 5 --output w.csv
)";
}

namespace {

void printSummary(std::ostream& out, const CorrelationResult& result, const std::string& csvPath,
                  const std::string& jsonPath) {
    out << "w(theta) written to " << csvPath << '\n';
    if (!jsonPath.empty())
        out << "JSON written to " << jsonPath << '\n';
    out << "  data      " << result.data.name << " (" << result.data.size << " points)\n";
    for (std::size_t i = 0; i < result.randoms.size(); ++i)
        out << (i == 0 ? "  randoms   " : "            ") << result.randoms[i].name << " ("
            << result.randoms[i].size << " points)\n";
    out << "  bins      " << describeBins(result.bins, result.binCount()) << '\n';
    out << "  estimator " << estimatorName(result.estimator) << '\n';
    out << "  backend   " << result.backendName << ", " << result.deviceDescription << ", "
        << precisionName(result.precision) << " precision, " << formatSeconds(result.elapsedSeconds)
        << '\n';

    // Bins without random pairs carry no estimate; leave them to the CSV.
    const auto dr = result.drSummed();
    const auto rr = result.rrSummed();
    char line[160];
    std::snprintf(line, sizeof line, "  %14s %14s %14s %14s %12s\n",
                  ("theta[" + std::string(angleUnitName(result.bins.unit)) + "]").c_str(), "DD",
                  "DR", "RR", "w");
    out << line;
    for (std::size_t k = 0; k < result.binCount(); ++k) {
        if (rr[k] == 0 && result.raw.dd[k] == 0)
            continue;
        char w[32];
        if (std::isfinite(result.w[k]))
            std::snprintf(w, sizeof w, "%12.5g", result.w[k]);
        else
            std::snprintf(w, sizeof w, "%12s", "nan");
        std::snprintf(line, sizeof line, "  %14.6g %14llu %14llu %14llu %s\n", result.centres[k],
                      static_cast<unsigned long long>(result.raw.dd[k]),
                      static_cast<unsigned long long>(dr[k]),
                      static_cast<unsigned long long>(rr[k]), w);
        out << line;
    }
}

} // namespace

int runCommand(const Context& context) {
    OptionSet options;
    options.addValue("--data")
        .addRepeated("--random")
        .addValue("--output")
        .addValue("--json")
        .addValue("--estimator")
        .addValue("--jackknife")
        .addValue("--plot")
        .addSwitch("--quiet");
    addReadOptions(options);
    addBinOptions(options);
    addBackendOptions(options);
    const ParsedArgs args = parseArgs("run", options, context.args);

    // Reserved flags fail loudly: silently dropping error bars or a plot would mislead.
    if (args.has("--jackknife"))
        args.fail("--jackknife is not supported yet (jackknife errors are planned; run without "
                  "it for w(theta) without error bars)");
    if (args.has("--plot"))
        args.fail("--plot is not available yet: needs the GUI build (plot the CSV instead)");

    const std::string dataPath = args.required("--data");
    const auto randomPaths = args.values("--random");
    if (randomPaths.empty())
        args.fail("--random is required (at least one random catalog)");
    const std::string outputPath = args.required("--output");
    const std::string jsonPath = args.value("--json").value_or("");
    const bool quiet = args.has("--quiet");

    CorrelationParams params;
    if (const auto text = args.value("--estimator")) {
        const auto estimator = parseEstimator(*text);
        if (!estimator)
            args.fail("--estimator: " + quote(*text) +
                      " is not an estimator (ls, natural, dp, hamilton)");
        params.estimator = *estimator;
    }
    params.bins = binSpecFrom(args);
    params.backend = backendOptionsFrom(args);
    const ReadOptions readOptions = readOptionsFrom(args);

    // Everything that can be checked cheaply is checked before the catalogs are read.
    static_cast<void>(Binning(params.bins)); // throws ConfigError naming the bad bin value
    checkBackendUsable(params.backend, *context.gpu);
    checkOutputPath("--output", outputPath);
    if (!jsonPath.empty())
        checkOutputPath("--json", jsonPath);

    params.data = loadCatalog(dataPath, readOptions);
    for (const auto& path : randomPaths)
        params.randoms.push_back(loadCatalog(path, readOptions));
    // Readers do not poll the flag: honour a Ctrl-C pressed while a big file was being read.
    if (context.cancelRequested && context.cancelRequested->load())
        throw Cancelled();

    CorrelationJob job(std::move(params), context.gpu);
    ProgressBar bar(context.err, context.errIsTerminal && !quiet, "counting");
    bool noticeShown = false;
    const auto onProgress = [&](const JobProgress& progress) {
        // Say early that the job fell back to the CPU, not after an hour of counting.
        if (!noticeShown && progress.partial && !progress.partial->backendNotice.empty()) {
            bar.finish();
            printNotice(context.err, progress.partial->backendNotice);
            noticeShown = true;
        }
        bar.update(progress.fraction, progress.pairsDone, progress.pairsPerSecond);
    };
    const CorrelationResult result = job.run(onProgress, context.cancelRequested);
    bar.finish();
    if (!noticeShown)
        printNotice(context.err, result.backendNotice);
    if (result.status == JobStatus::Cancelled)
        throw Cancelled();

    writeResultCsvFile(outputPath, result);
    if (!jsonPath.empty())
        writeTextFile(jsonPath, [&](std::ostream& out) { writeResultJson(out, result); });
    if (!quiet)
        printSummary(context.out, result, outputPath, jsonPath);
    return 0;
}

} // namespace tpacf::cli
