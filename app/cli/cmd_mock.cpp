// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf mock: a Soneira-Peebles clustered catalog and/or uniform randoms over a footprint.
#include "cli/args.h"
#include "cli/context.h"
#include "cli/file_plan.h"
#include "cli/flag_help.h"
#include "cli/options.h"
#include "cli/output.h"
#include "tool_flags.h"
#include "tpacf/mock.h"
#include "tpacf/sky_mask.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>

namespace tpacf::cli {

std::string mockHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf mock --n N [--seed S] --output data.txt
                  [--randoms M --random-output r.txt [--random-seed S2]] [--footprint F]
                  [clustering] [--quiet]
       tpacf mock --randoms M --random-output r.txt [--random-seed S2]
                  --mask MASK.fits [--mask-column C]

Writes a clustered mock catalog (Soneira-Peebles hierarchy: w(theta) is a power law of known
slope between the innermost and the outermost scale) and/or a catalog of uniform random
points over the same footprint, as ASCII "ra dec" in degrees. The same seed gives the same file.
Either part may be left out: --randoms alone writes only randoms. With --mask (a HEALPix map
or a MOC) the randoms are drawn inside the mask, thinned by its completeness, and the file's
header names the mask and the seed.

)" + flagHelp(flags::kMockFlags, backends) + R"(
Examples:
  tpacf mock --n 5000 --seed 1 --footprint box:150,190,0,40 --output data.txt \
             --randoms 10000 --random-output randoms.txt --random-seed 2
  tpacf mock --randoms 1000000 --random-output randoms.txt --mask footprint.fits
)";
}

int mockCommand(const Context& context) {
    using namespace flags::mock;
    const ParsedArgs args = parseArgs(flags::kMockFlags, context.args);

    // 10^9 points is 16 GB of coordinates: beyond that a typo is likelier than a wish.
    constexpr std::int64_t kMaxPoints = 1'000'000'000;
    const auto count = args.integer(kN, 1, kMaxPoints);
    const auto randomCount = args.integer(kRandoms, 1, kMaxPoints);
    if (!count && !randomCount)
        args.fail("give --n N (clustered mock) and/or --randoms M (uniform randoms)");
    if (count && !args.has(kOutput))
        args.fail("--output is required with --n");
    if (!count && args.has(kOutput))
        args.fail("--output needs --n (the number of mock points)");
    if (randomCount && !args.has(kRandomOutput))
        args.fail("--random-output is required with --randoms");
    if (!randomCount && args.has(kRandomOutput))
        args.fail("--random-output needs --randoms (the number of random points)");

    if (args.has(kMask) && count)
        args.fail("--mask draws randoms only (--randoms M); a clustered mock is cut to a mask by "
                  "tpacf run --mask, or made over --footprint");
    if (args.has(kMask) && args.has(flags::kFootprint))
        args.fail("--mask and --footprint both say where the randoms lie: give one");
    if (args.has(kMaskColumn) && !args.has(kMask))
        args.fail("--mask-column needs --mask FILE");

    MockParams params;
    params.seed = args.unsignedInteger(kSeed).value_or(1);
    params.footprint = footprintFrom(args);
    applyClusteringOptions(args, params);
    const std::uint64_t randomSeed =
        args.unsignedInteger(kRandomSeed).value_or(params.seed + 1);

    // Both files checked before either is generated: a clash must not cost the first one.
    FilePlan files;
    if (count)
        files.output("--output", args.required(kOutput));
    if (randomCount)
        files.output("--random-output", args.required(kRandomOutput));
    if (const auto maskPath = args.value(kMask))
        files.input("--mask", *maskPath);
    files.check();

    // --quiet: the files all the same, no summary.
    std::ostream discard(nullptr);
    std::ostream& out = args.has(kQuiet) ? discard : context.out;
    if (count) {
        const std::string path = args.required(kOutput);
        params.count = static_cast<std::size_t>(*count);
        const Catalog mock = generateClusteredMock(params, path);
        writeCatalogAscii(path, mock);
        out << "wrote " << mock.size() << " clustered points to " << path << " ("
            << params.footprint.describe() << ", seed " << params.seed << ")\n";
        const double slope = mockExpectedSlope(params);
        const double outer = params.outerRadiusDeg;
        const double inner = outer / std::pow(params.lambda, params.levels - 1);
        char line[200];
        std::snprintf(line, sizeof line,
                      "expected w(theta) slope: %.3f (w ~ theta^%.3f) on scales between the "
                      "innermost and outermost sphere radii, %.3g to %.3g deg\n",
                      slope, slope, inner, outer);
        out << line;
    }
    if (randomCount && args.has(kMask)) {
        const std::string path = args.required(kRandomOutput);
        const SkyMask mask =
            readSkyMask(args.required(kMask), {args.value(kMaskColumn).value_or(""), ""});
        const Catalog randoms = generateRandomsInMask(static_cast<std::size_t>(*randomCount),
                                                      mask, randomSeed, path);
        writeCatalogAscii(path, randoms, {maskRandomsNote(mask, randomSeed, randoms.size())});
        out << "wrote " << randoms.size() << " random points inside the mask to " << path << " ("
            << mask.description() << ", seed " << randomSeed << ")\n";
    } else if (randomCount) {
        const std::string path = args.required(kRandomOutput);
        const Catalog randoms = generateUniformRandoms(static_cast<std::size_t>(*randomCount),
                                                       params.footprint, randomSeed, path);
        writeCatalogAscii(path, randoms);
        out << "wrote " << randoms.size() << " uniform random points to " << path << " ("
            << params.footprint.describe() << ", seed " << randomSeed << ")\n";
    }
    return 0;
}

} // namespace tpacf::cli
