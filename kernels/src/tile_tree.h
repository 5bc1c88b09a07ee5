// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA backend's multi-scale culling, on the host (plain C++): a binary hierarchy over each
// catalog's tiles in curve order, and a dual traversal of two hierarchies that drops node pairs
// out of reach of the bins, counts whole every node pair whose pairs all land in one bin, and
// leaves to the pair kernel only the tile pairs that no node above them settles. See
// tile_tree.cpp for why its counts are those of the kernel's own tile classification.
#include "tpacf/culling.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::cuda::detail {

/// Σw and Σw² of one tile's real points (weighted batches), as the preparation summed them.
struct TileSums {
    double sum = 0;
    double squares = 0;
};

/// One catalog's tiles as the host sees them after the preparation: the box of each tile's real
/// points (double) and, for weighted batches, their weight sums (else empty).
struct CatalogTiles {
    std::vector<CellBounds> bounds;
    std::vector<TileSums> weights;
};

/// What the hierarchy is built from: one catalog's tiles.
struct TileTreeInput {
    std::span<const CellBounds> bounds;
    std::span<const std::uint32_t> counts;  ///< real points of each tile
    std::span<const std::uint32_t> regions; ///< region of each tile; empty: one region (0)
    std::span<const TileSums> weights;      ///< empty: no weight sums
};

/// A binary hierarchy over consecutive tiles: level 0 is the tiles, each level above joins
/// neighbours two by two (an odd last node rises alone). Consecutive tiles of the sky curve are
/// close on the sky, and the curve is continuous over the whole sphere (sky_curve.h), so a node is
/// a compact patch of 2^level tiles; in k-d groups (kd_groups.h) the nodes inside a group are the
/// halves of its median splits.
class TileTree {
public:
    static constexpr std::uint32_t kNone = ~0u;
    struct Node {
        CellBounds box;
        std::uint32_t tileBegin = 0, tileEnd = 0;
        std::uint32_t left = kNone, right = kNone; ///< children (kNone: a tile)
        std::int32_t region = 0;                   ///< every tile's region, −1 where they differ
        std::uint32_t level = 0;                   ///< 0 for a tile, the level that made it
        std::uint64_t points = 0;
        double weightSum = 0, weightSquares = 0;
        bool isTile() const noexcept { return left == kNone; }
    };

    explicit TileTree(const TileTreeInput& input);

    const Node& node(std::uint32_t index) const noexcept { return m_nodes[index]; }
    std::uint32_t root() const noexcept { return m_root; } ///< kNone without tiles
    /// The nodes of one level, left to right (level 0: the tiles; the last level: the root).
    std::span<const std::uint32_t> level(std::size_t depth) const noexcept { return m_levels[depth]; }
    std::size_t levelCount() const noexcept { return m_levels.size(); }

private:
    std::vector<Node> m_nodes;
    std::vector<std::vector<std::uint32_t>> m_levels;
    std::uint32_t m_root = kNone;
};

/// Pairs of one node pair counted whole: its bin, the regions of its two sides (0 without
/// regions), the pairs and (weighted tasks) Σ w_i·w_j.
struct WholePairs {
    std::uint32_t regionA = 0, regionB = 0, bin = 0;
    std::uint64_t pairs = 0;
    double weighted = 0;
};

/// How node pairs are judged: the kernel's double thresholds (binCount + 1 edges, the kernel's
/// table) and margin, and the task's kind.
struct TraversalRules {
    std::span<const double> thresholds; ///< ascending chord² edges t[0..binCount]
    double relativeMargin = 0;          ///< the kernel's kTileBoxMargin
    bool isAuto = false;
    bool weighted = false;
    /// An open pair of nodes both at or below this level is left to the kernel whole, every
    /// tile pair of it listed: the kernel classifies each tile pair by the same rule, and below
    /// ~1024 points a node pair costs the host more to judge than the kernel (0: tile pairs).
    std::uint32_t leafLevel = 0;
};

/// What the traversal of one piece of a task found: the tile pairs to count one by one, as runs
/// sorted by a then b (touching runs joined), the node pairs counted whole in the order found,
/// and how many node pairs it judged.
struct TraversalPiece {
    std::vector<CellPairRun> runs;
    std::vector<WholePairs> whole;
    std::uint64_t judged = 0;
};

/// A node pair left open where the traversal of a task is cut into pieces: node a of the first
/// hierarchy (a node of the piece level), node b of the second; same: a with itself (auto).
struct FrontierPair {
    std::uint32_t a = 0, b = 0;
    bool same = false;
};

/// A task's traversal down to the piece level, on one thread: node pairs are judged from the
/// roots and only the first side is opened, down to nodes of the lowest level holding at most
/// `maxPieces` nodes; the open pairs there are the frontier, grouped into pieces by their first
/// node in tile order (so the pieces' runs, concatenated, come sorted by a). `top` holds what
/// was settled above the piece level. Depends on the tiles alone, never on the cores.
struct TraversalFrontier {
    TraversalPiece top;
    std::vector<std::vector<FrontierPair>> pieces;
};
TraversalFrontier traversalFrontier(const TileTree& first, const TileTree& second,
                                    const TraversalRules& rules, std::size_t maxPieces);

/// One piece of the frontier, traversed to the end: its pairs' tile pairs to count (runs
/// sorted by a, then b) and its whole node pairs.
TraversalPiece traversePiece(const TileTree& first, const TileTree& second,
                             const TraversalRules& rules, std::span<const FrontierPair> piece);

} // namespace tpacf::cuda::detail
