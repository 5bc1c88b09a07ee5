// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the job: which pair counts a correlation needs (one sample or two, weighted or
// not), in the order the backend counts them, and how their results become RawCounts and
// JackknifeCounts. One place for the layout DD, DR_1..n, (RD_1..n,) RR_1..n.
#include "tpacf/catalog.h"
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"
#include "tpacf/pair_counter.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tpacf::job {

/// The catalogs one job counts. data2 set: two samples; randoms2 empty or as many as randoms.
struct JobCatalogs {
    std::shared_ptr<const Catalog> data, data2;
    std::vector<std::shared_ptr<const Catalog>> randoms, randoms2;

    bool cross() const noexcept { return data2 != nullptr; }
    bool secondRandoms() const noexcept { return cross() && !randoms2.empty(); }
    /// Whether some catalog carries weights: the job is then weighted throughout.
    bool weighted() const noexcept;
    /// Every catalog, data first.
    std::vector<const Catalog*> all() const;
};

/// The counts of the job in backend order: DD (D1D2), DR_i (D1 × R2_i, or R1_i), then in cross
/// mode RD_i (R1_i × D2), then RR_i (R1_i × R2_i, or R1_i alone).
std::vector<CountTask> countTasks(const JobCatalogs& catalogs);

/// The catalogs of each count (countTasks order) as indices into catalogs.all(): first, and
/// second for a cross count.
struct TaskCatalogs {
    std::size_t first = 0;
    std::optional<std::size_t> second;
};
std::vector<TaskCatalogs> taskCatalogs(const JobCatalogs& catalogs);

/// The name of each count (countTasks order) as the CSV columns name them: "DD", "DR_1",
/// "RD_1", "RR_1" (1-based random sets).
std::vector<std::string> countLabels(const JobCatalogs& catalogs);

/// Whether a count is an RR_i (countTasks order).
bool isRandomRandom(const JobCatalogs& catalogs, std::size_t task);

/// Splits countBatch's results (in countTasks order) into RawCounts with the catalogs' sizes
/// and weight sums. In a weighted job a task the backend counted unweighted (no catalog of it
/// has weights) gets its raw counts as weighted sums: every weight is 1 there.
RawCounts rawCountsOf(std::vector<TaskCounts> counts, const JobCatalogs& catalogs);

/// The same from counts keyed by region, with every catalog's share of every region (the
/// catalogs carry their regions, as the counted copies do).
JackknifeCounts jackknifeCountsOf(std::vector<RegionPairCounts> counts,
                                  const JobCatalogs& catalogs, std::size_t regionCount);

} // namespace tpacf::job
