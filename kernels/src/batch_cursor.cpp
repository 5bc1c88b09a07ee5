// SPDX-License-Identifier: GPL-3.0-or-later
// BatchState (gpu_schedule.h): the cursor the device threads take chunks of the work list from,
// one task at a time, the task least done first, over the stages published so far.
#include "gpu_schedule.h"

#include <algorithm>
#include <chrono>

namespace tpacf::cuda::detail {

BatchState::BatchState(std::size_t taskCount, std::vector<std::uint8_t> taskVariants)
    : m_taskStage(taskCount, 0), m_cursors(taskCount), m_pairsDonePerTask(taskCount),
      m_taskVariants(std::move(taskVariants)) {}

void BatchState::setStages(std::vector<std::uint32_t> taskStage, std::size_t stageCount) {
    const std::lock_guard lock(m_mutex);
    m_taskStage = std::move(taskStage);
    m_stageCount = stageCount;
}

void BatchState::publish(std::size_t firstStage, std::size_t endStage, Schedule built) {
    {
        const std::lock_guard lock(m_mutex);
        m_lists.push_back(std::make_unique<const Schedule>(std::move(built)));
        m_published = endStage;
        m_publishedAt.push_back(std::chrono::steady_clock::now());
        const Schedule& schedule = *m_lists.back();
        for (std::size_t t = 0; t < m_cursors.size(); ++t) {
            if (m_taskStage[t] < firstStage || m_taskStage[t] >= endStage)
                continue;
            const auto [taskBegin, taskEnd] = schedule.taskUnits[t];
            TaskCursor& cursor = m_cursors[t];
            cursor.schedule = &schedule;
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

std::size_t BatchState::publishedStages() {
    const std::lock_guard lock(m_mutex);
    return m_published;
}

bool BatchState::waitForStages(std::size_t seen, const std::atomic<bool>& stop) {
    std::unique_lock lock(m_mutex);
    while (m_published <= seen && !stop.load())
        m_wake.wait_for(lock, std::chrono::milliseconds(20));
    return !stop.load();
}

const Schedule* BatchState::scheduleOf(std::size_t task) {
    const std::lock_guard lock(m_mutex);
    return m_cursors[task].schedule;
}

std::vector<const Schedule*> BatchState::schedules() {
    const std::lock_guard lock(m_mutex);
    std::vector<const Schedule*> published;
    for (const auto& list : m_lists)
        published.push_back(list.get());
    return published;
}

std::vector<std::chrono::steady_clock::time_point> BatchState::publicationTimes() {
    const std::lock_guard lock(m_mutex);
    return m_publishedAt;
}

std::size_t BatchState::nextTask(std::size_t stagesUsable) const {
    std::size_t best = m_cursors.size();
    double bestTaken = 2;
    for (std::size_t t = 0; t < m_cursors.size(); ++t) {
        const TaskCursor& cursor = m_cursors[t];
        if (cursor.schedule == nullptr || m_taskStage[t] >= stagesUsable ||
            cursor.next >= cursor.end)
            continue;
        const auto& prefix = cursor.schedule->workPrefix;
        const double taken = static_cast<double>(prefix[cursor.next] - cursor.workBegin) /
                             static_cast<double>(std::max<std::uint64_t>(1, cursor.work));
        if (taken < bestTaken) {
            best = t;
            bestTaken = taken;
        }
    }
    return best;
}

BatchState::Take BatchState::take(std::uint64_t pairBudget, std::size_t minUnits,
                                  const std::atomic<bool>& stop, std::size_t stagesUsable,
                                  Chunk& chunk) {
    const std::lock_guard lock(m_mutex);
    if (stop.load())
        return Take::None;
    const std::size_t task = nextTask(stagesUsable);
    if (task >= m_cursors.size()) {
        // Nothing now: later where a stage is unpublished or not yet usable by the caller.
        const bool everyStage = m_published == m_stageCount && stagesUsable >= m_stageCount;
        return everyStage ? Take::None : Take::Later;
    }
    TaskCursor& cursor = m_cursors[task];
    const auto& prefix = cursor.schedule->workPrefix;
    const std::size_t begin = cursor.next;
    const std::size_t last = cursor.end;
    // Towards the end the chunks shrink (at most half of each taker's share of what is left),
    // so that the devices finish together rather than one waiting for another's last ~30 ms.
    // Only once every stage is published: before, what is left is not known.
    if (m_takers > 1 && m_published == m_stageCount) {
        std::uint64_t left = 0;
        for (const TaskCursor& c : m_cursors)
            left += c.schedule->workPrefix[c.end] - c.schedule->workPrefix[c.next];
        pairBudget = std::min(pairBudget, left / (2 * m_takers));
    }
    const std::uint64_t target = prefix[begin] + pairBudget;
    const auto it =
        std::upper_bound(prefix.begin() + static_cast<std::ptrdiff_t>(begin) + 1,
                         prefix.begin() + static_cast<std::ptrdiff_t>(last) + 1, target);
    std::size_t end = static_cast<std::size_t>(it - prefix.begin()) - 1;
    end = std::max(end, std::min(last, begin + minUnits));
    end = std::clamp<std::size_t>(end, begin + 1, last);
    cursor.next = end;
    chunk = Chunk{cursor.schedule, begin, end};
    return Take::Chunk;
}

int BatchState::nextVariant(std::size_t stagesUsable) {
    const std::lock_guard lock(m_mutex);
    if (m_taskVariants.empty())
        return 0;
    const std::size_t task = nextTask(stagesUsable);
    return task < m_cursors.size() && m_taskVariants[task] != 0 ? 1 : 0;
}

void BatchState::completed(const Chunk& chunk) {
    const Schedule& schedule = *chunk.schedule;
    const auto& prefix = schedule.progressPrefix;
    for (std::size_t t = 0; t < schedule.taskUnits.size(); ++t) {
        const auto [taskBegin, taskEnd] = schedule.taskUnits[t];
        const std::size_t lo = std::max(chunk.begin, taskBegin), hi = std::min(chunk.end, taskEnd);
        if (lo < hi)
            m_pairsDonePerTask[t].fetch_add(prefix[hi] - prefix[lo], std::memory_order_relaxed);
    }
}

bool BatchState::allTaken() {
    const std::lock_guard lock(m_mutex);
    return m_published == m_stageCount && nextTask(m_stageCount) >= m_cursors.size();
}

} // namespace tpacf::cuda::detail
