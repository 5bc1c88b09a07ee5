// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the host-side checks of the CUDA list (tile_traversal_test.cpp) and the device
// traversal's check (device_traversal_test.cpp): seeded catalogs whose pairs sit on bin edges, and
// tiles made on the host as the device makes them (sky-curve order, region groups, double boxes).
#include "gpu_schedule.h"
#include "sky_curve.h"
#include "tile_tree.h"

#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/mock.h"
#include "tpacf/pair_counter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace tpacf::gputest {

using cuda::detail::CatalogTiles;
using cuda::detail::RegionLayout;
using cuda::detail::TileSums;

inline constexpr double kPi = 3.14159265358979323846;

// ---- catalogs ----------------------------------------------------------------------------------

struct Points {
    std::vector<double> ra, dec, w;
};

inline Catalog makeCatalog(const std::string& name, Points p, bool weighted, int regions) {
    std::vector<std::int32_t> region;
    if (regions > 0)
        for (double ra : p.ra) // sectors of RA
            region.push_back(std::min(regions - 1, static_cast<int>(ra / 360.0 * regions)));
    if (!weighted)
        p.w.clear();
    return Catalog::fromDegrees(name, std::move(p.ra), std::move(p.dec), std::move(p.w),
                                std::move(region));
}

inline Points uniform(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    Points p;
    for (std::size_t i = 0; i < n; ++i) {
        p.ra.push_back(360 * u(rng));
        p.dec.push_back(std::asin(2 * u(rng) - 1) * 180 / kPi);
        p.w.push_back(0.5 + u(rng));
    }
    return p;
}

// Clumps of points a few degrees wide, a share of them duplicated exactly.
inline Points clustered(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::normal_distribution<double> g(0, 1.5);
    Points p;
    for (int c = 0; c < 12 && p.ra.size() < n; ++c) {
        const double ra0 = 360 * u(rng), dec0 = std::asin(2 * u(rng) - 1) * 180 / kPi * 0.9;
        for (std::size_t i = 0; i < n / 12; ++i) {
            p.ra.push_back(std::fmod(ra0 + g(rng) + 360, 360));
            p.dec.push_back(std::clamp(dec0 + g(rng), -90.0, 90.0));
            p.w.push_back(0.5 + u(rng));
            if (i % 17 == 0) { // an exact duplicate
                p.ra.push_back(p.ra.back());
                p.dec.push_back(p.dec.back());
                p.w.push_back(p.w.back());
            }
        }
    }
    return p;
}

// Points on lattices whose separations are multiples of `step` degrees: along the equator, along
// the meridian RA 0/180 through both poles, and around RA 0 at Dec ±89.5 (RA wrap near a pole):
// with bins `step` wide, most pairs sit on an edge.
inline Points lattice(double step, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    Points p;
    const auto add = [&](double ra, double dec) {
        p.ra.push_back(std::fmod(ra + 360, 360));
        p.dec.push_back(dec);
        p.w.push_back(0.5 + u(rng));
    };
    for (double ra = 0; ra < 360 - 1e-9; ra += step)
        add(ra, 0);
    for (double d = -90; d <= 90 + 1e-9; d += step) {
        add(0, d);
        add(180, d);
    }
    for (double ra = -20; ra <= 20; ra += step)
        add(ra, 89.5), add(ra, -89.5);
    return p;
}

/// The catalog the `--time` aids measure: the clustered data of `tpacf bench --clustered
/// --footprint box:150,190,0,40` for kind "box", else N uniform full-sky points.
inline Catalog timingCatalog(std::size_t n, const std::string& kind, const std::string& name) {
    MockParams mock;
    mock.count = n;
    mock.footprint = Footprint::box(150, 190, 0, 40);
    return kind == "box" ? generateClusteredMock(mock, name)
                         : makeCatalog(name, uniform(n, 1), false, 0);
}

// ---- tiles as the device makes them -------------------------------------------------------------

/// Half the diagonal of a box: how far its bounds reach beyond its centre.
inline double halfDiagonal(const CellBounds& box) {
    double half2 = 0;
    for (int axis = 0; axis < 3; ++axis)
        half2 += (box.hi[axis] - box.lo[axis]) * (box.hi[axis] - box.lo[axis]) / 4;
    return std::sqrt(half2);
}

struct HostTiles {
    std::vector<std::uint32_t> counts;
    std::vector<std::vector<std::uint32_t>> members; // catalog rows of each tile
    CatalogTiles summary;
};

inline HostTiles makeTiles(const Catalog& c, std::uint32_t tileSize, const RegionLayout* layout) {
    std::vector<std::uint32_t> order(c.size());
    std::iota(order.begin(), order.end(), 0u);
    const auto keyOf = [&](std::uint32_t i) {
        return std::make_tuple(layout ? layout->groupOfPoint[i] : 0,
                               cuda::detail::skyCurveKey(c.x()[i], c.y()[i], c.z()[i]), i);
    };
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return keyOf(a) < keyOf(b); });
    HostTiles tiles;
    tiles.counts = layout ? layout->tileCount : cuda::detail::plainTileCounts(c.size(), tileSize);
    std::size_t start = 0;
    for (std::size_t t = 0; t < tiles.counts.size(); ++t) {
        if (layout)
            start = layout->tileSortedStart[t];
        std::vector<std::uint32_t> rows(order.begin() + static_cast<std::ptrdiff_t>(start),
                                        order.begin() +
                                            static_cast<std::ptrdiff_t>(start + tiles.counts[t]));
        CellBounds box{{1e300, 1e300, 1e300}, {-1e300, -1e300, -1e300}};
        TileSums sums;
        for (std::uint32_t i : rows) {
            const double v[3] = {c.x()[i], c.y()[i], c.z()[i]};
            for (int a = 0; a < 3; ++a) {
                box.lo[a] = std::min(box.lo[a], v[a]);
                box.hi[a] = std::max(box.hi[a], v[a]);
            }
            const double w = pointWeight(c, i);
            sums.sum += w;
            sums.squares += w * w;
        }
        tiles.summary.bounds.push_back(box);
        tiles.summary.weights.push_back(sums);
        tiles.members.push_back(std::move(rows));
        start += tiles.counts[t];
    }
    return tiles;
}

// Every catalog of a batch in plain (region-free) tiles, and the culled schedule's inputs over
// them.
struct PlainTiles {
    using BatchCatalogs = cuda::detail::BatchCatalogs;
    using CulledInputs = cuda::detail::CulledInputs;

    std::vector<std::vector<std::uint32_t>> tileCounts;
    std::vector<CatalogTiles> summaries;
    std::vector<RegionLayout> layouts; // none
    std::span<const double> thresholds;

    PlainTiles(const BatchCatalogs& batch, std::uint32_t tileSize, const Binning& binning)
        : thresholds(binning.chord2Edges()) {
        for (const Catalog* catalog : batch.catalogs) {
            HostTiles tiles = makeTiles(*catalog, tileSize, nullptr);
            tileCounts.push_back(tiles.counts);
            summaries.push_back(tiles.summary);
        }
    }

    CulledInputs inputs() const {
        CulledInputs in;
        in.tileCounts = &tileCounts;
        in.regionLayouts = &layouts;
        in.tiles = &summaries;
        in.thresholds = thresholds;
        return in;
    }
};

} // namespace tpacf::gputest
