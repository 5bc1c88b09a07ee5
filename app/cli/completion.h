// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `tpacf --completion bash`: a bash completion script made from the flag tables, so that it
// offers every command and every flag (and its aliases) the program takes, and stays so. The
// packages install it (share/bash-completion/completions/tpacf).
#include <span>
#include <string>
#include <string_view>

namespace tpacf::cli {

/// The script: a completion function for tpacf and its `complete` line. Commands after `tpacf`;
/// after a command, its flags; after a flag whose value is a file, file names; after a flag with
/// a fixed set of values, those values.
/// `commands`: the subcommands this build has (those of the flag tables it lacks are left out).
std::string bashCompletionScript(std::span<const std::string_view> commands);

} // namespace tpacf::cli
