// SPDX-License-Identifier: GPL-3.0-or-later
// One device's part of a batch (launch_loop.h): chunks of ~30 ms of work, each one launch of the
// persistent pair kernel; two launches stay queued, on two streams so that each one's blocks fill
// the multiprocessors the other leaves as it drains, so the GPU never waits for the host, and the
// host waits on blocking-sync events (no spinning).
#include "launch_loop.h"

#include "batch_trace.h"
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
// Launches alternate between two streams (lanes), so that the next launch's blocks take the
// multiprocessors the last one's blocks leave while it drains (its last units), instead of
// waiting for the whole grid to finish (on one lane, the standard batch's kernels took about 2 ms
// a launch longer in these drains: docs/gpu-kernel-notes.md). Each slot (its units and cursor)
// belongs to one lane: slot k to lane k % 2.
constexpr int kLanes = 2;
constexpr int kSlots = 2 * kLaunchesInFlight;

/// The bin thresholds and the c² lookup table on one device.
struct DeviceBinTables {
    DeviceBuffer<double> d_thresholdsDouble;
    DeviceBuffer<float> d_thresholdsFloat;
    DeviceBuffer<std::uint16_t> d_lookup;
    DeviceBuffer<BandCell> d_bands; ///< LookupKind::Banded only

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
        d_bands = DeviceBuffer<BandCell>(tables.bands.size(), s);
        if (!tables.bands.empty())
            TPACF_CUDA_TRY(cudaMemcpyAsync(d_bands.get(), tables.bands.data(), d_bands.bytes(),
                                           cudaMemcpyHostToDevice, s));
    }
};

// The arguments every launch of the batch shares (the units, cursors and variant set per launch).
PairKernelArgs commonArgs(const DeviceJob& job, const DeviceCatalogs& catalogs,
                          const DeviceBinTables& bins, const HostBinTables& tables,
                          unsigned long long* d_counts, bool isFloat, std::uint32_t tileSize) {
    const std::size_t binCount = tables.thresholdsDouble.size() - 2;
    PairKernelArgs args;
    args.d_catalogs = catalogs.d_views();
    args.d_counts = d_counts;
    args.regionCount = static_cast<std::uint32_t>(job.regionCount);
    args.bins.d_thresholds = isFloat ? static_cast<const void*>(bins.d_thresholdsFloat.get())
                                     : bins.d_thresholdsDouble.get();
    args.bins.d_thresholdsDouble = bins.d_thresholdsDouble.get();
    args.bins.d_lookup = bins.d_lookup.get();
    args.bins.d_bands = bins.d_bands.get();
    args.bins.slotMask = tables.slotMask;
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

Variants variantsOf(const DevicePlans& plans, const PairKernelArgs& common, double* d_weighted,
                    const DeviceCatalogs& catalogs) {
    Variants variants;
    variants.args[0] = variants.args[1] = common;
    variants.plans[0] = plans.plain ? &*plans.plain : nullptr;
    variants.plans[1] = plans.weighted ? &*plans.weighted : nullptr;
    if (const KernelPlan* plan = variants.plans[0])
        variants.args[0].layout = plan->layout;
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

// How often the unweighted kernel flushes its private 32-bit counters, for units of
// `tilesPerUnit` j-tiles (the list's; each stage's list has its own).
std::uint32_t plainFlushEvery(const KernelPlan& plan, std::uint64_t tilesPerUnit,
                              std::uint32_t tileSize) {
    // A private 32-bit counter gains at most this much per unit; flush well before 2^32. Per
    // j-tile a thread adds its own pairs (kPointsPerThread · tileSize) and, with whole sub-tiles,
    // the pairs of its lane's whole sub-tile pairs (kPointsPerThread · 32 · 32).
    const std::uint64_t perUnit =
        static_cast<std::uint64_t>(kPointsPerThread) *
        (tileSize + static_cast<std::uint64_t>(kSubTileSize) * kSubTileSize) * tilesPerUnit *
        (plan.hist == HistMode::PerWarp ? 32u : 1u);
    return static_cast<std::uint32_t>(
        std::max<std::uint64_t>(1, (std::numeric_limits<std::uint32_t>::max() / 2) / perUnit));
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

    /// Units [begin, end) were launched on `s`: a copy is queued behind them every
    /// kLiveCountsInterval, and behind what the other lane `other` holds, so that it holds
    /// exactly the units launched before it.
    void launched(const Schedule& schedule, std::size_t begin, std::size_t end, cudaStream_t s,
                  cudaStream_t other) {
        schedule.addProgress(begin, end, m_launchedPairs);
        const auto now = std::chrono::steady_clock::now();
        if (m_pending || now - m_last < kLiveCountsInterval)
            return;
        m_last = now;
        m_otherLane.record(other);
        TPACF_CUDA_TRY(cudaStreamWaitEvent(s, m_otherLane.get(), 0));
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
        // Nor does the other lane add to the counters while they are copied.
        TPACF_CUDA_TRY(cudaStreamWaitEvent(other, m_copied.get(), 0));
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
    Event m_copied, m_otherLane;
    bool m_pending = false;
    std::vector<std::uint64_t> m_launchedPairs, m_pairs;
    std::chrono::steady_clock::time_point m_last;
};

// The device's busy time: the union of intervals (milliseconds from the batch's start) in which
// it uploaded, prepared, counted or copied for the batch; the gaps waiting for the host (lists
// not yet published) left out.
class BusyTime {
public:
    void add(float from, float to) { m_spans.emplace_back(from, to); }
    double seconds() {
        std::sort(m_spans.begin(), m_spans.end());
        double total = 0, reached = 0;
        for (const auto& [from, to] : m_spans) {
            const double start = std::max<double>(from, reached);
            if (to > start)
                total += to - start;
            reached = std::max<double>(reached, to);
        }
        return total * 1e-3;
    }

private:
    std::vector<std::pair<float, float>> m_spans;
};

// One device's part of a batch after its buffers are made: it issues its catalogs one by one
// (upload, then preparation) and launches chunks of ~30 ms of the variant the next unit needs,
// two in flight, from every stage whose catalogs it has issued; the leader also hands each
// prepared catalog's tile boxes to the lister. Everything it waits for is on its stream in the
// order it was enqueued (launches and catalogs prepared), so it waits on the oldest.
class DeviceLoop {
public:
    struct Streams {
        cudaStream_t counting, uploads;
    };
    /// `live`: null without live counts; `mailbox`: the leader's, null on the other devices.
    DeviceLoop(const DeviceJob& job, BatchState& state, const std::atomic<bool>& stop,
               DeviceCatalogs& catalogs, Variants& variants, const KernelPlan& first,
               std::uint32_t* d_cursors, Streams streams, LiveCopies* live, const PairRates& rates,
               TileMailbox* mailbox)
        : job(job), state(state), stop(stop), catalogs(catalogs), variants(variants), first(first),
          d_cursors(d_cursors), s(streams.counting), u(streams.uploads), live(live),
          mailbox(mailbox), pairRate{rates.first, rates.first / 2}, bruteRateCap(rates.bruteCap) {
        lanes[0] = s;
        lanes[1] = secondLane.get();
        batchStart.record(s);
        // The second lane starts behind everything allocated and set on s so far.
        TPACF_CUDA_TRY(cudaStreamWaitEvent(lanes[1], batchStart.get(), 0));
    }

    /// Counts the device's chunks; false when it stopped early (`stop` raised).
    bool run(const std::function<void(const char*)>& mark);
    /// The batch's start on the device (recorded on the stream before anything of the batch).
    const Event& start() const { return batchStart; }
    BusyTime& busy() { return busyTime; }
    /// The counting stream waits for the second lane, so that what is freed on it after this
    /// loop (every buffer of the batch) outlives the second lane's launches, on every path out.
    /// (A raw event: a destructor must not throw, as the Event wrapper would.)
    ~DeviceLoop() {
        cudaEvent_t drained = nullptr;
        const bool ordered =
            cudaEventCreateWithFlags(&drained, cudaEventDisableTiming) == cudaSuccess &&
            cudaEventRecord(drained, lanes[1]) == cudaSuccess &&
            cudaStreamWaitEvent(s, drained, 0) == cudaSuccess;
        if (!ordered) {
            cudaGetLastError();
            cudaStreamSynchronize(lanes[1]); // the host waits for the second lane instead
        }
        if (drained != nullptr)
            cudaEventDestroy(drained);
    }
    DeviceLoop(const DeviceLoop&) = delete;
    DeviceLoop& operator=(const DeviceLoop&) = delete;
    /// Launches retired, their kernels' seconds, the catalogs' seconds, host seconds waiting
    /// for lists (DeviceResult).
    void account(DeviceResult& result) const {
        result.launches = launches;
        result.kernelSeconds = kernelSeconds;
        result.catalogSeconds = catalogSeconds;
        result.listWaitSeconds = listWaitSeconds;
    }

private:
    Stream secondLane; // declared first: it outlives the slot buffers freed on it
    const DeviceJob& job;
    BatchState& state;
    const std::atomic<bool>& stop;
    DeviceCatalogs& catalogs;
    Variants& variants;
    const KernelPlan& first;
    std::uint32_t* d_cursors;
    cudaStream_t s, u;
    cudaStream_t lanes[kLanes];
    // Catalogs whose preparation (on s, lane 0) each lane's launches are ordered after.
    std::size_t laneCatalogs[kLanes] = {0, 0};
    // When the launch retired last ended (ms from batchStart): a launch that started while
    // the one before it drained counts its time from there.
    float previousEnd = 0;
    LiveCopies* live;
    TileMailbox* mailbox;
    double pairRate[2];
    double bruteRateCap;
    Event batchStart;
    BusyTime busyTime;
    std::size_t launches = 0;
    double kernelSeconds = 0, catalogSeconds = 0, listWaitSeconds = 0;

    // What the device's stream holds, oldest first: a launch (in a slot) or a prepared catalog
    // (its index) whose boxes the leader hands on.
    struct Pending {
        bool launch;
        int slot, variant;
        BatchState::Chunk chunk;
        std::size_t catalog;
    };
    std::deque<Pending> pending;
    int launchesInFlight = 0, nextSlot = 0;
    Event launchStart[kSlots], launchEnd[kSlots];
    DeviceBuffer<WorkUnit> slotUnits[kSlots];
    std::deque<Event> catalogStart, catalogPrepared; // per catalog issued

    BatchState::Take launchNext();
    // Orders `lane` after the preparation of the catalogs the chunk's stage needs.
    void awaitCatalogs(int lane, const BatchState::Chunk& chunk);
    void issueCatalog();
    // Handles the pending items that are done, oldest first; with `wait`, waits for the oldest.
    void retire(bool wait);
};

// Takes the next chunk from the stages this device has prepared and launches it.
BatchState::Take DeviceLoop::launchNext() {
    const std::size_t usable = job.stages->usableWith(catalogs.issued());
    // The budget of the variant the next unit needs (the chunk stays within one variant).
    const int nextVariant = state.nextVariant(usable);
    const auto budget = static_cast<std::uint64_t>(
        std::min(pairRate[nextVariant] * kChunkSeconds, bruteRateCap * kChunkMaxSeconds));
    const auto grid = static_cast<std::size_t>(
        (variants.plans[nextVariant] ? *variants.plans[nextVariant] : first).gridSize);
    BatchState::Chunk chunk;
    const BatchState::Take taken = state.take(budget, grid, stop, usable, chunk);
    if (taken != BatchState::Take::Chunk)
        return taken;
    const Schedule& schedule = *chunk.schedule;
    const bool weightedBatch = !job.taskWeighted.empty();
    const int variant =
        weightedBatch && job.taskWeighted[schedule.units[chunk.begin].task] != 0 ? 1 : 0;
    const KernelPlan* plan = variants.plans[variant];
    if (plan == nullptr)
        throw CudaError("CUDA backend: no kernel plan for a chunk of the batch", 0);
    PairKernelArgs& args = variants.args[variant];
    const int slot = nextSlot;
    nextSlot = (nextSlot + 1) % kSlots;
    const int lane = slot % kLanes;
    const cudaStream_t ls = lanes[lane];
    awaitCatalogs(lane, chunk);
    // Each launch copies its units into its slot's buffer (grown when a chunk needs more): a
    // device takes only its chunks, and the stages' lists arrive one by one.
    const std::size_t units = chunk.end - chunk.begin;
    if (slotUnits[slot].size() < units)
        slotUnits[slot] = DeviceBuffer<WorkUnit>(std::max(units, 2 * slotUnits[slot].size()), ls);
    TPACF_CUDA_TRY(cudaMemcpyAsync(slotUnits[slot].get(), schedule.units.data() + chunk.begin,
                                   units * sizeof(WorkUnit), cudaMemcpyHostToDevice, ls));
    TPACF_CUDA_TRY(cudaMemsetAsync(d_cursors + slot, 0, sizeof(std::uint32_t), ls));
    args.d_units = slotUnits[slot].get();
    args.unitBegin = 0;
    args.unitEnd = static_cast<std::uint32_t>(units);
    args.d_unitCursor = d_cursors + slot;
    if (variant == 0)
        args.flushEveryUnits = plainFlushEvery(*plan, schedule.tilesPerUnit, args.tileSize);
    const int blocks = static_cast<int>(std::min<std::size_t>(plan->gridSize, units));
    launchStart[slot].record(ls);
    launchPairKernel(*plan, args, blocks, ls);
    launchEnd[slot].record(ls);
    pending.push_back({true, slot, variant, chunk, 0});
    ++launchesInFlight;
    if (live)
        live->launched(schedule, chunk.begin, chunk.end, ls, lanes[1 - lane]);
    return taken;
}

void DeviceLoop::awaitCatalogs(int lane, const BatchState::Chunk& chunk) {
    if (lane == 0) // the preparations are enqueued on this lane itself
        return;
    const std::size_t task = chunk.schedule->units[chunk.begin].task;
    const std::size_t needed = job.stages->lastCatalog[job.stages->taskStage[task]] + 1;
    if (laneCatalogs[lane] >= needed)
        return;
    TPACF_CUDA_TRY(cudaStreamWaitEvent(lanes[lane], catalogPrepared[needed - 1].get(), 0));
    laneCatalogs[lane] = needed;
}

void DeviceLoop::issueCatalog() {
    const std::size_t c = catalogs.issued();
    catalogStart.emplace_back().record(u);
    catalogs.issueNext();
    catalogPrepared.emplace_back().record(s);
    if (mailbox)
        pending.push_back({false, 0, 0, {}, c});
}

void DeviceLoop::retire(bool wait) {
    while (!pending.empty()) {
        const Pending done = pending.front();
        Event& event = done.launch ? launchEnd[done.slot] : catalogPrepared[done.catalog];
        if (wait)
            event.synchronize();
        else if (!event.done())
            return;
        wait = false;
        pending.pop_front();
        if (!done.launch) {
            mailbox->post(done.catalog, catalogs.tileSummary(done.catalog));
            continue;
        }
        --launchesInFlight;
        const float startMs = launchStart[done.slot].millisecondsSince(batchStart);
        const float endMs = launchEnd[done.slot].millisecondsSince(batchStart);
        busyTime.add(startMs, endMs);
        // Started on its lane while the other's launch drained: its own time is from that end.
        const double seconds = std::max(0.0f, endMs - std::max(startMs, previousEnd)) * 1e-3;
        previousEnd = std::max(previousEnd, endMs);
        ++launches;
        kernelSeconds += seconds;
        const auto& prefix = done.chunk.schedule->workPrefix;
        const double pairs = static_cast<double>(prefix[done.chunk.end] - prefix[done.chunk.begin]);
        double& rate = pairRate[done.variant];
        if (seconds > 0)
            rate = std::clamp(pairs / seconds, rate / 8, rate * 8);
        state.completed(done.chunk);
        if (live)
            live->publish();
    }
}

bool DeviceLoop::run(const std::function<void(const char*)>& mark) {
    bool launchedAny = false;
    for (;;) {
        retire(false);
        // Read before taking: a stage published after it is then never waited for in vain.
        const std::size_t published = state.publishedStages();
        BatchState::Take taken = BatchState::Take::None;
        while (launchesInFlight < kLaunchesInFlight &&
               (taken = launchNext()) == BatchState::Take::Chunk) {
            if (!launchedAny)
                mark("first launch");
            launchedAny = true;
        }
        if (catalogs.issued() < catalogs.size() && !stop.load()) {
            issueCatalog();
            // With nothing in flight, the leader posts the catalog once it is prepared, before
            // the next upload (which holds this thread while it copies from pageable memory):
            // the next list waits for these boxes. Unless a list came while it issued the
            // catalog: then it launches first, and the next retire posts the boxes (on two GPUs
            // the leader's first launch came 7 ms after the other's, behind a catalog's upload
            // and preparation).
            if (mailbox && launchesInFlight == 0 && state.publishedStages() == published)
                retire(true);
            if (catalogs.issued() == catalogs.size())
                mark("catalogs issued");
        } else if (!pending.empty()) {
            retire(true);
        } else if (taken == BatchState::Take::Later) {
            const auto waitStart = std::chrono::steady_clock::now();
            const bool more = state.waitForStages(published, stop);
            listWaitSeconds +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - waitStart).count();
            if (!more)
                break;
        } else {
            break;
        }
    }
    if (stop.load())
        return false;
    // A catalog may have been prepared after the last launch (a stage without units).
    Event uploadsDone;
    uploadsDone.record(u);
    uploadsDone.synchronize();
    if (!catalogPrepared.empty())
        catalogPrepared.back().synchronize();
    for (std::size_t c = 0; c < catalogStart.size(); ++c) {
        busyTime.add(catalogStart[c].millisecondsSince(batchStart),
                     catalogPrepared[c].millisecondsSince(batchStart));
        catalogSeconds += catalogPrepared[c].millisecondsSince(catalogStart[c]) * 1e-3;
    }
    return true;
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
               BatchState& state, const std::atomic<bool>& stop, SharedUploads* shared,
               DeviceResult& result) {
    // First: whatever ends this thread, no other device waits for its reads.
    const SharedUploadsMember member(shared, worker);
    const auto mark = [&](const char* stage) {
        if (job.trace)
            markStage(result, stage, job.start);
    };
    mark("thread");
    const HostBinTables& tables = *job.tables;
    const std::size_t taskCount = job.taskCount;
    DeviceGuard guard(device);
    cudaDeviceProp props{};
    TPACF_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    // Declared before every buffer: the streams outlive the stream-ordered frees.
    Stream stream, uploadStream;
    const cudaStream_t s = stream.get();

    const KernelPlan& first = plans.any();
    const bool isFloat = first.real == RealKind::Float;
    const bool weightedBatch = !job.taskWeighted.empty();
    const auto tileSize = static_cast<std::uint32_t>(first.tileSize);
    DeviceCatalogs catalogs(*job.batch, *job.regionLayouts, tileSize, isFloat, weightedBatch,
                            job.kdGroups, s, uploadStream.get(), shared, worker);
    const DeviceBinTables bins(tables, isFloat, s);
    const std::size_t binCount = tables.thresholdsDouble.size() - 2;
    const std::size_t countsPerTask =
        (job.regionCount > 0 ? 1 + 2 * job.regionCount : 1) * binCount;
    DeviceBuffer<unsigned long long> d_counts(taskCount * countsPerTask, s);
    TPACF_CUDA_TRY(cudaMemsetAsync(d_counts.get(), 0, d_counts.bytes(), s));
    DeviceBuffer<double> d_weighted(weightedBatch ? taskCount * countsPerTask : 0, s);
    if (weightedBatch)
        TPACF_CUDA_TRY(cudaMemsetAsync(d_weighted.get(), 0, d_weighted.bytes(), s));
    DeviceBuffer<std::uint32_t> d_cursors(kSlots, s);

    Variants variants = variantsOf(
        plans, commonArgs(job, catalogs, bins, tables, d_counts.get(), isFloat, tileSize),
        d_weighted.get(), catalogs);
    std::optional<LiveCopies> live;
    if (job.live)
        live.emplace(job, worker, binCount, countsPerTask, d_counts.get(),
                     weightedBatch ? d_weighted.get() : nullptr);
    // The leader (worker 0) hands the tile boxes to the lister: the preparation is deterministic
    // (a stable radix sort of the same keys has one result; box min/max are exact), so every
    // device holds the very same tiles, and one list, built once, serves all; it must be one
    // list anyway, since the devices take its units by index from a shared cursor.
    DeviceLoop loop(job, state, stop, catalogs, variants, first, d_cursors.get(),
                    {s, uploadStream.get()}, live ? &*live : nullptr,
                    startingRates(device, props, isFloat), worker == 0 ? job.mailbox : nullptr);
    if (!loop.run(mark))
        return; // stopped (an error elsewhere, or cancelled)

    mark("launches done");
    result.counts.assign(taskCount * countsPerTask, 0);
    PinnedBuffer<unsigned long long> hostCounts(taskCount * countsPerTask);
    Event copyStart, batchEnd;
    copyStart.record(s);
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
    loop.busy().add(copyStart.millisecondsSince(loop.start()),
                    batchEnd.millisecondsSince(loop.start()));
    result.busySeconds = loop.busy().seconds();
    loop.account(result);
    mark("end");
}

} // namespace tpacf::cuda::detail
