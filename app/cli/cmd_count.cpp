// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf count: one auto or cross pair count through the chosen PairCounter.
#include "cli/args.h"
#include "cli/context.h"
#include "cli/masking.h"
#include "cli/distributed_count.h"
#include "cli/failure.h"
#include "cli/flag_help.h"
#include "cli/rank_group.h"
#include "cli/file_plan.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "run_flags.h"
#include "tpacf/backend.h"
#include "tpacf/device_choice.h"
#include "tpacf/catalog_formats.h"
#include "tpacf/correlation_job.h"
#include "tpacf/errors.h"
#include "tpacf/output_file.h"
#include "tpacf/pair_counter.h"
#include "tpacf/result_io.h"
#include "tpacf/separation_moments.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <ostream>
#include <string>

namespace tpacf::cli {

std::string countHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf count --a A [--b B] [bins] [flags] --output counts.csv

Counts the pairs of catalog A with itself (auto: each unordered pair once) or, with --b, the
pairs between A and B (cross: all N_A x N_B pairs), per angular bin. Writes a CSV with '#'
metadata lines and one row per bin: theta_lo,theta_hi,theta_mid,count, and weighted (the sum
of w_i*w_j over the bin's pairs) when a weight column is given.

)" + flagHelp(flags::kCountFlags, backends) + R"(
Example:
  tpacf count --a data.txt --b randoms.txt --preset quarter-degree --output dr.csv
)";
}

namespace {

// What the flags ask for, read in the order the usage errors are checked.
struct CountRequest {
    std::string firstPath;
    std::optional<std::string> secondPath;
    std::string outputPath;
    bool quiet = false;
    double progressInterval = kDefaultProgressInterval;
    TableFormat format = TableFormat::Ecsv;
    Binning binning;
    BackendOptions backendOptions;
    ReadOptions firstOptions, secondOptions;
    bool meanTheta = false; // --mean-theta
    std::optional<MaskRequest> mask;
};

CountRequest countRequestFrom(const ParsedArgs& args, const Context& context) {
    using namespace flags::count;
    const std::string firstPath = args.required(kA);
    const std::optional<std::string> secondPath = args.value(kB);
    const std::string outputPath = args.required(kOutput);
    const bool quiet = args.has(flags::run::kQuiet);
    Binning binning(binSpecFrom(args));
    BackendOptions backendOptions = backendOptionsFrom(args, context.backends);
    ReadOptions firstOptions = readOptionsFrom(args);
    ReadOptions secondOptions = firstOptions;
    firstOptions.weightColumn = weightColumnFor(args, kAWeightCol);
    secondOptions.weightColumn = weightColumnFor(args, kBWeightCol);
    if (args.has(kBWeightCol) && !secondPath)
        args.fail("--b-weight-col names a column of --b, and no --b was given");
    const double progressInterval = progressIntervalFrom(args, kDefaultProgressInterval);
    const TableFormat format = tableFormatFrom(args, outputPath, "--output");
    if (format == TableFormat::Json)
        args.fail("--output " + quote(outputPath) +
                  ": a count is written as ECSV, FITS or VOTable (name it .ecsv, .fits or .vot)");
    const bool meanTheta = args.has(flags::run::kMeanTheta);
    if (meanTheta && context.ranks.distributed())
        args.fail("--mean-theta sums every pair's separation in a pass over the whole count: it "
                  "is not taken under MPI (run it in one process, where a GPU takes the pass)");
    return {firstPath,        secondPath,    outputPath,         quiet,
            progressInterval, format,        std::move(binning), backendOptions,
            firstOptions,     secondOptions, meanTheta,          maskRequestFrom(args)};
}

// The catalogs and the counter, chosen once they are read.
struct CountInputs {
    std::shared_ptr<const Catalog> first, second;
    BackendSelection selection;
    std::string maskNote; // what --mask kept of each catalog; "" without
};

// Every rank reads and checks for itself; the ranks agree before counting (run's reasons).
CountInputs loadCountInputs(const Context& context, CountRequest& request) {
    RankGroup& ranks = context.ranks;
    CountInputs inputs;
    collectively(ranks, "count", [&] {
        checkBackendUsable(request.backendOptions, context.backends);
        FilePlan files;
        files.input("--a", request.firstPath).output("--output", request.outputPath);
        if (request.secondPath)
            files.input("--b", *request.secondPath);
        if (request.mask)
            files.input("--mask", request.mask->path);
        files.check();

        // A mask is read first: a bad one costs no catalog read.
        std::optional<SkyMask> mask;
        if (request.mask)
            mask = readSkyMask(request.mask->path, request.mask->options);
        inputs.first = loadCatalog(request.firstPath, request.firstOptions);
        inputs.second =
            request.secondPath ? loadCatalog(*request.secondPath, request.secondOptions) : nullptr;
        // Readers do not poll the flag: honour a Ctrl-C pressed while a big file was being read.
        if (context.cancelRequested && context.cancelRequested->load())
            throw Cancelled();
        if (mask) {
            std::vector<MaskedInput> masked{{&inputs.first, "A"}};
            if (inputs.second)
                masked.push_back({&inputs.second, "B"});
            inputs.maskNote = applyMaskToCatalogs(*request.mask, *mask, masked);
        }
        // The GPUs follow the work where none were asked for (each rank of a host takes its
        // own share of them); nothing has started the GPU driver yet, so the others stay out
        // of it.
        request.backendOptions.placement = {ranks.hostRank(), ranks.hostSize()};
        const CountTask task{inputs.first.get(), inputs.second.get()};
        const CountWorkEstimate work =
            estimateCountWork(std::span(&task, 1), request.binning, request.backendOptions.culling,
                              1.0 / static_cast<double>(ranks.size()));
        request.backendOptions = reserveJobDevices(request.backendOptions, context.backends, &work);
        inputs.selection = selectBackend(request.backendOptions, context.backends, &work);
    });
    return inputs;
}

// The count of this process (its share under MPI, summed on rank 0) and how long it took.
struct CountOutcome {
    TaskCounts counts;
    std::vector<std::string> processes; // MPI: every rank described; else empty
    double elapsed = 0;
};

// Counts with a progress bar (one for all ranks under MPI). Under MPI a rank's failure is
// agreed on by all before anyone throws, so that every rank ends with the same exit code.
CountOutcome countWithProgress(const Context& context, const CountRequest& request,
                               const CountTask& task, PairCounter& counter) {
    RankGroup& ranks = context.ranks;
    const bool distributed = ranks.distributed();
    ProgressBar bar(context.err,
                    progressDisplay(context.errIsTerminal, request.quiet, request.progressInterval),
                    "counting");
    ProgressAcrossRanks across(ranks);
    std::atomic<bool> stop{false};
    RankProgress mine;
    const auto show = [&](const RankProgress& all) {
        bar.update(all.fraction, all.pairsDone, 0, all.preparing);
    };
    CountControl control;
    control.cancelRequested = distributed ? &stop : context.cancelRequested;
    // Under MPI each rank counts its part of the work list; rank 0 adds the parts up.
    if (distributed)
        control.share = WorkShare{static_cast<std::uint32_t>(ranks.rank()),
                                  static_cast<std::uint32_t>(ranks.size())};
    control.onProgress = [&](const CountProgress& progress) {
        // The backend's work measure where it has one (pairs culled away take no time).
        const double fraction =
            progress.workTotal > 0 ? std::min(1.0, progress.workDone / progress.workTotal)
            : progress.pairsTotal > 0
                ? static_cast<double>(progress.pairsDone) / static_cast<double>(progress.pairsTotal)
                : 0.0;
        mine = {fraction, progress.pairsDone, 0, progress.preparing, false};
        if (distributed && ((context.cancelRequested && context.cancelRequested->load()) ||
                            ranks.peerFailed()))
            stop.store(true);
        show(across.update(mine));
    };
    const auto start = std::chrono::steady_clock::now();
    CountOutcome outcome;
    std::optional<RankFailure> countFailure;
    try {
        outcome.counts = std::move(
            counter.countBatch(std::span<const CountTask>(&task, 1), request.binning, control)
                .front());
    } catch (...) {
        if (!distributed)
            throw;
        countFailure = describeFailure(std::current_exception(), "count");
        if (countFailure->kind == RankFailure::Kind::Error)
            ranks.announceFailure();
    }
    if (distributed) {
        mine.fraction = 1.0;
        across.finish(mine, show);
        if (auto failure = ranks.agree(countFailure))
            throw RunEnded(std::move(*failure));
        collectively(ranks, "count", [&] {
            outcome.processes = ranks.gatherToRoot(
                describeRank(ranks, counter.backendName(), counter.deviceDescription(),
                             std::string(precisionName(counter.precision()))));
            sumTaskCountsToRoot(ranks, outcome.counts);
        });
    }
    outcome.elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bar.done();
    return outcome;
}

// --mean-theta: the pass over the count's pairs after the count, with a bar of its own.
MeanSeparation measureSeparations(const Context& context, const CountRequest& request,
                                  const CountTask& task, PairCounter& counter) {
    ProgressBar bar(context.err,
                    progressDisplay(context.errIsTerminal, request.quiet, request.progressInterval),
                    "mean theta");
    CountControl control;
    control.cancelRequested = context.cancelRequested;
    control.onProgress = [&](const CountProgress& progress) {
        bar.update(progress.pairsTotal > 0 ? static_cast<double>(progress.pairsDone) /
                                                 static_cast<double>(progress.pairsTotal)
                                           : 0.0,
                   progress.pairsDone);
    };
    const std::vector<SeparationMoments> moments =
        counter.countSeparationMoments(std::span<const CountTask>(&task, 1), request.binning,
                                       control);
    bar.done();
    return meanSeparationOf(moments.front(), "count", request.binning.unit());
}

// What the counts file records: the counts, the inputs, how and where they were counted. The
// file's notes say how many GPUs counted and why (auto), then the batch's own notes.
CountSummary countSummaryOf(const Context& context, const CountRequest& request,
                            const CountInputs& inputs, CountOutcome& outcome,
                            const std::vector<std::string>& batchNotes) {
    const PairCounter& counter = *inputs.selection.counter;
    CountSummary summary{request.binning,
                         std::move(outcome.counts.raw),
                         InputSummary::of(*inputs.first),
                         std::nullopt,
                         counter.backendName(),
                         counter.deviceDescription(),
                         counter.precision(),
                         outcome.elapsed};
    summary.cullingRequested = counter.culling();
    summary.culled = counter.lastBatchCulled();
    summary.weighted = std::move(outcome.counts.weighted);
    summary.invocation = commandLine("count", context.args);
    if (inputs.second)
        summary.second = InputSummary::of(*inputs.second);
    summary.processes = outcome.processes;
    if (!inputs.selection.deviceChoice.empty())
        summary.notes.push_back(inputs.selection.deviceChoice);
    summary.notes.insert(summary.notes.end(), batchNotes.begin(), batchNotes.end());
    return summary;
}

// The lines on stdout after the file is written.
void printCountReport(std::ostream& out, const CountRequest& request, const CountInputs& inputs,
                      const CountTask& task, const CountSummary& summary) {
    const Catalog* first = inputs.first.get();
    const Catalog* second = inputs.second.get();
    const std::uint64_t binned =
        std::accumulate(summary.counts.begin(), summary.counts.end(), std::uint64_t{0});
    out << "pair counts written to " << request.outputPath << '\n';
    if (second)
        out << "  cross     " << first->name() << " (" << first->size() << ") x " << second->name()
            << " (" << second->size() << ")\n";
    else
        out << "  auto      " << first->name() << " (" << first->size() << " points)\n";
    for (const Catalog* catalog : {first, second})
        if (catalog && catalog->origin().known())
            out << "  read as   " << catalog->origin().describe() << '\n';
    out << "  pairs     " << task.pairTotal() << " visited, " << binned << " in bins\n";
    if (!summary.weighted.empty())
        out << "  weighted  sum of w_i*w_j in bins "
            << std::accumulate(summary.weighted.begin(), summary.weighted.end(), 0.0) << '\n';
    out << "  bins      " << describeBins(request.binning.spec(), request.binning.count()) << '\n';
    out << "  backend   " << summary.backendName << ", " << summary.deviceDescription << ", "
        << precisionName(summary.precision) << " precision, culling "
        << (summary.culled ? "on" : "off") << ", " << formatSeconds(summary.elapsedSeconds) << '\n';
    if (!inputs.selection.deviceChoice.empty())
        out << "  devices   " << inputs.selection.deviceChoice << '\n';
}

} // namespace

int countCommand(const Context& context) {
    const ParsedArgs args = parseArgs(flags::kCountFlags, context.args);
    CountRequest request = countRequestFrom(args, context);
    RankGroup& ranks = context.ranks;
    const bool distributed = ranks.distributed();
    CountInputs inputs = loadCountInputs(context, request);
    if (ranks.isRoot())
        printNotice(context.err, inputs.maskNote);
    printNotice(context.err, inputs.selection.notice);
    PairCounter& counter = *inputs.selection.counter;

    const CountTask task{inputs.first.get(), inputs.second.get()};
    CountOutcome outcome = countWithProgress(context, request, task, counter);
    // The notices say only what went differently from a plain count.
    const std::vector<std::string> batchNotes = counter.lastBatchNotes();
    CountSummary summary = countSummaryOf(context, request, inputs, outcome, batchNotes);
    if (request.meanTheta)
        summary.meanSeparation = measureSeparations(context, request, task, counter);
    // The file and the summary are rank 0's; the others wait, so that a file rank 0 cannot
    // write ends every rank with its exit code.
    const auto finish = [&] {
        for (const std::string& note : batchNotes)
            printNotice(context.err, note);
        writeCountsFile(request.outputPath, summary, request.format);
        if (!request.quiet)
            printCountReport(context.out, request, inputs, task, summary);
    };
    if (!distributed)
        finish();
    else
        collectively(ranks, "count", [&] {
            if (ranks.isRoot())
                finish();
        });
    return 0;
}

} // namespace tpacf::cli
