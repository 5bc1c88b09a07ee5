// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf bench --read: how fast catalogs are read, apart from the pair counting.
#include "cli/args.h"
#include "cli/context.h"

namespace tpacf::cli {

/// Reads the file of --read with readCatalog --repeat times (after one warm-up read) and prints
/// its size, points, threads and the best wall time with its MB/s. Returns the exit code.
int benchReadCommand(const ParsedArgs& args, const Context& context);

} // namespace tpacf::cli
