// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf run: w(theta) of a data catalog against random catalogs, through CorrelationJob.
#include "cli/args.h"
#include "cli/context.h"
#include "cli/distributed_count.h"
#include "cli/failure.h"
#include "cli/flag_help.h"
#include "cli/rank_group.h"
#include "cli/file_plan.h"
#include "cli/input_loading.h"
#include "job_file.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/plot_output.h"
#include "cli/progress.h"
#include "cli/run_report.h"
#include "cli/run_request.h"
#include "run_flags.h"
#include "tpacf/catalog_formats.h"
#include "tpacf/correlation_job.h"
#include "tpacf/count_store.h"
#include "tpacf/errors.h"
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"
#include "tpacf/power_law_fit.h"
#include "tpacf/regions_file.h"
#include "tpacf/units.h"
#include "tpacf/output_file.h"
#include "tpacf/result_io.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::cli {

std::string runHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf run --data D --random R1 [--random R2 ...] [bins] [flags] --output result.csv
       tpacf run --data D1 --data2 D2 --random R1 [--random2 R2 ...] [...] --output cross.csv

Computes w(theta) of the data catalog D against one or more random catalogs of the same
footprint: pair counts DD, DR_i and RR_i, then the estimator. Writes a CSV with '#' metadata
lines and one row per bin: theta_lo,theta_hi,theta_mid,DD,DR,RR,DD_norm,DR_norm,RR_norm,w
(and w_err with jackknife error bars). With weights (below), DD_w, DR_w, RR_w (sums of
w_i*w_j) follow the raw counts and the normalised columns and w use them.

With --data2, the cross-correlation of two samples: D1D2, D1R2, R1D2 and R1R2, written as
the columns DD, DR, RD, RR (and their _norm forms), and the two-sample estimators
(Landy-Szalay (D1D2 - D1R2 - R1D2 + R1R2)/R1R2, Davis-Peebles D1D2/D1R2 - 1, natural
D1D2/R1R2 - 1, Hamilton D1D2 R1R2/(D1R2 R1D2) - 1). Without --random2 the second sample
uses the first's randoms (R1D2 is D2 against R1, R1R2 is R1R1; the metadata says so).

)" + flagHelp(flags::kRunFlags, backends) + R"(
A progress bar (percent, pairs/s, ETA) appears on stderr when it is a terminal; where it is not
(a batch job's log), a time-stamped progress line every 10 s (--progress-interval).
Ctrl-C cancels cleanly (exit 130).

Example:
  tpacf run --data data.txt --random r1.txt --random r2.txt --bins log --min 0.1 \
            --max 600 --unit arcmin --per-decade 5 --output w.csv
  tpacf run --data data.txt --random r1.txt --preset log5 --jackknife 20 \
            --output w.csv --covariance cov.csv --plot w.pdf
  tpacf run --data data.txt --random r1.txt --preset log5 --save-counts run.counts.json \
            --output w.csv
  tpacf run --data new.txt --random r1.txt --preset log5 --reuse-counts run.counts.json \
            --output w_new.csv
  tpacf run --data galaxies.fits --data2 quasars.fits --random r.fits --weight-col WEIGHT \
            --edges 0.1,0.3,1,3,10 --unit deg --output cross.csv
)";
}

namespace {

using namespace flags::run;

/// Every file the run reads and writes, checked together before any is touched.
FilePlan runFiles(const ParsedArgs& args, const RunRequest& run) {
    FilePlan files;
    if (const auto job = args.value(kConfig))
        files.input("--config", *job); // no output may overwrite the job file
    files.input("--data", run.dataPath);
    for (const auto& path : run.randomPaths)
        files.input("--random", path);
    if (run.data2Path)
        files.input("--data2", *run.data2Path);
    for (const auto& path : run.random2Paths)
        files.input("--random2", path);
    if (run.reusePath)
        files.input("--reuse-counts", *run.reusePath);
    if (!run.share)
        files.output("--output", run.outputPath);
    if (run.savePath)
        files.output("--save-counts", *run.savePath);
    if (!run.jsonPath.empty())
        files.output(args.spelling(kJsonOutput), run.jsonPath);
    if (!run.covariancePath.empty())
        files.output("--covariance", run.covariancePath);
    if (!run.samplesPath.empty())
        files.output("--jackknife-samples", run.samplesPath);
    if (!run.regionsOutPath.empty())
        files.output("--save-regions", run.regionsOutPath);
    if (!run.regionsInPath.empty())
        files.input("--regions", run.regionsInPath);
    if (run.plot)
        files.output("--plot", run.plot->path());
    if (run.mask)
        files.input("--mask", run.mask->path);
    if (const auto stylePath = args.value(kPlotStyle))
        files.input("--plot-style", *stylePath);
    if (!run.fitOutputPath.empty())
        files.output("--fit-output", run.fitOutputPath);
    return files;
}

/// The catalogs (and a count file) as read, with how long each took, for --timings.
struct RunInputs {
    double countFileSeconds = -1.0; // negative: no count file was read
    double deviceChoiceSeconds = 0;
    std::vector<CatalogRequest> requests;
    LoadedCatalogs loaded;
};

/// Checks the files, reads a count file, then the catalogs while the backend starts; fills the
/// job's catalogs and reuse. Under MPI every rank does this itself (collectively, in the caller).
RunInputs loadRunInputs(const ParsedArgs& args, const Context& context, RunRequest& run) {
    RunInputs inputs;
    runFiles(args, run).check();
    CorrelationParams& params = run.params;
    // A count file is read (and found foreign or broken) before any catalog.
    const auto countFileStart = std::chrono::steady_clock::now();
    if (run.reusePath) {
        params.reuse = std::make_shared<const CountStore>(readCountFile(*run.reusePath));
        inputs.countFileSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - countFileStart)
                .count();
    }
    // A mask is read before the catalogs: a bad one costs no catalog read. The job cuts every
    // catalog to it and says what each kept in the result's notes.
    if (run.mask) {
        params.mask =
            std::make_shared<const SkyMask>(readSkyMask(run.mask->path, run.mask->options));
        params.maskThreshold = run.mask->threshold;
    }
    // The catalogs in flag order (data, randoms, data2, randoms2) while the backend starts.
    inputs.requests.push_back({run.dataPath, run.dataOptions});
    for (const auto& path : run.randomPaths)
        inputs.requests.push_back({path, run.randomOptions});
    if (run.data2Path)
        inputs.requests.push_back({*run.data2Path, run.dataOptions});
    for (const auto& path : run.random2Paths)
        inputs.requests.push_back({path, run.randomOptions});
    // Before reading: the job's GPUs (none asked for: as many as its work, judged from the
    // files' sizes, wants; under MPI this rank's share), every other GPU kept out of the
    // driver; they start beside the reading.
    RankGroup& ranks = context.ranks;
    params.backend.placement = {ranks.hostRank(), ranks.hostSize()};
    const auto choiceStart = std::chrono::steady_clock::now();
    params.backend = reserveDevicesBeforeReading(
        inputs.requests,
        requestCounts(run.randomPaths.size(), run.data2Path.has_value(), run.random2Paths.size()),
        params.bins, params.backend, context.backends, 1.0 / static_cast<double>(ranks.size()));
    inputs.deviceChoiceSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - choiceStart).count();
    inputs.loaded = loadCatalogsWhileBackendStarts(inputs.requests, params.backend,
                                                   context.backends, context.cancelRequested);
    std::size_t next = 0;
    params.data = inputs.loaded.catalogs[next++];
    for (std::size_t i = 0; i < run.randomPaths.size(); ++i)
        params.randoms.push_back(inputs.loaded.catalogs[next++]);
    if (run.data2Path)
        params.data2 = inputs.loaded.catalogs[next++];
    for (std::size_t i = 0; i < run.random2Paths.size(); ++i)
        params.randoms2.push_back(inputs.loaded.catalogs[next++]);
    if (context.cancelRequested && context.cancelRequested->load())
        throw Cancelled();
    return inputs;
}

/// The job's progress on the terminal: one bar for all ranks, and the backend's notice (a
/// fallback to the CPU) as soon as it is known.
struct RunProgress {
    ProgressBar bar;
    bool noticeShown = false;
    bool separationsShown = false; // the bar shows the mean-separation pass (--mean-theta)
};

/// Runs the job. Under MPI each rank counts its share; the ranks agree on how it went, then
/// rank 0 estimates from the sum.
CorrelationResult countRun(CorrelationJob& job, const Context& context, RunProgress& progress) {
    RankGroup& ranks = context.ranks;
    const bool distributed = ranks.distributed();
    ProgressAcrossRanks across(ranks);
    // Under MPI the job stops on Ctrl-C or when another rank failed; both are seen here.
    std::atomic<bool> stop{false};
    RankProgress mine;
    const auto show = [&](const RankProgress& all) {
        progress.bar.update(all.fraction, all.pairsDone, all.pairsPerSecond, all.preparing);
    };
    const auto onProgress = [&](const JobProgress& jobProgress) {
        // Say early that the job fell back to the CPU, not after an hour of counting.
        if (!progress.noticeShown && jobProgress.partial &&
            !jobProgress.partial->backendNotice.empty()) {
            progress.bar.finish();
            printNotice(context.err, jobProgress.partial->backendNotice);
            progress.noticeShown = true;
        }
        if (jobProgress.meanSeparation && !progress.separationsShown) {
            progress.bar.startStage("mean theta");
            progress.separationsShown = true;
        }
        mine = {jobProgress.fraction, jobProgress.pairsDone, jobProgress.pairsPerSecond,
                jobProgress.preparing, false};
        if (distributed && ((context.cancelRequested && context.cancelRequested->load()) ||
                            ranks.peerFailed()))
            stop.store(true);
        show(across.update(mine));
    };
    const auto countStart = std::chrono::steady_clock::now();
    CorrelationResult result;
    std::optional<RankFailure> countFailure;
    try {
        result = job.run(onProgress, distributed ? &stop : context.cancelRequested);
        if (result.status == JobStatus::Cancelled)
            throw Cancelled();
    } catch (...) {
        if (!distributed)
            throw;
        countFailure = describeFailure(std::current_exception(), "run");
        if (countFailure->kind == RankFailure::Kind::Error)
            ranks.announceFailure();
    }
    if (distributed) {
        mine.fraction = 1.0;
        across.finish(mine, show);
        if (auto failure = ranks.agree(countFailure))
            throw RunEnded(std::move(*failure));
        collectively(ranks, "run", [&] {
            result = estimateFromRanks(
                ranks, job, result, context.backends,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - countStart)
                    .count());
        });
    }
    return result;
}

/// What the user must know about the result before the files: the backend's notice, the
/// result's notes, doubtful error bars, reused counts.
void printRunNotices(const Context& context, const RunRequest& run, const CorrelationJob& job,
                     const CorrelationResult& result, bool backendNoticeShown) {
    if (!backendNoticeShown)
        printNotice(context.err, result.backendNotice);
    // Error bars were asked for: a result without them must not pass for one with them.
    if (job.params().jackknife.enabled() && !result.hasJackknife())
        throw std::logic_error("the job returned no jackknife error bars");
    // Negative weights, shared randoms: what the numbers mean depends on them.
    for (const auto& note : result.notes)
        if (note != result.deviceChoice) // the summary's "devices" line says it
            printNotice(context.err, note);
    // Empty or tiny regions make the error bars doubtful: say so even with --quiet.
    for (const auto& warning : result.jackknifeRegions.warnings)
        printNotice(context.err, warning);
    // A finite w without σ (a leave-one-out sample has no pairs in that bin) must not read as
    // an exact value in the CSV's nan.
    const std::size_t withoutSigma = result.binsWithoutSigma();
    if (withoutSigma > 0 && !run.quiet)
        printNotice(context.err, std::to_string(withoutSigma) +
                                     " bins with a finite w have no jackknife sigma (w_err nan): "
                                     "a leave-one-out sample has no pairs there");
    for (const auto& reused : result.reusedCounts)
        printNotice(context.err, "reused " + reused);
}

/// The result's files: the table, JSON, covariance, figure and fit (after the result is
/// written, so that a fit that fails loses no count).
void writeRunFiles(const Context& context, const RunRequest& run, const CorrelationResult& result) {
    writeResultFile(run.outputPath, result, run.format, {run.covariancePath, run.samplesPath});
    if (!run.jsonPath.empty())
        writeFileAtomically(run.jsonPath, [&](std::ostream& out) { writeResultJson(out, result); });
    if (!run.covariancePath.empty())
        writeCovarianceFile(run.covariancePath, result, run.covarianceFormat);
    if (!run.samplesPath.empty())
        writeJackknifeSamplesFile(run.samplesPath, result, run.samplesFormat);
    if (run.plot && !run.fitOptions)
        run.plot->write(result);
    if (run.fitOptions) {
        const PowerLawFit fit = fitPowerLaw(result, *run.fitOptions);
        printFit(context.err, fit, result);
        if (!run.fitOutputPath.empty())
            writeFileAtomically(run.fitOutputPath, [&](std::ostream& out) {
                out << powerLawFitCsv(fit, *run.fitOptions, angleUnitName(result.bins.unit));
            });
        if (run.plot)
            run.plot->write(result, &fit, &*run.fitOptions); // with the fitted curve
    }
}

} // namespace

int runCommand(const Context& context) {
    const auto commandStart = std::chrono::steady_clock::now();
    // A job file's flags go under the command line's, which override them.
    std::optional<JobFile> jobFile;
    const ParsedArgs args =
        parseArgs(flags::kRunFlags, wordsWithJobFile(flags::kRunFlags, context.args, jobFile));
    RankGroup& ranks = context.ranks;
    const bool distributed = ranks.distributed();
    // Everything that can be checked cheaply is checked before the catalogs are read.
    RunRequest run;
    readRunRequest(args, context, distributed, run);
    if (jobFile) {
        run.params.jobFilePath = jobFile->path;
        run.params.jobFileText = jobFile->text;
    }
    // Under MPI every rank checks, reads and counts for itself, and the ranks agree on how it
    // went before anything is sent: a file missing on one node ends the run on all of them.
    // Each rank reads the catalogs itself rather than receive them from rank 0: a cluster's
    // nodes read from a shared file system at once, where sending 24 bytes a point from one rank
    // would take longer; that every rank read the same content is checked on the counts'
    // fingerprints (sumCountStoresToRoot).
    RunInputs inputs;
    collectively(ranks, "run", [&] { inputs = loadRunInputs(args, context, run); });

    // Each rank counts its share of the batch's work list into a count store; rank 0 adds them
    // up and estimates from the sum (countAcrossRanks).
    CorrelationParams params = std::move(run.params);
    params.collectCounts = run.savePath.has_value() || distributed;
    if (run.share)
        params.share = *run.share;
    if (distributed)
        params.share = WorkShare{static_cast<std::uint32_t>(ranks.rank()),
                                 static_cast<std::uint32_t>(ranks.size())};
    CorrelationJob job(std::move(params), context.backends);
    RunProgress progress{ProgressBar(
        context.err, progressDisplay(context.errIsTerminal, run.quiet, run.progressInterval),
        "counting")};
    const CorrelationResult result = countRun(job, context, progress);

    // What is left (the notices, the files, the summary) is rank 0's; under MPI the others wait
    // for it, so that a file rank 0 cannot write ends every rank with its exit code.
    const auto finish = [&] {
        progress.bar.done();
        printRunNotices(context, run, job, result, progress.noticeShown);
        const auto writeStart = std::chrono::steady_clock::now();
        if (run.savePath) {
            if (!result.counts)
                throw std::logic_error("the job returned no counts to save");
            writeCountFile(*run.savePath, *result.counts);
        }
        if (!run.regionsOutPath.empty()) {
            if (!result.jackknifeRegions.definition)
                throw std::logic_error("the job returned no regions to save");
            writeRegionsFile(run.regionsOutPath, *result.jackknifeRegions.definition);
        }
        if (run.share) {
            if (!run.quiet)
                context.out << "counts of part " << run.share->part + 1 << " of "
                            << run.share->parts << " written to " << *run.savePath << '\n';
            return;
        }
        writeRunFiles(context, run, result);
        if (args.has(kTimings)) {
            const auto now = std::chrono::steady_clock::now();
            const auto seconds = [](auto span) {
                return std::chrono::duration<double>(span).count();
            };
            printTimings(context.err, inputs.requests, inputs.loaded, result,
                         {inputs.countFileSeconds, seconds(inputs.loaded.started - commandStart),
                          inputs.deviceChoiceSeconds, seconds(now - writeStart),
                          seconds(now - commandStart)});
        }
        if (!run.quiet) {
            printSummary(context.out, result,
                         {run.outputPath, run.jsonPath, run.covariancePath, run.samplesPath,
                          run.plot ? run.plot->path() : std::string()});
            if (run.savePath)
                context.out << "counts written to " << *run.savePath << '\n';
        }
    };
    if (!distributed)
        finish();
    else
        collectively(ranks, "run", [&] {
            if (ranks.isRoot())
                finish();
        });
    return 0;
}

} // namespace tpacf::cli
