#pragma once
// Normalisation of raw pair counts and the w(θ) estimators.
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tpacf {

enum class Estimator { LandySzalay, Natural, DavisPeebles, Hamilton };

/// "ls", "natural", "dp", "hamilton" (also the full names, case-insensitive).
std::optional<Estimator> parseEstimator(std::string_view text) noexcept;
/// Key as the CLI spells it: "ls", "natural", "dp", "hamilton".
std::string_view estimatorKey(Estimator estimator) noexcept;
/// Name for people: "Landy-Szalay", "Natural", "Davis-Peebles", "Hamilton".
std::string_view estimatorName(Estimator estimator) noexcept;
/// Formula in words for metadata, e.g. "w = (DD - 2 DR + RR) / RR".
std::string_view estimatorFormula(Estimator estimator) noexcept;

/// Raw counts of one job: DD, and DR_i, RR_i for each random set i.
struct RawCounts {
    PairCounts dd;
    std::vector<PairCounts> dr;
    std::vector<PairCounts> rr;
    std::uint64_t dataSize = 0;
    std::vector<std::uint64_t> randomSizes;
};

/// Counts divided by their pair totals: DD/(N_D(N_D−1)/2), DR_i/(N_D N_Ri), RR_i/(N_Ri(N_Ri−1)/2),
/// DR and RR then averaged over the random sets. NaN where a total is zero.
struct NormalisedCounts {
    std::vector<double> dd, dr, rr;
};

NormalisedCounts normalise(const RawCounts& raw);

/// Like normalise(), but each count divided by the pairs actually visited so far (for live plots
/// of a running job). `pairsDone` holds one entry per count in the order DD, DR_1..n, RR_1..n.
NormalisedCounts normaliseByPairsVisited(const RawCounts& raw,
                                         const std::vector<std::uint64_t>& pairsDone);

/// w(θ) per bin; NaN where a needed denominator is zero or a needed count is NaN.
std::vector<double> estimate(Estimator estimator, const NormalisedCounts& counts);

} // namespace tpacf
