// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to core: numbers as text that every room may write (result tables, comparisons,
// the FCS table). Through std::to_chars, never a stream: a grouping locale would write 1,234.
#include <string>

namespace tpacf::detail {

/// Shortest text that reads back as the same double; "nan", "inf", "-inf".
std::string formatDouble(double value);

/// Six significant digits (printf's %.6g): for values quoted in messages, where the shortest
/// round-trip text would be noise (a guessed unit's range, a simulation parameter).
std::string formatShort(double value);

} // namespace tpacf::detail
