// SPDX-License-Identifier: GPL-3.0-or-later
// Each task's units in spread blocks (spread_blocks.h).
#include "spread_blocks.h"

#include "tpacf/spread_order.h"

#include <algorithm>
#include <stdexcept>

namespace tpacf::cuda::detail {

SpreadBlocks::SpreadBlocks(std::span<const std::size_t> taskRows,
                           std::span<const std::size_t> taskCols,
                           std::span<const std::uint8_t> taskAuto)
    : m_tasks(taskRows.size()) {
    for (std::size_t t = 0; t < taskRows.size(); ++t) {
        TaskBlocks& task = m_tasks[t];
        task.spread = SpreadLines(taskAuto[t] != 0, taskRows[t], taskCols[t]);
        // A unit spans up to unitTiles() columns, so bands of columns fill fewer blocks than bands
        // of rows would: SpreadLines takes them only where the rows are too few.
        if (taskRows[t] > 0 && taskCols[t] > 0)
            task.count = task.spread.bands;
    }
}

void SpreadBlocks::place(std::span<const std::pair<std::size_t, std::size_t>> taskUnits,
                         std::span<const std::size_t> stretchTask,
                         std::span<std::vector<BlockRun>> runs) {
    for (TaskBlocks& task : m_tasks)
        task.units.assign(task.count, 0);
    for (std::size_t k = 0; k < runs.size(); ++k)
        for (const BlockRun& run : runs[k])
            m_tasks[stretchTask[k]].units[run.block] += run.units;
    // Each task's blocks one after another in spread order from its first unit; then each run
    // where the runs of its block before it (in list order) end.
    std::vector<std::vector<std::size_t>> next(m_tasks.size());
    for (std::size_t t = 0; t < m_tasks.size(); ++t) {
        TaskBlocks& task = m_tasks[t];
        const auto [begin, end] = taskUnits[t];
        task.at.assign(task.count, 0);
        task.work = std::vector<std::atomic<std::uint64_t>>(task.count);
        task.spreadOrder.clear();
        const SpreadOrder order(task.count);
        std::size_t at = begin, filled = 0;
        for (std::size_t rank = 0; rank < task.count; ++rank) {
            const auto b = static_cast<std::size_t>(order(rank));
            task.spreadOrder.push_back(b);
            task.at[b] = at;
            at += task.units[b];
            filled += task.units[b] > 0 ? 1 : 0;
        }
        // The tally must cover the task's units exactly, or units would share a place.
        if (at != end)
            throw std::logic_error("spread blocks: the tally of a task's units is not its list");
        m_even = m_even && (begin == end || filled >= kEvenSampleUnits);
        next[t] = task.at;
    }
    for (std::size_t k = 0; k < runs.size(); ++k)
        for (BlockRun& run : runs[k]) {
            std::size_t& place = next[stretchTask[k]][run.block];
            run.at = place;
            place += run.units;
        }
}

void SpreadBlocks::Cursor::flush() {
    if (m_work > 0)
        m_task.work[m_runs[m_run].block].fetch_add(m_work, std::memory_order_relaxed);
    m_work = 0;
}

std::vector<SpreadBlocks::Placed>
SpreadBlocks::placed(std::span<const std::uint64_t> workBegin) const {
    std::vector<Placed> all;
    for (std::size_t t = 0; t < m_tasks.size(); ++t) {
        const TaskBlocks& task = m_tasks[t];
        std::uint64_t workAt = workBegin[t];
        for (const std::size_t b : task.spreadOrder) {
            if (task.units[b] == 0)
                continue;
            all.push_back({t, task.at[b], task.units[b], workAt});
            workAt += task.work[b].load(std::memory_order_relaxed);
        }
    }
    return all;
}

} // namespace tpacf::cuda::detail
