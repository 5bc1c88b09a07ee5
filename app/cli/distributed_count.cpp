// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/distributed_count.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace tpacf::cli {

namespace {

std::string hexBits(double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
    return text;
}

// One line per thing that must be alike on every rank for the shares to add up, each named so
// that a difference can be reported as it is.
std::vector<std::string> layoutLines(const CountStore& store) {
    std::vector<std::string> lines;
    std::string edges;
    for (const double edge : store.chord2Edges)
        edges += hexBits(edge);
    lines.push_back("bins " + store.binsDescription + " (chord2 " + edges + ")");
    lines.push_back("jackknife regions " + std::to_string(store.regionCount));
    lines.push_back("backend " + store.backend + ", " +
                    std::string(precisionName(store.precision)) + " precision");
    lines.push_back(std::string("culling ") + (store.culled ? "on" : "off"));
    lines.push_back("split into " + std::to_string(store.shareParts) + " parts");
    for (std::size_t i = 0; i < store.catalogs.size(); ++i) {
        const CountCatalog& catalog = store.catalogs[i];
        lines.push_back("catalog " + std::to_string(i + 1) + " (" + catalog.name + ": " +
                        std::to_string(catalog.size) + " points, content " + catalog.content.hex() +
                        (catalog.regions.empty() ? "" : ", regions " + catalog.regions.hex()) +
                        ")");
    }
    for (const StoredCount& count : store.counts)
        lines.push_back("count " + count.label + " of catalogs " + std::to_string(count.first + 1) +
                        (count.second ? " x " + std::to_string(*count.second + 1) : "") + ", " +
                        std::to_string(count.counts.raw.size()) + " bins" +
                        (count.counts.isWeighted() ? ", weighted" : "") +
                        (count.regions ? ", by region" : ""));
    return lines;
}

std::string joinLines(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines)
        text += line + '\n';
    return text;
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// Rank 0: throws ConfigError for the first rank whose layout differs from its own.
void requireSameLayout(RankGroup& ranks, const std::vector<std::string>& mine) {
    const std::vector<std::string> all = ranks.gatherToRoot(joinLines(mine));
    if (!ranks.isRoot())
        return;
    for (std::size_t r = 1; r < all.size(); ++r) {
        const std::vector<std::string> theirs = splitLines(all[r]);
        if (theirs == mine)
            continue;
        std::size_t k = 0;
        while (k < mine.size() && k < theirs.size() && mine[k] == theirs[k])
            ++k;
        const std::string ours = k < mine.size() ? mine[k] : "nothing";
        const std::string other = k < theirs.size() ? theirs[k] : "nothing";
        throw ConfigError("rank " + std::to_string(r) +
                          " counted something else than rank 0, so the ranks' shares do not add "
                          "up: rank 0 has " +
                          ours + ", rank " + std::to_string(r) + " has " + other +
                          " (every rank must read the same files and count with the same "
                          "backend and precision: give --backend and --precision)");
    }
}

template <typename T> void append(std::vector<T>& into, const std::vector<T>& values) {
    into.insert(into.end(), values.begin(), values.end());
}

template <typename T>
void takeBack(std::vector<T>& values, const std::vector<T>& from, std::size_t& at) {
    std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(at), values.size(), values.begin());
    at += values.size();
}

} // namespace

void sumCountStoresToRoot(RankGroup& ranks, CountStore& store) {
    requireSameLayout(ranks, layoutLines(store));
    // Every number of every count in one array per type, in the store's order, so that one
    // reduction of each carries the whole run.
    std::vector<std::uint64_t> integers;
    std::vector<double> sums;
    for (const StoredCount& count : store.counts) {
        append(integers, count.counts.raw);
        append(sums, count.counts.weighted);
        if (count.regions) {
            append(integers, count.regions->total);
            append(integers, count.regions->touching);
            append(integers, count.regions->within);
            append(sums, count.regions->weightedTotal);
            append(sums, count.regions->weightedTouching);
            append(sums, count.regions->weightedWithin);
        }
    }
    ranks.sumToRoot(integers);
    ranks.sumToRoot(sums);
    if (!ranks.isRoot())
        return;
    std::size_t atInteger = 0, atSum = 0;
    for (StoredCount& count : store.counts) {
        takeBack(count.counts.raw, integers, atInteger);
        takeBack(count.counts.weighted, sums, atSum);
        if (count.regions) {
            takeBack(count.regions->total, integers, atInteger);
            takeBack(count.regions->touching, integers, atInteger);
            takeBack(count.regions->within, integers, atInteger);
            takeBack(count.regions->weightedTotal, sums, atSum);
            takeBack(count.regions->weightedTouching, sums, atSum);
            takeBack(count.regions->weightedWithin, sums, atSum);
        }
    }
    store.sharesHeld.clear();
    for (std::uint32_t part = 0; part < store.shareParts; ++part)
        store.sharesHeld.push_back(part);
}

void sumTaskCountsToRoot(RankGroup& ranks, TaskCounts& counts) {
    requireSameLayout(ranks, {std::to_string(counts.raw.size()) + " bins" +
                              (counts.isWeighted() ? ", weighted" : "")});
    ranks.sumToRoot(counts.raw);
    ranks.sumToRoot(counts.weighted);
}

CorrelationResult estimateFromRanks(RankGroup& ranks, const CorrelationJob& job,
                                    const CorrelationResult& mine, const BackendRegistry& backends,
                                    double countSeconds) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::string> processes =
        ranks.gatherToRoot(describeRank(ranks, mine.backendName, mine.deviceDescription,
                                        std::string(precisionName(mine.precision))));
    if (!mine.counts)
        throw std::logic_error("a rank's job returned no counts to send");
    CountStore store = *mine.counts;
    sumCountStoresToRoot(ranks, store);
    if (!ranks.isRoot())
        return mine;
    const double sumSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    CorrelationParams params = job.params();
    params.share = WorkShare{};
    params.reusePolicy = CorrelationParams::ReusePolicy::Strict;
    params.reuse = std::make_shared<const CountStore>(std::move(store));
    CorrelationResult result = CorrelationJob(std::move(params), backends).run();
    if (result.status != JobStatus::Completed)
        throw std::logic_error("the estimate from the ranks' counts did not complete");
    // Every count was counted by this run, by the ranks together: nothing was reused.
    result.reusedCounts.clear();
    result.processes = processes;
    result.culled = mine.culled;
    std::vector<std::pair<std::string, double>> stages = mine.stageSeconds;
    stages.emplace_back("wait for the ranks, sum counts", sumSeconds);
    stages.emplace_back("estimate from the sums", result.elapsedSeconds);
    result.stageSeconds = std::move(stages);
    result.elapsedSeconds = countSeconds + result.elapsedSeconds;
    return result;
}

ProgressAcrossRanks::ProgressAcrossRanks(RankGroup& ranks)
    : m_ranks(ranks), m_latest(static_cast<std::size_t>(ranks.size())) {}

RankProgress ProgressAcrossRanks::update(const RankProgress& mine) {
    if (!m_ranks.isRoot()) {
        m_ranks.sendProgress(mine);
        return mine;
    }
    m_ranks.receiveProgress(m_latest);
    m_latest[0] = mine;
    RankProgress all;
    all.preparing = false;
    for (const RankProgress& rank : m_latest) {
        all.fraction += rank.fraction / static_cast<double>(m_latest.size());
        all.pairsDone += rank.pairsDone;
        all.pairsPerSecond += rank.pairsPerSecond;
        all.preparing = all.preparing || (rank.preparing && !rank.final);
    }
    all.final = allFinal();
    return all;
}

bool ProgressAcrossRanks::allFinal() const {
    return std::all_of(m_latest.begin(), m_latest.end(),
                       [](const RankProgress& rank) { return rank.final; });
}

void ProgressAcrossRanks::pause() {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

std::string describeRank(RankGroup& ranks, const std::string& backend, const std::string& device,
                         const std::string& precision) {
    return "rank " + std::to_string(ranks.rank()) + " on " + ranks.hostName() + ": " + backend +
           ", " + device + ", " + precision;
}

} // namespace tpacf::cli
