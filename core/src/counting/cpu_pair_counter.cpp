// SPDX-License-Identifier: GPL-3.0-or-later
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
    std::vector<double> weightedSlots;     // the same for the weighted sums; empty: none weighted
    std::vector<std::uint64_t> pairsDone;  // per task
    double workDone = 0;                   // culled: the items' work (CulledBatch::itemWork)
};

bool anyWeighted(std::span<const CountTask> tasks) {
    return std::any_of(tasks.begin(), tasks.end(), [](const CountTask& t) { return t.weighted(); });
}

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

std::size_t workersFor(int threads, std::uint64_t units) {
    return units == 0 ? 0
                      : workerCount(threads, static_cast<std::size_t>(std::min<std::uint64_t>(
                                                 units, std::numeric_limits<int>::max())));
}

// The brute-force work of a share: the batch's tiles in schedule order, cut by their pairs
// (plus one: a tile costs a call even where it holds none); `pairs` gets the share's pairs.
UnitRange shareOfTiles(const std::vector<TaskPlan>& plans, const std::vector<SpreadOrder>& order,
                       const TileSchedule& schedule, const WorkShare& share, std::uint64_t& pairs) {
    const auto tilePairs = [&](std::uint64_t index) {
        const auto [task, unit] = schedule.locate(index);
        return TaskPlan::pairsOf(plans[task].tile(order[task](unit)));
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

std::vector<SpreadOrder> tileOrders(const std::vector<TaskPlan>& plans) {
    std::vector<SpreadOrder> order;
    for (const TaskPlan& plan : plans)
        order.emplace_back(plan.tileCount);
    return order;
}

std::vector<SpreadOrder> itemOrders(const CulledBatch& batch) {
    std::vector<SpreadOrder> order;
    for (const std::vector<std::size_t>& starts : batch.itemStart)
        order.emplace_back(starts.empty() ? 0 : starts.size() - 1);
    return order;
}

// Live counts of a culled batch: the whole cell pairs (counted while planning, part 0) held in
// proportion to each task's listed work done, and the pairs behind the counts likewise, so that
// every live count stays an even sample of its task's pairs; a task done keeps them whole (the
// final snapshot is the result).
void holdWholeInProportion(const CulledBatch& batch, CountProgress& progress,
                           const std::vector<std::vector<std::uint64_t>>& wholeCounts,
                           const std::vector<std::vector<double>>& wholeWeighted) {
    const std::size_t tasks = progress.pairsDonePerTask.size();
    progress.partialPairsPerTask.assign(tasks, 0);
    for (std::size_t t = 0; t < tasks; ++t) {
        const std::uint64_t done = progress.pairsDonePerTask[t];
        const double fraction = batch.listedFraction(t, done);
        if (fraction >= 1.0) {
            progress.partialPairsPerTask[t] = done;
            continue;
        }
        progress.partialPairsPerTask[t] = static_cast<std::uint64_t>(
            fraction * static_cast<double>(batch.taskPairsTotal[t]));
        PairCounts& counts = progress.partialCounts[t];
        const std::size_t bins = std::min(counts.size(), wholeCounts[t].size());
        for (std::size_t bin = 0; bin < bins; ++bin) {
            const std::uint64_t whole = wholeCounts[t][bin];
            counts[bin] -= whole - static_cast<std::uint64_t>(fraction * static_cast<double>(whole));
        }
        if (t < progress.partialWeighted.size()) {
            WeightedCounts& sums = progress.partialWeighted[t];
            const std::size_t weightedBins = std::min(sums.size(), wholeWeighted[t].size());
            for (std::size_t bin = 0; bin < weightedBins; ++bin)
                sums[bin] -= (1.0 - fraction) * wholeWeighted[t][bin];
        }
    }
}

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
    const WeightedTileKernel weightedKernel = weightedKernelFor(m_avx512);
    // Unweighted tasks take the integer kernels alone; weighted ones the weighted kernels,
    // which give the same raw counts from the same pass (cpu_tile_kernels.h).
    const bool batchWeighted = anyWeighted(tasks);
    std::vector<bool> taskWeighted(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
        taskWeighted[t] = tasks[t].weighted();

    const auto [batchPairs, culled] = chooseForBatch(tasks, binning, culling());
    setLastBatchCulled(culled);

    std::uint64_t pairsTotal = batchPairs;
    std::vector<TaskPlan> plans;
    CulledBatch batch;
    UnitRange units;
    UnitWeights unitWeights;
    std::vector<SpreadOrder> order; // per task: the order its units are counted in
    if (culled) {
        // A share's total is known once it is planned; until then it reports none.
        PreparationPacer pacer(control, tasks.size(), share.whole() ? batchPairs : 0);
        batch =
            prepareCulledBatch(tasks, binning, 0, std::size_t(m_threads), std::ref(pacer), share);
        pairsTotal = batch.pairsTotal;
        units = {0, batch.schedule.total()};
        order = itemOrders(batch);
    } else {
        plans.reserve(tasks.size());
        for (const CountTask& task : tasks) {
            TaskPlan& plan = plans.emplace_back(task);
            if (task.weighted()) {
                plan.a.w = unitWeights.of(*task.first);
                plan.b.w = unitWeights.of(task.second ? *task.second : *task.first);
            }
        }
        batch.schedule = TileSchedule::ofTiles(plans);
        order = tileOrders(plans);
        units = shareOfTiles(plans, order, batch.schedule, share, pairsTotal);
    }
    const TileSchedule& schedule = batch.schedule;

    const std::size_t workers = workersFor(m_threads, units.size());
    // At least one tally: the culled path starts it with the whole cell pairs' counts.
    std::vector<WorkerTally> tallies(std::max<std::size_t>(1, workers));
    std::vector<std::vector<std::uint32_t>> unitHistograms(workers);
    std::vector<std::vector<double>> unitWeighted(batchWeighted ? workers : 0);
    for (WorkerTally& tally : tallies) {
        tally.slotCounts.assign(tasks.size() * slots, 0);
        if (batchWeighted)
            tally.weightedSlots.assign(tasks.size() * slots, 0.0);
        tally.pairsDone.assign(tasks.size(), 0);
    }
    for (std::vector<std::uint32_t>& histogram : unitHistograms)
        histogram.resize(kHistogramCopies * slots);
    for (std::vector<double>& histogram : unitWeighted)
        histogram.assign(kHistogramCopies * slots, 0.0);

    // Adds a worker's unit histogram to its tally and credits the unit's pairs; for a weighted
    // task the unit's weighted sums too (and zeroes them for the next unit).
    const auto publish = [&](std::size_t worker, std::size_t task, std::uint64_t pairs,
                             double work) {
        const std::vector<std::uint32_t>& histogram = unitHistograms[worker];
        WorkerTally& tally = tallies[worker];
        const std::lock_guard lock(tally.mutex);
        std::uint64_t* counts = tally.slotCounts.data() + task * slots;
        for (std::size_t copy = 0; copy < kHistogramCopies; ++copy)
            for (std::size_t s = 0; s < slots; ++s)
                counts[s] += histogram[copy * slots + s];
        if (taskWeighted[task])
            addWeightedCopies(unitWeighted[worker].data(), slots,
                              tally.weightedSlots.data() + task * slots);
        tally.pairsDone[task] += pairs;
        tally.workDone += work;
    };

    const bool evenlySpread = evenSamples(order);
    // Culled, the whole cell pairs' counts per task (part 0): live counts hold them in
    // proportion to the work done (CulledBatch::listedFraction), the final counts whole.
    std::vector<std::vector<std::uint64_t>> wholeCounts(tasks.size());
    std::vector<std::vector<double>> wholeWeighted(tasks.size());
    const auto snapshot = [&](bool withCounts) {
        CountProgress progress;
        progress.pairsTotal = pairsTotal;
        progress.partialsEvenlySpread = evenlySpread;
        progress.pairsDonePerTask.assign(tasks.size(), 0);
        std::vector<std::uint64_t> slotCounts(withCounts ? tasks.size() * slots : 0, 0);
        // Weighted sums: the workers' tallies added in worker order.
        std::vector<double> weightedSlots(withCounts && batchWeighted ? tasks.size() * slots : 0,
                                          0.0);
        for (WorkerTally& tally : tallies) {
            const std::lock_guard lock(tally.mutex);
            for (std::size_t t = 0; t < tasks.size(); ++t)
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
            progress.partialCounts.resize(tasks.size());
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                // Slot k+1 is bin k; the slots below and above the range are dropped.
                const auto first = slotCounts.begin() + static_cast<std::ptrdiff_t>(t * slots + 1);
                progress.partialCounts[t].assign(first, first + static_cast<std::ptrdiff_t>(bins));
            }
            progress.partialWeighted.resize(tasks.size());
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                if (!taskWeighted[t])
                    continue;
                const auto first =
                    weightedSlots.begin() + static_cast<std::ptrdiff_t>(t * slots + 1);
                progress.partialWeighted[t].assign(first,
                                                   first + static_cast<std::ptrdiff_t>(bins));
            }
            if (culled)
                holdWholeInProportion(batch, progress, wholeCounts, wholeWeighted);
        }
        if (culled)
            progress.workTotal = batch.workTotal;
        return progress;
    };

    if (!culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            std::vector<std::uint32_t>& histogram = unitHistograms[worker];
            const TaskPlan& plan = plans[task];
            const TaskPlan::Tile tile = plan.tile(order[task](index));
            std::fill(histogram.begin(), histogram.end(), 0u);
            if (taskWeighted[task])
                weightedKernel(plan.a, tile.i0, tile.i1, plan.b, tile.j0, tile.j1, tile.diagonal,
                               lookup, histogram.data(), unitWeighted[worker].data());
            else
                kernel(plan.a, tile.i0, tile.i1, plan.b, tile.j0, tile.j1, tile.diagonal, lookup,
                       histogram.data());
            publish(worker, task, TaskPlan::pairsOf(tile), 0.0);
        };
        return taskCountsOf(runSchedule(schedule, units, workers, control, countTile, snapshot));
    }

    for (std::size_t t = 0; t < tasks.size(); ++t) {
        if (batch.holdsWholePairs) {
            const sky::TaskCellPlan& plan = batch.plan.tasks[t];
            for (std::size_t bin = 0; bin < bins; ++bin)
                tallies[0].slotCounts[t * slots + bin + 1] += plan.wholeByFirst[bin];
            wholeCounts[t].assign(plan.wholeByFirst.begin(), plan.wholeByFirst.begin() +
                                                                 static_cast<std::ptrdiff_t>(bins));
            if (taskWeighted[t]) {
                for (std::size_t bin = 0; bin < bins; ++bin)
                    tallies[0].weightedSlots[t * slots + bin + 1] += plan.wholeWeightedByFirst[bin];
                wholeWeighted[t].assign(plan.wholeWeightedByFirst.begin(),
                                        plan.wholeWeightedByFirst.begin() +
                                            static_cast<std::ptrdiff_t>(bins));
            }
        }
        tallies[0].pairsDone[t] = batch.initialDone[t];
    }
    const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t rank) {
        const std::uint64_t item = order[task](rank);
        std::vector<std::uint32_t>& histogram = unitHistograms[worker];
        std::fill(histogram.begin(), histogram.end(), 0u);
        const sky::CellTask& cellTask = batch.cellTasks[task];
        const Points a = batch.pointsOf(cellTask.first), b = batch.pointsOf(cellTask.second);
        const std::vector<sky::CountRun>& runs = batch.plan.tasks[task].runs;
        const std::vector<std::size_t>& starts = batch.itemStart[task];
        if (taskWeighted[task])
            for (std::size_t r = starts[item]; r < starts[item + 1]; ++r)
                batch.countRun(weightedKernel, task, runs[r], a, b, lookup, histogram.data(),
                               unitWeighted[worker].data());
        else
            for (std::size_t r = starts[item]; r < starts[item + 1]; ++r)
                batch.countRun(kernel, task, runs[r], a, b, lookup, histogram.data());
        publish(worker, task, batch.itemCredit[task][item], batch.itemWork[task][item]);
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
    const WeightedTileKernel weightedKernel = weightedKernelFor(m_avx512);
    const bool batchWeighted = anyWeighted(tasks);
    std::vector<bool> taskWeighted(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
        taskWeighted[t] = tasks[t].weighted();
    // Catalogs that a weighted task uses: their region-ordered copies carry weights (or ones).
    const auto inWeightedTask = [&](const Catalog* catalog) {
        return std::any_of(tasks.begin(), tasks.end(), [&](const CountTask& t) {
            return t.weighted() && (t.first == catalog || t.second == catalog);
        });
    };

    const auto [batchPairs, culled] = chooseForBatch(tasks, binning, culling());
    setLastBatchCulled(culled);

    // Brute force: each distinct catalog is put in region order once, however many tasks use
    // it. Culled: each is sorted by region, then Morton order, so no cell holds two regions.
    std::vector<std::pair<const Catalog*, std::unique_ptr<RegionOrderedPoints>>> ordered;
    const auto orderedOf = [&](const Catalog* catalog) -> const RegionOrderedPoints& {
        for (const auto& [known, points] : ordered)
            if (known == catalog)
                return *points;
        ordered.emplace_back(catalog, std::make_unique<RegionOrderedPoints>(
                                          *catalog, regionCount, inWeightedTask(catalog)));
        return *ordered.back().second;
    };
    std::uint64_t pairsTotal = batchPairs;
    std::vector<const RegionOrderedPoints*> sideA, sideB;
    std::vector<TaskPlan> plans;
    CulledBatch batch;
    UnitRange units;
    std::vector<SpreadOrder> order; // per task: the order its units are counted in
    if (culled) {
        PreparationPacer pacer(control, tasks.size(), share.whole() ? batchPairs : 0);
        batch = prepareCulledBatch(tasks, binning, regionCount, std::size_t(m_threads),
                                   std::ref(pacer), share);
        pairsTotal = batch.pairsTotal;
        units = {0, batch.schedule.total()};
        order = itemOrders(batch);
    } else {
        plans.reserve(tasks.size());
        for (const CountTask& task : tasks) {
            sideA.push_back(&orderedOf(task.first));
            sideB.push_back(&orderedOf(task.second ? task.second : task.first));
            plans.emplace_back(sideA.back()->points, sideB.back()->points, task.isAuto());
        }
        batch.schedule = TileSchedule::ofTiles(plans);
        order = tileOrders(plans);
        units = shareOfTiles(plans, order, batch.schedule, share, pairsTotal);
    }
    const TileSchedule& schedule = batch.schedule;

    // Culled, part 0's tallies start from the plan's whole-cell counts, taken over (not
    // copied); every other tally from zero.
    std::vector<RegionTaskTally> tallies(tasks.size());
    // The whole cell pairs' totals per task, for the live counts (holdWholeInProportion).
    std::vector<std::vector<std::uint64_t>> wholeCounts(tasks.size());
    std::vector<std::vector<double>> wholeWeighted(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        RegionTaskTally& tally = tallies[t];
        if (culled && batch.holdsWholePairs) {
            sky::TaskCellPlan& plan = batch.plan.tasks[t];
            wholeCounts[t].assign(bins, 0);
            for (std::size_t r = 0; r < regionCount; ++r)
                for (std::size_t bin = 0; bin < bins; ++bin)
                    wholeCounts[t][bin] += plan.wholeByFirst[r * bins + bin];
            if (taskWeighted[t]) {
                wholeWeighted[t].assign(bins, 0.0);
                for (std::size_t r = 0; r < regionCount; ++r)
                    for (std::size_t bin = 0; bin < bins; ++bin)
                        wholeWeighted[t][bin] += plan.wholeWeightedByFirst[r * bins + bin];
            }
            tally.byFirst = std::move(plan.wholeByFirst);
            tally.bySecond = std::move(plan.wholeBySecond);
            tally.within = std::move(plan.wholeWithin);
            tally.weightedByFirst = std::move(plan.wholeWeightedByFirst);
            tally.weightedBySecondOnly = std::move(plan.wholeWeightedBySecondOnly);
            tally.weightedWithin = std::move(plan.wholeWeightedWithin);
        } else {
            tally.byFirst.assign(regionCount * bins, 0);
            tally.bySecond.assign(regionCount * bins, 0);
            tally.within.assign(regionCount * bins, 0);
            if (taskWeighted[t]) {
                tally.weightedByFirst.assign(regionCount * bins, 0.0);
                tally.weightedBySecondOnly.assign(regionCount * bins, 0.0);
                tally.weightedWithin.assign(regionCount * bins, 0.0);
            }
        }
        if (culled)
            tally.pairsDone = batch.initialDone[t];
    }
    const std::size_t workers = workersFor(m_threads, units.size());
    std::vector<RegionScratch> scratch;
    scratch.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
        scratch.emplace_back(regionCount, slots, batchWeighted);

    const bool evenlySpread = evenSamples(order);
    // Partial counts are the totals: every pair is in byFirst of exactly one region.
    const auto snapshot = [&](bool withCounts) {
        CountProgress progress;
        progress.pairsTotal = pairsTotal;
        progress.partialsEvenlySpread = evenlySpread;
        progress.pairsDonePerTask.assign(tasks.size(), 0);
        if (withCounts) {
            progress.partialCounts.assign(tasks.size(), PairCounts(bins, 0));
            progress.partialWeighted.resize(tasks.size());
        }
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            RegionTaskTally& tally = tallies[t];
            const std::lock_guard lock(tally.mutex);
            progress.pairsDonePerTask[t] = tally.pairsDone;
            progress.workDone += tally.workDone;
            if (!withCounts)
                continue;
            for (std::size_t r = 0; r < regionCount; ++r)
                for (std::size_t bin = 0; bin < bins; ++bin)
                    progress.partialCounts[t][bin] += tally.byFirst[r * bins + bin];
            if (taskWeighted[t]) {
                // Weighted totals: the regions' byFirst sums added in region order.
                progress.partialWeighted[t].assign(bins, 0.0);
                for (std::size_t r = 0; r < regionCount; ++r)
                    for (std::size_t bin = 0; bin < bins; ++bin)
                        progress.partialWeighted[t][bin] += tally.weightedByFirst[r * bins + bin];
            }
        }
        for (std::uint64_t done : progress.pairsDonePerTask)
            progress.pairsDone += done;
        if (culled) {
            progress.workTotal = batch.workTotal;
            if (withCounts)
                holdWholeInProportion(batch, progress, wholeCounts, wholeWeighted);
        }
        return progress;
    };

    CountProgress final;
    if (!culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            RegionScratch& s = scratch[worker];
            const TaskPlan& plan = plans[task];
            const TaskPlan::Tile tile = plan.tile(order[task](index));
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
                    if (taskWeighted[task])
                        weightedKernel(plan.a, i0, i1, plan.b, j0, j1, diagonal, lookup,
                                       s.histogram.data(), s.weightedHistogram.data());
                    else
                        kernel(plan.a, i0, i1, plan.b, j0, j1, diagonal, lookup,
                               s.histogram.data());
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
        const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t rank) {
            const std::uint64_t item = order[task](rank);
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
                if (taskWeighted[task])
                    batch.countRun(weightedKernel, task, runs[r], a, b, lookup, s.histogram.data(),
                                   s.weightedHistogram.data());
                else
                    batch.countRun(kernel, task, runs[r], a, b, lookup, s.histogram.data());
            }
            if (pending)
                s.addRectangle(pendingFirst, pendingSecond, tallies[task]);
            s.publish(tallies[task], batch.itemCredit[task][item], batch.itemWork[task][item]);
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
        if (taskWeighted[t]) {
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

} // namespace tpacf
