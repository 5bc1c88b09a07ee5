// SPDX-License-Identifier: GPL-3.0-or-later
#include "counting/cpu_culled_batch.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>

namespace tpacf::cpu {

namespace {

// Work of one culled work item, in pair-kernel units (sky_cells.h): at most a few ms on one
// core, so cancellation and progress stay prompt while the per-item merge costs nothing; less
// where the whole share is small, so that every thread gets several items.
constexpr double kMaxItemWork = double(std::uint64_t{1} << 22);
constexpr double kMinItemWork = double(std::uint64_t{1} << 12);
constexpr double kItemsPerThread = 256;

} // namespace

BatchChoice chooseForBatch(std::span<const CountTask> tasks, const Binning& binning,
                           CullingMode mode) {
    BatchChoice choice;
    for (const CountTask& task : tasks)
        choice.pairsTotal += task.pairTotal();
    choice.culled = chooseCulling(mode, binning.maxDegrees(), choice.pairsTotal);
    return choice;
}

PreparationPacer::PreparationPacer(const CountControl& control, std::size_t taskCount,
                                   std::uint64_t pairsTotal)
    : m_control(control), m_taskCount(taskCount), m_pairsTotal(pairsTotal),
      m_last(std::chrono::steady_clock::now()) {}

void PreparationPacer::operator()() {
    if (m_control.cancelled())
        throw Cancelled();
    if (!m_control.onProgress)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_last < std::chrono::milliseconds(50))
        return;
    m_last = now;
    CountProgress progress;
    progress.pairsTotal = m_pairsTotal;
    progress.pairsDonePerTask.assign(m_taskCount, 0);
    progress.preparing = true;
    m_control.onProgress(progress);
}

double CulledBatch::listedFraction(std::size_t task, std::uint64_t pairsDone) const noexcept {
    const std::uint64_t initial = initialDone[task], total = taskPairsTotal[task];
    if (pairsDone >= total || total <= initial)
        return 1.0;
    return static_cast<double>(pairsDone - std::min(pairsDone, initial)) /
           static_cast<double>(total - initial);
}

std::uint64_t CulledBatch::runPairs(std::size_t task, const sky::CountRun& run) const {
    const sky::CellTask& t = cellTasks[task];
    const sky::CellPartition& cellsA = plan.cells[t.first];
    const sky::CellPartition& cellsB = plan.cells[t.second];
    const std::uint64_t countA = cellsA.countOf(run.a);
    if (t.isAuto && run.bBegin == run.a)
        return trianglePairs(countA) + countA * (cellsB.start[run.bEnd] - cellsB.start[run.a + 1]);
    return countA * (cellsB.start[run.bEnd] - cellsB.start[run.bBegin]);
}

CulledBatch::RunRange CulledBatch::rangeOf(std::size_t task, const sky::CountRun& run) const {
    const sky::CellTask& t = cellTasks[task];
    const sky::CellPartition& cellsA = plan.cells[t.first];
    const sky::CellPartition& cellsB = plan.cells[t.second];
    const std::size_t i0 = cellsA.start[run.a], i1 = cellsA.start[run.a + 1];
    const bool diagonal = t.isAuto && run.bBegin == run.a;
    return {i0, i1, diagonal ? i0 : cellsB.start[run.bBegin], cellsB.start[run.bEnd], diagonal};
}

void CulledBatch::countRun(TileKernel kernel, std::size_t task, const sky::CountRun& run,
                           const Points& a, const Points& b, const SlotLookup& lookup,
                           std::uint32_t* histogram) const {
    const RunRange r = rangeOf(task, run);
    kernel(a, r.i0, r.i1, b, r.j0, r.j1, r.diagonal, lookup, histogram);
}

void CulledBatch::countRun(WeightedTileKernel kernel, std::size_t task, const sky::CountRun& run,
                           const Points& a, const Points& b, const SlotLookup& lookup,
                           std::uint32_t* histogram, double* weighted) const {
    const RunRange r = rangeOf(task, run);
    kernel(a, r.i0, r.i1, b, r.j0, r.j1, r.diagonal, lookup, histogram, weighted);
}

namespace {

/// Points of the first catalog in a run's first cell: the run's rows.
std::uint64_t runRows(const CulledBatch& batch, std::size_t t, const sky::CountRun& run) {
    return batch.plan.cells[batch.cellTasks[t].first].countOf(run.a);
}

/// A run's work in pair-kernel units: its pairs plus the cost of a run and of its rows.
double runWork(const CulledBatch& batch, std::size_t t, const sky::CountRun& run) {
    return static_cast<double>(batch.runPairs(t, run)) + sky::kRunCost +
           sky::kRowCost * static_cast<double>(runRows(batch, t, run));
}

/// Each distinct catalog sorted into cells once, however many tasks use it, and the tasks
/// as cell tasks over them. Several catalogs are sorted side by side, each on its share of the
/// threads: the passes of one sort are memory-bound and short, so separate sorts scale better
/// than one wide one. The calling thread polls; a sort on a worker stops between its passes
/// once the workers are told to stop (a cancel, or another's error).
void sortDistinctCatalogs(CulledBatch& batch, std::span<const CountTask> tasks,
                          std::size_t regionCount, std::size_t threads, const sky::Poll& poll) {
    std::vector<const Catalog*> distinct;
    const auto indexOf = [&](const Catalog* catalog) {
        const auto known = std::find(distinct.begin(), distinct.end(), catalog);
        if (known != distinct.end())
            return static_cast<std::size_t>(known - distinct.begin());
        distinct.push_back(catalog);
        return distinct.size() - 1;
    };
    for (const CountTask& task : tasks) {
        const std::size_t first = indexOf(task.first);
        const std::size_t second = task.second ? indexOf(task.second) : first;
        batch.cellTasks.push_back(sky::CellTask{first, second, task.isAuto(), task.weighted()});
    }
    batch.catalogs.resize(distinct.size());
    const std::size_t side =
        std::max<std::size_t>(1, std::min(distinct.size(), std::max<std::size_t>(1, threads)));
    const std::size_t sortThreads = std::max<std::size_t>(1, threads / side);
    sky::forEachItem(distinct.size(), side, poll, [&](std::size_t c, const sky::Poll& itemPoll) {
        batch.catalogs[c] = sky::sortCatalog(*distinct[c], regionCount, itemPoll, sortThreads);
    });
    // A catalog without weights counts with weight 1 in a weighted task: ones beside it, so
    // the weighted kernels and the cells' weight sums read weights on both sides.
    for (const sky::CellTask& task : batch.cellTasks)
        if (task.weighted)
            for (std::size_t c : {task.first, task.second})
                if (batch.catalogs[c].w.empty())
                    batch.catalogs[c].w.assign(batch.catalogs[c].size(), 1.0);
}

/// Per task, the runs [first, end) of the share: a contiguous, cost-balanced part of every
/// task's runs in schedule order (the cost model's figure in whole units, so that every process
/// cuts alike), which holds a contiguous range of the runs of each task.
std::vector<std::pair<std::size_t, std::size_t>> shareRunRanges(const CulledBatch& batch,
                                                                std::size_t taskCount,
                                                                const WorkShare& share,
                                                                const sky::Poll& poll) {
    std::vector<std::uint64_t> runsPerTask;
    for (const sky::TaskCellPlan& plan : batch.plan.tasks)
        runsPerTask.push_back(plan.runs.size());
    std::vector<std::pair<std::size_t, std::size_t>> shareRuns(taskCount); // [first, end)
    if (share.whole()) {
        for (std::size_t t = 0; t < taskCount; ++t)
            shareRuns[t] = {0, runsPerTask[t]};
        return shareRuns;
    }
    const TileSchedule allRuns(runsPerTask);
    const UnitRange range = shareOfUnits(
        allRuns.total(),
        [&](std::uint64_t index) {
            const auto [t, r] = allRuns.locate(index);
            const sky::CountRun& run = batch.plan.tasks[t].runs[r];
            return batch.runPairs(t, run) + static_cast<std::uint64_t>(sky::kRunCost) +
                   static_cast<std::uint64_t>(sky::kRowCost) * runRows(batch, t, run);
        },
        share);
    std::vector<bool> seen(taskCount, false);
    for (std::uint64_t index = range.begin; index < range.end; ++index) {
        const auto [t, r] = allRuns.locate(index);
        if (!seen[t])
            shareRuns[t].first = r;
        seen[t] = true;
        shareRuns[t].second = r + 1;
    }
    poll();
    return shareRuns;
}

/// The lines of task t's runs (SpreadLines): a run is part of one row, so a cross task's lines
/// are its rows, never its columns.
SpreadLines runLines(const CulledBatch& batch, std::size_t t) {
    const std::uint64_t rows = batch.plan.cells[batch.cellTasks[t].first].cellCount();
    return SpreadLines(batch.cellTasks[t].isAuto, rows, rows);
}

/// An auto task's runs in the order of its lines (cutTaskItems bands them): rows 0 and R - 1,
/// then 1 and R - 2, ..., each row's runs in their order. A counting sort by line (and, within
/// a line, its long row first).
void foldAutoRuns(CulledBatch& batch) {
    for (std::size_t t = 0; t < batch.plan.tasks.size(); ++t) {
        if (!batch.cellTasks[t].isAuto)
            continue;
        std::vector<sky::CountRun>& runs = batch.plan.tasks[t].runs;
        const SpreadLines spread = runLines(batch, t);
        const auto slot = [&](std::uint32_t a) {
            const std::uint64_t line = spread.lineOf(a, 0);
            return 2 * line + (a == line ? 0 : 1);
        };
        std::vector<std::size_t> start(2 * spread.lines + 1, 0);
        for (const sky::CountRun& run : runs)
            ++start[slot(run.a) + 1];
        for (std::size_t k = 1; k < start.size(); ++k)
            start[k] += start[k - 1];
        std::vector<sky::CountRun> folded(runs.size());
        for (const sky::CountRun& run : runs)
            folded[start[slot(run.a)]++] = run;
        runs = std::move(folded);
    }
}

/// Cuts task t's runs [firstRun, endRun) into items of about itemWork, none across a band of
/// rows: batch.itemStart[t], batch.itemWork[t] and the bands' first items, batch.itemBands[t].
/// Returns each item's visited pairs.
std::vector<std::uint64_t> cutTaskItems(CulledBatch& batch, std::size_t t, std::size_t firstRun,
                                        std::size_t endRun, double itemWork) {
    const std::vector<sky::CountRun>& runs = batch.plan.tasks[t].runs;
    std::vector<std::size_t>& starts = batch.itemStart[t];
    starts.assign(1, firstRun);
    std::vector<std::uint64_t>& bandStarts = batch.itemBands[t];
    bandStarts.assign(1, 0);
    // Bands of the task's lines (foldAutoRuns; a cross task's rows: its first catalog's cells),
    // each a spread block of items (SpreadOrder): an item never spans two, so that every block
    // holds its share of the diagonal cells, where the close pairs are.
    const SpreadLines spread = runLines(batch, t);
    const auto bandOf = [&](std::size_t r) { return spread.bandOf(runs[r].a, 0); };
    std::vector<std::uint64_t> visited;
    std::vector<double>& itemWorks = batch.itemWork[t];
    double work = 0;
    std::uint64_t pairs = 0;
    for (std::size_t r = firstRun; r < endRun; ++r) {
        pairs += batch.runPairs(t, runs[r]);
        work += runWork(batch, t, runs[r]);
        const bool bandEnds = r + 1 == endRun || bandOf(r + 1) != bandOf(r);
        if (work >= itemWork || bandEnds) {
            starts.push_back(r + 1);
            visited.push_back(pairs);
            itemWorks.push_back(work);
            work = 0;
            pairs = 0;
            if (bandEnds)
                bandStarts.push_back(visited.size());
        }
    }
    return visited;
}

/// Task t's credits: batch.initialDone[t], batch.itemCredit[t] and batch.taskPairsTotal[t].
/// Each item is credited its visited pairs plus a share, in proportion, of the pairs culled
/// away (never listed, or outside the bins as whole cell pairs), so pairsDone reaches pairsTotal
/// and tracks the work; the proportion runs over the task's whole list, so the shares' credits
/// add up to it. Whole in-range cell pairs are done from the start (part 0's).
void creditTaskItems(CulledBatch& batch, std::size_t t, std::uint64_t pairTotal,
                     std::size_t firstRun, const std::vector<std::uint64_t>& visited) {
    const std::vector<sky::CountRun>& runs = batch.plan.tasks[t].runs;
    const std::uint64_t total = pairTotal;
    const std::uint64_t whole = batch.plan.tasks[t].wholePairs;
    const std::uint64_t counted = batch.plan.tasks[t].countedPairs;
    // A task without runs is done from the start: its whole pairs and the pairs culled away.
    const std::uint64_t initial = runs.empty() ? total : whole;
    batch.initialDone[t] = batch.holdsWholePairs ? initial : 0;
    batch.taskPairsTotal[t] = batch.initialDone[t];
    std::vector<std::uint64_t>& credit = batch.itemCredit[t];
    if (visited.empty())
        return;
    const std::uint64_t culledAway = total - whole - counted;
    // culledCredit(c): culled-away pairs credited once c visited pairs are done; monotone in c,
    // so every item gets at least its own visited pairs.
    const auto culledCredit = [&](std::uint64_t done) -> std::uint64_t {
        if (done == counted)
            return culledAway;
        const double fraction = static_cast<double>(done) / static_cast<double>(counted);
        return std::min(culledAway,
                        static_cast<std::uint64_t>(static_cast<double>(culledAway) * fraction));
    };
    std::uint64_t done = 0; // pairs the runs before the share's first visit
    for (std::size_t r = 0; r < firstRun; ++r)
        done += batch.runPairs(t, runs[r]);
    for (std::uint64_t v : visited) {
        credit.push_back(v + culledCredit(done + v) - culledCredit(done));
        batch.taskPairsTotal[t] += credit.back();
        done += v;
    }
}

} // namespace

CulledBatch prepareCulledBatch(std::span<const CountTask> tasks, const Binning& binning,
                               std::size_t regionCount, std::size_t threads, const sky::Poll& poll,
                               const WorkShare& share) {
    share.validate();
    CulledBatch batch;
    sortDistinctCatalogs(batch, tasks, regionCount, threads, poll);
    batch.plan = sky::planCellPairs(batch.catalogs, batch.cellTasks, binning.chord2Edges(),
                                    regionCount, poll, threads);
    foldAutoRuns(batch);
    const std::vector<std::pair<std::size_t, std::size_t>> shareRuns =
        shareRunRanges(batch, tasks.size(), share, poll);
    batch.holdsWholePairs = share.part == 0;

    // Work items: consecutive runs of about itemWork, each credited as creditTaskItems says.
    // Tasks are cut on parallel workers; the work is summed per task, then over tasks in order,
    // so the items do not depend on the thread count.
    std::vector<double> taskWork(tasks.size(), 0.0);
    sky::forEachItem(tasks.size(), threads, poll, [&](std::size_t t) {
        double work = 0; // summed apart: the tasks' sums share a cache line
        for (std::size_t r = shareRuns[t].first; r < shareRuns[t].second; ++r)
            work += runWork(batch, t, batch.plan.tasks[t].runs[r]);
        taskWork[t] = work;
    });
    double totalWork = 0;
    for (double work : taskWork)
        totalWork += work;
    const double itemWork = std::clamp(
        totalWork / (kItemsPerThread * static_cast<double>(std::max<std::size_t>(1, threads))),
        kMinItemWork, kMaxItemWork);
    std::vector<std::uint64_t> itemsPerTask(tasks.size());
    batch.taskPairsTotal.assign(tasks.size(), 0);
    batch.itemWork.resize(tasks.size());
    batch.itemStart.resize(tasks.size());
    batch.itemBands.resize(tasks.size());
    batch.itemCredit.resize(tasks.size());
    batch.initialDone.resize(tasks.size());
    sky::forEachItem(tasks.size(), threads, poll, [&](std::size_t t) {
        // Small tasks are cut finer: enough items that any prefix of the spread order is an
        // even sample (kEvenSampleUnits, live estimates).
        const double taskItemWork = std::max(
            kMinItemWork, std::min(itemWork, taskWork[t] / (8.0 * double(kEvenSampleUnits))));
        const auto [firstRun, endRun] = shareRuns[t];
        const std::vector<std::uint64_t> visited =
            cutTaskItems(batch, t, firstRun, endRun, taskItemWork);
        creditTaskItems(batch, t, tasks[t].pairTotal(), firstRun, visited);
        itemsPerTask[t] = visited.size();
    });
    for (std::uint64_t pairs : batch.taskPairsTotal)
        batch.pairsTotal += pairs;
    for (std::size_t t = 0; t < tasks.size(); ++t)
        batch.workTotal += taskWork[t];
    batch.schedule = TileSchedule(std::move(itemsPerTask));
    poll();
    return batch;
}

} // namespace tpacf::cpu
