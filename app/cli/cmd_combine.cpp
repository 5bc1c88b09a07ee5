// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf combine: adds count files of disjoint work (the shares of one batch, from
// tpacf run --share K/N --save-counts) into one count file.
#include "cli/args.h"
#include "cli/cli_main.h"
#include "cli/context.h"
#include "cli/file_plan.h"
#include "cli/flag_help.h"
#include "cli/output.h"
#include "tool_flags.h"
#include "tpacf/count_store.h"
#include "tpacf/errors.h"

#include <ostream>
#include <string>
#include <vector>

namespace tpacf::cli {

std::string combineHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf combine PART1.counts.json PART2.counts.json ... --output total.counts.json

Adds count files of disjoint work: the parts of one batch counted by
'tpacf run ... --share K/N --save-counts partK.counts.json' (for example by the tasks of a
job array). The parts must have the same bins, the same catalogs (by content), the same
jackknife regions and the same backend, and be distinct parts of the same N. Raw counts and
region tallies add exactly. A file of all N parts is whole: 'tpacf run --reuse-counts' takes
it and computes w without counting. Count files are JSON or FITS (read as what they hold;
written as FITS for a name ending .fits, .fit or .fts), mixed freely.

)" + flagHelp(flags::kCombineFlags, backends) + R"(
Example:
  tpacf run --data d.txt --random r.txt --preset log5 --share 1/2 --save-counts p1.json
  tpacf run --data d.txt --random r.txt --preset log5 --share 2/2 --save-counts p2.json
  tpacf combine p1.json p2.json --output all.json
  tpacf run --data d.txt --random r.txt --preset log5 --reuse-counts all.json --output w.csv
)";
}

int combineCommand(const Context& context) {
    // The count files are positional; the flags go through the usual parser.
    std::vector<std::string> flagWords, inputs;
    for (std::size_t i = 0; i < context.args.size(); ++i) {
        const std::string& word = context.args[i];
        if (word.starts_with("--")) {
            flagWords.push_back(word);
            // A value of --output (or an alias of it) that does not start with "--".
            const Flag* flag = flags::kCombineFlags.find(word.substr(0, word.find('=')));
            if (flag && flag->kind != FlagKind::Switch && word.find('=') == std::string::npos &&
                i + 1 < context.args.size())
                flagWords.push_back(context.args[++i]);
        } else {
            inputs.push_back(word);
        }
    }
    using namespace flags::combine;
    const ParsedArgs args = parseArgs(flags::kCombineFlags, flagWords);
    const std::string outputPath = args.required(kOutput);
    if (inputs.empty())
        args.fail("name the count files to combine (at least one)");
    try {
        requireCountFileFormat(outputPath);
    } catch (const ConfigError& error) {
        args.fail(std::string("--output: ") + error.what());
    }

    FilePlan files;
    for (const std::string& input : inputs)
        files.input("count file", input);
    files.output("--output", outputPath);
    files.check();

    std::vector<CountStore> stores;
    for (const std::string& input : inputs)
        stores.push_back(readCountFile(input));
    CountStore total = combineCountStores(stores);
    if (!total.whole() && !args.has(kPartial)) {
        std::string missing;
        for (const std::uint32_t part : total.missingShares())
            missing += (missing.empty() ? "" : ", ") + std::to_string(part + 1);
        throw ConfigError("the count files hold " + total.describeShares() + ": part" +
                          (total.missingShares().size() == 1 ? " " : "s ") + missing +
                          " missing (add them, or --partial to write an incomplete sum)");
    }
    writeCountFile(outputPath, total);
    if (!args.has(kQuiet))
        context.out << "combined " << stores.size() << " count file"
                    << (stores.size() == 1 ? "" : "s") << " ("
                    << (total.whole() ? "all " + std::to_string(total.shareParts) +
                                            (total.shareParts == 1 ? " part" : " parts") + ", whole"
                                      : total.describeShares() + ", incomplete")
                    << ", " << total.counts.size() << " counts) into " << outputPath << '\n';
    return 0;
}

} // namespace tpacf::cli
