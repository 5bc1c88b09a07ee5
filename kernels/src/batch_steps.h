// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Steps of the CUDA counter's batch (cuda_pair_counter.cpp, runBatch) that need none of the
// counter's state: which kernel variants the tasks need, the zeroed results, every catalog's
// tiles, the progress reports, and the devices' counts added up. Plain C++.
#include "gpu_schedule.h"
#include "launch_loop.h"
#include "live_counts.h"

#include "tpacf/pair_counter.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::cuda::detail {

/// Per task: the raw counters and, for a weighted task, the weighted sums in the same layout
/// (empty for an unweighted task).
struct BatchCounts {
    std::vector<PairCounts> raw;
    std::vector<std::vector<double>> weighted;
};

/// The kernel variant each task needs: weighted (CountTask::weighted) or plain.
struct TaskVariants {
    std::vector<std::uint8_t> weighted; ///< per task, 1: weighted
    bool anyWeighted = false;
    bool anyPlain = false;

    /// What BatchState, LiveCounts and DeviceJob take: the flags, or empty where no task is
    /// weighted (one variant, no weighted sums anywhere).
    std::vector<std::uint8_t> flagsIfAnyWeighted() const {
        return anyWeighted ? weighted : std::vector<std::uint8_t>{};
    }
};
TaskVariants variantsOf(std::span<const CountTask> tasks);

/// Every task's counters zeroed, countsPerTask each; weighted sums for the weighted tasks only.
BatchCounts zeroedCounts(const TaskVariants& variants, std::size_t countsPerTask);

/// Every catalog's tiles: without regions tileSize points each (the last one short); by region,
/// the catalog's RegionLayout, every tile holding one region's points.
struct BatchTiles {
    std::vector<RegionLayout> regionLayouts;            ///< per catalog; empty without regions
    std::vector<std::vector<std::uint32_t>> tileCounts; ///< per catalog: the points of each tile
};
/// regionCount 0: plain tiles. Otherwise the layouts are built one catalog per worker, and a
/// bad region is reported for the first catalog that has one, whichever worker found it.
BatchTiles layoutTiles(const BatchCatalogs& batch, std::size_t regionCount, std::uint32_t tileSize,
                       int regionCellLevel);

/// The progress of a share with nothing to count: every task at its share's total.
CountProgress finishedProgress(const Schedule& schedule);

/// One progress report to control.onProgress (none without a listener). The totals are the
/// share's: the batch's for the whole batch (each task's pair total until its stage's list is
/// published), else known once the list is published (culling: after the preparation; before
/// that nothing is reported). final: every task at its total; otherwise the pairs done so far
/// and, where `live` has new snapshots, the partial counts: for the whole batch, once every
/// stage is published with its units in spread order (Schedule::evenlySpread), even samples of
/// every task, the pairs counted whole on the host added in proportion (addWholeCountsSoFar).
void reportBatchProgress(const CountControl& control, std::span<const CountTask> tasks,
                         const WorkShare& share, BatchState& state, LiveCounts* live, bool final);

/// Adds every device's counters (and weighted sums) into `counts`; returns the busiest
/// device's seconds (the batch's device time: the devices count side by side).
double addDeviceCounts(const std::vector<DeviceResult>& devices, std::size_t countsPerTask,
                       BatchCounts& counts);

/// Adds the pairs a culled schedule counted whole on the host (Schedule::wholeCounts and
/// wholeWeighted) into `counts`. The caller does it for share part 0 only.
void addWholeCounts(const Schedule& schedule, BatchCounts& counts);

/// Adds to the partial counts of `progress` (total rows) each task's whole pairs in proportion
/// to the share of its pairs behind them (partialPairsPerTask), as the CPU releases its whole
/// cell pairs, so that a partial count stays an even sample; a task without units gets all of
/// them, and its pairs in full. Every task's list is published in `state`.
void addWholeCountsSoFar(BatchState& state, CountProgress& progress);

} // namespace tpacf::cuda::detail
