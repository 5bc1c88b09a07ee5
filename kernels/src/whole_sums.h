// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The node pairs a culled list counts whole, added up per task (plain C++): what share part 0
// adds to the devices' counts (Schedule::wholeCounts, wholeWeighted).
#include "tile_tree.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::cuda::detail {

struct WholeSums {
    /// Per task: binCount counters, or with K regions 1 + 2K rows of them (all pairs, a region
    /// touched, within a region), as the kernel's counters.
    std::vector<std::vector<std::uint64_t>> counts;
    /// Per task the same rows of Σ w_i·w_j for a weighted task, empty for the others.
    std::vector<std::vector<double>> weighted;
    std::uint64_t pairs = 0; ///< every task's whole pairs
};

/// Adds up the whole node pairs of `pieces` (piece p belongs to task pieceTask[p]; taskWeighted:
/// per task whether its weighted sums are wanted). The counts are summed on the host's cores (a
/// DD of 2^22 points to 180° has millions of whole node pairs: 3-4 ms on one core); the weighted
/// sums on one thread in piece order, so that they do not depend on the cores. Empties every
/// piece's `whole`.
WholeSums sumWholePairs(std::span<TraversalPiece> pieces, std::span<const std::size_t> pieceTask,
                        std::span<const std::uint8_t> taskWeighted, std::size_t binCount,
                        std::size_t regions);

} // namespace tpacf::cuda::detail
