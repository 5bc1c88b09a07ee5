// The cell-pair plan behind the CPU backend's culled path, over the cells of sky_cells.cpp.
//
// Which pairs are counted: listCellPairs (the list every backend uses) runs over coarse cells,
// groups of up to kCoarseCells cells that are octree nodes, and drops the coarse pairs out of
// reach of the bins. Each listed coarse pair is then refined by a dual descent of the two
// octrees: a node pair whose boxes put every pair into one bin is added whole (points × points),
// one entirely outside the bins is dropped, and the single cell pairs left are counted by the
// kernels. Whole node pairs are what keeps the culled path ahead of brute force at large θ_max.
//
// Why try several populations: the best cell size follows θ_max, N, the footprint, the bins and
// the clustering at once. Small cells visit fewer pairs outside θ_max and let more of them be
// added whole, but cost more box tests to plan and shorter kernel rows. The plan itself measures
// all of that, so planCellPairs prices a plan for a few populations, from large cells (cheap to
// plan) down, each on a sample of the coarse cells, with a cost model calibrated on the kernels
// (sky_cells.h), and keeps the cheapest; it stops at the first population that costs more than
// the best so far by a margin, or once the box tests of the next, finer one would cost a good
// share of the best plan.
#include "counting/sky_cells.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

namespace tpacf::sky {

namespace {

// Smallest cell population: below this a cell pair costs more to list and call than to count.
constexpr std::size_t kMinPopulation = 8;
// Populations tried, largest first (of the largest catalog; the others scale with their size).
constexpr std::array<std::size_t, 9> kPopulations = {2048, 1024, 512, 256, 128, 64, 32, 16, 8};
// Cells per coarse cell, the cells listCellPairs sees: few enough coarse cells that the list is
// cheap, small enough that it prunes the far pairs before the descent.
constexpr std::uint32_t kCoarseCells = 16;
// Coarse cells of the first catalog per one priced when choosing the population.
constexpr std::uint32_t kSampleStride = 16;
// Coarse pairs below which refining them on one thread is cheaper than starting others.
constexpr std::uint64_t kMinCoarsePairsPerThread = 256;
// Box tests between two polls.
constexpr std::uint64_t kCheckPollStride = 4096;

std::uint64_t trianglePairs(std::uint64_t n) noexcept {
    return n < 2 ? 0 : (n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2));
}

// The coarse cells listCellPairs sees: the largest tree nodes of at most kCoarseCells cells, in
// cell order. Their boxes are the nodes' boxes, so the descent below starts from a listed coarse
// pair with nothing else to look up.
void collectCoarse(const CellPartition& cells, std::uint32_t node,
                   std::vector<std::uint32_t>& out) {
    const CellNode& n = cells.nodes[node];
    if (n.cellEnd - n.cellBegin <= kCoarseCells || n.isCell()) {
        out.push_back(node);
        return;
    }
    for (std::uint32_t c = n.childBegin; c < n.childEnd; ++c)
        collectCoarse(cells, cells.children[c], out);
}

double squaredDiagonal(const CellBounds& box) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis)
        sum += (box.hi[axis] - box.lo[axis]) * (box.hi[axis] - box.lo[axis]);
    return sum;
}

// The whole-cell counts of one task (TaskCellPlan's regionCount × bins arrays), which the
// refiners of all its chunks add to. At thousands of regions and bins the arrays are hundreds of
// MB, too much to give every refiner its own copy (one per chunk took 3.4 GB at 3000 regions and
// 3000 bins on 2 threads); each refiner buffers its additions instead and adds a batch at a time
// under the lock. Sums of integers: the order in which the batches arrive changes nothing; the
// weighted sums of a weighted task (doubles) are added in that order too, so with several
// planning threads they can differ in the last bits from one run to the next.
class WholeCounts {
public:
    struct Addition {
        std::uint32_t regionA, regionB, bin;
        std::uint64_t pairs;
        double weighted; // Σ w_i·w_j of the pairs (weighted tasks only)
    };

    WholeCounts(TaskCellPlan& out, std::size_t bins) : m_out(out), m_bins(bins) {}

    void add(std::span<const Addition> additions) {
        const std::lock_guard lock(m_mutex);
        for (const Addition& a : additions) {
            m_out.wholeByFirst[a.regionA * m_bins + a.bin] += a.pairs;
            m_out.wholeBySecond[a.regionB * m_bins + a.bin] += a.pairs;
            if (a.regionA == a.regionB)
                m_out.wholeWithin[a.regionA * m_bins + a.bin] += a.pairs;
        }
        if (m_out.wholeWeightedByFirst.empty())
            return;
        for (const Addition& a : additions) {
            m_out.wholeWeightedByFirst[a.regionA * m_bins + a.bin] += a.weighted;
            if (a.regionA == a.regionB)
                m_out.wholeWeightedWithin[a.regionA * m_bins + a.bin] += a.weighted;
            else
                m_out.wholeWeightedBySecondOnly[a.regionB * m_bins + a.bin] += a.weighted;
        }
    }

private:
    std::mutex m_mutex;
    TaskCellPlan& m_out;
    std::size_t m_bins;
};

// Additions a refiner buffers before it takes the lock: 96 KiB, a few hundred µs of box tests.
constexpr std::size_t kWholeBatch = 4096;

// Per task: refines each coarse cell pair listCellPairs returned by a dual descent of both
// octrees. A node pair whose boxes put every pair into one bin is added whole (points · points,
// one multiplication) where each side lies in one region; one that puts every pair outside the
// bins is dropped; the rest split the side with the larger box, down to single cells, whose
// pairs are left to the kernels. At large θ a group of cells against another costs one box test.
class DualRefiner {
public:
    /// `out` takes the refiner's counters and (finish) runs; `whole` its whole-cell counts.
    DualRefiner(const CellTask& task, const CellPartition& cellsA, const CellPartition& cellsB,
                std::span<const double> chord2Edges, TaskCellPlan& out, WholeCounts& whole)
        : m_task(task), m_cellsA(cellsA), m_cellsB(cellsB), m_edges(chord2Edges.data()),
          m_edgeCount(chord2Edges.size()), m_out(out), m_whole(whole) {}

    void refine(std::uint32_t nodeA, std::uint32_t nodeB) {
        if (m_task.isAuto && nodeA == nodeB)
            visitSame(nodeA);
        else
            visit(nodeA, nodeB);
    }

    std::uint64_t checks() const noexcept { return m_checks; }

    /// Adds the buffered whole-cell counts to the task's and frees the buffer.
    void flushWhole() {
        if (!m_pendingWhole.empty())
            m_whole.add(m_pendingWhole);
        m_pendingWhole = {};
    }

    /// Takes over what another refiner of the same task found (its counters and its cell pairs,
    /// which come after this one's in list order; its whole-cell counts go to the task's).
    void absorb(DualRefiner& part) {
        part.flushWhole();
        m_out.wholePairs += part.m_out.wholePairs;
        m_out.countedPairs += part.m_out.countedPairs;
        m_pairs.insert(m_pairs.end(), part.m_pairs.begin(), part.m_pairs.end());
        part.m_pairs = {};
        m_checks += part.m_checks;
    }

    /// The single cell pairs left to count, as runs sorted by a then b (merged where b cells
    /// are consecutive, of one region and within kMaxRunPairs). Returns the rows (points of
    /// the a cells over all runs) for the cost model.
    std::uint64_t finish() {
        // Each a's cells come out of the descent in increasing b (every split visits its parts
        // in order, and listCellPairs' runs come sorted), so a stable counting sort by a orders
        // the list; a group found out of order is sorted rather than trusted.
        const std::size_t cellCountA = m_cellsA.cellCount();
        std::vector<std::size_t> start(cellCountA + 1, 0);
        for (const auto& [a, b] : m_pairs)
            ++start[a + 1];
        for (std::size_t a = 0; a < cellCountA; ++a)
            start[a + 1] += start[a];
        std::vector<std::uint32_t> bOfA(m_pairs.size());
        for (const auto& [a, b] : m_pairs)
            bOfA[start[a]++] = b;
        m_pairs = {};
        std::uint64_t rows = 0, runPairs = 0;
        std::size_t from = 0;
        for (std::uint32_t a = 0; a < cellCountA; ++a) {
            const std::size_t to = start[a];
            const auto first = bOfA.begin() + static_cast<std::ptrdiff_t>(from);
            const auto last = bOfA.begin() + static_cast<std::ptrdiff_t>(to);
            if (!std::is_sorted(first, last))
                std::sort(first, last);
            const std::uint64_t countA = m_cellsA.countOf(a);
            for (std::size_t k = from; k < to; ++k) {
                const std::uint32_t b = bOfA[k];
                const std::uint64_t pairs =
                    m_task.isAuto && b == a ? trianglePairs(countA) : countA * m_cellsB.countOf(b);
                CountRun* run = k == from ? nullptr : &m_out.runs.back();
                if (run && run->bEnd == b && m_cellsB.segment[run->bBegin] == m_cellsB.segment[b] &&
                    runPairs + pairs <= kMaxRunPairs) {
                    run->bEnd = b + 1;
                    runPairs += pairs;
                } else {
                    m_out.runs.push_back(CountRun{a, b, b + 1});
                    runPairs = pairs;
                    rows += countA;
                }
            }
            from = to;
        }
        return rows;
    }

private:
    enum class Outcome { Done, Split };

    static std::uint64_t pointsOf(const CellPartition& cells, const CellNode& n) noexcept {
        return cells.start[n.cellEnd] - cells.start[n.cellBegin];
    }

    // One node on both sides of an auto task: pairs i < j within it.
    void visitSame(std::uint32_t node) {
        const CellNode& n = m_cellsA.nodes[node];
        const std::uint64_t pairs = trianglePairs(pointsOf(m_cellsA, n));
        if (pairs == 0 || classify(n, n, pairs, true) == Outcome::Done)
            return;
        if (n.isCell()) {
            m_pairs.emplace_back(n.cellBegin, n.cellBegin);
            m_out.countedPairs += pairs;
            return;
        }
        for (std::uint32_t i = n.childBegin; i < n.childEnd; ++i) {
            visitSame(m_cellsA.children[i]);
            for (std::uint32_t j = i + 1; j < n.childEnd; ++j)
                visit(m_cellsA.children[i], m_cellsA.children[j]);
        }
    }

    void visit(std::uint32_t nodeA, std::uint32_t nodeB) {
        const CellNode& a = m_cellsA.nodes[nodeA];
        const CellNode& b = m_cellsB.nodes[nodeB];
        const std::uint64_t pairs = pointsOf(m_cellsA, a) * pointsOf(m_cellsB, b);
        if (classify(a, b, pairs, false) == Outcome::Done)
            return;
        const bool splitA =
            !a.isCell() && (b.isCell() || squaredDiagonal(a.box) >= squaredDiagonal(b.box));
        if (splitA) {
            for (std::uint32_t i = a.childBegin; i < a.childEnd; ++i)
                visit(m_cellsA.children[i], nodeB);
        } else if (!b.isCell()) {
            for (std::uint32_t j = b.childBegin; j < b.childEnd; ++j)
                visit(nodeA, m_cellsB.children[j]);
        } else {
            m_pairs.emplace_back(a.cellBegin, b.cellBegin);
            m_out.countedPairs += pairs;
        }
    }

    // Done: every pair between the boxes lies in one slot (added whole where that slot is a bin
    // and each side lies in one region) or outside the bins. `same`: a node with itself (auto),
    // pairs i < j within it.
    Outcome classify(const CellNode& a, const CellNode& b, std::uint64_t pairs, bool same) {
        ++m_checks;
        const double nearest = boxMinChord2(a.box, b.box);
        if (nearest >= m_edges[m_edgeCount - 1])
            return Outcome::Done; // at or beyond the last edge
        const double farthest = boxMaxChord2(a.box, b.box);
        if (farthest < m_edges[0])
            return Outcome::Done; // below the first edge
        // Thresholds ≤ c², as the kernels define a slot (a branch-free upper_bound: the
        // outcome is unpredictable); one slot for the whole range of the box pair means every
        // pair lands in it.
        const double* base = m_edges;
        for (std::size_t n = m_edgeCount; n > 1;) {
            const std::size_t half = n / 2;
            base = base[half] <= nearest ? base + half : base;
            n -= half;
        }
        const auto slot = static_cast<std::size_t>(base - m_edges) + (*base <= nearest ? 1 : 0);
        if (slot == 0 || !(farthest < m_edges[slot]) || a.segment < 0 || b.segment < 0)
            return Outcome::Split;
        // Weighted: Σ_a w · Σ_b w, or for a node with itself ((Σw)² − Σw²)/2.
        double weighted = 0;
        if (m_task.weighted)
            weighted = same ? (a.weightSum * a.weightSum - a.weightSquareSum) / 2
                            : a.weightSum * b.weightSum;
        m_pendingWhole.push_back({static_cast<std::uint32_t>(a.segment),
                                  static_cast<std::uint32_t>(b.segment),
                                  static_cast<std::uint32_t>(slot - 1), pairs, weighted});
        if (m_pendingWhole.size() >= kWholeBatch)
            flushWhole();
        m_out.wholePairs += pairs;
        return Outcome::Done;
    }

    const CellTask& m_task;
    const CellPartition& m_cellsA;
    const CellPartition& m_cellsB;
    const double* m_edges;
    std::size_t m_edgeCount;
    TaskCellPlan& m_out;
    WholeCounts& m_whole;
    std::vector<WholeCounts::Addition> m_pendingWhole;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_pairs; // single cell pairs to count
    std::uint64_t m_checks = 0;
};

// Refines the coarse pairs of `listed` (every stride-th a) on `threads` workers of the runner
// (on the calling thread where the list is short): chunks of the list in order, each with its
// own refiner (makeRefiner(output)), absorbed into `into` in list order, so the result is the
// same as one refiner's whatever the thread count. Only the calling thread polls; a poll that
// throws stops and joins the workers first.
template <class MakeRefiner, class RefineOne>
void refineInParallel(const std::vector<CellPairRun>& listed, std::uint32_t stride,
                      std::size_t threads, const Poll& poll, MakeRefiner&& makeRefiner,
                      RefineOne&& refineOne, DualRefiner& into) {
    std::uint64_t coarsePairs = 0;
    for (const CellPairRun& run : listed)
        if (run.a % stride == 0)
            coarsePairs += run.bEnd - run.bBegin;
    // A few chunks per thread, so clumps of a clustered catalog do not leave threads idle.
    const std::size_t helpers = coarsePairs < kMinCoarsePairsPerThread ? 0 : threads - 1;
    const std::uint64_t chunkPairs = std::max<std::uint64_t>(1, coarsePairs / (8 * (helpers + 1)));
    std::vector<std::pair<std::size_t, std::size_t>> chunks; // runs [first, end)
    {
        std::uint64_t inChunk = 0;
        std::size_t first = 0;
        for (std::size_t r = 0; r < listed.size(); ++r) {
            if (listed[r].a % stride == 0)
                inChunk += listed[r].bEnd - listed[r].bBegin;
            if (inChunk >= chunkPairs || r + 1 == listed.size()) {
                chunks.emplace_back(first, r + 1);
                first = r + 1;
                inChunk = 0;
            }
        }
    }
    std::vector<TaskCellPlan> outputs(chunks.size());
    std::vector<std::optional<DualRefiner>> parts(chunks.size());
    std::atomic<std::size_t> nextChunk{0};

    // caller: the calling thread refines alone and polls between box tests.
    const auto work = [&](bool caller, const std::atomic<bool>& stop) {
        std::uint64_t sincePoll = 0;
        for (std::size_t c; (c = nextChunk.fetch_add(1)) < chunks.size();) {
            DualRefiner& part = parts[c].emplace(makeRefiner(outputs[c]));
            for (std::size_t r = chunks[c].first; r < chunks[c].second; ++r) {
                const CellPairRun& run = listed[r];
                if (run.a % stride != 0)
                    continue;
                for (std::uint32_t b = run.bBegin; b < run.bEnd; ++b) {
                    if (stop.load(std::memory_order_relaxed))
                        return;
                    const std::uint64_t before = part.checks();
                    refineOne(run, b, part);
                    sincePoll += part.checks() - before;
                    if (caller && sincePoll >= kCheckPollStride) {
                        sincePoll = 0;
                        poll();
                    }
                }
            }
            part.flushWhole();
        }
    };

    if (helpers == 0) {
        const std::atomic<bool> never{false};
        work(true, never);
    } else {
        // The calling thread only watches: it polls (progress, cancel) while the workers refine;
        // a poll that throws stops them, and the error comes back once they are joined.
        RunnerWatch watch;
        watch.tick = poll;
        watch.interval = std::chrono::milliseconds(5);
        runWorkers(
            helpers + 1, [&](std::size_t, const std::atomic<bool>& stop) { work(false, stop); },
            watch);
    }
    for (std::optional<DualRefiner>& part : parts)
        into.absorb(*part);
}

} // namespace

CellPlan planForPopulation(std::span<const SortedCatalog> catalogs, std::span<const CellTask> tasks,
                           std::span<const double> chord2Edges, std::size_t regionCount,
                           std::size_t population, const Poll& poll, std::size_t threads,
                           std::uint32_t maxSampleStride) {
    CellPlan plan;
    plan.population = population;
    std::size_t largest = 0;
    for (const SortedCatalog& catalog : catalogs)
        largest = std::max(largest, catalog.size());
    // Equal cell sizes on the sky for catalogs of one footprint: populations scale with N.
    plan.cells.reserve(catalogs.size());
    std::vector<std::vector<std::uint32_t>> coarse(catalogs.size()); // tree nodes
    std::vector<std::vector<CellBounds>> coarseBounds(catalogs.size());
    for (std::size_t c = 0; c < catalogs.size(); ++c) {
        const SortedCatalog& catalog = catalogs[c];
        const std::size_t scaled =
            largest == 0 ? population
                         : std::max(kMinPopulation, population * catalog.size() / largest);
        const CellPartition& cells =
            plan.cells.emplace_back(partitionCells(catalog, std::min(population, scaled)));
        if (cells.root >= 0)
            collectCoarse(cells, static_cast<std::uint32_t>(cells.root), coarse[c]);
        for (std::uint32_t node : coarse[c])
            coarseBounds[c].push_back(cells.nodes[node].box);
        poll();
    }

    const std::size_t regions = std::max<std::size_t>(1, regionCount);
    const std::size_t bins = chord2Edges.size() - 1;
    double cost = 0;
    plan.tasks.resize(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const CellTask& task = tasks[t];
        const std::size_t second = task.isAuto ? task.first : task.second;
        TaskCellPlan& out = plan.tasks[t];
        out.wholeByFirst.assign(regions * bins, 0);
        out.wholeBySecond.assign(regions * bins, 0);
        out.wholeWithin.assign(regions * bins, 0);
        if (task.weighted) {
            out.wholeWeightedByFirst.assign(regions * bins, 0.0);
            out.wholeWeightedBySecondOnly.assign(regions * bins, 0.0);
            out.wholeWeightedWithin.assign(regions * bins, 0.0);
        }

        CellPairQuery query;
        query.chord2Min = chord2Edges.front();
        query.chord2Max = chord2Edges.back();
        // The bounds are exact for the double kernels (see boxMinChord2); the margin is spare.
        query.relativeMargin = 1e-12;
        query.autoPairs = task.isAuto;
        const std::vector<CellPairRun> listed =
            listCellPairs(coarseBounds[task.first], coarseBounds[second], query);
        poll();
        plan.listedCellPairs += cellPairCount(listed);

        // Sample only where at least ~128 coarse cells of the first catalog are left to price
        // (clustered catalogs put much of the work in a few clumps).
        const auto stride = static_cast<std::uint32_t>(std::clamp<std::size_t>(
            coarse[task.first].size() / 128, 1, std::max<std::uint32_t>(1, maxSampleStride)));
        WholeCounts whole(out, bins);
        DualRefiner refiner(task, plan.cells[task.first], plan.cells[second], chord2Edges, out,
                            whole);
        refineInParallel(
            listed, stride, threads, poll,
            [&](TaskCellPlan& part) {
                return DualRefiner(task, plan.cells[task.first], plan.cells[second], chord2Edges,
                                   part, whole);
            },
            [&](const CellPairRun& run, std::uint32_t b, DualRefiner& part) {
                part.refine(coarse[task.first][run.a], coarse[second][b]);
            },
            refiner);
        const std::uint64_t rows = refiner.finish();
        plan.checks += refiner.checks() * stride;
        cost += (static_cast<double>(out.countedPairs) + kRowCost * static_cast<double>(rows) +
                 kRunCost * static_cast<double>(out.runs.size()) +
                 kCheckCost * static_cast<double>(refiner.checks())) *
                stride;
        poll();
    }
    plan.cost = cost;
    return plan;
}

CellPlan planCellPairs(std::span<const SortedCatalog> catalogs, std::span<const CellTask> tasks,
                       std::span<const double> chord2Edges, std::size_t regionCount,
                       const Poll& poll, std::size_t threads) {
    // Candidates are priced on a sample of each task's coarse cells (every stride-th of its
    // first catalog, with all their pairs), which is unbiased for a spatially coherent order and
    // costs a fraction of the full plan; only the chosen population is planned in full.
    double bestCost = 0;
    std::size_t bestPopulation = 0;
    for (std::size_t population : kPopulations) {
        const CellPlan candidate = planForPopulation(catalogs, tasks, chord2Edges, regionCount,
                                                     population, poll, threads, kSampleStride);
        // Past the minimum (with room for the sample's noise), finer cells only add box tests.
        if (bestPopulation != 0 && candidate.cost > 1.25 * bestCost)
            break;
        if (bestPopulation == 0 || candidate.cost < bestCost) {
            bestCost = candidate.cost;
            bestPopulation = population;
        }
        // Halving the population multiplies the box tests by 2.5 or more (measured 2.5–5), and
        // pricing it costs a share of them: once they would cost a quarter of the best plan, a
        // finer partition wins too little, if at all, to pay for looking.
        if (2.5 * kCheckCost * static_cast<double>(candidate.checks) >= 0.25 * bestCost)
            break;
    }
    return planForPopulation(catalogs, tasks, chord2Edges, regionCount, bestPopulation, poll,
                             threads, 1);
}

} // namespace tpacf::sky
