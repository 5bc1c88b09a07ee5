// SPDX-License-Identifier: GPL-3.0-or-later
// Each task's units in spread blocks (spread_blocks.h).
#include "spread_blocks.h"

#include "tpacf/spread_order.h"

#include <algorithm>

namespace tpacf::cuda::detail {

SpreadBlocks::SpreadBlocks(std::span<const std::pair<std::size_t, std::size_t>> taskUnits)
    : m_tasks(taskUnits.size()) {
    for (std::size_t t = 0; t < taskUnits.size(); ++t) {
        const auto [begin, end] = taskUnits[t];
        const std::size_t n = end - begin;
        if (n == 0)
            continue;
        const std::size_t count = std::min(n, kSpreadBlocks);
        m_even = m_even && count >= kEvenSampleUnits;
        TaskBlocks& task = m_tasks[t];
        for (std::size_t b = 0; b <= count; ++b)
            task.start.push_back(begin + b * n / count);
        task.at.resize(count);
        task.work = std::vector<std::atomic<std::uint64_t>>(count);
        const SpreadOrder order(count);
        std::size_t at = begin;
        for (std::size_t rank = 0; rank < count; ++rank) {
            const auto b = static_cast<std::size_t>(order(rank));
            task.spreadOrder.push_back(b);
            task.at[b] = at;
            at += task.start[b + 1] - task.start[b];
        }
    }
}

SpreadBlocks::Cursor::Cursor(SpreadBlocks& blocks, std::size_t task, std::size_t first)
    : m_task(blocks.m_tasks[task]), m_next(first),
      m_block(static_cast<std::size_t>(
          std::upper_bound(m_task.start.begin(), m_task.start.end(), first) - m_task.start.begin() -
          1)) {}

void SpreadBlocks::Cursor::flush() {
    if (m_work > 0)
        m_task.work[m_block].fetch_add(m_work, std::memory_order_relaxed);
    m_work = 0;
}

std::vector<SpreadBlocks::Placed>
SpreadBlocks::placed(std::span<const std::uint64_t> workBegin) const {
    std::vector<Placed> all;
    for (std::size_t t = 0; t < m_tasks.size(); ++t) {
        const TaskBlocks& task = m_tasks[t];
        std::uint64_t workAt = workBegin[t];
        for (const std::size_t b : task.spreadOrder) {
            all.push_back({t, task.at[b], task.start[b + 1] - task.start[b], workAt});
            workAt += task.work[b].load(std::memory_order_relaxed);
        }
    }
    return all;
}

} // namespace tpacf::cuda::detail
