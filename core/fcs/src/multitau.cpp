// SPDX-License-Identifier: GPL-3.0-or-later
// The shape of the multi-tau correlator and the normalisation every backend's counts share
// (docs/fcs-multitau.md).
#include "tpacf/multitau.h"

#include "tpacf/errors.h"

#include <cmath>
#include <limits>
#include <string>

namespace tpacf::fcs {

void MultiTauSettings::validate() const {
    if (lagsPerLevel < 2)
        throw ConfigError("lags per level P = " + std::to_string(lagsPerLevel) +
                          " is too small: the multi-tau correlator needs an even P >= 2");
    if (lagsPerLevel % 2 != 0)
        throw ConfigError("lags per level P = " + std::to_string(lagsPerLevel) +
                          " is odd: the multi-tau correlator needs an even P (levels above 0 "
                          "use lags P/2 .. P-1)");
    if (lagsPerLevel > 1024)
        throw ConfigError("lags per level P = " + std::to_string(lagsPerLevel) +
                          " is more than 1024 (the usual values are 8 to 64)");
    if (levels < 1)
        throw ConfigError("levels L = " + std::to_string(levels) +
                          " is too small: the correlator needs at least level 0 (L >= 1)");
    if (levels > 40)
        throw ConfigError("levels L = " + std::to_string(levels) +
                          " is more than 40 (level 39 already averages 2^39 frames)");
}

std::vector<Lag> lagsOf(const MultiTauSettings& settings) {
    std::vector<Lag> lags;
    for (int level = 0; level < settings.levels; ++level)
        for (int j = settings.firstLag(level); j < settings.lagsPerLevel; ++j)
            lags.push_back({level, j, static_cast<std::uint64_t>(j) << level});
    return lags;
}

MultiTauCounts emptyCounts(const MultiTauSettings& settings, std::size_t channels) {
    MultiTauCounts counts;
    counts.settings = settings;
    counts.channels = channels;
    const auto levels = static_cast<std::size_t>(settings.levels);
    counts.samples.assign(levels, 0);
    counts.sums.assign(channels * levels, 0);
    counts.products.assign(channels * levels * static_cast<std::size_t>(settings.lagsPerLevel), 0);
    return counts;
}

double MultiTauCounts::g(std::size_t channel, int level, int j) const noexcept {
    const std::uint64_t m = samples[static_cast<std::size_t>(level)];
    const std::uint64_t s = sum(channel, level);
    if (m <= static_cast<std::uint64_t>(j) || s == 0)
        return std::numeric_limits<double>::quiet_NaN();
    // The mean product over the M - j overlapping pairs against the squared mean of all M
    // samples (docs/fcs-multitau.md); every backend's G comes from here, so they agree.
    const double meanProduct =
        static_cast<double>(product(channel, level, j)) / static_cast<double>(m - j);
    const double mean = static_cast<double>(s) / static_cast<double>(m);
    return meanProduct / (mean * mean) - 1.0;
}

double MultiTauCounts::meanG(int level, int j) const noexcept {
    double total = 0;
    std::size_t defined = 0;
    for (std::size_t c = 0; c < channels; ++c) {
        const double value = g(c, level, j);
        if (std::isnan(value))
            continue;
        total += value;
        ++defined;
    }
    return defined ? total / static_cast<double>(defined)
                   : std::numeric_limits<double>::quiet_NaN();
}

} // namespace tpacf::fcs
