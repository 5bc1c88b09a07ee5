// SPDX-License-Identifier: GPL-3.0-or-later
// The bootstrap over jackknife regions (bootstrap.h).
#include "tpacf/bootstrap.h"

#include "base/random_streams.h"
#include "statistics/region_weighting.h"
#include "tpacf/errors.h"

#include <cmath>

namespace tpacf {

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
    for (const std::uint32_t region : selection)
        if (region >= counts.dd.regionCount)
            throw ConfigError("bootstrap counts: region " + std::to_string(region) +
                              " out of range");
    return detail::weighedSample(counts, detail::BootstrapMeanWeighting(selection));
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
