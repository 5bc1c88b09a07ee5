// Host side of the CUDA backend: the batched schedule over all tasks and all devices, with
// progress and cancellation on the caller's thread.
//
// countBatch prepares every distinct catalog once per device (Morton sort, hi/lo split, tile
// boxes), lists the work of all tasks as WorkUnits in one array, and lets one host thread per
// device take chunks of ~30 ms of work from a shared cursor (so faster devices take more). Each
// chunk is one launch of the persistent pair kernel; two launches stay queued so the GPU never
// waits for the host, and the host waits on blocking-sync events (no spinning).
//
// Spatial culling (issue "Spatial culling", docs/gpu-kernel-notes.md): with culling on, the work
// list is built after the preparation, from the tile boxes: the tiles are the cells, and
// listCellPairs (core/culling.h) lists only the tile pairs within reach of the bins. With it
// off, the list is dense (every tile pair) and the kernel computes every pair (brute force).
//
// countBatchByRegion (jackknife) is the same batch over region layouts: every catalog sorted by
// region and padded so that every tile holds one region, and (1 + 2K) rows of counters per task
// (total, touching[K], within[K]); docs/gpu-kernel-notes.md.
#include "cuda_pair_counter.h"

#include "bin_tables.h"
#include "cuda_check.h"
#include "pair_kernels.h"
#include "tpacf/culling.h"
#include "tpacf/errors.h"
#include "tpacf/jackknife.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace tpacf::cuda::detail {
namespace {

constexpr double kChunkSeconds = 0.03;    // target device time of one launch
constexpr double kChunkMaxSeconds = 0.05; // ... and the most a chunk may take at full brute force
constexpr auto kProgressInterval = std::chrono::milliseconds(100);
constexpr int kLaunchesInFlight = 2;
/// Culling with bins up to this θ_max: blocks of kSmallTileBlock threads (smaller tiles).
constexpr double kSmallTileThetaMaxDegrees = 20.0;
constexpr int kSmallTileBlock = 64;

/// Debug and benchmark knobs, read per call: TPACF_CUDA_HIST=thread|thread-atomic|warp|global
/// forces the histogram mode, TPACF_CUDA_BRUTE_FORCE=1 forces CullingMode::Off (dense list, no
/// tile classification: every pair computed) whatever setCulling says,
/// TPACF_CUDA_BLOCK=N caps the block size, TPACF_CUDA_SUBTILES=0 turns off the sub-tile culling
/// inside tile pairs (culling on only), TPACF_CUDA_REGION_LEVEL=L sets the coarse cells of
/// the region layout (2^L per axis; 0, the default: grouped by region alone).
struct Knobs {
    std::optional<HistMode> hist;
    bool bruteForce = false;
    int blockCap = 0;
    int regionCellLevel = 0;
    bool cullSubTiles = true;
};

Knobs readKnobs() {
    Knobs knobs;
    if (const char* hist = std::getenv("TPACF_CUDA_HIST")) {
        const std::string_view value(hist);
        if (value == "thread")
            knobs.hist = HistMode::PerThread;
        else if (value == "thread-atomic")
            knobs.hist = HistMode::PerThreadAtomic;
        else if (value == "warp")
            knobs.hist = HistMode::PerWarp;
        else if (value == "global")
            knobs.hist = HistMode::Global;
    }
    if (const char* brute = std::getenv("TPACF_CUDA_BRUTE_FORCE"))
        knobs.bruteForce = std::string_view(brute) == "1";
    if (const char* block = std::getenv("TPACF_CUDA_BLOCK"))
        knobs.blockCap = std::atoi(block);
    if (const char* sub = std::getenv("TPACF_CUDA_SUBTILES"))
        knobs.cullSubTiles = std::string_view(sub) != "0";
    if (const char* level = std::getenv("TPACF_CUDA_REGION_LEVEL"))
        knobs.regionCellLevel = std::clamp(std::atoi(level), 0, 5);
    return knobs;
}

/// fn(i) for every i in [0, count), spread over the host's cores (the calling thread helps);
/// the first exception is rethrown once all are done.
template <class Fn> void parallelFor(std::size_t count, const Fn& fn) {
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(count);
    auto work = [&] {
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                fn(i);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    const std::size_t helpers =
        std::min<std::size_t>(count, std::max(1u, std::thread::hardware_concurrency())) - 1;
    std::vector<std::thread> pool;
    for (std::size_t h = 0; h < helpers; ++h) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {
            break; // fewer helpers; this thread does the rest
        }
    }
    work();
    for (std::thread& thread : pool)
        thread.join();
    for (const std::exception_ptr& error : errors)
        if (error)
            std::rethrow_exception(error);
}

/// Real points of every tile of a catalog: plain layout, full tiles and a ragged last one.
std::vector<std::uint32_t> plainTileCounts(std::uint64_t size, std::uint32_t tileSize) {
    std::vector<std::uint32_t> counts;
    for (std::uint64_t begin = 0; begin < size; begin += tileSize)
        counts.push_back(
            static_cast<std::uint32_t>(std::min<std::uint64_t>(tileSize, size - begin)));
    return counts;
}

/// Region layout of one catalog (jackknife): points grouped by region, every group padded to
/// whole tiles, so that every tile holds the points of one region only and a whole tile pair has
/// one region pair. Costs at most one partly filled tile per group. With cellLevel > 0 the
/// groups are (coarse cell, region), a 2^level grid per axis over the unit cube in Morton order,
/// meant to keep tiles from joining distant stretches of the Morton curve inside a region;
/// measured slower (more padding than it saves, BENCHMARKS.md), so level 0 is the default.
struct RegionLayout {
    std::vector<std::uint32_t> tileRegion; ///< region of each tile
    std::vector<std::uint32_t>
        tileSortedStart;                  ///< index, in group-sorted order, of its first point
    std::vector<std::uint32_t> tileCount; ///< real points of each tile
    std::uint32_t groupCount = 0;
};

/// Coarse cell of a unit vector: 2^level per axis, bits interleaved (Morton order).
std::uint32_t coarseCell(double x, double y, double z, int level) {
    const double side = static_cast<double>(1 << level);
    auto quantise = [&](double v) {
        return static_cast<std::uint32_t>(std::clamp((v + 1.0) * 0.5 * side, 0.0, side - 1.0));
    };
    const std::uint32_t q[3] = {quantise(x), quantise(y), quantise(z)};
    std::uint32_t cell = 0;
    for (int bit = level - 1; bit >= 0; --bit)
        for (int axis = 0; axis < 3; ++axis)
            cell = (cell << 1) | ((q[axis] >> bit) & 1u);
    return cell;
}

/// Validates the regions (ConfigError naming the catalog and row) and lays the catalog out;
/// groupOfPoint (size() entries) receives each point's group, the key the device sorts by.
RegionLayout buildRegionLayout(const Catalog& catalog, std::size_t regionCount,
                               std::uint32_t tileSize, int cellLevel, std::int32_t* groupOfPoint) {
    const auto regions = catalog.region();
    if (regions.size() != catalog.size())
        throw ConfigError("CUDA backend: catalog '" + catalog.name() +
                          "' has no jackknife regions");
    // Dense (cell, region) ids stay below 2^22; coarser cells where K is large.
    while (cellLevel > 0 && (regionCount << (3 * cellLevel)) > (std::size_t{1} << 22))
        --cellLevel;
    const std::size_t cells = std::size_t{1} << (3 * cellLevel);
    std::vector<std::uint32_t> perGroup(cells * regionCount, 0);
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const std::int32_t r = regions[i];
        if (r < 0 || static_cast<std::size_t>(r) >= regionCount)
            throw ConfigError("CUDA backend: catalog '" + catalog.name() + "' row " +
                              std::to_string(i + 1) + " has region " + std::to_string(r) +
                              ", outside [0, " + std::to_string(regionCount) + ")");
        const std::size_t cell =
            cellLevel > 0 ? coarseCell(catalog.x()[i], catalog.y()[i], catalog.z()[i], cellLevel)
                          : 0;
        const std::size_t group = cell * regionCount + static_cast<std::size_t>(r);
        groupOfPoint[i] = static_cast<std::int32_t>(group);
        ++perGroup[group];
    }
    RegionLayout layout;
    std::vector<std::int32_t> rank(perGroup.size(), -1);
    std::uint32_t sortedStart = 0;
    for (std::size_t group = 0; group < perGroup.size(); ++group) {
        if (perGroup[group] == 0)
            continue;
        rank[group] = static_cast<std::int32_t>(layout.groupCount++);
        for (std::uint32_t done = 0; done < perGroup[group]; done += tileSize) {
            layout.tileRegion.push_back(static_cast<std::uint32_t>(group % regionCount));
            layout.tileSortedStart.push_back(sortedStart + done);
            layout.tileCount.push_back(std::min(tileSize, perGroup[group] - done));
        }
        sortedStart += perGroup[group];
    }
    for (std::size_t i = 0; i < regions.size(); ++i)
        groupOfPoint[i] = rank[static_cast<std::size_t>(groupOfPoint[i])];
    return layout;
}

/// The whole batch as work units, plus what progress needs.
struct Schedule {
    std::uint64_t tilesPerUnit = 0;
    std::vector<WorkUnit> units;
    /// Pairs of the tile pairs units [0, i) list: the work, an upper bound on what the kernel
    /// computes (chunk sizes and the measured rate use it).
    std::vector<std::uint64_t> workPrefix;
    /// The same plus the pairs culling dropped, spread over each task's units in proportion to
    /// their work, so that progress reaches every task's pairTotal when its last unit is done.
    std::vector<std::uint64_t> progressPrefix;
    std::vector<std::pair<std::size_t, std::size_t>> taskUnits; // [begin, end) per task
};

/// Tile runs of every tile pair of a task (culling off): row a against every j-tile, only the
/// upper triangle (b >= a, the diagonal tile included) for auto tasks.
std::vector<CellPairRun> denseRuns(bool isAuto, std::size_t tilesA, std::size_t tilesB) {
    std::vector<CellPairRun> runs;
    runs.reserve(tilesA);
    for (std::size_t a = 0; a < tilesA; ++a) {
        const std::size_t from = isAuto ? a : 0;
        if (from < tilesB)
            runs.push_back(CellPairRun{static_cast<std::uint32_t>(a),
                                       static_cast<std::uint32_t>(from),
                                       static_cast<std::uint32_t>(tilesB)});
    }
    return runs;
}

/// Tile runs from the runs of a list built over cells of `cellTiles` consecutive tiles: every
/// tile of cell a against the tiles of cells [bBegin, bEnd) (for auto, from the tile itself on),
/// sorted by tile, then b. A cell pair out of reach has every tile pair out of reach (the cell
/// box holds the tile boxes); the kernel's classification drops the rest one by one.
std::vector<CellPairRun> tileRuns(const std::vector<CellPairRun>& cellRuns, std::uint32_t cellTiles,
                                  std::uint32_t tilesA, std::uint32_t tilesB, bool isAuto) {
    if (cellTiles == 1)
        return cellRuns;
    std::vector<CellPairRun> runs;
    for (std::size_t r = 0; r < cellRuns.size();) {
        std::size_t rowEnd = r;
        while (rowEnd < cellRuns.size() && cellRuns[rowEnd].a == cellRuns[r].a)
            ++rowEnd;
        const std::uint32_t aBegin = cellRuns[r].a * cellTiles;
        const std::uint32_t aEnd = std::min(aBegin + cellTiles, tilesA);
        for (std::uint32_t a = aBegin; a < aEnd; ++a) {
            for (std::size_t k = r; k < rowEnd; ++k) {
                std::uint32_t b0 = cellRuns[k].bBegin * cellTiles;
                const std::uint32_t b1 = std::min(cellRuns[k].bEnd * cellTiles, tilesB);
                if (isAuto)
                    b0 = std::max(b0, a);
                if (b0 < b1)
                    runs.push_back(CellPairRun{a, b0, b1, cellRuns[k].kind});
            }
        }
        r = rowEnd;
    }
    return runs;
}

/// Work units from each task's tile runs (sorted by a, then b; from denseRuns or listCellPairs):
/// runs of one i-tile that touch are joined (their classes only matter to the list builder; the
/// kernel classifies each tile pair again), then cut into units of at most tilesPerUnit j-tiles.
Schedule buildSchedule(std::span<const CountTask> tasks, const std::vector<std::uint32_t>& taskCatA,
                       const std::vector<std::uint32_t>& taskCatB,
                       const std::vector<std::vector<std::uint32_t>>& catTileCounts,
                       const std::vector<std::vector<CellPairRun>>& taskRuns,
                       std::uint32_t tileSize) {
    Schedule schedule;
    schedule.workPrefix.push_back(0);
    schedule.progressPrefix.push_back(0);
    std::uint64_t tilePairs = 0;
    for (const auto& runs : taskRuns)
        tilePairs += cellPairCount(runs);
    schedule.tilesPerUnit = std::max<std::uint64_t>(
        unitTiles(tileSize), (tilePairs + kMaxWorkUnits - 1) / kMaxWorkUnits);
    const std::uint64_t step = schedule.tilesPerUnit;

    // Points of tiles [0, i) per catalog: the pairs of a unit in O(1).
    std::vector<std::vector<std::uint64_t>> catPrefix(catTileCounts.size());
    for (std::size_t c = 0; c < catTileCounts.size(); ++c) {
        catPrefix[c].assign(catTileCounts[c].size() + 1, 0);
        for (std::size_t i = 0; i < catTileCounts[c].size(); ++i)
            catPrefix[c][i + 1] = catPrefix[c][i] + catTileCounts[c][i];
    }

    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const std::size_t begin = schedule.units.size();
        const bool isAuto = tasks[t].isAuto();
        const std::vector<std::uint32_t>& countsA = catTileCounts[taskCatA[t]];
        const std::vector<std::uint64_t>& prefixB = catPrefix[taskCatB[t]];
        auto addRow = [&](std::uint32_t a, std::uint32_t bBegin, std::uint32_t bEnd) {
            const std::uint64_t countA = countsA[a];
            for (std::uint64_t b0 = bBegin; b0 < bEnd; b0 += step) {
                const std::uint64_t b1 = std::min<std::uint64_t>(b0 + step, bEnd);
                std::uint64_t pairs = countA * (prefixB[b1] - prefixB[b0]);
                if (isAuto && a >= b0 && a < b1) // the diagonal tile: i < j only
                    pairs -= countA * countA - countA * (countA - 1) / 2;
                if (pairs == 0)
                    continue;
                schedule.units.push_back(WorkUnit{static_cast<std::uint32_t>(t), taskCatA[t],
                                                  taskCatB[t], a, static_cast<std::uint32_t>(b0),
                                                  static_cast<std::uint32_t>(b1), isAuto ? 1u : 0u,
                                                  0u});
                schedule.workPrefix.push_back(schedule.workPrefix.back() + pairs);
            }
        };
        const std::vector<CellPairRun>& runs = taskRuns[t];
        for (std::size_t r = 0; r < runs.size();) {
            const std::uint32_t a = runs[r].a;
            const std::uint32_t bBegin = runs[r].bBegin;
            std::uint32_t bEnd = runs[r].bEnd;
            for (++r; r < runs.size() && runs[r].a == a && runs[r].bBegin == bEnd; ++r)
                bEnd = runs[r].bEnd;
            addRow(a, bBegin, bEnd);
        }
        const std::size_t end = schedule.units.size();
        schedule.taskUnits.emplace_back(begin, end);

        const std::uint64_t total = tasks[t].pairTotal();
        const std::uint64_t base = schedule.progressPrefix.back();
        const std::uint64_t listed = schedule.workPrefix[end] - schedule.workPrefix[begin];
        const double scale =
            listed > 0 ? static_cast<double>(total) / static_cast<double>(listed) : 0.0;
        for (std::size_t u = begin; u < end; ++u) {
            const std::uint64_t work = schedule.workPrefix[u + 1] - schedule.workPrefix[begin];
            const std::uint64_t done =
                u + 1 == end
                    ? total
                    : std::min(total,
                               static_cast<std::uint64_t>(static_cast<double>(work) * scale));
            schedule.progressPrefix.push_back(
                std::max(schedule.progressPrefix.back(), base + done));
        }
    }
    return schedule;
}

/// State shared by the device threads and the caller for one countBatch.
struct BatchState {
    std::mutex mutex;
    std::condition_variable wake;
    std::unique_ptr<const Schedule> schedule; // null until published (culling: after preparation)
    std::size_t nextUnit = 0;
    std::vector<std::atomic<std::uint64_t>> pairsDonePerTask;
    std::vector<std::uint64_t> taskTotals;
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    int running = 0;

    explicit BatchState(std::span<const CountTask> tasks) : pairsDonePerTask(tasks.size()) {
        for (const CountTask& task : tasks)
            taskTotals.push_back(task.pairTotal());
    }

    /// Makes the work list visible to every device thread. Tasks that culling dropped whole
    /// (no unit) are done at once.
    void publish(Schedule built) {
        {
            std::lock_guard lock(mutex);
            schedule = std::make_unique<const Schedule>(std::move(built));
            for (std::size_t t = 0; t < schedule->taskUnits.size(); ++t)
                if (schedule->taskUnits[t].first == schedule->taskUnits[t].second)
                    pairsDonePerTask[t].store(taskTotals[t], std::memory_order_relaxed);
        }
        wake.notify_all();
    }

    /// The published schedule, or null once the batch stops (error or cancel) first. Polls the
    /// stop flag, which is set without the lock in places, so no wake-up can be lost.
    const Schedule* waitForSchedule() {
        std::unique_lock lock(mutex);
        while (!schedule && !stop.load())
            wake.wait_for(lock, std::chrono::milliseconds(20));
        return stop.load() ? nullptr : schedule.get();
    }

    /// The next chunk of about `pairBudget` pairs of work (at least `minUnits` units), or false
    /// when done.
    bool take(std::uint64_t pairBudget, std::size_t minUnits, std::size_t& begin,
              std::size_t& end) {
        std::lock_guard lock(mutex);
        const std::size_t total = schedule->units.size();
        if (nextUnit >= total || stop.load())
            return false;
        begin = nextUnit;
        const auto& prefix = schedule->workPrefix;
        const std::uint64_t target = prefix[begin] + pairBudget;
        const auto it = std::upper_bound(prefix.begin() + static_cast<std::ptrdiff_t>(begin) + 1,
                                         prefix.end(), target);
        end = static_cast<std::size_t>(it - prefix.begin()) - 1;
        end = std::max(end, std::min(total, begin + minUnits));
        end = std::clamp<std::size_t>(end, begin + 1, total);
        nextUnit = end;
        return true;
    }

    void completed(std::size_t begin, std::size_t end) {
        const auto& prefix = schedule->progressPrefix;
        for (std::size_t t = 0; t < schedule->taskUnits.size(); ++t) {
            const auto [taskBegin, taskEnd] = schedule->taskUnits[t];
            const std::size_t lo = std::max(begin, taskBegin), hi = std::min(end, taskEnd);
            if (lo < hi)
                pairsDonePerTask[t].fetch_add(prefix[hi] - prefix[lo], std::memory_order_relaxed);
        }
        wake.notify_all();
    }

    void fail(std::exception_ptr e) {
        {
            std::lock_guard lock(mutex);
            if (!error)
                error = e;
        }
        stop = true;
        wake.notify_all();
    }
};

/// What every device thread of one batch needs; the same for all devices.
struct DeviceJob {
    const HostBinTables* tables = nullptr;
    const std::vector<const Catalog*>* catalogs = nullptr;
    const std::vector<std::size_t>* stagingOffsets = nullptr;
    const std::vector<RegionLayout>* regionLayouts = nullptr;
    std::size_t regionCount = 0;
    std::size_t taskCount = 0;
    bool culled = false;
    bool cullSubTiles = true; ///< TPACF_CUDA_SUBTILES=0 turns it off (benchmarks)
    /// Culling: the leader (first device) downloads every catalog's tile boxes after the
    /// preparation and turns them into the schedule with this; the others wait for it.
    std::function<Schedule(const std::vector<std::vector<CellBounds>>&)> scheduleFromBoxes;
};

class CudaPairCounter final : public PairCounter {
public:
    CudaPairCounter(Precision precision, std::vector<int> devices, std::string description)
        : m_precision(precision), m_devices(std::move(devices)),
          m_description(std::move(description)) {
        // Create the contexts now, so the first countBatch does not pay for it.
        for (int device : m_devices) {
            DeviceGuard guard(device);
            TPACF_CUDA_TRY(cudaFree(nullptr));
        }
    }

    std::string backendName() const override { return "cuda"; }
    std::string deviceDescription() const override { return m_description; }
    Precision precision() const override { return m_precision; }
    std::optional<double> lastDeviceSeconds() const override { return m_lastDeviceSeconds; }

    std::vector<PairCounts> countBatch(std::span<const CountTask> tasks, const Binning& binning,
                                       const CountControl& control) override {
        return runBatch(tasks, binning, 0, control);
    }

    bool supportsRegions() const override { return true; }
    std::vector<RegionPairCounts> countBatchByRegion(std::span<const CountTask> tasks,
                                                     const Binning& binning,
                                                     std::size_t regionCount,
                                                     const CountControl& control) override;

private:
    struct DeviceResult {
        std::vector<unsigned long long> counts;
        double busySeconds = 0;
    };

    /// Both entry points: regionCount 0 counts plainly (binCount counters per task), K > 0 by
    /// region ((1 + 2K) · binCount per task: total, touching[K], within[K]).
    std::vector<PairCounts> runBatch(std::span<const CountTask> tasks, const Binning& binning,
                                     std::size_t regionCount, const CountControl& control);

    /// One device's share: prepare the catalogs, (leader, culling) build the schedule from the
    /// tile boxes, then take chunks of units until none are left.
    void runDevice(int device, const KernelPlan& plan, const DeviceJob& job, bool leader,
                   BatchState& state, DeviceResult& result);

    Precision m_precision;
    std::vector<int> m_devices;
    std::string m_description;
    std::optional<double> m_lastDeviceSeconds;
    PinnedBuffer<double>
        m_staging; // x, y, z of every catalog of the batch; grows, kept between calls
    PinnedBuffer<std::int32_t> m_regionStaging; // layout group of every point (region batches)
};

std::vector<RegionPairCounts> CudaPairCounter::countBatchByRegion(std::span<const CountTask> tasks,
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
    std::vector<PairCounts> raw = runBatch(tasks, binning, regionCount, control);
    const std::size_t binCount = binning.count();
    const std::size_t rowBins = regionCount * binCount;
    std::vector<RegionPairCounts> results(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        RegionPairCounts& r = results[t];
        r.regionCount = regionCount;
        r.binCount = binCount;
        const auto begin = raw[t].begin();
        r.total.assign(begin, begin + static_cast<std::ptrdiff_t>(binCount));
        r.touching.assign(begin + static_cast<std::ptrdiff_t>(binCount),
                          begin + static_cast<std::ptrdiff_t>(binCount + rowBins));
        r.within.assign(begin + static_cast<std::ptrdiff_t>(binCount + rowBins), raw[t].end());
    }
    return results;
}

std::vector<PairCounts> CudaPairCounter::runBatch(std::span<const CountTask> tasks,
                                                  const Binning& binning, std::size_t regionCount,
                                                  const CountControl& control) {
    m_lastDeviceSeconds.reset();
    const std::size_t binCount = binning.count();
    const std::size_t countsPerTask = (regionCount > 0 ? 1 + 2 * regionCount : 1) * binCount;
    std::vector<PairCounts> results(tasks.size(), PairCounts(countsPerTask, 0));
    const Knobs knobs = readKnobs();

    // Distinct catalogs, each uploaded and prepared once.
    std::vector<const Catalog*> catalogs;
    std::unordered_map<const Catalog*, std::uint32_t> catalogIndex;
    std::vector<std::uint32_t> taskCatA, taskCatB;
    auto indexOf = [&](const Catalog* catalog) {
        const auto [it, inserted] =
            catalogIndex.emplace(catalog, static_cast<std::uint32_t>(catalogs.size()));
        if (inserted)
            catalogs.push_back(catalog);
        return it->second;
    };
    std::uint64_t pairsTotal = 0;
    for (const CountTask& task : tasks) {
        if (task.first == nullptr)
            throw ConfigError("CUDA backend: a count task has no catalog");
        taskCatA.push_back(indexOf(task.first));
        taskCatB.push_back(task.isAuto() ? taskCatA.back() : indexOf(task.second));
        pairsTotal += task.pairTotal();
    }
    std::size_t stagingSize = 0;
    std::vector<std::size_t> stagingOffsets;
    for (const Catalog* catalog : catalogs) {
        if (catalog->size() > std::numeric_limits<std::int32_t>::max() / 2)
            throw ConfigError("CUDA backend: catalog '" + catalog->name() +
                              "' has more than 2^30 points");
        stagingOffsets.push_back(stagingSize);
        stagingSize += 3 * catalog->size();
    }
    // Culling on: the list holds only the tile pairs within reach of the bins (built from the
    // tile boxes after the preparation) and the kernel classifies each tile pair (skip, one bin,
    // hi parts only). Off: every tile pair, every pair computed (brute force).
    const double thetaMaxDegrees = binning.maxDegrees();
    const bool culled = !knobs.bruteForce && chooseCulling(culling(), thetaMaxDegrees, pairsTotal);
    setLastBatchCulled(culled);
    if (pairsTotal == 0) {
        for (const Catalog* catalog : catalogs) { // still report bad regions (any tile size)
            std::vector<std::int32_t> groups(catalog->size());
            if (regionCount > 0)
                buildRegionLayout(*catalog, regionCount, 1024, 0, groups.data());
        }
        m_lastDeviceSeconds = 0.0;
        return results;
    }

    const RealKind real = m_precision == Precision::Float ? RealKind::Float : RealKind::Double;
    HostBinTables tables = buildBinTables(binning, real);
    const auto lookupSize = static_cast<std::uint32_t>(tables.lookup.size());

    // One tile size for all devices: the smallest block any of them wants. Culling at small
    // θ_max: 256-point tiles (64 threads). There most tile pairs straddle θ_max, each warp of a
    // block keeps a different share of its sub-tiles, and a block waits for its busiest warp at
    // every tile; smaller blocks wait less (N = 1e6, 10°, H100: the job DD + 10 DR + 10 RR 0.30 s
    // of GPU time against 0.35 s with 1024-point tiles; BENCHMARKS.md). At large θ_max most
    // pairs are in range and big tiles stay best (not measured at 256 points: not switched).
    std::vector<KernelPlan> plans;
    int blockCap = knobs.blockCap;
    if (blockCap == 0 && culled && thetaMaxDegrees <= kSmallTileThetaMaxDegrees)
        blockCap = kSmallTileBlock;
    for (int pass = 0; pass < 2; ++pass) {
        plans.clear();
        int smallest = std::numeric_limits<int>::max();
        for (int device : m_devices) {
            DeviceGuard guard(device);
            plans.push_back(planPairKernel(real, static_cast<std::uint32_t>(binCount), lookupSize,
                                           tables.singleStep, regionCount > 0, blockCap,
                                           knobs.hist));
            smallest = std::min(smallest, plans.back().blockSize);
        }
        if (std::all_of(plans.begin(), plans.end(),
                        [&](const KernelPlan& p) { return p.blockSize == smallest; }))
            break;
        blockCap = smallest;
    }
    const auto tileSize = static_cast<std::uint32_t>(plans.front().tileSize);
    std::vector<RegionLayout> regionLayouts;
    std::vector<std::vector<std::uint32_t>> catTileCounts;
    if (regionCount > 0 && m_regionStaging.size() < stagingSize / 3)
        m_regionStaging = PinnedBuffer<std::int32_t>(stagingSize / 3);
    for (std::size_t c = 0; c < catalogs.size(); ++c) {
        const Catalog* catalog = catalogs[c];
        if (regionCount > 0) {
            regionLayouts.push_back(
                buildRegionLayout(*catalog, regionCount, tileSize, knobs.regionCellLevel,
                                  m_regionStaging.get() + stagingOffsets[c] / 3));
            catTileCounts.push_back(regionLayouts.back().tileCount);
        } else {
            catTileCounts.push_back(plainTileCounts(catalog->size(), tileSize));
        }
    }

    // Stage every catalog's unit vectors once in pinned memory; all devices copy from it.
    if (m_staging.size() < stagingSize)
        m_staging = PinnedBuffer<double>(stagingSize);
    // In slices over the host's cores: one thread copies ~5-10 GB/s, and a job of 11 catalogs
    // of 1e6 points stages 264 MB.
    constexpr std::size_t kStagingSlice = std::size_t{1} << 18; // doubles
    std::vector<std::pair<const double*, double*>> slices;
    std::vector<std::size_t> sliceSizes;
    for (std::size_t c = 0; c < catalogs.size(); ++c) {
        const Catalog& catalog = *catalogs[c];
        const std::size_t n = catalog.size();
        const std::span<const double> axes[3] = {catalog.x(), catalog.y(), catalog.z()};
        for (int axis = 0; axis < 3; ++axis)
            for (std::size_t begin = 0; begin < n; begin += kStagingSlice) {
                slices.emplace_back(axes[axis].data() + begin,
                                    m_staging.get() + stagingOffsets[c] + axis * n + begin);
                sliceSizes.push_back(std::min(kStagingSlice, n - begin));
            }
    }
    parallelFor(slices.size(), [&](std::size_t i) {
        std::memcpy(slices[i].second, slices[i].first, sliceSizes[i] * sizeof(double));
    });

    BatchState state(tasks);
    DeviceJob job;
    job.tables = &tables;
    job.catalogs = &catalogs;
    job.stagingOffsets = &stagingOffsets;
    job.regionLayouts = &regionLayouts;
    job.regionCount = regionCount;
    job.taskCount = tasks.size();
    job.culled = culled;
    job.cullSubTiles = knobs.cullSubTiles;
    if (culled) {
        // The tiles are the cells. Why the Morton tiles rather than cells of their own (bands,
        // HEALPix): they hold equal numbers of points (4 x blockDim), so every tile pair is the
        // same bounded amount of work whatever the clustering, and the dynamic unit cursor
        // balances the blocks; and consecutive points of the Morton curve are close in R³, so
        // the boxes are compact wherever the points are dense (a fixed grid would give crowded
        // cells in clusters and empty ones elsewhere). The catalogs are sorted once, on the
        // device, as before; only the boxes (tiles x 56 bytes) come back.
        CellPairQuery query;
        const auto chord2Edges = binning.chord2Edges();
        query.chord2Min = chord2Edges.front();
        query.chord2Max = chord2Edges.back();
        // The kernel's margin, far above float rounding: what the list drops, the pair-by-pair
        // count in either precision would not have counted either.
        query.relativeMargin = kTileBoxMargin;
        // Cells of ~1024 points for the list (cellTiles tiles each): the list builder's cost
        // follows the cell pairs it outputs, and small tiles (small θ) would make it a large
        // share of a job's wall time; the kernel's tile classification then drops the tile pairs
        // of a listed cell pair that are out of reach.
        const std::uint32_t cellTiles =
            std::max<std::uint32_t>(1, kMaxPairBlock * kPointsPerThread / tileSize);
        job.scheduleFromBoxes =
            [&, query, cellTiles](const std::vector<std::vector<CellBounds>>& tileBounds) {
                std::vector<std::vector<CellBounds>> cells(tileBounds.size());
                for (std::size_t c = 0; c < tileBounds.size(); ++c) {
                    const std::vector<CellBounds>& tiles = tileBounds[c];
                    for (std::size_t t = 0; t < tiles.size(); t += cellTiles) {
                        CellBounds cell = tiles[t];
                        for (std::size_t u = t + 1; u < std::min(tiles.size(), t + cellTiles); ++u)
                            for (int axis = 0; axis < 3; ++axis) {
                                cell.lo[axis] = std::min(cell.lo[axis], tiles[u].lo[axis]);
                                cell.hi[axis] = std::max(cell.hi[axis], tiles[u].hi[axis]);
                            }
                        cells[c].push_back(cell);
                    }
                }
                // One list per task, the tasks spread over the host's cores: a job's 21 lists of
                // ~1000 cells each take ~0.1 s on one core, a third of its GPU time.
                std::vector<std::vector<CellPairRun>> taskRuns(tasks.size());
                parallelFor(tasks.size(), [&](std::size_t t) {
                    CellPairQuery q = query;
                    q.autoPairs = tasks[t].isAuto();
                    taskRuns[t] = tileRuns(
                        listCellPairs(cells[taskCatA[t]], cells[taskCatB[t]], q), cellTiles,
                        static_cast<std::uint32_t>(tileBounds[taskCatA[t]].size()),
                        static_cast<std::uint32_t>(tileBounds[taskCatB[t]].size()), q.autoPairs);
                });
                return buildSchedule(tasks, taskCatA, taskCatB, catTileCounts, taskRuns, tileSize);
            };
    } else {
        // The dense list needs no boxes: ready before any device starts.
        std::vector<std::vector<CellPairRun>> taskRuns(tasks.size());
        for (std::size_t t = 0; t < tasks.size(); ++t)
            taskRuns[t] = denseRuns(tasks[t].isAuto(), catTileCounts[taskCatA[t]].size(),
                                    catTileCounts[taskCatB[t]].size());
        state.publish(buildSchedule(tasks, taskCatA, taskCatB, catTileCounts, taskRuns, tileSize));
    }

    std::vector<DeviceResult> deviceResults(m_devices.size());
    std::vector<std::thread> threads;
    state.running = static_cast<int>(m_devices.size());
    for (std::size_t d = 0; d < m_devices.size(); ++d) {
        threads.emplace_back([&, d] {
            try {
                runDevice(m_devices[d], plans[d], job, d == 0, state, deviceResults[d]);
            } catch (...) {
                state.fail(std::current_exception());
            }
            std::lock_guard lock(state.mutex);
            --state.running;
            state.wake.notify_all();
        });
    }

    // The caller's thread: progress every ~100 ms, cancellation, until every device is done.
    auto report = [&](bool final) {
        if (!control.onProgress)
            return;
        CountProgress progress;
        progress.pairsTotal = pairsTotal;
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            const std::uint64_t done =
                final ? tasks[t].pairTotal()
                      : state.pairsDonePerTask[t].load(std::memory_order_relaxed);
            progress.pairsDonePerTask.push_back(done);
            progress.pairsDone += done;
        }
        control.onProgress(progress);
    };
    std::exception_ptr callbackError;
    {
        std::unique_lock lock(state.mutex);
        auto nextReport = std::chrono::steady_clock::now() + kProgressInterval;
        while (state.running > 0) {
            state.wake.wait_until(lock, nextReport);
            if (control.cancelled())
                state.stop = true;
            if (std::chrono::steady_clock::now() >= nextReport) {
                lock.unlock();
                try {
                    report(false);
                } catch (...) {
                    if (!callbackError)
                        callbackError = std::current_exception();
                    state.stop = true;
                }
                lock.lock();
                nextReport = std::chrono::steady_clock::now() + kProgressInterval;
            }
        }
    }
    for (std::thread& thread : threads)
        thread.join();
    if (state.error)
        std::rethrow_exception(state.error);
    if (callbackError)
        std::rethrow_exception(callbackError);
    if (control.cancelled() || !state.schedule || state.nextUnit < state.schedule->units.size())
        throw Cancelled();

    double busy = 0;
    for (const DeviceResult& result : deviceResults) {
        busy = std::max(busy, result.busySeconds);
        for (std::size_t t = 0; t < tasks.size(); ++t)
            for (std::size_t k = 0; k < countsPerTask; ++k)
                results[t][k] += result.counts[t * countsPerTask + k];
    }
    m_lastDeviceSeconds = busy;
    report(true);
    return results;
}

void CudaPairCounter::runDevice(int device, const KernelPlan& plan, const DeviceJob& job,
                                bool leader, BatchState& state, DeviceResult& result) {
    const HostBinTables& tables = *job.tables;
    const std::vector<const Catalog*>& catalogs = *job.catalogs;
    const std::vector<std::size_t>& stagingOffsets = *job.stagingOffsets;
    const std::vector<RegionLayout>& regionLayouts = *job.regionLayouts;
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

    const bool isFloat = plan.real == RealKind::Float;
    const std::uint32_t tileSize = static_cast<std::uint32_t>(plan.tileSize);

    // Catalogs: upload, sort, split, box.
    struct DeviceCatalog {
        DeviceBuffer<double> xyz;
        DeviceBuffer<double> sorted; // 4 per point
        DeviceBuffer<float> hi, lo;  // 4 per point
        DeviceBuffer<TileBox> tiles;
        DeviceBuffer<SubBox> subBoxes;
        DeviceBuffer<std::int32_t> regions;                                 // region layout only
        DeviceBuffer<std::uint32_t> tileRegion, tileSortedStart, tileCount; // region layout only
    };
    const bool byRegion = regionCount > 0;
    std::uint32_t groups = 1;
    for (const RegionLayout& layout : regionLayouts)
        groups = std::max(groups, layout.groupCount);
    int regionBits = 1; // bits of the largest group index, above the 30-bit Morton key
    while ((std::uint64_t{1} << regionBits) < groups)
        ++regionBits;
    std::vector<DeviceCatalog> deviceCatalogs(catalogs.size());
    std::vector<CatalogView> views(catalogs.size());
    {
        std::uint32_t largest = 0;
        for (const Catalog* catalog : catalogs)
            largest = std::max(largest, static_cast<std::uint32_t>(catalog->size()));
        DeviceBuffer<std::uint32_t> keys(byRegion ? 0 : largest, s),
            keysSorted(byRegion ? 0 : largest, s), order(largest, s), orderSorted(largest, s);
        DeviceBuffer<std::uint64_t> regionKeys(byRegion ? largest : 0, s),
            regionKeysSorted(byRegion ? largest : 0, s);
        std::size_t tempBytes = 0;
        for (const Catalog* catalog : catalogs)
            if (!catalog->empty()) {
                const auto n = static_cast<std::uint32_t>(catalog->size());
                tempBytes = std::max(tempBytes, byRegion ? regionSortTempBytes(n, regionBits)
                                                         : sortTempBytes(n));
            }
        DeviceBuffer<unsigned char> sortTemp(tempBytes, s);
        for (std::size_t c = 0; c < catalogs.size(); ++c) {
            const auto n = static_cast<std::uint32_t>(catalogs[c]->size());
            if (n == 0)
                continue;
            const std::uint32_t tiles =
                byRegion ? static_cast<std::uint32_t>(regionLayouts[c].tileCount.size())
                         : (n + tileSize - 1) / tileSize;
            const std::uint32_t padded = tiles * tileSize;
            DeviceCatalog& dc = deviceCatalogs[c];
            dc.xyz = DeviceBuffer<double>(3 * static_cast<std::size_t>(n), s);
            TPACF_CUDA_TRY(cudaMemcpyAsync(dc.xyz.get(), m_staging.get() + stagingOffsets[c],
                                           dc.xyz.bytes(), cudaMemcpyHostToDevice, s));
            dc.sorted = DeviceBuffer<double>(4 * static_cast<std::size_t>(padded), s);
            if (isFloat) {
                dc.hi = DeviceBuffer<float>(4 * static_cast<std::size_t>(padded), s);
                dc.lo = DeviceBuffer<float>(4 * static_cast<std::size_t>(padded), s);
            }
            dc.tiles = DeviceBuffer<TileBox>(tiles, s);
            dc.subBoxes = DeviceBuffer<SubBox>(padded / kSubTileSize, s);
            PrepareBuffers prep{dc.xyz.get(),
                                dc.xyz.get() + n,
                                dc.xyz.get() + 2 * static_cast<std::size_t>(n),
                                n,
                                padded,
                                tileSize,
                                keys.get(),
                                keysSorted.get(),
                                order.get(),
                                orderSorted.get(),
                                sortTemp.get(),
                                tempBytes,
                                dc.sorted.get(),
                                dc.hi.get(),
                                dc.lo.get(),
                                dc.tiles.get(),
                                dc.subBoxes.get()};
            if (byRegion) {
                const RegionLayout& layout = regionLayouts[c];
                auto upload = [&](DeviceBuffer<std::uint32_t>& buffer,
                                  const std::vector<std::uint32_t>& values) {
                    buffer = DeviceBuffer<std::uint32_t>(values.size(), s);
                    TPACF_CUDA_TRY(cudaMemcpyAsync(buffer.get(), values.data(), buffer.bytes(),
                                                   cudaMemcpyHostToDevice, s));
                };
                dc.regions = DeviceBuffer<std::int32_t>(n, s);
                TPACF_CUDA_TRY(cudaMemcpyAsync(dc.regions.get(),
                                               m_regionStaging.get() + stagingOffsets[c] / 3,
                                               dc.regions.bytes(), cudaMemcpyHostToDevice, s));
                upload(dc.tileRegion, layout.tileRegion);
                upload(dc.tileSortedStart, layout.tileSortedStart);
                upload(dc.tileCount, layout.tileCount);
                prep.d_regions = dc.regions.get();
                prep.d_regionKeys = regionKeys.get();
                prep.d_regionKeysSorted = regionKeysSorted.get();
                prep.d_tileRegion = dc.tileRegion.get();
                prep.d_tileSortedStart = dc.tileSortedStart.get();
                prep.d_tileCount = dc.tileCount.get();
                prep.regionBits = regionBits;
            }
            launchPrepareCatalog(prep, s);
            views[c].d_points = isFloat ? static_cast<const void*>(dc.hi.get()) : dc.sorted.get();
            views[c].d_lows = isFloat ? dc.lo.get() : nullptr;
            views[c].d_tiles = dc.tiles.get();
            views[c].d_subBoxes = dc.subBoxes.get();
            views[c].size = n;
            views[c].tileCount = tiles;
        }
    }
    DeviceBuffer<CatalogView> d_views(views.size(), s);
    TPACF_CUDA_TRY(
        cudaMemcpyAsync(d_views.get(), views.data(), d_views.bytes(), cudaMemcpyHostToDevice, s));

    // Bins.
    const std::size_t binCount = tables.thresholdsDouble.size() - 2; // edges + sentinel
    DeviceBuffer<double> d_thresholdsDouble(binCount + 2, s);
    TPACF_CUDA_TRY(cudaMemcpyAsync(d_thresholdsDouble.get(), tables.thresholdsDouble.data(),
                                   d_thresholdsDouble.bytes(), cudaMemcpyHostToDevice, s));
    DeviceBuffer<float> d_thresholdsFloat(isFloat ? binCount + 2 : 0, s);
    if (isFloat)
        TPACF_CUDA_TRY(cudaMemcpyAsync(d_thresholdsFloat.get(), tables.thresholdsFloat.data(),
                                       d_thresholdsFloat.bytes(), cudaMemcpyHostToDevice, s));
    DeviceBuffer<std::uint16_t> d_lookup(tables.lookup.size(), s);
    TPACF_CUDA_TRY(cudaMemcpyAsync(d_lookup.get(), tables.lookup.data(), d_lookup.bytes(),
                                   cudaMemcpyHostToDevice, s));

    catalogsReady.record(s);

    // Culling: the leader turns the tile boxes into the work list. The preparation is
    // deterministic (a stable radix sort of the same keys has one result; box min/max are
    // exact), so every device holds the very same tiles: one list serves all, built once, and
    // must be one list anyway since the devices take its units by index from a shared cursor.
    if (leader && job.culled) {
        std::vector<std::vector<TileBox>> boxes(catalogs.size());
        for (std::size_t c = 0; c < catalogs.size(); ++c) {
            boxes[c].resize(views[c].tileCount);
            if (!boxes[c].empty())
                TPACF_CUDA_TRY(cudaMemcpyAsync(boxes[c].data(), views[c].d_tiles,
                                               boxes[c].size() * sizeof(TileBox),
                                               cudaMemcpyDeviceToHost, s));
        }
        Event boxesCopied; // blocking sync: the host sleeps while the device finishes
        boxesCopied.record(s);
        boxesCopied.synchronize();
        std::vector<std::vector<CellBounds>> bounds(catalogs.size());
        for (std::size_t c = 0; c < catalogs.size(); ++c) {
            bounds[c].reserve(boxes[c].size());
            for (const TileBox& box : boxes[c])
                bounds[c].push_back(CellBounds{{box.lo[0], box.lo[1], box.lo[2]},
                                               {box.hi[0], box.hi[1], box.hi[2]}});
        }
        state.publish(job.scheduleFromBoxes(bounds));
    }
    const Schedule* published = state.waitForSchedule();
    if (published == nullptr)
        return; // stopped (error elsewhere, or cancelled) before the list was ready
    const Schedule& schedule = *published;

    // Work units and counters.
    unitsStart.record(s);
    DeviceBuffer<WorkUnit> d_units(schedule.units.size(), s);
    TPACF_CUDA_TRY(cudaMemcpyAsync(d_units.get(), schedule.units.data(), d_units.bytes(),
                                   cudaMemcpyHostToDevice, s));
    const std::size_t countsPerTask = (byRegion ? 1 + 2 * regionCount : 1) * binCount;
    DeviceBuffer<unsigned long long> d_counts(taskCount * countsPerTask, s);
    TPACF_CUDA_TRY(cudaMemsetAsync(d_counts.get(), 0, d_counts.bytes(), s));
    DeviceBuffer<std::uint32_t> d_cursors(kLaunchesInFlight + 1, s);
    Event prepareEnd;
    prepareEnd.record(s);
    double kernelSeconds = 0;

    PairKernelArgs args;
    args.d_units = d_units.get();
    args.d_catalogs = d_views.get();
    args.d_counts = d_counts.get();
    args.regionCount = static_cast<std::uint32_t>(regionCount);
    args.bins.d_thresholds =
        isFloat ? static_cast<const void*>(d_thresholdsFloat.get()) : d_thresholdsDouble.get();
    args.bins.d_thresholdsDouble = d_thresholdsDouble.get();
    args.bins.d_lookup = d_lookup.get();
    args.bins.lookupSize = static_cast<std::uint32_t>(tables.lookup.size());
    args.bins.lookupShift = tables.shift;
    args.bins.lookupBase = tables.base;
    args.bins.binCount = static_cast<std::uint32_t>(binCount);
    args.bins.lowMargin = tables.lowMargin;
    args.bins.highMargin = tables.highMargin;
    args.bins.classifyTiles = job.culled ? 1 : 0;
    args.bins.cullSubTiles = job.cullSubTiles ? 1 : 0;
    args.bins.bruteForceSelect = isFloat && tables.highMargin > kFastMinChord2 ? 1 : 0;
    args.layout = plan.layout;
    args.tileSize = tileSize;
    // A private 32-bit counter gains at most this much per unit; flush well before 2^32.
    const std::uint64_t perUnit = static_cast<std::uint64_t>(kPointsPerThread) * tileSize *
                                  schedule.tilesPerUnit *
                                  (plan.hist == HistMode::PerWarp ? 32u : 1u);
    args.flushEveryUnits = static_cast<std::uint32_t>(
        std::max<std::uint64_t>(1, (std::numeric_limits<std::uint32_t>::max() / 2) / perUnit));

    // Launch loop: chunks of ~30 ms, two in flight.
    const double smScale = props.multiProcessorCount / 132.0;
    double pairRate = (isFloat ? 1.5e12 : 4e11) * smScale;           // first guess, then measured
    const double bruteRateCap = (isFloat ? 4e12 : 1.2e12) * smScale; // no dense chunk runs faster
    struct InFlight {
        int slot;
        std::size_t begin, end;
    };
    std::deque<InFlight> inFlight;
    int slot = 0;
    for (;;) {
        std::size_t begin = 0, end = 0;
        const auto budget = static_cast<std::uint64_t>(
            std::min(pairRate * kChunkSeconds, bruteRateCap * kChunkMaxSeconds));
        const bool launched =
            !state.stop.load() &&
            state.take(budget, static_cast<std::size_t>(plan.gridSize), begin, end);
        if (launched) {
            TPACF_CUDA_TRY(cudaMemsetAsync(d_cursors.get() + slot, 0, sizeof(std::uint32_t), s));
            args.unitBegin = static_cast<std::uint32_t>(begin);
            args.unitEnd = static_cast<std::uint32_t>(end);
            args.d_unitCursor = d_cursors.get() + slot;
            const int grid = static_cast<int>(std::min<std::size_t>(plan.gridSize, end - begin));
            launchStart[slot].record(s);
            launchPairKernel(plan, args, grid, s);
            launchEnd[slot].record(s);
            inFlight.push_back({slot, begin, end});
            slot = (slot + 1) % (kLaunchesInFlight + 1);
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
            if (seconds > 0)
                pairRate = std::clamp(pairs / seconds, pairRate / 8, pairRate * 8);
            state.completed(done.begin, done.end);
        }
    }

    result.counts.assign(taskCount * countsPerTask, 0);
    PinnedBuffer<unsigned long long> hostCounts(taskCount * countsPerTask);
    TPACF_CUDA_TRY(cudaMemcpyAsync(hostCounts.get(), d_counts.get(), d_counts.bytes(),
                                   cudaMemcpyDeviceToHost, s));
    batchEnd.record(s);
    batchEnd.synchronize();
    std::copy(hostCounts.get(), hostCounts.get() + taskCount * countsPerTask,
              result.counts.begin());
    // Busy: preparation, every launch, and the final copy; gaps waiting for the host (the list
    // building among them) excluded.
    const double prepareSeconds =
        (catalogsReady.millisecondsSince(batchStart) + prepareEnd.millisecondsSince(unitsStart)) *
        1e-3;
    const double span = batchEnd.millisecondsSince(batchStart) * 1e-3;
    result.busySeconds = std::min(span, prepareSeconds + kernelSeconds);
}

} // namespace

std::unique_ptr<PairCounter> makeCudaPairCounter(Precision precision, std::vector<int> devices,
                                                 std::string description) {
    return std::make_unique<CudaPairCounter>(precision, std::move(devices), std::move(description));
}

} // namespace tpacf::cuda::detail
