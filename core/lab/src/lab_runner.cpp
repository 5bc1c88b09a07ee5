// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel Lab's runner: the reference counted once, every variant timed and compared with it
// bin by bin, and the variants' code excerpts read from the source they are built from.
#include "cpu_rungs.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf/lab.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace tpacf::lab {

LabVariantList cpuLabVariants(int threads) {
    LabVariantList variants;
    variants.push_back(detail::makeNaiveRung());
    variants.push_back(detail::makeChord2Rung());
    variants.push_back(detail::makeVectorisedRung());
    variants.push_back(detail::makeThreadsRung(threads));
    variants.push_back(detail::makeCulledRung(threads));
    return variants;
}

LabVariantList allLabVariants(const LabRegistry& registry, int cpuThreads) {
    LabVariantList variants = cpuLabVariants(cpuThreads);
    for (const auto& provider : registry.providers())
        for (auto& variant : provider->variants())
            variants.push_back(std::move(variant));
    return variants;
}

namespace {

/// Fills the comparison of `row` with the reference: differences, wrong bins, largest relative
/// error over the bins the reference holds pairs in.
void compare(LabRow& row, const PairCounts& counts, const PairCounts& reference) {
    if (counts.size() != reference.size())
        throw ConfigError("variant " + row.key + " returned " + std::to_string(counts.size()) +
                          " bins, expected " + std::to_string(reference.size()));
    row.difference.resize(counts.size());
    for (std::size_t bin = 0; bin < counts.size(); ++bin) {
        // Both below 2^63 (a bin holds at most N·M pairs), so the difference fits.
        const auto difference =
            static_cast<std::int64_t>(counts[bin]) - static_cast<std::int64_t>(reference[bin]);
        row.difference[bin] = difference;
        if (difference == 0)
            continue;
        ++row.wrongBins;
        if (reference[bin] > 0)
            row.maxRelativeError =
                std::max(row.maxRelativeError, std::fabs(static_cast<double>(difference)) /
                                                   static_cast<double>(reference[bin]));
    }
}

/// Speed-ups over the row before of the same backend and over that backend's first row,
/// skipping rows that could not run.
void fillSpeedups(std::vector<LabRow>& rows) {
    std::map<std::string, const LabRow*> firstOf, previousOf;
    for (LabRow& row : rows) {
        if (!row.error.empty() || row.seconds <= 0)
            continue;
        if (const auto first = firstOf.find(row.backend); first != firstOf.end()) {
            row.speedupOverFirst = first->second->seconds / row.seconds;
            row.speedupOverPrevious = previousOf[row.backend]->seconds / row.seconds;
        } else {
            firstOf[row.backend] = &row;
        }
        previousOf[row.backend] = &row;
    }
}

} // namespace

LabReport runLab(const LabVariantList& variants, const Catalog& first, const Catalog* second,
                 const Binning& binning, int repeats,
                 const std::function<void(int done, int total)>& progress,
                 const std::atomic<bool>* cancel) {
    LabReport report;
    report.pairs = CountTask{&first, second}.pairTotal();
    report.edges.assign(binning.edges().begin(), binning.edges().end());
    {
        // Culling as the product chooses: identical counts either way.
        CpuPairCounter reference;
        CountControl control;
        control.cancelRequested = cancel;
        const CountTask task{&first, second};
        report.reference = reference.countBatch({&task, 1}, binning, control).front().raw;
    }
    const int total = static_cast<int>(variants.size());
    if (progress)
        progress(0, total);
    for (const auto& variant : variants) {
        detail::throwIfCancelled(cancel);
        LabRow row;
        row.key = variant->key();
        row.name = variant->name();
        row.backend = variant->backend();
        row.rung = variant->rung();
        row.expectedExact = variant->exact();
        try {
            LabCounts counts = variant->count(first, second, binning, repeats, cancel);
            compare(row, counts.counts, report.reference);
            row.seconds = counts.seconds;
            row.deviceSeconds = counts.deviceSeconds;
            row.pairsPerSecond =
                counts.seconds > 0 ? static_cast<double>(report.pairs) / counts.seconds : 0.0;
            row.notes = std::move(counts.notes);
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& error) {
            const std::string message = error.what();
            row = LabRow{};
            row.key = variant->key();
            row.name = variant->name();
            row.backend = variant->backend();
            row.rung = variant->rung();
            row.expectedExact = variant->exact();
            row.error = message.empty() ? "failed" : message;
        }
        report.rows.push_back(std::move(row));
        if (progress)
            progress(static_cast<int>(report.rows.size()), total);
    }
    fillSpeedups(report.rows);
    return report;
}

std::string sourceExcerpt(const std::string& sourceRoot, const std::string& sourceFile,
                          const std::string& key) {
    if (sourceRoot.empty() || sourceFile.empty() || key.empty())
        return {};
    std::ifstream in(std::filesystem::path(sourceRoot) / sourceFile);
    if (!in)
        return {};
    const std::string begin = "[lab:excerpt " + key + "]";
    std::vector<std::string> lines;
    bool inside = false, closed = false;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!inside) {
            inside = line.find(begin) != std::string::npos;
            continue;
        }
        if (line.find("[lab:end]") != std::string::npos) {
            closed = true;
            break;
        }
        lines.push_back(line);
    }
    if (!closed)
        return {};
    // Indented as in the file, less the indent every line shares: the excerpt starts at column 0.
    std::size_t common = std::string::npos;
    for (const std::string& line : lines)
        if (const std::size_t indent = line.find_first_not_of(' '); indent != std::string::npos)
            common = std::min(common, indent);
    std::string text;
    for (const std::string& line : lines) {
        text += line.size() > common && common != std::string::npos ? line.substr(common) : "";
        text += '\n';
    }
    return text;
}

} // namespace tpacf::lab
