#pragma once
// Small output helpers the subcommands share: writing a file through a stream with errors that
// name the path, and the one-line notices on stderr.
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace tpacf::cli {

/// Opens `path`, lets `write` fill it, and throws InputError naming the path when the file cannot
/// be created or the write fails (disk full).
void writeTextFile(const std::string& path, const std::function<void(std::ostream&)>& write);

/// "tpacf: <text>" on its own line; nothing for an empty text.
void printNotice(std::ostream& err, std::string_view text);

/// Seconds with sensible digits: "0.0123 s", "12.3 s".
std::string formatSeconds(double seconds);

/// A string as a JSON string literal, quotes included.
std::string jsonString(std::string_view text);
/// A double as JSON: shortest round-trip form; null for NaN or infinity.
std::string jsonNumber(double value);

} // namespace tpacf::cli
