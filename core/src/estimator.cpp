#include "tpacf/estimator.h"

#include "tpacf/errors.h"

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

} // namespace

std::optional<Estimator> parseEstimator(std::string_view text) noexcept {
    try {
        const std::string name = foldedName(text);
        if (name == "ls" || name == "landyszalay")
            return Estimator::LandySzalay;
        if (name == "natural" || name == "peebleshauser")
            return Estimator::Natural;
        if (name == "dp" || name == "davispeebles")
            return Estimator::DavisPeebles;
        if (name == "hamilton")
            return Estimator::Hamilton;
    } catch (...) {
        // Only an allocation failure can land here; "not recognised" is the honest answer.
    }
    return std::nullopt;
}

std::string_view estimatorKey(Estimator estimator) noexcept {
    switch (estimator) {
    case Estimator::LandySzalay:
        return "ls";
    case Estimator::Natural:
        return "natural";
    case Estimator::DavisPeebles:
        return "dp";
    case Estimator::Hamilton:
        return "hamilton";
    }
    return "ls";
}

std::string_view estimatorName(Estimator estimator) noexcept {
    switch (estimator) {
    case Estimator::LandySzalay:
        return "Landy-Szalay";
    case Estimator::Natural:
        return "Natural";
    case Estimator::DavisPeebles:
        return "Davis-Peebles";
    case Estimator::Hamilton:
        return "Hamilton";
    }
    return "Landy-Szalay";
}

std::string_view estimatorFormula(Estimator estimator) noexcept {
    switch (estimator) {
    case Estimator::LandySzalay:
        return "w = (DD - 2 DR + RR) / RR";
    case Estimator::Natural:
        return "w = DD / RR - 1";
    case Estimator::DavisPeebles:
        return "w = DD / DR - 1";
    case Estimator::Hamilton:
        return "w = DD RR / DR^2 - 1";
    }
    return "w = (DD - 2 DR + RR) / RR";
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
    const std::size_t bins = counts.dd.size();
    const bool needsDr = estimator != Estimator::Natural;
    const bool needsRr = estimator != Estimator::DavisPeebles;
    if ((needsDr && counts.dr.size() != bins) || (needsRr && counts.rr.size() != bins))
        throw ConfigError("normalised counts are inconsistent: DD has " + std::to_string(bins) +
                          " bins, DR " + std::to_string(counts.dr.size()) + ", RR " +
                          std::to_string(counts.rr.size()));

    std::vector<double> w(bins, kNaN);
    for (std::size_t bin = 0; bin < bins; ++bin) {
        const double dd = counts.dd[bin];
        const double dr = needsDr ? counts.dr[bin] : kNaN;
        const double rr = needsRr ? counts.rr[bin] : kNaN;
        double value = kNaN;
        // A zero (or NaN) denominator gives NaN: the comparisons below are false for NaN.
        switch (estimator) {
        case Estimator::Natural:
            if (rr > 0)
                value = dd / rr - 1.0;
            break;
        case Estimator::DavisPeebles:
            if (dr > 0)
                value = dd / dr - 1.0;
            break;
        case Estimator::Hamilton:
            if (dr > 0)
                value = dd * rr / (dr * dr) - 1.0;
            break;
        case Estimator::LandySzalay:
            if (rr > 0)
                value = (dd - 2.0 * dr + rr) / rr;
            break;
        }
        // Guards against an infinite input (or DR² underflowing to 0 in Hamilton); never inf.
        w[bin] = std::isfinite(value) ? value : kNaN;
    }
    return w;
}

} // namespace tpacf
