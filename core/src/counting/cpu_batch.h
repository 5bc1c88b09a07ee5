// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the CPU backend: what its two count modes share (plain in cpu_pair_counter.cpp, by
// jackknife region in cpu_region_count.cpp). A batch is checked, its bin lookup and kernels
// chosen, culled or not decided on the whole batch, and its units of work planned (brute-force
// tiles, or the culled plan's items) in the order they are handed out, with the share's range of
// them and the workers that count them.
#include "counting/cpu_bin_lookup.h"
#include "counting/cpu_culled_batch.h"
#include "counting/cpu_tile_kernels.h"
#include "counting/tile_schedule.h"

#include <functional>
#include <span>
#include <vector>

namespace tpacf::cpu {

/// ConfigError for a task without a catalog or an invalid share; Cancelled where the count was
/// cancelled before it began.
void checkBatch(std::span<const CountTask> tasks, const CountControl& control);

struct CpuBatch {
    /// The lookup and kernels, the weighted tasks, and the culling choice on the whole batch.
    CpuBatch(std::span<const CountTask> tasks, const Binning& binning, bool avx512,
             CullingMode culling);

    /// Plans the share's units. Culled: the culled batch (regionCount > 0: cells of one region
    /// each). Brute force: tilePlan(task)'s tiles of every task. `poll`s the control while the
    /// culled preparation runs, so that it reports and can be cancelled.
    void plan(std::span<const CountTask> tasks, const Binning& binning, std::size_t regionCount,
              int threads, const CountControl& control,
              const std::function<TaskPlan(const CountTask&)>& tilePlan);

    SlotLookup lookup;
    std::size_t slots;
    std::size_t bins;
    TileKernel kernel;
    // Unweighted tasks take the integer kernels alone; weighted ones the weighted kernels, which
    // give the same raw counts from the same pass (cpu_tile_kernels.h).
    WeightedTileKernel weightedKernel;
    bool anyWeighted = false;
    std::vector<bool> taskWeighted;
    bool culled = false;
    std::uint64_t pairsTotal = 0; // the share's pairs once it is planned

    std::vector<TaskPlan> tiles; // brute force: each task's tiles
    CulledBatch cells;           // culled: the plan and its items; both: the schedule
    UnitRange units;             // the share's units of cells.schedule
    std::vector<SpreadOrder> order; // per task: the order its units are counted in
    std::size_t workers = 0;
    bool evenlySpread = false; // partial counts are even samples (evenSamples)
};

/// Live counts of a culled batch: the whole cell pairs (counted while planning, part 0) held in
/// proportion to each task's listed work done, and the pairs behind the counts likewise, so that
/// every live count stays an even sample of its task's pairs; a task done keeps them whole (the
/// final snapshot is the result).
void holdWholeInProportion(const CulledBatch& batch, CountProgress& progress,
                           const std::vector<std::vector<std::uint64_t>>& wholeCounts,
                           const std::vector<std::vector<double>>& wholeWeighted);

} // namespace tpacf::cpu
