// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The vocabulary of the tpacf command line as data: one row per flag, one table per command.
// The CLI parses, checks and prints --help (and so the man pages) from these tables; TPACF
// Studio's "Copy as Command Line" takes its flag names from them. Plain constexpr data, free of
// Qt, CUDA and the CLI's code, so that any front end (and later a config-file reader, by
// configKey()) can use it.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace tpacf::cli {

/// How a flag takes its value.
enum class FlagKind : std::uint8_t {
    Switch,  ///< no value: --quiet
    Value,   ///< one value, given at most once: --output FILE or --output=FILE
    Repeated ///< a value that may be given several times, in order: --random FILE ...
};

/// Another spelling of a flag, kept so that command lines written for older versions still run.
/// Help shows the flag's name only; messages name the spelling that was typed.
struct FlagAlias {
    enum class Form : std::uint8_t {
        Same,   ///< takes what the flag takes: --theta-min X is --min X
        Prefix, ///< takes a value the flag gets after `value`: --box V is --footprint box:V
        Fixed   ///< a switch that gives the flag `value`: --full-sky is --footprint full-sky
    };
    std::string_view name;
    Form form = Form::Same;
    std::string_view value = {};
};

/// One flag: its name, how it takes a value, the value's name in help, and its help text (lines
/// separated by '\n', laid out under the flag; "{key}" is filled in when help is printed, for
/// what only the running program knows, such as the backends it was built with).
struct Flag {
    std::string_view name;
    FlagKind kind = FlagKind::Value;
    std::string_view metavar = {};
    std::string_view help = {};
    std::array<FlagAlias, 3> aliases = {};

    /// A row stands for its name wherever a flag is named (args.has(kQuiet)).
    constexpr operator std::string_view() const { return name; }

    /// The name without its leading "--": the key a config file would use.
    constexpr std::string_view configKey() const { return name.substr(2); }
};

/// A heading of --help and the flags under it. `note` is text printed after the flags as it is
/// laid out ("{key}" filled in as in Flag::help); a group may be a note alone.
struct FlagGroup {
    std::string_view title;
    std::span<const Flag* const> flags = {};
    std::string_view note = {};
};

/// Every flag one subcommand takes, in the groups its --help shows.
struct CommandFlags {
    std::string_view command;
    std::span<const FlagGroup* const> groups;

    /// The row whose name or alias is `spelling`; nullptr when the command has none.
    constexpr const Flag* find(std::string_view spelling) const {
        for (const FlagGroup* group : groups)
            for (const Flag* flag : group->flags) {
                if (flag->name == spelling)
                    return flag;
                for (const FlagAlias& alias : flag->aliases)
                    if (!alias.name.empty() && alias.name == spelling)
                        return flag;
            }
        return nullptr;
    }
};

} // namespace tpacf::cli
