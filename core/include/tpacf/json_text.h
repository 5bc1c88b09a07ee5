// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// JSON text pieces every writer of the project shares (results, count files, benchmarks).
#include <string>
#include <string_view>

namespace tpacf {

/// A JSON string literal: quotes, backslash escapes, control characters as \u00XX.
std::string jsonQuoted(std::string_view text);

/// The shortest text that reads back as the same double; "null" for NaN and infinities (JSON
/// has no literal for them). Locale-independent.
std::string jsonShortestNumber(double value);

} // namespace tpacf
