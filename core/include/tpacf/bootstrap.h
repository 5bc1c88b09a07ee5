// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Bootstrap error bars over the jackknife regions (tpacf run --bootstrap B): TreeCorr's
// var_method='bootstrap' with cross_patch_weight='mean' (Mohammad & Percival 2022, MNRAS 514,
// 1289). A sample draws K regions with replacement; a region drawn m_i times weighs its inner
// pairs m_i, and a pair between regions i and j weighs (m_i + m_j)/2. Per region that is its
// inner pairs whole plus half of the pairs leaving it, (touching + within)/2 of the tallies the
// jackknife counts anyway: the marks of Loh's (2008, ApJ 681, 726) marked point bootstrap, so a
// bootstrap costs no counting beyond a jackknife's. Each count is divided by the same weighted
// sum of the pair totals (D×D: (Σw·Σ_b w − Σ_b w²)/2, D×R: (Σ_b w_D·Σw_R + Σw_D·Σ_b w_R)/2,
// where Σ_b sums over the draw), w_b is the estimator on those, and
// C_ij = 1/(B−1) Σ_b (w_b,i − w̄_i)(w_b,j − w̄_j). TreeCorr's other bootstrap weightings
// ('simple': m_i·m_j, 'geom': √(m_i·m_j)) need the K × K counts between regions, which this
// engine does not keep.
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
/// is a sum of half pairs (unweighted jobs have every weight 1), with their pair totals
/// (RawCounts::givenTotals).
RawCounts bootstrapCounts(const JackknifeCounts& counts, std::span<const std::uint32_t> selection);

/// w of every bootstrap sample: samples[b][bin].
std::vector<std::vector<double>>
bootstrapSamples(Estimator estimator, const JackknifeCounts& counts,
                 const std::vector<std::vector<std::uint32_t>>& selections);

} // namespace tpacf
