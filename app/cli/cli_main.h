#pragma once
// The tpacf command line: subcommand dispatch, usage, exit codes.
#include <iosfwd>

namespace tpacf::cli {

/// Exit codes: 0 success, 2 bad usage or input, 1 internal failure.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUsage = 2;

/// Runs the CLI; never exits the process itself.
int runCli(int argc, char** argv);
/// The same with explicit streams (tests).
int runCli(int argc, char** argv, std::ostream& out, std::ostream& err);

} // namespace tpacf::cli
