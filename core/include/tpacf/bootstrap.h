// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Bootstrap error bars over the jackknife regions (tpacf run --bootstrap B): the marked point
// bootstrap of Loh (2008, ApJ 681, 726). Each point carries a mark, its share of the pairs it
// belongs to (half of each pair, the other half going to the pair's other point); a region's
// mark is the sum over its points, so that the marks of all regions add up to the count. A
// bootstrap sample draws K regions with replacement and sums their marks, as it sums their
// points (N) or weights (Σw, Σw²) for the pair totals; w_b is the estimator on those sums, and
// C_ij = 1/(B−1) Σ_b (w_b,i − w̄_i)(w_b,j − w̄_j). A region's mark per bin is
// (touching + within) / 2 of the region tallies the jackknife counts anyway (pairs with one
// point in the region count half, pairs with both in it count whole), so a bootstrap costs no
// counting beyond a jackknife's. TreeCorr's 'bootstrap' method instead re-weights the K × K
// counts between patches, which this engine does not keep.
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tpacf {

/// Smallest and largest bootstrap sample counts accepted.
inline constexpr int kMinBootstrapSamples = 2;
inline constexpr int kMaxBootstrapSamples = 100000;

/// B draws of `regions` region indices with replacement: a SplitMix64 stream from `seed`, each
/// index by rejection, so that none is favoured. ConfigError for B or K out of range.
std::vector<std::vector<std::uint32_t>> bootstrapSelections(std::size_t regions, int samples,
                                                            std::uint64_t seed);

/// The counts of one bootstrap sample: the marks and shares of the regions `selection` names
/// (a region drawn twice counts twice), as weighted counts (RawCounts::weighted), since a mark
/// is a sum of half pairs: unweighted jobs have every weight 1.
RawCounts bootstrapCounts(const JackknifeCounts& counts, std::span<const std::uint32_t> selection);

/// w of every bootstrap sample: samples[b][bin].
std::vector<std::vector<double>>
bootstrapSamples(Estimator estimator, const JackknifeCounts& counts,
                 const std::vector<std::vector<std::uint32_t>>& selections);

} // namespace tpacf
