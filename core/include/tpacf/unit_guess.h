// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the value ranges of a catalog's coordinate columns say about their unit. A file in
// radians read as degrees gives a wrong w(θ) without any error, and one in arcminutes fails the
// Dec check; callers suggest the unit before reading and warn when a catalog was read in another.
#include "tpacf/catalog.h"
#include "tpacf/units.h"

#include <cstddef>
#include <span>
#include <string>

namespace tpacf {

/// The unit coordinates are written in: RA and Dec in `unit`, or RA in hours and Dec in `unit`
/// (as ReadOptions::coordUnit and ReadOptions::raInHours take them).
struct CoordinateUnits {
    AngleUnit unit = AngleUnit::Degree;
    bool raInHours = false;

    bool operator==(const CoordinateUnits&) const = default;
    /// "deg", "rad", "RA in hours, Dec in deg" (as CatalogOrigin::unit says it).
    std::string describe() const;
};

/// The ranges of coordinate values as the file writes them (non-finite values are left out).
struct CoordinateRanges {
    double raMin = 0, raMax = 0;
    double decAbsMax = 0;  ///< the largest |Dec|
    std::size_t count = 0; ///< rows with both values finite

    /// Pairs (ra[i], dec[i]); the shorter span decides the count.
    static CoordinateRanges of(std::span<const double> ra, std::span<const double> dec);
    /// The values a catalog read in `units` had in its file: its extent converted back (RA as
    /// the catalog wrapped it into [0, 2π), so a file's negative RA shows as RA near the top).
    static CoordinateRanges of(const Catalog& catalog, CoordinateUnits units);
};

/// How strongly the values point at a unit.
enum class UnitConfidence {
    None,      ///< nothing to suggest (the values fit degrees, or no unit at all)
    Possible,  ///< another unit fits as well (RA within [0, 24]: hours?); worth a note only
    Suggested, ///< another unit fits better (all |Dec| ≤ π/2 and RA ≤ 2π: radians?)
    Required,  ///< the values cannot be degrees (|Dec| beyond 90: arcmin?)
};

struct UnitGuess {
    CoordinateUnits units; ///< the suggested units (degrees where nothing is suggested)
    UnitConfidence confidence = UnitConfidence::None;
    /// One line that says why, "all |Dec| ≤ π/2 and RA within [0, 2π]: radians?", or that no
    /// unit fits ("|Dec| up to 4e+07 fits no angle unit ..."); empty when the values fit degrees
    /// or there are none.
    std::string reason;

    /// Whether the suggestion (Suggested or Required) is other than the units `used`: the values
    /// were (or are about to be) read in a unit they probably are not in.
    bool differsFrom(CoordinateUnits used) const noexcept {
        return confidence >= UnitConfidence::Suggested && units != used;
    }
};

/// The unit the ranges suggest: degrees where they fit, radians where every |Dec| ≤ π/2 and
/// RA lies in [−π, 2π], arcmin where |Dec| exceeds 90 but not 5400 (RA ≤ 21600), arcsec up to
/// 324000 (RA ≤ 1296000); RA beyond 360 with Dec within 90 points the same way; RA within
/// [0, 24] (and beyond 2π) is "RA in hours?", Possible only, as many fields in degrees are too.
UnitGuess guessCoordinateUnits(const CoordinateRanges& ranges);

} // namespace tpacf
