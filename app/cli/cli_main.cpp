// PLACEHOLDER: the command dispatch lands with the CLI.
#include "cli/cli_main.h"

#include <iostream>

namespace tpacf::cli {
int runCli(int argc, char** argv) { return runCli(argc, argv, std::cout, std::cerr); }
int runCli(int, char**, std::ostream&, std::ostream& err) {
    err << "tpacf: not implemented yet\n";
    return kExitInternal;
}
} // namespace tpacf::cli
