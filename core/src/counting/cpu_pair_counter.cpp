// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend: the plain count over the brute-force tiles or the culled plan; by jackknife
// region in cpu_region_count.cpp. The pieces live beside it: what both modes share
// (cpu_batch.h), the bin lookup (cpu_bin_lookup.h), the kernels (cpu_tile_kernels.cpp), the work
// list, its shares and the runner loop (tile_schedule.cpp), the culled preparation
// (cpu_culled_batch.cpp) and the region tallies (region_tally.cpp).
#include "tpacf/cpu_pair_counter.h"

#include "counting/cpu_batch.h"
#include "tpacf/errors.h"
#include "tpacf/separation_moments.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tpacf {

namespace {

using namespace cpu;

// What one worker has counted. The mutex is uncontended except while the calling thread takes
// a progress snapshot.
struct WorkerTally {
    std::mutex mutex;
    std::vector<std::uint64_t> slotCounts; // task-major, slotCount per task
    std::vector<double> weightedSlots;     // the same for the weighted sums; empty: none weighted
    std::vector<std::uint64_t> pairsDone;  // per task
    double workDone = 0;                   // culled: the items' work (CulledBatch::itemWork)
};

// Weights of 1 for the catalogs without weights that weighted tasks use (pointWeight), so that
// the weighted kernels read weights on both sides.
class UnitWeights {
public:
    const double* of(const Catalog& catalog) {
        if (catalog.hasWeights())
            return catalog.weight().data();
        for (const auto& [known, ones] : m_ones)
            if (known == &catalog)
                return ones.data();
        return m_ones.emplace_back(&catalog, std::vector<double>(catalog.size(), 1.0))
            .second.data();
    }

private:
    std::vector<std::pair<const Catalog*, std::vector<double>>> m_ones;
};

// The final counts of runSchedule, one TaskCounts per task (weighted sums where it has them).
std::vector<TaskCounts> taskCountsOf(CountProgress&& final) {
    std::vector<TaskCounts> result(final.partialCounts.size());
    for (std::size_t t = 0; t < result.size(); ++t) {
        result[t].raw = std::move(final.partialCounts[t]);
        if (t < final.partialWeighted.size())
            result[t].weighted = std::move(final.partialWeighted[t]);
    }
    return result;
}

// One plain count of a planned batch: the workers' tallies and unit histograms, what a worker
// publishes after each unit, and the snapshots progress and the result are read from.
class PlainCount {
public:
    PlainCount(const CpuBatch& batch, std::size_t taskCount);

    /// Culled: the whole cell pairs' counts of each task (part 0) start the first tally.
    void addWholeCellPairs(CulledBatch& cells);
    void countTile(std::size_t worker, std::size_t task, std::uint64_t index);
    void countItem(std::size_t worker, std::size_t task, std::uint64_t rank);
    CountProgress snapshot(bool withCounts);

private:
    /// Adds a worker's unit histogram to its tally and credits the unit's pairs; for a weighted
    /// task the unit's weighted sums too (and zeroes them for the next unit).
    void publish(std::size_t worker, std::size_t task, std::uint64_t pairs, double work);
    void copyCounts(const std::vector<std::uint64_t>& slotCounts,
                    const std::vector<double>& weightedSlots, CountProgress& progress) const;

    const CpuBatch& m_batch;
    std::size_t m_tasks;
    // At least one tally: the culled path starts it with the whole cell pairs' counts.
    std::vector<WorkerTally> m_tallies;
    std::vector<std::vector<std::uint32_t>> m_unitHistograms;
    std::vector<std::vector<double>> m_unitWeighted;
    // Culled, the whole cell pairs' counts per task (part 0): live counts hold them in
    // proportion to the work done (CulledBatch::listedFraction), the final counts whole.
    std::vector<std::vector<std::uint64_t>> m_wholeCounts;
    std::vector<std::vector<double>> m_wholeWeighted;
};

PlainCount::PlainCount(const CpuBatch& batch, std::size_t taskCount)
    : m_batch(batch), m_tasks(taskCount), m_tallies(std::max<std::size_t>(1, batch.workers)),
      m_unitHistograms(batch.workers), m_unitWeighted(batch.anyWeighted ? batch.workers : 0),
      m_wholeCounts(taskCount), m_wholeWeighted(taskCount) {
    const std::size_t slots = batch.slots;
    for (WorkerTally& tally : m_tallies) {
        tally.slotCounts.assign(m_tasks * slots, 0);
        if (batch.anyWeighted)
            tally.weightedSlots.assign(m_tasks * slots, 0.0);
        tally.pairsDone.assign(m_tasks, 0);
    }
    for (std::vector<std::uint32_t>& histogram : m_unitHistograms)
        histogram.resize(kHistogramCopies * slots);
    for (std::vector<double>& histogram : m_unitWeighted)
        histogram.assign(kHistogramCopies * slots, 0.0);
}

void PlainCount::addWholeCellPairs(CulledBatch& cells) {
    const std::size_t slots = m_batch.slots, bins = m_batch.bins;
    WorkerTally& first = m_tallies[0];
    for (std::size_t t = 0; t < m_tasks; ++t) {
        if (cells.holdsWholePairs) {
            const sky::TaskCellPlan& plan = cells.plan.tasks[t];
            for (std::size_t bin = 0; bin < bins; ++bin)
                first.slotCounts[t * slots + bin + 1] += plan.wholeByFirst[bin];
            m_wholeCounts[t].assign(plan.wholeByFirst.begin(),
                                    plan.wholeByFirst.begin() + static_cast<std::ptrdiff_t>(bins));
            if (m_batch.taskWeighted[t]) {
                for (std::size_t bin = 0; bin < bins; ++bin)
                    first.weightedSlots[t * slots + bin + 1] += plan.wholeWeightedByFirst[bin];
                m_wholeWeighted[t].assign(plan.wholeWeightedByFirst.begin(),
                                          plan.wholeWeightedByFirst.begin() +
                                              static_cast<std::ptrdiff_t>(bins));
            }
        }
        first.pairsDone[t] = cells.initialDone[t];
    }
}

void PlainCount::publish(std::size_t worker, std::size_t task, std::uint64_t pairs, double work) {
    const std::size_t slots = m_batch.slots;
    const std::vector<std::uint32_t>& histogram = m_unitHistograms[worker];
    WorkerTally& tally = m_tallies[worker];
    const std::lock_guard lock(tally.mutex);
    std::uint64_t* counts = tally.slotCounts.data() + task * slots;
    for (std::size_t copy = 0; copy < kHistogramCopies; ++copy)
        for (std::size_t s = 0; s < slots; ++s)
            counts[s] += histogram[copy * slots + s];
    if (m_batch.taskWeighted[task])
        addWeightedCopies(m_unitWeighted[worker].data(), slots,
                          tally.weightedSlots.data() + task * slots);
    tally.pairsDone[task] += pairs;
    tally.workDone += work;
}

void PlainCount::countTile(std::size_t worker, std::size_t task, std::uint64_t index) {
    std::vector<std::uint32_t>& histogram = m_unitHistograms[worker];
    const TaskPlan& plan = m_batch.tiles[task];
    const TaskPlan::Tile tile = plan.tile(m_batch.order[task](index));
    std::fill(histogram.begin(), histogram.end(), 0u);
    if (m_batch.taskWeighted[task])
        m_batch.weightedKernel(plan.a, tile.i0, tile.i1, plan.b, tile.j0, tile.j1, tile.diagonal,
                               m_batch.lookup, histogram.data(), m_unitWeighted[worker].data());
    else
        m_batch.kernel(plan.a, tile.i0, tile.i1, plan.b, tile.j0, tile.j1, tile.diagonal,
                       m_batch.lookup, histogram.data());
    publish(worker, task, TaskPlan::pairsOf(tile), 0.0);
}

void PlainCount::countItem(std::size_t worker, std::size_t task, std::uint64_t rank) {
    const CulledBatch& cells = m_batch.cells;
    const std::uint64_t item = m_batch.order[task](rank);
    std::vector<std::uint32_t>& histogram = m_unitHistograms[worker];
    std::fill(histogram.begin(), histogram.end(), 0u);
    const sky::CellTask& cellTask = cells.cellTasks[task];
    const Points a = cells.pointsOf(cellTask.first), b = cells.pointsOf(cellTask.second);
    const std::vector<sky::CountRun>& runs = cells.plan.tasks[task].runs;
    const std::vector<std::size_t>& starts = cells.itemStart[task];
    if (m_batch.taskWeighted[task])
        for (std::size_t r = starts[item]; r < starts[item + 1]; ++r)
            cells.countRun(m_batch.weightedKernel, task, runs[r], a, b, m_batch.lookup,
                           histogram.data(), m_unitWeighted[worker].data());
    else
        for (std::size_t r = starts[item]; r < starts[item + 1]; ++r)
            cells.countRun(m_batch.kernel, task, runs[r], a, b, m_batch.lookup, histogram.data());
    publish(worker, task, cells.itemCredit[task][item], cells.itemWork[task][item]);
}

CountProgress PlainCount::snapshot(bool withCounts) {
    const std::size_t slots = m_batch.slots;
    CountProgress progress;
    progress.pairsTotal = m_batch.pairsTotal;
    progress.partialsEvenlySpread = m_batch.evenlySpread;
    progress.pairsDonePerTask.assign(m_tasks, 0);
    std::vector<std::uint64_t> slotCounts(withCounts ? m_tasks * slots : 0, 0);
    // Weighted sums: the workers' tallies added in worker order.
    std::vector<double> weightedSlots(withCounts && m_batch.anyWeighted ? m_tasks * slots : 0, 0.0);
    for (WorkerTally& tally : m_tallies) {
        const std::lock_guard lock(tally.mutex);
        for (std::size_t t = 0; t < m_tasks; ++t)
            progress.pairsDonePerTask[t] += tally.pairsDone[t];
        progress.workDone += tally.workDone;
        for (std::size_t s = 0; s < slotCounts.size(); ++s)
            slotCounts[s] += tally.slotCounts[s];
        for (std::size_t s = 0; s < weightedSlots.size(); ++s)
            weightedSlots[s] += tally.weightedSlots[s];
    }
    for (std::uint64_t done : progress.pairsDonePerTask)
        progress.pairsDone += done;
    if (withCounts) {
        copyCounts(slotCounts, weightedSlots, progress);
        if (m_batch.culled)
            holdWholeInProportion(m_batch.cells, progress, m_wholeCounts, m_wholeWeighted);
    }
    if (m_batch.culled)
        progress.workTotal = m_batch.cells.workTotal;
    return progress;
}

// Slot k+1 is bin k; the slots below and above the range are dropped.
void PlainCount::copyCounts(const std::vector<std::uint64_t>& slotCounts,
                            const std::vector<double>& weightedSlots,
                            CountProgress& progress) const {
    const std::size_t slots = m_batch.slots;
    const auto bins = static_cast<std::ptrdiff_t>(m_batch.bins);
    progress.partialCounts.resize(m_tasks);
    for (std::size_t t = 0; t < m_tasks; ++t) {
        const auto first = slotCounts.begin() + static_cast<std::ptrdiff_t>(t * slots + 1);
        progress.partialCounts[t].assign(first, first + bins);
    }
    progress.partialWeighted.resize(m_tasks);
    for (std::size_t t = 0; t < m_tasks; ++t) {
        if (!m_batch.taskWeighted[t])
            continue;
        const auto first = weightedSlots.begin() + static_cast<std::ptrdiff_t>(t * slots + 1);
        progress.partialWeighted[t].assign(first, first + bins);
    }
}

} // namespace

CpuPairCounter::CpuPairCounter(int threads) : CpuPairCounter(threads, CpuKernel::Best) {}

CpuPairCounter::CpuPairCounter(int threads, CpuKernel kernel) : m_threads(threads) {
    if (m_threads <= 0)
        m_threads = static_cast<int>(hardwareThreads());
    m_avx512 = kernel == CpuKernel::Best && avx512KernelAvailable();
}

std::string CpuPairCounter::kernelName() const {
    return m_avx512 ? "avx512" : "portable";
}

std::string CpuPairCounter::deviceDescription() const {
    return "CPU, " + std::to_string(m_threads) + (m_threads == 1 ? " thread" : " threads");
}

std::vector<TaskCounts> CpuPairCounter::countBatch(std::span<const CountTask> tasks,
                                                   const Binning& binning,
                                                   const CountControl& control) {
    checkBatch(tasks, control);
    CpuBatch batch(tasks, binning, m_avx512, culling());
    setLastBatchCulled(batch.culled);
    UnitWeights unitWeights; // outlives the plans, which point into it
    batch.plan(tasks, binning, 0, m_threads, control, [&](const CountTask& task) {
        TaskPlan plan(task);
        if (task.weighted()) {
            plan.a.w = unitWeights.of(*task.first);
            plan.b.w = unitWeights.of(task.second ? *task.second : *task.first);
        }
        return plan;
    });

    PlainCount count(batch, tasks.size());
    const auto snapshot = [&](bool withCounts) { return count.snapshot(withCounts); };
    if (!batch.culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            count.countTile(worker, task, index);
        };
        return taskCountsOf(runSchedule(batch.cells.schedule, batch.units, batch.workers, control,
                                        countTile, snapshot));
    }
    count.addWholeCellPairs(batch.cells);
    const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t rank) {
        count.countItem(worker, task, rank);
    };
    return taskCountsOf(runSchedule(batch.cells.schedule, batch.units, batch.workers, control,
                                    countItem, snapshot));
}

std::vector<SeparationMoments> CpuPairCounter::countSeparationMoments(
    std::span<const CountTask> tasks, const Binning& binning, const CountControl& control) {
    requireWholeShare(control);
    return countSeparationMomentsOnCpu(tasks, binning, m_threads, control);
}

} // namespace tpacf
