// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/unit_guess.h"
#include "base/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tpacf {

namespace {

// Values as a user would write them ("960.6", "1.2e+05"): they are quoted back in the reason.
// The largest |Dec| and the RA range each unit allows, in that unit.
constexpr double kQuarterDeg = 90.0;
constexpr double kQuarterArcmin = 90.0 * 60.0;
constexpr double kQuarterArcsec = 90.0 * 3600.0;
constexpr double kTurnDeg = 360.0;
constexpr double kTurnArcmin = 360.0 * 60.0;
constexpr double kTurnArcsec = 360.0 * 3600.0;

// RA may be written in [0, turn) or [−turn/2, turn/2): both are accepted for a unit.
bool raFits(const CoordinateRanges& ranges, double turn) {
    return ranges.raMin >= -0.5 * turn && ranges.raMax <= turn;
}

UnitGuess guess(AngleUnit unit, UnitConfidence confidence, std::string reason) {
    UnitGuess result;
    result.units.unit = unit;
    result.confidence = confidence;
    result.reason = std::move(reason);
    return result;
}

} // namespace

std::string CoordinateUnits::describe() const {
    const std::string name(angleUnitName(unit));
    return raInHours ? "RA in hours, Dec in " + name : name;
}

CoordinateRanges CoordinateRanges::of(std::span<const double> ra, std::span<const double> dec) {
    CoordinateRanges ranges;
    ranges.raMin = std::numeric_limits<double>::infinity();
    ranges.raMax = -std::numeric_limits<double>::infinity();
    const std::size_t rows = std::min(ra.size(), dec.size());
    for (std::size_t i = 0; i < rows; ++i) {
        if (!std::isfinite(ra[i]) || !std::isfinite(dec[i]))
            continue;
        ranges.raMin = std::min(ranges.raMin, ra[i]);
        ranges.raMax = std::max(ranges.raMax, ra[i]);
        ranges.decAbsMax = std::max(ranges.decAbsMax, std::abs(dec[i]));
        ++ranges.count;
    }
    if (ranges.count == 0)
        ranges.raMin = ranges.raMax = 0;
    return ranges;
}

CoordinateRanges CoordinateRanges::of(const Catalog& catalog, CoordinateUnits units) {
    CoordinateRanges ranges;
    ranges.count = catalog.size();
    if (catalog.empty())
        return ranges;
    const SkyExtent extent = catalog.extent();
    const double raPer =
        units.raInHours ? 15.0 * radiansPer(AngleUnit::Degree) : radiansPer(units.unit);
    const double decPer = radiansPer(units.unit);
    ranges.raMin = extent.raMin / raPer;
    ranges.raMax = extent.raMax / raPer;
    ranges.decAbsMax = std::max(std::abs(extent.decMin), std::abs(extent.decMax)) / decPer;
    return ranges;
}

UnitGuess guessCoordinateUnits(const CoordinateRanges& ranges) {
    if (ranges.count == 0)
        return {};
    const double dec = ranges.decAbsMax;
    const std::string decText = "|Dec| up to " + detail::formatShort(dec);
    const std::string raText = "RA up to " + detail::formatShort(ranges.raMax);

    // Radians first: such values also fit degrees, but only as a field a few degrees wide at
    // RA ≈ 0, Dec ≈ 0, which is rare; a file in radians read as degrees is a silent disaster.
    if (dec <= 0.5 * kPi && ranges.raMin >= -kPi && ranges.raMax <= 2.0 * kPi)
        return guess(AngleUnit::Radian, UnitConfidence::Suggested,
                     std::string("all |Dec| ≤ π/2 and RA within [") +
                         (ranges.raMin < 0 ? "−π" : "0") + ", 2π]: radians?");

    if (dec <= kQuarterDeg) {
        if (raFits(ranges, kTurnDeg)) {
            if (ranges.raMin >= 0 && ranges.raMax <= 24.0) {
                UnitGuess hours = guess(AngleUnit::Degree, UnitConfidence::Possible,
                                        "all RA within [0, 24]: RA in hours?");
                hours.units.raInHours = true;
                return hours;
            }
            return {}; // degrees
        }
        // Dec fits degrees but RA does not: a field near the equator in a smaller unit.
        if (raFits(ranges, kTurnArcmin))
            return guess(AngleUnit::Arcminute, UnitConfidence::Required,
                         raText + " is beyond 360 but within 21600: arcmin?");
        if (raFits(ranges, kTurnArcsec))
            return guess(AngleUnit::Arcsecond, UnitConfidence::Required,
                         raText + " is beyond 21600 but within 1296000: arcsec?");
        return guess(AngleUnit::Degree, UnitConfidence::None,
                     raText + " fits no angle unit (beyond 360° even in arcsec)");
    }

    // Beyond 90 in |Dec|: not degrees (the reader refuses the file); the smallest unit that
    // holds every value is the likeliest.
    if (dec <= kQuarterArcmin && raFits(ranges, kTurnArcmin))
        return guess(AngleUnit::Arcminute, UnitConfidence::Required,
                     decText + " is beyond 90 but within 5400: arcmin?");
    if (dec <= kQuarterArcsec && raFits(ranges, kTurnArcsec))
        return guess(AngleUnit::Arcsecond, UnitConfidence::Required,
                     decText + " is beyond 5400 but within 324000: arcsec?");
    return guess(AngleUnit::Degree, UnitConfidence::None,
                 decText + " fits no angle unit (beyond 90° even in arcsec)");
}

} // namespace tpacf
