// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --help from the flag tables: each group's heading, then per flag "  --name VALUE" and its
// help, laid out in the columns scripts/gen-man-pages.py reads back into the man pages.
#include "flag_table.h"

#include <string>
#include <string_view>

namespace tpacf {
class BackendRegistry;
}

namespace tpacf::cli {

/// The groups of `table` as --help prints them, one blank line between groups. The tables'
/// "{key}" placeholders are filled with what this program has (`backends`, estimators, catalog
/// formats, plotting); a key it does not know is a logic_error.
std::string flagHelp(const CommandFlags& table, const BackendRegistry& backends);

/// `text` with its "{key}" placeholders filled as flagHelp does.
std::string fillHelpText(std::string_view text, const BackendRegistry& backends);

} // namespace tpacf::cli
