// SPDX-License-Identifier: GPL-3.0-or-later
// The tpacf command line: picks the subcommand, and turns every error into an exit code and
// one line on stderr. The subcommands live in cmd_*.cpp.
#include "cli/cli_main.h"

#include "cli/args.h"
#include "cli/context.h"
#include "cli/interrupt.h"
#include "cli/lab_output.h"
#include "tpacf/backend.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"
#include "tpacf/version.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace tpacf::cli {

namespace {

struct Subcommand {
    std::string_view name;
    std::string_view summary;
    int (*run)(const Context&);
    std::string (*help)(const BackendRegistry&);
};

constexpr Subcommand kSubcommands[] = {
    {"run", "compute w(theta) of a data catalog against one or more random catalogs", runCommand,
     runHelp},
    {"count", "count pairs of one catalog (auto) or two catalogs (cross)", countCommand, countHelp},
    {"combine", "add count files of the parts of one batch (run --share K/N)", combineCommand,
     [](const BackendRegistry&) { return combineHelp(); }},
    {"devices", "list the CPU and the GPUs tpacf can use", devicesCommand,
     [](const BackendRegistry&) { return devicesHelp(); }},
    {"mock", "write a clustered mock catalog and/or uniform randoms", mockCommand,
     [](const BackendRegistry&) { return mockHelp(); }},
    {"bench", "time pair counting per backend and precision", benchCommand,
     [](const BackendRegistry&) { return benchHelp(); }},
    {"lab", "the Kernel Lab: teaching variants of the pair count, timed and checked", labCommand,
     [](const BackendRegistry&) { return labHelp(); }},
};

// The one place the command line names its backend modules: a new backend is one more add().
// Modules only probe for devices when asked, so building this for every command costs nothing.
BackendRegistry makeBackends() {
    BackendRegistry backends;
    backends.add(tpacf::cuda::makeProvider());
    return backends;
}

std::string toolHelp() {
    std::string text = "tpacf " + std::string(version()) +
                       " - two-point angular correlation function w(theta) on GPU and CPU\n\n"
                       "Usage: tpacf <command> [flags]\n"
                       "       tpacf <command> --help\n"
                       "       tpacf --version\n\n"
                       "Commands:\n";
    for (const auto& command : kSubcommands) {
        std::string name(command.name);
        name.resize(9, ' ');
        text += "  " + name + std::string(command.summary) + "\n";
    }
    text += "\nExample:\n"
            "  tpacf run --data galaxies.txt --random randoms.txt --preset log5 "
            "--output w.csv\n\n"
            "Exit status: 0 success, 1 internal failure, 2 bad usage or input, "
            "130 cancelled (Ctrl-C).\n";
    return text;
}

// Messages must stay one line: a shell script greps them, a test matches them.
std::string oneLine(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text;
}

struct Streams {
    std::ostream& out;
    std::ostream& err;
    bool errIsTerminal;
    const std::atomic<bool>* cancelRequested;
};

int runSubcommand(const Subcommand& command, std::span<const std::string> args,
                  const Streams& streams) {
    const std::string prefix = "tpacf: ";
    std::ostream& err = streams.err;
    try {
        const BackendRegistry backends = makeBackends();
        if (wantsHelp(args)) {
            streams.out << command.help(backends);
            return kExitOk;
        }
        const Context context{
            args,    streams.out, streams.err, streams.errIsTerminal, streams.cancelRequested,
            backends};
        const int code = command.run(context);
        streams.out.flush();
        return code;
    } catch (const UsageError& error) {
        err << prefix << command.name << ": " << oneLine(error.what()) << " (see 'tpacf "
            << command.name << " --help')\n";
        return kExitUsage;
    } catch (const Cancelled&) {
        err << prefix << "cancelled\n";
        return kExitCancelled;
    } catch (const InputError& error) {
        err << prefix << oneLine(error.what()) << '\n';
        return kExitUsage;
    } catch (const ConfigError& error) {
        err << prefix << oneLine(error.what()) << '\n';
        return kExitUsage;
    } catch (const BackendUnavailable& error) {
        err << prefix << oneLine(error.what()) << '\n';
        return kExitUsage;
    } catch (const tpacf::cuda::CudaError& error) {
        // A GPU that failed mid-run is not a bug of tpacf, nor bad input: say what CUDA said.
        err << prefix << "GPU failure: " << oneLine(error.what()) << '\n';
        return kExitInternal;
    } catch (const std::bad_alloc&) {
        err << prefix << "out of memory\n";
        return kExitInternal;
    } catch (const std::exception& error) {
        err << prefix << "internal error: " << oneLine(error.what()) << '\n';
        return kExitInternal;
    }
}

int dispatch(const std::vector<std::string>& words, const Streams& streams) {
    if (words.empty()) {
        streams.err << toolHelp();
        return kExitUsage;
    }
    const std::string& first = words.front();
    if (first == "-h" || first == "--help" || first == "help") {
        if (first == "help" && words.size() > 1) {
            for (const auto& command : kSubcommands)
                if (command.name == words[1]) {
                    streams.out << command.help(makeBackends());
                    return kExitOk;
                }
        }
        streams.out << toolHelp();
        return kExitOk;
    }
    if (first == "--version" || first == "-V") {
        streams.out << "tpacf " << version() << '\n';
        return kExitOk;
    }
    for (const auto& command : kSubcommands)
        if (command.name == first)
            return runSubcommand(command, std::span<const std::string>(words).subspan(1), streams);

    std::string names;
    for (const auto& command : kSubcommands)
        names += (names.empty() ? "" : ", ") + std::string(command.name);
    streams.err << "tpacf: " << (first.starts_with("-") ? "unknown flag " : "unknown command ")
                << quote(first) << " (commands: " << names << "; see 'tpacf --help')\n";
    return kExitUsage;
}

std::vector<std::string> wordsOf(int argc, char** argv) {
    std::vector<std::string> words;
    for (int i = 1; i < argc; ++i)
        words.emplace_back(argv[i]);
    return words;
}

} // namespace

int runCli(int argc, char** argv) {
    // Ctrl-C cancels the running job through the flag instead of killing the process.
    const InterruptGuard guard;
    const Streams streams{std::cout, std::cerr, isatty(STDERR_FILENO) == 1, &interruptFlag()};
    const int code = dispatch(wordsOf(argc, argv), streams);
    std::cout.flush();
    return code;
}

int runCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
    const Streams streams{out, err, false, nullptr};
    return dispatch(wordsOf(argc, argv), streams);
}

} // namespace tpacf::cli
