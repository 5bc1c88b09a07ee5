// SPDX-License-Identifier: GPL-3.0-or-later
// One device's part of a batch (launch_loop.h): chunks of ~30 ms of work, each one launch of the
// persistent pair kernel; two launches stay queued so the GPU never waits for the host, and the
// host waits on blocking-sync events (no spinning).
#include "launch_loop.h"

#include "cuda_check.h"
#include "device_rates.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>

namespace tpacf::cuda::detail {
namespace {

constexpr int kLaunchesInFlight = 2;

/// The bin thresholds and the c² lookup table on one device.
struct DeviceBinTables {
    DeviceBuffer<double> d_thresholdsDouble;
    DeviceBuffer<float> d_thresholdsFloat;
    DeviceBuffer<std::uint16_t> d_lookup;

    DeviceBinTables(const HostBinTables& tables, bool isFloat, cudaStream_t s) {
        const std::size_t binCount = tables.thresholdsDouble.size() - 2; // edges + sentinel
        d_thresholdsDouble = DeviceBuffer<double>(binCount + 2, s);
        TPACF_CUDA_TRY(cudaMemcpyAsync(d_thresholdsDouble.get(), tables.thresholdsDouble.data(),
                                       d_thresholdsDouble.bytes(), cudaMemcpyHostToDevice, s));
        d_thresholdsFloat = DeviceBuffer<float>(isFloat ? binCount + 2 : 0, s);
        if (isFloat)
            TPACF_CUDA_TRY(cudaMemcpyAsync(d_thresholdsFloat.get(), tables.thresholdsFloat.data(),
                                           d_thresholdsFloat.bytes(), cudaMemcpyHostToDevice, s));
        d_lookup = DeviceBuffer<std::uint16_t>(tables.lookup.size(), s);
        TPACF_CUDA_TRY(cudaMemcpyAsync(d_lookup.get(), tables.lookup.data(), d_lookup.bytes(),
                                       cudaMemcpyHostToDevice, s));
    }
};

} // namespace

void runDevice(int device, std::size_t worker, const DevicePlans& plans, const DeviceJob& job,
               BatchState& state, const std::atomic<bool>& stop, DeviceResult& result) {
    const bool leader = worker == 0;
    const auto mark = [&](const char* stage) {
        if (job.trace)
            result.stages.emplace_back(
                stage,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count());
    };
    mark("thread");
    const HostBinTables& tables = *job.tables;
    const std::size_t regionCount = job.regionCount;
    const std::size_t taskCount = job.taskCount;
    DeviceGuard guard(device);
    cudaDeviceProp props{};
    TPACF_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    // Declared before every buffer: the stream outlives the stream-ordered frees.
    Stream stream;
    const cudaStream_t s = stream.get();
    Event batchStart, batchEnd, catalogsReady, unitsStart;
    Event launchStart[kLaunchesInFlight + 1], launchEnd[kLaunchesInFlight + 1];
    batchStart.record(s);

    const KernelPlan& first = plans.any();
    const bool isFloat = first.real == RealKind::Float;
    const bool weightedBatch = !job.taskWeighted.empty();
    const auto tileSize = static_cast<std::uint32_t>(first.tileSize);
    const DeviceCatalogs catalogs(*job.batch, *job.regionLayouts, tileSize, isFloat,
                                  weightedBatch, s);
    const DeviceBinTables bins(tables, isFloat, s);
    const std::size_t binCount = tables.thresholdsDouble.size() - 2;
    catalogsReady.record(s);
    mark("catalogs issued");

    // Culling: the leader turns the tile boxes into the work list. The preparation is
    // deterministic (a stable radix sort of the same keys has one result; box min/max are
    // exact), so every device holds the very same tiles: one list serves all, built once, and
    // must be one list anyway since the devices take its units by index from a shared cursor.
    if (leader && job.culled)
        state.publish(job.scheduleFromBoxes(catalogs.tileBounds()));
    const Schedule* published = state.waitForSchedule(stop);
    if (published == nullptr)
        return; // stopped (error elsewhere, or cancelled) before the list was ready
    const Schedule& schedule = *published;
    mark("list");

    // The share's work units (indices below are relative to shareBegin) and the counters.
    unitsStart.record(s);
    const std::size_t shareBegin = schedule.shareBegin;
    // Each chunk's units are copied just before its launch (below): a device takes only its
    // chunks, and the first launch does not wait for the whole list (5e6 units: 167 MB).
    DeviceBuffer<WorkUnit> d_units(schedule.shareEnd - shareBegin, s);
    const bool byRegion = regionCount > 0;
    const std::size_t countsPerTask = (byRegion ? 1 + 2 * regionCount : 1) * binCount;
    DeviceBuffer<unsigned long long> d_counts(taskCount * countsPerTask, s);
    TPACF_CUDA_TRY(cudaMemsetAsync(d_counts.get(), 0, d_counts.bytes(), s));
    DeviceBuffer<double> d_weighted(weightedBatch ? taskCount * countsPerTask : 0, s);
    if (weightedBatch)
        TPACF_CUDA_TRY(cudaMemsetAsync(d_weighted.get(), 0, d_weighted.bytes(), s));
    DeviceBuffer<std::uint32_t> d_cursors(kLaunchesInFlight + 1, s);
    Event prepareEnd;
    prepareEnd.record(s);
    double kernelSeconds = 0;

    PairKernelArgs args;
    args.d_units = d_units.get();
    args.d_catalogs = catalogs.d_views();
    args.d_counts = d_counts.get();
    args.regionCount = static_cast<std::uint32_t>(regionCount);
    args.bins.d_thresholds = isFloat ? static_cast<const void*>(bins.d_thresholdsFloat.get())
                                     : bins.d_thresholdsDouble.get();
    args.bins.d_thresholdsDouble = bins.d_thresholdsDouble.get();
    args.bins.d_lookup = bins.d_lookup.get();
    args.bins.lookupSize = static_cast<std::uint32_t>(tables.lookup.size());
    args.bins.lookupShift = tables.shift;
    args.bins.lookupBase = tables.base;
    args.bins.binCount = static_cast<std::uint32_t>(binCount);
    args.bins.lowMargin = tables.lowMargin;
    args.bins.highMargin = tables.highMargin;
    args.bins.classifyTiles = job.culled ? 1 : 0;
    args.bins.cullSubTiles = job.cullSubTiles ? 1 : 0;
    args.bins.bruteForceSelect = isFloat && tables.highMargin > kFastMinChord2 ? 1 : 0;
    args.tileSize = tileSize;
    // The arguments of each variant: [0] unweighted, [1] weighted.
    PairKernelArgs variantArgs[2] = {args, args};
    const KernelPlan* variantPlans[2] = {plans.plain ? &*plans.plain : nullptr,
                                         plans.weighted ? &*plans.weighted : nullptr};
    if (const KernelPlan* plan = variantPlans[0]) {
        variantArgs[0].layout = plan->layout;
        // A private 32-bit counter gains at most this much per unit; flush well before 2^32.
        const std::uint64_t perUnit = static_cast<std::uint64_t>(kPointsPerThread) * tileSize *
                                      schedule.tilesPerUnit *
                                      (plan->hist == HistMode::PerWarp ? 32u : 1u);
        variantArgs[0].flushEveryUnits = static_cast<std::uint32_t>(std::max<std::uint64_t>(
            1, (std::numeric_limits<std::uint32_t>::max() / 2) / perUnit));
    }
    if (const KernelPlan* plan = variantPlans[1]) {
        variantArgs[1].layout = plan->layout;
        variantArgs[1].d_weighted = d_weighted.get();
        variantArgs[1].d_tileWeights = catalogs.d_tileWeights();
        // Every unit: a private weighted sum then adds at most kPointsPerThread · kPointsPerUnit
        // products (float: rounding ~sqrt(terms) · 2^-24 relative) before it reaches double.
        variantArgs[1].flushEveryUnits = 1;
    }

    // Launch loop: chunks of ~30 ms, two in flight; the rate is measured per variant.
    DeviceThroughput throughput{props.multiProcessorCount, 0, props.major, props.minor, 0};
    if (cudaDeviceGetAttribute(&throughput.clockKHz, cudaDevAttrClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&throughput.fp32PerFp64,
                               cudaDevAttrSingleToDoublePrecisionPerfRatio, device) != cudaSuccess)
        cudaGetLastError(); // unknown: pairRates assumes the reference's
    const PairRates rates = pairRates(throughput, isFloat);
    double pairRate[2] = {rates.first, rates.first / 2};
    const double bruteRateCap = rates.bruteCap;
    struct InFlight {
        int slot;
        int variant;
        std::size_t begin, end;
    };
    std::deque<InFlight> inFlight;
    int slot = 0;

    // Live counts: a copy of the per-bin totals (the first binCount counters of each task's
    // rows) behind the queued launches, and the progress pairs of the units launched before it.
    PinnedBuffer<unsigned long long> liveCounts(job.live ? taskCount * binCount : 0);
    PinnedBuffer<double> liveWeighted(job.live && weightedBatch ? taskCount * binCount : 0);
    Event liveCopied;
    bool livePending = false;
    std::vector<std::uint64_t> launchedPairs(taskCount, 0), livePairs;
    auto lastLive = std::chrono::steady_clock::now();
    const auto takeLiveSnapshot = [&] {
        const std::size_t rowBytes = binCount * sizeof(unsigned long long);
        const std::size_t pitch = countsPerTask * sizeof(unsigned long long);
        TPACF_CUDA_TRY(cudaMemcpy2DAsync(liveCounts.get(), rowBytes, d_counts.get(), pitch,
                                         rowBytes, taskCount, cudaMemcpyDeviceToHost, s));
        if (weightedBatch)
            TPACF_CUDA_TRY(cudaMemcpy2DAsync(liveWeighted.get(), binCount * sizeof(double),
                                             d_weighted.get(), countsPerTask * sizeof(double),
                                             binCount * sizeof(double), taskCount,
                                             cudaMemcpyDeviceToHost, s));
        liveCopied.record(s);
        livePairs = launchedPairs;
        livePending = true;
    };
    const auto publishLiveSnapshot = [&] {
        if (livePending && liveCopied.done()) {
            job.live->publish(worker, liveCounts.get(), weightedBatch ? liveWeighted.get() : nullptr,
                              livePairs);
            livePending = false;
        }
    };

    bool launchedAny = false;
    for (;;) {
        std::size_t begin = 0, end = 0;
        // The budget of the variant the next unit needs (the chunk stays within one variant).
        const int nextVariant = state.nextVariant();
        const auto budget = static_cast<std::uint64_t>(
            std::min(pairRate[nextVariant] * kChunkSeconds, bruteRateCap * kChunkMaxSeconds));
        const bool launched =
            !stop.load() &&
            state.take(budget,
                       static_cast<std::size_t>(
                           (variantPlans[nextVariant] ? *variantPlans[nextVariant] : first).gridSize),
                       stop, begin, end);
        if (launched) {
            const int variant =
                weightedBatch && job.taskWeighted[schedule.units[begin].task] != 0 ? 1 : 0;
            const KernelPlan* plan = variantPlans[variant];
            if (plan == nullptr)
                throw CudaError("CUDA backend: no kernel plan for a chunk of the batch", 0);
            PairKernelArgs& args = variantArgs[variant];
            TPACF_CUDA_TRY(cudaMemcpyAsync(d_units.get() + (begin - shareBegin),
                                           schedule.units.data() + begin,
                                           (end - begin) * sizeof(WorkUnit),
                                           cudaMemcpyHostToDevice, s));
            TPACF_CUDA_TRY(cudaMemsetAsync(d_cursors.get() + slot, 0, sizeof(std::uint32_t), s));
            args.unitBegin = static_cast<std::uint32_t>(begin - shareBegin);
            args.unitEnd = static_cast<std::uint32_t>(end - shareBegin);
            args.d_unitCursor = d_cursors.get() + slot;
            const int grid = static_cast<int>(std::min<std::size_t>(plan->gridSize, end - begin));
            launchStart[slot].record(s);
            launchPairKernel(*plan, args, grid, s);
            launchEnd[slot].record(s);
            if (!launchedAny)
                mark("first launch");
            launchedAny = true;
            inFlight.push_back({slot, variant, begin, end});
            slot = (slot + 1) % (kLaunchesInFlight + 1);
            if (job.live) {
                schedule.addProgress(begin, end, launchedPairs);
                const auto now = std::chrono::steady_clock::now();
                if (!livePending && now - lastLive >= kLiveCountsInterval) {
                    takeLiveSnapshot();
                    lastLive = now;
                }
            }
        }
        if (inFlight.empty())
            break;
        if (!launched || static_cast<int>(inFlight.size()) >= kLaunchesInFlight) {
            const InFlight done = inFlight.front();
            inFlight.pop_front();
            launchEnd[done.slot].synchronize();
            const double seconds =
                launchEnd[done.slot].millisecondsSince(launchStart[done.slot]) * 1e-3;
            const double pairs = static_cast<double>(schedule.workPrefix[done.end] -
                                                     schedule.workPrefix[done.begin]);
            kernelSeconds += seconds;
            double& rate = pairRate[done.variant];
            if (seconds > 0)
                rate = std::clamp(pairs / seconds, rate / 8, rate * 8);
            state.completed(done.begin, done.end);
            if (job.live)
                publishLiveSnapshot();
        }
    }

    mark("launches done");
    result.counts.assign(taskCount * countsPerTask, 0);
    PinnedBuffer<unsigned long long> hostCounts(taskCount * countsPerTask);
    TPACF_CUDA_TRY(cudaMemcpyAsync(hostCounts.get(), d_counts.get(), d_counts.bytes(),
                                   cudaMemcpyDeviceToHost, s));
    PinnedBuffer<double> hostWeighted(weightedBatch ? taskCount * countsPerTask : 0);
    if (weightedBatch)
        TPACF_CUDA_TRY(cudaMemcpyAsync(hostWeighted.get(), d_weighted.get(), d_weighted.bytes(),
                                       cudaMemcpyDeviceToHost, s));
    batchEnd.record(s);
    batchEnd.synchronize();
    std::copy(hostCounts.get(), hostCounts.get() + taskCount * countsPerTask,
              result.counts.begin());
    if (weightedBatch)
        result.weighted.assign(hostWeighted.get(), hostWeighted.get() + taskCount * countsPerTask);
    // Busy: preparation, every launch, and the final copy; gaps waiting for the host (the list
    // building among them) excluded.
    const double prepareSeconds =
        (catalogsReady.millisecondsSince(batchStart) + prepareEnd.millisecondsSince(unitsStart)) *
        1e-3;
    const double span = batchEnd.millisecondsSince(batchStart) * 1e-3;
    result.busySeconds = std::min(span, prepareSeconds + kernelSeconds);
    mark("end");
}

} // namespace tpacf::cuda::detail
