// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by tpacf autocorr's two files: the correlation of a stream (cmd_autocorr.cpp) and its
// --bench mode (cmd_autocorr_bench.cpp).
#include "cli/args.h"
#include "cli/context.h"
#include "tpacf/multitau.h"

#include <cstddef>
#include <memory>
#include <string>

namespace tpacf::cli {

/// --lags-per-level and --levels, validated (a bad value is a UsageError naming it).
fcs::MultiTauSettings multiTauSettingsFrom(const ParsedArgs& args);

/// The correlator --backend, --devices and --threads ask for, and a notice for the user ("" or
/// why "auto" fell back to the CPU). "cpu": the CPU reference; a module's name: its correlator,
/// else BackendUnavailable; "auto": the first module with a device and a correlator, else the CPU.
struct ChosenCorrelator {
    std::unique_ptr<fcs::MultiTauCorrelator> correlator;
    std::string notice;
};
ChosenCorrelator chooseCorrelator(const Context& context, const ParsedArgs& args,
                                  const fcs::MultiTauSettings& settings, std::size_t channels);

/// tpacf autocorr --bench.
int autocorrBench(const Context& context, const ParsedArgs& args);

} // namespace tpacf::cli
