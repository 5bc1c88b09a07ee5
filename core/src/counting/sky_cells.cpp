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

#include <algorithm>
#include <array>
#include <limits>
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
    const auto ws = catalog.weight();
    sorted.w.resize(ws.size());
    for (std::size_t from = 0; from < n; from += kPollStride) {
        for (std::size_t i = from; i < std::min(n, from + kPollStride); ++i) {
            sorted.x[i] = xs[order[i]];
            sorted.y[i] = ys[order[i]];
            sorted.z[i] = zs[order[i]];
        }
        if (!ws.empty())
            for (std::size_t i = from; i < std::min(n, from + kPollStride); ++i)
                sorted.w[i] = ws[order[i]];
        poll();
    }
    return sorted;
}

CellPartition partitionCells(const SortedCatalog& sorted, std::size_t population) {
    CellPartition cells;
    Partitioner(sorted, population, cells).build();
    return cells;
}

} // namespace tpacf::sky
