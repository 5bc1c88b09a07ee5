// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf: the headless command-line tool.
#include "cli/cli_main.h"

int main(int argc, char** argv) {
    return tpacf::cli::runCli(argc, argv);
}
