// SPDX-License-Identifier: GPL-3.0-or-later
#include "counting/tile_schedule.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace tpacf::cpu {

TaskPlan::TaskPlan(const CountTask& task)
    : TaskPlan(Points(*task.first), Points(task.second ? *task.second : *task.first),
               task.isAuto()) {}

TaskPlan::TaskPlan(Points first, Points second, bool autoCount)
    : a(first), b(second), isAuto(autoCount) {
    const auto blocks = [](std::size_t n) { return (n + kTileSide - 1) / kTileSide; };
    rowBlocks = blocks(a.size);
    columnBlocks = blocks(b.size);
    if (pairTotal() == 0)
        return;
    const SpreadLines spread(isAuto, rowBlocks, columnBlocks);
    lines = spread.lines;
    byColumns = spread.byColumns;
    // Rows i and R - 1 - i (R even), or i and R - i after row 0 alone (R odd), make one line.
    lineWidth = isAuto      ? (rowBlocks % 2 == 0 ? rowBlocks + 1 : rowBlocks)
                : byColumns ? rowBlocks
                            : columnBlocks;
    tileCount = lines * lineWidth;
}

std::vector<std::uint64_t> TaskPlan::bandStarts() const {
    const std::uint64_t bands = std::min(lines, kSpreadBands);
    std::vector<std::uint64_t> starts;
    for (std::uint64_t band = 0; band <= bands && tileCount > 0; ++band)
        starts.push_back(band * lines / bands * lineWidth);
    return starts;
}

TaskPlan::Tile TaskPlan::tile(std::uint64_t index) const {
    const std::uint64_t line = index / lineWidth, at = index % lineWidth;
    std::uint64_t row, column;
    if (isAuto) {
        const std::uint64_t rows = rowBlocks;
        if (at < rows - line) { // the line's long row
            row = line;
            column = line + at;
        } else { // its short row
            row = (rows % 2 == 0 ? rows - 1 : rows) - line;
            column = row + (at - (rows - line));
        }
    } else if (byColumns) {
        column = line;
        row = at;
    } else {
        row = line;
        column = at;
    }
    const std::size_t i0 = row * kTileSide, j0 = column * kTileSide;
    return {i0, std::min(a.size, i0 + kTileSide), j0, std::min(b.size, j0 + kTileSide),
            isAuto && row == column};
}

TileSchedule::TileSchedule(std::vector<std::uint64_t> unitsPerTask) {
    m_byTileCount.resize(unitsPerTask.size());
    for (std::size_t t = 0; t < unitsPerTask.size(); ++t)
        m_byTileCount[t] = t;
    std::stable_sort(m_byTileCount.begin(), m_byTileCount.end(), [&](std::size_t l, std::size_t r) {
        return unitsPerTask[l] < unitsPerTask[r];
    });
    std::uint64_t previousRounds = 0, start = 0;
    for (std::size_t s = 0; s < m_byTileCount.size(); ++s) {
        const std::uint64_t rounds = unitsPerTask[m_byTileCount[s]];
        const std::uint64_t width = m_byTileCount.size() - s;
        m_segments.push_back({start, previousRounds, width, s});
        start += (rounds - previousRounds) * width;
        previousRounds = rounds;
    }
    m_total = start;
}

TileSchedule TileSchedule::ofTiles(const std::vector<TaskPlan>& plans) {
    std::vector<std::uint64_t> tiles;
    for (const TaskPlan& plan : plans)
        tiles.push_back(plan.tileCount);
    return TileSchedule(std::move(tiles));
}

std::pair<std::size_t, std::uint64_t> TileSchedule::locate(std::uint64_t index) const {
    auto segment =
        std::upper_bound(m_segments.begin(), m_segments.end(), index,
                         [](std::uint64_t value, const Segment& s) { return value < s.start; });
    // Empty segments share their start with the next one: upper_bound picks the last.
    --segment;
    const std::uint64_t offset = index - segment->start;
    const std::uint64_t round = segment->firstRound + offset / segment->width;
    const std::size_t task = m_byTileCount[segment->firstSorted + offset % segment->width];
    return {task, round};
}

UnitRange shareOfUnits(std::uint64_t count,
                       const std::function<std::uint64_t(std::uint64_t)>& unitCost,
                       const WorkShare& share) {
    share.validate();
    if (share.whole())
        return {0, count};
    std::uint64_t totalCost = 0;
    for (std::uint64_t i = 0; i < count; ++i)
        totalCost += unitCost(i);
    // Where part k's cost interval starts: floor(k · totalCost / parts), without the product
    // (it could overflow 64 bits).
    const std::uint64_t parts = share.parts;
    const auto partStart = [&](std::uint64_t k) {
        return totalCost / parts * k + totalCost % parts * k / parts;
    };
    const std::uint64_t from = partStart(share.part);
    const std::uint64_t to = share.part + 1 == parts ? totalCost + 1 : partStart(share.part + 1);
    // Unit i belongs to the part whose [start, next start) holds the cost before it; the
    // starts rise with k and the costs before rise with i, so each part is one range.
    UnitRange range{count, count};
    std::uint64_t before = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        if (before >= from && range.begin == count)
            range.begin = i;
        if (before >= to) {
            range.end = i;
            break;
        }
        before += unitCost(i);
    }
    range.end = std::max(range.begin, range.end);
    return range;
}

CountProgress runSchedule(
    const TileSchedule& schedule, UnitRange range, std::size_t workers, const CountControl& control,
    const std::function<void(std::size_t worker, std::size_t task, std::uint64_t unit)>& countUnit,
    const std::function<CountProgress(bool withCounts)>& snapshot) {
    std::atomic<std::uint64_t> nextUnit{range.begin};
    // The calling thread only watches: progress at least every 50 ms, counts every other call.
    unsigned ticks = 0;
    RunnerWatch watch;
    watch.cancel = control.cancelRequested;
    watch.interval = std::max(std::chrono::milliseconds(1), control.progressEvery);
    if (control.onProgress)
        watch.tick = [&] { control.onProgress(snapshot(++ticks % 2 == 0)); };
    runWorkers(
        workers,
        [&](std::size_t worker, const std::atomic<bool>& stop) {
            // Each worker also looks at the cancel token before every unit: a cancel stops the
            // count within one unit, not one watch interval.
            while (!stop.load(std::memory_order_relaxed) && !control.cancelled()) {
                const std::uint64_t index = nextUnit.fetch_add(1, std::memory_order_relaxed);
                if (index >= range.end)
                    break;
                const auto [task, unit] = schedule.locate(index);
                countUnit(worker, task, unit);
            }
        },
        watch);
    if (control.cancelled())
        throw Cancelled();

    CountProgress final = snapshot(true);
    if (control.onProgress)
        control.onProgress(final);
    return final;
}

} // namespace tpacf::cpu
