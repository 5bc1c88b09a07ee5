// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every subcommand's flag table, for whoever needs them all (the CLI's --help, the tests).
#include "autocorr_flags.h"
#include "bench_flags.h"
#include "lab_flags.h"
#include "run_flags.h"
#include "tool_flags.h"

namespace tpacf::cli::flags {

inline constexpr const CommandFlags* kAllCommands[] = {
    &kRunFlags,  &kCountFlags, &kCombineFlags, &kDevicesFlags,
    &kMockFlags, &kBenchFlags, &kLabFlags,     &kAutocorrFlags};

} // namespace tpacf::cli::flags
