// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf lab: the Kernel Lab on the command line. The ladder of pair-counting variants timed and
// checked bin by bin against the double reference, their explanations and code excerpts, and
// the two precision demonstrations (lab.h, lab_demos.h). The demonstrations' output lives in
// cmd_lab_demo.cpp.
#include "cli/args.h"
#include "cli/context.h"
#include "cli/flag_help.h"
#include "cli/lab_output.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "lab_flags.h"
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/errors.h"
#include "tpacf/lab.h"
#include "tpacf/lab_demos.h"
#include "tpacf/version.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace tpacf::cli {

std::string labHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf lab [--n N] [--seed S] [--a FILE [--b FILE]]
                 [--backend cpu|cuda|all] [--variants K1,K2,...] [--repeat R] [--threads T]
                 [bins] [--json] [--quiet]
       tpacf lab --list
       tpacf lab --explain KEY
       tpacf lab --demo precision|overflow [--n N] [--a FILE] [bins] [--json]

The Kernel Lab: a ladder of pair-counting variants written to be read, from what a course's
first version does (float, acos, 32-bit counters) to the product's path, each timed on the same
catalog and compared bin by bin with the double-precision reference (the CPU backend). The table
gives per variant: the best wall time of R runs, pairs/s (the pairs of the count / that time),
the speed-up over the row before and over the first row of the same backend, and whether the
counts equal the reference (the bins that differ, the largest relative difference). Variants
that are expected to be wrong say so; their differing bins are listed under the table.

)" + flagHelp(flags::kLabFlags, backends) + R"(
Examples:
  tpacf lab --backend cpu
  tpacf lab --n 5000 --variants cpu-1-naive,cpu-2-chord2 --min 0.01 --max 100 --nbins 20
  tpacf lab --explain cpu-2-chord2
  tpacf lab --demo precision
)";
}

namespace {

/// The folder the variants' sources are read from: the source tree this program was built
/// from, else the copy installed beside it (share/tpacf/lab); "" when neither is there.
std::string sourceRoot() {
    namespace fs = std::filesystem;
    std::error_code error;
#ifdef TPACF_SOURCE_DIR
    if (fs::is_directory(fs::path(TPACF_SOURCE_DIR) / "core" / "lab" / "src", error))
        return TPACF_SOURCE_DIR;
#endif
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "tpacf" / "lab";
        if (fs::is_directory(installed, error))
            return installed.string();
    }
    return {};
}

/// Every variant the program has, each with whether its backend has a device here.
struct Offered {
    lab::LabVariantList variants;
    std::vector<std::string> unavailable; // per variant: why it cannot run here, or ""
};

Offered offeredVariants(const Context& context, int threads) {
    Offered offered;
    offered.variants = lab::allLabVariants(*context.lab, threads);
    for (const auto& variant : offered.variants) {
        const lab::LabProvider* provider = context.lab->find(variant->backend());
        const std::string reason = provider ? provider->unavailableReason() : std::string();
        offered.unavailable.push_back(
            reason.empty() ? "" : provider->displayName() + " backend unavailable: " + reason);
    }
    return offered;
}

std::string keysText(const lab::LabVariantList& variants) {
    std::string text;
    for (const auto& variant : variants)
        text += (text.empty() ? "" : ", ") + variant->key();
    return text;
}

int listCommand(const Context& context, const Offered& offered) {
    std::ostream& out = context.out;
    char line[256];
    std::snprintf(line, sizeof line, "%-4s %-26s %-7s %-7s %s\n", "rung", "key", "backend",
                  "exact", "name");
    out << line;
    for (std::size_t v = 0; v < offered.variants.size(); ++v) {
        const auto& variant = offered.variants[v];
        std::snprintf(line, sizeof line, "%4d %-26s %-7s %-7s %s%s\n", variant->rung(),
                      variant->key().c_str(), variant->backend().c_str(),
                      variant->exact() ? "yes" : "no", variant->name().c_str(),
                      offered.unavailable[v].empty() ? "" : " (no device here)");
        out << line;
    }
    return kExitOk;
}

int explainCommand(const Context& context, const Offered& offered, const std::string& key) {
    const auto found = std::find_if(offered.variants.begin(), offered.variants.end(),
                                    [&](const auto& variant) { return variant->key() == key; });
    if (found == offered.variants.end())
        throw UsageError("--explain: " + quote(key) + " is not a variant (" +
                         keysText(offered.variants) + ")");
    const lab::LabVariant& variant = **found;
    std::ostream& out = context.out;
    out << variant.key() << ": " << variant.name() << "\n";
    out << "rung " << variant.rung() << ", backend " << variant.backend() << ", "
        << (variant.exact() ? "exact (equals the double reference bin for bin)"
                            : "inexact by design (the explanation says where and why)")
        << "\n\n"
        << wrapText(variant.explanation(), 96) << "\n\n";
    const std::string root = sourceRoot();
    const std::string excerpt = root.empty()
                                    ? std::string()
                                    : lab::sourceExcerpt(root, variant.sourceFile(), variant.key());
    out << "Source: " << variant.sourceFile() << "\n";
    if (excerpt.empty())
        out << "(source not available)\n";
    else
        out << "\n" << excerpt;
    return kExitOk;
}

/// The variants to run: --variants by key (in ladder order), or those of --backend.
lab::LabVariantList chooseVariants(const ParsedArgs& args, const Context& context,
                                   Offered offered) {
    const std::string backendText = args.value(flags::lab::kBackend).value_or("all");
    std::string backend = "all";
    if (backendText != "all") {
        const auto name = context.lab->resolve(backendText);
        if (!name || *name == kAutoBackend)
            args.fail("--backend: " + quote(backendText) + " is not a lab backend (cpu, " +
                      [&] {
                          std::string names;
                          for (const auto& provider : context.lab->providers())
                              names += provider->name() + ", ";
                          return names;
                      }() +
                      "all)");
        backend = *name;
        // No device: say so before anything else (a build without the module has no variants
        // of it either).
        if (const lab::LabProvider* provider = context.lab->find(backend))
            if (const std::string reason = provider->unavailableReason(); !reason.empty())
                throw BackendUnavailable(provider->displayName() +
                                         " backend unavailable: " + reason);
    }
    std::vector<std::string> wanted;
    if (const auto list = args.value(flags::lab::kVariants)) {
        std::stringstream stream(*list);
        for (std::string key; std::getline(stream, key, ',');) {
            if (key.empty())
                continue;
            const bool known =
                std::any_of(offered.variants.begin(), offered.variants.end(),
                            [&](const auto& variant) { return variant->key() == key; });
            if (!known)
                args.fail("--variants: " + quote(key) + " is not a variant (" +
                          keysText(offered.variants) + ")");
            wanted.push_back(key);
        }
        if (wanted.empty())
            args.fail("--variants: no variant named in " + quote(*list));
    }

    lab::LabVariantList chosen;
    std::vector<std::string> skipped;
    for (std::size_t v = 0; v < offered.variants.size(); ++v) {
        auto& variant = offered.variants[v];
        const bool named = std::find(wanted.begin(), wanted.end(), variant->key()) != wanted.end();
        const bool ofBackend = backend == "all" || variant->backend() == backend;
        if (!(wanted.empty() ? ofBackend : named && ofBackend))
            continue;
        if (!offered.unavailable[v].empty()) {
            // Asked for by name or by backend: that cannot run here. Under "all": skipped.
            if (!wanted.empty() || backend != "all")
                throw BackendUnavailable(offered.unavailable[v]);
            if (std::find(skipped.begin(), skipped.end(), variant->backend()) == skipped.end()) {
                skipped.push_back(variant->backend());
                printNotice(context.err, variant->backend() + " variants skipped: " +
                                             offered.unavailable[v]);
            }
            continue;
        }
        chosen.push_back(std::move(variant));
    }
    if (chosen.empty()) {
        if (!wanted.empty())
            args.fail("--variants: none of them is a variant of backend " + quote(backend));
        throw BackendUnavailable("the " + backend + " backend offers no lab variants in this build");
    }
    return chosen;
}

} // namespace

int labCommand(const Context& context) {
    using namespace flags::lab;
    const ParsedArgs args = parseArgs(flags::kLabFlags, context.args);

    const int threads = static_cast<int>(args.integer(kThreads, 0, 0, 4096));
    if (args.has(kList))
        return listCommand(context, offeredVariants(context, threads));
    if (const auto key = args.value(kExplain))
        return explainCommand(context, offeredVariants(context, threads), *key);
    if (args.has(kB) && !args.has(kA))
        args.fail(args.spelling(kB) + " needs --a (the lab counts a x b)");

    LabInputs inputs;
    inputs.seed = args.unsignedInteger(kSeed).value_or(1);
    if (args.has(kN)) {
        if (args.has(kA))
            args.fail("--n sets the size of the generated catalog; not with " + args.spelling(kA));
        // Below 2 there is no pair to count: the range names the problem.
        inputs.points = static_cast<std::size_t>(*args.integer(kN, 2, 1'000'000'000));
    }
    if (const auto data = args.value(kA)) {
        const ReadOptions read = readOptionsFrom(args);
        inputs.first = loadCatalog(*data, read);
        if (const auto random = args.value(kB))
            inputs.second = loadCatalog(*random, read);
        const std::size_t smallest =
            inputs.second ? std::min(inputs.first->size(), inputs.second->size())
                          : inputs.first->size();
        if (inputs.first->size() < 2 && !inputs.second)
            throw ConfigError(args.spelling(kA) + ": " + quote(*data) + " holds " +
                              std::to_string(inputs.first->size()) +
                              " point(s); a count needs two");
        if (smallest == 0)
            throw ConfigError(args.spelling(kB) + ": a cross count needs points in both catalogs");
    }
    const bool binsChosen = binsGiven(args);
    const bool json = args.has(kJson);

    if (const auto demo = args.value(kDemo)) {
        if (*demo != "precision" && *demo != "overflow")
            args.fail("--demo: " + quote(*demo) + " is not a demonstration (precision, overflow)");
        if (args.has(kVariants) || args.has(kBackend) || args.has(kRepeat))
            args.fail("--demo runs on the CPU alone: not with --variants, --backend or --repeat");
        return *demo == "precision"
                   ? precisionDemoCommand(context, inputs, binsChosen ? binSpecFrom(args)
                                                                     : lab::precisionDemoBins(),
                                          json)
                   : overflowDemoCommand(context, inputs,
                                         binsChosen ? binSpecFrom(args) : lab::overflowDemoBins(),
                                         threads, json);
    }

    const Binning binning(binSpecFrom(args));
    const int repeats = static_cast<int>(args.integer(kRepeat, 1, 1, 1000));
    const lab::LabVariantList variants =
        chooseVariants(args, context, offeredVariants(context, threads));
    if (!inputs.first)
        inputs.first = std::make_shared<const Catalog>(lab::generatedLabCatalog(
            inputs.points ? inputs.points : lab::kDefaultLabPoints, inputs.seed));

    ProgressBar bar(context.err, context.errIsTerminal && !json && !args.has(kQuiet), "lab");
    const lab::LabReport report = lab::runLab(
        variants, *inputs.first, inputs.second.get(), binning, repeats,
        [&](int done, int total) {
            bar.update(total > 0 ? static_cast<double>(done) / total : 1.0, 0);
        },
        context.cancelRequested);
    bar.finish();

    const LabSetup setup{inputs, binning, repeats};
    if (json)
        printLabJson(context.out, report, setup);
    else
        printLabTable(context.out, report, setup);
    // An exact variant that differs from the reference is a bug, not a lesson: say so.
    int broken = 0;
    for (const lab::LabRow& row : report.rows)
        if (row.error.empty() && row.expectedExact && row.wrongBins > 0) {
            printNotice(context.err, row.key + " should equal the reference but differs in " +
                                         std::to_string(row.wrongBins) + " bins");
            ++broken;
        }
    return broken > 0 ? kExitInternal : kExitOk;
}

} // namespace tpacf::cli
