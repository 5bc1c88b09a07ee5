// SPDX-License-Identifier: GPL-3.0-or-later
// The marked point bootstrap over jackknife regions (bootstrap.h).
#include "tpacf/bootstrap.h"

#include "base/random_streams.h"
#include "tpacf/errors.h"

#include <cmath>

namespace tpacf {

namespace {

// Σ over the selection of a count's region marks, (touching + within) / 2 per bin, raw and
// weighted (an unweighted count's weighted marks are its raw ones).
struct Marks {
    PairCounts raw;
    WeightedCounts weighted;
};

Marks marksOf(const RegionPairCounts& count, std::span<const std::uint32_t> selection) {
    const std::size_t bins = count.binCount;
    std::vector<double> raw(bins, 0.0), weighted(bins, 0.0);
    for (const std::uint32_t region : selection) {
        const std::size_t row = static_cast<std::size_t>(region) * bins;
        for (std::size_t bin = 0; bin < bins; ++bin) {
            const double mark = 0.5 * (static_cast<double>(count.touching[row + bin]) +
                                       static_cast<double>(count.within[row + bin]));
            raw[bin] += mark;
            weighted[bin] += count.isWeighted()
                                 ? 0.5 * (count.weightedTouching[row + bin] +
                                          count.weightedWithin[row + bin])
                                 : mark;
        }
    }
    Marks marks;
    marks.raw.resize(bins);
    for (std::size_t bin = 0; bin < bins; ++bin)
        marks.raw[bin] = static_cast<std::uint64_t>(std::llround(raw[bin]));
    marks.weighted = std::move(weighted);
    return marks;
}

// A catalog's points and weight sums over the selection (an unweighted catalog's weights are
// its points: every weight 1).
std::uint64_t pointsOf(const RegionShares& shares, std::span<const std::uint32_t> selection) {
    std::uint64_t points = 0;
    for (const std::uint32_t region : selection)
        points += shares.points.at(region);
    return points;
}

WeightSums weightsOf(const RegionShares& shares, std::span<const std::uint32_t> selection,
                     bool weighted) {
    WeightSums sums;
    for (const std::uint32_t region : selection) {
        if (weighted) {
            sums.sum += shares.weights.at(region).sum;
            sums.sumSquares += shares.weights.at(region).sumSquares;
        } else {
            const auto n = static_cast<double>(shares.points.at(region));
            sums.sum += n;
            sums.sumSquares += n;
        }
    }
    return sums;
}

} // namespace

std::vector<std::vector<std::uint32_t>> bootstrapSelections(std::size_t regions, int samples,
                                                            std::uint64_t seed) {
    if (samples < kMinBootstrapSamples || samples > kMaxBootstrapSamples)
        throw ConfigError("bootstrap: " + std::to_string(samples) + " samples; give " +
                          std::to_string(kMinBootstrapSamples) + " to " +
                          std::to_string(kMaxBootstrapSamples));
    if (regions < 2 || regions > static_cast<std::size_t>(kMaxJackknifeRegions))
        throw ConfigError("bootstrap: " + std::to_string(regions) +
                          " regions to resample; at least 2 are needed");
    detail::SplitMix64 random(seed);
    std::vector<std::vector<std::uint32_t>> selections(static_cast<std::size_t>(samples));
    for (auto& selection : selections) {
        selection.resize(regions);
        for (auto& region : selection)
            region = static_cast<std::uint32_t>(random.below(regions));
    }
    return selections;
}

RawCounts bootstrapCounts(const JackknifeCounts& counts, std::span<const std::uint32_t> selection) {
    const RawCounts& whole = counts.whole;
    const std::size_t sets = whole.randomSizes.size();
    if (counts.dr.size() != sets || counts.rr.size() != sets || counts.randoms.size() != sets ||
        (whole.cross && counts.rd.size() != sets))
        throw ConfigError("bootstrap counts: inconsistent numbers of random sets");
    for (const std::uint32_t region : selection)
        if (region >= counts.dd.regionCount)
            throw ConfigError("bootstrap counts: region " + std::to_string(region) +
                              " out of range");
    const bool weighted = whole.weighted;
    RawCounts raw;
    raw.cross = whole.cross;
    raw.weighted = true; // marks are sums of half pairs
    const auto take = [&](const RegionPairCounts& count, PairCounts& to, WeightedCounts& toWeighted) {
        Marks marks = marksOf(count, selection);
        to = std::move(marks.raw);
        toWeighted = std::move(marks.weighted);
    };
    take(counts.dd, raw.dd, raw.ddWeighted);
    raw.dataSize = pointsOf(counts.data, selection);
    raw.dataWeights = weightsOf(counts.data, selection, weighted);
    if (whole.cross) {
        raw.data2Size = pointsOf(counts.data2, selection);
        raw.data2Weights = weightsOf(counts.data2, selection, weighted);
    }
    for (std::size_t set = 0; set < sets; ++set) {
        raw.dr.emplace_back();
        raw.drWeighted.emplace_back();
        take(counts.dr[set], raw.dr.back(), raw.drWeighted.back());
        raw.rr.emplace_back();
        raw.rrWeighted.emplace_back();
        take(counts.rr[set], raw.rr.back(), raw.rrWeighted.back());
        if (whole.cross) {
            raw.rd.emplace_back();
            raw.rdWeighted.emplace_back();
            take(counts.rd[set], raw.rd.back(), raw.rdWeighted.back());
        }
        raw.randomSizes.push_back(pointsOf(counts.randoms[set], selection));
        raw.randomWeights.push_back(weightsOf(counts.randoms[set], selection, weighted));
        if (whole.secondRandoms()) {
            raw.random2Sizes.push_back(pointsOf(counts.randoms2.at(set), selection));
            raw.random2Weights.push_back(weightsOf(counts.randoms2.at(set), selection, weighted));
        }
    }
    return raw;
}

std::vector<std::vector<double>>
bootstrapSamples(Estimator estimator, const JackknifeCounts& counts,
                 const std::vector<std::vector<std::uint32_t>>& selections) {
    std::vector<std::vector<double>> samples;
    samples.reserve(selections.size());
    for (const auto& selection : selections)
        samples.push_back(estimate(estimator, normalise(bootstrapCounts(counts, selection))));
    return samples;
}

} // namespace tpacf
