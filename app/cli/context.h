#pragma once
// What every subcommand gets: its words, the streams, whether stderr is a terminal (for the
// progress bar), the cancel flag Ctrl-C sets, and the GPU provider.
#include "cli/cli_main.h"

#include <atomic>
#include <iosfwd>
#include <span>
#include <string>

namespace tpacf {
class GpuBackendProvider;
}

namespace tpacf::cli {

struct Context {
    std::span<const std::string> args; // the words after the subcommand name
    std::ostream& out;
    std::ostream& err;
    bool errIsTerminal = false;
    const std::atomic<bool>* cancelRequested = nullptr;
    const GpuBackendProvider* gpu = nullptr; // never null inside a subcommand
};

/// One function per subcommand; each returns the exit code and throws tpacf errors (the
/// dispatcher maps them to exit codes and one line on stderr).
int runCommand(const Context& context);
int countCommand(const Context& context);
int devicesCommand(const Context& context);
int mockCommand(const Context& context);
int benchCommand(const Context& context);

/// The subcommands' --help texts.
std::string runHelp();
std::string countHelp();
std::string devicesHelp();
std::string mockHelp();
std::string benchHelp();

} // namespace tpacf::cli
