// SPDX-License-Identifier: GPL-3.0-or-later
// The staged work list (list_stages.h).
#include "list_stages.h"

#include "tpacf/work_runner.h"

#include <algorithm>
#include <chrono>

namespace tpacf::cuda::detail {

std::size_t ListStages::usableWith(std::size_t catalogsReady) const {
    // lastCatalog rises with the stage: count the stages whose last catalog is ready.
    return static_cast<std::size_t>(
        std::lower_bound(lastCatalog.begin(), lastCatalog.end(), catalogsReady) -
        lastCatalog.begin());
}

std::vector<std::uint8_t> ListStages::tasksOf(std::size_t firstStage, std::size_t endStage) const {
    std::vector<std::uint8_t> listed(taskStage.size(), 0);
    for (std::size_t t = 0; t < taskStage.size(); ++t)
        listed[t] = taskStage[t] >= firstStage && taskStage[t] < endStage ? 1 : 0;
    return listed;
}

ListStages planStages(const BatchCatalogs& batch, bool staged) {
    ListStages stages;
    const std::size_t taskCount = batch.taskCatA.size();
    if (!staged) {
        stages.taskStage.assign(taskCount, 0);
        stages.lastCatalog.push_back(
            static_cast<std::uint32_t>(std::max<std::size_t>(batch.catalogs.size(), 1) - 1));
        return stages;
    }
    std::vector<std::uint32_t> last(taskCount);
    for (std::size_t t = 0; t < taskCount; ++t)
        last[t] = std::max(batch.taskCatA[t], batch.taskCatB[t]);
    stages.lastCatalog = last;
    std::sort(stages.lastCatalog.begin(), stages.lastCatalog.end());
    stages.lastCatalog.erase(std::unique(stages.lastCatalog.begin(), stages.lastCatalog.end()),
                             stages.lastCatalog.end());
    for (std::size_t t = 0; t < taskCount; ++t)
        stages.taskStage.push_back(static_cast<std::uint32_t>(
            std::lower_bound(stages.lastCatalog.begin(), stages.lastCatalog.end(), last[t]) -
            stages.lastCatalog.begin()));
    return stages;
}

void TileMailbox::post(std::size_t catalog, CatalogTiles tiles) {
    {
        const std::lock_guard lock(m_mutex);
        m_tiles[catalog] = std::move(tiles);
        m_posted[catalog] = 1;
    }
    m_wake.notify_all();
}

std::size_t TileMailbox::postedFromFirst() {
    const std::lock_guard lock(m_mutex);
    return static_cast<std::size_t>(std::find(m_posted.begin(), m_posted.end(), 0) -
                                    m_posted.begin());
}

bool TileMailbox::waitForFirst(std::size_t count, const std::atomic<bool>& stop) {
    std::unique_lock lock(m_mutex);
    const auto ready = [&] {
        return std::all_of(m_posted.begin(), m_posted.begin() + static_cast<std::ptrdiff_t>(count),
                           [](std::uint8_t posted) { return posted != 0; });
    };
    // Polls the runner's stop flag, which is raised without this lock.
    while (!ready() && !stop.load())
        m_wake.wait_for(lock, std::chrono::milliseconds(20));
    return !stop.load();
}

void listStages(const ListStages& stages, TileMailbox& mailbox, const StageLister& list,
                BatchState& state, const std::atomic<bool>& stop) {
    // Each list is built in several parallel steps: their threads start while the first
    // catalog uploads, not at every step.
    parkWorkers(hardwareThreads());
    for (std::size_t stage = 0; stage < stages.count();) {
        if (!mailbox.waitForFirst(std::size_t{stages.lastCatalog[stage]} + 1, stop))
            return;
        const std::size_t end = std::max(stage + 1, stages.usableWith(mailbox.postedFromFirst()));
        state.publish(stage, end, list(mailbox.tiles(), stages.tasksOf(stage, end)));
        stage = end;
    }
}

} // namespace tpacf::cuda::detail
