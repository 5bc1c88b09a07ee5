// The CPU backend: the two count modes (plain and by jackknife region) over the brute-force
// tiles or the culled plan. The pieces live beside it: the bin lookup (cpu_bin_lookup.h), the
// kernels (cpu_tile_kernels.cpp), the work list, its shares and the runner loop
// (tile_schedule.cpp), the culled preparation (cpu_culled_batch.cpp) and the region tallies
// (region_tally.cpp).
#include "tpacf/cpu_pair_counter.h"

#include "counting/cpu_culled_batch.h"
#include "counting/region_tally.h"
#include "counting/tile_schedule.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
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
    std::vector<std::uint64_t> pairsDone;  // per task
};

std::size_t workersFor(int threads, std::uint64_t units) {
    return units == 0 ? 0
                      : workerCount(threads, static_cast<std::size_t>(std::min<std::uint64_t>(
                                                 units, std::numeric_limits<int>::max())));
}

// The brute-force work of a share: the batch's tiles in schedule order, cut by their pairs
// (plus one: a tile costs a call even where it holds none); `pairs` gets the share's pairs.
UnitRange shareOfTiles(const std::vector<TaskPlan>& plans, const TileSchedule& schedule,
                       const WorkShare& share, std::uint64_t& pairs) {
    const auto tilePairs = [&](std::uint64_t index) {
        const auto [task, unit] = schedule.locate(index);
        return TaskPlan::pairsOf(plans[task].tile(unit));
    };
    const UnitRange range = shareOfUnits(
        schedule.total(), [&](std::uint64_t index) { return tilePairs(index) + 1; }, share);
    if (!share.whole()) {
        pairs = 0;
        for (std::uint64_t index = range.begin; index < range.end; ++index)
            pairs += tilePairs(index);
    }
    return range;
}

// The final counts of runSchedule, one TaskCounts per task.
std::vector<TaskCounts> taskCountsOf(CountProgress&& final) {
    std::vector<TaskCounts> result(final.partialCounts.size());
    for (std::size_t t = 0; t < result.size(); ++t)
        result[t].raw = std::move(final.partialCounts[t]);
    return result;
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
    for (const CountTask& task : tasks)
        if (!task.first)
            throw ConfigError("a pair-count task has no catalog");
    const WorkShare share = control.share;
    share.validate();
    if (control.cancelled())
        throw Cancelled();

    const SlotLookup lookup(binning.chord2Edges());
    const std::size_t slots = lookup.slotCount();
    const std::size_t bins = binning.count();
    const TileKernel kernel = kernelFor(m_avx512);

    const auto [batchPairs, culled] = chooseForBatch(tasks, binning, culling());
    setLastBatchCulled(culled);

    std::uint64_t pairsTotal = batchPairs;
    std::vector<TaskPlan> plans;
    CulledBatch batch;
    UnitRange units;
    if (culled) {
        // A share's total is known once it is planned; until then it reports none.
        PreparationPacer pacer(control, tasks.size(), share.whole() ? batchPairs : 0);
        batch =
            prepareCulledBatch(tasks, binning, 0, std::size_t(m_threads), std::ref(pacer), share);
        pairsTotal = batch.pairsTotal;
        units = {0, batch.schedule.total()};
    } else {
        plans.reserve(tasks.size());
        for (const CountTask& task : tasks)
            plans.emplace_back(task);
        batch.schedule = TileSchedule::ofTiles(plans);
        units = shareOfTiles(plans, batch.schedule, share, pairsTotal);
    }
    const TileSchedule& schedule = batch.schedule;

    const std::size_t workers = workersFor(m_threads, units.size());
    // At least one tally: the culled path starts it with the whole cell pairs' counts.
    std::vector<WorkerTally> tallies(std::max<std::size_t>(1, workers));
    std::vector<std::vector<std::uint32_t>> unitHistograms(workers);
    for (WorkerTally& tally : tallies) {
        tally.slotCounts.assign(tasks.size() * slots, 0);
        tally.pairsDone.assign(tasks.size(), 0);
    }
    for (std::vector<std::uint32_t>& histogram : unitHistograms)
        histogram.resize(kHistogramCopies * slots);

    // Adds a worker's unit histogram to its tally and credits the unit's pairs.
    const auto publish = [&](std::size_t worker, std::size_t task, std::uint64_t pairs) {
        const std::vector<std::uint32_t>& histogram = unitHistograms[worker];
        WorkerTally& tally = tallies[worker];
        const std::lock_guard lock(tally.mutex);
        std::uint64_t* counts = tally.slotCounts.data() + task * slots;
        for (std::size_t copy = 0; copy < kHistogramCopies; ++copy)
            for (std::size_t s = 0; s < slots; ++s)
                counts[s] += histogram[copy * slots + s];
        tally.pairsDone[task] += pairs;
    };

    const auto snapshot = [&](bool withCounts) {
        CountProgress progress;
        progress.pairsTotal = pairsTotal;
        progress.pairsDonePerTask.assign(tasks.size(), 0);
        std::vector<std::uint64_t> slotCounts(withCounts ? tasks.size() * slots : 0, 0);
        for (WorkerTally& tally : tallies) {
            const std::lock_guard lock(tally.mutex);
            for (std::size_t t = 0; t < tasks.size(); ++t)
                progress.pairsDonePerTask[t] += tally.pairsDone[t];
            for (std::size_t s = 0; s < slotCounts.size(); ++s)
                slotCounts[s] += tally.slotCounts[s];
        }
        for (std::uint64_t done : progress.pairsDonePerTask)
            progress.pairsDone += done;
        if (withCounts) {
            progress.partialCounts.resize(tasks.size());
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                // Slot k+1 is bin k; the slots below and above the range are dropped.
                const auto first = slotCounts.begin() + static_cast<std::ptrdiff_t>(t * slots + 1);
                progress.partialCounts[t].assign(first, first + static_cast<std::ptrdiff_t>(bins));
            }
        }
        return progress;
    };

    if (!culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            std::vector<std::uint32_t>& histogram = unitHistograms[worker];
            const TaskPlan& plan = plans[task];
            const TaskPlan::Tile tile = plan.tile(index);
            std::fill(histogram.begin(), histogram.end(), 0u);
            kernel(plan.a, tile.i0, tile.i1, plan.b, tile.j0, tile.j1, tile.diagonal, lookup,
                   histogram.data());
            publish(worker, task, TaskPlan::pairsOf(tile));
        };
        return taskCountsOf(runSchedule(schedule, units, workers, control, countTile, snapshot));
    }

    for (std::size_t t = 0; t < tasks.size(); ++t) {
        if (batch.holdsWholePairs) {
            const sky::TaskCellPlan& plan = batch.plan.tasks[t];
            for (std::size_t bin = 0; bin < bins; ++bin)
                tallies[0].slotCounts[t * slots + bin + 1] += plan.wholeByFirst[bin];
        }
        tallies[0].pairsDone[t] = batch.initialDone[t];
    }
    const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t item) {
        std::vector<std::uint32_t>& histogram = unitHistograms[worker];
        std::fill(histogram.begin(), histogram.end(), 0u);
        const sky::CellTask& cellTask = batch.cellTasks[task];
        const Points a = batch.pointsOf(cellTask.first), b = batch.pointsOf(cellTask.second);
        const std::vector<sky::CountRun>& runs = batch.plan.tasks[task].runs;
        const std::vector<std::size_t>& starts = batch.itemStart[task];
        for (std::size_t r = starts[item]; r < starts[item + 1]; ++r)
            batch.countRun(kernel, task, runs[r], a, b, lookup, histogram.data());
        publish(worker, task, batch.itemCredit[task][item]);
    };
    return taskCountsOf(runSchedule(schedule, units, workers, control, countItem, snapshot));
}

std::vector<RegionPairCounts> CpuPairCounter::countBatchByRegion(std::span<const CountTask> tasks,
                                                                 const Binning& binning,
                                                                 std::size_t regionCount,
                                                                 const CountControl& control) {
    if (regionCount == 0)
        throw ConfigError("counting by jackknife region needs at least one region");
    if (regionCount > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw ConfigError("too many jackknife regions: " + std::to_string(regionCount));
    const auto checkRegions = [&](const Catalog& catalog) {
        const auto region = catalog.region();
        if (region.size() != catalog.size())
            throw ConfigError("catalog '" + catalog.name() + "' has no jackknife regions");
        for (std::size_t i = 0; i < region.size(); ++i)
            if (region[i] < 0 || static_cast<std::size_t>(region[i]) >= regionCount)
                throw ConfigError("catalog '" + catalog.name() + "', point " +
                                  std::to_string(i + 1) + ": region " + std::to_string(region[i]) +
                                  " is outside [0, " + std::to_string(regionCount) + ")");
    };
    for (const CountTask& task : tasks) {
        if (!task.first)
            throw ConfigError("a pair-count task has no catalog");
        checkRegions(*task.first);
        if (task.second)
            checkRegions(*task.second);
    }
    const WorkShare share = control.share;
    share.validate();
    if (control.cancelled())
        throw Cancelled();

    const SlotLookup lookup(binning.chord2Edges());
    const std::size_t slots = lookup.slotCount();
    const std::size_t bins = binning.count();
    const TileKernel kernel = kernelFor(m_avx512);

    const auto [batchPairs, culled] = chooseForBatch(tasks, binning, culling());
    setLastBatchCulled(culled);

    // Brute force: each distinct catalog is put in region order once, however many tasks use
    // it. Culled: each is sorted by region, then Morton order, so no cell holds two regions.
    std::vector<std::pair<const Catalog*, std::unique_ptr<RegionOrderedPoints>>> ordered;
    const auto orderedOf = [&](const Catalog* catalog) -> const RegionOrderedPoints& {
        for (const auto& [known, points] : ordered)
            if (known == catalog)
                return *points;
        ordered.emplace_back(catalog, std::make_unique<RegionOrderedPoints>(*catalog, regionCount));
        return *ordered.back().second;
    };
    std::uint64_t pairsTotal = batchPairs;
    std::vector<const RegionOrderedPoints*> sideA, sideB;
    std::vector<TaskPlan> plans;
    CulledBatch batch;
    UnitRange units;
    if (culled) {
        PreparationPacer pacer(control, tasks.size(), share.whole() ? batchPairs : 0);
        batch = prepareCulledBatch(tasks, binning, regionCount, std::size_t(m_threads),
                                   std::ref(pacer), share);
        pairsTotal = batch.pairsTotal;
        units = {0, batch.schedule.total()};
    } else {
        plans.reserve(tasks.size());
        for (const CountTask& task : tasks) {
            sideA.push_back(&orderedOf(task.first));
            sideB.push_back(&orderedOf(task.second ? task.second : task.first));
            plans.emplace_back(sideA.back()->points, sideB.back()->points, task.isAuto());
        }
        batch.schedule = TileSchedule::ofTiles(plans);
        units = shareOfTiles(plans, batch.schedule, share, pairsTotal);
    }
    const TileSchedule& schedule = batch.schedule;

    // Culled, part 0's tallies start from the plan's whole-cell counts, taken over (not
    // copied); every other tally from zero.
    std::vector<RegionTaskTally> tallies(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        RegionTaskTally& tally = tallies[t];
        if (culled && batch.holdsWholePairs) {
            sky::TaskCellPlan& plan = batch.plan.tasks[t];
            tally.byFirst = std::move(plan.wholeByFirst);
            tally.bySecond = std::move(plan.wholeBySecond);
            tally.within = std::move(plan.wholeWithin);
        } else {
            tally.byFirst.assign(regionCount * bins, 0);
            tally.bySecond.assign(regionCount * bins, 0);
            tally.within.assign(regionCount * bins, 0);
        }
        if (culled)
            tally.pairsDone = batch.initialDone[t];
    }
    const std::size_t workers = workersFor(m_threads, units.size());
    std::vector<RegionScratch> scratch;
    scratch.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
        scratch.emplace_back(regionCount, slots);

    // Partial counts are the totals: every pair is in byFirst of exactly one region.
    const auto snapshot = [&](bool withCounts) {
        CountProgress progress;
        progress.pairsTotal = pairsTotal;
        progress.pairsDonePerTask.assign(tasks.size(), 0);
        if (withCounts)
            progress.partialCounts.assign(tasks.size(), PairCounts(bins, 0));
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            RegionTaskTally& tally = tallies[t];
            const std::lock_guard lock(tally.mutex);
            progress.pairsDonePerTask[t] = tally.pairsDone;
            if (withCounts)
                for (std::size_t r = 0; r < regionCount; ++r)
                    for (std::size_t bin = 0; bin < bins; ++bin)
                        progress.partialCounts[t][bin] += tally.byFirst[r * bins + bin];
        }
        for (std::uint64_t done : progress.pairsDonePerTask)
            progress.pairsDone += done;
        return progress;
    };

    CountProgress final;
    if (!culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            RegionScratch& s = scratch[worker];
            const TaskPlan& plan = plans[task];
            const TaskPlan::Tile tile = plan.tile(index);
            const RegionOrderedPoints& first = *sideA[task];
            const RegionOrderedPoints& second = *sideB[task];
            for (std::size_t i0 = tile.i0; i0 < tile.i1;) {
                const std::size_t ra = first.regionOf(i0);
                const std::size_t i1 = std::min(tile.i1, first.regionStart[ra + 1]);
                // On a diagonal tile only j ≥ i: the rectangle's j range starts at its own i0.
                for (std::size_t j0 = tile.diagonal ? i0 : tile.j0; j0 < tile.j1;) {
                    const std::size_t rb = second.regionOf(j0);
                    const std::size_t j1 = std::min(tile.j1, second.regionStart[rb + 1]);
                    const bool diagonal = tile.diagonal && j0 == i0;
                    kernel(plan.a, i0, i1, plan.b, j0, j1, diagonal, lookup, s.histogram.data());
                    s.addRectangle(ra, rb, tallies[task]);
                    j0 = j1;
                }
                i0 = i1;
            }
            s.publish(tallies[task], TaskPlan::pairsOf(tile));
        };
        final = runSchedule(schedule, units, workers, control, countTile, snapshot);
    } else {
        // Runs never mix regions on either side (cells hold one region, runs one region of b
        // cells), so a run is a rectangle of one region pair; consecutive runs of one pair share
        // the histogram.
        const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t item) {
            RegionScratch& s = scratch[worker];
            const sky::CellTask& cellTask = batch.cellTasks[task];
            const sky::CellPartition& cellsA = batch.plan.cells[cellTask.first];
            const sky::CellPartition& cellsB = batch.plan.cells[cellTask.second];
            const Points a = batch.pointsOf(cellTask.first), b = batch.pointsOf(cellTask.second);
            const std::vector<sky::CountRun>& runs = batch.plan.tasks[task].runs;
            const std::vector<std::size_t>& starts = batch.itemStart[task];
            std::size_t pendingFirst = 0, pendingSecond = 0;
            bool pending = false;
            for (std::size_t r = starts[item]; r < starts[item + 1]; ++r) {
                const std::size_t ra = cellsA.segment[runs[r].a];
                const std::size_t rb = cellsB.segment[runs[r].bBegin];
                if (pending && (ra != pendingFirst || rb != pendingSecond))
                    s.addRectangle(pendingFirst, pendingSecond, tallies[task]);
                pending = true;
                pendingFirst = ra;
                pendingSecond = rb;
                batch.countRun(kernel, task, runs[r], a, b, lookup, s.histogram.data());
            }
            if (pending)
                s.addRectangle(pendingFirst, pendingSecond, tallies[task]);
            s.publish(tallies[task], batch.itemCredit[task][item]);
        };
        final = runSchedule(schedule, units, workers, control, countItem, snapshot);
    }

    // The tallies become the result in place: touching = byFirst + bySecond − within (exact in
    // unsigned arithmetic, the true value being non-negative), within as it is.
    std::vector<RegionPairCounts> result(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        RegionPairCounts& counts = result[t];
        RegionTaskTally& tally = tallies[t];
        counts.regionCount = regionCount;
        counts.binCount = bins;
        counts.total = std::move(final.partialCounts[t]);
        for (std::size_t k = 0; k < tally.byFirst.size(); ++k)
            tally.byFirst[k] = tally.byFirst[k] + tally.bySecond[k] - tally.within[k];
        counts.touching = std::move(tally.byFirst);
        counts.within = std::move(tally.within);
        tally.bySecond = {};
    }
    return result;
}

} // namespace tpacf
