// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf lab's report: the table for people, JSON for scripts (lab_output.h).
#include "cli/lab_output.h"

#include "cli/number_text.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "tpacf/version.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace tpacf::cli {

std::string wrapText(const std::string& text, std::size_t width) {
    std::string wrapped, line;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            wrapped += line + '\n';
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        start = end + 1;
    }
    return wrapped + line;
}

namespace {

std::string catalogsText(const LabSetup& setup, const lab::LabReport& report) {
    const LabInputs& inputs = setup.inputs;
    std::string text;
    if (inputs.points > 0 || !inputs.first->origin().known())
        text = std::to_string(inputs.first->size()) + " generated points (" +
               inputs.first->name() + ", seed " + std::to_string(inputs.seed) + ")";
    else
        text = inputs.first->name() + " (" + std::to_string(inputs.first->size()) + " points)";
    if (inputs.second)
        text += " x " + inputs.second->name() + " (" + std::to_string(inputs.second->size()) +
                " points), cross count";
    else
        text += ", auto count";
    return text + ": " + withThousands(report.pairs) + " pairs";
}

std::string speedupText(double speedup) {
    if (speedup <= 0)
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, speedup < 10 ? "%.2fx" : "%.0fx", speedup);
    return text;
}

std::string percentText(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g%%", 100.0 * fraction);
    return text;
}

std::string verdictText(const lab::LabRow& row) {
    if (row.wrongBins == 0)
        return "exact";
    return std::to_string(row.wrongBins) + " bins wrong" +
           (row.expectedExact ? " (A BUG)" : " (expected)") + ", max " +
           percentText(row.maxRelativeError);
}

} // namespace

void printLabTable(std::ostream& out, const lab::LabReport& report, const LabSetup& setup) {
    out << "Kernel Lab: " << catalogsText(setup, report) << "\n";
    out << "bins: " << describeBins(setup.binning.spec(), setup.binning.count())
        << "; reference: the CPU backend in double; time: best of " << setup.repeats
        << (setup.repeats == 1 ? " run" : " runs") << "\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%4s  %-24s %-7s %10s %10s %8s %8s  %-32s %s\n", "rung",
                  "key", "backend", "time", "pairs/s", "x prev", "x first", "counts", "notes");
    out << line;
    for (const lab::LabRow& row : report.rows) {
        if (!row.error.empty()) {
            std::snprintf(line, sizeof line, "%4d  %-24s %-7s  error: %s\n", row.rung,
                          row.key.c_str(), row.backend.c_str(), row.error.c_str());
            out << line;
            continue;
        }
        std::string notes;
        for (const std::string& note : row.notes)
            notes += (notes.empty() ? "" : "; ") + note;
        if (row.deviceSeconds >= 0)
            notes = "device " + formatSeconds(row.deviceSeconds) + (notes.empty() ? "" : "; ") +
                    notes;
        std::snprintf(line, sizeof line, "%4d  %-24s %-7s %10s %10s %8s %8s  %-32s %s\n",
                      row.rung, row.key.c_str(), row.backend.c_str(),
                      formatSeconds(row.seconds).c_str(), formatRate(row.pairsPerSecond).c_str(),
                      speedupText(row.speedupOverPrevious).c_str(),
                      speedupText(row.speedupOverFirst).c_str(), verdictText(row).c_str(),
                      notes.c_str());
        out << line;
    }

    // Where each inexact variant goes wrong: the lesson, bin by bin.
    const std::string unit(angleUnitName(setup.binning.unit()));
    for (const lab::LabRow& row : report.rows) {
        if (!row.error.empty() || row.wrongBins == 0)
            continue;
        out << "\n" << row.key << " differs from the reference in " << row.wrongBins
            << (row.wrongBins == 1 ? " bin" : " bins") << ":\n";
        std::snprintf(line, sizeof line, "  %4s  %-24s %14s %14s %14s %9s\n", "bin",
                      ("range (" + unit + ")").c_str(), "reference", "variant", "difference",
                      "relative");
        out << line;
        for (std::size_t bin = 0; bin < row.difference.size(); ++bin) {
            if (row.difference[bin] == 0)
                continue;
            const std::uint64_t reference = report.reference[bin];
            const auto variant = static_cast<std::uint64_t>(
                static_cast<std::int64_t>(reference) + row.difference[bin]);
            const std::string range =
                "[" + edgeText(report.edges[bin]) + ", " + edgeText(report.edges[bin + 1]) + ")";
            std::snprintf(line, sizeof line, "  %4zu  %-24s %14s %14s %14lld %9s\n", bin,
                          range.c_str(), withThousands(reference).c_str(),
                          withThousands(variant).c_str(),
                          static_cast<long long>(row.difference[bin]),
                          reference > 0
                              ? percentText(static_cast<double>(row.difference[bin]) /
                                            static_cast<double>(reference))
                                    .c_str()
                              : "-");
            out << line;
        }
    }
}

void printLabJson(std::ostream& out, const lab::LabReport& report, const LabSetup& setup) {
    const auto numbers = [](const auto& values) {
        std::string text = "[";
        for (std::size_t i = 0; i < values.size(); ++i)
            text += (i ? ", " : "") + std::to_string(values[i]);
        return text + "]";
    };
    const auto doubles = [](const auto& values) {
        std::string text = "[";
        for (std::size_t i = 0; i < values.size(); ++i)
            text += (i ? ", " : "") + jsonNumber(values[i]);
        return text + "]";
    };
    const LabInputs& inputs = setup.inputs;
    out << "{\n";
    out << "  \"tool\": \"tpacf lab\",\n";
    out << "  \"version\": " << jsonString(version()) << ",\n";
    out << "  \"catalogs\": [" << jsonString(inputs.first->name());
    if (inputs.second)
        out << ", " << jsonString(inputs.second->name());
    out << "],\n";
    out << "  \"points\": [" << inputs.first->size();
    if (inputs.second)
        out << ", " << inputs.second->size();
    out << "],\n";
    out << "  \"generated\": " << (inputs.points > 0 || !inputs.first->origin().known() ? "true" : "false")
        << ",\n";
    out << "  \"seed\": " << inputs.seed << ",\n";
    out << "  \"count\": " << jsonString(inputs.second ? "cross" : "auto") << ",\n";
    out << "  \"pairs\": " << report.pairs << ",\n";
    out << "  \"repeat\": " << setup.repeats << ",\n";
    out << "  \"bins\": {\"count\": " << setup.binning.count()
        << ", \"description\": " << jsonString(setup.binning.spec().describe())
        << ", \"unit\": " << jsonString(angleUnitName(setup.binning.unit()))
        << ", \"edges\": " << doubles(report.edges) << "},\n";
    out << "  \"reference\": " << numbers(report.reference) << ",\n";
    out << "  \"rows\": [";
    for (std::size_t r = 0; r < report.rows.size(); ++r) {
        const lab::LabRow& row = report.rows[r];
        out << (r ? ",\n" : "\n") << "    {\"key\": " << jsonString(row.key)
            << ", \"name\": " << jsonString(row.name) << ", \"backend\": " << jsonString(row.backend)
            << ", \"rung\": " << row.rung
            << ", \"expected_exact\": " << (row.expectedExact ? "true" : "false");
        if (!row.error.empty()) {
            out << ", \"error\": " << jsonString(row.error) << "}";
            continue;
        }
        std::string notes = "[";
        for (std::size_t i = 0; i < row.notes.size(); ++i)
            notes += (i ? ", " : "") + jsonString(row.notes[i]);
        notes += "]";
        out << ", \"error\": null"
            << ", \"seconds\": " << jsonNumber(row.seconds) << ", \"device_seconds\": "
            << (row.deviceSeconds >= 0 ? jsonNumber(row.deviceSeconds) : std::string("null"))
            << ", \"pairs_per_second\": " << jsonNumber(row.pairsPerSecond)
            << ", \"speedup_over_previous\": " << jsonNumber(row.speedupOverPrevious)
            << ", \"speedup_over_first\": " << jsonNumber(row.speedupOverFirst)
            << ", \"exact\": " << (row.wrongBins == 0 ? "true" : "false")
            << ", \"wrong_bins\": " << row.wrongBins
            << ", \"max_relative_error\": " << jsonNumber(row.maxRelativeError)
            << ", \"difference\": " << numbers(row.difference) << ", \"notes\": " << notes << "}";
    }
    out << "\n  ]\n}\n";
}

} // namespace tpacf::cli
