// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/correlation_result.h"

#include <cmath>

namespace tpacf {

InputSummary InputSummary::of(const Catalog& catalog) {
    InputSummary summary;
    summary.name = catalog.name();
    summary.size = catalog.size();
    summary.weighted = catalog.hasWeights();
    summary.origin = catalog.origin();
    const WeightSums sums = WeightSums::of(catalog);
    summary.weightSum = sums.sum;
    summary.weightSquareSum = sums.sumSquares;
    for (const double w : catalog.weight())
        summary.negativeWeights += w < 0 ? 1 : 0;
    return summary;
}

MeanSeparation meanSeparationOf(const SeparationMoments& moments, std::string label,
                                AngleUnit unit) {
    const double perRadian = 1.0 / radiansPer(unit);
    const double logPerRadian = std::log(perRadian);
    MeanSeparation mean;
    mean.label = std::move(label);
    mean.pairs = moments.pairs;
    for (std::size_t bin = 0; bin < moments.binCount(); ++bin) {
        mean.theta.push_back(moments.meanTheta(bin) * perRadian);
        mean.logTheta.push_back(moments.meanLogTheta(bin) + logPerRadian);
    }
    return mean;
}

const MeanSeparation* CorrelationResult::meanSeparation(const std::string& label) const noexcept {
    for (const MeanSeparation& mean : meanSeparations)
        if (mean.label == label)
            return &mean;
    return nullptr;
}

namespace {

template <typename Value>
std::vector<Value> sumOverSets(const std::vector<std::vector<Value>>& perSet, std::size_t bins) {
    if (perSet.empty())
        return {};
    std::vector<Value> sum(bins, Value{0});
    for (const auto& counts : perSet)
        for (std::size_t bin = 0; bin < bins && bin < counts.size(); ++bin)
            sum[bin] += counts[bin];
    return sum;
}

} // namespace

std::vector<std::uint64_t> CorrelationResult::drSummed() const {
    return sumOverSets(raw.dr, binCount());
}

std::vector<std::uint64_t> CorrelationResult::rdSummed() const {
    return sumOverSets(raw.rd, binCount());
}

std::vector<std::uint64_t> CorrelationResult::rrSummed() const {
    return sumOverSets(raw.rr, binCount());
}

std::vector<double> CorrelationResult::drWeightedSummed() const {
    return sumOverSets(raw.drWeighted, binCount());
}

std::vector<double> CorrelationResult::rdWeightedSummed() const {
    return sumOverSets(raw.rdWeighted, binCount());
}

std::vector<double> CorrelationResult::rrWeightedSummed() const {
    return sumOverSets(raw.rrWeighted, binCount());
}

std::size_t CorrelationResult::binsWithoutSigma() const noexcept {
    std::size_t count = 0;
    for (std::size_t k = 0; k < w.size() && k < wError.size(); ++k)
        count += std::isfinite(w[k]) && !std::isfinite(wError[k]) ? 1 : 0;
    return count;
}

} // namespace tpacf
