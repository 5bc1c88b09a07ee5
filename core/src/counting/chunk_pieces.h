// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to countBatchInChunks (tpacf/chunked_count.h): a catalog cut into spatially compact
// pieces of bounded size, each piece's box of unit vectors, and the exact copy of one piece as a
// catalog of its own. Nothing here is public API.
#include "tpacf/catalog.h"
#include "tpacf/culling.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tpacf::chunk {

/// The pieces of one catalog. A catalog of one piece is used as it is (no permutation, no copy);
/// otherwise piece i holds the points order[start[i] … start[i+1]).
struct PieceSet {
    const Catalog* catalog = nullptr;
    /// The points in piece order: 32-bit indices where the catalog allows (half the memory of
    /// 64-bit ones, 4 bytes a point beside the catalog's 40), else 64-bit; one of them is used.
    std::vector<std::uint32_t> order32;
    std::vector<std::uint64_t> order64;
    std::vector<std::size_t> start; ///< pieces + 1 offsets into the order
    std::vector<CellBounds> bounds; ///< box of each piece's unit vectors

    std::size_t pieceCount() const noexcept { return bounds.size(); }
    std::size_t pieceSize(std::size_t piece) const noexcept {
        return start[piece + 1] - start[piece];
    }
    /// The catalog is its only piece: count it as it is.
    bool whole() const noexcept { return pieceCount() == 1; }
};

/// Called between steps of the split (one level of the tree): checks the cancel token.
using SplitPoll = std::function<void()>;

/// Cuts a catalog into ceil(N / maxPiecePoints) pieces of as equal sizes as the count allows
/// (none above maxPiecePoints; an empty catalog has none), by a k-d tree over the unit vectors:
/// each node is cut at the count its pieces call for, across the widest side of its box.
/// Throws ConfigError where that is more than kMaxPiecesPerCatalog pieces.
PieceSet splitCatalog(const Catalog& catalog, std::uint64_t maxPiecePoints, const SplitPoll& poll);

/// Piece `piece` as a catalog of its own: every column (ra, dec, x, y, z, weight, region) copied
/// exactly, nothing recomputed. Not for a whole() set (use the catalog itself).
Catalog materializePiece(const PieceSet& set, std::size_t piece);

/// Lower bound on the squared chord of every pair between two boxes (0 where they overlap).
double boxGapChord2(const CellBounds& a, const CellBounds& b) noexcept;

} // namespace tpacf::chunk
