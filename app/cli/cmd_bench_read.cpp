// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf bench --read FILE: the reading side of the end-to-end time, measured on its own so
// that a change to the readers has a reproducible figure (best of R reads, page cache warm).
#include "cli/bench_read.h"
#include "bench_flags.h"
#include "cli/output.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <ostream>
#include <string>
#include <system_error>

namespace tpacf::cli {

int benchReadCommand(const ParsedArgs& args, const Context& context) {
    using namespace flags::bench;
    const std::string path = args.required(kRead);
    // Every flag but those --read takes shapes the pair count, which --read does not run.
    for (const FlagGroup* group : flags::kBenchFlags.groups)
        for (const Flag* flag : group->flags)
            if (flag != &kRead && flag != &kRepeat && flag != &kThreads && flag != &kJson &&
                flag != &kQuiet && args.has(*flag))
                args.fail(args.spelling(*flag) + " shapes the pair-counting bench; --read times "
                                                 "reading a catalog only");
    const int repeats = static_cast<int>(args.integer(kRepeat, 3, 1, 1000));
    ReadOptions options;
    options.threads = static_cast<int>(args.integer(kThreads, 0, 0, 4096));
    options.cancelRequested = context.cancelRequested;
    std::error_code error;
    const std::uintmax_t bytes = std::filesystem::file_size(path, error);

    // The first read warms the page cache (as a second run of a job finds it) and is not timed.
    std::size_t points = readCatalog(path, options).size();
    double best = std::numeric_limits<double>::infinity();
    for (int run = 0; run < repeats; ++run) {
        const auto start = std::chrono::steady_clock::now();
        points = readCatalog(path, options).size();
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double megabytes = error ? 0.0 : static_cast<double>(bytes) / 1e6;
    const std::size_t threads =
        options.threads > 0 ? static_cast<std::size_t>(options.threads) : hardwareThreads();
    if (args.has(kJson)) {
        context.out << "{\"tool\": \"tpacf bench --read\", \"file\": " << jsonString(path)
                    << ", \"bytes\": " << (error ? 0 : bytes) << ", \"points\": " << points
                    << ", \"threads\": " << threads << ", \"repeat\": " << repeats
                    << ", \"best_seconds\": " << jsonNumber(best)
                    << ", \"megabytes_per_second\": " << jsonNumber(megabytes / best) << "}\n";
        return 0;
    }
    char line[256];
    std::snprintf(line, sizeof line,
                  "%.1f MB, %zu points, %zu threads: best of %d reads %s, %.1f MB/s\n", megabytes,
                  points, threads, repeats, formatSeconds(best).c_str(), megabytes / best);
    context.out << "tpacf bench --read " << path << " (readCatalog, after 1 warm-up read)\n"
                << line;
    return 0;
}

} // namespace tpacf::cli
