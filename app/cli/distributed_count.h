// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `tpacf run` and `tpacf count` do across MPI ranks beyond counting their share: check that
// the ranks counted alike, add their counts up on rank 0, and show one progress bar for all.
// What is sent: each rank's counts once at the end (bins x counts x (1 + 2K regions) x 8 bytes
// of integers, the same again of doubles for weighted runs), plus a few progress reports a
// second of 32 bytes each.
#include "cli/rank_group.h"
#include "tpacf/correlation_job.h"
#include "tpacf/count_store.h"
#include "tpacf/pair_counter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpacf::cli {

/// Collective. Checks that every rank's store holds the same counts of the same catalogs
/// (content and regions), bins, backend and precision (ConfigError on rank 0 naming the first
/// rank that differs and how), then sums every count into rank 0's store, which then holds
/// every share (whole()). Call inside collectively(): the check throws on rank 0 only.
void sumCountStoresToRoot(RankGroup& ranks, CountStore& store);

/// Collective. Sums one task's counts of every rank into rank 0's (after
/// ranksDifferingFromRoot on their layout, ConfigError on rank 0 when they differ).
void sumTaskCountsToRoot(RankGroup& ranks, TaskCounts& counts);

/// Collective, after every rank counted its share with CorrelationParams::collectCounts. Sums
/// the ranks' counts (mine.counts) into rank 0's, and there estimates w from the sum: the job's
/// parameters again, with the summed counts as counts to reuse (nothing is counted twice). On
/// rank 0 returns the run's result, its metadata naming every rank and its device; elsewhere
/// `mine`. `countSeconds`: rank 0's time from the start of its count until now.
CorrelationResult estimateFromRanks(RankGroup& ranks, const CorrelationJob& job,
                                    const CorrelationResult& mine, const BackendRegistry& backends,
                                    double countSeconds);

/// One progress bar for all ranks: rank 0 keeps every rank's latest report.
class ProgressAcrossRanks {
public:
    explicit ProgressAcrossRanks(RankGroup& ranks);

    /// This rank's progress: sent to rank 0 (other ranks), or combined with the others' reports
    /// (rank 0). Returns what the bar shows: the mean fraction of the (equal-work) shares, the
    /// pairs and rates summed.
    RankProgress update(const RankProgress& mine);
    /// This rank's count is over. Rank 0 then waits (sleeping briefly) until every rank's is,
    /// calling `show` with the combined progress as reports arrive; the others send a last
    /// report. Every rank calls it once after counting, whether it counted, failed or stopped.
    template <typename Show> void finish(const RankProgress& mine, Show&& show) {
        RankProgress last = mine;
        last.final = true;
        if (!m_ranks.isRoot()) {
            m_ranks.sendProgress(last);
            return;
        }
        m_latest[0] = last;
        while (!allFinal()) {
            show(update(last));
            pause();
        }
        show(update(last));
    }
    /// Whether every rank's count is over (rank 0).
    bool allFinal() const;

private:
    static void pause();

    RankGroup& m_ranks;
    std::vector<RankProgress> m_latest;
};

/// "rank 1 on node07: cuda, NVIDIA H100 80GB HBM3 (1 GPU), float": what the result's metadata
/// records of each rank.
std::string describeRank(RankGroup& ranks, const std::string& backend, const std::string& device,
                         const std::string& precision);

} // namespace tpacf::cli
