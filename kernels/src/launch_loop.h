// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One device's part of a batch: upload and prepare the catalogs one by one ((leader, culling)
// handing each one's tile boxes to the lister), and take chunks of the share's units from the
// shared cursor, stage by stage as the lists arrive, launching the pair kernel on them until none
// are left. Runs on one of runWorkers' threads per device.
#include "bin_tables.h"
#include "device_catalogs.h"
#include "gpu_schedule.h"
#include "list_stages.h"
#include "live_counts.h"
#include "pair_kernels.h"
#include "shared_uploads.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tpacf::cuda::detail {

/// One device's kernel plans for a batch: the unweighted kernel for the batch's unweighted tasks
/// and the weighted variant for its weighted ones (each present where the batch has such tasks),
/// with one tile size (the catalogs are prepared once for both).
struct DevicePlans {
    std::optional<KernelPlan> plain;
    std::optional<KernelPlan> weighted;

    const KernelPlan& any() const { return plain ? *plain : *weighted; }
};

/// What every device thread of one batch needs; the same for all devices.
struct DeviceJob {
    const HostBinTables* tables = nullptr;
    const BatchCatalogs* batch = nullptr;
    const std::vector<RegionLayout>* regionLayouts = nullptr; ///< empty: plain layout
    std::size_t regionCount = 0;
    std::size_t taskCount = 0;
    /// Per task: whether it is weighted (CountTask::weighted); empty: none is.
    std::vector<std::uint8_t> taskWeighted;
    bool culled = false;
    bool cullSubTiles = true; ///< CudaTuning::subTileCulling (benchmarks turn it off)
    bool wholeSubTiles = true; ///< CudaTuning::wholeSubTiles (benchmarks turn it off)
    bool narrowSubTiles = true; ///< CudaTuning::narrowSubTiles (likewise)
    double projectionReach = 1.0; ///< CudaTuning::projectionReach (likewise)
    /// The catalogs' order refined into k-d groups (CudaTuning::tileOrder, kdGroupsWanted).
    bool kdGroups = false;
    /// The stages of the work list (list_stages.h): a device takes a stage's units once it has
    /// issued the stage's catalogs.
    const ListStages* stages = nullptr;
    /// Culling: where the leader (first device) posts each catalog's tile boxes (and weight
    /// sums) once prepared, for the lister; null for a dense list (published before the start).
    TileMailbox* mailbox = nullptr;
    /// Where the devices leave snapshots of their counts for live progress; null: none.
    LiveCounts* live = nullptr;
    /// CudaTuning::trace: each device notes when it reached each stage, from `start`.
    bool trace = false;
    std::chrono::steady_clock::time_point start;
};

/// One device's counters (every task's, (1 + 2K) rows each for region batches) and busy time;
/// weighted batches also the weighted sums in the same layout (zero for unweighted tasks).
struct DeviceResult {
    std::vector<unsigned long long> counts;
    std::vector<double> weighted;
    double busySeconds = 0;
    /// With DeviceJob::trace: (stage, host seconds since DeviceJob::start).
    std::vector<std::pair<const char*, double>> stages;
    /// Where the busy time went: launches, their kernels' event-timed seconds (summed), the
    /// catalogs' uploads-and-preparations (summed), and host seconds waiting for lists.
    std::size_t launches = 0;
    double kernelSeconds = 0, catalogSeconds = 0, listWaitSeconds = 0;
};

/// Counts this device's chunks of the batch into `result`. Returns early (result empty) once
/// `stop` is raised (an error elsewhere, or the caller cancelled); throws CudaError.
/// `worker`: the device's worker index (0 leads: it posts the tile boxes; its LiveCounts slot).
/// `shared`: the batch's shared uploads (several devices), or null.
void runDevice(int device, std::size_t worker, const DevicePlans& plans, const DeviceJob& job,
               BatchState& state, const std::atomic<bool>& stop, SharedUploads* shared,
               DeviceResult& result);

} // namespace tpacf::cuda::detail
