// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the statistics room: the checks of regions given by a file, and what a k-means
// definition records for them (region_definitions.cpp), used by assignJackknifeRegions.
#include "tpacf/catalog.h"
#include "tpacf/jackknife.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::detail {

/// ConfigError unless the definition given is the one the settings describe (K, NSIDE) and
/// holds at least two regions.
void checkGivenRegions(const JackknifeSettings& settings, const RegionsDefinition& given);

/// Each k-means region's largest distance (chord) of a point from its centre, over the data
/// and random catalogs it was made with (randoms reach where the data leave gaps).
std::vector<double> regionRadii(std::span<const Catalog* const> catalogs,
                                const std::vector<std::vector<std::int32_t>>& regions,
                                const std::vector<RegionCentre>& centres);

/// ConfigError naming the catalog when points of it lie far from every centre of the given
/// k-means regions: beyond 1.5 times their region's radius plus 0.1 deg.
void refuseFarPoints(std::span<const Catalog* const> catalogs,
                     const std::vector<std::vector<std::int32_t>>& regions,
                     const RegionsDefinition& given);

} // namespace tpacf::detail
