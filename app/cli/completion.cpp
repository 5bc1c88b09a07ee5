// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/completion.h"

#include "command_flags.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::cli {

namespace {

using flags::kAllCommands;

// Values offered after a flag, by its name, where the program takes a fixed set (the same in
// every command that has the flag).
struct FlagValues {
    std::string_view flag;
    std::string_view words;
};
constexpr FlagValues kValuesByName[] = {
    {"--precision", "auto float double"},
    {"--unit", "deg arcmin arcsec rad"},
    {"--coord-unit", "deg arcmin arcsec rad"},
    {"--culling", "auto on off"},
    {"--format", "ecsv csv fits votable json"},
    {"--preset", "log5 quarter-degree"},
};

// The words of a metavar that lists its values ("on|off", "log|linear"); none for a placeholder
// ("N", "N|NAME": upper case).
std::string choicesOf(std::string_view metavar) {
    if (metavar.find('|') == std::string_view::npos)
        return {};
    if (std::any_of(metavar.begin(), metavar.end(),
                    [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }))
        return {};
    std::string words(metavar);
    std::replace(words.begin(), words.end(), '|', ' ');
    return words;
}

std::string valuesOf(const Flag& flag) {
    for (const FlagValues& values : kValuesByName)
        if (values.flag == flag.name)
            return std::string(values.words);
    return choicesOf(flag.metavar);
}

bool takesFile(const Flag& flag) {
    return flag.kind != FlagKind::Switch && flag.metavar.find("FILE") != std::string_view::npos;
}

// The spellings of one flag: its name and its aliases.
std::vector<std::string_view> spellingsOf(const Flag& flag) {
    std::vector<std::string_view> out{flag.name};
    for (const FlagAlias& alias : flag.aliases)
        if (!alias.name.empty())
            out.push_back(alias.name);
    return out;
}

std::string joined(const std::vector<std::string_view>& words, const char* separator) {
    std::string out;
    for (const std::string_view word : words)
        out += (out.empty() ? "" : separator) + std::string(word);
    return out;
}

// One command's branch of the script.
std::string commandBranch(const CommandFlags& command) {
    std::vector<std::string_view> all{"--help"};
    std::vector<std::string_view> files, values;
    std::string valueCases;
    for (const FlagGroup* group : command.groups)
        for (const Flag* flag : group->flags) {
            const std::vector<std::string_view> spellings = spellingsOf(*flag);
            all.insert(all.end(), spellings.begin(), spellings.end());
            if (flag->kind == FlagKind::Switch)
                continue;
            if (takesFile(*flag)) {
                files.insert(files.end(), spellings.begin(), spellings.end());
            } else if (const std::string words = valuesOf(*flag); !words.empty()) {
                valueCases += "        " + joined(spellings, "|") +
                              ") COMPREPLY=($(compgen -W \"" + words + "\" -- \"$cur\")); return;;\n";
            } else {
                values.insert(values.end(), spellings.begin(), spellings.end());
            }
        }
    std::string text = "    " + std::string(command.command) + ")\n        case \"$prev\" in\n";
    if (!files.empty())
        text += "        " + joined(files, "|") +
                ") compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); "
                "return;;\n";
    text += valueCases;
    if (!values.empty())
        text += "        " + joined(values, "|") + ") return;; # a value: nothing to offer\n";
    text += "        esac\n        COMPREPLY=($(compgen -W \"" + joined(all, " ") +
            "\" -- \"$cur\"));;\n";
    return text;
}

} // namespace

std::string bashCompletionScript(std::span<const std::string_view> available) {
    std::vector<std::string_view> commands;
    std::vector<const CommandFlags*> tables;
    for (const CommandFlags* command : kAllCommands)
        if (std::find(available.begin(), available.end(), command->command) != available.end()) {
            commands.push_back(command->command);
            tables.push_back(command);
        }
    std::string text =
        "# bash completion for tpacf (made by 'tpacf --completion bash' from its flag tables)\n"
        "_tpacf() {\n"
        "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        "    COMPREPLY=()\n"
        "    if [[ $COMP_CWORD -eq 1 ]]; then\n"
        "        COMPREPLY=($(compgen -W \"" +
        joined(commands, " ") +
        " help --help --version --completion\" -- \"$cur\"))\n"
        "        return\n"
        "    fi\n"
        "    case \"${COMP_WORDS[1]}\" in\n";
    for (const CommandFlags* command : tables)
        text += commandBranch(*command);
    text += "    help) [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W \"" + joined(commands, " ") +
            "\" -- \"$cur\"));;\n"
            "    --completion) COMPREPLY=($(compgen -W \"bash\" -- \"$cur\"));;\n"
            "    esac\n"
            "}\n"
            "complete -F _tpacf tpacf\n";
    return text;
}

} // namespace tpacf::cli
