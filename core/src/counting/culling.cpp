// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/culling.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>

namespace tpacf {

std::optional<CullingMode> parseCullingMode(std::string_view text) noexcept {
    if (text == "auto")
        return CullingMode::Auto;
    if (text == "on")
        return CullingMode::On;
    if (text == "off")
        return CullingMode::Off;
    return std::nullopt;
}

std::string_view cullingModeName(CullingMode mode) noexcept {
    switch (mode) {
    case CullingMode::Auto:
        return "auto";
    case CullingMode::On:
        return "on";
    case CullingMode::Off:
        return "off";
    }
    return "auto";
}

// Below this many unique pairs a batch takes well under a millisecond by brute force, less than
// sorting the catalogs into cells. The culled path also counts every pair of a far cell pair
// that lies inside one bin with one addition, so it is not slower at large θ_max either:
// θ_max alone never turns it off.
constexpr std::uint64_t kMinPairsForCulling = std::uint64_t{1} << 20;

bool chooseCulling(CullingMode mode, double /*thetaMaxDegrees*/, std::uint64_t pairTotal) noexcept {
    switch (mode) {
    case CullingMode::On:
        return true;
    case CullingMode::Off:
        return false;
    case CullingMode::Auto:
        break;
    }
    return pairTotal >= kMinPairsForCulling;
}

std::uint64_t cellPairCount(std::span<const CellPairRun> runs) noexcept {
    std::uint64_t total = 0;
    for (const CellPairRun& run : runs)
        total += run.bEnd - run.bBegin;
    return total;
}

namespace {

// The chord is the R³ distance of unit vectors, so these box distances bound every pair's chord.
// They are computed with the same operations, in the same order, as a pair's c² in the double
// backends ((dx² + dy²) + dz² of coordinate differences); rounding is monotone, so a pair's
// computed c² never leaves the computed [min, max] of its boxes. The query's margin covers
// backends that compute c² less exactly (float).
double minChord2(const CellBounds& a, const CellBounds& b) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double gap = std::max({0.0, b.lo[axis] - a.hi[axis], a.lo[axis] - b.hi[axis]});
        sum += gap * gap;
    }
    return sum;
}

double maxChord2(const CellBounds& a, const CellBounds& b) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double span = std::max(b.hi[axis] - a.lo[axis], a.hi[axis] - b.lo[axis]);
        sum += span * span;
    }
    return sum;
}

bool isEmpty(const CellBounds& box) noexcept {
    return !(box.lo[0] <= box.hi[0] && box.lo[1] <= box.hi[1] && box.lo[2] <= box.hi[2]);
}

CellBounds emptyBounds() noexcept {
    constexpr double inf = std::numeric_limits<double>::infinity();
    return CellBounds{{inf, inf, inf}, {-inf, -inf, -inf}};
}

void include(CellBounds& into, const CellBounds& box) noexcept {
    for (int axis = 0; axis < 3; ++axis) {
        into.lo[axis] = std::min(into.lo[axis], box.lo[axis]);
        into.hi[axis] = std::max(into.hi[axis], box.hi[axis]);
    }
}

// A binary tree over consecutive cells: node i covers cells [begin, end) and holds their merged
// box. Consecutive cells of a Morton or band order are close, so merged boxes stay compact.
struct CellTree {
    struct Node {
        CellBounds box;
        std::uint32_t begin = 0;
        std::uint32_t end = 0;
        std::int32_t left = -1; // -1: leaf
        std::int32_t right = -1;
    };
    std::vector<Node> nodes;

    static constexpr std::uint32_t kLeafCells = 4;

    explicit CellTree(std::span<const CellBounds> cells) {
        if (!cells.empty()) {
            nodes.reserve(2 * cells.size() / kLeafCells + 2);
            build(cells, 0, static_cast<std::uint32_t>(cells.size()));
        }
    }

    std::int32_t build(std::span<const CellBounds> cells, std::uint32_t begin, std::uint32_t end) {
        const auto index = static_cast<std::int32_t>(nodes.size());
        nodes.push_back(Node{emptyBounds(), begin, end, -1, -1});
        if (end - begin <= kLeafCells) {
            for (std::uint32_t c = begin; c < end; ++c)
                if (!isEmpty(cells[c]))
                    include(nodes[index].box, cells[c]);
            return index;
        }
        const std::uint32_t middle = begin + (end - begin) / 2;
        const std::int32_t left = build(cells, begin, middle);
        const std::int32_t right = build(cells, middle, end);
        Node& node = nodes[index];
        node.left = left;
        node.right = right;
        node.box = nodes[left].box;
        include(node.box, nodes[right].box);
        return index;
    }
};

class PairLister {
public:
    PairLister(std::span<const CellBounds> cellsA, std::span<const CellBounds> cellsB,
               const CellPairQuery& query)
        : m_cellsA(cellsA), m_cellsB(cellsB), m_query(query),
          m_dropAbove(query.chord2Max * (1 + query.relativeMargin)),
          m_dropBelow(query.chord2Min * (1 - query.relativeMargin)),
          m_insideFrom(query.chord2Min * (1 + query.relativeMargin)),
          m_insideBelow(query.chord2Max * (1 - query.relativeMargin)) {}

    /// threads > 1: the descent stops at a depth that leaves a few group pairs per worker, and
    /// the workers descend from those, each into runs of its own. Every cell pair is emitted once
    /// whichever descent reaches it, and sortedAndMerged orders and merges them by (a, b), so the
    /// list does not depend on the split.
    std::vector<CellPairRun> run(std::size_t threads) {
        const CellTree treeA(m_cellsA);
        const CellTree treeB(m_query.autoPairs ? std::span<const CellBounds>{} : m_cellsB);
        if (treeA.nodes.empty() || (!m_query.autoPairs && treeB.nodes.empty()))
            return {};
        if (threads > 1)
            m_deferFrom = static_cast<int>(std::bit_width(16 * threads));
        descend(treeA, treeB, {0, 0, 0});
        if (!m_deferred.empty())
            listDeferred(treeA, treeB, threads);
        return sortedAndMerged();
    }

private:
    enum class Reach { None, Partial, Inside };

    Reach reach(const CellBounds& a, const CellBounds& b) const noexcept {
        if (isEmpty(a) || isEmpty(b))
            return Reach::None;
        const double nearest = minChord2(a, b);
        if (nearest > m_dropAbove)
            return Reach::None;
        const double farthest = maxChord2(a, b);
        if (m_query.chord2Min > 0 && farthest < m_dropBelow)
            return Reach::None;
        if (nearest >= m_insideFrom && farthest < m_insideBelow)
            return Reach::Inside;
        return Reach::Partial;
    }

    void emitBlock(std::uint32_t aBegin, std::uint32_t aEnd, std::uint32_t bBegin,
                   std::uint32_t bEnd, CellPairClass kind) {
        for (std::uint32_t a = aBegin; a < aEnd; ++a) {
            const std::uint32_t from = m_query.autoPairs ? std::max(bBegin, a) : bBegin;
            if (from < bEnd)
                m_runs.push_back(CellPairRun{a, from, bEnd, kind});
        }
    }

    void visitLeaves(const CellTree::Node& na, const CellTree::Node& nb) {
        for (std::uint32_t a = na.begin; a < na.end; ++a) {
            const std::uint32_t from = m_query.autoPairs ? std::max(nb.begin, a) : nb.begin;
            // Consecutive b of one kind become one run here already: fewer runs to sort.
            bool open = false;
            for (std::uint32_t b = from; b < nb.end; ++b) {
                const Reach r = reach(m_cellsA[a], m_cellsB.empty() ? m_cellsA[b] : m_cellsB[b]);
                if (r == Reach::None) {
                    open = false;
                    continue;
                }
                const CellPairClass kind =
                    r == Reach::Inside ? CellPairClass::InsideRange : CellPairClass::Partial;
                if (open && m_runs.back().kind == kind)
                    m_runs.back().bEnd = b + 1;
                else
                    m_runs.push_back(CellPairRun{a, b, b + 1, kind});
                open = true;
            }
        }
    }

    // A pair of tree nodes reached by the descent, and how deep.
    struct NodePair {
        std::int32_t a, b;
        int depth;
    };

    // Visits a node pair, or defers it to the workers at the cut depth.
    void descend(const CellTree& treeA, const CellTree& treeB, NodePair pair) {
        if (m_deferFrom > 0 && pair.depth >= m_deferFrom)
            m_deferred.push_back(pair);
        else if (m_query.autoPairs)
            visitAuto(treeA, pair);
        else
            visitCross(treeA, treeB, pair);
    }

    // Both nodes from one tree; a's cells never come after b's (a == b or a wholly before).
    void visitAuto(const CellTree& tree, NodePair pair) {
        const CellTree::Node& na = tree.nodes[pair.a];
        const CellTree::Node& nb = tree.nodes[pair.b];
        const Reach r = reach(na.box, nb.box);
        if (r == Reach::None)
            return;
        if (pair.a != pair.b && r == Reach::Inside) {
            emitBlock(na.begin, na.end, nb.begin, nb.end, CellPairClass::InsideRange);
            return;
        }
        const bool leafA = na.left < 0;
        const bool leafB = nb.left < 0;
        const int deeper = pair.depth + 1;
        if (leafA && leafB) {
            visitLeaves(na, nb);
        } else if (pair.a == pair.b) {
            descend(tree, tree, {na.left, na.left, deeper});
            descend(tree, tree, {na.left, na.right, deeper});
            descend(tree, tree, {na.right, na.right, deeper});
        } else if (leafB || (!leafA && na.end - na.begin >= nb.end - nb.begin)) {
            descend(tree, tree, {na.left, pair.b, deeper});
            descend(tree, tree, {na.right, pair.b, deeper});
        } else {
            descend(tree, tree, {pair.a, nb.left, deeper});
            descend(tree, tree, {pair.a, nb.right, deeper});
        }
    }

    void visitCross(const CellTree& treeA, const CellTree& treeB, NodePair pair) {
        const CellTree::Node& na = treeA.nodes[pair.a];
        const CellTree::Node& nb = treeB.nodes[pair.b];
        const Reach r = reach(na.box, nb.box);
        if (r == Reach::None)
            return;
        if (r == Reach::Inside) {
            emitBlock(na.begin, na.end, nb.begin, nb.end, CellPairClass::InsideRange);
            return;
        }
        const bool leafA = na.left < 0;
        const bool leafB = nb.left < 0;
        const int deeper = pair.depth + 1;
        if (leafA && leafB) {
            visitLeaves(na, nb);
        } else if (leafB || (!leafA && na.end - na.begin >= nb.end - nb.begin)) {
            descend(treeA, treeB, {na.left, pair.b, deeper});
            descend(treeA, treeB, {na.right, pair.b, deeper});
        } else {
            descend(treeA, treeB, {pair.a, nb.left, deeper});
            descend(treeA, treeB, {pair.a, nb.right, deeper});
        }
    }

    // The deferred node pairs, handed out in order from a shared counter to `threads` listers
    // that descend without a cut; their runs join this one's.
    void listDeferred(const CellTree& treeA, const CellTree& treeB, std::size_t threads) {
        const std::size_t workers = std::min(threads, m_deferred.size());
        std::vector<PairLister> listers(workers, PairLister(m_cellsA, m_cellsB, m_query));
        std::atomic<std::size_t> next{0};
        runWorkers(workers, [&](std::size_t worker, const std::atomic<bool>& stop) {
            for (std::size_t i;
                 !stop.load(std::memory_order_relaxed) &&
                 (i = next.fetch_add(1, std::memory_order_relaxed)) < m_deferred.size();)
                listers[worker].descend(treeA, treeB, m_deferred[i]);
        });
        for (PairLister& lister : listers)
            m_runs.insert(m_runs.end(), lister.m_runs.begin(), lister.m_runs.end());
    }

    // The traversal emits each a's runs in increasing b (both recursions visit the b side left
    // to right), so a stable counting sort by a orders the list in O(runs + cells); a group that
    // is not in order (not expected) is sorted on its own rather than trusted.
    std::vector<CellPairRun> sortedAndMerged() {
        std::vector<std::size_t> start(m_cellsA.size() + 1, 0);
        for (const CellPairRun& run : m_runs)
            ++start[run.a + 1];
        for (std::size_t a = 0; a < m_cellsA.size(); ++a)
            start[a + 1] += start[a];
        std::vector<CellPairRun> byA(m_runs.size());
        {
            std::vector<std::size_t> next(start.begin(), start.end() - 1);
            for (const CellPairRun& run : m_runs)
                byA[next[run.a]++] = run;
        }
        m_runs = std::vector<CellPairRun>();
        const auto byB = [](const CellPairRun& x, const CellPairRun& y) {
            return x.bBegin < y.bBegin;
        };
        std::vector<CellPairRun> merged;
        merged.reserve(byA.size());
        for (std::size_t a = 0; a < m_cellsA.size(); ++a) {
            const auto first = byA.begin() + static_cast<std::ptrdiff_t>(start[a]);
            const auto last = byA.begin() + static_cast<std::ptrdiff_t>(start[a + 1]);
            if (!std::is_sorted(first, last, byB))
                std::sort(first, last, byB);
            for (auto run = first; run != last; ++run) {
                if (run != first && merged.back().bEnd == run->bBegin &&
                    merged.back().kind == run->kind)
                    merged.back().bEnd = run->bEnd;
                else
                    merged.push_back(*run);
            }
        }
        return merged;
    }

    std::span<const CellBounds> m_cellsA;
    std::span<const CellBounds> m_cellsB; // empty for auto
    CellPairQuery m_query;
    double m_dropAbove;
    double m_dropBelow;
    double m_insideFrom;
    double m_insideBelow;
    // From a cache line of its own on: listDeferred keeps one lister per worker side by side,
    // each appending to its runs while the others read their fields above.
    alignas(64) std::vector<CellPairRun> m_runs;
    int m_deferFrom = 0;              // depth at which node pairs go to m_deferred (0: never)
    std::vector<NodePair> m_deferred; // node pairs left to the workers
};

} // namespace

std::vector<CellPairRun> listCellPairs(std::span<const CellBounds> cellsA,
                                       std::span<const CellBounds> cellsB,
                                       const CellPairQuery& query, std::size_t threads) {
    return PairLister(cellsA, query.autoPairs ? std::span<const CellBounds>{} : cellsB, query)
        .run(threads);
}

} // namespace tpacf
