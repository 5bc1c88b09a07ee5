// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/cross_region_weight.h"

#include "tpacf/errors.h"

#include <array>
#include <cctype>
#include <cmath>

namespace tpacf {

namespace {

// 'geom' (the geometric mean of two bootstrap multiplicities) and TreeCorr's bootstrap
// 'simple' (their product) need the count of every pair of regions, K × K per bin; the engine
// keeps per-region tallies (pairs touching, pairs within), which give the sums over one region
// at a time that the choices below need.
constexpr std::array<CrossRegionWeightInfo, 3> kWeights{{
    {CrossRegionWeight::Simple, "simple", "simple",
     "a pair with a point in a left-out region is dropped", true, false,
     [](int) { return 0.0; }},
    {CrossRegionWeight::Mean, "mean", "mean",
     "a pair between a kept region and a left-out one counts 1/2; in a bootstrap, a pair "
     "between regions counts the mean of the times its two regions were drawn",
     true, true, [](int) { return 0.5; }},
    {CrossRegionWeight::Match, "match", "match (Mohammad & Percival 2022)",
     "a pair between a kept region and a left-out one counts 1 - K/(2 + sqrt(2)(K - 1)), "
     "MP22's weight for which auto and cross pairs enter the covariance alike",
     true, false,
     [](int k) {
         return 1.0 - static_cast<double>(k) / (2.0 + std::sqrt(2.0) * static_cast<double>(k - 1));
     }},
}};

bool sameKey(std::string_view text, std::string_view key) noexcept {
    if (text.size() != key.size())
        return false;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[i])) != key[i])
            return false;
    return true;
}

std::string keysWhere(bool (*wanted)(const CrossRegionWeightInfo&)) {
    std::string keys;
    for (const auto& info : kWeights)
        if (wanted(info))
            keys += (keys.empty() ? "" : ", ") + std::string(info.key);
    return keys;
}

} // namespace

std::span<const CrossRegionWeightInfo> crossRegionWeights() noexcept {
    return kWeights;
}

const CrossRegionWeightInfo& crossRegionWeightInfo(CrossRegionWeight weight) noexcept {
    return kWeights[static_cast<std::size_t>(weight)];
}

std::optional<CrossRegionWeight> parseCrossRegionWeight(std::string_view text) noexcept {
    for (const auto& info : kWeights)
        if (sameKey(text, info.key))
            return info.id;
    return std::nullopt;
}

std::string crossRegionWeightKeys() {
    return keysWhere([](const CrossRegionWeightInfo&) { return true; });
}

double jackknifeCrossWeight(CrossRegionWeight weight, int regions) noexcept {
    return crossRegionWeightInfo(weight).leaveOneOutWeight(regions);
}

CrossRegionWeight effectiveCrossRegionWeight(std::optional<CrossRegionWeight> given,
                                             bool bootstrap) {
    if (!given)
        return bootstrap ? CrossRegionWeight::Mean : CrossRegionWeight::Simple;
    const CrossRegionWeightInfo& info = crossRegionWeightInfo(*given);
    if (bootstrap && !info.forBootstrap)
        throw ConfigError(
            "cross-region weight '" + std::string(info.key) + "' is not one the bootstrap takes: "
            "it takes " + keysWhere([](const CrossRegionWeightInfo& i) { return i.forBootstrap; }) +
            " (TreeCorr's bootstrap 'simple' and 'geom' weigh every pair of regions apart, which "
            "needs K x K counts per bin; the jackknife takes " +
            keysWhere([](const CrossRegionWeightInfo& i) { return i.forJackknife; }) + ")");
    if (!bootstrap && !info.forJackknife)
        throw ConfigError("cross-region weight '" + std::string(info.key) +
                          "' is not one the jackknife takes");
    return *given;
}

} // namespace tpacf
