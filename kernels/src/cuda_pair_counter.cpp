// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA PairCounter: the batched schedule over all tasks and all devices, with progress and
// cancellation on the caller's thread.
//
// countBatch indexes the distinct catalogs (each prepared once per device: sort along the sky
// curve, hi/lo split, tile boxes; device_catalogs.cpp), lists the work of all tasks as WorkUnits in
// one array (gpu_schedule.cpp), and lets one worker thread per device (runWorkers) take chunks of
// ~30 ms of work from a shared cursor, so faster devices take more (launch_loop.cpp). A WorkShare
// counts one contiguous, cost-balanced part of that list; the cursor then runs over the part.
//
// Spatial culling (docs/gpu-kernel-notes.md): with culling on, the work list is built after the
// preparation, from the tile boxes: the tiles are the cells, and listCellPairs (core/culling.h)
// lists only the tile pairs within reach of the bins. With it off, the list is dense (every tile
// pair) and the kernel computes every pair (brute force).
//
// countBatchByRegion (jackknife) is the same batch over region layouts: every catalog sorted by
// region and padded so that every tile holds one region, and (1 + 2K) rows of counters per task
// (total, touching[K], within[K]); docs/gpu-kernel-notes.md.
//
// Weights (CountTask::weighted): the weighted tasks of a batch run the weighted kernel variant
// (pair_kernels.h), the others the unweighted kernel unchanged; the launch chunks never mix the
// two, and both plans share one tile size. The weighted sums come back beside the raw counts.
#include "cuda_pair_counter.h"

#include "batch_plans.h"
#include "batch_steps.h"
#include "batch_trace.h"
#include "bin_tables.h"
#include "cuda_check.h"
#include "device_catalogs.h"
#include "device_memory.h"
#include "gpu_moments.h"
#include "gpu_schedule.h"
#include "kd_groups.h"
#include "launch_loop.h"
#include "list_stages.h"
#include "memory_pool.h"
#include "pair_kernels.h"
#include "tpacf/chunked_count.h"
#include "tpacf/culling.h"
#include "tpacf/errors.h"
#include "tpacf/jackknife.h"
#include "tpacf/separation_moments.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace tpacf::cuda::detail {
namespace {

constexpr auto kProgressInterval = std::chrono::milliseconds(100);

class CudaPairCounter final : public PairCounter {
public:
    CudaPairCounter(Precision precision, std::vector<int> devices, std::string description,
                    const CudaTuning& tuning)
        : m_precision(precision), m_devices(std::move(devices)),
          m_description(std::move(description)), m_tuning(tuning) {
        m_tuning.validate();
        if (m_devices.empty())
            throw ConfigError("CUDA backend: no device to count on");
        // The provider has started the contexts (all at once); making each current once here
        // costs nothing then, and keeps a counter made directly (tests) ready too.
        for (int device : m_devices) {
            DeviceGuard guard(device);
            TPACF_CUDA_TRY(cudaFree(nullptr));
            keepPoolBetweenBatches(device);
        }
    }
    CudaPairCounter(const CudaPairCounter&) = delete;
    CudaPairCounter& operator=(const CudaPairCounter&) = delete;
    /// What the batches' buffers left in the devices' pools goes back to the driver with the
    /// counter (memory_pool.h).
    ~CudaPairCounter() override {
        for (const int device : distinctDevices())
            trimPool(device);
    }

    std::string backendName() const override { return "cuda"; }
    std::string deviceDescription() const override { return m_description; }
    Precision precision() const override { return m_precision; }
    std::optional<double> lastDeviceSeconds() const override { return m_lastDeviceSeconds; }

    std::vector<TaskCounts> countBatch(std::span<const CountTask> tasks, const Binning& binning,
                                       const CountControl& control) override {
        setLastBatchNotes({});
        const BatchMemoryShape shape = shapeOf(tasks, false);
        if (const auto budget = chunkBudget(tasks, shape)) {
            double deviceSeconds = 0;
            ChunkReport report;
            std::vector<TaskCounts> counts = countBatchInChunks(
                tasks, binning, control, *budget,
                [&](std::span<const CountTask> part, const Binning& bins,
                    const CountControl& partControl) {
                    std::vector<TaskCounts> partCounts = countWhole(part, bins, partControl);
                    deviceSeconds += m_lastDeviceSeconds.value_or(0.0);
                    return partCounts;
                },
                &report);
            m_lastDeviceSeconds = deviceSeconds;
            noteChunks(tasks, shape, *budget, report);
            return counts;
        }
        return countWhole(tasks, binning, control);
    }

    bool supportsRegions() const override { return true; }
    std::vector<RegionPairCounts> countBatchByRegion(std::span<const CountTask> tasks,
                                                     const Binning& binning,
                                                     std::size_t regionCount,
                                                     const CountControl& control) override {
        setLastBatchNotes({});
        const BatchMemoryShape shape = shapeOf(tasks, true);
        if (const auto budget = chunkBudget(tasks, shape)) {
            double deviceSeconds = 0;
            ChunkReport report;
            std::vector<RegionPairCounts> counts = countBatchByRegionInChunks(
                tasks, binning, regionCount, control, *budget,
                [&](std::span<const CountTask> part, const Binning& bins, std::size_t regions,
                    const CountControl& partControl) {
                    std::vector<RegionPairCounts> partCounts =
                        countWholeByRegion(part, bins, regions, partControl);
                    deviceSeconds += m_lastDeviceSeconds.value_or(0.0);
                    return partCounts;
                },
                &report);
            m_lastDeviceSeconds = deviceSeconds;
            noteChunks(tasks, shape, *budget, report);
            return counts;
        }
        return countWholeByRegion(tasks, binning, regionCount, control);
    }

    /// The host plan (built on every host core) walked on the first device, in double whatever
    /// the counting precision (gpu_moments.h).
    std::vector<SeparationMoments> countSeparationMoments(std::span<const CountTask> tasks,
                                                          const Binning& binning,
                                                          const CountControl& control) override {
        requireWholeShare(control);
        const MomentsPlan plan = planSeparationMoments(tasks, binning, 0, control);
        return walkMomentsPlanOnDevice(m_devices.front(), plan, binning, deviceMemoryLimit(),
                                       control);
    }

private:
    /// One batch whose catalogs fit every device at once.
    std::vector<TaskCounts> countWhole(std::span<const CountTask> tasks, const Binning& binning,
                                       const CountControl& control) {
        BatchCounts counts = runBatch(tasks, binning, 0, control);
        std::vector<TaskCounts> results(counts.raw.size());
        for (std::size_t t = 0; t < results.size(); ++t) {
            results[t].raw = std::move(counts.raw[t]);
            results[t].weighted = std::move(counts.weighted[t]);
        }
        return results;
    }

    std::vector<RegionPairCounts> countWholeByRegion(std::span<const CountTask> tasks,
                                                     const Binning& binning,
                                                     std::size_t regionCount,
                                                     const CountControl& control);

    BatchMemoryShape shapeOf(std::span<const CountTask> tasks, bool byRegion) const {
        BatchMemoryShape shape;
        shape.isFloat = m_precision == Precision::Float;
        shape.byRegion = byRegion;
        shape.weighted = std::any_of(tasks.begin(), tasks.end(),
                                     [](const CountTask& task) { return task.weighted(); });
        return shape;
    }
    /// Device bytes each worker may fill: the limit asked for (deviceMemoryLimit) or what the
    /// device has free (keeping a tenth for the runtime and other users), shared by the
    /// workers that drive one device (a device listed twice holds the catalogs twice).
    std::uint64_t memoryPerWorker() const;
    /// m_devices without repeats (the tests' device list {0, 0} drives one GPU twice).
    std::vector<int> distinctDevices() const;
    /// The points a sub-batch may hold where the batch does not fit (chunked count); nullopt
    /// where it fits. ConfigError where the limit leaves no room for points at all.
    std::optional<std::uint64_t> chunkBudget(std::span<const CountTask> tasks,
                                             const BatchMemoryShape& shape) const;
    void noteChunks(std::span<const CountTask> tasks, const BatchMemoryShape& shape,
                    std::uint64_t budget, const ChunkReport& report);
    /// CudaTuning::trace: one note of the batch's stages on each device (launch_loop.cpp).
    void noteTrace(const std::vector<DeviceResult>& devices,
                   const std::vector<std::chrono::steady_clock::time_point>& lists,
                   std::chrono::steady_clock::time_point start);

    /// Both entry points: regionCount 0 counts plainly (binCount counters per task), K > 0 by
    /// region ((1 + 2K) · binCount per task: total, touching[K], within[K]).
    BatchCounts runBatch(std::span<const CountTask> tasks, const Binning& binning,
                         std::size_t regionCount, const CountControl& control);
    /// The part of a batch every device reads: tables, catalogs, tiles and the tuning's
    /// switches (the stages and the mailbox are set by the caller).
    DeviceJob deviceJob(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                        const BatchTiles& tiles, const HostBinTables& tables,
                        const TaskVariants& variants, std::size_t regionCount, bool culled,
                        LiveCounts* live, std::chrono::steady_clock::time_point batchStart) const;
    /// Culling: how the lister turns the tile boxes into a stage's list of the share's units.
    static StageLister stageLister(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                                   const BatchTiles& tiles, const HostBinTables& tables,
                                   std::size_t regionCount, std::uint32_t tileSize,
                                   WorkShare share);
    /// One worker per device (a device listed twice gets two) counts its chunks; the calling
    /// thread runs `tick` every ~100 ms and watches the cancel flag; the first error is
    /// rethrown once all are joined.
    std::vector<DeviceResult> countOnDevices(const std::vector<DevicePlans>& plans,
                                             const DeviceJob& job, BatchState& state,
                                             const StageLister& lister, const CountControl& control,
                                             const std::function<void()>& tick) const;

    Precision m_precision;
    std::vector<int> m_devices;
    std::string m_description;
    CudaTuning m_tuning;
    std::optional<double> m_lastDeviceSeconds;
};

std::vector<int> CudaPairCounter::distinctDevices() const {
    std::vector<int> distinct = m_devices;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    return distinct;
}

std::uint64_t CudaPairCounter::memoryPerWorker() const {
    std::uint64_t perWorker = std::numeric_limits<std::uint64_t>::max();
    for (const int device : distinctDevices()) {
        DeviceGuard guard(device);
        std::size_t driverFree = 0, totalBytes = 0;
        TPACF_CUDA_TRY(cudaMemGetInfo(&driverFree, &totalBytes));
        // What the pool holds from the last batch is free for this one's buffers too.
        const std::uint64_t freeBytes = driverFree + poolUnusedBytes(device);
        const std::uint64_t usable =
            deviceMemoryLimit() > 0 ? std::min<std::uint64_t>(deviceMemoryLimit(), freeBytes)
                                    : freeBytes / 10 * 9;
        const auto workers =
            static_cast<std::uint64_t>(std::count(m_devices.begin(), m_devices.end(), device));
        perWorker = std::min(perWorker, usable / workers);
    }
    return perWorker;
}

std::optional<std::uint64_t> CudaPairCounter::chunkBudget(std::span<const CountTask> tasks,
                                                          const BatchMemoryShape& shape) const {
    const std::uint64_t limit = memoryPerWorker();
    if (batchDeviceBytes(tasks, shape) <= limit)
        return std::nullopt;
    const std::uint64_t points = pointsWithin(limit, shape);
    if (points < 2)
        throw ConfigError("CUDA backend: " + std::to_string(limit >> 20) +
                          " MB of GPU memory per device leave no room for catalog points (a "
                          "batch's fixed buffers take " +
                          std::to_string(kFixedBatchBytes >> 20) +
                          " MB): raise --gpu-memory-limit or free the GPU");
    return points;
}

void CudaPairCounter::noteChunks(std::span<const CountTask> tasks, const BatchMemoryShape& shape,
                                 std::uint64_t budget, const ChunkReport& report) {
    const auto gigabytes = [](std::uint64_t bytes) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
        return std::string(text);
    };
    setLastBatchNotes(
        {"the catalogs need " + gigabytes(batchDeviceBytes(tasks, shape)) +
         " of GPU memory, more than the " + gigabytes(memoryPerWorker()) +
         " allowed: counted in " + std::to_string(report.subBatches) + " sub-batches of at most " +
         std::to_string(budget) + " points (" + std::to_string(report.pieces) + " pieces, " +
         std::to_string(report.subTasks) + " piece counts, " +
         std::to_string(report.piecePairsSkipped) +
         " piece pairs out of reach of the bins skipped); the counts are those of one batch"});
}

void CudaPairCounter::noteTrace(const std::vector<DeviceResult>& devices,
                                const std::vector<std::chrono::steady_clock::time_point>& lists,
                                std::chrono::steady_clock::time_point start) {
    std::vector<std::string> notes = lastBatchNotes();
    notes.push_back(
        batchTraceNote(m_devices, devices, lists, start, std::chrono::steady_clock::now()));
    setLastBatchNotes(std::move(notes));
}

std::vector<RegionPairCounts> CudaPairCounter::countWholeByRegion(std::span<const CountTask> tasks,
                                                                  const Binning& binning,
                                                                  std::size_t regionCount,
                                                                  const CountControl& control) {
    // K <= 2^16 keeps (1 + 2K) rows of counters per task small and region keys in 46 bits; the
    // core's limit, which the message names, lies within it.
    static_assert(kMaxJackknifeRegions <= (1 << 16),
                  "the CUDA backend's region keys and counter rows hold at most 2^16 regions");
    if (regionCount == 0 || regionCount > static_cast<std::size_t>(kMaxJackknifeRegions))
        throw ConfigError("CUDA backend: " + std::to_string(regionCount) +
                          " jackknife regions (1 to " + std::to_string(kMaxJackknifeRegions) +
                          " supported)");
    BatchCounts counts = runBatch(tasks, binning, regionCount, control);
    const std::size_t binCount = binning.count();
    const std::size_t rowBins = regionCount * binCount;
    // Rows: total, touching[K], within[K].
    const auto split = [&](const auto& rows, auto& total, auto& touching, auto& within) {
        const auto begin = rows.begin();
        total.assign(begin, begin + static_cast<std::ptrdiff_t>(binCount));
        touching.assign(begin + static_cast<std::ptrdiff_t>(binCount),
                        begin + static_cast<std::ptrdiff_t>(binCount + rowBins));
        within.assign(begin + static_cast<std::ptrdiff_t>(binCount + rowBins), rows.end());
    };
    std::vector<RegionPairCounts> results(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        RegionPairCounts& r = results[t];
        r.regionCount = regionCount;
        r.binCount = binCount;
        split(counts.raw[t], r.total, r.touching, r.within);
        if (!counts.weighted[t].empty())
            split(counts.weighted[t], r.weightedTotal, r.weightedTouching, r.weightedWithin);
    }
    return results;
}

BatchCounts CudaPairCounter::runBatch(std::span<const CountTask> tasks, const Binning& binning,
                                      std::size_t regionCount, const CountControl& control) {
    const auto batchStart = std::chrono::steady_clock::now();
    const WorkShare share = control.share;
    share.validate();
    m_lastDeviceSeconds.reset();
    const std::size_t binCount = binning.count();
    const std::size_t countsPerTask = (regionCount > 0 ? 1 + 2 * regionCount : 1) * binCount;
    const TaskVariants variants = variantsOf(tasks);
    BatchCounts results = zeroedCounts(variants, countsPerTask);

    const BatchCatalogs batch = indexBatch(tasks);
    // Culling on: the list holds only the tile pairs within reach of the bins (built from the
    // tile boxes after the preparation) and the kernel classifies each tile pair (skip, one bin,
    // hi parts only). Off: every tile pair, every pair computed (brute force).
    const double thetaMaxDegrees = binning.maxDegrees();
    const bool culled =
        !m_tuning.bruteForce && chooseCulling(culling(), thetaMaxDegrees, batch.pairsTotal);
    setLastBatchCulled(culled);
    if (batch.pairsTotal == 0) {
        if (regionCount > 0) // still report bad regions (any tile)
            for (const Catalog* catalog : batch.catalogs)
                buildRegionLayout(*catalog, regionCount, 1024, 0);
        m_lastDeviceSeconds = 0.0;
        return results;
    }

    const RealKind real = m_precision == Precision::Float ? RealKind::Float : RealKind::Double;
    const HostBinTables tables =
        buildBinTables(binning, real, m_tuning.bandedLookup && culled && !variants.anyWeighted);
    const std::vector<DevicePlans> plans =
        planBatchKernels(m_tuning, m_devices, tables,
                         {real, binCount, regionCount > 0, culled, thetaMaxDegrees,
                          variants.anyPlain, variants.anyWeighted});
    const auto tileSize = static_cast<std::uint32_t>(plans.front().any().tileSize);
    const BatchTiles tiles = layoutTiles(batch, regionCount, tileSize, m_tuning.regionCellLevel);

    BatchState state(tasks.size(), variants.flagsIfAnyWeighted());
    state.setTakers(m_devices.size());
    // Culled, the whole batch: listed in stages as the catalogs are prepared (list_stages.h).
    // A share's units come from the whole list's prefix sums, so a share is listed at once.
    const ListStages stages = planStages(batch, culled && share.whole());
    state.setStages(stages.taskStage, stages.count());
    if (!culled) {
        // The dense list needs no boxes: ready before any device starts. A share without units
        // has nothing to prepare either.
        Schedule dense = buildDenseSchedule(tasks, batch, tiles.tileCounts, tileSize, share);
        if (dense.shareBegin == dense.shareEnd) {
            m_lastDeviceSeconds = 0.0;
            if (control.onProgress)
                control.onProgress(finishedProgress(dense));
            return results;
        }
        state.publish(std::move(dense));
    }

    if (control.cancelled())
        throw Cancelled(); // before any device work (the runner looks later)

    // Live counts only for someone who listens: the copies cost little, but nothing is better.
    std::optional<LiveCounts> live;
    if (control.onProgress)
        live.emplace(m_devices.size(), tasks.size(), binCount, variants.flagsIfAnyWeighted());
    LiveCounts* const liveCounts = live ? &*live : nullptr;
    TileMailbox mailbox(culled ? batch.catalogs.size() : 0);
    DeviceJob job = deviceJob(tasks, batch, tiles, tables, variants, regionCount, culled,
                              liveCounts, batchStart);
    job.stages = &stages;
    job.mailbox = culled ? &mailbox : nullptr;
    job.kdGroups =
        kdGroupsWanted(m_tuning.tileOrder, culled, plans.front().any().projected, regionCount > 0);
    const StageLister lister =
        culled ? stageLister(tasks, batch, tiles, tables, regionCount, tileSize, share)
               : StageLister{};

    // The caller's thread: progress every ~100 ms.
    const std::vector<DeviceResult> deviceResults =
        countOnDevices(plans, job, state, lister, control, [&] {
            reportBatchProgress(control, tasks, share, state, liveCounts, false);
        });
    if (control.cancelled() || !state.allTaken())
        throw Cancelled();

    m_lastDeviceSeconds = addDeviceCounts(deviceResults, countsPerTask, results);
    // The node pairs the traversal counted whole: once over all the shares of a batch.
    if (share.part == 0)
        for (const Schedule* schedule : state.schedules())
            addWholeCounts(*schedule, results);
    if (m_tuning.trace)
        noteTrace(deviceResults, state.publicationTimes(), batchStart);
    reportBatchProgress(control, tasks, share, state, liveCounts, true);
    return results;
}

DeviceJob CudaPairCounter::deviceJob(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                                     const BatchTiles& tiles, const HostBinTables& tables,
                                     const TaskVariants& variants, std::size_t regionCount,
                                     bool culled, LiveCounts* live,
                                     std::chrono::steady_clock::time_point batchStart) const {
    DeviceJob job;
    job.tables = &tables;
    job.batch = &batch;
    job.live = live;
    job.regionLayouts = &tiles.regionLayouts;
    job.regionCount = regionCount;
    job.taskCount = tasks.size();
    if (variants.anyWeighted)
        job.taskWeighted = variants.weighted;
    job.culled = culled;
    job.cullSubTiles = m_tuning.subTileCulling;
    job.wholeSubTiles = m_tuning.wholeSubTiles;
    job.narrowSubTiles = m_tuning.narrowSubTiles;
    job.projectionReach = m_tuning.projectionReach;
    job.trace = m_tuning.trace;
    job.start = batchStart;
    return job;
}

StageLister CudaPairCounter::stageLister(std::span<const CountTask> tasks,
                                         const BatchCatalogs& batch, const BatchTiles& tiles,
                                         const HostBinTables& tables, std::size_t regionCount,
                                         std::uint32_t tileSize, WorkShare share) {
    // The tiles are the cells. Why the curve's tiles rather than cells of their own (bands,
    // HEALPix): they hold equal numbers of points (4 x blockDim), so every tile pair is the same
    // bounded amount of work whatever the clustering, and the dynamic unit cursor balances the
    // blocks; and consecutive points of the sky curve (sky_curve.h) are close, so the boxes are
    // compact wherever the points are dense (a fixed grid would give crowded cells in clusters
    // and empty ones elsewhere). Where the count is not projected, each run of 8192 curve-ordered
    // points is then split at medians down to the sub-tiles (kd_groups.h), which makes the
    // tiles' boxes smaller still. The catalogs are sorted once, on the device; only the boxes
    // (tiles x 56 bytes) come back.
    return [tasks, &batch, &tiles, &tables, regionCount, tileSize,
            share](const std::vector<CatalogTiles>& summaries,
                   std::span<const std::uint8_t> tasksListed) {
        CulledInputs inputs;
        inputs.tileCounts = &tiles.tileCounts;
        inputs.regionLayouts = &tiles.regionLayouts;
        inputs.tiles = &summaries;
        // The kernel's table: t[0..binCount] (the +inf after it left out).
        inputs.thresholds = std::span<const double>(tables.thresholdsDouble)
                                .first(tables.thresholdsDouble.size() - 1);
        inputs.regionCount = regionCount;
        inputs.tasksListed = tasksListed;
        return buildCulledSchedule(tasks, batch, inputs, tileSize, share);
    };
}

std::vector<DeviceResult> CudaPairCounter::countOnDevices(const std::vector<DevicePlans>& plans,
                                                          const DeviceJob& job, BatchState& state,
                                                          const StageLister& lister,
                                                          const CountControl& control,
                                                          const std::function<void()>& tick) const {
    std::vector<DeviceResult> deviceResults(m_devices.size());
    RunnerWatch watch;
    watch.tick = tick;
    watch.cancel = control.cancelRequested;
    watch.interval = kProgressInterval;
    // Several devices: each uploads a part of the large catalogs and copies the rest from the
    // others (shared_uploads.h), where they reach each other's memory.
    const std::unique_ptr<SharedUploads> shared =
        m_tuning.sharedUploads == CudaSharedUploads::Off
            ? nullptr
            : SharedUploads::forDevices(m_devices, job.batch->catalogs.size(),
                                        m_tuning.sharedUploads == CudaSharedUploads::All);
    // Culled: one more worker, the lister, turning the tile boxes the leader posts into the
    // stages' lists while the devices count.
    runWorkers(
        m_devices.size() + (job.mailbox ? 1 : 0),
        [&](std::size_t d, const std::atomic<bool>& stop) {
            if (d < m_devices.size()) {
                runDevice(m_devices[d], d, plans[d], job, state, stop, shared.get(),
                          deviceResults[d]);
                // After the device's buffers, streams and shared catalogs are given back.
                if (job.trace)
                    markStage(deviceResults[d], "freed", job.start);
            } else
                listStages(*job.stages, *job.mailbox, lister, state, stop);
        },
        watch);
    return deviceResults;
}

} // namespace

std::unique_ptr<PairCounter> makeCudaPairCounter(Precision precision, std::vector<int> devices,
                                                 std::string description,
                                                 const CudaTuning& tuning) {
    return std::make_unique<CudaPairCounter>(precision, std::move(devices), std::move(description),
                                             tuning);
}

} // namespace tpacf::cuda::detail
