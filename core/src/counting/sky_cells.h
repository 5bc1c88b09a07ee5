// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the CPU backend: the host-side partition of catalogs into spatially coherent cells
// and the plan of which cell pairs to count point by point and which to add whole, for the
// culled path of CpuPairCounter. Nothing here is public API.
#include "tpacf/catalog.h"
#include "tpacf/culling.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace tpacf::sky {

/// Called between short steps (well under 50 ms each) of the preparation, on the thread that
/// called the count: checks the cancel token (throws Cancelled) and reports progress.
using Poll = std::function<void()>;

/// An allocator that leaves new elements of trivial types uninitialised: buffers that workers
/// fill right away are not zeroed first on one thread (their pages are first touched, and
/// faulted in, by the workers that fill them).
template <class T> struct DefaultInitAllocator : std::allocator<T> {
    template <class U> struct rebind { using other = DefaultInitAllocator<U>; };
    DefaultInitAllocator() noexcept = default;
    template <class U> DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    template <class U> void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
template <class T> using Buffer = std::vector<T, DefaultInitAllocator<T>>;

/// Runs body(item) for every item in [0, count) on up to `threads` workers of the runner, items
/// handed out in order from a shared counter, while the calling thread polls (progress, cancel)
/// every few ms; the first error (a worker's or the poll's) is rethrown once all are joined.
/// One worker or one item: inline on the calling thread, polling after each item.
void forEachItem(std::size_t count, std::size_t threads, const Poll& poll,
                 const std::function<void(std::size_t item)>& body);
/// The same for items long enough to stop inside: body also gets a poll of its own (on a
/// worker it throws Cancelled once the workers are told to stop; inline it is `poll`).
void forEachItem(std::size_t count, std::size_t threads, const Poll& poll,
                 const std::function<void(std::size_t item, const Poll& itemPoll)>& body);

/// A catalog's unit vectors copied into Morton (Z-order) order of their position in R³, as
/// structure of arrays. With regions, points are ordered by region first, Morton within each
/// region, so that no cell ever holds two regions.
struct SortedCatalog {
    Buffer<double> x, y, z;
    /// Weight of each sorted point: the catalog's, or (set by the culled batch) ones for a
    /// catalog without weights in a weighted task; empty otherwise.
    Buffer<double> w;
    Buffer<std::uint64_t> keys;            ///< Morton key of each sorted point
    std::vector<std::size_t> segmentStart; ///< regions + 1 offsets (one segment without regions)
    std::size_t size() const noexcept { return x.size(); }
};

/// Sorts a catalog (its regions too when `regionCount` > 0; they must lie in [0, regionCount)),
/// with its weights where it has them, on up to `threads` workers.
/// The order is the unique stable one by (region, Morton key), whatever the thread count: a
/// parallel stable counting sort by region, then by the keys' leading digits, splits the points
/// into ranges that are sorted independently (an MSD radix sort in cache); O(N).
SortedCatalog sortCatalog(const Catalog& catalog, std::size_t regionCount, const Poll& poll,
                          std::size_t threads = 1);

/// A node of the octree over the cells: a cell (no children) or the octree node above several.
/// Its cells are consecutive.
struct CellNode {
    CellBounds box;
    std::uint32_t cellBegin = 0, cellEnd = 0;   ///< cells under the node
    std::uint32_t childBegin = 0, childEnd = 0; ///< range in CellPartition::children
    std::int32_t segment = 0;                   ///< region of its points, −1 where several
    /// Σw and Σw² of its points (where the sorted catalog has weights, else 0): a cell's summed
    /// in point order, a parent's over its children in order, so every plan sums alike.
    double weightSum = 0, weightSquareSum = 0;
    bool isCell() const noexcept { return childBegin == childEnd; }
};

/// Consecutive cells over a SortedCatalog: cell c holds sorted points [start[c], start[c+1]).
struct CellPartition {
    std::vector<std::size_t> start;     ///< cells + 1 offsets
    std::vector<CellBounds> bounds;     ///< box of each cell's unit vectors
    std::vector<std::uint32_t> segment; ///< region of each cell (0 without regions)
    /// The octree above the cells (children before parents) and its root (−1: no cells). Lets
    /// the planner test a whole group of cells against another with one box pair.
    std::vector<CellNode> nodes;
    std::vector<std::uint32_t> children;
    std::int64_t root = -1;
    std::size_t cellCount() const noexcept { return bounds.size(); }
    std::size_t countOf(std::size_t cell) const noexcept { return start[cell + 1] - start[cell]; }
};

/// Adaptive octree leaves over the Morton order holding at most `population` points each (more
/// only where more than that many points share one finest Morton cell, ≈ 0.2″), never crossing a
/// segment. Every cell is non-empty. The same partition, array for array, on any number of
/// `threads` (large nodes are partitioned on workers and spliced in).
CellPartition partitionCells(
    const SortedCatalog& sorted, std::size_t population, std::size_t threads = 1,
    const Poll& poll = [] {});

/// Bounds on the squared chord of every pair (p in box a, q in box b) as the CPU kernels compute
/// it: the same subtractions, squares and ((x + y) + z) sum, each rounded on its own; rounding is
/// monotone, so a pair's computed c² never leaves [boxMinChord2, boxMaxChord2] computed here.
/// (fl(b.lo − a.hi) ≤ |fl(p − q)| for every p ≤ a.hi, q ≥ b.lo: rounding to nearest is monotone
/// and odd.) The same as listCellPairs' bounds in culling.cpp. Inline: the planner calls them
/// for every box pair it tests.
inline double boxMinChord2(const CellBounds& a, const CellBounds& b) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double gap =
            std::max(0.0, std::max(b.lo[axis] - a.hi[axis], a.lo[axis] - b.hi[axis]));
        sum += gap * gap;
    }
    return sum;
}
inline double boxMaxChord2(const CellBounds& a, const CellBounds& b) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double span = std::max(b.hi[axis] - a.lo[axis], a.hi[axis] - b.lo[axis]);
        sum += span * span;
    }
    return sum;
}

/// Cell pairs (a, b) for b in [bBegin, bEnd) whose pairs must be binned one by one. The b cells
/// of one run lie in one segment (region) and are contiguous in memory.
struct CountRun {
    std::uint32_t a = 0;
    std::uint32_t bBegin = 0;
    std::uint32_t bEnd = 0;
};

/// One count of the batch: catalogs by index into the sorted catalogs.
struct CellTask {
    std::size_t first = 0;
    std::size_t second = 0; ///< == first for auto
    bool isAuto = false;
    bool weighted = false; ///< whole cell pairs also sum weights (the sorted catalogs have them)
};

/// Per task, what the plan found out without looking at single pairs.
struct TaskCellPlan {
    std::vector<CountRun> runs;
    /// Pairs of whole cell pairs lying in one bin, keyed as the region counts are (segment of the
    /// first point, of the second, of both): regionCount × bins each, row-major by region
    /// (regionCount 1 without regions; then bySecond and within repeat byFirst).
    std::vector<std::uint64_t> wholeByFirst, wholeBySecond, wholeWithin;
    /// Weighted tasks: Σw_i·w_j of the same whole cell pairs, by the segment of the first point
    /// (byFirst), of the second where it differs from the first (bySecondOnly: touching is then
    /// byFirst + bySecondOnly, without a subtraction) and of both; empty for unweighted tasks.
    std::vector<double> wholeWeightedByFirst, wholeWeightedBySecondOnly, wholeWeightedWithin;
    std::uint64_t wholePairs = 0;   ///< pairs added whole (in range)
    std::uint64_t countedPairs = 0; ///< pairs the runs visit
};

/// Single cell pairs (a, b) a refiner of the plan left to count, in the order it found them.
using CellPairList = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

/// The runs of a cells [lo, hi) from the refiners' lists (`reach`: each list's lowest and
/// highest a): a stable counting sort by a of the lists' pairs in that range, each a's b cells
/// sorted where they are not, then consecutive b cells of one region merged into a run while it
/// stays within kMaxRunPairs. Appends to `runs`; returns their rows (points of their a cells),
/// for the cost model. Runs never span two a, so cutting [0, cells) into blocks changes nothing.
std::uint64_t buildRuns(const CellTask& task, const CellPartition& cellsA,
                        const CellPartition& cellsB, std::span<const CellPairList* const> lists,
                        std::span<const std::pair<std::uint32_t, std::uint32_t>> reach,
                        std::uint32_t lo, std::uint32_t hi, std::vector<CountRun>& runs);

/// The partition chosen for the batch and the cell-pair plan of every task.
struct CellPlan {
    std::size_t population = 0;       ///< cell population of the largest catalog
    std::vector<CellPartition> cells; ///< per sorted catalog
    std::vector<TaskCellPlan> tasks;
    double cost = 0;                   ///< the cost model's figure, in pair-kernel units
    std::uint64_t listedCellPairs = 0; ///< coarse cell pairs listCellPairs returned
    std::uint64_t checks = 0;          ///< box pairs tested while refining them (estimated)
};

/// The cost model, in units of one pair in the kernel. Measured first on the reference machine
/// (2 threads, AVX-512), where a pair then cost ≈ 1.3 ns of wall time, on 100,000 points
/// (clustered 40° box and uniform full sky) for populations 8–2048: each row of a run (a point
/// of its a cell) costs ≈ 20 ns on top of its pairs (loop exits, the histogram tail), a run a
/// call, and a box pair tested while planning ≈ 60 ns on the calling thread. The kernel that
/// counts a chunk by cuts made a pair about twice as cheap (DD of 10^6 points to 10°: 4.33 →
/// 2.02 s) and left the rest as it was, so the three figures are twice those of that
/// measurement (15, 20, 45): on the standard job's DD + DR + RR (10^6 + 10^6 points to 10°) the
/// chosen population went from 32 to 64 points, the plan from 1.6 to 0.5 s and the count from
/// 6.6 to 6.0 s on 2 threads (BENCHMARKS.md). The scheduler uses the same figures to cut the
/// runs into work items of similar duration.
inline constexpr double kRowCost = 30;
inline constexpr double kRunCost = 40;
inline constexpr double kCheckCost = 90;

/// Longest run in pairs: a run is one kernel call and one piece of a work item.
inline constexpr std::uint64_t kMaxRunPairs = std::uint64_t{1} << 21;

/// Tries a few cell populations and keeps the plan of least modelled cost (see sky_cell_plan.cpp).
/// chord2Edges: the binning's ascending squared-chord edges. regionCount: 0 without regions.
/// threads: how many may refine the list (the calling thread, which polls, among them).
CellPlan planCellPairs(std::span<const SortedCatalog> catalogs, std::span<const CellTask> tasks,
                       std::span<const double> chord2Edges, std::size_t regionCount,
                       const Poll& poll, std::size_t threads);

/// One plan for a given population (the tests force one; planCellPairs calls it). With
/// maxSampleStride > 1, a task whose first catalog has many coarse cells is planned only for
/// every stride-th of them (stride ≤ maxSampleStride) and its cost and box tests are scaled up:
/// an estimate for choosing, not a plan to count.
CellPlan planForPopulation(std::span<const SortedCatalog> catalogs, std::span<const CellTask> tasks,
                           std::span<const double> chord2Edges, std::size_t regionCount,
                           std::size_t population, const Poll& poll, std::size_t threads = 1,
                           std::uint32_t maxSampleStride = 1);

} // namespace tpacf::sky
