// SPDX-License-Identifier: GPL-3.0-or-later
// Every point of a job's catalogs to its nearest region centre. Large catalogs go through a
// 2° RA/Dec grid: each cell lists the centres that can be nearest to some point of it, so a point
// computes a few dot products, not K. The labels are those of the full scan (see
// CellCandidates), whatever the grid or the thread count.
#include "jackknife_nearest.h"

#include "tpacf/errors.h"
#include "tpacf/units.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace tpacf {

namespace {

using jackknife_detail::CentreArrays;

constexpr std::size_t kDecCells = 90, kRaCells = 180; // 2° × 2°
constexpr std::size_t kCells = kDecCells * kRaCells;
// The grid pays for its K dot products per cell from this many points per cell on.
constexpr std::size_t kGridPointsPerCell = 8;
// Slack of the bounds: a cap radius (radians) larger by far than the rounding of a point's
// cell index or unit vector, and a dot-product margin larger by far than the rounding of a
// dot product (1e-16), so no centre whose computed dot product could be the largest is left out.
constexpr double kRadiusSlack = 1e-9;
constexpr double kDotSlack = 1e-12;

// The centres that can be nearest to a point of each cell, in index order. A cell lies in a
// cap of radius ρ = ΔDec/2 + cos(Dec closest to the equator)·ΔRA/2 about its middle m (along
// the parallel to m's meridian, then along the meridian). A point p of the cap has
// cos(θ_c + ρ) ≤ p·c ≤ cos(max(θ_c − ρ, 0)) for the angle θ_c between m and c; a centre whose
// upper bound is below some centre's lower bound (less the slack) is never nearest. A scan of
// the remaining centres in index order keeping the first strictly larger dot product therefore
// finds what the scan of all centres finds, ties to the lowest index included.
struct CellCandidates {
    std::vector<std::size_t> offset; // kCells + 1
    std::vector<std::int32_t> centre;

    explicit CellCandidates(const CentreArrays& centres, int threads) {
        const std::size_t k = centres.x.size();
        const double dDec = kPi / kDecCells, dRa = 2 * kPi / kRaCells;
        std::vector<std::vector<std::int32_t>> lists(kCells);
        parallelForRanges(
            kCells,
            [&](std::size_t begin, std::size_t end) {
                std::vector<double> upper(k), lower(k);
                for (std::size_t cell = begin; cell < end; ++cell) {
                    const std::size_t iDec = cell / kRaCells, iRa = cell % kRaCells;
                    const double decLow = -0.5 * kPi + static_cast<double>(iDec) * dDec;
                    const double decHigh = decLow + dDec;
                    const double maxCos =
                        decLow <= 0 && decHigh >= 0
                            ? 1.0
                            : std::cos(std::min(std::abs(decLow), std::abs(decHigh)));
                    const double rho = 0.5 * dDec + 0.5 * dRa * maxCos + kRadiusSlack;
                    const double cosRho = std::cos(rho), sinRho = std::sin(rho);
                    const double dec = decLow + 0.5 * dDec;
                    const double ra = (static_cast<double>(iRa) + 0.5) * dRa;
                    const double mx = std::cos(dec) * std::cos(ra),
                                 my = std::cos(dec) * std::sin(ra), mz = std::sin(dec);
                    double maxLower = -1;
                    for (std::size_t c = 0; c < k; ++c) {
                        const double cx = centres.x[c], cy = centres.y[c], cz = centres.z[c];
                        const double cosT = mx * cx + my * cy + mz * cz;
                        const double ax = my * cz - mz * cy, ay = mz * cx - mx * cz,
                                     az = mx * cy - my * cx;
                        const double sinT = std::sqrt(ax * ax + ay * ay + az * az);
                        upper[c] = cosT >= cosRho ? 1.0 : cosT * cosRho + sinT * sinRho;
                        lower[c] = cosT <= -cosRho ? -1.0 : cosT * cosRho - sinT * sinRho;
                        maxLower = std::max(maxLower, lower[c]);
                    }
                    for (std::size_t c = 0; c < k; ++c)
                        if (upper[c] >= maxLower - kDotSlack)
                            lists[cell].push_back(static_cast<std::int32_t>(c));
                }
            },
            threads, std::max<std::size_t>(1, jackknife_detail::pointsPerWorker(k) / 64));
        offset.reserve(kCells + 1);
        offset.push_back(0);
        for (const auto& list : lists) {
            centre.insert(centre.end(), list.begin(), list.end());
            offset.push_back(centre.size());
        }
    }

    static std::size_t cellOf(double ra, double dec) noexcept {
        const auto index = [](double value, double perCell, std::size_t cells) {
            const double at = std::floor(value * perCell);
            return at <= 0 ? std::size_t{0} : std::min(cells - 1, static_cast<std::size_t>(at));
        };
        return index(dec + 0.5 * kPi, kDecCells / kPi, kDecCells) * kRaCells +
               index(ra, kRaCells / (2 * kPi), kRaCells);
    }

    void nearest(const Catalog& catalog, std::size_t begin, std::size_t end,
                 const CentreArrays& centres, std::int32_t* out) const noexcept {
        const double* cx = centres.x.data();
        const double* cy = centres.y.data();
        const double* cz = centres.z.data();
        for (std::size_t i = begin; i < end; ++i) {
            const std::size_t cell = cellOf(catalog.ra()[i], catalog.dec()[i]);
            const double x = catalog.x()[i], y = catalog.y()[i], z = catalog.z()[i];
            std::int32_t best = 0;
            double bestDot = -std::numeric_limits<double>::infinity();
            for (std::size_t j = offset[cell]; j < offset[cell + 1]; ++j) {
                const auto c = static_cast<std::size_t>(centre[j]);
                const double d = x * cx[c] + y * cy[c] + z * cz[c];
                if (d > bestDot) {
                    bestDot = d;
                    best = centre[j];
                }
            }
            out[i - begin] = best;
        }
    }
};

} // namespace

std::vector<std::vector<std::int32_t>>
nearestCentreRegionsOf(std::span<const Catalog* const> catalogs,
                       std::span<const RegionCentre> centres, int threads) {
    if (centres.empty())
        throw ConfigError("no region centres given");
    // One index space over all catalogs, so that one set of workers shares them evenly (small
    // randoms beside a large data catalog, or the reverse).
    std::vector<std::size_t> offset{0};
    for (const Catalog* catalog : catalogs)
        offset.push_back(offset.back() + catalog->size());
    // Sized on several threads: first touch of fresh memory (a page fault per 4 KiB) costs
    // more than the zeroing.
    std::vector<std::vector<std::int32_t>> regions(catalogs.size());
    parallelForRanges(
        catalogs.size(),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t c = begin; c < end; ++c)
                regions[c].resize(catalogs[c]->size());
        },
        threads);
    const CentreArrays arrays(centres);
    const bool grid = offset.back() >= kGridPointsPerCell * kCells && centres.size() > 4;
    std::unique_ptr<CellCandidates> cells;
    if (grid)
        cells = std::make_unique<CellCandidates>(arrays, threads);
    // A point costs a few dot products through the grid, K without.
    const std::size_t perWorker = grid ? jackknife_detail::pointsPerWorker(8)
                                       : jackknife_detail::pointsPerWorker(centres.size());
    parallelForRanges(
        offset.back(),
        [&](std::size_t begin, std::size_t end) {
            std::size_t c = static_cast<std::size_t>(
                std::upper_bound(offset.begin(), offset.end(), begin) - offset.begin() - 1);
            for (; begin < end; ++c) {
                const std::size_t stop = std::min(end, offset[c + 1]);
                if (begin == stop)
                    continue;
                const Catalog& catalog = *catalogs[c];
                const std::size_t from = begin - offset[c];
                if (cells)
                    cells->nearest(catalog, from, from + (stop - begin), arrays,
                                   regions[c].data() + from);
                else
                    jackknife_detail::nearestCentres(
                        catalog.x().data() + from, catalog.y().data() + from,
                        catalog.z().data() + from, stop - begin, arrays, regions[c].data() + from);
                begin = stop;
            }
        },
        threads, perWorker);
    return regions;
}

std::vector<std::int32_t> nearestCentreRegions(const Catalog& catalog,
                                               std::span<const RegionCentre> centres, int threads) {
    const Catalog* one[] = {&catalog};
    return std::move(nearestCentreRegionsOf(one, centres, threads).front());
}

} // namespace tpacf
