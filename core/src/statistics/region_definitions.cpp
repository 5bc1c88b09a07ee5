// SPDX-License-Identifier: GPL-3.0-or-later
// Jackknife regions as definitions that can be saved and given again (RegionsDefinition,
// jackknife.h): HEALPix runs grown on the data, the region of any point under a definition,
// and the check that a given definition fits the catalogs it is used on.
#include "tpacf/jackknife.h"

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

} // namespace tpacf
