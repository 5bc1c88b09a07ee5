// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Command-line argument parsing for the subcommands: a declared set of --flags, values
// checked as they are read, and a UsageError (exit 2) naming the flag and quoting the value.
#include "tpacf/errors.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::cli {

/// Bad command line: unknown flag, missing value, bad number. A ConfigError so every layer that
/// maps core errors to exit 2 treats it alike.
class UsageError : public ConfigError {
public:
    using ConfigError::ConfigError;
};

/// The flags one subcommand accepts.
class OptionSet {
public:
    enum class Kind { Switch, Value, Repeated };

    /// A flag without value (e.g. --quiet).
    OptionSet& addSwitch(std::string name);
    /// A flag with one value (--name VALUE or --name=VALUE); given at most once.
    OptionSet& addValue(std::string name);
    /// A flag with a value that may be given several times (e.g. --random).
    OptionSet& addRepeated(std::string name);

    std::optional<Kind> kindOf(std::string_view name) const;

private:
    std::map<std::string, Kind, std::less<>> m_kinds;
};

/// Flags as given. Accessors convert and validate; errors name the flag.
class ParsedArgs {
public:
    ParsedArgs(std::string command,
               std::map<std::string, std::vector<std::string>, std::less<>> values);

    const std::string& command() const noexcept { return m_command; }
    bool has(std::string_view name) const;
    /// The value of a single-valued flag, if given.
    std::optional<std::string> value(std::string_view name) const;
    /// The value of a flag that must be given.
    std::string required(std::string_view name) const;
    /// Every value of a repeated flag, in order.
    std::vector<std::string> values(std::string_view name) const;

    std::optional<double> number(std::string_view name) const;
    double number(std::string_view name, double fallback) const;
    /// An integer within [minimum, maximum].
    std::optional<std::int64_t> integer(std::string_view name, std::int64_t minimum,
                                        std::int64_t maximum) const;
    std::int64_t integer(std::string_view name, std::int64_t fallback, std::int64_t minimum,
                         std::int64_t maximum) const;
    /// An unsigned 64-bit integer (seeds).
    std::optional<std::uint64_t> unsignedInteger(std::string_view name) const;
    /// A comma-separated list of numbers, e.g. "150,190,0,40".
    std::optional<std::vector<double>> numberList(std::string_view name) const;

    /// Throws a UsageError "<command>: <message>" that points at the subcommand's help.
    [[noreturn]] void fail(const std::string& message) const;

private:
    std::string m_command;
    std::map<std::string, std::vector<std::string>, std::less<>> m_values;
};

/// Parses `args` (the words after the subcommand). Throws UsageError on an unknown flag, a
/// missing value, a repeated single-valued flag or a stray positional argument.
ParsedArgs parseArgs(const std::string& command, const OptionSet& options,
                     std::span<const std::string> args);

/// True when -h or --help is among the words: help wins over every other error.
bool wantsHelp(std::span<const std::string> args);

/// Strict conversions; `what` names the flag in the message ("--min: \"abc\" is not a number").
double parseNumber(std::string_view what, std::string_view text);
/// "150,190,0,40" as numbers; errors name `what` and quote the whole text.
std::vector<double> parseNumberList(std::string_view what, std::string_view text);
std::int64_t parseInteger(std::string_view what, std::string_view text, std::int64_t minimum,
                          std::int64_t maximum);
std::uint64_t parseUnsigned(std::string_view what, std::string_view text);

/// `"text"`, for messages; a text longer than ~40 characters is cut, with its length:
/// `"11111111..." (1048576 bytes)`. Control characters show as \xNN.
std::string quote(std::string_view text);
/// "tpacf run --data 'my data.txt' ..." : the command line as a POSIX shell would take it back
/// (words quoted where they need it), for a result's provenance.
std::string commandLine(std::string_view subcommand, std::span<const std::string> args);

} // namespace tpacf::cli
