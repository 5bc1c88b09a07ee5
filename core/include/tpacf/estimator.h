#pragma once
// Normalisation of raw pair counts and the w(θ) estimators. The estimators are one table
// (estimators()): the parser, the names, the CLI help, the GUI list and estimate() all read it,
// so a new estimator is an enumerator, one table entry and its tests.
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

/// Values are indices into estimators(): keep the order of the table.
enum class Estimator { LandySzalay, Natural, DavisPeebles, Hamilton };

/// One estimator: how people and the command line name it, and how it combines normalised counts.
struct EstimatorInfo {
    Estimator id;
    std::string_view key;     ///< as the CLI and session files spell it: "ls"
    std::string_view name;    ///< for people: "Landy-Szalay"
    std::string_view formula; ///< for metadata and tooltips: "w = (DD - 2 DR + RR) / RR"
    /// Further names parseEstimator() accepts besides key and name: "Peebles-Hauser".
    std::span<const std::string_view> aliases;
    bool needsDR; ///< false: w ignores DR (it may be NaN or missing)
    bool needsRR; ///< false: w ignores RR (it may be NaN or missing)
    /// w of one bin from normalised DD, DR, RR; NaN where a denominator is zero or NaN. May
    /// return ±inf on infinite input: estimate() turns that into NaN for every estimator.
    double (*w)(double dd, double dr, double rr);
};

/// Every estimator, in the order of the Estimator enumerators (the GUI lists them so).
std::span<const EstimatorInfo> estimators() noexcept;
/// The table entry of `estimator`.
const EstimatorInfo& estimatorInfo(Estimator estimator) noexcept;

/// Key, name or alias of a table entry, case-insensitive, ignoring '-', '_' and spaces.
std::optional<Estimator> parseEstimator(std::string_view text) noexcept;
/// Key as the CLI spells it: "ls", "natural", "dp", "hamilton".
std::string_view estimatorKey(Estimator estimator) noexcept;
/// Name for people: "Landy-Szalay", "Natural", "Davis-Peebles", "Hamilton".
std::string_view estimatorName(Estimator estimator) noexcept;
/// Formula in words for metadata, e.g. "w = (DD - 2 DR + RR) / RR".
std::string_view estimatorFormula(Estimator estimator) noexcept;
/// Every key joined by `separator`: "ls, natural, dp, hamilton" (for error messages).
std::string estimatorKeyList(std::string_view separator = ", ");
/// Every key with its name where that says more, marking the default: "ls (Landy-Szalay,
/// default), natural, dp (Davis-Peebles), hamilton" (for help texts).
std::string describeEstimators(Estimator defaultEstimator);

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
