// SPDX-License-Identifier: GPL-3.0-or-later
// Jackknife regions as definitions that can be saved and given again (RegionsDefinition,
// jackknife.h): HEALPix runs grown on the data, the region of any point under a definition,
// and the check that a given definition fits the catalogs it is used on.
#include "tpacf/jackknife.h"

#include "region_definitions.h"

#include "tpacf/errors.h"
#include "tpacf/sky_mask.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace tpacf {

namespace {

int orderOf(std::int64_t nside) {
    if (nside < 1 || nside > kMaxMaskNside || (nside & (nside - 1)) != 0)
        throw ConfigError("jackknife: HEALPix NSIDE " + std::to_string(nside) +
                          " is not a power of 2 from 1 to " + std::to_string(kMaxMaskNside));
    if (!skyMasksAvailable())
        throw ConfigError("jackknife: HEALPix regions need healpix-cxx, which this build lacks");
    return std::countr_zero(static_cast<std::uint64_t>(nside));
}

std::vector<std::uint64_t> pixelsOf(const Catalog& catalog, int order, int threads) {
    const int shift = 2 * (SkyMask::kDeepOrder - order);
    std::vector<std::uint64_t> pixels(catalog.size());
    const auto x = catalog.x(), y = catalog.y(), z = catalog.z();
    parallelForRanges(
        catalog.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
                pixels[i] = SkyMask::deepPixelOf(x[i], y[i], z[i]) >> shift;
        },
        threads, 65536);
    return pixels;
}

} // namespace

RegionsDefinition healpixRegions(const Catalog& data, int regions, std::int64_t nside,
                                 int threads) {
    validateJackknifeRegionCount(regions);
    const int order = orderOf(nside);
    const std::vector<std::uint64_t> pixels = pixelsOf(data, order, threads);
    // Occupied pixels in NESTED order with their data weight.
    std::vector<std::size_t> byPixel(pixels.size());
    std::iota(byPixel.begin(), byPixel.end(), std::size_t{0});
    std::stable_sort(byPixel.begin(), byPixel.end(),
                     [&](std::size_t a, std::size_t b) { return pixels[a] < pixels[b]; });
    std::vector<std::uint64_t> occupied;
    std::vector<double> weight;
    const auto w = data.weight();
    for (const std::size_t i : byPixel) {
        if (occupied.empty() || occupied.back() != pixels[i]) {
            occupied.push_back(pixels[i]);
            weight.push_back(0.0);
        }
        weight.back() += w.empty() ? 1.0 : w[i];
    }
    const std::size_t k = static_cast<std::size_t>(regions);
    if (occupied.size() < k)
        throw ConfigError("jackknife: only " + std::to_string(occupied.size()) +
                          " HEALPix pixels at NSIDE " + std::to_string(nside) +
                          " hold data, fewer than the " + std::to_string(regions) +
                          " regions asked for; take a larger NSIDE or fewer regions");
    // prefix[i]: the weight of the occupied pixels before index i.
    const std::size_t n = occupied.size();
    std::vector<double> prefix(n + 1, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        prefix[i + 1] = prefix[i] + weight[i];
    RegionsDefinition definition;
    definition.kind = RegionsDefinition::Kind::Healpix;
    definition.nside = nside;
    definition.firstPixels.push_back(0);
    std::size_t start = 0; // the current region's first occupied pixel
    for (std::size_t r = 1; r < k; ++r) {
        // The first pixel with r/K of the weight before it, leaving each region at least one.
        const double target = prefix[n] * static_cast<double>(r) / static_cast<double>(k);
        const std::size_t last = n - (k - r);
        const std::size_t next = static_cast<std::size_t>(
            std::lower_bound(prefix.begin() + static_cast<std::ptrdiff_t>(start + 1),
                             prefix.begin() + static_cast<std::ptrdiff_t>(last + 1), target) -
            prefix.begin());
        start = std::min(next, last);
        definition.firstPixels.push_back(occupied[start]);
    }
    definition.method = "HEALPix NSIDE " + std::to_string(nside) + " (" +
                        std::to_string(regions) +
                        " runs of occupied NESTED pixels, equal data weight)";
    return definition;
}

std::vector<std::int32_t> regionsOf(const Catalog& catalog, const RegionsDefinition& definition,
                                    int threads) {
    if (definition.kind == RegionsDefinition::Kind::KMeans)
        return nearestCentreRegions(catalog, definition.centres, threads);
    const int order = orderOf(definition.nside);
    const std::vector<std::uint64_t> pixels = pixelsOf(catalog, order, threads);
    std::vector<std::int32_t> regions(pixels.size());
    const auto& first = definition.firstPixels;
    for (std::size_t i = 0; i < pixels.size(); ++i)
        regions[i] = static_cast<std::int32_t>(
            std::upper_bound(first.begin(), first.end(), pixels[i]) - first.begin() - 1);
    return regions;
}

namespace detail {

// A definition given (a regions file) must be the one the flags describe.
void checkGivenRegions(const JackknifeSettings& settings, const RegionsDefinition& given) {
    if (settings.regions > 0 && settings.regions != given.count())
        throw ConfigError("jackknife: " + std::to_string(settings.regions) +
                          " regions asked for, but the regions given hold " +
                          std::to_string(given.count()) + " (" + given.method + ")");
    const bool healpix = given.kind == RegionsDefinition::Kind::Healpix;
    if (settings.healpixNside > 0 && (!healpix || given.nside != settings.healpixNside))
        throw ConfigError("jackknife: HEALPix regions at NSIDE " +
                          std::to_string(settings.healpixNside) +
                          " asked for, but the regions given are " + given.method);
    if (given.count() < kMinJackknifeRegions)
        throw ConfigError("jackknife: the regions given hold " + std::to_string(given.count()) +
                          " region(s); at least " + std::to_string(kMinJackknifeRegions) +
                          " are needed");
}

namespace {

double chord(const Catalog& catalog, std::size_t i, const RegionCentre& centre) {
    const double dx = catalog.x()[i] - centre.x, dy = catalog.y()[i] - centre.y,
                 dz = catalog.z()[i] - centre.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

} // namespace

// Each k-means region's largest distance of a point from its centre, for the check of a reuse.
std::vector<double> regionRadii(std::span<const Catalog* const> catalogs,
                                const std::vector<std::vector<std::int32_t>>& regions,
                                const std::vector<RegionCentre>& centres) {
    std::vector<double> radii(centres.size(), 0.0);
    for (std::size_t c = 0; c < catalogs.size(); ++c)
        for (std::size_t i = 0; i < regions[c].size(); ++i) {
            const auto r = static_cast<std::size_t>(regions[c][i]);
            radii[r] = std::max(radii[r], chord(*catalogs[c], i, centres[r]));
        }
    return radii;
}

// Points of catalogs the given k-means regions were not made for lie far from every centre:
// beyond 1.5 times their region's radius (plus 0.1 deg, for regions of one point).
void refuseFarPoints(std::span<const Catalog* const> catalogs,
                     const std::vector<std::vector<std::int32_t>>& regions,
                     const RegionsDefinition& given) {
    if (given.radii.size() != given.centres.size())
        return;
    constexpr double kSlack = 0.1 * 3.14159265358979323846 / 180.0;
    for (std::size_t c = 0; c < catalogs.size(); ++c) {
        std::size_t far = 0;
        double farthest = 0;
        for (std::size_t i = 0; i < regions[c].size(); ++i) {
            const auto r = static_cast<std::size_t>(regions[c][i]);
            const double distance = chord(*catalogs[c], i, given.centres[r]);
            if (distance > 1.5 * given.radii[r] + kSlack) {
                ++far;
                farthest = std::max(farthest, distance);
            }
        }
        if (far > 0)
            throw ConfigError(
                "jackknife: " + std::to_string(far) + " of the " +
                std::to_string(catalogs[c]->size()) + " points of " + catalogs[c]->name() +
                " lie far from every centre of the regions given (up to " +
                std::to_string(2.0 * std::asin(std::min(1.0, farthest / 2.0)) * 180.0 /
                               3.14159265358979323846) +
                " deg from the nearest, beyond 1.5 times its region's radius): the regions "
                "were made for another footprint");
    }
}

} // namespace detail

} // namespace tpacf
