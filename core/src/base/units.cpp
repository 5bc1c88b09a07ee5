// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/units.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tpacf {

double radiansPer(AngleUnit unit) noexcept {
    switch (unit) {
    case AngleUnit::Degree: return kPi / 180.0;
    case AngleUnit::Arcminute: return kPi / (180.0 * 60.0);
    case AngleUnit::Arcsecond: return kPi / (180.0 * 3600.0);
    case AngleUnit::Radian: return 1.0;
    }
    return 1.0;
}

std::optional<AngleUnit> parseAngleUnit(std::string_view text) noexcept {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "deg" || lower == "degree" || lower == "degrees")
        return AngleUnit::Degree;
    if (lower == "arcmin" || lower == "arcminute" || lower == "arcminutes")
        return AngleUnit::Arcminute;
    if (lower == "arcsec" || lower == "arcsecond" || lower == "arcseconds")
        return AngleUnit::Arcsecond;
    if (lower == "rad" || lower == "radian" || lower == "radians")
        return AngleUnit::Radian;
    return std::nullopt;
}

std::string_view angleUnitName(AngleUnit unit) noexcept {
    switch (unit) {
    case AngleUnit::Degree: return "deg";
    case AngleUnit::Arcminute: return "arcmin";
    case AngleUnit::Arcsecond: return "arcsec";
    case AngleUnit::Radian: return "rad";
    }
    return "deg";
}

} // namespace tpacf
