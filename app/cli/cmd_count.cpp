// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf count: one auto or cross pair count through the chosen PairCounter.
#include "cli/args.h"
#include "cli/context.h"
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

int countCommand(const Context& context) {
    using namespace flags::count;
    const ParsedArgs args = parseArgs(flags::kCountFlags, context.args);

    const std::string firstPath = args.required(kA);
    const std::optional<std::string> secondPath = args.value(kB);
    const std::string outputPath = args.required(kOutput);
    const bool quiet = args.has(flags::run::kQuiet);
    const Binning binning(binSpecFrom(args));
    BackendOptions backendOptions = backendOptionsFrom(args, context.backends);
    ReadOptions firstOptions = readOptionsFrom(args);
    ReadOptions secondOptions = firstOptions;
    firstOptions.weightColumn = weightColumnFor(args, kAWeightCol);
    secondOptions.weightColumn = weightColumnFor(args, kBWeightCol);
    if (args.has(kBWeightCol) && !secondPath)
        args.fail("--b-weight-col names a column of --b, and no --b was given");
    RankGroup& ranks = context.ranks;
    const bool distributed = ranks.distributed();
    // Every rank reads and checks for itself; the ranks agree before counting (run's reasons).
    std::shared_ptr<const Catalog> first, second;
    std::optional<BackendSelection> selection;
    collectively(ranks, "count", [&] {
        checkBackendUsable(backendOptions, context.backends);
        FilePlan files;
        files.input("--a", firstPath).output("--output", outputPath);
        if (secondPath)
            files.input("--b", *secondPath);
        files.check();

        first = loadCatalog(firstPath, firstOptions);
        second = secondPath ? loadCatalog(*secondPath, secondOptions) : nullptr;
        // Readers do not poll the flag: honour a Ctrl-C pressed while a big file was being read.
        if (context.cancelRequested && context.cancelRequested->load())
            throw Cancelled();
        // The GPUs follow the work where none were asked for (each rank of a host takes its
        // own share of them); nothing has started the GPU driver yet, so the others stay out
        // of it.
        backendOptions.placement = {ranks.hostRank(), ranks.hostSize()};
        const CountTask task{first.get(), second.get()};
        const CountWorkEstimate work =
            estimateCountWork(std::span(&task, 1), binning, backendOptions.culling,
                              1.0 / static_cast<double>(ranks.size()));
        backendOptions = reserveJobDevices(backendOptions, context.backends, &work);
        selection = selectBackend(backendOptions, context.backends, &work);
    });
    printNotice(context.err, selection->notice);
    PairCounter& counter = *selection->counter;

    ProgressBar bar(context.err, context.errIsTerminal && !quiet, "counting");
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
    const CountTask task{first.get(), second.get()};
    TaskCounts counts;
    std::optional<RankFailure> countFailure;
    try {
        counts = std::move(
            counter.countBatch(std::span<const CountTask>(&task, 1), binning, control).front());
    } catch (...) {
        if (!distributed)
            throw;
        countFailure = describeFailure(std::current_exception(), "count");
        if (countFailure->kind == RankFailure::Kind::Error)
            ranks.announceFailure();
    }
    std::vector<std::string> processes;
    if (distributed) {
        mine.fraction = 1.0;
        across.finish(mine, show);
        if (auto failure = ranks.agree(countFailure))
            throw RunEnded(std::move(*failure));
        collectively(ranks, "count", [&] {
            processes = ranks.gatherToRoot(describeRank(ranks, counter.backendName(),
                                                        counter.deviceDescription(),
                                                        std::string(precisionName(counter.precision()))));
            sumTaskCountsToRoot(ranks, counts);
        });
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bar.finish();

    CountSummary summary{binning,
                         std::move(counts.raw),
                         InputSummary::of(*first),
                         std::nullopt,
                         counter.backendName(),
                         counter.deviceDescription(),
                         counter.precision(),
                         elapsed};
    summary.cullingRequested = counter.culling();
    summary.culled = counter.lastBatchCulled();
    summary.weighted = std::move(counts.weighted);
    summary.invocation = commandLine("count", context.args);
    if (second)
        summary.second = InputSummary::of(*second);
    summary.processes = processes;
    // The file's notes say how many GPUs counted and why (auto); the notices only what went
    // differently from a plain count.
    const std::vector<std::string> batchNotes = counter.lastBatchNotes();
    if (!selection->deviceChoice.empty())
        summary.notes.push_back(selection->deviceChoice);
    summary.notes.insert(summary.notes.end(), batchNotes.begin(), batchNotes.end());
    // The file and the summary are rank 0's; the others wait, so that a file rank 0 cannot
    // write ends every rank with its exit code.
    const auto finish = [&] {
        for (const std::string& note : batchNotes)
            printNotice(context.err, note);
        writeFileAtomically(outputPath, [&](std::ostream& out) { writeCountsCsv(out, summary); });

        if (!quiet) {
            const std::uint64_t binned =
                std::accumulate(summary.counts.begin(), summary.counts.end(), std::uint64_t{0});
            auto& out = context.out;
            out << "pair counts written to " << outputPath << '\n';
            if (second)
                out << "  cross     " << first->name() << " (" << first->size() << ") x "
                    << second->name() << " (" << second->size() << ")\n";
            else
                out << "  auto      " << first->name() << " (" << first->size() << " points)\n";
            for (const Catalog* catalog : {first.get(), second.get()})
                if (catalog && catalog->origin().known())
                    out << "  read as   " << catalog->origin().describe() << '\n';
            out << "  pairs     " << task.pairTotal() << " visited, " << binned << " in bins\n";
            if (!summary.weighted.empty())
                out << "  weighted  sum of w_i*w_j in bins "
                    << std::accumulate(summary.weighted.begin(), summary.weighted.end(), 0.0) << '\n';
            out << "  bins      " << describeBins(binning.spec(), binning.count()) << '\n';
            out << "  backend   " << summary.backendName << ", " << summary.deviceDescription << ", "
                << precisionName(summary.precision) << " precision, culling "
                << (summary.culled ? "on" : "off") << ", " << formatSeconds(elapsed) << '\n';
            if (!selection->deviceChoice.empty())
                out << "  devices   " << selection->deviceChoice << '\n';
        }
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
