// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether data and random catalogs cover the same sky, on a coarse equal-area grid. Randoms that
// miss part of the data, or cover a very different area, bias w(θ) by orders of magnitude with
// no error anywhere (disjoint footprints give w ≈ 10⁴), so callers warn before a run.
#include "tpacf/catalog.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tpacf {

/// The cells of an equal-area sky grid that a catalog's points fall in. Level L has 2^L bands
/// of equal width in sin(Dec) and 4·2^L equal slices in RA: 4^(L+1) cells of 4π/4^(L+1) sr
/// (level 0: four quarters of the sky; level 11, the finest: 0.0025 deg², about 3′ across at
/// the equator). A cell of level L−1 is four cells of level L.
class SkyOccupancy {
public:
    static constexpr int kFinestLevel = 11;
    static constexpr std::size_t kDefaultMaxPoints = 200000;

    SkyOccupancy() = default;
    /// The points of `catalogs` together; an even subsample (every k-th point of each) of about
    /// `maxPoints` where they hold more, so that a check on 10⁸ points stays a few milliseconds.
    static SkyOccupancy of(std::span<const Catalog* const> catalogs,
                           std::size_t maxPoints = kDefaultMaxPoints);
    static SkyOccupancy of(const Catalog& catalog, std::size_t maxPoints = kDefaultMaxPoints);
    /// The points of several occupancies together (each as subsampled, none again): what a
    /// set of random catalogs covers, from each catalog's occupancy computed once.
    static SkyOccupancy merged(std::span<const SkyOccupancy* const> parts);

    /// Points taken (after subsampling).
    std::size_t pointCount() const noexcept { return m_cells.size(); }
    /// Cells of `level` holding at least one point.
    std::size_t occupiedCells(int level) const noexcept;
    /// Each point's cell of the finest level, sorted; a cell of level L is the id >> 2(11 − L).
    std::span<const std::uint32_t> cells() const noexcept { return m_cells; }

    /// Solid angle of one cell of `level`, in steradians.
    static double cellSolidAngle(int level) noexcept;
    /// The finest-level cell of the direction with this RA (radians, [0, 2π)) and sin(Dec).
    static std::uint32_t cellOf(double raRadians, double sinDec) noexcept;

private:
    std::vector<std::uint32_t> m_cells;
};

/// Thresholds of the comparison and of its warning.
struct FootprintLimits {
    /// More data points than this fraction in cells holding no random point is a warning.
    double maxOutsideFraction = 0.01;
    /// A random footprint more than this many times the data's (or less than its inverse) is.
    double maxAreaRatio = 2.0;
    /// Data points are checked against the randoms at the finest level where the randoms hold
    /// at least this many points per occupied cell on average: a cell inside the random
    /// footprint is then almost never empty by chance (e^−16 for uniform randoms).
    double minRandomsPerCell = 16.0;
    /// The areas are measured at the finest level where, besides, the data hold at least this
    /// many points per occupied cell: clustered data leave empty cells inside their footprint
    /// on finer grids (5000 points of the bundled sample fill 60 % of its 10 deg² cells).
    double minDataPerCell = 64.0;
};

/// What compareFootprints found.
struct FootprintComparison {
    int level = 0;                     ///< the grid level the data points are checked on
    double cellAreaDeg2 = 0;           ///< one cell of that level, in square degrees
    int areaLevel = 0;                 ///< the (coarser or equal) level the areas are measured on
    std::size_t dataPoints = 0;        ///< data points compared (the subsample)
    std::size_t dataPointsOutside = 0; ///< of them, in cells holding no random point
    double outsideFraction = 0;        ///< dataPointsOutside / dataPoints (0 without data)
    double dataAreaDeg2 = 0;   ///< cells of areaLevel holding data points, in square degrees
    double randomAreaDeg2 = 0; ///< cells holding random points
    double areaRatio = 0;      ///< randomAreaDeg2 / dataAreaDeg2; 0 where either is empty
};

/// Compares the cells holding data with those holding randoms, at the level `limits` choose.
FootprintComparison compareFootprints(const SkyOccupancy& data, const SkyOccupancy& randoms,
                                      const FootprintLimits& limits = {});

/// What is wrong, one line ("12.3 % of the data points lie in sky cells (of 0.84 deg²) that hold
/// no random point ...; the randoms cover 3.9 times the data's area ..."); empty when the
/// comparison is within `limits` or either side is empty.
std::string footprintWarning(const FootprintComparison& comparison,
                             const FootprintLimits& limits = {});

} // namespace tpacf
