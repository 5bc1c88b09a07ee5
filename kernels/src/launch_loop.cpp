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
#include <functional>
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

// The arguments every launch of the batch shares (the units, cursors and variant set per launch).
PairKernelArgs commonArgs(const DeviceJob& job, const DeviceCatalogs& catalogs,
                          const DeviceBinTables& bins, const HostBinTables& tables,
                          WorkUnit* d_units, unsigned long long* d_counts, bool isFloat,
                          std::uint32_t tileSize) {
    const std::size_t binCount = tables.thresholdsDouble.size() - 2;
    PairKernelArgs args;
    args.d_units = d_units;
    args.d_catalogs = catalogs.d_views();
    args.d_counts = d_counts;
    args.regionCount = static_cast<std::uint32_t>(job.regionCount);
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
    args.bins.wholeSubTiles = job.wholeSubTiles ? 1 : 0;
    args.bins.narrowSubTiles = job.narrowSubTiles ? 1 : 0;
    args.bins.projectionReach = job.projectionReach;
    args.bins.bruteForceSelect = isFloat && tables.highMargin > kFastMinChord2 ? 1 : 0;
    args.tileSize = tileSize;
    return args;
}

// The two kernel variants of a batch, [0] unweighted and [1] weighted, each with its plan (null
// where the batch has no such task) and arguments.
struct Variants {
    const KernelPlan* plans[2] = {nullptr, nullptr};
    PairKernelArgs args[2];
};

Variants variantsOf(const DevicePlans& plans, const PairKernelArgs& common, const Schedule& schedule,
                    std::uint32_t tileSize, double* d_weighted, const DeviceCatalogs& catalogs) {
    Variants variants;
    variants.args[0] = variants.args[1] = common;
    variants.plans[0] = plans.plain ? &*plans.plain : nullptr;
    variants.plans[1] = plans.weighted ? &*plans.weighted : nullptr;
    if (const KernelPlan* plan = variants.plans[0]) {
        variants.args[0].layout = plan->layout;
        // A private 32-bit counter gains at most this much per unit; flush well before 2^32. Per
        // j-tile a thread adds its own pairs (kPointsPerThread · tileSize) and, with whole
        // sub-tiles, the pairs of its lane's whole sub-tile pairs (kPointsPerThread · 32 · 32).
        const std::uint64_t perUnit =
            static_cast<std::uint64_t>(kPointsPerThread) *
            (tileSize + static_cast<std::uint64_t>(kSubTileSize) * kSubTileSize) *
            schedule.tilesPerUnit * (plan->hist == HistMode::PerWarp ? 32u : 1u);
        variants.args[0].flushEveryUnits = static_cast<std::uint32_t>(std::max<std::uint64_t>(
            1, (std::numeric_limits<std::uint32_t>::max() / 2) / perUnit));
    }
    if (const KernelPlan* plan = variants.plans[1]) {
        variants.args[1].layout = plan->layout;
        variants.args[1].d_weighted = d_weighted;
        variants.args[1].d_tileWeights = catalogs.d_tileWeights();
        // Every unit: a private weighted sum then adds at most kPointsPerThread · kPointsPerUnit
        // products (float: rounding ~sqrt(terms) · 2^-24 relative) before it reaches double.
        variants.args[1].flushEveryUnits = 1;
    }
    return variants;
}

// Live counts: a copy of the per-bin totals (the first binCount counters of each task's rows)
// behind the queued launches, and the progress pairs of the units launched before it, handed to
// LiveCounts once the copy is done.
class LiveCopies {
public:
    /// `d_counts`, `d_weighted` (null unless weighted): the device's counters.
    LiveCopies(const DeviceJob& job, std::size_t worker, std::size_t binCount,
               std::size_t countsPerTask, const unsigned long long* d_counts,
               const double* d_weighted)
        : m_job(job), m_worker(worker), m_binCount(binCount), m_countsPerTask(countsPerTask),
          m_d_counts(d_counts), m_d_weighted(d_weighted), m_weighted(d_weighted != nullptr), m_counts(job.live ? job.taskCount * binCount : 0),
          m_weightedSums(job.live && d_weighted ? job.taskCount * binCount : 0),
          m_launchedPairs(job.taskCount, 0), m_last(std::chrono::steady_clock::now()) {}

    /// Units [begin, end) were launched: a copy is queued behind them every kLiveCountsInterval.
    void launched(const Schedule& schedule, std::size_t begin, std::size_t end, cudaStream_t s) {
        schedule.addProgress(begin, end, m_launchedPairs);
        const auto now = std::chrono::steady_clock::now();
        if (m_pending || now - m_last < kLiveCountsInterval)
            return;
        m_last = now;
        const std::size_t taskCount = m_job.taskCount;
        const std::size_t rowBytes = m_binCount * sizeof(unsigned long long);
        const std::size_t pitch = m_countsPerTask * sizeof(unsigned long long);
        TPACF_CUDA_TRY(cudaMemcpy2DAsync(m_counts.get(), rowBytes, m_d_counts, pitch, rowBytes,
                                         taskCount, cudaMemcpyDeviceToHost, s));
        if (m_weighted)
            TPACF_CUDA_TRY(cudaMemcpy2DAsync(m_weightedSums.get(), m_binCount * sizeof(double),
                                             m_d_weighted, m_countsPerTask * sizeof(double),
                                             m_binCount * sizeof(double), taskCount,
                                             cudaMemcpyDeviceToHost, s));
        m_copied.record(s);
        m_pairs = m_launchedPairs;
        m_pending = true;
    }

    /// Publishes the copy queued last, once it is done.
    void publish() {
        if (!m_pending || !m_copied.done())
            return;
        m_job.live->publish(m_worker, m_counts.get(), m_weighted ? m_weightedSums.get() : nullptr,
                            m_pairs);
        m_pending = false;
    }

private:
    const DeviceJob& m_job;
    std::size_t m_worker, m_binCount, m_countsPerTask;
    const unsigned long long* m_d_counts;
    const double* m_d_weighted;
    bool m_weighted;
    PinnedBuffer<unsigned long long> m_counts;
    PinnedBuffer<double> m_weightedSums;
    Event m_copied;
    bool m_pending = false;
    std::vector<std::uint64_t> m_launchedPairs, m_pairs;
    std::chrono::steady_clock::time_point m_last;
};

// One device's launches: chunks of ~30 ms of the variant the next unit needs, two in flight, the
// pair rate measured per variant. Returns the kernels' seconds.
class LaunchLoop {
public:
    /// `live`: null without live counts.
    LaunchLoop(const DeviceJob& job, BatchState& state, const std::atomic<bool>& stop,
               const Schedule& schedule, Variants& variants, const KernelPlan& first,
               WorkUnit* d_units, std::uint32_t* d_cursors, cudaStream_t s, LiveCopies* live,
               const PairRates& rates)
        : job(job), state(state), stop(stop), schedule(schedule), variants(variants), first(first),
          d_units(d_units), d_cursors(d_cursors), s(s), live(live),
          pairRate{rates.first, rates.first / 2}, bruteRateCap(rates.bruteCap) {}

    double run(const std::function<void()>& onFirstLaunch);

private:
    const DeviceJob& job;
    BatchState& state;
    const std::atomic<bool>& stop;
    const Schedule& schedule;
    Variants& variants;
    const KernelPlan& first;
    WorkUnit* d_units;
    std::uint32_t* d_cursors;
    cudaStream_t s;
    LiveCopies* live;
    double pairRate[2];
    double bruteRateCap;

    struct InFlight {
        int slot;
        int variant;
        std::size_t begin, end;
    };
    bool launchNext(int slot, std::deque<InFlight>& inFlight);

    Event launchStart[kLaunchesInFlight + 1], launchEnd[kLaunchesInFlight + 1];
};

// Takes the next chunk from the shared cursor and launches it in `slot`; false when none is left
// (or the batch was stopped).
bool LaunchLoop::launchNext(int slot, std::deque<InFlight>& inFlight) {
    std::size_t begin = 0, end = 0;
    // The budget of the variant the next unit needs (the chunk stays within one variant).
    const int nextVariant = state.nextVariant();
    const auto budget = static_cast<std::uint64_t>(
        std::min(pairRate[nextVariant] * kChunkSeconds, bruteRateCap * kChunkMaxSeconds));
    const auto grid = static_cast<std::size_t>(
        (variants.plans[nextVariant] ? *variants.plans[nextVariant] : first).gridSize);
    if (stop.load() || !state.take(budget, grid, stop, begin, end))
        return false;
    const bool weightedBatch = !job.taskWeighted.empty();
    const int variant = weightedBatch && job.taskWeighted[schedule.units[begin].task] != 0 ? 1 : 0;
    const KernelPlan* plan = variants.plans[variant];
    if (plan == nullptr)
        throw CudaError("CUDA backend: no kernel plan for a chunk of the batch", 0);
    PairKernelArgs& args = variants.args[variant];
    const std::size_t shareBegin = schedule.shareBegin;
    TPACF_CUDA_TRY(cudaMemcpyAsync(d_units + (begin - shareBegin), schedule.units.data() + begin,
                                   (end - begin) * sizeof(WorkUnit), cudaMemcpyHostToDevice, s));
    TPACF_CUDA_TRY(cudaMemsetAsync(d_cursors + slot, 0, sizeof(std::uint32_t), s));
    args.unitBegin = static_cast<std::uint32_t>(begin - shareBegin);
    args.unitEnd = static_cast<std::uint32_t>(end - shareBegin);
    args.d_unitCursor = d_cursors + slot;
    const int blocks = static_cast<int>(std::min<std::size_t>(plan->gridSize, end - begin));
    launchStart[slot].record(s);
    launchPairKernel(*plan, args, blocks, s);
    launchEnd[slot].record(s);
    inFlight.push_back({slot, variant, begin, end});
    if (live)
        live->launched(schedule, begin, end, s);
    return true;
}

double LaunchLoop::run(const std::function<void()>& onFirstLaunch) {
    std::deque<InFlight> inFlight;
    int slot = 0;
    bool launchedAny = false;
    double kernelSeconds = 0;
    for (;;) {
        const bool launched = launchNext(slot, inFlight);
        if (launched) {
            if (!launchedAny)
                onFirstLaunch();
            launchedAny = true;
            slot = (slot + 1) % (kLaunchesInFlight + 1);
        }
        if (inFlight.empty())
            break;
        if (launched && static_cast<int>(inFlight.size()) < kLaunchesInFlight)
            continue;
        const InFlight done = inFlight.front();
        inFlight.pop_front();
        launchEnd[done.slot].synchronize();
        const double seconds = launchEnd[done.slot].millisecondsSince(launchStart[done.slot]) * 1e-3;
        const double pairs =
            static_cast<double>(schedule.workPrefix[done.end] - schedule.workPrefix[done.begin]);
        kernelSeconds += seconds;
        double& rate = pairRate[done.variant];
        if (seconds > 0)
            rate = std::clamp(pairs / seconds, rate / 8, rate * 8);
        state.completed(done.begin, done.end);
        if (live)
            live->publish();
    }
    return kernelSeconds;
}

// The pair rates this device's launches start from (then measured per variant).
PairRates startingRates(int device, const cudaDeviceProp& props, bool isFloat) {
    DeviceThroughput throughput{props.multiProcessorCount, 0, props.major, props.minor, 0};
    if (cudaDeviceGetAttribute(&throughput.clockKHz, cudaDevAttrClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&throughput.fp32PerFp64,
                               cudaDevAttrSingleToDoublePrecisionPerfRatio, device) != cudaSuccess)
        cudaGetLastError(); // unknown: pairRates assumes the reference's
    return pairRates(throughput, isFloat);
}

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
        state.publish(job.scheduleFromBoxes(catalogs.tileSummaries()));
    const Schedule* published = state.waitForSchedule(stop);
    if (published == nullptr)
        return; // stopped (error elsewhere, or cancelled) before the list was ready
    const Schedule& schedule = *published;
    mark("list");

    // The share's work units (indices relative to shareBegin) and the counters. Each chunk's
    // units are copied just before its launch: a device takes only its chunks, and the first
    // launch does not wait for the whole list (5e6 units: 167 MB).
    unitsStart.record(s);
    DeviceBuffer<WorkUnit> d_units(schedule.shareEnd - schedule.shareBegin, s);
    const std::size_t countsPerTask = (regionCount > 0 ? 1 + 2 * regionCount : 1) * binCount;
    DeviceBuffer<unsigned long long> d_counts(taskCount * countsPerTask, s);
    TPACF_CUDA_TRY(cudaMemsetAsync(d_counts.get(), 0, d_counts.bytes(), s));
    DeviceBuffer<double> d_weighted(weightedBatch ? taskCount * countsPerTask : 0, s);
    if (weightedBatch)
        TPACF_CUDA_TRY(cudaMemsetAsync(d_weighted.get(), 0, d_weighted.bytes(), s));
    DeviceBuffer<std::uint32_t> d_cursors(kLaunchesInFlight + 1, s);
    Event prepareEnd;
    prepareEnd.record(s);

    Variants variants =
        variantsOf(plans, commonArgs(job, catalogs, bins, tables, d_units.get(), d_counts.get(),
                                     isFloat, tileSize),
                   schedule, tileSize, d_weighted.get(), catalogs);
    std::optional<LiveCopies> live;
    if (job.live)
        live.emplace(job, worker, binCount, countsPerTask, d_counts.get(),
                     weightedBatch ? d_weighted.get() : nullptr);
    LaunchLoop loop(job, state, stop, schedule, variants, first, d_units.get(), d_cursors.get(), s,
                    live ? &*live : nullptr, startingRates(device, props, isFloat));
    const double kernelSeconds = loop.run([&] { mark("first launch"); });

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
