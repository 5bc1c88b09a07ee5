// SPDX-License-Identifier: GPL-3.0-or-later
#include "counting/cpu_batch.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <limits>

namespace tpacf::cpu {

namespace {

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
        order.emplace_back(plan.bandStarts());
    return order;
}

std::vector<SpreadOrder> itemOrders(const CulledBatch& batch) {
    std::vector<SpreadOrder> order;
    for (const std::vector<std::uint64_t>& bands : batch.itemBands)
        order.emplace_back(bands);
    return order;
}

} // namespace

void checkBatch(std::span<const CountTask> tasks, const CountControl& control) {
    for (const CountTask& task : tasks)
        if (!task.first)
            throw ConfigError("a pair-count task has no catalog");
    control.share.validate();
    if (control.cancelled())
        throw Cancelled();
}

CpuBatch::CpuBatch(std::span<const CountTask> tasks, const Binning& binning, bool avx512,
                   CullingMode culling)
    : lookup(binning.chord2Edges()), slots(lookup.slotCount()), bins(binning.count()),
      kernel(kernelFor(avx512)), weightedKernel(weightedKernelFor(avx512)),
      taskWeighted(tasks.size()) {
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        taskWeighted[t] = tasks[t].weighted();
        anyWeighted = anyWeighted || taskWeighted[t];
    }
    const BatchChoice choice = chooseForBatch(tasks, binning, culling);
    culled = choice.culled;
    pairsTotal = choice.pairsTotal;
}

void CpuBatch::plan(std::span<const CountTask> tasks, const Binning& binning,
                    std::size_t regionCount, int threads, const CountControl& control,
                    const std::function<TaskPlan(const CountTask&)>& tilePlan) {
    const WorkShare& share = control.share;
    if (culled) {
        // A share's total is known once it is planned; until then it reports none.
        PreparationPacer pacer(control, tasks.size(), share.whole() ? pairsTotal : 0);
        cells = prepareCulledBatch(tasks, binning, regionCount, std::size_t(threads),
                                   std::ref(pacer), share);
        pairsTotal = cells.pairsTotal;
        units = {0, cells.schedule.total()};
        order = itemOrders(cells);
    } else {
        tiles.reserve(tasks.size());
        for (const CountTask& task : tasks)
            tiles.push_back(tilePlan(task));
        cells.schedule = TileSchedule::ofTiles(tiles);
        order = tileOrders(tiles);
        units = shareOfTiles(tiles, order, cells.schedule, share, pairsTotal);
    }
    workers = workersFor(threads, units.size());
    evenlySpread = evenSamples(order);
}

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

} // namespace tpacf::cpu
