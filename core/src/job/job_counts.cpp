// SPDX-License-Identifier: GPL-3.0-or-later
#include "job/job_counts.h"

#include "tpacf/errors.h"

#include <string>
#include <utility>

namespace tpacf::job {

namespace {

std::size_t expectedCounts(const JobCatalogs& catalogs) {
    return 1 + (catalogs.cross() ? 3 : 2) * catalogs.randoms.size();
}

void requireCountCount(std::size_t got, const JobCatalogs& catalogs) {
    if (got != expectedCounts(catalogs))
        throw Error("the pair-count backend returned " + std::to_string(got) +
                    " histograms for " + std::to_string(expectedCounts(catalogs)) + " counts");
}

// Index of each count in countTasks order.
struct CountIndex {
    std::size_t sets;
    bool cross;
    std::size_t dr(std::size_t set) const noexcept { return 1 + set; }
    std::size_t rd(std::size_t set) const noexcept { return 1 + sets + set; }
    std::size_t rr(std::size_t set) const noexcept { return 1 + (cross ? 2 : 1) * sets + set; }
};

// Sizes and weight sums of the catalogs, the layout flags; no counts.
RawCounts layoutOf(const JobCatalogs& catalogs) {
    RawCounts raw;
    raw.cross = catalogs.cross();
    raw.weighted = catalogs.weighted();
    raw.dataSize = catalogs.data->size();
    for (const auto& random : catalogs.randoms)
        raw.randomSizes.push_back(random->size());
    if (raw.cross) {
        raw.data2Size = catalogs.data2->size();
        for (const auto& random : catalogs.randoms2)
            raw.random2Sizes.push_back(random->size());
    }
    if (raw.weighted) {
        raw.dataWeights = WeightSums::of(*catalogs.data);
        for (const auto& random : catalogs.randoms)
            raw.randomWeights.push_back(WeightSums::of(*random));
        if (raw.cross) {
            raw.data2Weights = WeightSums::of(*catalogs.data2);
            for (const auto& random : catalogs.randoms2)
                raw.random2Weights.push_back(WeightSums::of(*random));
        }
    }
    return raw;
}

WeightedCounts asWeighted(const PairCounts& raw) {
    return WeightedCounts(raw.begin(), raw.end());
}

// A count of unweighted catalogs inside a weighted job: every weight is 1, the sums are the
// counts.
void completeWeights(TaskCounts& counts) {
    if (!counts.isWeighted())
        counts.weighted = asWeighted(counts.raw);
}

void completeWeights(RegionPairCounts& counts) {
    if (counts.isWeighted())
        return;
    counts.weightedTotal = asWeighted(counts.total);
    counts.weightedTouching.assign(counts.touching.begin(), counts.touching.end());
    counts.weightedWithin.assign(counts.within.begin(), counts.within.end());
}

} // namespace

bool JobCatalogs::weighted() const noexcept {
    for (const Catalog* catalog : all())
        if (catalog && catalog->hasWeights())
            return true;
    return false;
}

std::vector<const Catalog*> JobCatalogs::all() const {
    std::vector<const Catalog*> result{data.get()};
    for (const auto& random : randoms)
        result.push_back(random.get());
    if (data2)
        result.push_back(data2.get());
    for (const auto& random : randoms2)
        result.push_back(random.get());
    return result;
}

std::vector<TaskCatalogs> taskCatalogs(const JobCatalogs& catalogs) {
    // catalogs.all(): data, R1_1..n, then in cross mode D2, R2_1..n.
    const std::size_t sets = catalogs.randoms.size();
    const auto random = [](std::size_t set) { return 1 + set; };
    const std::size_t data2 = 1 + sets;
    const auto random2 = [&](std::size_t set) {
        return catalogs.secondRandoms() ? 2 + sets + set : random(set);
    };
    std::vector<TaskCatalogs> tasks;
    tasks.push_back({0, catalogs.cross() ? std::optional<std::size_t>(data2) : std::nullopt});
    for (std::size_t set = 0; set < sets; ++set)
        tasks.push_back({0, random2(set)});
    if (catalogs.cross())
        for (std::size_t set = 0; set < sets; ++set)
            tasks.push_back({random(set), data2});
    for (std::size_t set = 0; set < sets; ++set)
        tasks.push_back({random(set), catalogs.secondRandoms()
                                          ? std::optional<std::size_t>(random2(set))
                                          : std::nullopt});
    return tasks;
}

std::vector<CountTask> countTasks(const JobCatalogs& catalogs) {
    const std::vector<const Catalog*> all = catalogs.all();
    std::vector<CountTask> tasks;
    for (const TaskCatalogs& task : taskCatalogs(catalogs))
        tasks.push_back({all[task.first], task.second ? all[*task.second] : nullptr});
    return tasks;
}

std::vector<std::string> countLabels(const JobCatalogs& catalogs) {
    const std::size_t sets = catalogs.randoms.size();
    std::vector<std::string> labels{"DD"};
    for (std::size_t set = 0; set < sets; ++set)
        labels.push_back("DR_" + std::to_string(set + 1));
    if (catalogs.cross())
        for (std::size_t set = 0; set < sets; ++set)
            labels.push_back("RD_" + std::to_string(set + 1));
    for (std::size_t set = 0; set < sets; ++set)
        labels.push_back("RR_" + std::to_string(set + 1));
    return labels;
}

bool isRandomRandom(const JobCatalogs& catalogs, std::size_t task) {
    const CountIndex index{catalogs.randoms.size(), catalogs.cross()};
    return index.sets > 0 && task >= index.rr(0) && task < index.rr(0) + index.sets;
}

RawCounts rawCountsOf(std::vector<TaskCounts> counts, const JobCatalogs& catalogs) {
    requireCountCount(counts.size(), catalogs);
    RawCounts raw = layoutOf(catalogs);
    if (raw.weighted)
        for (TaskCounts& task : counts)
            completeWeights(task);
    const CountIndex index{catalogs.randoms.size(), raw.cross};
    raw.dd = std::move(counts[0].raw);
    if (raw.weighted)
        raw.ddWeighted = std::move(counts[0].weighted);
    for (std::size_t set = 0; set < index.sets; ++set) {
        raw.dr.push_back(std::move(counts[index.dr(set)].raw));
        raw.rr.push_back(std::move(counts[index.rr(set)].raw));
        if (raw.cross)
            raw.rd.push_back(std::move(counts[index.rd(set)].raw));
        if (raw.weighted) {
            raw.drWeighted.push_back(std::move(counts[index.dr(set)].weighted));
            raw.rrWeighted.push_back(std::move(counts[index.rr(set)].weighted));
            if (raw.cross)
                raw.rdWeighted.push_back(std::move(counts[index.rd(set)].weighted));
        }
    }
    return raw;
}

JackknifeCounts jackknifeCountsOf(std::vector<RegionPairCounts> counts,
                                  const JobCatalogs& catalogs, std::size_t regionCount) {
    requireCountCount(counts.size(), catalogs);
    JackknifeCounts result;
    result.whole = layoutOf(catalogs);
    if (result.whole.weighted)
        for (RegionPairCounts& task : counts)
            completeWeights(task);
    const CountIndex index{catalogs.randoms.size(), result.whole.cross};
    result.dd = std::move(counts[0]);
    for (std::size_t set = 0; set < index.sets; ++set) {
        result.dr.push_back(std::move(counts[index.dr(set)]));
        result.rr.push_back(std::move(counts[index.rr(set)]));
        if (result.whole.cross)
            result.rd.push_back(std::move(counts[index.rd(set)]));
    }
    result.data = RegionShares::of(*catalogs.data, regionCount);
    for (const auto& random : catalogs.randoms)
        result.randoms.push_back(RegionShares::of(*random, regionCount));
    if (catalogs.cross()) {
        result.data2 = RegionShares::of(*catalogs.data2, regionCount);
        for (const auto& random : catalogs.randoms2)
            result.randoms2.push_back(RegionShares::of(*random, regionCount));
    }
    return result;
}

} // namespace tpacf::job
