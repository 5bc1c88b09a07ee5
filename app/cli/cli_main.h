// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tpacf command line: subcommand dispatch, usage, exit codes.
#include <iosfwd>
#include <string>

namespace tpacf {
class BackendRegistry;
}

namespace tpacf::cli {

/// Exit codes: 0 success, 2 bad usage or input, 1 internal failure, 130 cancelled by Ctrl-C
/// (128 + SIGINT, as shells report it).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCancelled = 130;

/// Runs the CLI on stdout/stderr: Ctrl-C cancels the running job, and a progress bar is drawn
/// when stderr is a terminal. Never exits the process itself.
int runCli(int argc, char** argv);
/// The same with explicit streams (tests): no signal handling, no progress bar.
int runCli(int argc, char** argv, std::ostream& out, std::ostream& err);

struct Context;
/// tpacf combine (cmd_combine.cpp): adds count files of the shares of one batch.
int combineCommand(const Context& context);
std::string combineHelp(const BackendRegistry& backends);

} // namespace tpacf::cli
