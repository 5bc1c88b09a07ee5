// SPDX-License-Identifier: GPL-3.0-or-later
// BatchState (gpu_schedule.h): the cursor the device threads take chunks of the work list from,
// one task at a time, the task least done first.
#include "gpu_schedule.h"

#include <algorithm>
#include <chrono>

namespace tpacf::cuda::detail {

void BatchState::publish(Schedule built) {
    {
        const std::lock_guard lock(m_mutex);
        m_schedule = std::make_unique<const Schedule>(std::move(built));
        const Schedule& schedule = *m_schedule;
        m_cursors.assign(schedule.taskUnits.size(), TaskCursor{});
        for (std::size_t t = 0; t < schedule.taskUnits.size(); ++t) {
            const auto [taskBegin, taskEnd] = schedule.taskUnits[t];
            TaskCursor& cursor = m_cursors[t];
            cursor.next = std::max(taskBegin, schedule.shareBegin);
            cursor.end = std::max(cursor.next, std::min(taskEnd, schedule.shareEnd));
            cursor.workBegin = schedule.workPrefix[cursor.next];
            cursor.work = schedule.workPrefix[cursor.end] - cursor.workBegin;
            if (taskBegin == taskEnd)
                m_pairsDonePerTask[t].store(schedule.shareTaskTotals[t], std::memory_order_relaxed);
        }
    }
    m_wake.notify_all();
}

std::size_t BatchState::nextTask() const {
    const auto& prefix = m_schedule->workPrefix;
    std::size_t best = m_cursors.size();
    double bestTaken = 2;
    for (std::size_t t = 0; t < m_cursors.size(); ++t) {
        const TaskCursor& cursor = m_cursors[t];
        if (cursor.next >= cursor.end)
            continue;
        const double taken = static_cast<double>(prefix[cursor.next] - cursor.workBegin) /
                             static_cast<double>(std::max<std::uint64_t>(1, cursor.work));
        if (taken < bestTaken) {
            best = t;
            bestTaken = taken;
        }
    }
    return best;
}

const Schedule* BatchState::waitForSchedule(const std::atomic<bool>& stop) {
    std::unique_lock lock(m_mutex);
    while (!m_schedule && !stop.load())
        m_wake.wait_for(lock, std::chrono::milliseconds(20));
    return stop.load() ? nullptr : m_schedule.get();
}

const Schedule* BatchState::published() {
    const std::lock_guard lock(m_mutex);
    return m_schedule.get();
}

bool BatchState::take(std::uint64_t pairBudget, std::size_t minUnits, const std::atomic<bool>& stop,
                      std::size_t& begin, std::size_t& end) {
    const std::lock_guard lock(m_mutex);
    const std::size_t task = nextTask();
    if (task >= m_cursors.size() || stop.load())
        return false;
    TaskCursor& cursor = m_cursors[task];
    const auto& prefix = m_schedule->workPrefix;
    begin = cursor.next;
    const std::size_t last = cursor.end;
    // Towards the end the chunks shrink (at most half of each taker's share of what is left),
    // so that the devices finish together rather than one waiting for another's last ~30 ms.
    if (m_takers > 1) {
        std::uint64_t left = 0;
        for (const TaskCursor& c : m_cursors)
            left += prefix[c.end] - prefix[c.next];
        pairBudget = std::min(pairBudget, left / (2 * m_takers));
    }
    const std::uint64_t target = prefix[begin] + pairBudget;
    const auto it =
        std::upper_bound(prefix.begin() + static_cast<std::ptrdiff_t>(begin) + 1,
                         prefix.begin() + static_cast<std::ptrdiff_t>(last) + 1, target);
    end = static_cast<std::size_t>(it - prefix.begin()) - 1;
    end = std::max(end, std::min(last, begin + minUnits));
    end = std::clamp<std::size_t>(end, begin + 1, last);
    cursor.next = end;
    return true;
}

int BatchState::nextVariant() {
    const std::lock_guard lock(m_mutex);
    if (!m_schedule || m_taskVariants.empty())
        return 0;
    const std::size_t task = nextTask();
    return task < m_cursors.size() && m_taskVariants[task] != 0 ? 1 : 0;
}

void BatchState::completed(std::size_t begin, std::size_t end) {
    const auto& prefix = m_schedule->progressPrefix;
    for (std::size_t t = 0; t < m_schedule->taskUnits.size(); ++t) {
        const auto [taskBegin, taskEnd] = m_schedule->taskUnits[t];
        const std::size_t lo = std::max(begin, taskBegin), hi = std::min(end, taskEnd);
        if (lo < hi)
            m_pairsDonePerTask[t].fetch_add(prefix[hi] - prefix[lo], std::memory_order_relaxed);
    }
}

bool BatchState::allTaken() {
    const std::lock_guard lock(m_mutex);
    return m_schedule && nextTask() >= m_cursors.size();
}

} // namespace tpacf::cuda::detail
