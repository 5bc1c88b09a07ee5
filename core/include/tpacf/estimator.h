// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Normalisation of raw pair counts and the w(θ) estimators. The estimators are one table
// (estimators()): the parser, the names, the CLI help, the GUI list and estimate() all read it,
// so a new estimator is an enumerator, one table entry and its tests.
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <functional>
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
    /// The same for two samples: "w = (D1D2 - D1R2 - R1D2 + R1R2) / R1R2".
    std::string_view crossFormula;
    /// Further names parseEstimator() accepts besides key and name: "Peebles-Hauser".
    std::span<const std::string_view> aliases;
    bool needsDR; ///< false: w ignores DR (it may be NaN or missing)
    bool needsRR; ///< false: w ignores RR (it may be NaN or missing)
    /// Two samples: whether w reads R1D2 (Landy–Szalay and Hamilton do, Davis–Peebles takes
    /// D1D2/D1R2 alone).
    bool needsRD;
    /// w of one bin from normalised DD, DR, RR; NaN where a denominator is zero or NaN. May
    /// return ±inf on infinite input: estimate() turns that into NaN for every estimator.
    double (*w)(double dd, double dr, double rr);
    /// w of one bin of a cross-correlation from normalised D1D2, D1R2, R1D2, R1R2 (as `w`).
    double (*wCross)(double dd, double dr, double rd, double rr);
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
/// Formula in words for metadata, e.g. "w = (DD - 2 DR + RR) / RR"; `cross`: the two-sample
/// form, "w = (D1D2 - D1R2 - R1D2 + R1R2) / R1R2".
std::string_view estimatorFormula(Estimator estimator, bool cross = false) noexcept;
/// Every key joined by `separator`: "ls, natural, dp, hamilton" (for error messages).
std::string estimatorKeyList(std::string_view separator = ", ");
/// Every key with its name where that says more, marking the default: "ls (Landy-Szalay,
/// default), natural, dp (Davis-Peebles), hamilton" (for help texts).
std::string describeEstimators(Estimator defaultEstimator);

/// Σw and Σw² over a catalog's points; a catalog without weights has N and N (weight 1 each).
struct WeightSums {
    double sum = 0;
    double sumSquares = 0;

    /// In point order, in double.
    static WeightSums of(const Catalog& catalog) noexcept;
    bool operator==(const WeightSums&) const = default;
};

/// What each count is divided by: N(N−1)/2 for an auto count and N·M for a cross count, or
/// in a weighted job ((Σw)² − Σw²)/2 and Σw_A·Σw_B. One entry per set in dr, rd, rr.
struct PairTotals {
    double dd = 0;
    std::vector<double> dr, rd, rr;
};

/// Raw counts of one job. One sample (auto): DD, and DR_i, RR_i for each random set i. Two
/// samples (cross): dd = D1D2, dr = D1R2_i, rd = R1_iD2 and rr = R1R2_i, where dataSize and
/// randomSizes are those of D1 and its randoms R1_i; without randoms of its own the second
/// sample uses the first's (R2_i = R1_i: D1R2_i = D1R1_i and R1R2_i = the auto count R1_iR1_i).
/// A weighted job keeps the weighted sums (Σ w_i·w_j) beside every raw count and the weight
/// sums of every catalog; the normalised counts and w then come from those.
struct RawCounts {
    PairCounts dd;
    std::vector<PairCounts> dr;
    std::vector<PairCounts> rr;
    std::uint64_t dataSize = 0;
    std::vector<std::uint64_t> randomSizes;

    bool cross = false;
    std::vector<PairCounts> rd;              // cross: one per random set; empty otherwise
    std::uint64_t data2Size = 0;             // cross: N of D2
    std::vector<std::uint64_t> random2Sizes; // cross with randoms of D2's own; else empty

    bool weighted = false;
    WeightedCounts ddWeighted;
    std::vector<WeightedCounts> drWeighted, rdWeighted, rrWeighted;
    WeightSums dataWeights, data2Weights;
    std::vector<WeightSums> randomWeights, random2Weights; // as randomSizes, random2Sizes

    /// Where set, what normalise() divides the counts by instead of the totals of the sizes: a
    /// jackknife or bootstrap sample that weighs pairs between regions (cross_region_weight.h)
    /// weighs the pairs of its totals alike.
    std::optional<PairTotals> givenTotals;

    /// Cross mode where D2 has randoms of its own (R1R2 is then a cross count).
    bool secondRandoms() const noexcept { return cross && !random2Sizes.empty(); }
};

/// The totals of `raw`'s counts: raw.givenTotals where set, else pairTotalsOf with each
/// catalog's size (its weight sums where weighted).
PairTotals pairTotals(const RawCounts& raw);

/// A catalog of a job as its counts pair them: D (D1), D2, R_i (R1_i) and R2_i of set i.
struct JobCatalog {
    enum class Role { Data, Data2, Random, Random2 };
    Role role = Role::Data;
    std::size_t set = 0;
};

/// The totals of the counts `shape` holds (auto or cross, its random sets) where the pairs of
/// one catalog with itself total autoTotal(c) and those of two catalogs crossTotal(a, b): D with
/// D2 or itself, D1 with R2_i (R1_i where D2 has no randoms), R1_i with D2, R1_i with R2_i or
/// itself. Only the shape of `shape` is read.
PairTotals pairTotalsOf(const RawCounts& shape, const std::function<double(JobCatalog)>& autoTotal,
                        const std::function<double(JobCatalog, JobCatalog)>& crossTotal);

/// Counts divided by their totals (pairTotals), DR, RD and RR then averaged over the random sets.
/// NaN where a total is zero. `rd` is empty unless cross.
struct NormalisedCounts {
    std::vector<double> dd, dr, rr;
    std::vector<double> rd;
    bool cross = false;
};

NormalisedCounts normalise(const RawCounts& raw);

/// Like normalise(), but each count divided by its total scaled to the share of its pairs
/// visited so far (for live plots of a running job): unweighted, the pairs visited themselves.
/// `pairsDone` holds one entry per count in the order DD, DR_1..n, (cross: RD_1..n,) RR_1..n.
NormalisedCounts normaliseByPairsVisited(const RawCounts& raw,
                                         const std::vector<std::uint64_t>& pairsDone);

/// w(θ) per bin; NaN where a needed denominator is zero or a needed count is NaN. Cross counts
/// (counts.cross) take the estimator's two-sample form (EstimatorInfo::wCross).
std::vector<double> estimate(Estimator estimator, const NormalisedCounts& counts);

} // namespace tpacf
