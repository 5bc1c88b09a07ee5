// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/bench_report.h"

#include "cli/number_text.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "tpacf/version.h"

#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace tpacf::cli {

std::string BenchSetup::describe() const {
    std::string text = std::to_string(n);
    text += clustered ? " clustered (Soneira-Peebles) data points and uniform randoms"
                      : " uniform points";
    text += " per catalog, ";
    text += footprint.shape == Footprint::Shape::FullSky ? std::string("full sky")
                                                         : footprint.describe();
    if (weighted)
        text += ", weighted (w uniform in [0.5, 1.5])";
    return text;
}

namespace {

double pairsPerSecond(std::uint64_t pairs, double seconds) {
    return seconds > 0 ? static_cast<double>(pairs) / seconds : 0.0;
}

void printTable(std::ostream& out, const std::vector<Configuration>& configurations) {
    char line[320];
    std::snprintf(line, sizeof line, "%-8s %-9s %-9s %-6s %-7s %18s %12s %12s %10s  %s\n",
                  "backend", "precision", "kernel", "count", "culling", "pairs", "median wall",
                  "device time", "pairs/s", "device");
    out << line;
    for (const auto& configuration : configurations) {
        if (configuration.skipped) {
            std::snprintf(line, sizeof line, "%-8s %-9s skipped: %s\n",
                          configuration.backend.c_str(), configuration.precision.c_str(),
                          configuration.reason.c_str());
            out << line;
            continue;
        }
        for (const auto& m : configuration.measurements) {
            const std::string device =
                m.medianDevice ? formatSeconds(*m.medianDevice) : std::string("-");
            std::snprintf(line, sizeof line, "%-8s %-9s %-9s %-6s %-7s %18s %12s %12s %10s  %s\n",
                          configuration.backend.c_str(), configuration.precision.c_str(),
                          configuration.kernel.empty() ? "-" : configuration.kernel.c_str(),
                          m.kind.c_str(), m.culled ? "on" : "off", withThousands(m.pairs).c_str(),
                          formatSeconds(m.medianWall).c_str(), device.c_str(),
                          formatRate(pairsPerSecond(m.pairs, m.medianWall)).c_str(),
                          configuration.device.c_str());
            out << line;
        }
    }
}

std::string jsonArray(const std::vector<double>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + jsonNumber(values[i]);
    return text + "]";
}

} // namespace

void printBenchJson(std::ostream& out, const std::vector<Configuration>& configurations,
                    const BenchSetup& setup, const Binning& binning, int mpiRanks) {
    const std::string& cudaTuning = setup.cudaTuning;
    out << "{\n";
    out << "  \"tool\": \"tpacf bench\",\n";
    out << "  \"version\": " << jsonString(version()) << ",\n";
    out << "  \"points\": " << setup.n << ",\n";
    out << "  \"footprint\": " << jsonString(setup.footprint.describe()) << ",\n";
    out << "  \"data\": " << jsonString(setup.clustered ? "clustered" : "uniform") << ",\n";
    out << "  \"clustering\": ";
    if (setup.clustered)
        out << "{\"model\": \"Soneira-Peebles\", \"levels\": " << setup.mock.levels
            << ", \"eta\": " << setup.mock.eta << ", \"lambda\": " << jsonNumber(setup.mock.lambda)
            << ", \"outer_radius_deg\": " << jsonNumber(setup.mock.outerRadiusDeg) << "},\n";
    else
        out << "null,\n";
    out << "  \"culling_requested\": " << jsonString(cullingModeName(setup.culling)) << ",\n";
    out << "  \"weighted\": " << (setup.weighted ? "true" : "false") << ",\n";
    out << "  \"cuda_tuning\": " << jsonString(cudaTuning.empty() ? "default" : cudaTuning)
        << ",\n";
    out << "  \"bins\": {\"count\": " << binning.count()
        << ", \"description\": " << jsonString(binning.spec().describe()) << "},\n";
    out << "  \"sets\": " << setup.sets << ",\n";
    out << "  \"mpi_ranks\": " << mpiRanks << ",\n";
    out << "  \"repeat\": " << setup.repeats << ",\n";
    out << "  \"warmup\": " << (setup.warmUp ? 1 : 0) << ",\n";
    out << "  \"seed\": " << setup.seed << ",\n";
    out << "  \"results\": [";
    for (std::size_t c = 0; c < configurations.size(); ++c) {
        const auto& configuration = configurations[c];
        out << (c ? ",\n" : "\n") << "    {\"backend\": " << jsonString(configuration.backend)
            << ", \"precision\": " << jsonString(configuration.precision);
        if (configuration.skipped) {
            out << ", \"status\": \"skipped\", \"reason\": " << jsonString(configuration.reason)
                << "}";
            continue;
        }
        out << ", \"status\": \"ok\", \"kernel\": "
            << (configuration.kernel.empty() ? std::string("null")
                                             : jsonString(configuration.kernel))
            << ", \"device\": " << jsonString(configuration.device) << ", \"notes\": [";
        for (std::size_t i = 0; i < configuration.notes.size(); ++i)
            out << (i ? ", " : "") << jsonString(configuration.notes[i]);
        out << "], \"measurements\": [";
        for (std::size_t i = 0; i < configuration.measurements.size(); ++i) {
            const auto& m = configuration.measurements[i];
            out << (i ? ",\n" : "\n") << "      {\"count\": " << jsonString(m.kind)
                << ", \"culling\": " << jsonString(m.culled ? "on" : "off")
                << ", \"tasks\": " << m.taskCount << ", \"pairs\": " << m.pairs
                << ", \"median_seconds\": " << jsonNumber(m.medianWall)
                << ", \"pairs_per_second\": " << jsonNumber(pairsPerSecond(m.pairs, m.medianWall))
                << ", \"device_median_seconds\": "
                << (m.medianDevice ? jsonNumber(*m.medianDevice) : "null")
                << ", \"device_pairs_per_second\": "
                << (m.medianDevice ? jsonNumber(pairsPerSecond(m.pairs, *m.medianDevice)) : "null")
                << ", \"seconds\": " << jsonArray(m.wallSeconds)
                << ", \"device_seconds\": " << jsonArray(m.deviceSeconds) << "}";
        }
        out << "\n    ]}";
    }
    out << "\n  ]\n}\n";
}

void printBenchText(std::ostream& out, const std::vector<Configuration>& configurations,
                    const BenchSetup& setup, const Binning& binning, int mpiRanks) {
    out << "tpacf bench: " << setup.describe() << ", "
        << describeBins(binning.spec(), binning.count()) << ", culling "
        << cullingModeName(setup.culling) << ", median of " << setup.repeats
        << (setup.repeats == 1 ? " run" : " runs")
        << (setup.warmUp ? " after 1 warm-up" : ", no warm-up") << ", seed " << setup.seed;
    if (!setup.cudaTuning.empty())
        out << ", CUDA tuning: " << setup.cudaTuning;
    if (mpiRanks > 1)
        out << ", across " << mpiRanks
            << " MPI ranks (each counts a share; the wall time is the slowest rank's)";
    out << '\n';
    if (setup.sets > 0)
        out << "batch = DD + " << setup.sets << " DR_i + " << setup.sets
            << " RR_i in one countBatch\n";
    out << '\n';
    printTable(out, configurations);
    for (const auto& configuration : configurations)
        for (const std::string& note : configuration.notes)
            out << "note (" << configuration.backend << ' ' << configuration.precision
                << "): " << note << '\n';
}

} // namespace tpacf::cli
