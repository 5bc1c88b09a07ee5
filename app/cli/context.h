// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every subcommand gets: its words, the streams, whether stderr is a terminal (for the
// progress bar), the cancel flag Ctrl-C sets, and the backends and side tools the program offers.
#include "cli/cli_main.h"

#include <atomic>
#include <iosfwd>
#include <span>
#include <string>

namespace tpacf {
class BackendRegistry;
template <typename Provider>
class ProviderRegistry; // provider_registry.h
namespace lab {
class LabProvider;
}
namespace fcs {
class CorrelatorProvider;
}
} // namespace tpacf

namespace tpacf::cli {

class RankGroup;

struct Context {
    std::span<const std::string> args; // the words after the subcommand name
    std::ostream& out;
    std::ostream& err;
    bool errIsTerminal = false;
    const std::atomic<bool>* cancelRequested = nullptr;
    const BackendRegistry& backends;
    /// This process alone, or the ranks of an MPI job (commands marked distributed split their
    /// work across them; every other rank's streams discard what is written to them).
    RankGroup& ranks;
    /// The Kernel Lab's providers beside the CPU rungs (lab.h's LabRegistry).
    const ProviderRegistry<lab::LabProvider>* lab = nullptr;
    /// The multi-tau correlators beside the CPU's (multitau.h's CorrelatorRegistry); null in a
    /// build without the FCS part (TPACF_FCS=OFF), which has no autocorr command.
    const ProviderRegistry<fcs::CorrelatorProvider>* correlators = nullptr;
};

/// One function per subcommand; each returns the exit code and throws tpacf errors (the
/// dispatcher maps them to exit codes and one line on stderr).
int runCommand(const Context& context);
int countCommand(const Context& context);
int devicesCommand(const Context& context);
int mockCommand(const Context& context);
int benchCommand(const Context& context);
int autocorrCommand(const Context& context);

/// The subcommands' --help texts; those with --backend list `backends`.
std::string runHelp(const BackendRegistry& backends);
std::string countHelp(const BackendRegistry& backends);
std::string devicesHelp(const BackendRegistry& backends);
std::string mockHelp(const BackendRegistry& backends);
std::string benchHelp(const BackendRegistry& backends);
std::string autocorrHelp(const BackendRegistry& backends);

} // namespace tpacf::cli
