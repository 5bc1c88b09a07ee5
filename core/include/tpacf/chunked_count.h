// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Counting a batch whose catalogs hold more points than a backend can take at once (a GPU's
// memory): the catalogs are cut into spatially compact pieces, the batch into sub-batches of
// piece pairs that fit the budget, and the sub-batches' counts add up to the batch's exactly.
// Backend-independent: the caller gives the function that counts one sub-batch.
#include "tpacf/bins.h"
#include "tpacf/pair_counter.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace tpacf {

/// What a chunked count did (for logs, benchmarks and tests).
struct ChunkReport {
    std::size_t pieces = 0;            ///< pieces of the distinct catalogs (a catalog that fits: 1)
    std::size_t subBatches = 0;        ///< calls of the counting function
    std::size_t subTasks = 0;          ///< piece counts (auto of a piece, or piece × piece) made
    std::size_t piecePairsSkipped = 0; ///< piece pairs farther apart than the largest bin
};

/// Most pieces one catalog may be cut into: its piece pairs grow as the square.
inline constexpr std::size_t kMaxPiecesPerCatalog = 4096;

/// Relative margin on the largest bin's c² when a piece pair is skipped: above the rounding of
/// any backend's c² (the float path: ~2e-7), so no pair a backend would count is dropped.
inline constexpr double kPieceSkipMargin = 1e-5;

/// Counts one sub-batch, as PairCounter::countBatch does (a backend's own count, typically).
using SubBatchCount = std::function<std::vector<TaskCounts>(std::span<const CountTask>,
                                                            const Binning&, const CountControl&)>;
/// Counts one sub-batch by region, as PairCounter::countBatchByRegion does.
using SubBatchRegionCount = std::function<std::vector<RegionPairCounts>(
    std::span<const CountTask>, const Binning&, std::size_t regionCount, const CountControl&)>;

/// Points of the distinct catalogs of a batch (a catalog used by several tasks counts once).
std::uint64_t distinctPoints(std::span<const CountTask> tasks);

/// Counts `tasks` as `count` would in one call, in sub-batches whose distinct catalogs hold at
/// most maxPointsPerBatch points in all. A batch that fits is one call of `count` with the tasks
/// and control unchanged. Otherwise each catalog is cut into pieces of at most
/// maxPointsPerBatch / 2 points (by a k-d tree over its unit vectors; piece i of P is a catalog
/// named "<catalog> [piece i of P]"), a task into piece counts
/// (auto(A) = Σ auto(A_i) + Σ_{i<j} A_i×A_j, cross(A, B) = Σ A_i×B_j), dropping piece pairs whose
/// boxes of unit vectors lie farther apart than the largest bin (c² margin kPieceSkipMargin), and
/// the piece counts are packed greedily into sub-batches in an order where consecutive ones share
/// pieces. Pieces are exact copies of their catalog's columns (weights and regions kept), made
/// when a sub-batch needs them and freed when the next does not, so besides the catalogs at most
/// maxPointsPerBatch points of pieces and 4 (N > 2³²: 8) bytes a point of piece order are held.
/// Integer counts equal the unchunked ones exactly; weighted sums up to their summation order.
///
/// Control: every sub-batch is counted with control.share (the shares of each sub-batch add up
/// to it, so the shares of the batch do), control.cancelRequested and progressEvery; the cancel
/// token is also checked between sub-batches (throws Cancelled). Progress is reported for the
/// original tasks: pairsDonePerTask per task; pairsTotal is Σ pairTotal for the whole batch and,
/// for a share, the sub-batches' share totals as they report them (an even split of their pairs
/// until then), so pairsDone ends at pairsTotal. Pairs of skipped piece pairs are credited to a
/// task in proportion to its counted pairs done (work, not pairs, sets the pace), for a share an
/// even split of them. No partial counts (partialsEvenlySpread false), no work measure
/// (workTotal 0); preparing while the catalogs are cut.
///
/// Throws ConfigError for maxPointsPerBatch < 2, a task without a catalog, an invalid share, a
/// catalog that would need more than kMaxPiecesPerCatalog pieces, or an empty `count`; Error
/// where `count` returns counts of another shape than asked for.
std::vector<TaskCounts> countBatchInChunks(std::span<const CountTask> tasks, const Binning& binning,
                                           const CountControl& control,
                                           std::uint64_t maxPointsPerBatch,
                                           const SubBatchCount& count,
                                           ChunkReport* report = nullptr);

/// The same keyed by jackknife region (every catalog carries regions in [0, regionCount)):
/// the piece counts' total, touching, within and weighted tallies add up.
std::vector<RegionPairCounts>
countBatchByRegionInChunks(std::span<const CountTask> tasks, const Binning& binning,
                           std::size_t regionCount, const CountControl& control,
                           std::uint64_t maxPointsPerBatch, const SubBatchRegionCount& count,
                           ChunkReport* report = nullptr);

} // namespace tpacf
