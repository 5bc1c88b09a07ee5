// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Mean separation per bin (tpacf run --mean-theta): for every pair a count bins, its separation θ
// and ln θ summed per bin, pair-weighted in a weighted count, in double whatever the counting
// precision. Whole cell pairs cannot be added at once here (each pair's θ is needed), so this is
// a pass of its own beside the counts: a host plan of the cell pairs within reach of the bins
// (MomentsPlan) that the CPU walks on its threads and a GPU backend walks on the device.
#include "tpacf/bins.h"
#include "tpacf/pair_counter.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tpacf {

/// Per bin of one count: the pairs binned there, Σw, Σw·θ and Σw·ln θ with w = w_i·w_j (1 in an
/// unweighted count), θ in radians.
struct SeparationMoments {
    std::vector<std::uint64_t> pairs;
    std::vector<double> weight;
    std::vector<double> theta;
    std::vector<double> logTheta;

    static SeparationMoments zeros(std::size_t binCount);
    std::size_t binCount() const noexcept { return pairs.size(); }
    /// Adds another count's (or part's) sums bin by bin; the bin counts must agree.
    void add(const SeparationMoments& other);
    /// Σw·θ / Σw in radians; NaN where the bin holds no weight.
    double meanTheta(std::size_t bin) const noexcept;
    /// Σw·ln θ / Σw (θ in radians); NaN where the bin holds no weight, −inf where it holds
    /// coincident points (θ = 0 in a bin from 0).
    double meanLogTheta(std::size_t bin) const noexcept;
};

/// θ of a pair from its squared chord c² = 4 sin²(θ/2): 2 asin(√c² / 2). Well conditioned at
/// small θ (where acos of the dot product is not); c² rounded just above 4 (antipodes) is 180°.
inline double separationOfChord2(double chord2) noexcept {
    return 2.0 * std::asin(std::min(1.0, std::sqrt(chord2) * 0.5));
}

/// One catalog of a moments plan: its unit vectors in Morton order (points near each other are
/// near in memory) and, where a weighted task reads it, the weight of each (empty: every weight
/// is 1).
struct MomentsCatalog {
    std::vector<double> x, y, z, w;
    std::size_t size() const noexcept { return x.size(); }
};

/// Points [aBegin, aEnd) of catalog catA against [bBegin, bEnd) of catB for task `task`.
/// `diagonal`: an auto task's cell against itself (the same range on both sides): pairs i < j.
struct MomentsBlock {
    std::uint32_t task = 0;
    std::uint32_t catA = 0, catB = 0;
    std::uint32_t aBegin = 0, aEnd = 0;
    std::uint32_t bBegin = 0, bEnd = 0;
    std::uint32_t diagonal = 0;

    std::uint64_t pairs() const noexcept {
        const std::uint64_t a = aEnd - aBegin, b = bEnd - bBegin;
        return diagonal ? a * (a - 1) / 2 : a * b;
    }
};

/// Most points on the b side of one block: blocks stay short enough to balance across threads
/// (and GPU blocks) and to report progress between them.
inline constexpr std::uint32_t kMomentsBlockSpan = 16384;

/// The work of a moments pass: every distinct catalog of the tasks sorted into small cells, and
/// the cell pairs whose boxes can hold a pair in the bins (culling.h's listCellPairs, with the
/// double margin), as blocks. The pairs dropped have c² outside the bins in double, so a walk
/// that bins every pair of the blocks as Binning::binOfChord2 does bins exactly the pairs the
/// double reference counts.
struct MomentsPlan {
    std::vector<MomentsCatalog> catalogs;
    std::vector<MomentsBlock> blocks;
    std::vector<std::uint8_t> weighted; ///< per task: CountTask::weighted
    std::size_t taskCount = 0;
    std::uint64_t pairsVisited = 0; ///< pairs of all blocks
};

/// Builds the plan on up to `threads` threads (<= 0: all). Polls `control` (cancel) between
/// steps. Throws ConfigError for a catalog beyond 2³² points.
MomentsPlan planSeparationMoments(std::span<const CountTask> tasks, const Binning& binning,
                                  int threads, const CountControl& control);

/// Walks a plan on the host: one SeparationMoments per task, in task order. Progress (pairs of
/// the blocks done) and cancellation through `control`. Each pair's c² is computed as the CPU
/// kernels compute it (differences, squares, ((x + y) + z), no contraction) and binned as
/// Binning::binOfChord2, so a bin's pairs are the double reference's pairs of that bin.
std::vector<SeparationMoments> walkMomentsPlanOnCpu(const MomentsPlan& plan,
                                                    const Binning& binning, int threads,
                                                    const CountControl& control);

/// planSeparationMoments then walkMomentsPlanOnCpu: what a backend without a device path uses.
std::vector<SeparationMoments> countSeparationMomentsOnCpu(std::span<const CountTask> tasks,
                                                           const Binning& binning, int threads,
                                                           const CountControl& control);

} // namespace tpacf
