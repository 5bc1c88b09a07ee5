// SPDX-License-Identifier: GPL-3.0-or-later
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
// The cell-pair plan over these cells is in sky_cell_plan.cpp.
#include "counting/sky_cells.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <limits>
#include <utility>

namespace tpacf::sky {

namespace {

// Bits per axis of the Morton key: 3 × 21 = 63 bits. The finest cell is 2/2²¹ ≈ 1e-6 wide in
// unit-vector coordinates (≈ 0.2″), far below any bin a user asks for.
constexpr int kMortonBits = 21;
constexpr int kMortonLevels = kMortonBits;
// Digit of the parallel splitting passes: 2048 counters per chunk stay in L1.
constexpr int kRadixBits = 11;
// Elements between two polls of the preparation loops (well under a millisecond of work).
constexpr std::size_t kPollStride = std::size_t{1} << 16;
// Node sizes up to which the partition finds its children's digits by one linear pass.
constexpr std::size_t kLinearDigitScan = 256;
// Fewest points of a subtree the partition builds on a worker of its own.
constexpr std::size_t kMinSubtree = 8192;

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

// Builds the cells and the octree above them. Nodes are appended children first, so a node's
// index is larger than its children's; single-child nodes are skipped (the child stands in).
class Partitioner {
public:
    Partitioner(const SortedCatalog& sorted, std::size_t population, CellPartition& out)
        : m_sorted(sorted), m_population(std::max<std::size_t>(1, population)), m_out(out) {}

    /// The whole partition; subtrees of at least kMinSubtree points are built on up to
    /// `threads` workers first and spliced in where the descent reaches them, so the result is
    /// the one-thread partition, array for array.
    void build(std::size_t threads, const Poll& poll) {
        // About 1.5 cells per `population` points and half as many nodes again: reserved so that
        // the arrays are not copied while they grow (the planner partitions several times).
        const std::size_t cells = m_sorted.size() / m_population * 3 / 2 + 16;
        m_out.start.reserve(cells + 1);
        m_out.bounds.reserve(cells);
        m_out.segment.reserve(cells);
        m_out.nodes.reserve(cells * 3 / 2);
        m_out.children.reserve(cells * 3 / 2);
        if (threads > 1)
            buildSubtrees(threads, poll);
        for (std::size_t s = 0; s + 1 < m_sorted.segmentStart.size(); ++s) {
            const std::size_t begin = m_sorted.segmentStart[s], end = m_sorted.segmentStart[s + 1];
            m_segment = static_cast<std::uint32_t>(s);
            if (end > begin)
                m_stack.push_back(node(begin, end, 0));
        }
        m_out.start.push_back(m_sorted.size());
        m_out.root = m_stack.empty() ? -1 : static_cast<std::int64_t>(parentOf(0));
    }

private:
    // A node's partition built on its own (local cell, node and child indices) and its root.
    struct Subtree {
        std::size_t begin = 0, end = 0;
        int level = 0;
        std::uint32_t segment = 0;
        CellPartition cells;
        std::uint32_t root = 0;
    };

    // One thread partitioned 10^6 points in 0.01–0.02 s, a serial tenth of the plan on 32
    // threads (the planner partitions for every candidate population): the nodes where the
    // descent first meets at most `largest` points are partitioned on the workers.
    void buildSubtrees(std::size_t threads, const Poll& poll) {
        const std::size_t largest = std::max(kMinSubtree, m_sorted.size() / (4 * threads));
        for (std::size_t s = 0; s + 1 < m_sorted.segmentStart.size(); ++s)
            findSubtrees(m_sorted.segmentStart[s], m_sorted.segmentStart[s + 1], 0,
                         static_cast<std::uint32_t>(s), largest);
        forEachItem(m_subtrees.size(), threads, poll, [&](std::size_t t) {
            Subtree& subtree = m_subtrees[t];
            Partitioner part(m_sorted, m_population, subtree.cells);
            part.m_segment = subtree.segment;
            subtree.root = part.node(subtree.begin, subtree.end, subtree.level);
        });
    }

    // The node() calls of the descent, in its order, that first hold at most `largest` points
    // (and more than a cell's).
    void findSubtrees(std::size_t begin, std::size_t end, int level, std::uint32_t segment,
                      std::size_t largest) {
        if (end - begin <= m_population)
            return;
        if (end - begin <= largest || level == kMortonLevels) {
            m_subtrees.push_back({begin, end, level, segment, {}, 0});
            return;
        }
        const std::array<std::size_t, 9> childStart = childStarts(begin, end, level);
        for (std::size_t digit = 0; digit < 8; ++digit)
            findSubtrees(childStart[digit], childStart[digit + 1], level + 1, segment, largest);
    }

    // The subtree built for node(begin, end, …), appended with its indices moved past this
    // partition's; returns its root.
    std::uint32_t splice(const Subtree& subtree) {
        const auto cellOffset = static_cast<std::uint32_t>(m_out.bounds.size());
        const auto nodeOffset = static_cast<std::uint32_t>(m_out.nodes.size());
        const auto childOffset = static_cast<std::uint32_t>(m_out.children.size());
        const CellPartition& part = subtree.cells;
        m_out.start.insert(m_out.start.end(), part.start.begin(), part.start.end());
        m_out.bounds.insert(m_out.bounds.end(), part.bounds.begin(), part.bounds.end());
        m_out.segment.insert(m_out.segment.end(), part.segment.begin(), part.segment.end());
        for (CellNode node : part.nodes) {
            node.cellBegin += cellOffset;
            node.cellEnd += cellOffset;
            if (!node.isCell()) {
                node.childBegin += childOffset;
                node.childEnd += childOffset;
            }
            m_out.nodes.push_back(node);
        }
        for (std::uint32_t child : part.children)
            m_out.children.push_back(child + nodeOffset);
        return subtree.root + nodeOffset;
    }

    // Where each of the eight children of node(begin, end, level) starts, and its end.
    std::array<std::size_t, 9> childStarts(std::size_t begin, std::size_t end, int level) const {
        const int shift = 3 * (kMortonLevels - 1 - level);
        const std::uint64_t* keys = m_sorted.keys.data();
        std::array<std::size_t, 9> childStart{};
        childStart[0] = begin;
        childStart[8] = end;
        if (end - begin <= kLinearDigitScan) {
            // A few cache lines: one pass counting the digits beats seven binary searches,
            // whose dependent loads miss.
            std::array<std::size_t, 8> count{};
            for (std::size_t i = begin; i < end; ++i)
                ++count[keys[i] >> shift & 7];
            for (std::size_t digit = 1; digit < 8; ++digit)
                childStart[digit] = childStart[digit - 1] + count[digit - 1];
        } else {
            for (std::uint64_t digit = 1; digit < 8; ++digit)
                childStart[digit] = static_cast<std::size_t>(
                    std::partition_point(
                        keys + childStart[digit - 1], keys + end,
                        [&](std::uint64_t key) { return (key >> shift & 7) < digit; }) -
                    keys);
        }
        return childStart;
    }

    // Points [begin, end) share their first `level` Morton digits (3 bits each).
    std::uint32_t node(std::size_t begin, std::size_t end, int level) {
        if (end - begin <= m_population)
            return cell(begin, end);
        // The first node() of a range is the one findSubtrees saw (a later call with the same
        // range, one level down, cannot come before it).
        if (m_nextSubtree < m_subtrees.size() && m_subtrees[m_nextSubtree].begin == begin &&
            m_subtrees[m_nextSubtree].end == end)
            return splice(m_subtrees[m_nextSubtree++]);
        // This node's children go on the shared stack above `base` (no allocation per node);
        // the nodes below push and pop their own above them.
        const std::size_t base = m_stack.size();
        if (level == kMortonLevels) {
            // More points than a cell holds at one finest key (duplicates or ≈ 0.2″ apart):
            // equal chunks, all of a tiny box.
            for (std::size_t from = begin; from < end; from += m_population)
                m_stack.push_back(cell(from, std::min(end, from + m_population)));
            return parentOf(base);
        }
        const std::array<std::size_t, 9> childStart = childStarts(begin, end, level);
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
                    m_stack.push_back(cell(groupBegin, groupEnd));
                const std::uint32_t child = node(childBegin, childEnd, level + 1);
                m_stack.push_back(child);
                groupBegin = groupEnd = childEnd;
                continue;
            }
            if (groupEnd - groupBegin + count > m_population) {
                m_stack.push_back(cell(groupBegin, groupEnd));
                groupBegin = childBegin;
            }
            groupEnd = childEnd;
        }
        if (groupEnd > groupBegin)
            m_stack.push_back(cell(groupBegin, groupEnd));
        return parentOf(base);
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
        double weightSum = 0, weightSquareSum = 0;
        if (!m_sorted.w.empty())
            for (std::size_t i = begin; i < end; ++i) {
                weightSum += m_sorted.w[i];
                weightSquareSum += m_sorted.w[i] * m_sorted.w[i];
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
        leaf.weightSum = weightSum;
        leaf.weightSquareSum = weightSquareSum;
        m_out.nodes.push_back(leaf);
        return static_cast<std::uint32_t>(m_out.nodes.size() - 1);
    }

    // The parent of the children on the stack from `base` up, which it pops.
    std::uint32_t parentOf(std::size_t base) {
        const std::span<const std::uint32_t> children(m_stack.data() + base, m_stack.size() - base);
        const std::uint32_t only = children.front();
        if (children.size() == 1) {
            m_stack.resize(base);
            return only;
        }
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
        parent.weightSum = 0;
        parent.weightSquareSum = 0;
        for (std::uint32_t child : children) {
            parent.weightSum += m_out.nodes[child].weightSum;
            parent.weightSquareSum += m_out.nodes[child].weightSquareSum;
        }
        parent.cellBegin = m_out.nodes[children.front()].cellBegin;
        parent.cellEnd = m_out.nodes[children.back()].cellEnd;
        parent.childBegin = static_cast<std::uint32_t>(m_out.children.size());
        m_out.children.insert(m_out.children.end(), children.begin(), children.end());
        parent.childEnd = static_cast<std::uint32_t>(m_out.children.size());
        m_stack.resize(base);
        m_out.nodes.push_back(parent);
        return static_cast<std::uint32_t>(m_out.nodes.size() - 1);
    }

    const SortedCatalog& m_sorted;
    std::size_t m_population;
    CellPartition& m_out;
    std::uint32_t m_segment = 0;
    std::vector<std::uint32_t> m_stack; // children of the nodes being built, innermost on top
    std::vector<Subtree> m_subtrees;    // built on workers, in the descent's order
    std::size_t m_nextSubtree = 0;      // the next one the descent will reach
};

} // namespace

void forEachItem(std::size_t count, std::size_t threads, const Poll& poll,
                 const std::function<void(std::size_t item, const Poll& itemPoll)>& body) {
    const std::size_t workers = std::min(count, std::max<std::size_t>(1, threads));
    if (workers <= 1) {
        for (std::size_t item = 0; item < count; ++item) {
            body(item, poll);
            poll();
        }
        return;
    }
    std::atomic<std::size_t> next{0};
    RunnerWatch watch;
    watch.tick = poll;
    watch.interval = std::chrono::milliseconds(5);
    runWorkers(
        workers,
        [&](std::size_t, const std::atomic<bool>& stop) {
            const Poll onWorker = [&stop] {
                if (stop.load(std::memory_order_relaxed))
                    throw Cancelled();
            };
            for (std::size_t item; !stop.load(std::memory_order_relaxed) &&
                                   (item = next.fetch_add(1, std::memory_order_relaxed)) < count;)
                body(item, onWorker);
        },
        watch);
    poll();
}

void forEachItem(std::size_t count, std::size_t threads, const Poll& poll,
                 const std::function<void(std::size_t item)>& body) {
    forEachItem(count, threads, poll, [&](std::size_t item, const Poll&) { body(item); });
}

namespace {

// The sort's working set: keys and original indices, with scratch of the same size.
struct SortBuffers {
    Buffer<std::uint64_t> keys, keysTemp;
    Buffer<std::uint32_t> order, orderTemp;
};

struct KeyRange {
    std::size_t begin, end;
};

// Below this many points a range is sorted by one worker; above, split by a parallel pass.
constexpr std::size_t kMinParallelSplit = std::size_t{1} << 16;
// Digits of the serial MSD sort (cache-resident ranges) and the ranges it finishes by insertion.
constexpr int kSerialDigitBits = 8;
constexpr std::size_t kInsertionSortMax = 32;

// Bits in which some key of the range differs from its first (0: all equal).
std::uint64_t differingBits(const std::uint64_t* keys, std::size_t begin, std::size_t end) {
    std::uint64_t diff = 0;
    for (std::size_t i = begin + 1; i < end; ++i)
        diff |= keys[i] ^ keys[begin];
    return diff;
}

// The digit below the highest differing bit: [shift, shift + bits).
std::pair<int, int> leadingDigit(std::uint64_t diff, int maxBits) {
    const int top = 63 - std::countl_zero(diff);
    const int shift = std::max(0, top + 1 - maxBits);
    return {shift, top + 1 - shift};
}

// Stable MSD radix sort of keys (with their indices) in [begin, end), on one thread, through the
// scratch of the same range. Equal keys keep their order, so the result is the stable sort.
void sortRangeSerial(SortBuffers& buffers, std::size_t begin, std::size_t end) {
    std::uint64_t* keys = buffers.keys.data();
    std::uint32_t* order = buffers.order.data();
    if (end - begin <= kInsertionSortMax) {
        for (std::size_t i = begin + 1; i < end; ++i) {
            const std::uint64_t key = keys[i];
            const std::uint32_t index = order[i];
            std::size_t j = i;
            for (; j > begin && keys[j - 1] > key; --j) {
                keys[j] = keys[j - 1];
                order[j] = order[j - 1];
            }
            keys[j] = key;
            order[j] = index;
        }
        return;
    }
    const std::uint64_t diff = differingBits(keys, begin, end);
    if (diff == 0)
        return;
    const auto [shift, bits] = leadingDigit(diff, kSerialDigitBits);
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::array<std::size_t, (std::size_t{1} << kSerialDigitBits) + 1> start{};
    for (std::size_t i = begin; i < end; ++i)
        ++start[(keys[i] >> shift & mask) + 1];
    start[0] = begin;
    for (std::size_t d = 0; d <= mask; ++d)
        start[d + 1] += start[d];
    std::array<std::size_t, (std::size_t{1} << kSerialDigitBits)> next;
    std::copy(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(mask + 1), next.begin());
    std::uint64_t* keysTemp = buffers.keysTemp.data();
    std::uint32_t* orderTemp = buffers.orderTemp.data();
    for (std::size_t i = begin; i < end; ++i) {
        const std::size_t to = next[keys[i] >> shift & mask]++;
        keysTemp[to] = keys[i];
        orderTemp[to] = order[i];
    }
    std::copy(keysTemp + begin, keysTemp + end, keys + begin);
    std::copy(orderTemp + begin, orderTemp + end, order + begin);
    for (std::size_t d = 0; d <= mask; ++d)
        if (start[d + 1] - start[d] > 1)
            sortRangeSerial(buffers, start[d], start[d + 1]);
}

// One stable counting-sort pass over [begin, end) by bucketOf(i) < buckets, on `workers`
// contiguous chunks: chunk c's elements of bucket b go after every chunk before c's, so the
// pass is stable and its result does not depend on the number of chunks. Returns the buckets'
// buckets + 1 offsets. The keys and indices end up in the main buffers.
template <class BucketOf>
std::vector<std::size_t> scatterPass(SortBuffers& buffers, std::size_t begin, std::size_t end,
                                     std::size_t buckets, std::size_t workers, const Poll& poll,
                                     BucketOf&& bucketOf) {
    const std::size_t n = end - begin;
    // Enough chunks for a poll between them on one worker, unless the counters would be large.
    const std::size_t chunks =
        buckets > 65536 ? 1
                        : std::max<std::size_t>(
                              1, std::min(std::max(workers, n / (4 * kPollStride)), n / 4096 + 1));
    const std::size_t step = (n + chunks - 1) / chunks;
    std::vector<std::size_t> counts(chunks * buckets, 0); // chunk-major
    forEachItem(chunks, workers, poll, [&](std::size_t c) {
        std::size_t* count = counts.data() + c * buckets;
        for (std::size_t i = begin + c * step; i < std::min(end, begin + (c + 1) * step); ++i)
            ++count[bucketOf(i)];
    });
    std::vector<std::size_t> bucketStart(buckets + 1);
    std::size_t running = begin;
    for (std::size_t b = 0; b < buckets; ++b) {
        bucketStart[b] = running;
        for (std::size_t c = 0; c < chunks; ++c)
            running += std::exchange(counts[c * buckets + b], running);
    }
    bucketStart[buckets] = running;
    forEachItem(chunks, workers, poll, [&](std::size_t c) {
        std::size_t* next = counts.data() + c * buckets;
        for (std::size_t i = begin + c * step; i < std::min(end, begin + (c + 1) * step); ++i) {
            const std::size_t to = next[bucketOf(i)]++;
            buffers.keysTemp[to] = buffers.keys[i];
            buffers.orderTemp[to] = buffers.order[i];
        }
    });
    forEachItem(chunks, workers, poll, [&](std::size_t c) {
        const std::size_t from = begin + c * step, to = std::min(end, begin + (c + 1) * step);
        std::copy(buffers.keysTemp.begin() + static_cast<std::ptrdiff_t>(from),
                  buffers.keysTemp.begin() + static_cast<std::ptrdiff_t>(to),
                  buffers.keys.begin() + static_cast<std::ptrdiff_t>(from));
        std::copy(buffers.orderTemp.begin() + static_cast<std::ptrdiff_t>(from),
                  buffers.orderTemp.begin() + static_cast<std::ptrdiff_t>(to),
                  buffers.order.begin() + static_cast<std::ptrdiff_t>(from));
    });
    return bucketStart;
}

} // namespace

SortedCatalog sortCatalog(const Catalog& catalog, std::size_t regionCount, const Poll& poll,
                          std::size_t threads) {
    const std::size_t n = catalog.size();
    if (n > std::numeric_limits<std::uint32_t>::max())
        throw ConfigError("catalog '" + catalog.name() + "' is too large to sort into cells");
    const auto xs = catalog.x(), ys = catalog.y(), zs = catalog.z();
    threads = std::max<std::size_t>(1, threads);
    // Pieces of the linear passes: a few per worker, each well under a poll interval.
    const std::size_t pieces = (n + kPollStride - 1) / kPollStride;
    const std::size_t pieceSize = pieces == 0 ? 0 : (n + pieces - 1) / pieces;
    const auto forPieces = [&](auto&& body) {
        forEachItem(pieces, threads, poll,
                    [&](std::size_t p) { body(p * pieceSize, std::min(n, (p + 1) * pieceSize)); });
    };

    SortBuffers buffers;
    buffers.keys.resize(n);
    buffers.keysTemp.resize(n);
    buffers.order.resize(n);
    buffers.orderTemp.resize(n);
    forPieces([&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) {
            buffers.keys[i] = mortonKey(xs[i], ys[i], zs[i]);
            buffers.order[i] = static_cast<std::uint32_t>(i);
        }
    });

    SortedCatalog sorted;
    std::vector<KeyRange> pending;
    if (regionCount > 0) {
        // Region first, stable: region-major, the catalog's order within each region.
        const auto region = catalog.region();
        const std::uint32_t* order = buffers.order.data();
        sorted.segmentStart =
            scatterPass(buffers, 0, n, regionCount, regionCount > 65536 ? 1 : threads, poll,
                        [&](std::size_t i) { return static_cast<std::size_t>(region[order[i]]); });
        for (std::size_t r = 0; r < regionCount; ++r)
            if (sorted.segmentStart[r + 1] > sorted.segmentStart[r])
                pending.push_back({sorted.segmentStart[r], sorted.segmentStart[r + 1]});
    } else {
        sorted.segmentStart = {0, n};
        if (n > 0)
            pending.push_back({0, n});
    }
    // Large ranges are split by their leading key digit in parallel passes; the rest (the
    // buckets) are sorted one per worker.
    std::vector<KeyRange> ranges;
    while (!pending.empty()) {
        const KeyRange range = pending.back();
        pending.pop_back();
        if (range.end - range.begin < kMinParallelSplit) {
            ranges.push_back(range);
            continue;
        }
        const std::size_t span = range.end - range.begin;
        const std::size_t parts = std::max(threads, span / (4 * kPollStride));
        const std::size_t step = (span + parts - 1) / parts;
        std::vector<std::uint64_t> pieceDiff(parts, 0);
        forEachItem(parts, threads, poll, [&](std::size_t c) {
            const std::size_t from = range.begin + std::min(span, c * step);
            const std::size_t to = range.begin + std::min(span, (c + 1) * step);
            std::uint64_t diff = 0;
            for (std::size_t i = from; i < to; ++i)
                diff |= buffers.keys[i] ^ buffers.keys[range.begin];
            pieceDiff[c] = diff;
        });
        std::uint64_t diff = 0;
        for (std::uint64_t d : pieceDiff)
            diff |= d;
        if (diff == 0)
            continue; // one key: already in stable order
        const auto [shift, bits] = leadingDigit(diff, kRadixBits);
        const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
        const std::uint64_t* keys = buffers.keys.data();
        const std::vector<std::size_t> bucketStart = scatterPass(
            buffers, range.begin, range.end, std::size_t(mask + 1), threads, poll,
            [&](std::size_t i) { return static_cast<std::size_t>(keys[i] >> shift & mask); });
        for (std::size_t b = bucketStart.size() - 1; b-- > 0;)
            if (bucketStart[b + 1] - bucketStart[b] > 1)
                pending.push_back({bucketStart[b], bucketStart[b + 1]});
    }
    forEachItem(ranges.size(), threads, poll,
                [&](std::size_t r) { sortRangeSerial(buffers, ranges[r].begin, ranges[r].end); });

    buffers.keysTemp = {};
    sorted.x.resize(n);
    sorted.y.resize(n);
    sorted.z.resize(n);
    const auto ws = catalog.weight();
    sorted.w.resize(ws.size());
    const std::uint32_t* order = buffers.order.data();
    forPieces([&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) {
            sorted.x[i] = xs[order[i]];
            sorted.y[i] = ys[order[i]];
            sorted.z[i] = zs[order[i]];
        }
        if (!ws.empty())
            for (std::size_t i = from; i < to; ++i)
                sorted.w[i] = ws[order[i]];
    });
    sorted.keys = std::move(buffers.keys);
    return sorted;
}

CellPartition partitionCells(const SortedCatalog& sorted, std::size_t population,
                             std::size_t threads, const Poll& poll) {
    CellPartition cells;
    Partitioner(sorted, population, cells).build(threads, poll);
    return cells;
}

} // namespace tpacf::sky
