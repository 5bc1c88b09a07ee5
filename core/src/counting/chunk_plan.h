// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to countBatchInChunks (tpacf/chunked_count.h): which piece counts a batch is made of
// and how they are packed into sub-batches. Nothing here is public API.
#include "counting/chunk_pieces.h"
#include "tpacf/bins.h"
#include "tpacf/pair_counter.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

namespace tpacf::chunk {

/// A piece count without a second piece (the auto of its first).
inline constexpr std::uint32_t kNoPiece = std::numeric_limits<std::uint32_t>::max();

/// One piece count of a task: auto of piece a (b == kNoPiece) or piece a × piece b.
struct SubTask {
    std::uint32_t task = 0;
    std::uint32_t a = 0;
    std::uint32_t b = kNoPiece;
    std::uint64_t pairs = 0; // pairs the piece count visits (whole, not a share)
};

/// The piece counts of one call of the counting function, and the pieces they need.
struct SubBatch {
    std::vector<std::uint32_t> pieces;   // global piece numbers
    std::vector<std::uint32_t> subTasks; // into Plan::subTasks
};

/// The pieces of every catalog of a batch (numbered globally, catalog by catalog), the piece
/// counts of every task and the sub-batches in the order they are counted.
struct Plan {
    std::vector<chunk::PieceSet> sets;      // per distinct catalog, in order of first use
    std::vector<std::uint32_t> pieceSet;    // global piece → its set
    std::vector<std::size_t> pieceIndex;    // global piece → its number in the set
    std::vector<std::uint64_t> piecePoints; // global piece → points
    std::vector<SubTask> subTasks;
    std::vector<SubBatch> batches;           // in the order they are counted
    std::vector<std::uint64_t> countedPairs; // per task: pairs of its piece counts
    std::vector<std::uint64_t> skippedPairs; // per task: pairs of its skipped piece pairs
    std::size_t skippedPiecePairs = 0;
};

/// The catalogs of a batch, each once, in order of first use.
std::vector<const Catalog*> distinctCatalogs(std::span<const CountTask> tasks);

/// Cuts every catalog into pieces of at most maxPointsPerBatch / 2 points (`preparing(c)` before
/// catalog c, and once more with the count of catalogs at the end; `poll` within the cuts), lists
/// each task's piece counts, skipping piece pairs out of reach of the largest bin, and packs them
/// into sub-batches of at most maxPointsPerBatch distinct points.
Plan makePlan(std::span<const CountTask> tasks, const Binning& binning,
              std::uint64_t maxPointsPerBatch, const std::function<void(std::size_t)>& preparing,
              const SplitPoll& poll);

} // namespace tpacf::chunk
