// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the CPU backend: the culled path's preparation. Each distinct catalog is sorted
// into cells once, the cell-pair plan is made (sky_cells.h), and the runs of a work share are
// cut into work items of similar duration with the pairs each credits as done.
#include "counting/cpu_tile_kernels.h"
#include "counting/sky_cells.h"
#include "counting/tile_schedule.h"

#include "tpacf/bins.h"
#include "tpacf/culling.h"
#include "tpacf/pair_counter.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::cpu {

/// A batch's unique pairs, and whether it is culled (the Auto rule on θ_max and that total).
struct BatchChoice {
    std::uint64_t pairsTotal = 0;
    bool culled = false;
};
BatchChoice chooseForBatch(std::span<const CountTask> tasks, const Binning& binning,
                           CullingMode mode);

// Reports zero progress while the culled path sorts and plans (the calling thread polls it
// between short steps), so the caller hears from the count at least every 50 ms and can cancel
// it during the preparation too.
class PreparationPacer {
public:
    /// pairsTotal: what the progress reports as the total meanwhile.
    PreparationPacer(const CountControl& control, std::size_t taskCount, std::uint64_t pairsTotal);

    void operator()();

private:
    const CountControl& m_control;
    std::size_t m_taskCount;
    std::uint64_t m_pairsTotal;
    std::chrono::steady_clock::time_point m_last;
};

// The culled path's work: every distinct catalog sorted into cells once, the chosen cell-pair
// plan, and the share's counting runs of each task cut into work items of similar duration.
// The work list the shares cut is every task's runs in TileSchedule order; the whole cell pairs,
// counted while planning, belong to part 0.
struct CulledBatch {
    std::vector<sky::SortedCatalog> catalogs;
    std::vector<sky::CellTask> cellTasks;
    sky::CellPlan plan;
    std::vector<std::vector<std::size_t>> itemStart;    // per task: items + 1 offsets into runs
    std::vector<std::vector<std::uint64_t>> itemBands;  // per task: bands + 1 offsets into items
    std::vector<std::vector<std::uint64_t>> itemCredit; // per task: pairs reported done per item
    std::vector<std::uint64_t> initialDone;             // per task: pairs done before any item
    std::vector<std::vector<double>> itemWork;          // per task: each item's work (runWork)
    std::vector<std::uint64_t> taskPairsTotal; // per task: initialDone + the items' credits
    double workTotal = 0;                      // the items' work, all tasks
    bool holdsWholePairs = true;  // the share adds the plan's whole cell pairs (part 0)
    std::uint64_t pairsTotal = 0; // pairs the share reports done once it is complete
    TileSchedule schedule;        // the share's work items

    Points pointsOf(std::size_t catalog) const {
        const sky::SortedCatalog& c = catalogs[catalog];
        return Points(c.x.data(), c.y.data(), c.z.data(), c.size(),
                      c.w.empty() ? nullptr : c.w.data());
    }

    /// The share of task `task`'s listed work (its items) credited once `pairsDone` of its pairs
    /// are reported done; 1 once they all are. Live counts add the whole cell pairs in this
    /// proportion, so that they stay an even sample of the task's pairs.
    double listedFraction(std::size_t task, std::uint64_t pairsDone) const noexcept;

    /// Pairs of a run: a diagonal run (auto, starting at its own cell) counts j > i in that cell.
    std::uint64_t runPairs(std::size_t task, const sky::CountRun& run) const;

    /// Counts one run into `histogram` with the tile kernels: cells are contiguous, so a run is
    /// one rectangle (a diagonal run: the triangle of its first cell and the rectangle beyond).
    void countRun(TileKernel kernel, std::size_t task, const sky::CountRun& run, const Points& a,
                  const Points& b, const SlotLookup& lookup, std::uint32_t* histogram) const;
    /// The same with a weighted kernel (the task's sorted catalogs carry weights).
    void countRun(WeightedTileKernel kernel, std::size_t task, const sky::CountRun& run,
                  const Points& a, const Points& b, const SlotLookup& lookup,
                  std::uint32_t* histogram, double* weighted) const;

    /// The rectangle (or triangle) of points of a run.
    struct RunRange {
        std::size_t i0, i1, j0, j1;
        bool diagonal;
    };
    RunRange rangeOf(std::size_t task, const sky::CountRun& run) const;
};

/// Sorts, plans and cuts the work of `share`. A weighted task (CountTask::weighted) gets its
/// sorted catalogs' weights (ones for a catalog without) and its whole cell pairs' weighted sums.
/// regionCount: 0 without regions. threads: the counting threads (the plan is the same for any
/// number; the items are sized for them).
CulledBatch prepareCulledBatch(std::span<const CountTask> tasks, const Binning& binning,
                               std::size_t regionCount, std::size_t threads, const sky::Poll& poll,
                               const WorkShare& share);

} // namespace tpacf::cpu
