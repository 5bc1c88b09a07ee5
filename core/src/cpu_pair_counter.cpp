#include "tpacf/cpu_pair_counter.h"

#include "sky_cells.h"
#include "stop_and_join.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__GNUC__) && defined(__x86_64__)
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() through and trip
// -Wmaybe-uninitialized in its own header (GCC bug 105593, fixed in GCC 13).
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#define TPACF_HAVE_AVX512_KERNEL 1
#endif

namespace tpacf {

namespace {

// Points per side of a tile: 1024 x 1024 pairs take a few ms on one core, short enough for
// prompt cancellation and progress, long enough that scheduling costs nothing. The j side of a
// tile (3 x 8 KiB of coordinates) stays in L1 while every i of the tile sweeps it.
constexpr std::size_t kTileSide = 1024;
// Squared chords are computed for this many j at a time, then binned.
constexpr std::size_t kChunk = 256;
static_assert(kChunk % 8 == 0, "the AVX-512 kernel stores whole vectors of 8");
// Independent sub-histograms: consecutive pairs usually land in the same bin, and one counter
// would serialise every increment on the previous store. addSlots() unrolls by this.
constexpr std::size_t kHistogramCopies = 4;
// Upper limit on the bin-guess table (4-byte entries, for gathers): it should live in L1.
constexpr std::size_t kMaxGuessCells = 4096;
// Set in a guess entry whose cell holds more than one threshold: one comparison is not enough.
constexpr std::uint32_t kMultiEdgeCell = 0x80000000u;

// Exact bin lookup. A "slot" is the number of thresholds ≤ c2: slot 0 lies below the first edge,
// slot k+1 is bin k, slot count() lies at or above the last edge. The guess table, indexed by
// the top bits of c2's IEEE representation (monotone in c2 for c2 ≥ 0, so the cells are ordered
// intervals of c2), holds the slot of each cell's smallest value; comparisons with the double
// thresholds then decide the slot exactly: one where the cell holds at most one threshold, more
// (a loop) where it is flagged kMultiEdgeCell.
class SlotLookup {
public:
    explicit SlotLookup(std::span<const double> chord2Edges) : m_edgeCount(chord2Edges.size()) {
        m_thresholds.assign(chord2Edges.begin(), chord2Edges.end());
        // Sentinel: no finite c2 reaches it, so the refinement needs no bounds check.
        m_thresholds.push_back(std::numeric_limits<double>::infinity());

        double lowestPositive = 1.0;
        for (double t : chord2Edges) {
            if (t > 0) {
                lowestPositive = t;
                break;
            }
        }
        // c2 ≤ 4 up to rounding; cells reach through [4, 8) so the top clamp is never hit.
        const std::uint64_t topBits = std::bit_cast<std::uint64_t>(8.0);
        for (int mantissaBits = 12;; --mantissaBits) {
            m_shift = static_cast<std::uint64_t>(52 - mantissaBits);
            m_baseCell = std::bit_cast<std::uint64_t>(lowestPositive) >> m_shift;
            if (m_baseCell > 0)
                --m_baseCell;
            const std::uint64_t cells = (topBits >> m_shift) - m_baseCell + 1;
            if (cells <= kMaxGuessCells || mantissaBits == 0) {
                m_lastCell = static_cast<std::int64_t>(cells - 1);
                break;
            }
        }
        const auto slotOfValue = [&](double c2) {
            return static_cast<std::uint32_t>(
                std::upper_bound(chord2Edges.begin(), chord2Edges.end(), c2) - chord2Edges.begin());
        };
        m_guess.resize(static_cast<std::size_t>(m_lastCell) + 1);
        for (std::size_t cell = 0; cell < m_guess.size(); ++cell) {
            // Cell 0 also takes everything below the resolved range, down to c2 = 0; the last
            // cell everything above.
            const std::uint64_t first = (m_baseCell + cell) << m_shift;
            const double low = cell == 0 ? 0.0 : std::bit_cast<double>(first);
            const bool last = cell + 1 == m_guess.size();
            const std::uint32_t lowSlot = slotOfValue(low);
            const std::uint32_t highSlot =
                last
                    ? static_cast<std::uint32_t>(m_edgeCount)
                    : slotOfValue(std::bit_cast<double>(first + (std::uint64_t{1} << m_shift) - 1));
            m_guess[cell] = lowSlot | (highSlot - lowSlot > 1 ? kMultiEdgeCell : 0u);
        }
        m_cellThreshold.resize(m_guess.size());
        for (std::size_t cell = 0; cell < m_guess.size(); ++cell)
            m_cellThreshold[cell] = m_thresholds[m_guess[cell] & ~kMultiEdgeCell];
    }

    /// Slots per histogram: below, one per bin, above.
    std::size_t slotCount() const noexcept { return m_edgeCount + 1; }

    // Public for the kernels, which copy them into locals (histogram stores could otherwise
    // alias these members and force a reload on every pair).
    std::size_t m_edgeCount;
    std::vector<double> m_thresholds; // chord2Edges and a +inf sentinel
    std::vector<std::uint32_t> m_guess;
    std::vector<double> m_cellThreshold; // thresholds[guess slot] per cell
    std::uint64_t m_shift = 52;
    std::uint64_t m_baseCell = 0;
    std::int64_t m_lastCell = 0;
};

struct Points {
    const double* x = nullptr;
    const double* y = nullptr;
    const double* z = nullptr;
    std::size_t size = 0;

    explicit Points(const Catalog& c)
        : x(c.x().data()), y(c.y().data()), z(c.z().data()), size(c.size()) {}
    Points(const double* px, const double* py, const double* pz, std::size_t n)
        : x(px), y(py), z(pz), size(n) {}
};

// Adds n binned pairs to the histogram copies. `slot` holds the guess after its one comparison,
// with the kMultiEdgeCell flag where more comparisons are needed.
inline void addSlots(const double* __restrict c2, const std::uint32_t* __restrict slot,
                     std::size_t n, const double* __restrict thresholds, std::size_t slots,
                     std::uint32_t* __restrict histogram) {
    const auto finish = [&](std::size_t k) -> std::size_t {
        std::uint32_t s = slot[k];
        if (s & kMultiEdgeCell) [[unlikely]] {
            s &= ~kMultiEdgeCell;
            while (c2[k] >= thresholds[s])
                ++s;
        }
        return s;
    };
    std::size_t k = 0;
    for (; k + kHistogramCopies <= n; k += kHistogramCopies) {
        ++histogram[finish(k)];
        ++histogram[slots + finish(k + 1)];
        ++histogram[2 * slots + finish(k + 2)];
        ++histogram[3 * slots + finish(k + 3)];
    }
    for (; k < n; ++k)
        ++histogram[finish(k)];
}

// The portable kernel: counts pairs (i in [i0, i1) of a) x (j in [j0, j1) of b) into
// `histogram` (kHistogramCopies copies of `slots` slots, one after the other). `diagonal`: a == b
// on the same range, so only j > i. The squared chord is the contract's arithmetic, in its
// order: dx, dy, dz, then (dx² + dy²) + dz², each operation rounded on its own (core is built
// with -ffp-contract=off); the GPU double kernel does the same. That loop vectorises over j.
void countTilePortable(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                       std::size_t j0, std::size_t j1, bool diagonal, const SlotLookup& lookup,
                       std::uint32_t* __restrict histogram) {
    const std::size_t slots = lookup.slotCount();
    const double* __restrict thresholds = lookup.m_thresholds.data();
    const std::uint32_t* __restrict guessTable = lookup.m_guess.data();
    const std::uint64_t shift = lookup.m_shift;
    const auto baseCell = static_cast<std::int64_t>(lookup.m_baseCell);
    const std::int64_t lastCell = lookup.m_lastCell;
    alignas(64) double c2[kChunk];
    alignas(64) std::uint32_t slot[kChunk];
    for (std::size_t i = i0; i < i1; ++i) {
        const double xi = a.x[i], yi = a.y[i], zi = a.z[i];
        for (std::size_t jc = diagonal ? i + 1 : j0; jc < j1; jc += kChunk) {
            const std::size_t n = std::min(kChunk, j1 - jc);
            const double* __restrict xj = b.x + jc;
            const double* __restrict yj = b.y + jc;
            const double* __restrict zj = b.z + jc;
            for (std::size_t k = 0; k < n; ++k) {
                const double dx = xi - xj[k];
                const double dy = yi - yj[k];
                const double dz = zi - zj[k];
                c2[k] = dx * dx + dy * dy + dz * dz;
            }
            for (std::size_t k = 0; k < n; ++k) {
                const auto bits =
                    static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(c2[k]) >> shift);
                const std::int64_t cell = std::clamp(bits - baseCell, std::int64_t{0}, lastCell);
                const std::uint32_t guess = guessTable[cell];
                const std::uint32_t start = guess & ~kMultiEdgeCell;
                slot[k] = guess + (c2[k] >= thresholds[start] ? 1u : 0u);
            }
            addSlots(c2, slot, n, thresholds, slots, histogram);
        }
    }
}

#ifdef TPACF_HAVE_AVX512_KERNEL
// The same with AVX-512 (8 pairs a step, gathers for the table reads). Same operations in the
// same order on each lane, each rounded as in the portable kernel, so the counts are identical.
__attribute__((target("avx512f"))) void countTileAvx512(const Points& a, std::size_t i0,
                                                        std::size_t i1, const Points& b,
                                                        std::size_t j0, std::size_t j1,
                                                        bool diagonal, const SlotLookup& lookup,
                                                        std::uint32_t* __restrict histogram) {
    const std::size_t slots = lookup.slotCount();
    const double* __restrict thresholds = lookup.m_thresholds.data();
    const std::uint32_t* __restrict guessTable = lookup.m_guess.data();
    const __m128i shift = _mm_cvtsi64_si128(static_cast<long long>(lookup.m_shift));
    const __m512i baseCell = _mm512_set1_epi64(static_cast<long long>(lookup.m_baseCell));
    const __m512i lastCell = _mm512_set1_epi64(lookup.m_lastCell);
    const __m512i zero = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi64(1);
    const double* __restrict cellThreshold = lookup.m_cellThreshold.data();
    alignas(64) double c2[kChunk];
    alignas(64) std::uint32_t slot[kChunk];
    for (std::size_t i = i0; i < i1; ++i) {
        const __m512d xi = _mm512_set1_pd(a.x[i]);
        const __m512d yi = _mm512_set1_pd(a.y[i]);
        const __m512d zi = _mm512_set1_pd(a.z[i]);
        for (std::size_t jc = diagonal ? i + 1 : j0; jc < j1; jc += kChunk) {
            const std::size_t n = std::min(kChunk, j1 - jc);
            for (std::size_t k = 0; k < n; k += 8) {
                const __mmask8 lanes = n - k >= 8 ? __mmask8(0xff) : __mmask8((1u << (n - k)) - 1u);
                const __m512d dx = _mm512_sub_pd(xi, _mm512_maskz_loadu_pd(lanes, b.x + jc + k));
                const __m512d dy = _mm512_sub_pd(yi, _mm512_maskz_loadu_pd(lanes, b.y + jc + k));
                const __m512d dz = _mm512_sub_pd(zi, _mm512_maskz_loadu_pd(lanes, b.z + jc + k));
                const __m512d d2 =
                    _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)),
                                  _mm512_mul_pd(dz, dz));
                __m512i cell =
                    _mm512_sub_epi64(_mm512_srl_epi64(_mm512_castpd_si512(d2), shift), baseCell);
                cell = _mm512_min_epi64(_mm512_max_epi64(cell, zero), lastCell);
                const __m512i guess = _mm512_cvtepu32_epi64(_mm512_mask_i64gather_epi32(
                    _mm256_setzero_si256(), lanes, cell, guessTable, 4));
                const __m512d threshold =
                    _mm512_mask_i64gather_pd(_mm512_setzero_pd(), lanes, cell, cellThreshold, 8);
                const __mmask8 above = _mm512_cmp_pd_mask(d2, threshold, _CMP_GE_OQ);
                const __m512i result = _mm512_mask_add_epi64(guess, above, guess, one);
                // Whole-vector stores stay inside the buffers (kChunk is a multiple of 8); lanes
                // past n are never read.
                _mm512_store_pd(c2 + k, d2);
                _mm256_store_si256(reinterpret_cast<__m256i*>(slot + k),
                                   _mm512_cvtepi64_epi32(result));
            }
            addSlots(c2, slot, n, thresholds, slots, histogram);
        }
    }
}
#endif

using TileKernel = void (*)(const Points&, std::size_t, std::size_t, const Points&, std::size_t,
                            std::size_t, bool, const SlotLookup&, std::uint32_t*);

std::uint64_t trianglePairs(std::uint64_t n) {
    return n < 2 ? 0 : (n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2));
}

// One task cut into tiles of kTileSide x kTileSide points. Auto tasks use only the tiles on and
// above the diagonal; diagonal tiles count j > i within themselves.
struct TaskPlan {
    Points a, b;
    bool isAuto = false;
    std::uint64_t rowBlocks = 0, columnBlocks = 0;
    std::uint64_t tileCount = 0;
    std::vector<std::uint64_t> rowStart; // auto: index of the first tile of each block row

    struct Tile {
        std::size_t i0, i1, j0, j1;
        bool diagonal;
    };

    explicit TaskPlan(const CountTask& task)
        : TaskPlan(Points(*task.first), Points(task.second ? *task.second : *task.first),
                   task.isAuto()) {}

    TaskPlan(Points first, Points second, bool autoCount) : a(first), b(second), isAuto(autoCount) {
        const auto blocks = [](std::size_t n) { return (n + kTileSide - 1) / kTileSide; };
        rowBlocks = blocks(a.size);
        columnBlocks = blocks(b.size);
        if (pairTotal() == 0)
            return;
        if (isAuto) {
            rowStart.resize(rowBlocks + 1);
            for (std::uint64_t row = 0; row < rowBlocks; ++row)
                rowStart[row + 1] = rowStart[row] + (rowBlocks - row);
            tileCount = rowStart.back();
        } else {
            tileCount = rowBlocks * columnBlocks;
        }
    }

    Tile tile(std::uint64_t index) const {
        std::uint64_t row, column;
        if (isAuto) {
            row = static_cast<std::uint64_t>(
                std::upper_bound(rowStart.begin(), rowStart.end(), index) - rowStart.begin() - 1);
            column = row + (index - rowStart[row]);
        } else {
            row = index / columnBlocks;
            column = index % columnBlocks;
        }
        const std::size_t i0 = row * kTileSide, j0 = column * kTileSide;
        return {i0, std::min(a.size, i0 + kTileSide), j0, std::min(b.size, j0 + kTileSide),
                isAuto && row == column};
    }

    std::uint64_t pairTotal() const noexcept {
        return isAuto ? trianglePairs(a.size) : static_cast<std::uint64_t>(a.size) * b.size;
    }

    static std::uint64_t pairsOf(const Tile& t) {
        return t.diagonal ? trianglePairs(t.i1 - t.i0)
                          : static_cast<std::uint64_t>(t.i1 - t.i0) * (t.j1 - t.j0);
    }
};

// The order in which work units (tiles, or the culled path's work items) are handed out: round
// r takes unit r of every task that has one, so all tasks advance together and early partial
// counts cover DD, DR and RR alike. Tasks sorted by unit count split the rounds into segments
// with a fixed set of tasks each.
class TileSchedule {
public:
    TileSchedule() = default;
    explicit TileSchedule(std::vector<std::uint64_t> unitsPerTask) {
        m_byTileCount.resize(unitsPerTask.size());
        for (std::size_t t = 0; t < unitsPerTask.size(); ++t)
            m_byTileCount[t] = t;
        std::stable_sort(
            m_byTileCount.begin(), m_byTileCount.end(),
            [&](std::size_t l, std::size_t r) { return unitsPerTask[l] < unitsPerTask[r]; });
        std::uint64_t previousRounds = 0, start = 0;
        for (std::size_t s = 0; s < m_byTileCount.size(); ++s) {
            const std::uint64_t rounds = unitsPerTask[m_byTileCount[s]];
            const std::uint64_t width = m_byTileCount.size() - s;
            m_segments.push_back({start, previousRounds, width, s});
            start += (rounds - previousRounds) * width;
            previousRounds = rounds;
        }
        m_total = start;
    }

    static TileSchedule ofTiles(const std::vector<TaskPlan>& plans) {
        std::vector<std::uint64_t> tiles;
        for (const TaskPlan& plan : plans)
            tiles.push_back(plan.tileCount);
        return TileSchedule(std::move(tiles));
    }

    std::uint64_t total() const noexcept { return m_total; }

    /// (task, unit within the task) of global unit `index` < total().
    std::pair<std::size_t, std::uint64_t> locate(std::uint64_t index) const {
        auto segment =
            std::upper_bound(m_segments.begin(), m_segments.end(), index,
                             [](std::uint64_t value, const Segment& s) { return value < s.start; });
        // Empty segments share their start with the next one: upper_bound picks the last.
        --segment;
        const std::uint64_t offset = index - segment->start;
        const std::uint64_t round = segment->firstRound + offset / segment->width;
        const std::size_t task = m_byTileCount[segment->firstSorted + offset % segment->width];
        return {task, round};
    }

private:
    struct Segment {
        std::uint64_t start, firstRound, width;
        std::size_t firstSorted;
    };
    std::vector<std::size_t> m_byTileCount;
    std::vector<Segment> m_segments;
    std::uint64_t m_total = 0;
};

// What one worker has counted. The mutex is uncontended except while the calling thread takes
// a progress snapshot.
struct WorkerTally {
    std::mutex mutex;
    std::vector<std::uint64_t> slotCounts; // task-major, slotCount per task
    std::vector<std::uint64_t> pairsDone;  // per task
};

// Hands the units of `schedule` to `workerCount` threads and watches them from the calling
// thread: progress every 50 ms (counts every other call), cancellation, the first error.
// countUnit(worker, task, unit) counts one unit (a tile, or a culled work item) and publishes
// it; snapshot(withCounts) reads what has been published. All count modes share this, so they
// schedule, report and cancel alike.
template <class CountUnit, class Snapshot>
CountProgress runTiles(const TileSchedule& schedule, std::size_t workerCount,
                       const CountControl& control, CountUnit&& countUnit, Snapshot&& snapshot) {
    std::atomic<std::uint64_t> nextTile{0};
    std::atomic<bool> stop{false};
    std::atomic<bool> sawCancel{false};
    std::mutex stateMutex; // guards finishedWorkers and firstError; pairs with `wake`
    std::condition_variable wake;
    std::size_t finishedWorkers = 0;
    std::exception_ptr firstError;

    const auto work = [&](std::size_t worker) {
        try {
            while (!stop.load(std::memory_order_relaxed)) {
                if (control.cancelled()) {
                    sawCancel = true;
                    stop = true;
                    break;
                }
                const std::uint64_t index = nextTile.fetch_add(1, std::memory_order_relaxed);
                if (index >= schedule.total())
                    break;
                const auto [task, unit] = schedule.locate(index);
                countUnit(worker, task, unit);
            }
        } catch (...) {
            const std::lock_guard lock(stateMutex);
            if (!firstError)
                firstError = std::current_exception();
            stop = true;
        }
        {
            const std::lock_guard lock(stateMutex);
            ++finishedWorkers;
        }
        wake.notify_one();
    };

    StopAndJoin workers(stop);
    for (std::size_t w = 0; w < workerCount; ++w)
        workers.start(work, w);

    // The calling thread only watches: progress at least every 50 ms, counts every other call.
    constexpr auto kTick = std::chrono::milliseconds(50);
    for (unsigned tick = 1;; ++tick) {
        {
            std::unique_lock lock(stateMutex);
            if (wake.wait_for(lock, kTick, [&] { return finishedWorkers == workerCount; }))
                break;
        }
        if (control.cancelled()) {
            sawCancel = true;
            break;
        }
        if (control.onProgress)
            control.onProgress(snapshot(tick % 2 == 0));
    }
    workers.joinAll();

    if (firstError)
        std::rethrow_exception(firstError);
    if (sawCancel)
        throw Cancelled();

    CountProgress final = snapshot(true);
    if (control.onProgress)
        control.onProgress(final);
    return final;
}

std::size_t workersFor(int threads, const TileSchedule& schedule) {
    return static_cast<std::size_t>(
        std::min<std::uint64_t>(static_cast<std::uint64_t>(threads), schedule.total()));
}

// A catalog's points ordered by region, so that every tile splits into a few rectangles whose
// points share one region on each side; each rectangle is then counted by the plain kernels.
// Reordering changes no pair and no arithmetic, only which rectangle a pair is counted in.
struct RegionOrderedPoints {
    std::vector<double> x, y, z;          // empty when the catalog is already in region order
    std::vector<std::size_t> regionStart; // regionCount + 1 offsets into the ordered points
    Points points{nullptr, nullptr, nullptr, 0};

    RegionOrderedPoints(const Catalog& catalog, std::size_t regionCount) {
        const auto region = catalog.region();
        const std::size_t n = catalog.size();
        regionStart.assign(regionCount + 1, 0);
        for (std::int32_t r : region)
            ++regionStart[static_cast<std::size_t>(r) + 1];
        for (std::size_t r = 0; r < regionCount; ++r)
            regionStart[r + 1] += regionStart[r];
        if (std::is_sorted(region.begin(), region.end())) {
            points = Points(catalog);
            return;
        }
        x.resize(n);
        y.resize(n);
        z.resize(n);
        std::vector<std::size_t> next(regionStart.begin(), regionStart.end() - 1);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t to = next[static_cast<std::size_t>(region[i])]++;
            x[to] = catalog.x()[i];
            y[to] = catalog.y()[i];
            z[to] = catalog.z()[i];
        }
        points = Points(x.data(), y.data(), z.data(), n);
    }

    /// Region of ordered point i.
    std::size_t regionOf(std::size_t i) const {
        return static_cast<std::size_t>(
            std::upper_bound(regionStart.begin(), regionStart.end(), i) - regionStart.begin() - 1);
    }
};

// Pairs of one task counted so far, keyed by jackknife region (see countBatchByRegion): for each
// region and bin, the pairs whose first point lies in it (byFirst), whose second point does
// (bySecond), and whose both points do (within); regionCount × bins each, row-major by region as
// in RegionPairCounts, so that the culled plan's whole-cell counts become them and the result
// takes them over without a copy (at thousands of regions and bins each is tens of MB).
// touching = byFirst + bySecond − within. Shared by the workers: merges under the mutex.
struct RegionTaskTally {
    std::mutex mutex;
    std::vector<std::uint64_t> byFirst, bySecond, within;
    std::uint64_t pairsDone = 0;
};

// One worker's region-keyed counts of the current work unit: a histogram for the rectangle of
// one region pair being counted, and a row of slots for each region the unit touched, for at
// most kRegionRowsPerThread regions a side: past that they are added to the task's tally first
// (a progress snapshot may then see counts of a unit not yet credited as done; live estimates
// only). So a thread holds O(rows · bins) whatever K is, and a unit costs no O(regions) sweep.
struct RegionScratch {
    std::vector<std::uint32_t> histogram;
    std::size_t slots = 0;
    // Per region: 1 + its row among the first (second) regions of the unit; 0 while it has none.
    std::vector<std::uint32_t> firstRow, secondRow;
    std::vector<std::size_t> firstRegions, secondRegions; // the regions of the rows, in row order
    std::vector<std::uint64_t> byFirst, within, bySecond; // rows × slots

    RegionScratch(std::size_t regionCount, std::size_t slotCount)
        : slots(slotCount), firstRow(regionCount, 0), secondRow(regionCount, 0) {
        histogram.assign(kHistogramCopies * slots, 0);
    }

    /// Adds the histogram as pairs of a point in region `first` and one in `second` of the
    /// task of `tally`, and clears it for the next rectangle.
    void addRectangle(std::size_t first, std::size_t second, RegionTaskTally& tally) {
        if ((firstRow[first] == 0 && firstRegions.size() == kRegionRowsPerThread) ||
            (secondRow[second] == 0 && secondRegions.size() == kRegionRowsPerThread)) {
            const std::lock_guard lock(tally.mutex);
            flushRows(tally);
        }
        const std::size_t a = rowOf(first, firstRow, firstRegions, {&byFirst, &within});
        const std::size_t b = rowOf(second, secondRow, secondRegions, {&bySecond});
        std::uint64_t* toFirst = byFirst.data() + a * slots;
        std::uint64_t* toSecond = bySecond.data() + b * slots;
        std::uint64_t* toWithin = within.data() + a * slots;
        for (std::size_t copy = 0; copy < kHistogramCopies; ++copy) {
            const std::uint32_t* h = histogram.data() + copy * slots;
            for (std::size_t k = 0; k < slots; ++k) {
                toFirst[k] += h[k];
                toSecond[k] += h[k];
            }
            if (first == second)
                for (std::size_t k = 0; k < slots; ++k)
                    toWithin[k] += h[k];
        }
        std::fill(histogram.begin(), histogram.end(), 0u);
    }

    /// Adds the unit's counts to the task's tally and credits `pairs` as done.
    void publish(RegionTaskTally& tally, std::uint64_t pairs) {
        const std::lock_guard lock(tally.mutex);
        flushRows(tally);
        tally.pairsDone += pairs;
    }

private:
    // The row of `region` on one side, zeroed in every array of that side when it is new.
    std::size_t rowOf(std::size_t region, std::vector<std::uint32_t>& rowPlusOne,
                      std::vector<std::size_t>& regions,
                      std::initializer_list<std::vector<std::uint64_t>*> arrays) {
        if (rowPlusOne[region] == 0) {
            regions.push_back(region);
            rowPlusOne[region] = static_cast<std::uint32_t>(regions.size());
            for (std::vector<std::uint64_t>* rows : arrays)
                rows->resize(regions.size() * slots, 0);
        }
        return rowPlusOne[region] - 1;
    }

    // Adds the rows to the tally (the caller holds its mutex) and empties them. Slot bin+1 is the
    // bin; the slots below and above the range are dropped.
    void flushRows(RegionTaskTally& tally) {
        const std::size_t bins = slots - 2;
        const auto add = [&](const std::vector<std::uint64_t>& rows, std::size_t row,
                             std::vector<std::uint64_t>& to, std::size_t region) {
            const std::uint64_t* from = rows.data() + row * slots + 1;
            std::uint64_t* into = to.data() + region * bins;
            for (std::size_t bin = 0; bin < bins; ++bin)
                into[bin] += from[bin];
        };
        for (std::size_t row = 0; row < firstRegions.size(); ++row) {
            add(byFirst, row, tally.byFirst, firstRegions[row]);
            add(within, row, tally.within, firstRegions[row]);
            firstRow[firstRegions[row]] = 0;
        }
        for (std::size_t row = 0; row < secondRegions.size(); ++row) {
            add(bySecond, row, tally.bySecond, secondRegions[row]);
            secondRow[secondRegions[row]] = 0;
        }
        firstRegions.clear();
        secondRegions.clear();
        // Capacity stays: the next unit's rows need no allocation.
        byFirst.clear();
        within.clear();
        bySecond.clear();
    }
};

/// A batch's unique pairs, and whether it is culled (the Auto rule on θ_max and that total).
struct BatchChoice {
    std::uint64_t pairsTotal = 0;
    bool culled = false;
};
BatchChoice chooseForBatch(std::span<const CountTask> tasks, const Binning& binning,
                           CullingMode mode) {
    BatchChoice choice;
    for (const CountTask& task : tasks)
        choice.pairsTotal += task.pairTotal();
    choice.culled = chooseCulling(mode, binning.maxDegrees(), choice.pairsTotal);
    return choice;
}

// Work of one culled work item, in pair-kernel units (sky_cells.h): at most a few ms on one
// core, so cancellation and progress stay prompt while the per-item merge costs nothing; less
// where the whole batch is small, so that every thread gets several items.
constexpr double kMaxItemWork = double(std::uint64_t{1} << 22);
constexpr double kMinItemWork = double(std::uint64_t{1} << 16);
constexpr double kItemsPerThread = 16;

// Reports zero progress while the culled path sorts and plans (the calling thread polls it
// between short steps), so the caller hears from the count at least every 50 ms and can cancel
// it during the preparation too.
class PreparationPacer {
public:
    PreparationPacer(const CountControl& control, std::size_t taskCount, std::uint64_t pairsTotal)
        : m_control(control), m_taskCount(taskCount), m_pairsTotal(pairsTotal),
          m_last(std::chrono::steady_clock::now()) {}

    void operator()() {
        if (m_control.cancelled())
            throw Cancelled();
        if (!m_control.onProgress)
            return;
        const auto now = std::chrono::steady_clock::now();
        if (now - m_last < std::chrono::milliseconds(50))
            return;
        m_last = now;
        CountProgress progress;
        progress.pairsTotal = m_pairsTotal;
        progress.pairsDonePerTask.assign(m_taskCount, 0);
        m_control.onProgress(progress);
    }

private:
    const CountControl& m_control;
    std::size_t m_taskCount;
    std::uint64_t m_pairsTotal;
    std::chrono::steady_clock::time_point m_last;
};

// The culled path's work: every distinct catalog sorted into cells once, the chosen cell-pair
// plan, and each task's counting runs cut into work items of similar duration.
struct CulledBatch {
    std::vector<sky::SortedCatalog> catalogs;
    std::vector<sky::CellTask> cellTasks;
    sky::CellPlan plan;
    std::vector<std::vector<std::size_t>> itemStart;    // per task: items + 1 offsets into runs
    std::vector<std::vector<std::uint64_t>> itemCredit; // per task: pairs reported done per item
    std::vector<std::uint64_t> initialDone;             // per task: pairs done before any item
    TileSchedule schedule;

    Points pointsOf(std::size_t catalog) const {
        const sky::SortedCatalog& c = catalogs[catalog];
        return Points(c.x.data(), c.y.data(), c.z.data(), c.size());
    }

    /// Pairs of a run: a diagonal run (auto, starting at its own cell) counts j > i in that cell.
    std::uint64_t runPairs(std::size_t task, const sky::CountRun& run) const {
        const sky::CellTask& t = cellTasks[task];
        const sky::CellPartition& cellsA = plan.cells[t.first];
        const sky::CellPartition& cellsB = plan.cells[t.second];
        const std::uint64_t countA = cellsA.countOf(run.a);
        if (t.isAuto && run.bBegin == run.a)
            return trianglePairs(countA) +
                   countA * (cellsB.start[run.bEnd] - cellsB.start[run.a + 1]);
        return countA * (cellsB.start[run.bEnd] - cellsB.start[run.bBegin]);
    }

    /// Counts one run into `histogram` with the tile kernels: cells are contiguous, so a run is
    /// one rectangle (a diagonal run: the triangle of its first cell and the rectangle beyond).
    void countRun(TileKernel kernel, std::size_t task, const sky::CountRun& run, const Points& a,
                  const Points& b, const SlotLookup& lookup, std::uint32_t* histogram) const {
        const sky::CellTask& t = cellTasks[task];
        const sky::CellPartition& cellsA = plan.cells[t.first];
        const sky::CellPartition& cellsB = plan.cells[t.second];
        const std::size_t i0 = cellsA.start[run.a], i1 = cellsA.start[run.a + 1];
        const bool diagonal = t.isAuto && run.bBegin == run.a;
        kernel(a, i0, i1, b, diagonal ? i0 : cellsB.start[run.bBegin], cellsB.start[run.bEnd],
               diagonal, lookup, histogram);
    }
};

CulledBatch prepareCulledBatch(std::span<const CountTask> tasks, const Binning& binning,
                               std::size_t regionCount, std::size_t threads,
                               const sky::Poll& poll) {
    CulledBatch batch;
    // Each distinct catalog is sorted once, however many tasks use it.
    std::vector<const Catalog*> distinct;
    const auto indexOf = [&](const Catalog* catalog) {
        const auto known = std::find(distinct.begin(), distinct.end(), catalog);
        if (known != distinct.end())
            return static_cast<std::size_t>(known - distinct.begin());
        distinct.push_back(catalog);
        batch.catalogs.push_back(sky::sortCatalog(*catalog, regionCount, poll));
        return distinct.size() - 1;
    };
    for (const CountTask& task : tasks) {
        const std::size_t first = indexOf(task.first);
        const std::size_t second = task.second ? indexOf(task.second) : first;
        batch.cellTasks.push_back(sky::CellTask{first, second, task.isAuto()});
    }
    batch.plan = sky::planCellPairs(batch.catalogs, batch.cellTasks, binning.chord2Edges(),
                                    regionCount, poll, threads);

    // Work items: consecutive runs of about itemWork. Each item is credited its visited pairs
    // plus a share, in proportion, of the pairs culled away (never listed, or outside the bins
    // as whole cell pairs), so pairsDone reaches pairsTotal and tracks the work. Whole in-range
    // cell pairs are done from the start (their counts are in the first partial counts).
    const auto runWork = [&](std::size_t t, const sky::CountRun& run) {
        const sky::CellPartition& cellsA = batch.plan.cells[batch.cellTasks[t].first];
        return static_cast<double>(batch.runPairs(t, run)) + sky::kRunCost +
               sky::kRowCost * static_cast<double>(cellsA.countOf(run.a));
    };
    double totalWork = 0;
    for (std::size_t t = 0; t < tasks.size(); ++t)
        for (const sky::CountRun& run : batch.plan.tasks[t].runs)
            totalWork += runWork(t, run);
    const double itemWork = std::clamp(
        totalWork / (kItemsPerThread * static_cast<double>(std::max<std::size_t>(1, threads))),
        kMinItemWork, kMaxItemWork);
    std::vector<std::uint64_t> itemsPerTask;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const std::vector<sky::CountRun>& runs = batch.plan.tasks[t].runs;
        std::vector<std::size_t>& starts = batch.itemStart.emplace_back(1, 0);
        std::vector<std::uint64_t> visited;
        double work = 0;
        std::uint64_t pairs = 0;
        for (std::size_t r = 0; r < runs.size(); ++r) {
            pairs += batch.runPairs(t, runs[r]);
            work += runWork(t, runs[r]);
            if (work >= itemWork || r + 1 == runs.size()) {
                starts.push_back(r + 1);
                visited.push_back(pairs);
                work = 0;
                pairs = 0;
            }
        }
        const std::uint64_t total = tasks[t].pairTotal();
        const std::uint64_t whole = batch.plan.tasks[t].wholePairs;
        const std::uint64_t counted = batch.plan.tasks[t].countedPairs;
        std::vector<std::uint64_t>& credit = batch.itemCredit.emplace_back();
        if (visited.empty()) {
            batch.initialDone.push_back(total);
        } else {
            batch.initialDone.push_back(whole);
            const std::uint64_t culledAway = total - whole - counted;
            // share(c): culled-away pairs credited once c visited pairs are done; monotone in c,
            // so every item gets at least its own visited pairs.
            const auto share = [&](std::uint64_t done) -> std::uint64_t {
                if (done == counted)
                    return culledAway;
                const double fraction = static_cast<double>(done) / static_cast<double>(counted);
                return std::min(culledAway, static_cast<std::uint64_t>(
                                                static_cast<double>(culledAway) * fraction));
            };
            std::uint64_t done = 0;
            for (std::uint64_t v : visited) {
                credit.push_back(v + share(done + v) - share(done));
                done += v;
            }
        }
        itemsPerTask.push_back(visited.size());
    }
    batch.schedule = TileSchedule(std::move(itemsPerTask));
    poll();
    return batch;
}

TileKernel kernelFor(bool avx512) {
#ifdef TPACF_HAVE_AVX512_KERNEL
    if (avx512)
        return countTileAvx512;
#else
    (void)avx512;
#endif
    return countTilePortable;
}

} // namespace

CpuPairCounter::CpuPairCounter(int threads) : CpuPairCounter(threads, CpuKernel::Best) {}

CpuPairCounter::CpuPairCounter(int threads, CpuKernel kernel) : m_threads(threads) {
    if (m_threads <= 0)
        m_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#ifdef TPACF_HAVE_AVX512_KERNEL
    m_avx512 = kernel == CpuKernel::Best && __builtin_cpu_supports("avx512f");
#else
    (void)kernel;
#endif
}

std::string CpuPairCounter::kernelName() const {
    return m_avx512 ? "avx512" : "portable";
}

std::string CpuPairCounter::deviceDescription() const {
    return "CPU, " + std::to_string(m_threads) + (m_threads == 1 ? " thread" : " threads");
}

std::vector<PairCounts> CpuPairCounter::countBatch(std::span<const CountTask> tasks,
                                                   const Binning& binning,
                                                   const CountControl& control) {
    for (const CountTask& task : tasks)
        if (!task.first)
            throw ConfigError("a pair-count task has no catalog");
    if (control.cancelled())
        throw Cancelled();

    const SlotLookup lookup(binning.chord2Edges());
    const std::size_t slots = lookup.slotCount();
    const std::size_t bins = binning.count();
    const TileKernel kernel = kernelFor(m_avx512);

    const auto [pairsTotal, culled] = chooseForBatch(tasks, binning, culling());
    setLastBatchCulled(culled);

    std::vector<TaskPlan> plans;
    CulledBatch batch;
    if (culled) {
        PreparationPacer pacer(control, tasks.size(), pairsTotal);
        batch = prepareCulledBatch(tasks, binning, 0, std::size_t(m_threads), std::ref(pacer));
    } else {
        plans.reserve(tasks.size());
        for (const CountTask& task : tasks)
            plans.emplace_back(task);
        batch.schedule = TileSchedule::ofTiles(plans);
    }
    const TileSchedule& schedule = batch.schedule;

    const std::size_t workerCount = workersFor(m_threads, schedule);
    // At least one tally: the culled path starts it with the whole cell pairs' counts.
    std::vector<WorkerTally> tallies(std::max<std::size_t>(1, workerCount));
    std::vector<std::vector<std::uint32_t>> unitHistograms(workerCount);
    for (WorkerTally& tally : tallies) {
        tally.slotCounts.assign(tasks.size() * slots, 0);
        tally.pairsDone.assign(tasks.size(), 0);
    }
    for (std::vector<std::uint32_t>& histogram : unitHistograms)
        histogram.resize(kHistogramCopies * slots);

    // Adds a worker's unit histogram to its tally and credits the unit's pairs.
    const auto publish = [&](std::size_t worker, std::size_t task, std::uint64_t pairs) {
        const std::vector<std::uint32_t>& histogram = unitHistograms[worker];
        WorkerTally& tally = tallies[worker];
        const std::lock_guard lock(tally.mutex);
        std::uint64_t* counts = tally.slotCounts.data() + task * slots;
        for (std::size_t copy = 0; copy < kHistogramCopies; ++copy)
            for (std::size_t s = 0; s < slots; ++s)
                counts[s] += histogram[copy * slots + s];
        tally.pairsDone[task] += pairs;
    };

    const auto snapshot = [&](bool withCounts) {
        CountProgress progress;
        progress.pairsTotal = pairsTotal;
        progress.pairsDonePerTask.assign(tasks.size(), 0);
        std::vector<std::uint64_t> slotCounts(withCounts ? tasks.size() * slots : 0, 0);
        for (WorkerTally& tally : tallies) {
            const std::lock_guard lock(tally.mutex);
            for (std::size_t t = 0; t < tasks.size(); ++t)
                progress.pairsDonePerTask[t] += tally.pairsDone[t];
            for (std::size_t s = 0; s < slotCounts.size(); ++s)
                slotCounts[s] += tally.slotCounts[s];
        }
        for (std::uint64_t done : progress.pairsDonePerTask)
            progress.pairsDone += done;
        if (withCounts) {
            progress.partialCounts.resize(tasks.size());
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                // Slot k+1 is bin k; the slots below and above the range are dropped.
                const auto first = slotCounts.begin() + static_cast<std::ptrdiff_t>(t * slots + 1);
                progress.partialCounts[t].assign(first, first + static_cast<std::ptrdiff_t>(bins));
            }
        }
        return progress;
    };

    if (!culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            std::vector<std::uint32_t>& histogram = unitHistograms[worker];
            const TaskPlan& plan = plans[task];
            const TaskPlan::Tile tile = plan.tile(index);
            std::fill(histogram.begin(), histogram.end(), 0u);
            kernel(plan.a, tile.i0, tile.i1, plan.b, tile.j0, tile.j1, tile.diagonal, lookup,
                   histogram.data());
            publish(worker, task, TaskPlan::pairsOf(tile));
        };
        return std::move(
            runTiles(schedule, workerCount, control, countTile, snapshot).partialCounts);
    }

    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const sky::TaskCellPlan& plan = batch.plan.tasks[t];
        for (std::size_t bin = 0; bin < bins; ++bin)
            tallies[0].slotCounts[t * slots + bin + 1] += plan.wholeByFirst[bin];
        tallies[0].pairsDone[t] = batch.initialDone[t];
    }
    const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t item) {
        std::vector<std::uint32_t>& histogram = unitHistograms[worker];
        std::fill(histogram.begin(), histogram.end(), 0u);
        const sky::CellTask& cellTask = batch.cellTasks[task];
        const Points a = batch.pointsOf(cellTask.first), b = batch.pointsOf(cellTask.second);
        const std::vector<sky::CountRun>& runs = batch.plan.tasks[task].runs;
        const std::vector<std::size_t>& starts = batch.itemStart[task];
        for (std::size_t r = starts[item]; r < starts[item + 1]; ++r)
            batch.countRun(kernel, task, runs[r], a, b, lookup, histogram.data());
        publish(worker, task, batch.itemCredit[task][item]);
    };
    return std::move(runTiles(schedule, workerCount, control, countItem, snapshot).partialCounts);
}

std::vector<RegionPairCounts> CpuPairCounter::countBatchByRegion(std::span<const CountTask> tasks,
                                                                 const Binning& binning,
                                                                 std::size_t regionCount,
                                                                 const CountControl& control) {
    if (regionCount == 0)
        throw ConfigError("counting by jackknife region needs at least one region");
    if (regionCount > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw ConfigError("too many jackknife regions: " + std::to_string(regionCount));
    const auto checkRegions = [&](const Catalog& catalog) {
        const auto region = catalog.region();
        if (region.size() != catalog.size())
            throw ConfigError("catalog '" + catalog.name() + "' has no jackknife regions");
        for (std::size_t i = 0; i < region.size(); ++i)
            if (region[i] < 0 || static_cast<std::size_t>(region[i]) >= regionCount)
                throw ConfigError("catalog '" + catalog.name() + "', point " +
                                  std::to_string(i + 1) + ": region " + std::to_string(region[i]) +
                                  " is outside [0, " + std::to_string(regionCount) + ")");
    };
    for (const CountTask& task : tasks) {
        if (!task.first)
            throw ConfigError("a pair-count task has no catalog");
        checkRegions(*task.first);
        if (task.second)
            checkRegions(*task.second);
    }
    if (control.cancelled())
        throw Cancelled();

    const SlotLookup lookup(binning.chord2Edges());
    const std::size_t slots = lookup.slotCount();
    const std::size_t bins = binning.count();
    const TileKernel kernel = kernelFor(m_avx512);

    const auto [pairsTotal, culled] = chooseForBatch(tasks, binning, culling());
    setLastBatchCulled(culled);

    // Brute force: each distinct catalog is put in region order once, however many tasks use
    // it. Culled: each is sorted by region, then Morton order, so no cell holds two regions.
    std::vector<std::pair<const Catalog*, std::unique_ptr<RegionOrderedPoints>>> ordered;
    const auto orderedOf = [&](const Catalog* catalog) -> const RegionOrderedPoints& {
        for (const auto& [known, points] : ordered)
            if (known == catalog)
                return *points;
        ordered.emplace_back(catalog, std::make_unique<RegionOrderedPoints>(*catalog, regionCount));
        return *ordered.back().second;
    };
    std::vector<const RegionOrderedPoints*> sideA, sideB;
    std::vector<TaskPlan> plans;
    CulledBatch batch;
    if (culled) {
        PreparationPacer pacer(control, tasks.size(), pairsTotal);
        batch = prepareCulledBatch(tasks, binning, regionCount, std::size_t(m_threads),
                                   std::ref(pacer));
    } else {
        plans.reserve(tasks.size());
        for (const CountTask& task : tasks) {
            sideA.push_back(&orderedOf(task.first));
            sideB.push_back(&orderedOf(task.second ? task.second : task.first));
            plans.emplace_back(sideA.back()->points, sideB.back()->points, task.isAuto());
        }
        batch.schedule = TileSchedule::ofTiles(plans);
    }
    const TileSchedule& schedule = batch.schedule;

    // Culled, the tallies start from the plan's whole-cell counts, taken over (not copied);
    // brute force, from zero.
    std::vector<RegionTaskTally> tallies(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        RegionTaskTally& tally = tallies[t];
        if (culled) {
            sky::TaskCellPlan& plan = batch.plan.tasks[t];
            tally.byFirst = std::move(plan.wholeByFirst);
            tally.bySecond = std::move(plan.wholeBySecond);
            tally.within = std::move(plan.wholeWithin);
            tally.pairsDone = batch.initialDone[t];
        } else {
            tally.byFirst.assign(regionCount * bins, 0);
            tally.bySecond.assign(regionCount * bins, 0);
            tally.within.assign(regionCount * bins, 0);
        }
    }
    const std::size_t workerCount = workersFor(m_threads, schedule);
    std::vector<RegionScratch> scratch;
    scratch.reserve(workerCount);
    for (std::size_t w = 0; w < workerCount; ++w)
        scratch.emplace_back(regionCount, slots);

    // Partial counts are the totals: every pair is in byFirst of exactly one region.
    const auto snapshot = [&](bool withCounts) {
        CountProgress progress;
        progress.pairsTotal = pairsTotal;
        progress.pairsDonePerTask.assign(tasks.size(), 0);
        if (withCounts)
            progress.partialCounts.assign(tasks.size(), PairCounts(bins, 0));
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            RegionTaskTally& tally = tallies[t];
            const std::lock_guard lock(tally.mutex);
            progress.pairsDonePerTask[t] = tally.pairsDone;
            if (withCounts)
                for (std::size_t r = 0; r < regionCount; ++r)
                    for (std::size_t bin = 0; bin < bins; ++bin)
                        progress.partialCounts[t][bin] += tally.byFirst[r * bins + bin];
        }
        for (std::uint64_t done : progress.pairsDonePerTask)
            progress.pairsDone += done;
        return progress;
    };

    CountProgress final;
    if (!culled) {
        const auto countTile = [&](std::size_t worker, std::size_t task, std::uint64_t index) {
            RegionScratch& s = scratch[worker];
            const TaskPlan& plan = plans[task];
            const TaskPlan::Tile tile = plan.tile(index);
            const RegionOrderedPoints& first = *sideA[task];
            const RegionOrderedPoints& second = *sideB[task];
            for (std::size_t i0 = tile.i0; i0 < tile.i1;) {
                const std::size_t ra = first.regionOf(i0);
                const std::size_t i1 = std::min(tile.i1, first.regionStart[ra + 1]);
                // On a diagonal tile only j ≥ i: the rectangle's j range starts at its own i0.
                for (std::size_t j0 = tile.diagonal ? i0 : tile.j0; j0 < tile.j1;) {
                    const std::size_t rb = second.regionOf(j0);
                    const std::size_t j1 = std::min(tile.j1, second.regionStart[rb + 1]);
                    const bool diagonal = tile.diagonal && j0 == i0;
                    kernel(plan.a, i0, i1, plan.b, j0, j1, diagonal, lookup, s.histogram.data());
                    s.addRectangle(ra, rb, tallies[task]);
                    j0 = j1;
                }
                i0 = i1;
            }
            s.publish(tallies[task], TaskPlan::pairsOf(tile));
        };
        final = runTiles(schedule, workerCount, control, countTile, snapshot);
    } else {
        // Runs never mix regions on either side (cells hold one region, runs one region of b
        // cells), so a run is a rectangle of one region pair; consecutive runs of one pair share
        // the histogram.
        const auto countItem = [&](std::size_t worker, std::size_t task, std::uint64_t item) {
            RegionScratch& s = scratch[worker];
            const sky::CellTask& cellTask = batch.cellTasks[task];
            const sky::CellPartition& cellsA = batch.plan.cells[cellTask.first];
            const sky::CellPartition& cellsB = batch.plan.cells[cellTask.second];
            const Points a = batch.pointsOf(cellTask.first), b = batch.pointsOf(cellTask.second);
            const std::vector<sky::CountRun>& runs = batch.plan.tasks[task].runs;
            const std::vector<std::size_t>& starts = batch.itemStart[task];
            std::size_t pendingFirst = 0, pendingSecond = 0;
            bool pending = false;
            for (std::size_t r = starts[item]; r < starts[item + 1]; ++r) {
                const std::size_t ra = cellsA.segment[runs[r].a];
                const std::size_t rb = cellsB.segment[runs[r].bBegin];
                if (pending && (ra != pendingFirst || rb != pendingSecond))
                    s.addRectangle(pendingFirst, pendingSecond, tallies[task]);
                pending = true;
                pendingFirst = ra;
                pendingSecond = rb;
                batch.countRun(kernel, task, runs[r], a, b, lookup, s.histogram.data());
            }
            if (pending)
                s.addRectangle(pendingFirst, pendingSecond, tallies[task]);
            s.publish(tallies[task], batch.itemCredit[task][item]);
        };
        final = runTiles(schedule, workerCount, control, countItem, snapshot);
    }

    // The tallies become the result in place: touching = byFirst + bySecond − within (exact in
    // unsigned arithmetic, the true value being non-negative), within as it is.
    std::vector<RegionPairCounts> result(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        RegionPairCounts& counts = result[t];
        RegionTaskTally& tally = tallies[t];
        counts.regionCount = regionCount;
        counts.binCount = bins;
        counts.total = std::move(final.partialCounts[t]);
        for (std::size_t k = 0; k < tally.byFirst.size(); ++k)
            tally.byFirst[k] = tally.byFirst[k] + tally.bySecond[k] - tally.within[k];
        counts.touching = std::move(tally.byFirst);
        counts.within = std::move(tally.within);
        tally.bySecond = {};
    }
    return result;
}

} // namespace tpacf
