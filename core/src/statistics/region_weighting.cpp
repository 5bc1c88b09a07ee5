// SPDX-License-Identifier: GPL-3.0-or-later
#include "statistics/region_weighting.h"

#include "tpacf/errors.h"

#include <cmath>

namespace tpacf::detail {

namespace {

// A count's tallies of one region and bin: the pairs touching it and those within it, weighted
// or not.
struct RegionTally {
    double touching = 0, within = 0;
};

RegionTally tallyOf(const RegionPairCounts& counts, std::size_t region, std::size_t bin,
                    bool weighted) {
    const std::size_t at = region * counts.binCount + bin;
    if (weighted)
        return {counts.weightedTouching[at], counts.weightedWithin[at]};
    return {static_cast<double>(counts.touching[at]), static_cast<double>(counts.within[at])};
}

double totalOf(const RegionPairCounts& counts, std::size_t bin, bool weighted) {
    return weighted ? counts.weightedTotal[bin] : static_cast<double>(counts.total[bin]);
}

WeightSums minus(const WeightSums& a, const WeightSums& b) {
    return {a.sum - b.sum, a.sumSquares - b.sumSquares};
}

} // namespace

WeightSums CatalogSums::region(std::size_t r) const {
    if (weighted)
        return regions->weights.at(r);
    const auto n = static_cast<double>(regions->points.at(r));
    return {n, n};
}

double LeaveOneOutWeighting::count(const RegionPairCounts& counts, std::size_t bin,
                                   bool weighted) const {
    const RegionTally left = tallyOf(counts, m_region, bin, weighted);
    // The pairs not touching the region whole, those between it and the rest at m_cross.
    return totalOf(counts, bin, weighted) - left.touching + m_cross * (left.touching - left.within);
}

double LeaveOneOutWeighting::bilinear(const CatalogSums& x, const CatalogSums& y) const {
    const double xOut = x.region(m_region).sum, yOut = y.region(m_region).sum;
    const double xKept = x.whole.sum - xOut, yKept = y.whole.sum - yOut;
    return xKept * yKept + m_cross * (xKept * yOut + xOut * yKept);
}

WeightSums LeaveOneOutWeighting::kept(const CatalogSums& x) const {
    return minus(x.whole, x.region(m_region));
}

double BootstrapMeanWeighting::count(const RegionPairCounts& counts, std::size_t bin,
                                     bool weighted) const {
    double sum = 0;
    for (const std::uint32_t region : m_selection) {
        const RegionTally tally = tallyOf(counts, region, bin, weighted);
        sum += 0.5 * (tally.touching + tally.within);
    }
    return sum;
}

double BootstrapMeanWeighting::bilinear(const CatalogSums& x, const CatalogSums& y) const {
    return 0.5 * (kept(x).sum * y.whole.sum + x.whole.sum * kept(y).sum);
}

WeightSums BootstrapMeanWeighting::kept(const CatalogSums& x) const {
    WeightSums sums;
    for (const std::uint32_t region : m_selection) {
        const WeightSums part = x.region(region);
        sums.sum += part.sum;
        sums.sumSquares += part.sumSquares;
    }
    return sums;
}

void requireRandomSets(const JackknifeCounts& counts) {
    const RawCounts& whole = counts.whole;
    const std::size_t sets = whole.randomSizes.size();
    if (counts.dr.size() != sets || counts.rr.size() != sets || counts.randoms.size() != sets ||
        (whole.cross && (counts.rd.size() != sets ||
                         (whole.secondRandoms() && counts.randoms2.size() != sets))))
        throw ConfigError("jackknife counts: inconsistent numbers of random sets");
}

RawCounts weighedSample(const JackknifeCounts& counts, const RegionWeighting& weighting) {
    requireRandomSets(counts);
    const RawCounts& whole = counts.whole;
    const std::size_t sets = whole.randomSizes.size();
    const bool weighted = whole.weighted;
    const auto take = [&](const RegionPairCounts& count, PairCounts& raw, WeightedCounts& sums) {
        if (weighted && !count.isWeighted())
            throw ConfigError("jackknife counts: a weighted job's count has no weighted tallies");
        raw.resize(count.binCount);
        sums.resize(count.binCount);
        for (std::size_t bin = 0; bin < count.binCount; ++bin) {
            raw[bin] = static_cast<std::uint64_t>(std::llround(weighting.count(count, bin, false)));
            sums[bin] = weighting.count(count, bin, weighted);
        }
    };
    // Each catalog of the job: its size, its weight sums (weighted jobs) and its region shares.
    using Role = JobCatalog::Role;
    struct Part {
        std::uint64_t size;
        const WeightSums* weights;
        const RegionShares* shares;
    };
    const auto catalogOf = [&](JobCatalog c) -> Part {
        switch (c.role) {
        case Role::Data: return {whole.dataSize, &whole.dataWeights, &counts.data};
        case Role::Data2: return {whole.data2Size, &whole.data2Weights, &counts.data2};
        case Role::Random:
            return {whole.randomSizes[c.set], weighted ? &whole.randomWeights[c.set] : nullptr,
                    &counts.randoms[c.set]};
        case Role::Random2:
            return {whole.random2Sizes[c.set], weighted ? &whole.random2Weights[c.set] : nullptr,
                    &counts.randoms2[c.set]};
        }
        throw ConfigError("jackknife counts: unknown catalog");
    };
    // The sums a sample weighs: Σw and Σw² where the job is weighted, the points otherwise.
    const auto sumsOf = [&](JobCatalog c, bool ofWeights) {
        const Part catalog = catalogOf(c);
        const auto n = static_cast<double>(catalog.size);
        return CatalogSums{ofWeights ? *catalog.weights : WeightSums{n, n}, catalog.shares,
                           ofWeights};
    };
    const auto points = [&](JobCatalog c) {
        return static_cast<std::uint64_t>(std::llround(weighting.kept(sumsOf(c, false)).sum));
    };
    const auto weights = [&](JobCatalog c) { return weighting.kept(sumsOf(c, weighted)); };

    RawCounts raw;
    raw.cross = whole.cross;
    raw.weighted = true;
    take(counts.dd, raw.dd, raw.ddWeighted);
    raw.dataSize = points({Role::Data, 0});
    raw.dataWeights = weights({Role::Data, 0});
    if (whole.cross) {
        raw.data2Size = points({Role::Data2, 0});
        raw.data2Weights = weights({Role::Data2, 0});
    }
    for (std::size_t set = 0; set < sets; ++set) {
        take(counts.dr[set], raw.dr.emplace_back(), raw.drWeighted.emplace_back());
        take(counts.rr[set], raw.rr.emplace_back(), raw.rrWeighted.emplace_back());
        if (whole.cross)
            take(counts.rd[set], raw.rd.emplace_back(), raw.rdWeighted.emplace_back());
        raw.randomSizes.push_back(points({Role::Random, set}));
        raw.randomWeights.push_back(weights({Role::Random, set}));
        if (whole.secondRandoms()) {
            raw.random2Sizes.push_back(points({Role::Random2, set}));
            raw.random2Weights.push_back(weights({Role::Random2, set}));
        }
    }
    raw.givenTotals = pairTotalsOf(
        raw,
        [&](JobCatalog c) {
            const CatalogSums sums = sumsOf(c, weighted);
            return (weighting.bilinear(sums, sums) - weighting.kept(sums).sumSquares) / 2.0;
        },
        [&](JobCatalog a, JobCatalog b) { return weighting.bilinear(sumsOf(a, weighted), sumsOf(b, weighted));
        });
    return raw;
}

} // namespace tpacf::detail
