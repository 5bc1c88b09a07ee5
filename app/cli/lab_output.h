// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf lab's pieces beside its command (cmd_lab.cpp): what the lab counts, the report as a
// table or JSON (lab_output.cpp) and the two precision demonstrations (cmd_lab_demo.cpp).
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/lab.h"

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace tpacf::cli {

struct Context;

/// tpacf lab (cmd_lab.cpp) and its --help text.
int labCommand(const Context& context);
std::string labHelp(const BackendRegistry& backends);

/// The catalogs: read (--a, --b) or generated (points: --n, 0 for the default; seed).
struct LabInputs {
    std::shared_ptr<const Catalog> first, second;
    std::size_t points = 0;
    std::uint64_t seed = 1;
};

struct LabSetup {
    const LabInputs& inputs;
    const Binning& binning;
    int repeats = 1;
};

void printLabTable(std::ostream& out, const lab::LabReport& report, const LabSetup& setup);
void printLabJson(std::ostream& out, const lab::LabReport& report, const LabSetup& setup);

/// `text` broken into lines of at most `width` characters at spaces.
std::string wrapText(const std::string& text, std::size_t width);

/// tpacf lab --demo precision / overflow.
int precisionDemoCommand(const Context& context, LabInputs inputs, const BinSpec& bins,
                         bool json);
int overflowDemoCommand(const Context& context, LabInputs inputs, const BinSpec& bins, int threads,
                        bool json);

} // namespace tpacf::cli
