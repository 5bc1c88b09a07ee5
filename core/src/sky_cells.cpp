// The partition behind the CPU backend's culled path.
//
// Why Morton order of the unit vectors and adaptive octree leaves, rather than declination bands
// and RA cells or HEALPix: the pair test works on the R³ unit vectors (the chord is their
// Euclidean distance), so cells are best described by the R³ box of their points, and a Z-order
// of R³ has no pole and no RA = 0/360 seam to special-case. Cutting the Morton order where an
// octree node holds few enough points gives cells that follow the point density (a clump of a
// clustered catalog gets many small cells, an empty stretch none), so clustered data gives
// balanced cell pairs; the octree (not a fixed count) keeps each cell's box compact where equal
// counts would straddle the jumps of the Z-curve. Consecutive cells stay spatially close, which
// is what listCellPairs' tree over consecutive cells needs.
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
#include "sky_cells.h"

#include "stop_and_join.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace tpacf::sky {

namespace {

// Bits per axis of the Morton key: 3 × 21 = 63 bits. The finest cell is 2/2²¹ ≈ 1e-6 wide in
// unit-vector coordinates (≈ 0.2″), far below any bin a user asks for.
constexpr int kMortonBits = 21;
constexpr int kMortonLevels = kMortonBits;
// Radix sort digit: 6 passes of 11 bits cover the 63-bit key; 2048 counters stay in L1.
constexpr int kRadixBits = 11;
constexpr std::size_t kRadixBuckets = std::size_t{1} << kRadixBits;
constexpr int kRadixPasses = (3 * kMortonBits + kRadixBits - 1) / kRadixBits;
// Elements between two polls of the preparation loops (well under a millisecond of work).
constexpr std::size_t kPollStride = std::size_t{1} << 16;
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

// Spreads the low 21 bits of v to every third bit.
std::uint64_t spreadBits(std::uint64_t v) noexcept {
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

std::uint64_t quantise(double coordinate) noexcept {
    constexpr double scale = double(std::uint64_t{1} << (kMortonBits - 1));
    constexpr double top = double((std::uint64_t{1} << kMortonBits) - 1);
    // Unit-vector components lie in [-1, 1]; the clamp covers 1 itself.
    return static_cast<std::uint64_t>(std::clamp((coordinate + 1.0) * scale, 0.0, top));
}

std::uint64_t mortonKey(double x, double y, double z) noexcept {
    return spreadBits(quantise(x)) << 2 | spreadBits(quantise(y)) << 1 | spreadBits(quantise(z));
}

std::uint64_t trianglePairs(std::uint64_t n) noexcept {
    return n < 2 ? 0 : (n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2));
}

// Builds the cells and the octree above them. Nodes are appended children first, so a node's
// index is larger than its children's; single-child nodes are skipped (the child stands in).
class Partitioner {
public:
    Partitioner(const SortedCatalog& sorted, std::size_t population, CellPartition& out)
        : m_sorted(sorted), m_population(std::max<std::size_t>(1, population)), m_out(out) {}

    void build() {
        std::vector<std::uint32_t> roots;
        for (std::size_t s = 0; s + 1 < m_sorted.segmentStart.size(); ++s) {
            const std::size_t begin = m_sorted.segmentStart[s], end = m_sorted.segmentStart[s + 1];
            m_segment = static_cast<std::uint32_t>(s);
            if (end > begin)
                roots.push_back(node(begin, end, 0));
        }
        m_out.start.push_back(m_sorted.size());
        m_out.root = roots.empty() ? -1 : static_cast<std::int64_t>(parentOf(roots));
    }

private:
    // Points [begin, end) share their first `level` Morton digits (3 bits each).
    std::uint32_t node(std::size_t begin, std::size_t end, int level) {
        if (end - begin <= m_population)
            return cell(begin, end);
        std::vector<std::uint32_t> children;
        if (level == kMortonLevels) {
            // More points than a cell holds at one finest key (duplicates or ≈ 0.2″ apart):
            // equal chunks, all of a tiny box.
            for (std::size_t from = begin; from < end; from += m_population)
                children.push_back(cell(from, std::min(end, from + m_population)));
            return parentOf(children);
        }
        const int shift = 3 * (kMortonLevels - 1 - level);
        const std::uint64_t* keys = m_sorted.keys.data();
        std::array<std::size_t, 9> childStart{};
        childStart[0] = begin;
        childStart[8] = end;
        for (std::uint64_t digit = 1; digit < 8; ++digit)
            childStart[digit] = static_cast<std::size_t>(
                std::partition_point(
                    keys + childStart[digit - 1], keys + end,
                    [&](std::uint64_t key) { return (key >> shift & 7) < digit; }) -
                keys);
        // Siblings too small to be cells of their own are grouped with their neighbours in
        // Morton order: the group's box stays within this node's.
        std::size_t groupBegin = begin, groupEnd = begin;
        for (std::size_t digit = 0; digit < 8; ++digit) {
            const std::size_t childBegin = childStart[digit], childEnd = childStart[digit + 1];
            const std::size_t count = childEnd - childBegin;
            if (count == 0)
                continue;
            if (count > m_population) {
                if (groupEnd > groupBegin)
                    children.push_back(cell(groupBegin, groupEnd));
                children.push_back(node(childBegin, childEnd, level + 1));
                groupBegin = groupEnd = childEnd;
                continue;
            }
            if (groupEnd - groupBegin + count > m_population) {
                children.push_back(cell(groupBegin, groupEnd));
                groupBegin = childBegin;
            }
            groupEnd = childEnd;
        }
        if (groupEnd > groupBegin)
            children.push_back(cell(groupBegin, groupEnd));
        return parentOf(children);
    }

    std::uint32_t cell(std::size_t begin, std::size_t end) {
        CellBounds box{{m_sorted.x[begin], m_sorted.y[begin], m_sorted.z[begin]},
                       {m_sorted.x[begin], m_sorted.y[begin], m_sorted.z[begin]}};
        for (std::size_t i = begin + 1; i < end; ++i) {
            const double p[3] = {m_sorted.x[i], m_sorted.y[i], m_sorted.z[i]};
            for (int axis = 0; axis < 3; ++axis) {
                box.lo[axis] = std::min(box.lo[axis], p[axis]);
                box.hi[axis] = std::max(box.hi[axis], p[axis]);
            }
        }
        const auto index = static_cast<std::uint32_t>(m_out.bounds.size());
        m_out.start.push_back(begin);
        m_out.bounds.push_back(box);
        m_out.segment.push_back(m_segment);
        CellNode leaf;
        leaf.box = box;
        leaf.cellBegin = index;
        leaf.cellEnd = index + 1;
        leaf.segment = static_cast<std::int32_t>(m_segment);
        m_out.nodes.push_back(leaf);
        return static_cast<std::uint32_t>(m_out.nodes.size() - 1);
    }

    std::uint32_t parentOf(const std::vector<std::uint32_t>& children) {
        if (children.size() == 1)
            return children.front();
        CellNode parent;
        parent.box = m_out.nodes[children.front()].box;
        parent.segment = m_out.nodes[children.front()].segment;
        for (std::uint32_t child : children) {
            const CellNode& c = m_out.nodes[child];
            for (int axis = 0; axis < 3; ++axis) {
                parent.box.lo[axis] = std::min(parent.box.lo[axis], c.box.lo[axis]);
                parent.box.hi[axis] = std::max(parent.box.hi[axis], c.box.hi[axis]);
            }
            if (c.segment != parent.segment)
                parent.segment = -1;
        }
        parent.cellBegin = m_out.nodes[children.front()].cellBegin;
        parent.cellEnd = m_out.nodes[children.back()].cellEnd;
        parent.childBegin = static_cast<std::uint32_t>(m_out.children.size());
        m_out.children.insert(m_out.children.end(), children.begin(), children.end());
        parent.childEnd = static_cast<std::uint32_t>(m_out.children.size());
        m_out.nodes.push_back(parent);
        return static_cast<std::uint32_t>(m_out.nodes.size() - 1);
    }

    const SortedCatalog& m_sorted;
    std::size_t m_population;
    CellPartition& m_out;
    std::uint32_t m_segment = 0;
};

} // namespace

SortedCatalog sortCatalog(const Catalog& catalog, std::size_t regionCount, const Poll& poll) {
    const std::size_t n = catalog.size();
    if (n > std::numeric_limits<std::uint32_t>::max())
        throw ConfigError("catalog '" + catalog.name() + "' is too large to sort into cells");
    const auto xs = catalog.x(), ys = catalog.y(), zs = catalog.z();

    std::vector<std::uint64_t> keys(n), keysTemp(n);
    std::vector<std::uint32_t> order(n), orderTemp(n);
    std::array<std::vector<std::size_t>, kRadixPasses> histograms;
    for (auto& histogram : histograms)
        histogram.assign(kRadixBuckets, 0);
    for (std::size_t from = 0; from < n; from += kPollStride) {
        for (std::size_t i = from; i < std::min(n, from + kPollStride); ++i) {
            keys[i] = mortonKey(xs[i], ys[i], zs[i]);
            order[i] = static_cast<std::uint32_t>(i);
            for (int pass = 0; pass < kRadixPasses; ++pass)
                ++histograms[pass][keys[i] >> (pass * kRadixBits) & (kRadixBuckets - 1)];
        }
        poll();
    }
    // Stable LSD passes; a digit all keys share (the high bits of a small footprint) is skipped.
    const auto scatter = [&](std::vector<std::size_t>& offsets, auto&& bucketOf) {
        for (std::size_t from = 0; from < n; from += kPollStride) {
            for (std::size_t i = from; i < std::min(n, from + kPollStride); ++i) {
                const std::size_t to = offsets[bucketOf(i)]++;
                keysTemp[to] = keys[i];
                orderTemp[to] = order[i];
            }
            poll();
        }
        keys.swap(keysTemp);
        order.swap(orderTemp);
    };
    for (int pass = 0; pass < kRadixPasses; ++pass) {
        std::vector<std::size_t>& offsets = histograms[pass];
        if (std::find(offsets.begin(), offsets.end(), n) != offsets.end())
            continue;
        std::size_t running = 0;
        for (std::size_t& offset : offsets)
            running += std::exchange(offset, running);
        const int shift = pass * kRadixBits;
        scatter(offsets, [&](std::size_t i) { return keys[i] >> shift & (kRadixBuckets - 1); });
    }

    SortedCatalog sorted;
    if (regionCount > 0) {
        // Region last and stable: region-major, Morton within each region.
        const auto region = catalog.region();
        std::vector<std::size_t> offsets(regionCount + 1, 0);
        for (std::int32_t r : region)
            ++offsets[static_cast<std::size_t>(r) + 1];
        for (std::size_t r = 0; r < regionCount; ++r)
            offsets[r + 1] += offsets[r];
        sorted.segmentStart = offsets;
        scatter(offsets, [&](std::size_t i) { return static_cast<std::size_t>(region[order[i]]); });
    } else {
        sorted.segmentStart = {0, n};
    }

    sorted.keys = std::move(keys);
    sorted.x.resize(n);
    sorted.y.resize(n);
    sorted.z.resize(n);
    for (std::size_t from = 0; from < n; from += kPollStride) {
        for (std::size_t i = from; i < std::min(n, from + kPollStride); ++i) {
            sorted.x[i] = xs[order[i]];
            sorted.y[i] = ys[order[i]];
            sorted.z[i] = zs[order[i]];
        }
        poll();
    }
    return sorted;
}

CellPartition partitionCells(const SortedCatalog& sorted, std::size_t population) {
    CellPartition cells;
    Partitioner(sorted, population, cells).build();
    return cells;
}

namespace {

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
// under the lock. Sums of integers: the order in which the batches arrive changes nothing.
class WholeCounts {
public:
    struct Addition {
        std::uint32_t regionA, regionB, bin;
        std::uint64_t pairs;
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
        if (pairs == 0 || classify(n, n, pairs) == Outcome::Done)
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
        if (classify(a, b, pairs) == Outcome::Done)
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
    // and each side lies in one region) or outside the bins.
    Outcome classify(const CellNode& a, const CellNode& b, std::uint64_t pairs) {
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
        m_pendingWhole.push_back({static_cast<std::uint32_t>(a.segment),
                                  static_cast<std::uint32_t>(b.segment),
                                  static_cast<std::uint32_t>(slot - 1), pairs});
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

// Refines the coarse pairs of `listed` (every stride-th a) on `threads` threads, the calling
// one included: chunks of the list in order, each with its own refiner (makeRefiner(output)),
// absorbed into `into` in list order, so the result is the same as one refiner's. Only the
// calling thread polls (it keeps polling while others finish); a poll that throws stops and
// joins the others first.
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
    std::atomic<std::size_t> nextChunk{0}, finishedChunks{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::exception_ptr error;

    const auto work = [&](bool caller) {
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
            ++finishedChunks;
        }
    };

    StopAndJoin helperThreads(stop);
    for (std::size_t h = 0; h < helpers; ++h)
        helperThreads.start([&] {
            try {
                work(false);
            } catch (...) {
                const std::lock_guard lock(errorMutex);
                if (!error)
                    error = std::current_exception();
                stop = true;
            }
        });
    work(true);
    while (finishedChunks.load() < chunks.size() && !stop.load()) {
        poll();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    helperThreads.joinAll();
    if (error)
        std::rethrow_exception(error);
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
