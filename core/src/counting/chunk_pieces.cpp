// SPDX-License-Identifier: GPL-3.0-or-later
// Pieces of a catalog for counting in chunks (chunk_pieces.h).
//
// Why a k-d tree over the unit vectors rather than Dec bands or a fixed cell order: the chunked
// count skips a pair of pieces by the distance of their axis-aligned boxes of unit vectors, so
// pieces should have small boxes; cutting each node across the widest side of its own box
// shrinks exactly those boxes, adapts to clustering and to any footprint, and needs no special
// case at the poles or at RA = 0/360 (Dec bands give long thin strips whose boxes span the whole
// RA range). Cutting at the count the node's pieces call for (an exact selection, nth_element)
// gives pieces of equal sizes, so no more pieces than the budget needs. The leaves come out in
// tree order, so consecutive pieces are neighbours on the sky.
#include "counting/chunk_pieces.h"

#include "tpacf/chunked_count.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <array>
#include <limits>
#include <span>
#include <string>

namespace tpacf::chunk {

namespace {

// Points per worker below which copying or measuring runs on one thread.
constexpr std::size_t kMinPointsPerWorker = std::size_t{1} << 16;

// Threads for a pass over n points split into a few large ranges: one where n is small.
int threadsFor(std::size_t n) {
    return n < 2 * kMinPointsPerWorker ? 1 : 0;
}

struct Node {
    std::size_t begin = 0, end = 0; // range of the order
    std::size_t pieces = 1;         // pieces it is to be cut into
};

CellBounds emptyBounds() {
    CellBounds box;
    box.lo.fill(std::numeric_limits<double>::infinity());
    box.hi.fill(-std::numeric_limits<double>::infinity());
    return box;
}

void include(CellBounds& box, double x, double y, double z) {
    const std::array<double, 3> p{x, y, z};
    for (int axis = 0; axis < 3; ++axis) {
        box.lo[axis] = std::min(box.lo[axis], p[axis]);
        box.hi[axis] = std::max(box.hi[axis], p[axis]);
    }
}

template <class Index> CellBounds boundsOf(const Catalog& catalog, std::span<const Index> points) {
    const std::span<const double> x = catalog.x(), y = catalog.y(), z = catalog.z();
    CellBounds box = emptyBounds();
    for (const Index i : points)
        include(box, x[i], y[i], z[i]);
    return box;
}

// Cuts every node of the tree level by level (the nodes of one level hold disjoint ranges, so
// they are cut on parallel workers) until each is one piece; returns the leaves in tree order.
template <class Index>
std::vector<Node> splitOrder(const Catalog& catalog, std::vector<Index>& order,
                             std::size_t pieceCount, const SplitPoll& poll) {
    const std::array<std::span<const double>, 3> coordinate{catalog.x(), catalog.y(), catalog.z()};
    std::vector<Node> level{{0, order.size(), pieceCount}};
    while (std::any_of(level.begin(), level.end(), [](const Node& n) { return n.pieces > 1; })) {
        poll();
        std::vector<std::array<Node, 2>> children(level.size());
        parallelForRanges(
            level.size(),
            [&](std::size_t first, std::size_t last) {
                for (std::size_t k = first; k < last; ++k) {
                    const Node& node = level[k];
                    if (node.pieces == 1)
                        continue;
                    const std::span<Index> points(order.data() + node.begin, node.end - node.begin);
                    const CellBounds box = boundsOf<Index>(catalog, points);
                    int axis = 0;
                    for (int a = 1; a < 3; ++a)
                        if (box.hi[a] - box.lo[a] > box.hi[axis] - box.lo[axis])
                            axis = a;
                    // The left child gets floor(n · left / pieces) points: with n <= pieces · max
                    // on entry, both children keep n <= their pieces · max (so no leaf exceeds it).
                    // Written so that nothing overflows: r · left < pieces² <=
                    // kMaxPiecesPerCatalog².
                    const std::size_t n = points.size();
                    const std::size_t left = node.pieces / 2;
                    const std::size_t cut =
                        (n / node.pieces) * left + (n % node.pieces) * left / node.pieces;
                    const std::span<const double> key = coordinate[std::size_t(axis)];
                    std::nth_element(points.begin(), points.begin() + std::ptrdiff_t(cut),
                                     points.end(),
                                     [&](Index a, Index b) { return key[a] < key[b]; });
                    children[k][0] = {node.begin, node.begin + cut, left};
                    children[k][1] = {node.begin + cut, node.end, node.pieces - left};
                }
            },
            threadsFor(order.size()));
        std::vector<Node> next;
        next.reserve(2 * level.size());
        for (std::size_t k = 0; k < level.size(); ++k) {
            if (level[k].pieces == 1) {
                next.push_back(level[k]);
            } else {
                next.push_back(children[k][0]);
                next.push_back(children[k][1]);
            }
        }
        level = std::move(next);
    }
    return level;
}

template <class Index>
void splitInto(PieceSet& set, std::vector<Index>& order, std::size_t pieceCount,
               const SplitPoll& poll) {
    order.resize(set.catalog->size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<Index>(i);
    const std::vector<Node> leaves = splitOrder(*set.catalog, order, pieceCount, poll);
    set.start.reserve(leaves.size() + 1);
    for (const Node& leaf : leaves)
        set.start.push_back(leaf.begin);
    set.start.push_back(order.size());
    set.bounds.resize(leaves.size());
    parallelForRanges(
        leaves.size(),
        [&](std::size_t first, std::size_t last) {
            for (std::size_t p = first; p < last; ++p)
                set.bounds[p] = boundsOf<Index>(
                    *set.catalog,
                    std::span<const Index>(order.data() + set.start[p], set.pieceSize(p)));
        },
        threadsFor(order.size()));
}

template <class Index>
Catalog gather(const PieceSet& set, std::span<const Index> points, std::string name) {
    const Catalog& catalog = *set.catalog;
    const std::size_t n = points.size();
    Catalog::Columns columns;
    columns.ra.resize(n);
    columns.dec.resize(n);
    columns.x.resize(n);
    columns.y.resize(n);
    columns.z.resize(n);
    if (catalog.hasWeights())
        columns.weight.resize(n);
    if (!catalog.region().empty())
        columns.region.resize(n);
    parallelForRanges(
        n,
        [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k) {
                const Index i = points[k];
                columns.ra[k] = catalog.ra()[i];
                columns.dec[k] = catalog.dec()[i];
                columns.x[k] = catalog.x()[i];
                columns.y[k] = catalog.y()[i];
                columns.z[k] = catalog.z()[i];
                if (!columns.weight.empty())
                    columns.weight[k] = catalog.weight()[i];
                if (!columns.region.empty())
                    columns.region[k] = catalog.region()[i];
            }
        },
        0, kMinPointsPerWorker);
    return Catalog::fromBuiltColumns(std::move(name), std::move(columns));
}

} // namespace

PieceSet splitCatalog(const Catalog& catalog, std::uint64_t maxPiecePoints, const SplitPoll& poll) {
    if (maxPiecePoints == 0)
        throw ConfigError("a piece of a catalog must hold at least one point");
    PieceSet set;
    set.catalog = &catalog;
    const std::uint64_t n = catalog.size();
    if (n == 0) {
        set.start = {0};
        return set;
    }
    const std::uint64_t pieces = n / maxPiecePoints + (n % maxPiecePoints != 0 ? 1 : 0);
    if (pieces > kMaxPiecesPerCatalog)
        throw ConfigError("catalog " + catalog.name() + " (" + std::to_string(n) +
                          " points) would be cut into " + std::to_string(pieces) +
                          " pieces of at most " + std::to_string(maxPiecePoints) +
                          " points, above the limit of " + std::to_string(kMaxPiecesPerCatalog) +
                          " pieces per catalog: raise the points per batch");
    if (pieces == 1) {
        set.start = {0, std::size_t(n)};
        CellBounds box = emptyBounds();
        for (std::size_t i = 0; i < n; ++i)
            include(box, catalog.x()[i], catalog.y()[i], catalog.z()[i]);
        set.bounds = {box};
        return set;
    }
    if (n <= std::numeric_limits<std::uint32_t>::max())
        splitInto(set, set.order32, std::size_t(pieces), poll);
    else
        splitInto(set, set.order64, std::size_t(pieces), poll);
    return set;
}

Catalog materializePiece(const PieceSet& set, std::size_t piece) {
    std::string name = set.catalog->name() + " [piece " + std::to_string(piece + 1) + " of " +
                       std::to_string(set.pieceCount()) + "]";
    const std::size_t first = set.start[piece], count = set.pieceSize(piece);
    if (!set.order32.empty())
        return gather<std::uint32_t>(
            set, std::span<const std::uint32_t>(set.order32.data() + first, count),
            std::move(name));
    return gather<std::uint64_t>(
        set, std::span<const std::uint64_t>(set.order64.data() + first, count), std::move(name));
}

// The same arithmetic as the culling's box bounds (sky_cells.h boxMinChord2): each gap rounded
// on its own, which never exceeds the gap of any two points of the boxes.
double boxGapChord2(const CellBounds& a, const CellBounds& b) noexcept {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double gap =
            std::max(0.0, std::max(b.lo[axis] - a.hi[axis], a.lo[axis] - b.hi[axis]));
        sum += gap * gap;
    }
    return sum;
}

} // namespace tpacf::chunk
