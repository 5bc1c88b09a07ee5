// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/footprint.h"

#include "tpacf/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tpacf {

namespace {

constexpr int kFinest = SkyOccupancy::kFinestLevel;

// Bit i of `value` moved to bit 2i: the Morton (Z-order) spread of one coordinate.
std::uint32_t spreadBits(std::uint32_t value) noexcept {
    value &= 0xFFFFu;
    value = (value | (value << 8)) & 0x00FF00FFu;
    value = (value | (value << 4)) & 0x0F0F0F0Fu;
    value = (value | (value << 2)) & 0x33333333u;
    value = (value | (value << 1)) & 0x55555555u;
    return value;
}

int shiftFor(int level) noexcept {
    return 2 * (kFinest - level);
}

// Distinct cells of `level` in sorted finest-level ids: the parents keep the order.
std::size_t distinctCells(std::span<const std::uint32_t> cells, int level) noexcept {
    const int shift = shiftFor(level);
    std::size_t count = 0;
    std::uint32_t previous = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::uint32_t cell = cells[i] >> shift;
        if (i == 0 || cell != previous)
            ++count;
        previous = cell;
    }
    return count;
}

double steradiansToDeg2(double steradians) noexcept {
    const double degree = radiansPer(AngleUnit::Degree);
    return steradians / (degree * degree);
}

std::string formatted(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

// Areas as people quote them: "0.84", "411", "1.61e+04" would read oddly, so whole degrees above
// 100 and three significant digits below.
std::string areaText(double deg2) {
    return deg2 >= 100 ? formatted("%.0f", deg2) : formatted("%.3g", deg2);
}

} // namespace

double SkyOccupancy::cellSolidAngle(int level) noexcept {
    return 4.0 * kPi / std::ldexp(1.0, 2 * (level + 1));
}

std::uint32_t SkyOccupancy::cellOf(double raRadians, double sinDec) noexcept {
    // Equal steps in sin(Dec) make equal areas (Archimedes), so every cell has the same area.
    constexpr std::uint32_t bands = 1u << kFinest;
    constexpr std::uint32_t slices = 4u << kFinest;
    const double z = std::clamp(sinDec, -1.0, 1.0);
    const auto band =
        std::min<std::uint32_t>(bands - 1, static_cast<std::uint32_t>((z + 1.0) * 0.5 * bands));
    const double turns = raRadians / (2.0 * kPi);
    const double wrapped = turns - std::floor(turns);
    const auto slice =
        std::min<std::uint32_t>(slices - 1, static_cast<std::uint32_t>(wrapped * slices));
    // The top two bits of the slice above the interleaved rest: a cell's parent is then the id
    // shifted right by two, so one sort serves every level.
    const std::uint32_t low = slice & (bands - 1);
    const std::uint32_t top = slice >> kFinest;
    return (top << (2 * kFinest)) | (spreadBits(band) << 1) | spreadBits(low);
}

SkyOccupancy SkyOccupancy::of(std::span<const Catalog* const> catalogs, std::size_t maxPoints) {
    std::size_t total = 0;
    for (const Catalog* catalog : catalogs)
        total += catalog ? catalog->size() : 0;
    const std::size_t stride =
        maxPoints == 0 || total <= maxPoints ? 1 : (total + maxPoints - 1) / maxPoints;
    SkyOccupancy occupancy;
    occupancy.m_cells.reserve(total / stride + catalogs.size());
    for (const Catalog* catalog : catalogs) {
        if (!catalog)
            continue;
        const auto ra = catalog->ra();
        const auto z = catalog->z(); // sin(Dec), computed once by the catalog
        for (std::size_t i = 0; i < catalog->size(); i += stride)
            occupancy.m_cells.push_back(cellOf(ra[i], z[i]));
    }
    std::sort(occupancy.m_cells.begin(), occupancy.m_cells.end());
    return occupancy;
}

SkyOccupancy SkyOccupancy::of(const Catalog& catalog, std::size_t maxPoints) {
    const Catalog* one = &catalog;
    return of(std::span<const Catalog* const>(&one, 1), maxPoints);
}

SkyOccupancy SkyOccupancy::merged(std::span<const SkyOccupancy* const> parts) {
    SkyOccupancy all;
    for (const SkyOccupancy* part : parts) {
        if (!part)
            continue;
        const std::size_t middle = all.m_cells.size();
        all.m_cells.insert(all.m_cells.end(), part->m_cells.begin(), part->m_cells.end());
        std::inplace_merge(all.m_cells.begin(),
                           all.m_cells.begin() + static_cast<std::ptrdiff_t>(middle),
                           all.m_cells.end());
    }
    return all;
}

std::size_t SkyOccupancy::occupiedCells(int level) const noexcept {
    return distinctCells(m_cells, std::clamp(level, 0, kFinest));
}

FootprintComparison compareFootprints(const SkyOccupancy& data, const SkyOccupancy& randoms,
                                      const FootprintLimits& limits) {
    FootprintComparison comparison;
    comparison.dataPoints = data.pointCount();
    if (data.pointCount() == 0 || randoms.pointCount() == 0)
        return comparison;

    // The finest levels at which the randoms (and, for the areas, the data) are dense enough;
    // coarser levels only get denser.
    const auto finestDense = [](const SkyOccupancy& occupancy, double perCell) {
        for (int level = kFinest; level > 0; --level)
            if (double(occupancy.pointCount()) >= perCell * double(occupancy.occupiedCells(level)))
                return level;
        return 0;
    };
    const int level = finestDense(randoms, limits.minRandomsPerCell);
    const int areaLevel = std::min(level, finestDense(data, limits.minDataPerCell));
    comparison.level = level;
    const double cellArea = steradiansToDeg2(SkyOccupancy::cellSolidAngle(level));
    comparison.cellAreaDeg2 = cellArea;

    // Both sorted: one merge-like walk finds the data points whose cell holds no random.
    const int shift = shiftFor(level);
    const auto dataCells = data.cells();
    const auto randomCells = randoms.cells();
    std::size_t r = 0;
    for (const std::uint32_t fine : dataCells) {
        const std::uint32_t cell = fine >> shift;
        while (r < randomCells.size() && (randomCells[r] >> shift) < cell)
            ++r;
        if (r == randomCells.size() || (randomCells[r] >> shift) != cell)
            ++comparison.dataPointsOutside;
    }
    comparison.outsideFraction =
        double(comparison.dataPointsOutside) / double(comparison.dataPoints);
    comparison.areaLevel = areaLevel;
    const double areaCell = steradiansToDeg2(SkyOccupancy::cellSolidAngle(areaLevel));
    comparison.dataAreaDeg2 = double(data.occupiedCells(areaLevel)) * areaCell;
    comparison.randomAreaDeg2 = double(randoms.occupiedCells(areaLevel)) * areaCell;
    comparison.areaRatio = comparison.randomAreaDeg2 / comparison.dataAreaDeg2;
    return comparison;
}

std::string footprintWarning(const FootprintComparison& comparison, const FootprintLimits& limits) {
    if (comparison.dataPoints == 0 || comparison.areaRatio == 0)
        return {};
    std::string warning;
    if (comparison.outsideFraction > limits.maxOutsideFraction)
        warning = formatted("%.3g", 100.0 * comparison.outsideFraction) +
                  " % of the data points lie in sky cells (of " +
                  areaText(comparison.cellAreaDeg2) +
                  " deg²) that hold no random point: the randoms do not cover the data";
    const bool tooLarge = comparison.areaRatio > limits.maxAreaRatio;
    const bool tooSmall = comparison.areaRatio < 1.0 / limits.maxAreaRatio;
    if (tooLarge || tooSmall) {
        if (!warning.empty())
            warning += "; ";
        warning += "the randoms cover " + formatted("%.3g", comparison.areaRatio) +
                   " times the data's area (" + areaText(comparison.randomAreaDeg2) + " deg² vs " +
                   areaText(comparison.dataAreaDeg2) +
                   " deg²): data and randoms should cover the same footprint";
    }
    return warning;
}

} // namespace tpacf
