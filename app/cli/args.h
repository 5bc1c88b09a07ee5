// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Command-line argument parsing for the subcommands: the flags of the command's table
// (flags/*.h), values checked as they are read, and a UsageError (exit 2) naming the flag as it
// was typed and quoting the value.
#include "flag_table.h"
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

/// Flags as given, under their names (an alias typed is stored under the flag it spells).
/// Accessors take a flag's name or its row, convert and validate; errors name the spelling
/// that was typed. Asking for a flag the command's table does not declare is a logic_error.
class ParsedArgs {
public:
    ParsedArgs(const CommandFlags& table,
               std::map<std::string, std::vector<std::string>, std::less<>> values,
               std::map<std::string, std::string, std::less<>> spellings);

    std::string_view command() const noexcept { return m_table->command; }
    bool has(std::string_view name) const;
    /// The value of a single-valued flag, if given.
    std::optional<std::string> value(std::string_view name) const;
    /// The value of a flag that must be given.
    std::string required(std::string_view name) const;
    /// Every value of a repeated flag, in order.
    std::vector<std::string> values(std::string_view name) const;
    /// The flag as the user typed it (its name, or the alias used); the name when not given.
    std::string spelling(std::string_view name) const;
    /// Whether the command's table has this flag (helpers shared by several commands ask).
    bool declares(std::string_view name) const;

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
    void requireDeclared(std::string_view name) const;

    const CommandFlags* m_table;
    std::map<std::string, std::vector<std::string>, std::less<>> m_values;
    std::map<std::string, std::string, std::less<>> m_spellings;
};

/// Parses `args` (the words after the subcommand) by the command's table: aliases become the
/// flags they spell. Throws UsageError on an unknown flag, a missing value, a single-valued flag
/// given twice (under any of its spellings) or a stray positional argument.
ParsedArgs parseArgs(const CommandFlags& table, std::span<const std::string> args);

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
