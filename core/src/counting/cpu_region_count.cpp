// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend's count by jackknife region (CpuPairCounter::countBatchByRegion): the batch is
// planned as for the plain count (cpu_batch.h), on points taken in region order, so that every
// unit of work splits into rectangles of one region pair, each counted by the plain kernels and
// added to the task's per-region rows (region_tally.h).
#include "tpacf/cpu_pair_counter.h"

#include "counting/cpu_batch.h"
#include "counting/region_tally.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace tpacf {

namespace {

using namespace cpu;

void checkRegions(const Catalog& catalog, std::size_t regionCount) {
    const auto region = catalog.region();
    if (region.size() != catalog.size())
        throw ConfigError("catalog '" + catalog.name() + "' has no jackknife regions");
    for (std::size_t i = 0; i < region.size(); ++i)
        if (region[i] < 0 || static_cast<std::size_t>(region[i]) >= regionCount)
            throw ConfigError("catalog '" + catalog.name() + "', point " + std::to_string(i + 1) +
                              ": region " + std::to_string(region[i]) + " is outside [0, " +
                              std::to_string(regionCount) + ")");
}

void checkRegionBatch(std::span<const CountTask> tasks, std::size_t regionCount) {
    if (regionCount == 0)
        throw ConfigError("counting by jackknife region needs at least one region");
    if (regionCount > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw ConfigError("too many jackknife regions: " + std::to_string(regionCount));
    for (const CountTask& task : tasks) {
        if (!task.first)
            throw ConfigError("a pair-count task has no catalog");
        checkRegions(*task.first, regionCount);
        if (task.second)
            checkRegions(*task.second, regionCount);
    }
}

// Brute force: each distinct catalog is put in region order once, however many tasks use it.
// (Culled, each is sorted by region, then Morton order, so no cell holds two regions.)
class RegionOrderedCatalogs {
public:
    RegionOrderedCatalogs(std::span<const CountTask> tasks, std::size_t regionCount)
        : m_tasks(tasks), m_regionCount(regionCount) {}

    const RegionOrderedPoints& of(const Catalog* catalog) {
        for (const auto& [known, points] : m_ordered)
            if (known == catalog)
                return *points;
        m_ordered.emplace_back(catalog, std::make_unique<RegionOrderedPoints>(
                                            *catalog, m_regionCount, inWeightedTask(catalog)));
        return *m_ordered.back().second;
    }

private:
    // Catalogs that a weighted task uses: their region-ordered copies carry weights (or ones).
    bool inWeightedTask(const Catalog* catalog) const {
        return std::any_of(m_tasks.begin(), m_tasks.end(), [&](const CountTask& t) {
            return t.weighted() && (t.first == catalog || t.second == catalog);
        });
    }

    std::span<const CountTask> m_tasks;
    std::size_t m_regionCount;
    std::vector<std::pair<const Catalog*, std::unique_ptr<RegionOrderedPoints>>> m_ordered;
};

// One count by region of a planned batch: a tally per task (shared by the workers), a scratch
// per worker, and the snapshots progress and the result are read from.
class RegionCount {
public:
    RegionCount(CpuBatch& batch, std::size_t taskCount, std::size_t regionCount);

    void countTile(std::size_t worker, std::size_t task, std::uint64_t index,
                   const RegionOrderedPoints& first, const RegionOrderedPoints& second);
    void countItem(std::size_t worker, std::size_t task, std::uint64_t rank);
    CountProgress snapshot(bool withCounts);
    /// The tallies become the result in place.
    std::vector<RegionPairCounts> result(CountProgress&& final);

private:
    /// Culled, part 0's tallies start from the plan's whole-cell counts, taken over (not copied);
    /// every other tally from zero.
    void startTally(std::size_t t);

    CpuBatch& m_batch;
    std::size_t m_tasks, m_regions;
    std::vector<RegionTaskTally> m_tallies;
    std::vector<RegionScratch> m_scratch;
    // The whole cell pairs' totals per task, for the live counts (holdWholeInProportion).
    std::vector<std::vector<std::uint64_t>> m_wholeCounts;
    std::vector<std::vector<double>> m_wholeWeighted;
};

RegionCount::RegionCount(CpuBatch& batch, std::size_t taskCount, std::size_t regionCount)
    : m_batch(batch), m_tasks(taskCount), m_regions(regionCount), m_tallies(taskCount),
      m_wholeCounts(taskCount), m_wholeWeighted(taskCount) {
    for (std::size_t t = 0; t < m_tasks; ++t)
        startTally(t);
    m_scratch.reserve(batch.workers);
    for (std::size_t w = 0; w < batch.workers; ++w)
        m_scratch.emplace_back(regionCount, batch.slots, batch.anyWeighted);
}

void RegionCount::startTally(std::size_t t) {
    const std::size_t bins = m_batch.bins, cells = m_regions * bins;
    RegionTaskTally& tally = m_tallies[t];
    const bool weighted = m_batch.taskWeighted[t];
    if (m_batch.culled && m_batch.cells.holdsWholePairs) {
        sky::TaskCellPlan& plan = m_batch.cells.plan.tasks[t];
        m_wholeCounts[t].assign(bins, 0);
        for (std::size_t r = 0; r < m_regions; ++r)
            for (std::size_t bin = 0; bin < bins; ++bin)
                m_wholeCounts[t][bin] += plan.wholeByFirst[r * bins + bin];
        if (weighted) {
            m_wholeWeighted[t].assign(bins, 0.0);
            for (std::size_t r = 0; r < m_regions; ++r)
                for (std::size_t bin = 0; bin < bins; ++bin)
                    m_wholeWeighted[t][bin] += plan.wholeWeightedByFirst[r * bins + bin];
        }
        tally.byFirst = std::move(plan.wholeByFirst);
        tally.bySecond = std::move(plan.wholeBySecond);
        tally.within = std::move(plan.wholeWithin);
        tally.weightedByFirst = std::move(plan.wholeWeightedByFirst);
        tally.weightedBySecondOnly = std::move(plan.wholeWeightedBySecondOnly);
        tally.weightedWithin = std::move(plan.wholeWeightedWithin);
    } else {
        tally.byFirst.assign(cells, 0);
        tally.bySecond.assign(cells, 0);
        tally.within.assign(cells, 0);
        if (weighted) {
            tally.weightedByFirst.assign(cells, 0.0);
            tally.weightedBySecondOnly.assign(cells, 0.0);
            tally.weightedWithin.assign(cells, 0.0);
        }
    }
    if (m_batch.culled)
        tally.pairsDone = m_batch.cells.initialDone[t];
}

void RegionCount::countTile(std::size_t worker, std::size_t task, std::uint64_t index,
                            const RegionOrderedPoints& first, const RegionOrderedPoints& second) {
    RegionScratch& s = m_scratch[worker];
    const TaskPlan& plan = m_batch.tiles[task];
    const TaskPlan::Tile tile = plan.tile(m_batch.order[task](index));
    const bool weighted = m_batch.taskWeighted[task];
    for (std::size_t i0 = tile.i0; i0 < tile.i1;) {
        const std::size_t ra = first.regionOf(i0);
        const std::size_t i1 = std::min(tile.i1, first.regionStart[ra + 1]);
        // On a diagonal tile only j ≥ i: the rectangle's j range starts at its own i0.
        for (std::size_t j0 = tile.diagonal ? i0 : tile.j0; j0 < tile.j1;) {
            const std::size_t rb = second.regionOf(j0);
            const std::size_t j1 = std::min(tile.j1, second.regionStart[rb + 1]);
            const bool diagonal = tile.diagonal && j0 == i0;
            if (weighted)
                m_batch.weightedKernel(plan.a, i0, i1, plan.b, j0, j1, diagonal, m_batch.lookup,
                                       s.histogram.data(), s.weightedHistogram.data());
            else
                m_batch.kernel(plan.a, i0, i1, plan.b, j0, j1, diagonal, m_batch.lookup,
                               s.histogram.data());
            s.addRectangle(ra, rb, m_tallies[task]);
            j0 = j1;
        }
        i0 = i1;
    }
    s.publish(m_tallies[task], TaskPlan::pairsOf(tile));
}

// Runs never mix regions on either side (cells hold one region, runs one region of b cells), so
// a run is a rectangle of one region pair; consecutive runs of one pair share the histogram.
void RegionCount::countItem(std::size_t worker, std::size_t task, std::uint64_t rank) {
    const CulledBatch& cells = m_batch.cells;
    const std::uint64_t item = m_batch.order[task](rank);
    RegionScratch& s = m_scratch[worker];
    const sky::CellTask& cellTask = cells.cellTasks[task];
    const sky::CellPartition& cellsA = cells.plan.cells[cellTask.first];
    const sky::CellPartition& cellsB = cells.plan.cells[cellTask.second];
    const Points a = cells.pointsOf(cellTask.first), b = cells.pointsOf(cellTask.second);
    const std::vector<sky::CountRun>& runs = cells.plan.tasks[task].runs;
    const std::vector<std::size_t>& starts = cells.itemStart[task];
    std::size_t pendingFirst = 0, pendingSecond = 0;
    bool pending = false;
    for (std::size_t r = starts[item]; r < starts[item + 1]; ++r) {
        const std::size_t ra = cellsA.segment[runs[r].a];
        const std::size_t rb = cellsB.segment[runs[r].bBegin];
        if (pending && (ra != pendingFirst || rb != pendingSecond))
            s.addRectangle(pendingFirst, pendingSecond, m_tallies[task]);
        pending = true;
        pendingFirst = ra;
        pendingSecond = rb;
        if (m_batch.taskWeighted[task])
            cells.countRun(m_batch.weightedKernel, task, runs[r], a, b, m_batch.lookup,
                           s.histogram.data(), s.weightedHistogram.data());
        else
            cells.countRun(m_batch.kernel, task, runs[r], a, b, m_batch.lookup, s.histogram.data());
    }
    if (pending)
        s.addRectangle(pendingFirst, pendingSecond, m_tallies[task]);
    s.publish(m_tallies[task], cells.itemCredit[task][item], cells.itemWork[task][item]);
}

// Partial counts are the totals: every pair is in byFirst of exactly one region.
CountProgress RegionCount::snapshot(bool withCounts) {
    const std::size_t bins = m_batch.bins;
    CountProgress progress;
    progress.pairsTotal = m_batch.pairsTotal;
    progress.partialsEvenlySpread = m_batch.evenlySpread;
    progress.pairsDonePerTask.assign(m_tasks, 0);
    if (withCounts) {
        progress.partialCounts.assign(m_tasks, PairCounts(bins, 0));
        progress.partialWeighted.resize(m_tasks);
    }
    for (std::size_t t = 0; t < m_tasks; ++t) {
        RegionTaskTally& tally = m_tallies[t];
        const std::lock_guard lock(tally.mutex);
        progress.pairsDonePerTask[t] = tally.pairsDone;
        progress.workDone += tally.workDone;
        if (!withCounts)
            continue;
        for (std::size_t r = 0; r < m_regions; ++r)
            for (std::size_t bin = 0; bin < bins; ++bin)
                progress.partialCounts[t][bin] += tally.byFirst[r * bins + bin];
        if (m_batch.taskWeighted[t]) {
            // Weighted totals: the regions' byFirst sums added in region order.
            progress.partialWeighted[t].assign(bins, 0.0);
            for (std::size_t r = 0; r < m_regions; ++r)
                for (std::size_t bin = 0; bin < bins; ++bin)
                    progress.partialWeighted[t][bin] += tally.weightedByFirst[r * bins + bin];
        }
    }
    for (std::uint64_t done : progress.pairsDonePerTask)
        progress.pairsDone += done;
    if (m_batch.culled) {
        progress.workTotal = m_batch.cells.workTotal;
        if (withCounts)
            holdWholeInProportion(m_batch.cells, progress, m_wholeCounts, m_wholeWeighted);
    }
    return progress;
}

// touching = byFirst + bySecond − within (exact in unsigned arithmetic, the true value being
// non-negative), within as it is.
std::vector<RegionPairCounts> RegionCount::result(CountProgress&& final) {
    std::vector<RegionPairCounts> result(m_tasks);
    for (std::size_t t = 0; t < m_tasks; ++t) {
        RegionPairCounts& counts = result[t];
        RegionTaskTally& tally = m_tallies[t];
        counts.regionCount = m_regions;
        counts.binCount = m_batch.bins;
        counts.total = std::move(final.partialCounts[t]);
        for (std::size_t k = 0; k < tally.byFirst.size(); ++k)
            tally.byFirst[k] = tally.byFirst[k] + tally.bySecond[k] - tally.within[k];
        counts.touching = std::move(tally.byFirst);
        counts.within = std::move(tally.within);
        tally.bySecond = {};
        if (m_batch.taskWeighted[t]) {
            // touching = byFirst + bySecondOnly; the total as in the final progress snapshot.
            for (std::size_t k = 0; k < tally.weightedByFirst.size(); ++k)
                tally.weightedByFirst[k] += tally.weightedBySecondOnly[k];
            counts.weightedTotal = std::move(final.partialWeighted[t]);
            counts.weightedTouching = std::move(tally.weightedByFirst);
            counts.weightedWithin = std::move(tally.weightedWithin);
            tally.weightedBySecondOnly = {};
        }
    }
    return result;
}

} // namespace

std::vector<RegionPairCounts> CpuPairCounter::countBatchByRegion(std::span<const CountTask> tasks,
                                                                 const Binning& binning,
                                                                 std::size_t regionCount,
                                                                 const CountControl& control) {
    checkRegionBatch(tasks, regionCount);
    checkBatch(tasks, control);
    CpuBatch batch(tasks, binning, m_avx512, culling());
    setLastBatchCulled(batch.culled);
    RegionOrderedCatalogs ordered(tasks, regionCount);
    std::vector<const RegionOrderedPoints*> sideA, sideB;
    batch.plan(tasks, binning, regionCount, m_threads, control, [&](const CountTask& task) {
        sideA.push_back(&ordered.of(task.first));
        sideB.push_back(&ordered.of(task.second ? task.second : task.first));
        return TaskPlan(sideA.back()->points, sideB.back()->points, task.isAuto());
    });

    RegionCount count(batch, tasks.size(), regionCount);
    const auto snapshot = [&](bool withCounts) { return count.snapshot(withCounts); };
    if (!batch.culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            count.countTile(worker, task, index, *sideA[task], *sideB[task]);
        };
        return count.result(runSchedule(batch.cells.schedule, batch.units, batch.workers, control,
                                        countTile, snapshot));
    }
    const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t rank) {
        count.countItem(worker, task, rank);
    };
    return count.result(runSchedule(batch.cells.schedule, batch.units, batch.workers, control,
                                    countItem, snapshot));
}

} // namespace tpacf
