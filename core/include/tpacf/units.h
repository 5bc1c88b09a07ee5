// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Angle units used by readers, bins and output.
#include <optional>
#include <string_view>

namespace tpacf {

enum class AngleUnit { Degree, Arcminute, Arcsecond, Radian };

inline constexpr double kPi = 3.14159265358979323846;
/// Radians per degree.
inline constexpr double kDegree = kPi / 180.0;

/// Radians per one `unit`.
double radiansPer(AngleUnit unit) noexcept;
inline double toRadians(double value, AngleUnit unit) noexcept { return value * radiansPer(unit); }
inline double fromRadians(double radians, AngleUnit unit) noexcept { return radians / radiansPer(unit); }

/// "deg", "arcmin", "arcsec", "rad" (also "degree(s)", "arcminute(s)", ...); nullopt otherwise.
std::optional<AngleUnit> parseAngleUnit(std::string_view text) noexcept;
/// Short name as the CLI spells it: "deg", "arcmin", "arcsec", "rad".
std::string_view angleUnitName(AngleUnit unit) noexcept;

} // namespace tpacf
