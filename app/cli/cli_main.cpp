// SPDX-License-Identifier: GPL-3.0-or-later
// The tpacf command line: picks the subcommand, and turns every error into an exit code and
// one line on stderr. The subcommands live in cmd_*.cpp.
#include "cli/completion.h"
#include "cli/cli_main.h"

#include "cli/args.h"
#include "cli/build_parts.h"
#include "cli/context.h"
#include "cli/driver_teardown.h"
#include "cli/failure.h"
#include "cli/interrupt.h"
#include "cli/lab_output.h"
#include "cli/rank_group.h"
#include "tpacf/backend.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/cuda/cuda_lab.h"
#if TPACF_HAVE_FCS
#include "tpacf/cuda/cuda_correlator.h"
#endif
#include "tpacf/errors.h"
#include "tpacf/version.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
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
    /// The command splits its work across MPI ranks (the others refuse to run under MPI).
    bool distributed = false;
};

#if TPACF_HAVE_FCS
// The correlators beside the CPU's (tpacf autocorr): a new one is one more add().
fcs::CorrelatorRegistry makeCorrelators() {
    fcs::CorrelatorRegistry correlators;
    correlators.add(tpacf::cuda::makeCorrelatorProvider());
    return correlators;
}
#endif

constexpr Subcommand kSubcommands[] = {
    {"run", "compute w(theta) of a data catalog against one or more random catalogs", runCommand,
     runHelp, true},
    {"count", "count pairs of one catalog (auto) or two catalogs (cross)", countCommand, countHelp,
     true},
    {"combine", "add count files of the parts of one batch (run --share K/N)", combineCommand,
     combineHelp},
    {"devices", "list the CPU and the GPUs tpacf can use", devicesCommand,
     devicesHelp},
    {"mock", "write a clustered mock catalog and/or uniform randoms", mockCommand,
     mockHelp},
    {"bench", "time pair counting per backend and precision", benchCommand,
     benchHelp, true},
    {"lab", "the Kernel Lab: teaching variants of the pair count, timed and checked", labCommand,
     labHelp},
#if TPACF_HAVE_FCS
    {"autocorr", "multi-tau autocorrelation of photon-count streams (FCS)", autocorrCommand,
     autocorrHelp},
#endif
};

// The one place the command line names its backend modules: a new backend is one more add().
// Modules only probe for devices when asked, so building this for every command costs nothing.
BackendRegistry makeBackends() {
    BackendRegistry backends;
    backends.add(tpacf::cuda::makeProvider());
    return backends;
}

// The side tools' providers, beside the backends: the Kernel Lab's rungs and the correlators.
lab::LabRegistry makeLabProviders() {
    lab::LabRegistry providers;
    providers.add(tpacf::cuda::makeLabProvider());
    return providers;
}

std::string toolHelp() {
    std::string text = "tpacf " + std::string(version()) +
                       " - two-point angular correlation function w(theta) on GPU and CPU\n\n"
                       "Usage: tpacf <command> [flags]\n"
                       "       tpacf <command> --help\n"
                       "       tpacf --version\n"
                       "       tpacf --completion bash   (the bash completion script)\n\n"
                       "Commands:\n";
    std::size_t width = 0; // the longest name and two blanks
    for (const auto& command : kSubcommands)
        width = std::max(width, std::string_view(command.name).size() + 2);
    for (const auto& command : kSubcommands) {
        std::string name(command.name);
        name.resize(width, ' ');
        text += "  " + name + std::string(command.summary) + "\n";
    }
    text += "\nExample:\n"
            "  tpacf run --data galaxies.txt --random randoms.txt --preset log5 "
            "--output w.csv\n\n"
            "Exit status: 0 success, 1 internal failure, 2 bad usage or input, "
            "130 cancelled (Ctrl-C).\n";
    return text;
}

struct Streams {
    std::ostream& out;
    std::ostream& err;
    bool errIsTerminal;
    const std::atomic<bool>* cancelRequested;
    RankGroup& ranks;
};

int runSubcommand(const Subcommand& command, std::span<const std::string> args,
                  const Streams& streams) {
    try {
        const BackendRegistry backends = makeBackends();
        if (wantsHelp(args)) {
            streams.out << command.help(backends);
            return kExitOk;
        }
        const lab::LabRegistry labProviders = makeLabProviders();
        Context context{args,
                        streams.out,
                        streams.err,
                        streams.errIsTerminal,
                        streams.cancelRequested,
                        backends,
                        streams.ranks};
        context.lab = &labProviders;
#if TPACF_HAVE_FCS
        const fcs::CorrelatorRegistry correlators = makeCorrelators();
        context.correlators = &correlators;
#endif
        // A command that knows nothing of ranks would run whole on each of them (and write the
        // same files K times): under MPI only those that split their work run.
        if (streams.ranks.distributed() && !command.distributed)
            throw ConfigError(std::string(command.name) +
                              " does not run under MPI (" +
                              std::to_string(streams.ranks.size()) +
                              " ranks): run it as one process; 'run', 'count' and 'bench' "
                              "split their work across ranks");
        const int code = command.run(context);
        streams.out.flush();
        return code;
    } catch (...) {
        // Under MPI the ranks have agreed on one failure (RunEnded) or fail alike (usage): the
        // first rank speaks for all of them.
        const RankFailure failure = describeFailure(std::current_exception(), command.name);
        if (streams.ranks.isRoot()) {
            const bool elsewhere = failure.rank != 0 && streams.ranks.distributed();
            std::string line = failure.line;
            if (elsewhere && line.starts_with("tpacf: "))
                line.insert(7, "rank " + std::to_string(failure.rank) + " of " +
                                   std::to_string(streams.ranks.size()) + ": ");
            streams.err << line << '\n';
        }
        return failure.exitCode;
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
        streams.out << versionText(makeBackends());
        return kExitOk;
    }
    if (first == "--completion") {
        if (words.size() != 2 || words[1] != "bash") {
            streams.err << "tpacf: --completion takes one shell: bash (tpacf --completion bash "
                           "> /etc/bash_completion.d/tpacf)\n";
            return kExitUsage;
        }
        std::vector<std::string_view> names;
        for (const auto& command : kSubcommands)
            names.push_back(command.name);
        streams.out << bashCompletionScript(names);
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
    // Ctrl-C cancels the running job through the flag instead of killing the process; under
    // mpirun, which passes SIGINT on to the ranks as SIGTERM, every rank stops the same way.
    const InterruptGuard guard;
    // Over a file-size limit (ulimit -f) a write then fails with EFBIG, reported like a full
    // disk, instead of SIGXFSZ killing the process with a temporary file left behind.
    std::signal(SIGXFSZ, SIG_IGN);
    std::unique_ptr<RankGroup> ranks;
    try {
        ranks = makeRankGroup(argc, argv);
    } catch (const std::exception& error) {
        std::cerr << "tpacf: cannot start MPI: " << oneLine(error.what()) << '\n';
        return kExitInternal;
    }
    if (const std::string refusal = launchedWithoutMpi(); !refusal.empty()) {
        std::cerr << "tpacf: " << refusal << '\n';
        return kExitUsage;
    }
    // Ranks other than the first work silently: one progress bar, one summary, one message.
    std::ostream discard(nullptr); // no buffer: every write is dropped
    const bool root = ranks->isRoot();
    const Streams streams{root ? std::cout : discard, root ? std::cerr : discard,
                          root && isatty(STDERR_FILENO) == 1, &interruptFlag(), *ranks};
    const int code = dispatch(wordsOf(argc, argv), streams);
    std::cout.flush();
    std::fflush(nullptr);
    // Not under MPI: a launcher's ranks end together, and some MPI transports warn of a fork.
    if (!startedByMpiLauncher()) {
        std::string problem;
        const TeardownChoice choice = teardownChoice(std::getenv(kGpuTeardownVariable), problem);
        if (!problem.empty())
            std::cerr << "tpacf: " << problem << '\n';
        if (choice == TeardownChoice::Child)
            leaveDriverTeardownToChild();
    }
    return code;
}

int runCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
    const auto single = makeSingleProcess();
    const Streams streams{out, err, false, nullptr, *single};
    return dispatch(wordsOf(argc, argv), streams);
}

} // namespace tpacf::cli
