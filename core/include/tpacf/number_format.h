// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Counts as people read them in notes and reports, for the core and every frontend alike.
#include <cstdint>
#include <string>

namespace tpacf {

/// 1234567 as "1,234,567" (commas whatever the locale).
std::string withThousands(std::uint64_t value);

} // namespace tpacf
