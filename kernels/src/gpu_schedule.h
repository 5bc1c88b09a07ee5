// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA backend's host-side schedule, in plain C++ (no CUDA types): the distinct catalogs of
// a batch, their tiles (plain or region layouts), the work list of every task as WorkUnits in one
// deterministic order with the cost of each, the share of it a call counts, and the cursor the
// device threads take launches from. What runs on the devices is in launch_loop.cpp.
#include "host_array.h"
#include "pair_work.h"
#include "tile_tree.h"
#include "tpacf/catalog.h"
#include "tpacf/culling.h"
#include "tpacf/pair_counter.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

namespace tpacf::cuda::detail {

// ---- Sizes measured on an H100 (BENCHMARKS.md); the pair rates are in device_rates.h ---------

/// Target device time of one launch, and the most a chunk may take at full brute force.
inline constexpr double kChunkSeconds = 0.03;
inline constexpr double kChunkMaxSeconds = 0.05;
/// Culling with bins up to this θ_max: blocks of kSmallTileBlock threads (smaller tiles).
inline constexpr double kSmallTileThetaMaxDegrees = 20.0;
inline constexpr int kSmallTileBlock = 64;

// ---- The batch's catalogs ----------------------------------------------------------------------

/// The distinct catalogs of a batch (each prepared once per device) and where each task's two
/// are.
struct BatchCatalogs {
    std::vector<const Catalog*> catalogs;
    std::vector<std::uint32_t> taskCatA;
    std::vector<std::uint32_t> taskCatB; ///< == taskCatA for auto tasks
    std::uint64_t pairsTotal = 0;
};

/// Throws ConfigError for a task without a catalog or a catalog of more than 2^30 points.
BatchCatalogs indexBatch(std::span<const CountTask> tasks);

/// Real points of every tile of a catalog: plain layout, full tiles and a ragged last one.
std::vector<std::uint32_t> plainTileCounts(std::uint64_t size, std::uint32_t tileSize);

/// Region layout of one catalog (jackknife): points grouped by region, every group padded to
/// whole tiles, so that every tile holds the points of one region only and a whole tile pair has
/// one region pair. Costs at most one partly filled tile per group. With cellLevel > 0 the
/// groups are (coarse cell, region), a 2^level grid per axis over the unit cube in Morton order,
/// meant to keep tiles from joining distant stretches of the sky curve inside a region;
/// measured slower (more padding than it saves, BENCHMARKS.md), so level 0 is the default.
struct RegionLayout {
    std::vector<std::uint32_t> tileRegion;      ///< region of each tile
    std::vector<std::uint32_t> tileSortedStart; ///< group-sorted index of each tile's first point
    std::vector<std::uint32_t> tileCount;       ///< real points of each tile
    std::vector<std::int32_t> groupOfPoint;     ///< each point's group: the key the device sorts by
    /// Sorted index of each run of kKdGroupPoints points inside one group, from the group's start
    /// (the k-d groups the device may split: whole tiles of one region); empty where the tile
    /// size does not divide kKdGroupPoints.
    std::vector<std::uint32_t> kdGroupStarts;
    std::uint32_t groupCount = 0;
};

/// Validates the regions (ConfigError naming the catalog and row) and lays the catalog out.
RegionLayout buildRegionLayout(const Catalog& catalog, std::size_t regionCount,
                               std::uint32_t tileSize, int cellLevel);

// ---- The work list -----------------------------------------------------------------------------

/// The whole batch as work units, in one order that depends only on the tasks, the catalogs,
/// the bins and the tile size (never on the number of devices), plus what progress and the
/// share need.
struct Schedule {
    std::uint64_t tilesPerUnit = 0;
    HostArray<WorkUnit> units;
    /// Pairs of the tile pairs units [0, i) list: the work, an upper bound on what the kernel
    /// computes (chunk sizes, the measured rate and the split into shares use it).
    HostArray<std::uint64_t> workPrefix;
    /// The same plus the pairs culling dropped, spread over each task's units in proportion to
    /// their work, so that progress reaches every task's pairTotal when its last unit is done.
    HostArray<std::uint64_t> progressPrefix;
    std::vector<std::pair<std::size_t, std::size_t>> taskUnits; ///< [begin, end) per task
    /// Each task's units are listed in blocks in SpreadOrder (consecutive units, neighbours on
    /// the sky, kept together), so any prefix of a task covers its sky; true where every task
    /// with units has enough blocks (kEvenSampleUnits) for a prefix to be an even sample.
    bool evenlySpread = false;

    /// Adds the progress pairs of units [begin, end) to their tasks' entries of `perTask`.
    void addProgress(std::size_t begin, std::size_t end, std::vector<std::uint64_t>& perTask) const;
    /// The units this call counts: [shareBegin, shareEnd), part `part` of `parts` contiguous
    /// parts of about equal work; everything for the whole batch.
    std::size_t shareBegin = 0;
    std::size_t shareEnd = 0;
    /// Progress of each task when the share is done: its units' progress; a task without units
    /// (culled away whole, or no pair) is credited to part 0.
    std::vector<std::uint64_t> shareTaskTotals;
    /// Culled batches: per task, the pairs of the node pairs counted whole on the host, in the
    /// layout of the device counters (binCount, or (1 + 2K) · binCount by region: total,
    /// touching[K], within[K]); per weighted task their Σ w_i·w_j alike (else empty). Empty for
    /// dense batches. Share part 0 adds them (each whole pair once over all parts).
    std::vector<std::vector<std::uint64_t>> wholeCounts;
    std::vector<std::vector<double>> wholeWeighted;
    std::uint64_t wholePairs = 0;   ///< pairs counted whole, all tasks
    std::uint64_t judgedNodePairs = 0; ///< node pairs the traversal judged
};

/// Culling off: every tile pair of every task (the upper triangle for auto tasks).
Schedule buildDenseSchedule(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                            const std::vector<std::vector<std::uint32_t>>& catTileCounts,
                            std::uint32_t tileSize, WorkShare share);

/// What a culled schedule is built from once the devices have prepared the catalogs.
struct CulledInputs {
    const std::vector<std::vector<std::uint32_t>>* tileCounts = nullptr; ///< per catalog
    const std::vector<RegionLayout>* regionLayouts = nullptr; ///< per catalog; empty: plain
    const std::vector<CatalogTiles>* tiles = nullptr; ///< per catalog: boxes (and weight sums)
    std::span<const double> thresholds; ///< the kernel's double chord² edges t[0..binCount]
    std::size_t regionCount = 0;        ///< 0: plain counters
    /// Points of the smallest node pairs the traversal judges: open node pairs of at most this
    /// many points a side (and at least a tile) are listed whole, their tile pairs left to the
    /// kernel's own classification, which costs less than the host's below ~1024 points.
    std::uint32_t leafBlockPoints = 1024;
    /// Per task, whether this list holds it (a stage of a staged batch, list_stages.h); empty:
    /// every task. The others get no units and no whole pairs, and their catalogs' tiles are
    /// not read.
    std::span<const std::uint8_t> tasksListed;
};

/// Culling on: the multi-scale traversal of tile_tree.h over every task's two tile hierarchies.
/// The tile pairs no node pair above them settles become the units; the node pairs whose pairs
/// all lie in one bin are added up in Schedule::wholeCounts (and wholeWeighted). Built on the
/// host's cores in pieces that depend on the tiles alone, so every rank lists the same units.
Schedule buildCulledSchedule(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                             const CulledInputs& inputs, std::uint32_t tileSize, WorkShare share);

/// First unit of part `part` of `parts` of a work list with these prefix sums: contiguous parts
/// of about equal work, a partition for every parts >= 1 (parts beyond the units are empty).
std::size_t shareBoundary(std::span<const std::uint64_t> workPrefix, std::uint32_t part,
                          std::uint32_t parts);

// ---- The cursor the device threads share -------------------------------------------------------

/// State shared by the device threads, the lister and the caller for one batch: the work list,
/// published in stages (list_stages.h: a stage's tasks become countable once their catalogs are
/// prepared; one stage holding every task where the batch is not staged), and a cursor over
/// each task's share. Errors, cancellation and joining are the runner's (runWorkers); its stop
/// flag is passed in wherever a thread may wait.
class BatchState {
public:
    /// taskVariants: the kernel variant each task's units need (weighted or not), or empty:
    /// one variant. A chunk that take() returns never spans two variants.
    explicit BatchState(std::size_t taskCount, std::vector<std::uint8_t> taskVariants = {});

    /// The stage of each task (stages numbered from 0, each published once); by default one
    /// stage of every task. Before anything is published.
    void setStages(std::vector<std::uint32_t> taskStage, std::size_t stageCount);
    /// How many device threads take chunks (more than one: the last chunks shrink).
    void setTakers(std::size_t takers) { m_takers = takers; }
    /// Makes the list of the tasks of stages [firstStage, endStage) visible to every device
    /// thread (units of other tasks in it are never taken); the stages are published in order.
    /// Its tasks without units are done at once.
    void publish(std::size_t firstStage, std::size_t endStage, Schedule built);
    void publish(Schedule built) { publish(0, 1, std::move(built)); }
    /// Stages published so far.
    std::size_t publishedStages();
    bool allPublished() { return publishedStages() == m_stageCount; }
    /// Waits until more than `seen` stages are published; false once `stop` is raised first.
    /// Polls the flag, which the runner raises without this lock, so no wake-up can be lost.
    bool waitForStages(std::size_t seen, const std::atomic<bool>& stop);
    /// The published list that holds `task`, or null while its stage is not published.
    const Schedule* scheduleOf(std::size_t task);
    /// Every published list (one or more stages' each), in stage order.
    std::vector<const Schedule*> schedules();
    /// When each list was published, in the order of publication (CudaTuning::trace).
    std::vector<std::chrono::steady_clock::time_point> publicationTimes();

    /// Units [begin, end) of `schedule`, one task's.
    struct Chunk {
        const Schedule* schedule = nullptr;
        std::size_t begin = 0, end = 0;
    };
    enum class Take {
        Chunk, ///< `chunk` is this thread's to count
        Later, ///< nothing takeable now; more once a stage is published or usable
        None   ///< every unit of the share is taken (or `stop` is raised)
    };
    /// The next chunk of about `pairBudget` pairs of work (at least `minUnits` units, fewer at
    /// the end of a task) of the share, from the stages below `stagesUsable` (those whose
    /// catalogs the caller has prepared). A chunk holds units of one task (so one kernel
    /// variant), the task whose share of its work is least taken: the tasks advance together,
    /// and with their units in spread order (Schedule::evenlySpread) every task's partial count
    /// is an even sample of its pairs.
    Take take(std::uint64_t pairBudget, std::size_t minUnits, const std::atomic<bool>& stop,
              std::size_t stagesUsable, Chunk& chunk);
    /// The kernel variant of the next unit to take from the stages below `stagesUsable` (0 where
    /// there is one variant or none left): what the next chunk's budget is measured in. Another
    /// thread may take it first.
    int nextVariant(std::size_t stagesUsable);
    /// A chunk is counted: its units' progress goes to their tasks.
    void completed(const Chunk& chunk);
    /// Whether every stage is published and every unit of the share taken (and so, once the
    /// threads are joined, counted).
    bool allTaken();
    std::uint64_t pairsDone(std::size_t task) const {
        return m_pairsDonePerTask[task].load(std::memory_order_relaxed);
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    // Each task's units in the share (indices into its stage's list): the next to take, the end,
    // and the work of the range; no list until its stage is published.
    struct TaskCursor {
        const Schedule* schedule = nullptr;
        std::size_t next = 0, end = 0;
        std::uint64_t workBegin = 0, work = 0;
    };
    // The task the next chunk comes from (the least taken by work; ties: the lowest index) among
    // the published tasks of the stages below stagesUsable, or the number of tasks when none has
    // units left. Caller holds the lock.
    std::size_t nextTask(std::size_t stagesUsable) const;

    std::vector<std::unique_ptr<const Schedule>> m_lists; // in publication order
    std::size_t m_stageCount = 1, m_published = 0;        // stages [0, m_published) are out
    std::vector<std::chrono::steady_clock::time_point> m_publishedAt;
    std::vector<std::uint32_t> m_taskStage;
    std::vector<TaskCursor> m_cursors;
    std::size_t m_takers = 1;
    std::vector<std::atomic<std::uint64_t>> m_pairsDonePerTask;
    std::vector<std::uint8_t> m_taskVariants;
};

} // namespace tpacf::cuda::detail
