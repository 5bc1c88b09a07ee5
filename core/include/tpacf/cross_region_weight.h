// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a jackknife or bootstrap sample weights the pairs whose two points lie in different
// regions, when the sample keeps one region and leaves out (or repeats) the other: TreeCorr's
// cross_patch_weight, after Mohammad & Percival (2022, MNRAS 514, 1289; MP22). A pair inside a
// region always has that region's weight (0 or 1 in a jackknife, the times it was drawn in a
// bootstrap); the choices differ only for pairs between regions. One table, read by the
// parser, the help texts, the GUI's list and the statistics.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tpacf {

/// Values are indices into crossRegionWeights(): keep the order of the table.
enum class CrossRegionWeight { Simple, Mean, Match };

struct CrossRegionWeightInfo {
    CrossRegionWeight id;
    std::string_view key;  ///< as the CLI, Python and session files spell it: "match"
    std::string_view name; ///< for people: "match (Mohammad & Percival 2022)"
    /// What a pair between a kept region and a left-out one counts, in words.
    std::string_view rule;
    bool forJackknife; ///< TreeCorr allows it for var_method='jackknife'
    bool forBootstrap; ///< and for 'bootstrap' (where this engine can compute it)
    /// jackknifeCrossWeight's value for K regions.
    double (*leaveOneOutWeight)(int regions);
};

/// Every choice, in the order of the enumerators.
std::span<const CrossRegionWeightInfo> crossRegionWeights() noexcept;
const CrossRegionWeightInfo& crossRegionWeightInfo(CrossRegionWeight weight) noexcept;
/// By key, case-insensitive; nullopt for anything else.
std::optional<CrossRegionWeight> parseCrossRegionWeight(std::string_view text) noexcept;
/// "simple, mean, match" (for error messages).
std::string crossRegionWeightKeys();

/// The weight a leave-one-out sample of K regions gives a pair with one point in the region
/// left out and the other kept: 0 (simple), 1/2 (mean), or MP22's eq. 27 (match),
/// 1 − K / (2 + √2 (K − 1)), the weight for which auto and cross pairs enter the jackknife
/// covariance alike. Pairs inside the region left out always count 0, all others 1.
double jackknifeCrossWeight(CrossRegionWeight weight, int regions) noexcept;

/// The choice a job uses: `given`, or the default of its method (simple for the jackknife,
/// as TreeCorr; mean for the bootstrap, the one of TreeCorr's bootstrap weightings that
/// per-region tallies give). Throws ConfigError for a choice the method does not take, saying
/// which it does.
CrossRegionWeight effectiveCrossRegionWeight(std::optional<CrossRegionWeight> given,
                                             bool bootstrap);

} // namespace tpacf
