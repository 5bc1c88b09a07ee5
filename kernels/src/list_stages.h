// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The culled work list of a batch in stages, so that counting starts before every catalog is on
// the devices: each device uploads and prepares the catalogs one by one (in batch order), the
// leader hands each catalog's tile boxes to the lister as soon as they are made, and the lister
// publishes the list of every task whose catalogs are all there (a stage) while the devices count
// the stages before it. The standard job (DD, then DR_i and RR_i of ten random sets) counts its DD
// while the randoms are still uploading. Plain C++ (no CUDA types).
#include "gpu_schedule.h"
#include "tile_tree.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

namespace tpacf::cuda::detail {

/// Which tasks each stage lists. A task's stage is that of the last of its catalogs in batch
/// order; the stages are numbered in that order, so stage k can be counted once catalogs
/// [0, lastCatalog[k]] are prepared.
struct ListStages {
    std::vector<std::uint32_t> taskStage;   ///< per task
    std::vector<std::uint32_t> lastCatalog; ///< per stage
    std::size_t count() const { return lastCatalog.size(); }
    /// Stages whose catalogs are all among the first `catalogsReady`.
    std::size_t usableWith(std::size_t catalogsReady) const;
    /// Per task, whether it is in stages [firstStage, endStage) (what CulledInputs::tasksListed
    /// takes).
    std::vector<std::uint8_t> tasksOf(std::size_t firstStage, std::size_t endStage) const;
};

/// One stage per last catalog where `staged`; else one stage of every task, usable once every
/// catalog is prepared (a share of a batch: its units come from the whole list's prefix sums).
ListStages planStages(const BatchCatalogs& batch, bool staged);

/// The tile boxes (and weight sums) of each catalog, posted by the leading device as each one is
/// prepared and read by the lister; each entry is written once, before it is announced.
class TileMailbox {
public:
    explicit TileMailbox(std::size_t catalogs) : m_tiles(catalogs) {}
    void post(std::size_t catalog, CatalogTiles tiles);
    /// Waits until catalogs [0, count) are posted; false once `stop` is raised first.
    bool waitForFirst(std::size_t count, const std::atomic<bool>& stop);
    /// How many catalogs from the first are posted now.
    std::size_t postedFromFirst();
    /// Every catalog's entry; only those waited for are complete.
    const std::vector<CatalogTiles>& tiles() const { return m_tiles; }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<CatalogTiles> m_tiles;
    std::vector<std::uint8_t> m_posted = std::vector<std::uint8_t>(m_tiles.size(), 0);
};

/// Builds the list of one stage's tasks (tasksListed as in CulledInputs) from the tiles.
using StageLister = std::function<Schedule(const std::vector<CatalogTiles>& tiles,
                                           std::span<const std::uint8_t> tasksListed)>;

/// The lister's part of a batch (one of runWorkers' threads): the stages in order, each built as
/// soon as its catalogs are posted and published to `state`; where the lister fell behind (the
/// catalogs of several stages posted while it built the last), those stages in one list, so that
/// a batch with little to count does not wait for many small lists, each with its own start-up
/// on the host's cores. Returns early once `stop` is raised.
void listStages(const ListStages& stages, TileMailbox& mailbox, const StageLister& list,
                BatchState& state, const std::atomic<bool>& stop);

} // namespace tpacf::cuda::detail
