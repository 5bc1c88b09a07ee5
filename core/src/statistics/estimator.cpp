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

void requireBins(const PairCounts& counts, std::size_t bins, const char* what) {
    if (counts.size() != bins)
        throw ConfigError(std::string("raw counts are inconsistent: ") + what + " has " +
                          std::to_string(counts.size()) + " bins, DD has " + std::to_string(bins));
}

void requireSets(const RawCounts& raw) {
    if (raw.dr.size() != raw.randomSizes.size() || raw.rr.size() != raw.randomSizes.size())
        throw ConfigError("raw counts are inconsistent: " + std::to_string(raw.randomSizes.size()) +
                          " random sets but " + std::to_string(raw.dr.size()) + " DR and " +
                          std::to_string(raw.rr.size()) + " RR histograms");
    const std::size_t bins = raw.dd.size();
    for (const PairCounts& counts : raw.dr)
        requireBins(counts, bins, "a DR histogram");
    for (const PairCounts& counts : raw.rr)
        requireBins(counts, bins, "an RR histogram");
}

enum class EmptySets { Poison, Skip };

// Normalises each set on its own total and then averages: random sets of different sizes then
// weigh equally, as the estimators assume. A set with a zero total either makes the mean NaN
// (a finished count: a degenerate random catalog must show, not silently drop out) or is left
// out (a running count: a set not started yet carries no information, and a live plot should
// not stay blank until the last set begins).
std::vector<double> meanOverSets(const std::vector<PairCounts>& perSet,
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

std::vector<double> normaliseOne(const PairCounts& counts, double total) {
    std::vector<double> result(counts.size());
    for (std::size_t bin = 0; bin < counts.size(); ++bin)
        result[bin] = ratioOrNaN(static_cast<double>(counts[bin]), total);
    return result;
}

NormalisedCounts normaliseWithTotals(const RawCounts& raw, double ddTotal,
                                     const std::vector<double>& drTotals,
                                     const std::vector<double>& rrTotals, EmptySets emptySets) {
    NormalisedCounts result;
    const std::size_t bins = raw.dd.size();
    result.dd = normaliseOne(raw.dd, ddTotal);
    result.dr = meanOverSets(raw.dr, drTotals, bins, emptySets);
    result.rr = meanOverSets(raw.rr, rrTotals, bins, emptySets);
    return result;
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

// parseEstimator() also accepts each key and name; these are the extra spellings.
constexpr std::string_view kNaturalAliases[] = {"Peebles-Hauser"};

constexpr std::array kEstimators{
    EstimatorInfo{.id = Estimator::LandySzalay,
                  .key = "ls",
                  .name = "Landy-Szalay",
                  .formula = "w = (DD - 2 DR + RR) / RR",
                  .aliases = {},
                  .needsDR = true,
                  .needsRR = true,
                  .w = landySzalay},
    EstimatorInfo{.id = Estimator::Natural,
                  .key = "natural",
                  .name = "Natural",
                  .formula = "w = DD / RR - 1",
                  .aliases = kNaturalAliases,
                  .needsDR = false,
                  .needsRR = true,
                  .w = natural},
    EstimatorInfo{.id = Estimator::DavisPeebles,
                  .key = "dp",
                  .name = "Davis-Peebles",
                  .formula = "w = DD / DR - 1",
                  .aliases = {},
                  .needsDR = true,
                  .needsRR = false,
                  .w = davisPeebles},
    EstimatorInfo{.id = Estimator::Hamilton,
                  .key = "hamilton",
                  .name = "Hamilton",
                  .formula = "w = DD RR / DR^2 - 1",
                  .aliases = {},
                  .needsDR = true,
                  .needsRR = true,
                  .w = hamilton},
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

std::string_view estimatorFormula(Estimator estimator) noexcept {
    return estimatorInfo(estimator).formula;
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

NormalisedCounts normalise(const RawCounts& raw) {
    requireSets(raw);
    const double dataSize = static_cast<double>(raw.dataSize);
    std::vector<double> drTotals, rrTotals;
    for (const std::uint64_t randomSize : raw.randomSizes) {
        drTotals.push_back(dataSize * static_cast<double>(randomSize));
        rrTotals.push_back(autoPairTotal(randomSize));
    }
    return normaliseWithTotals(raw, autoPairTotal(raw.dataSize), drTotals, rrTotals,
                               EmptySets::Poison);
}

NormalisedCounts normaliseByPairsVisited(const RawCounts& raw,
                                         const std::vector<std::uint64_t>& pairsDone) {
    requireSets(raw);
    const std::size_t sets = raw.randomSizes.size();
    if (pairsDone.size() != 1 + 2 * sets)
        throw ConfigError("pairs visited: expected " + std::to_string(1 + 2 * sets) +
                          " entries (DD, DR_1..n, RR_1..n), got " +
                          std::to_string(pairsDone.size()));
    std::vector<double> drTotals, rrTotals;
    for (std::size_t set = 0; set < sets; ++set) {
        drTotals.push_back(static_cast<double>(pairsDone[1 + set]));
        rrTotals.push_back(static_cast<double>(pairsDone[1 + sets + set]));
    }
    return normaliseWithTotals(raw, static_cast<double>(pairsDone[0]), drTotals, rrTotals,
                               EmptySets::Skip);
}

std::vector<double> estimate(Estimator estimator, const NormalisedCounts& counts) {
    const EstimatorInfo& info = estimatorInfo(estimator);
    const std::size_t bins = counts.dd.size();
    if ((info.needsDR && counts.dr.size() != bins) || (info.needsRR && counts.rr.size() != bins))
        throw ConfigError("normalised counts are inconsistent: DD has " + std::to_string(bins) +
                          " bins, DR " + std::to_string(counts.dr.size()) + ", RR " +
                          std::to_string(counts.rr.size()));

    std::vector<double> w(bins, kNaN);
    for (std::size_t bin = 0; bin < bins; ++bin) {
        // A count the estimator ignores may be missing (Natural before any DR was counted).
        const double dd = counts.dd[bin];
        const double dr = info.needsDR ? counts.dr[bin] : kNaN;
        const double rr = info.needsRR ? counts.rr[bin] : kNaN;
        const double value = info.w(dd, dr, rr);
        // Guards against an infinite input (or DR² underflowing to 0 in Hamilton); never inf.
        w[bin] = std::isfinite(value) ? value : kNaN;
    }
    return w;
}

} // namespace tpacf
