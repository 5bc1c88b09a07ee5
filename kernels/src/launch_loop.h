#pragma once
// One device's part of a batch: prepare the catalogs, (leader, culling) build the work list from
// the tile boxes, then take chunks of the share's units from the shared cursor and launch the
// pair kernel on them until none are left. Runs on one of runWorkers' threads per device.
#include "bin_tables.h"
#include "device_catalogs.h"
#include "gpu_schedule.h"
#include "pair_kernels.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

namespace tpacf::cuda::detail {

/// What every device thread of one batch needs; the same for all devices.
struct DeviceJob {
    const HostBinTables* tables = nullptr;
    const BatchCatalogs* batch = nullptr;
    const HostStaging* staging = nullptr;
    const std::vector<RegionLayout>* regionLayouts = nullptr; ///< empty: plain layout
    std::size_t regionCount = 0;
    std::size_t taskCount = 0;
    bool culled = false;
    bool cullSubTiles = true; ///< CudaTuning::subTileCulling (benchmarks turn it off)
    /// Culling: the leader (first device) downloads every catalog's tile boxes after the
    /// preparation and turns them into the schedule with this; the others wait for it.
    std::function<Schedule(const std::vector<std::vector<CellBounds>>&)> scheduleFromBoxes;
};

/// One device's counters (every task's, (1 + 2K) rows each for region batches) and busy time.
struct DeviceResult {
    std::vector<unsigned long long> counts;
    double busySeconds = 0;
};

/// Counts this device's chunks of the batch into `result`. Returns early (result empty) once
/// `stop` is raised (an error elsewhere, or the caller cancelled); throws CudaError.
void runDevice(int device, const KernelPlan& plan, const DeviceJob& job, bool leader,
               BatchState& state, const std::atomic<bool>& stop, DeviceResult& result);

} // namespace tpacf::cuda::detail
