// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/catalog.h"
#include "base/huge_pages.h"
#include "base/number_text.h"

#include "tpacf/errors.h"
#include "tpacf/units.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace tpacf {

namespace {

// Below this many points a thread costs more than it saves.
constexpr std::size_t kPointsPerWorker = std::size_t(1) << 16;

// fmod keeps the sign of its argument, and a tiny negative value plus a full turn can round
// up to the full turn itself; both cases are folded back into [0, turn).
double wrapInto(double angle, double turn) {
    double wrapped = std::fmod(angle, turn);
    if (wrapped < 0)
        wrapped += turn;
    if (wrapped >= turn)
        wrapped = 0;
    return wrapped;
}

void checkSizes(const std::string& name, std::size_t n, std::size_t decN, std::size_t weightN,
                std::size_t regionN) {
    if (decN != n)
        throw ConfigError("catalog " + name + ": " + std::to_string(n) + " RA values but " +
                          std::to_string(decN) + " Dec values");
    if (weightN != 0 && weightN != n)
        throw ConfigError("catalog " + name + ": " + std::to_string(weightN) + " weights for " +
                          std::to_string(n) + " points");
    if (regionN != 0 && regionN != n)
        throw ConfigError("catalog " + name + ": " + std::to_string(regionN) +
                          " region labels for " + std::to_string(n) + " points");
}

void checkWeights(const std::string& name, const std::vector<double>& weight) {
    for (std::size_t i = 0; i < weight.size(); ++i)
        if (!std::isfinite(weight[i]))
            throw InputError(name, static_cast<long>(i + 1), 0,
                             "weight " + detail::formatDouble(weight[i]) + " is not finite (row " +
                                 std::to_string(i + 1) + ")");
}

} // namespace

Catalog Catalog::fromRadians(std::string name, std::vector<double> ra, std::vector<double> dec,
                             std::vector<double> weight, std::vector<std::int32_t> region,
                             int threads) {
    const std::size_t n = ra.size();
    checkSizes(name, n, dec.size(), weight.size(), region.size());
    checkWeights(name, weight);
    const double halfPi = 0.5 * kPi;
    for (std::size_t i = 0; i < n; ++i) {
        const long row = static_cast<long>(i + 1);
        if (!std::isfinite(ra[i]))
            throw InputError(name, row, 0,
                             "RA " + detail::formatDouble(ra[i]) + " is not finite (row " + std::to_string(row) +
                                 ")");
        if (!std::isfinite(dec[i]))
            throw InputError(name, row, 0,
                             "Dec " + detail::formatDouble(dec[i]) + " is not finite (row " +
                                 std::to_string(row) + ")");
        if (dec[i] < -halfPi || dec[i] > halfPi)
            throw InputError(name, row, 0,
                             "Dec " + detail::formatDouble(dec[i]) + " rad is outside [-pi/2, pi/2] (row " +
                                 std::to_string(row) + ")");
    }

    Catalog catalog;
    catalog.m_name = std::move(name);
    // Zero-filling (and first touching) 3 x 8 bytes a point is itself a large part of the time:
    // one vector per thread. Allocated on this thread, though: memory a worker allocates stays
    // with the worker's malloc arena after it is freed.
    std::vector<double>* const coordinates[] = {&catalog.m_x, &catalog.m_y, &catalog.m_z};
    for (std::vector<double>* coordinate : coordinates)
        detail::reserveLargeColumn(*coordinate, n);
    parallelForRanges(
        3,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
                coordinates[i]->resize(n);
        },
        n >= kPointsPerWorker ? threads : 1);
    // Three sines and cosines a point are most of the time a large catalog takes to build:
    // spread over every core; each point's formula is the same whichever thread computes it.
    parallelForRanges(
        n,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) {
                // Angles held in locals: read back from the columns after the stores below,
                // they would be new values to the compiler, which then keeps four calls instead
                // of joining each sine and cosine into one sincos call (the same values; reading
                // 10^6 rows on one thread took 5 % less).
                const double raWrapped = wrapInto(ra[i], 2.0 * kPi);
                const double decAngle = dec[i];
                ra[i] = raWrapped;
                const double cosDec = std::cos(decAngle);
                catalog.m_x[i] = cosDec * std::cos(raWrapped);
                catalog.m_y[i] = cosDec * std::sin(raWrapped);
                catalog.m_z[i] = std::sin(decAngle);
            }
        },
        threads, kPointsPerWorker);
    catalog.m_ra = std::move(ra);
    catalog.m_dec = std::move(dec);
    catalog.m_weight = std::move(weight);
    catalog.m_region = std::move(region);
    return catalog;
}

Catalog Catalog::fromBuiltColumns(std::string name, Columns columns) {
    const std::size_t n = columns.ra.size();
    checkSizes(name, n, columns.dec.size(), columns.weight.size(), columns.region.size());
    if (columns.x.size() != n || columns.y.size() != n || columns.z.size() != n)
        throw ConfigError("catalog " + name + ": unit vectors of another length than its " +
                          std::to_string(n) + " points");
    Catalog catalog;
    catalog.m_name = std::move(name);
    catalog.m_ra = std::move(columns.ra);
    catalog.m_dec = std::move(columns.dec);
    catalog.m_x = std::move(columns.x);
    catalog.m_y = std::move(columns.y);
    catalog.m_z = std::move(columns.z);
    catalog.m_weight = std::move(columns.weight);
    catalog.m_region = std::move(columns.region);
    return catalog;
}

Catalog Catalog::fromDegrees(std::string name, std::vector<double> raDeg,
                             std::vector<double> decDeg, std::vector<double> weight,
                             std::vector<std::int32_t> region) {
    checkSizes(name, raDeg.size(), decDeg.size(), weight.size(), region.size());
    const double perDegree = radiansPer(AngleUnit::Degree);
    const double halfPi = 0.5 * kPi;
    for (std::size_t i = 0; i < raDeg.size(); ++i) {
        const long row = static_cast<long>(i + 1);
        if (!std::isfinite(raDeg[i]))
            throw InputError(name, row, 0,
                             "RA " + detail::formatDouble(raDeg[i]) + " is not finite (row " +
                                 std::to_string(row) + ")");
        if (!std::isfinite(decDeg[i]))
            throw InputError(name, row, 0,
                             "Dec " + detail::formatDouble(decDeg[i]) + " is not finite (row " +
                                 std::to_string(row) + ")");
        if (decDeg[i] < -90.0 || decDeg[i] > 90.0)
            throw InputError(name, row, 0,
                             "Dec " + detail::formatDouble(decDeg[i]) + " deg is outside [-90, 90] (row " +
                                 std::to_string(row) + ")");
        raDeg[i] = wrapInto(raDeg[i], 360.0) * perDegree;
        // ±90° times the rounded π/180 may land one ulp beyond ±π/2; the check above was exact.
        decDeg[i] = std::clamp(decDeg[i] * perDegree, -halfPi, halfPi);
    }
    return fromRadians(std::move(name), std::move(raDeg), std::move(decDeg), std::move(weight),
                       std::move(region));
}

SkyExtent Catalog::extent() const noexcept {
    SkyExtent extent;
    if (m_ra.empty())
        return extent;
    const auto [raMin, raMax] = std::minmax_element(m_ra.begin(), m_ra.end());
    const auto [decMin, decMax] = std::minmax_element(m_dec.begin(), m_dec.end());
    extent.raMin = *raMin;
    extent.raMax = *raMax;
    extent.decMin = *decMin;
    extent.decMax = *decMax;
    extent.raFrom = *raMin;
    extent.raTo = *raMax;
    // The largest empty RA interval, found on a grid of 1/16 degree: where it is not the one
    // across RA 0, the points' arc passes RA 0 and starts at the first point after it.
    constexpr int kCells = 360 * 16;
    std::vector<bool> occupied(kCells, false);
    const auto cellOf = [](double ra) {
        return std::min(kCells - 1, static_cast<int>(ra / (2 * kPi) * kCells));
    };
    for (const double ra : m_ra)
        occupied[static_cast<std::size_t>(cellOf(ra))] = true;
    const int first = cellOf(*raMin), last = cellOf(*raMax);
    int bestStart = 0, bestLength = kCells - 1 - last + first; // the gap across RA 0
    for (int cell = first, run = 0; cell <= last; ++cell) {
        run = occupied[static_cast<std::size_t>(cell)] ? 0 : run + 1;
        if (run > bestLength) {
            bestLength = run;
            bestStart = cell - run + 1;
        }
    }
    if (bestStart == 0)
        return extent; // the arc does not pass RA 0
    const double gapFrom = bestStart * (2 * kPi) / kCells;
    const double gapTo = (bestStart + bestLength) * (2 * kPi) / kCells;
    double from = 2 * kPi, to = 0;
    for (const double ra : m_ra) {
        if (ra >= gapTo)
            from = std::min(from, ra);
        else if (ra < gapFrom)
            to = std::max(to, ra);
    }
    extent.raFrom = from;
    extent.raTo = to;
    return extent;
}

std::string CatalogOrigin::describe() const {
    if (!known())
        return "built in memory";
    std::string text = format + ", columns " + raColumn + ", " + decColumn;
    if (!weightColumn.empty())
        text += ", weight " + weightColumn;
    if (!regionColumn.empty())
        text += ", regions " + regionColumn;
    if (!columnChoice.empty())
        text += " (" + columnChoice + ")";
    if (!unit.empty())
        text += ", " + unit;
    if (!selection.empty())
        text += ", " + selection;
    text += ", " + std::to_string(rows) + (rows == 1 ? " row" : " rows");
    return text;
}

} // namespace tpacf
