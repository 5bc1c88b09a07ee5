// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/estimator.h"

#include "tpacf/errors.h"

#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace tpacf {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Divides in double and maps a zero total to NaN: an empty catalog (or N = 1 for an auto count)
// has no pairs to normalise by, and 0/0 must not become a plausible-looking number.
double ratioOrNaN(double count, double total) noexcept {
    return total > 0 ? count / total : kNaN;
}

double autoPairTotal(std::uint64_t n) noexcept {
    // In double: N(N−1) overflows 64-bit integers past N ≈ 4.3e9, and the ratio is taken in
    // double anyway.
    const double size = static_cast<double>(n);
    return n < 2 ? 0.0 : size * (size - 1.0) / 2.0;
}

template <typename Counts>
void requireBins(const Counts& counts, std::size_t bins, const char* what) {
    if (counts.size() != bins)
        throw ConfigError(std::string("raw counts are inconsistent: ") + what + " has " +
                          std::to_string(counts.size()) + " bins, DD has " + std::to_string(bins));
}

template <typename Counts>
void requireSetCount(const std::vector<Counts>& perSet, std::size_t sets, std::size_t bins,
                     const char* what) {
    if (perSet.size() != sets)
        throw ConfigError("raw counts are inconsistent: " + std::to_string(sets) +
                          " random sets but " + std::to_string(perSet.size()) + " " + what +
                          " histograms");
    for (const Counts& counts : perSet)
        requireBins(counts, bins, what);
}

void requireSets(const RawCounts& raw) {
    const std::size_t sets = raw.randomSizes.size();
    const std::size_t bins = raw.dd.size();
    requireSetCount(raw.dr, sets, bins, "DR");
    requireSetCount(raw.rr, sets, bins, "RR");
    if (raw.cross) {
        requireSetCount(raw.rd, sets, bins, "RD");
        if (!raw.random2Sizes.empty() && raw.random2Sizes.size() != sets)
            throw ConfigError("raw counts are inconsistent: " + std::to_string(sets) +
                              " random sets of the first sample but " +
                              std::to_string(raw.random2Sizes.size()) + " of the second");
    }
    if (raw.weighted) {
        requireBins(raw.ddWeighted, bins, "weighted DD");
        requireSetCount(raw.drWeighted, sets, bins, "weighted DR");
        requireSetCount(raw.rrWeighted, sets, bins, "weighted RR");
        if (raw.cross)
            requireSetCount(raw.rdWeighted, sets, bins, "weighted RD");
        if (raw.randomWeights.size() != sets ||
            (raw.secondRandoms() && raw.random2Weights.size() != sets))
            throw ConfigError("raw counts are inconsistent: weight sums missing for a random set");
    }
}

enum class EmptySets { Poison, Skip };

// Normalises each set on its own total and then averages: random sets of different sizes then
// weigh equally, as the estimators assume. A set with a zero total either makes the mean NaN
// (a finished count: a degenerate random catalog must show, not silently drop out) or is left
// out (a running count: a set not started yet carries no information, and a live plot should
// not stay blank until the last set begins).
template <typename Counts>
std::vector<double> meanOverSets(const std::vector<Counts>& perSet,
                                 const std::vector<double>& totals, std::size_t bins,
                                 EmptySets emptySets) {
    std::vector<double> sum(bins, 0.0);
    std::size_t setsUsed = 0;
    for (std::size_t set = 0; set < perSet.size(); ++set) {
        if (!(totals[set] > 0) && emptySets == EmptySets::Skip)
            continue;
        ++setsUsed;
        for (std::size_t bin = 0; bin < bins; ++bin)
            sum[bin] += ratioOrNaN(static_cast<double>(perSet[set][bin]), totals[set]);
    }
    for (double& value : sum)
        value = setsUsed > 0 ? value / static_cast<double>(setsUsed) : kNaN;
    return sum;
}

template <typename Counts>
std::vector<double> normaliseOne(const Counts& counts, double total) {
    std::vector<double> result(counts.size());
    for (std::size_t bin = 0; bin < counts.size(); ++bin)
        result[bin] = ratioOrNaN(static_cast<double>(counts[bin]), total);
    return result;
}

NormalisedCounts normaliseWithTotals(const RawCounts& raw, const PairTotals& totals,
                                     EmptySets emptySets) {
    NormalisedCounts result;
    result.cross = raw.cross;
    const std::size_t bins = raw.dd.size();
    if (raw.weighted) {
        result.dd = normaliseOne(raw.ddWeighted, totals.dd);
        result.dr = meanOverSets(raw.drWeighted, totals.dr, bins, emptySets);
        result.rr = meanOverSets(raw.rrWeighted, totals.rr, bins, emptySets);
        if (raw.cross)
            result.rd = meanOverSets(raw.rdWeighted, totals.rd, bins, emptySets);
    } else {
        result.dd = normaliseOne(raw.dd, totals.dd);
        result.dr = meanOverSets(raw.dr, totals.dr, bins, emptySets);
        result.rr = meanOverSets(raw.rr, totals.rr, bins, emptySets);
        if (raw.cross)
            result.rd = meanOverSets(raw.rd, totals.rd, bins, emptySets);
    }
    return result;
}

// Weighted pair totals: ((Σw)² − Σw²)/2 for the distinct pairs of one catalog, Σw_A·Σw_B
// across two. With unit weights they are N(N−1)/2 and N·M.
double weightedAutoTotal(const WeightSums& sums) noexcept {
    return (sums.sum * sums.sum - sums.sumSquares) / 2.0;
}

double weightedCrossTotal(const WeightSums& a, const WeightSums& b) noexcept {
    return a.sum * b.sum;
}

double crossTotal(std::uint64_t n, std::uint64_t m) noexcept {
    return static_cast<double>(n) * static_cast<double>(m);
}

std::string foldedName(std::string_view text) {
    std::string folded;
    for (const char c : text) {
        if (c == '-' || c == '_' || c == ' ')
            continue;
        folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return folded;
}

// The estimators on normalised counts of one bin. A zero (or NaN) denominator gives NaN: the
// comparisons are false for NaN. The arithmetic order is part of the results: keep it.
double landySzalay(double dd, double dr, double rr) noexcept {
    return rr > 0 ? (dd - 2.0 * dr + rr) / rr : kNaN;
}

double natural(double dd, double /*dr*/, double rr) noexcept {
    return rr > 0 ? dd / rr - 1.0 : kNaN;
}

double davisPeebles(double dd, double dr, double /*rr*/) noexcept {
    return dr > 0 ? dd / dr - 1.0 : kNaN;
}

// RR is a factor, not a divisor: RR = 0 gives w = −1, not NaN.
double hamilton(double dd, double dr, double rr) noexcept {
    return dr > 0 ? dd * rr / (dr * dr) - 1.0 : kNaN;
}

// Two samples: D1R2 and R1D2 take the places of the two DR of the auto forms.
double landySzalayCross(double dd, double dr, double rd, double rr) noexcept {
    return rr > 0 ? (dd - dr - rd + rr) / rr : kNaN;
}

double naturalCross(double dd, double /*dr*/, double /*rd*/, double rr) noexcept {
    return rr > 0 ? dd / rr - 1.0 : kNaN;
}

double davisPeeblesCross(double dd, double dr, double /*rd*/, double /*rr*/) noexcept {
    return dr > 0 ? dd / dr - 1.0 : kNaN;
}

double hamiltonCross(double dd, double dr, double rd, double rr) noexcept {
    return dr > 0 && rd > 0 ? dd * rr / (dr * rd) - 1.0 : kNaN;
}

// parseEstimator() also accepts each key and name; these are the extra spellings.
constexpr std::string_view kNaturalAliases[] = {"Peebles-Hauser"};

constexpr std::array kEstimators{
    EstimatorInfo{.id = Estimator::LandySzalay,
                  .key = "ls",
                  .name = "Landy-Szalay",
                  .formula = "w = (DD - 2 DR + RR) / RR",
                  .crossFormula = "w = (D1D2 - D1R2 - R1D2 + R1R2) / R1R2",
                  .aliases = {},
                  .needsDR = true,
                  .needsRR = true,
                  .needsRD = true,
                  .w = landySzalay,
                  .wCross = landySzalayCross},
    EstimatorInfo{.id = Estimator::Natural,
                  .key = "natural",
                  .name = "Natural",
                  .formula = "w = DD / RR - 1",
                  .crossFormula = "w = D1D2 / R1R2 - 1",
                  .aliases = kNaturalAliases,
                  .needsDR = false,
                  .needsRR = true,
                  .needsRD = false,
                  .w = natural,
                  .wCross = naturalCross},
    EstimatorInfo{.id = Estimator::DavisPeebles,
                  .key = "dp",
                  .name = "Davis-Peebles",
                  .formula = "w = DD / DR - 1",
                  .crossFormula = "w = D1D2 / D1R2 - 1",
                  .aliases = {},
                  .needsDR = true,
                  .needsRR = false,
                  .needsRD = false,
                  .w = davisPeebles,
                  .wCross = davisPeeblesCross},
    EstimatorInfo{.id = Estimator::Hamilton,
                  .key = "hamilton",
                  .name = "Hamilton",
                  .formula = "w = DD RR / DR^2 - 1",
                  .crossFormula = "w = D1D2 R1R2 / (D1R2 R1D2) - 1",
                  .aliases = {},
                  .needsDR = true,
                  .needsRR = true,
                  .needsRD = true,
                  .w = hamilton,
                  .wCross = hamiltonCross},
};

// estimatorInfo() indexes the table by enumerator value.
constexpr bool tableFollowsEnum() {
    for (std::size_t i = 0; i < kEstimators.size(); ++i)
        if (static_cast<std::size_t>(kEstimators[i].id) != i)
            return false;
    return true;
}
static_assert(tableFollowsEnum(), "kEstimators must list the Estimator enumerators in order");

} // namespace

std::span<const EstimatorInfo> estimators() noexcept {
    return kEstimators;
}

const EstimatorInfo& estimatorInfo(Estimator estimator) noexcept {
    const auto index = static_cast<std::size_t>(estimator);
    // An out-of-range value (a cast from a corrupt integer) reads as the first entry, as the
    // switches this table replaced fell back to Landy-Szalay.
    return index < kEstimators.size() ? kEstimators[index] : kEstimators.front();
}

std::optional<Estimator> parseEstimator(std::string_view text) noexcept {
    try {
        const std::string name = foldedName(text);
        for (const EstimatorInfo& info : kEstimators) {
            if (name == foldedName(info.key) || name == foldedName(info.name))
                return info.id;
            for (const std::string_view alias : info.aliases)
                if (name == foldedName(alias))
                    return info.id;
        }
    } catch (...) {
        // Only an allocation failure can land here; "not recognised" is the honest answer.
    }
    return std::nullopt;
}

std::string_view estimatorKey(Estimator estimator) noexcept {
    return estimatorInfo(estimator).key;
}

std::string_view estimatorName(Estimator estimator) noexcept {
    return estimatorInfo(estimator).name;
}

std::string_view estimatorFormula(Estimator estimator, bool cross) noexcept {
    return cross ? estimatorInfo(estimator).crossFormula : estimatorInfo(estimator).formula;
}

std::string estimatorKeyList(std::string_view separator) {
    std::string list;
    for (const EstimatorInfo& info : kEstimators) {
        if (!list.empty())
            list += separator;
        list += info.key;
    }
    return list;
}

std::string describeEstimators(Estimator defaultEstimator) {
    std::string text;
    for (const EstimatorInfo& info : kEstimators) {
        if (!text.empty())
            text += ", ";
        text += info.key;
        // The name only where it says more than the key ("natural" is "Natural" already).
        const bool nameAddsSomething = foldedName(info.name) != foldedName(info.key);
        const bool isDefault = info.id == defaultEstimator;
        if (nameAddsSomething || isDefault) {
            text += " (";
            if (nameAddsSomething)
                text += info.name;
            if (nameAddsSomething && isDefault)
                text += ", ";
            if (isDefault)
                text += "default";
            text += ')';
        }
    }
    return text;
}

WeightSums WeightSums::of(const Catalog& catalog) noexcept {
    WeightSums sums;
    if (!catalog.hasWeights()) {
        sums.sum = sums.sumSquares = static_cast<double>(catalog.size());
        return sums;
    }
    for (const double w : catalog.weight()) {
        sums.sum += w;
        sums.sumSquares += w * w;
    }
    return sums;
}

PairTotals pairTotalsOf(const RawCounts& shape, const std::function<double(JobCatalog)>& autoTotal,
                        const std::function<double(JobCatalog, JobCatalog)>& crossTotal) {
    using Role = JobCatalog::Role;
    const std::size_t sets = shape.randomSizes.size();
    const JobCatalog data{Role::Data, 0};
    const JobCatalog data2 = shape.cross ? JobCatalog{Role::Data2, 0} : data;
    PairTotals totals;
    totals.dd = shape.cross ? crossTotal(data, data2) : autoTotal(data);
    for (std::size_t set = 0; set < sets; ++set) {
        const JobCatalog random{Role::Random, set};
        const JobCatalog random2 = shape.secondRandoms() ? JobCatalog{Role::Random2, set} : random;
        totals.dr.push_back(crossTotal(data, random2));
        if (shape.cross)
            totals.rd.push_back(crossTotal(random, data2));
        totals.rr.push_back(shape.secondRandoms() ? crossTotal(random, random2)
                                                  : autoTotal(random));
    }
    return totals;
}

PairTotals pairTotals(const RawCounts& raw) {
    requireSets(raw);
    if (raw.givenTotals)
        return *raw.givenTotals;
    using Role = JobCatalog::Role;
    if (raw.weighted) {
        const auto sums = [&](JobCatalog c) -> const WeightSums& {
            switch (c.role) {
            case Role::Data: return raw.dataWeights;
            case Role::Data2: return raw.data2Weights;
            case Role::Random: return raw.randomWeights[c.set];
            case Role::Random2: return raw.random2Weights[c.set];
            }
            return raw.dataWeights;
        };
        return pairTotalsOf(
            raw, [&](JobCatalog c) { return weightedAutoTotal(sums(c)); },
            [&](JobCatalog a, JobCatalog b) { return weightedCrossTotal(sums(a), sums(b)); });
    }
    const auto size = [&](JobCatalog c) -> std::uint64_t {
        switch (c.role) {
        case Role::Data: return raw.dataSize;
        case Role::Data2: return raw.data2Size;
        case Role::Random: return raw.randomSizes[c.set];
        case Role::Random2: return raw.random2Sizes[c.set];
        }
        return raw.dataSize;
    };
    return pairTotalsOf(
        raw, [&](JobCatalog c) { return autoPairTotal(size(c)); },
        [&](JobCatalog a, JobCatalog b) { return crossTotal(size(a), size(b)); });
}

NormalisedCounts normalise(const RawCounts& raw) {
    return normaliseWithTotals(raw, pairTotals(raw), EmptySets::Poison);
}

NormalisedCounts normaliseByPairsVisited(const RawCounts& raw,
                                         const std::vector<std::uint64_t>& pairsDone) {
    const PairTotals whole = pairTotals(raw);
    const std::size_t sets = raw.randomSizes.size();
    const std::size_t counts = (raw.cross ? 3 : 2) * sets + 1;
    if (pairsDone.size() != counts)
        throw ConfigError("pairs visited: expected " + std::to_string(counts) + " entries (DD, DR_1..n, " +
                          (raw.cross ? "RD_1..n, " : "") + "RR_1..n), got " +
                          std::to_string(pairsDone.size()));
    // Unweighted, a count is divided by the pairs it visited. Weighted, by the weighted total
    // scaled to the share of the count's pairs visited: the pairs visited so far stand for all.
    RawCounts unweighted = raw;
    unweighted.weighted = false;
    const PairTotals pairs = pairTotals(unweighted);
    const auto visited = [&](std::size_t index, double pairTotal, double weightedTotal) {
        const double done = static_cast<double>(pairsDone[index]);
        if (!raw.weighted)
            return done;
        return pairTotal > 0 ? weightedTotal * (done / pairTotal) : 0.0;
    };
    PairTotals totals;
    totals.dd = visited(0, pairs.dd, whole.dd);
    for (std::size_t set = 0; set < sets; ++set) {
        totals.dr.push_back(visited(1 + set, pairs.dr[set], whole.dr[set]));
        if (raw.cross)
            totals.rd.push_back(visited(1 + sets + set, pairs.rd[set], whole.rd[set]));
        const std::size_t rrIndex = (raw.cross ? 1 + 2 * sets : 1 + sets) + set;
        totals.rr.push_back(visited(rrIndex, pairs.rr[set], whole.rr[set]));
    }
    return normaliseWithTotals(raw, totals, EmptySets::Skip);
}

std::vector<double> estimate(Estimator estimator, const NormalisedCounts& counts) {
    const EstimatorInfo& info = estimatorInfo(estimator);
    const std::size_t bins = counts.dd.size();
    if ((info.needsDR && counts.dr.size() != bins) || (info.needsRR && counts.rr.size() != bins) ||
        (counts.cross && info.needsRD && counts.rd.size() != bins))
        throw ConfigError("normalised counts are inconsistent: DD has " + std::to_string(bins) +
                          " bins, DR " + std::to_string(counts.dr.size()) + ", RR " +
                          std::to_string(counts.rr.size()) +
                          (counts.cross ? ", RD " + std::to_string(counts.rd.size()) : ""));

    std::vector<double> w(bins, kNaN);
    for (std::size_t bin = 0; bin < bins; ++bin) {
        // A count the estimator ignores may be missing (Natural before any DR was counted).
        const double dd = counts.dd[bin];
        const double dr = info.needsDR ? counts.dr[bin] : kNaN;
        const double rr = info.needsRR ? counts.rr[bin] : kNaN;
        const double value = counts.cross
                                 ? info.wCross(dd, dr, info.needsRD ? counts.rd[bin] : kNaN, rr)
                                 : info.w(dd, dr, rr);
        // Guards against an infinite input (or DR² underflowing to 0 in Hamilton); never inf.
        w[bin] = std::isfinite(value) ? value : kNaN;
    }
    return w;
}

} // namespace tpacf
