// SPDX-License-Identifier: GPL-3.0-or-later
// Steps of the CUDA counter's batch that need none of its state (batch_steps.h).
#include "batch_steps.h"

#include "tpacf/work_runner.h"

#include <algorithm>
#include <cmath>
#include <exception>

namespace tpacf::cuda::detail {

TaskVariants variantsOf(std::span<const CountTask> tasks) {
    TaskVariants variants;
    variants.weighted.assign(tasks.size(), 0);
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        variants.weighted[t] = tasks[t].weighted() ? 1 : 0;
        variants.anyWeighted = variants.anyWeighted || variants.weighted[t] != 0;
        variants.anyPlain = variants.anyPlain || variants.weighted[t] == 0;
    }
    return variants;
}

BatchCounts zeroedCounts(const TaskVariants& variants, std::size_t countsPerTask) {
    const std::size_t taskCount = variants.weighted.size();
    BatchCounts counts;
    counts.raw.assign(taskCount, PairCounts(countsPerTask, 0));
    counts.weighted.resize(taskCount);
    for (std::size_t t = 0; t < taskCount; ++t)
        if (variants.weighted[t] != 0)
            counts.weighted[t].assign(countsPerTask, 0.0);
    return counts;
}

BatchTiles layoutTiles(const BatchCatalogs& batch, std::size_t regionCount, std::uint32_t tileSize,
                       int regionCellLevel) {
    BatchTiles tiles;
    if (regionCount == 0) {
        for (const Catalog* catalog : batch.catalogs)
            tiles.tileCounts.push_back(plainTileCounts(catalog->size(), tileSize));
        return tiles;
    }
    const std::size_t count = batch.catalogs.size();
    tiles.regionLayouts.resize(count);
    std::vector<std::exception_ptr> errors(count);
    parallelForRanges(count, [&](std::size_t begin, std::size_t end) {
        for (std::size_t c = begin; c < end; ++c)
            try {
                tiles.regionLayouts[c] =
                    buildRegionLayout(*batch.catalogs[c], regionCount, tileSize, regionCellLevel);
            } catch (...) {
                errors[c] = std::current_exception();
            }
    });
    for (const std::exception_ptr& error : errors)
        if (error)
            std::rethrow_exception(error);
    for (const RegionLayout& layout : tiles.regionLayouts)
        tiles.tileCounts.push_back(layout.tileCount);
    return tiles;
}

CountProgress finishedProgress(const Schedule& schedule) {
    CountProgress progress;
    for (std::uint64_t total : schedule.shareTaskTotals) {
        progress.pairsDonePerTask.push_back(total);
        progress.pairsDone += total;
    }
    progress.pairsTotal = progress.pairsDone;
    return progress;
}

namespace {

// Whether every published list has its tasks' units in spread order.
bool evenlySpread(BatchState& state) {
    const std::vector<const Schedule*> schedules = state.schedules();
    return std::all_of(schedules.begin(), schedules.end(),
                       [](const Schedule* schedule) { return schedule->evenlySpread; });
}

} // namespace

void reportBatchProgress(const CountControl& control, std::span<const CountTask> tasks,
                         const WorkShare& share, BatchState& state, LiveCounts* live, bool final) {
    if (!control.onProgress)
        return;
    const bool listed = state.allPublished();
    if (!listed && !share.whole())
        return;
    CountProgress progress;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const Schedule* schedule = state.scheduleOf(t);
        const std::uint64_t total = schedule ? schedule->shareTaskTotals[t] : tasks[t].pairTotal();
        const std::uint64_t done = final ? total : state.pairsDone(t);
        progress.pairsDonePerTask.push_back(done);
        progress.pairsDone += done;
        progress.pairsTotal += total;
    }
    if (!final && live &&
        live->takeNew(progress.partialCounts, progress.partialWeighted,
                      progress.partialPairsPerTask) &&
        listed && share.whole() && evenlySpread(state)) {
        addWholeCountsSoFar(state, progress);
        progress.partialsEvenlySpread = true;
    }
    control.onProgress(progress);
}

void addWholeCountsSoFar(BatchState& state, CountProgress& progress) {
    for (std::size_t t = 0; t < progress.partialCounts.size(); ++t) {
        const Schedule& schedule = *state.scheduleOf(t);
        const std::uint64_t total = schedule.shareTaskTotals[t];
        const auto [begin, end] = schedule.taskUnits[t];
        if (begin == end) // nothing for the devices: all of it is known
            progress.partialPairsPerTask[t] = total;
        const double share =
            total > 0 ? static_cast<double>(progress.partialPairsPerTask[t]) / static_cast<double>(total)
                      : 1.0;
        PairCounts& counts = progress.partialCounts[t];
        if (t < schedule.wholeCounts.size())
            for (std::size_t k = 0; k < counts.size() && k < schedule.wholeCounts[t].size(); ++k)
                // Rounded down: a snapshot never holds more pairs than the pairs behind it.
                counts[k] += static_cast<std::uint64_t>(
                    std::floor(static_cast<double>(schedule.wholeCounts[t][k]) * share));
        if (t < progress.partialWeighted.size() && t < schedule.wholeWeighted.size())
            for (std::size_t k = 0; k < progress.partialWeighted[t].size() &&
                                    k < schedule.wholeWeighted[t].size();
                 ++k)
                progress.partialWeighted[t][k] += schedule.wholeWeighted[t][k] * share;
    }
}

double addDeviceCounts(const std::vector<DeviceResult>& devices, std::size_t countsPerTask,
                       BatchCounts& counts) {
    double busy = 0;
    for (const DeviceResult& result : devices) {
        busy = std::max(busy, result.busySeconds);
        for (std::size_t t = 0; t < counts.raw.size(); ++t) {
            for (std::size_t k = 0; k < countsPerTask; ++k)
                counts.raw[t][k] += result.counts[t * countsPerTask + k];
            if (!counts.weighted[t].empty() && !result.weighted.empty())
                for (std::size_t k = 0; k < countsPerTask; ++k)
                    counts.weighted[t][k] += result.weighted[t * countsPerTask + k];
        }
    }
    return busy;
}

void addWholeCounts(const Schedule& schedule, BatchCounts& counts) {
    for (std::size_t t = 0; t < schedule.wholeCounts.size() && t < counts.raw.size(); ++t) {
        const std::vector<std::uint64_t>& whole = schedule.wholeCounts[t];
        for (std::size_t k = 0; k < whole.size(); ++k)
            counts.raw[t][k] += whole[k];
        if (!counts.weighted[t].empty() && t < schedule.wholeWeighted.size())
            for (std::size_t k = 0; k < schedule.wholeWeighted[t].size(); ++k)
                counts.weighted[t][k] += schedule.wholeWeighted[t][k];
    }
}

} // namespace tpacf::cuda::detail
