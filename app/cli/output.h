// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small output helpers the subcommands share: the one-line notices on stderr and the formatting
// of seconds and JSON values.
#include <iosfwd>
#include <string>
#include <string_view>

namespace tpacf::cli {

/// "tpacf: <text>" on its own line; nothing for an empty text.
void printNotice(std::ostream& err, std::string_view text);

/// Seconds with sensible digits: "0.0123 s", "12.3 s".
std::string formatSeconds(double seconds);

/// A string as a JSON string literal, quotes included.
std::string jsonString(std::string_view text);
/// A double as JSON: shortest round-trip form; null for NaN or infinity.
std::string jsonNumber(double value);

} // namespace tpacf::cli
