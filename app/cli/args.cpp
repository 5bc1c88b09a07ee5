// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/args.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace tpacf::cli {

std::string commandLine(std::string_view subcommand, std::span<const std::string> args) {
    const auto shellWord = [](std::string_view word) {
        const bool plain = !word.empty() && word.find_first_not_of(
                                                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                "0123456789-_=+.,/:@%") == std::string_view::npos;
        if (plain)
            return std::string(word);
        std::string quoted = "'";
        for (const char c : word)
            quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return quoted + "'";
    };
    std::string line("tpacf ");
    line += subcommand;
    for (const std::string& arg : args)
        line += " " + shellWord(arg);
    return line;
}

std::string quote(std::string_view text) {
    // A pasted 1 MB value must not become a 1 MB line on stderr: show its start and its size.
    constexpr std::size_t kShown = 40;
    std::size_t cut = std::min(text.size(), kShown);
    // Never cut inside a UTF-8 sequence.
    while (cut < text.size() && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    std::string result = "\"";
    for (const char c : text.substr(0, cut)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7F) {
            // Control characters would break the one-line message (or the terminal).
            static constexpr char kHex[] = "0123456789ABCDEF";
            result += "\\x";
            result += kHex[byte >> 4];
            result += kHex[byte & 0xF];
        } else {
            result += c;
        }
    }
    if (cut < text.size())
        result += "...\" (" + std::to_string(text.size()) + " bytes)";
    else
        result += '"';
    return result;
}

namespace {

// Why `text` is not a finite double ("is not a number", "is out of range ..."), or nothing.
std::optional<std::string> numberProblem(std::string_view text, double& value) {
    // from_chars does not take a leading '+', which people do type.
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+')
        digits.remove_prefix(1);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error == std::errc::invalid_argument ||
        end != digits.data() + digits.size())
        return "is not a number";
    if (error == std::errc::result_out_of_range)
        return "is out of range (a double holds magnitudes up to about 1.8e308 and down to "
               "about 4.9e-324)";
    if (!std::isfinite(value))
        return "is not a finite number";
    return std::nullopt;
}

} // namespace

double parseNumber(std::string_view what, std::string_view text) {
    double value = 0;
    if (const auto problem = numberProblem(text, value))
        throw UsageError(std::string(what) + ": " + quote(text) + " " + *problem);
    return value;
}

std::vector<double> parseNumberList(std::string_view what, std::string_view text) {
    std::vector<double> numbers;
    std::string_view rest = text;
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view field = rest.substr(0, comma);
        double value = 0;
        if (const auto problem = numberProblem(field, value)) {
            if (*problem == "is not a number")
                throw UsageError(std::string(what) + ": " + quote(text) +
                                 " is not a comma-separated list of numbers (" + quote(field) +
                                 ")");
            throw UsageError(std::string(what) + ": " + quote(field) + " in " + quote(text) + " " +
                             *problem);
        }
        numbers.push_back(value);
        if (comma == std::string_view::npos)
            return numbers;
        rest.remove_prefix(comma + 1);
    }
}

std::int64_t parseInteger(std::string_view what, std::string_view text, std::int64_t minimum,
                          std::int64_t maximum) {
    std::string_view digits = text;
    if (!digits.empty() && digits.front() == '+')
        digits.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error == std::errc::invalid_argument ||
        end != digits.data() + digits.size())
        throw UsageError(std::string(what) + ": " + quote(text) + " is not a whole number");
    if (error == std::errc::result_out_of_range || value < minimum || value > maximum)
        throw UsageError(std::string(what) + ": " + quote(text) + " is out of range (" +
                         std::to_string(minimum) + " to " + std::to_string(maximum) + ")");
    return value;
}

std::uint64_t parseUnsigned(std::string_view what, std::string_view text) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error == std::errc::invalid_argument || end != text.data() + text.size())
        throw UsageError(std::string(what) + ": " + quote(text) +
                         " is not a non-negative whole number");
    if (error == std::errc::result_out_of_range)
        throw UsageError(std::string(what) + ": " + quote(text) + " is too large");
    return value;
}

ParsedArgs::ParsedArgs(const CommandFlags& table,
                       std::map<std::string, std::vector<std::string>, std::less<>> values,
                       std::map<std::string, std::string, std::less<>> spellings)
    : m_table(&table), m_values(std::move(values)), m_spellings(std::move(spellings)) {}

bool ParsedArgs::declares(std::string_view name) const {
    const Flag* flag = m_table->find(name);
    return flag && flag->name == name;
}

void ParsedArgs::requireDeclared(std::string_view name) const {
    // A reader that names a flag its table lacks (or only an alias) would never see it given.
    if (!declares(name))
        throw std::logic_error("tpacf " + std::string(m_table->command) + " reads " +
                               std::string(name) + ", which its flag table does not declare");
}

bool ParsedArgs::has(std::string_view name) const {
    requireDeclared(name);
    return m_values.contains(name);
}

std::optional<std::string> ParsedArgs::value(std::string_view name) const {
    requireDeclared(name);
    const auto found = m_values.find(name);
    if (found == m_values.end() || found->second.empty())
        return std::nullopt;
    return found->second.back();
}

std::string ParsedArgs::required(std::string_view name) const {
    auto text = value(name);
    if (!text)
        fail(std::string(name) + " is required");
    return *text;
}

std::vector<std::string> ParsedArgs::values(std::string_view name) const {
    requireDeclared(name);
    const auto found = m_values.find(name);
    return found == m_values.end() ? std::vector<std::string>{} : found->second;
}

std::string ParsedArgs::spelling(std::string_view name) const {
    requireDeclared(name);
    const auto found = m_spellings.find(name);
    return found == m_spellings.end() ? std::string(name) : found->second;
}

std::optional<double> ParsedArgs::number(std::string_view name) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    return parseNumber(spelling(name), *text);
}

double ParsedArgs::number(std::string_view name, double fallback) const {
    return number(name).value_or(fallback);
}

std::optional<std::int64_t> ParsedArgs::integer(std::string_view name, std::int64_t minimum,
                                                std::int64_t maximum) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    return parseInteger(spelling(name), *text, minimum, maximum);
}

std::int64_t ParsedArgs::integer(std::string_view name, std::int64_t fallback, std::int64_t minimum,
                                 std::int64_t maximum) const {
    return integer(name, minimum, maximum).value_or(fallback);
}

std::optional<std::uint64_t> ParsedArgs::unsignedInteger(std::string_view name) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    return parseUnsigned(spelling(name), *text);
}

std::optional<std::vector<double>> ParsedArgs::numberList(std::string_view name) const {
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    return parseNumberList(spelling(name), *text);
}

void ParsedArgs::fail(const std::string& message) const {
    throw UsageError(message);
}

bool wantsHelp(std::span<const std::string> args) {
    for (const auto& word : args) {
        if (word == "-h" || word == "--help")
            return true;
        // Everything after "--" is data, not flags.
        if (word == "--")
            break;
    }
    return false;
}

ParsedArgs parseArgs(const CommandFlags& table, std::span<const std::string> args) {
    std::map<std::string, std::vector<std::string>, std::less<>> values;
    std::map<std::string, std::string, std::less<>> spellings;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        if (word.size() < 3 || !word.starts_with("--"))
            throw UsageError(
                "unexpected argument " + quote(word) +
                (word.starts_with("-") && word.size() > 1 ? " (flags start with --)" : ""));
        std::string typed = word;
        std::optional<std::string> inlineValue;
        if (const auto equals = word.find('='); equals != std::string::npos) {
            typed = word.substr(0, equals);
            inlineValue = word.substr(equals + 1);
        }
        const Flag* flag = table.find(typed);
        if (!flag)
            // Unquoted as typed, unless long enough to need quote()'s cut.
            throw UsageError("unknown flag " + (typed.size() > 40 ? quote(typed) : typed));
        // How this spelling takes its value: as the flag does, or as its alias says.
        FlagAlias::Form form = FlagAlias::Form::Same;
        std::string_view implied;
        for (const FlagAlias& alias : flag->aliases)
            if (alias.name == typed) {
                form = alias.form;
                implied = alias.value;
            }
        const std::string name(flag->name);
        const bool takesValue =
            form != FlagAlias::Form::Fixed && flag->kind != FlagKind::Switch;
        if (!takesValue && inlineValue)
            throw UsageError(typed + " takes no value");
        std::optional<std::string> text;
        if (takesValue) {
            if (inlineValue) {
                text = *inlineValue;
            } else {
                // A following "--flag" means the value was forgotten; "-5" is a value.
                if (i + 1 >= args.size() || args[i + 1].starts_with("--"))
                    throw UsageError(typed + " needs a value");
                text = args[++i];
            }
            if (form == FlagAlias::Form::Prefix)
                text = std::string(implied) + *text;
        } else if (form == FlagAlias::Form::Fixed) {
            text = std::string(implied);
        }
        auto& slot = values[name]; // presence alone is a switch's value
        if (flag->kind == FlagKind::Value && spellings.contains(name)) {
            const std::string& before = spellings[name];
            if (before == typed)
                throw UsageError(typed + " given more than once");
            throw UsageError("give only one of " + before + " and " + typed + " (both set " +
                             name + ")");
        }
        spellings[name] = typed;
        if (text)
            slot.push_back(std::move(*text));
    }
    return ParsedArgs(table, std::move(values), std::move(spellings));
}

} // namespace tpacf::cli
