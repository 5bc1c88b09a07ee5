// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend's multi-scale culling on the host (tile_tree.h).
//
// Why the counts are exact. The pair kernel already classifies every listed tile pair by its
// boxes (pair_loops.cuh, classifyTilePair): with the margin kTileBoxMargin on the double bounds
// of the boxes, a tile pair whose every pair lies in bin k is added whole to bin k, and one out
// of reach is skipped; pair_work.h argues why that margin covers the rounding of either
// precision, so those tile pairs hold no pair a pair-by-pair count would bin otherwise. Here a
// node pair is judged by the very same rule (the same box bounds, operations, margin and
// thresholds) on the nodes' boxes. A node's box is the union (min and max, exact in double) of
// its tiles' boxes, so for every tile pair under a node pair the computed minimum chord² is at
// least the node pair's and the maximum at most the node pair's (every operation of the bounds,
// a subtraction, a maximum, a square and a sum, rounds monotonically). Hence a node pair judged
// "one bin k" has every tile pair under it classified "one bin k" by the kernel, and one judged
// "out of reach" every tile pair skipped: adding the node pair's points · points (auto, a node
// with itself: P(P−1)/2) to bin k is exactly what the kernel would have added tile pair by tile
// pair. Raw counts therefore equal the tile-level culled counts, which equal brute force (the
// GPU suites check both); weighted sums add the same products grouped by node instead of by tile.
// Whole node pairs need both nodes in one region (their pairs then have one region pair).
#include "tile_tree.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace tpacf::cuda::detail {
namespace {

CellBounds unite(const CellBounds& a, const CellBounds& b) noexcept {
    CellBounds out;
    for (int axis = 0; axis < 3; ++axis) {
        out.lo[axis] = std::min(a.lo[axis], b.lo[axis]);
        out.hi[axis] = std::max(a.hi[axis], b.hi[axis]);
    }
    return out;
}

double squaredDiagonal(const CellBounds& box) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double side = box.hi[axis] - box.lo[axis];
        sum += side * side;
    }
    return sum;
}

// Orders runs by (a, bBegin), as a comparison sort would (no two runs share both): a counting
// sort on a, then each a's runs by bBegin. A piece's runs, millions at the full range, span few
// a tiles, and each a's few runs come mostly in order already: one comparison sort of them all
// was half of the list's build time (N = 2^22, 0.01'-180°).
void sortByTiles(std::vector<CellPairRun>& runs) {
    if (runs.size() < 2)
        return;
    const auto [least, most] = std::minmax_element(
        runs.begin(), runs.end(),
        [](const CellPairRun& x, const CellPairRun& y) { return x.a < y.a; });
    const std::uint32_t firstA = least->a;
    // ends[k]: where the runs of a = firstA + k end once placed (a prefix sum of the counts).
    std::vector<std::size_t> ends(std::size_t(most->a - firstA) + 1, 0);
    for (const CellPairRun& run : runs)
        ++ends[run.a - firstA];
    std::partial_sum(ends.begin(), ends.end(), ends.begin());
    std::vector<CellPairRun> sorted(runs.size());
    for (auto run = runs.rbegin(); run != runs.rend(); ++run)
        sorted[--ends[run->a - firstA]] = *run;
    // ends[k] is now where the runs of a = firstA + k begin.
    ends.push_back(sorted.size());
    const auto byBegin = [](const CellPairRun& x, const CellPairRun& y) {
        return x.bBegin < y.bBegin;
    };
    for (std::size_t k = 0; k + 1 < ends.size(); ++k) {
        const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(ends[k]);
        const auto last = sorted.begin() + static_cast<std::ptrdiff_t>(ends[k + 1]);
        if (!std::is_sorted(first, last, byBegin))
            std::sort(first, last, byBegin);
    }
    runs.swap(sorted);
}

// The traversal of a task or of one piece of it. Judges node pairs as classifyTilePair judges
// tile pairs; opens the node with the larger box (a tile is never opened) until both are tiles.
// With a frontier (the cut into pieces), it opens only the first side, and leaves the open
// pairs whose first node is at or below the piece level to the frontier.
class Traversal {
public:
    Traversal(const TileTree& first, const TileTree& second, const TraversalRules& rules,
              std::vector<FrontierPair>* frontier = nullptr, std::uint32_t pieceLevel = 0)
        : m_first(first), m_second(second), m_rules(rules), m_frontier(frontier),
          m_pieceLevel(pieceLevel) {}

    /// Pairs i < j within one node of an auto task.
    void same(std::uint32_t index) {
        const TileTree::Node& n = m_first.node(index);
        if (judge(n, n, true) != Verdict::Open)
            return;
        if (m_frontier != nullptr && n.level <= m_pieceLevel) {
            m_frontier->push_back({index, index, true});
            return;
        }
        if (n.level <= m_rules.leafLevel) {
            for (std::uint32_t a = n.tileBegin; a < n.tileEnd; ++a)
                m_runs.push_back(CellPairRun{a, a, n.tileEnd});
            return;
        }
        same(n.left);
        same(n.right);
        cross(n.left, n.right);
    }

    /// Every pair of node a (first) with node b (second).
    void cross(std::uint32_t a, std::uint32_t b) {
        const TileTree::Node& na = m_first.node(a);
        const TileTree::Node& nb = m_second.node(b);
        if (judge(na, nb, false) != Verdict::Open)
            return;
        if (m_frontier != nullptr) {
            if (na.level <= m_pieceLevel) {
                m_frontier->push_back({a, b, false});
            } else {
                cross(na.left, b);
                cross(na.right, b);
            }
            return;
        }
        if (na.level <= m_rules.leafLevel && nb.level <= m_rules.leafLevel) {
            for (std::uint32_t t = na.tileBegin; t < na.tileEnd; ++t)
                m_runs.push_back(CellPairRun{t, nb.tileBegin, nb.tileEnd});
            return;
        }
        const bool openA =
            !na.isTile() && (nb.isTile() || squaredDiagonal(na.box) >= squaredDiagonal(nb.box));
        if (openA) {
            cross(na.left, b);
            cross(na.right, b);
        } else {
            cross(a, nb.left);
            cross(a, nb.right);
        }
    }

    /// The piece's results: runs sorted by (a, bBegin), touching ones joined.
    TraversalPiece finish() {
        sortByTiles(m_runs);
        for (const CellPairRun& run : m_runs) {
            if (!m_out.runs.empty() && m_out.runs.back().a == run.a &&
                m_out.runs.back().bEnd == run.bBegin)
                m_out.runs.back().bEnd = run.bEnd;
            else
                m_out.runs.push_back(run);
        }
        m_runs = {};
        return std::move(m_out);
    }

private:
    enum class Verdict { Settled, Open };

    // classifyTilePair's rule (pair_loops.cuh) on two node boxes: Settled where every pair is out
    // of reach, or all lie in one bin and each node holds one region (then added whole).
    Verdict judge(const TileTree::Node& a, const TileTree::Node& b, bool same) {
        ++m_out.judged;
        double minD2 = 0, maxD2 = 0;
        for (int axis = 0; axis < 3; ++axis) {
            const double gap =
                std::max(0.0, std::max(a.box.lo[axis] - b.box.hi[axis], b.box.lo[axis] - a.box.hi[axis]));
            const double span =
                std::max(a.box.hi[axis] - b.box.lo[axis], b.box.hi[axis] - a.box.lo[axis]);
            minD2 += gap * gap;
            maxD2 += span * span;
        }
        const double lo = minD2 * (1.0 - m_rules.relativeMargin);
        const double hi = maxD2 * (1.0 + m_rules.relativeMargin);
        const std::span<const double> t = m_rules.thresholds;
        if (hi < t.front() || lo >= t.back())
            return Verdict::Settled;
        if (lo < t.front() || a.region < 0 || b.region < 0)
            return Verdict::Open;
        // Largest k with t[k] <= lo (k < bins since lo < t[bins]).
        const auto k = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), lo) - t.begin()) - 1;
        if (!(hi < t[k + 1]))
            return Verdict::Open;
        WholePairs whole;
        whole.regionA = static_cast<std::uint32_t>(a.region);
        whole.regionB = static_cast<std::uint32_t>(b.region);
        whole.bin = static_cast<std::uint32_t>(k);
        whole.pairs = same ? a.points * (a.points - 1) / 2 : a.points * b.points;
        if (m_rules.weighted)
            whole.weighted = same ? 0.5 * (a.weightSum * a.weightSum - a.weightSquares)
                                  : a.weightSum * b.weightSum;
        if (whole.pairs != 0)
            m_out.whole.push_back(whole);
        return Verdict::Settled;
    }

    const TileTree& m_first;
    const TileTree& m_second;
    const TraversalRules& m_rules;
    std::vector<FrontierPair>* m_frontier;
    std::uint32_t m_pieceLevel;
    std::vector<CellPairRun> m_runs;
    TraversalPiece m_out;
};

} // namespace

TileTree::TileTree(const TileTreeInput& input) {
    const std::size_t tiles = input.bounds.size();
    if (tiles == 0) {
        m_levels.emplace_back();
        return;
    }
    m_nodes.reserve(2 * tiles);
    std::vector<std::uint32_t> level(tiles);
    for (std::size_t t = 0; t < tiles; ++t) {
        Node node;
        node.box = input.bounds[t];
        node.tileBegin = static_cast<std::uint32_t>(t);
        node.tileEnd = static_cast<std::uint32_t>(t + 1);
        node.region = input.regions.empty() ? 0 : static_cast<std::int32_t>(input.regions[t]);
        node.points = input.counts[t];
        if (!input.weights.empty()) {
            node.weightSum = input.weights[t].sum;
            node.weightSquares = input.weights[t].squares;
        }
        level[t] = static_cast<std::uint32_t>(m_nodes.size());
        m_nodes.push_back(node);
    }
    m_levels.push_back(level);
    while (m_levels.back().size() > 1) {
        const std::vector<std::uint32_t>& below = m_levels.back();
        std::vector<std::uint32_t> above;
        for (std::size_t i = 0; i < below.size(); i += 2) {
            if (i + 1 == below.size()) {
                above.push_back(below[i]);
                continue;
            }
            const Node& l = m_nodes[below[i]];
            const Node& r = m_nodes[below[i + 1]];
            Node node;
            node.box = unite(l.box, r.box);
            node.tileBegin = l.tileBegin;
            node.tileEnd = r.tileEnd;
            node.left = below[i];
            node.right = below[i + 1];
            node.region = l.region == r.region ? l.region : -1;
            node.level = static_cast<std::uint32_t>(m_levels.size());
            node.points = l.points + r.points;
            node.weightSum = l.weightSum + r.weightSum;
            node.weightSquares = l.weightSquares + r.weightSquares;
            above.push_back(static_cast<std::uint32_t>(m_nodes.size()));
            m_nodes.push_back(node);
        }
        m_levels.push_back(std::move(above));
    }
    m_root = m_levels.back().front();
}

TraversalFrontier traversalFrontier(const TileTree& first, const TileTree& second,
                                    const TraversalRules& rules, std::size_t maxPieces) {
    TraversalFrontier out;
    if (first.root() == TileTree::kNone || second.root() == TileTree::kNone)
        return out;
    // The lowest level with at most maxPieces nodes, and not below the leaf blocks (their pairs
    // are listed whole: pieces of them would only cut the work finer than it is done).
    std::uint32_t pieceLevel = 0;
    while (first.level(pieceLevel).size() > std::max<std::size_t>(1, maxPieces) ||
           (pieceLevel < rules.leafLevel && pieceLevel + 1 < first.levelCount()))
        ++pieceLevel;
    std::vector<FrontierPair> frontier;
    Traversal traversal(first, second, rules, &frontier, pieceLevel);
    if (rules.isAuto)
        traversal.same(first.root());
    else
        traversal.cross(first.root(), second.root());
    out.top = traversal.finish();
    // Grouped by first node, in tile order; within a group in the order found.
    std::stable_sort(frontier.begin(), frontier.end(),
                     [&](const FrontierPair& x, const FrontierPair& y) {
                         return first.node(x.a).tileBegin < first.node(y.a).tileBegin;
                     });
    for (std::size_t i = 0; i < frontier.size(); ++i) {
        if (i == 0 || frontier[i].a != frontier[i - 1].a)
            out.pieces.emplace_back();
        out.pieces.back().push_back(frontier[i]);
    }
    return out;
}

TraversalPiece traversePiece(const TileTree& first, const TileTree& second,
                             const TraversalRules& rules, std::span<const FrontierPair> piece) {
    Traversal traversal(first, second, rules);
    for (const FrontierPair& pair : piece) {
        if (pair.same)
            traversal.same(pair.a);
        else
            traversal.cross(pair.a, pair.b);
    }
    return traversal.finish();
}

} // namespace tpacf::cuda::detail
