// SPDX-License-Identifier: GPL-3.0-or-later
// Counting a batch in sub-batches that fit a budget of points (tpacf/chunked_count.h): the
// progress of the original tasks, and the loop that materialises pieces, counts each sub-batch
// (planned in chunk_plan.cpp) and adds the counts up.
#include "tpacf/chunked_count.h"

#include "counting/chunk_plan.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace tpacf {

namespace {

using chunk::kNoPiece;
using chunk::PieceSet;
using chunk::Plan;
using chunk::SubBatch;
using chunk::SubTask;

// This share's part of an even split of `pairs` over the shares (the parts add up to `pairs`).
std::uint64_t shareOf(std::uint64_t pairs, const WorkShare& share) noexcept {
    return pairs / share.parts + (share.part < pairs % share.parts ? 1 : 0);
}

void validate(std::span<const CountTask> tasks, const CountControl& control,
              std::uint64_t maxPointsPerBatch, bool haveCount) {
    if (maxPointsPerBatch < 2)
        throw ConfigError("points per batch " + std::to_string(maxPointsPerBatch) +
                          " is too small for a chunked count: a batch must hold at least 2 "
                          "points (a piece of each side of a pair)");
    if (!haveCount)
        throw ConfigError("a chunked count needs a function that counts a sub-batch");
    for (const CountTask& task : tasks)
        if (!task.first)
            throw ConfigError("a pair-count task has no catalog");
    control.share.validate();
}

// The caller's view of the progress: the original tasks, through every sub-batch.
class ChunkProgress {
public:
    ChunkProgress(const CountControl& control, std::size_t taskCount, const Plan& plan)
        : m_control(control), m_plan(plan), m_skippedShare(taskCount),
          m_batchWhole(plan.batches.size(), std::vector<std::uint64_t>(taskCount, 0)),
          m_estimate(plan.batches.size(), 0), m_doneCounted(taskCount, 0),
          m_wholeDone(taskCount, 0), m_currentDone(taskCount, 0) {
        const WorkShare& share = control.share;
        for (std::size_t t = 0; t < taskCount; ++t) {
            m_skippedShare[t] = shareOf(plan.skippedPairs[t], share);
            m_skippedTotal += m_skippedShare[t];
        }
        for (std::size_t b = 0; b < plan.batches.size(); ++b) {
            for (const std::uint32_t id : plan.batches[b].subTasks)
                m_batchWhole[b][plan.subTasks[id].task] += plan.subTasks[id].pairs;
            for (const std::uint64_t pairs : m_batchWhole[b])
                m_estimate[b] += shareOf(pairs, share);
            m_future += m_estimate[b];
        }
    }

    void begin(std::size_t batch) {
        m_current = batch;
        m_future -= m_estimate[batch];
        std::fill(m_currentDone.begin(), m_currentDone.end(), 0);
        m_reported = false;
        m_reportedTotal = 0;
        m_fraction = 0;
        m_reportComplete = false;
    }

    void observe(const CountProgress& sub) {
        const std::vector<std::uint32_t>& ids = m_plan.batches[m_current].subTasks;
        std::fill(m_currentDone.begin(), m_currentDone.end(), 0);
        std::uint64_t done = 0;
        if (sub.pairsDonePerTask.size() == ids.size())
            for (std::size_t s = 0; s < ids.size(); ++s) {
                m_currentDone[m_plan.subTasks[ids[s]].task] += sub.pairsDonePerTask[s];
                done += sub.pairsDonePerTask[s];
            }
        if (!sub.preparing) {
            m_reported = true;
            m_reportedTotal = sub.pairsTotal;
            m_reportComplete = sub.pairsDonePerTask.size() == ids.size() && done == sub.pairsTotal;
        }
        m_fraction = sub.pairsTotal > 0 ? std::min(1.0, static_cast<double>(sub.pairsDone) /
                                                            static_cast<double>(sub.pairsTotal))
                                        : 0.0;
        // The sub-batch's own preparation is the count's only while nothing is counted yet.
        const bool preparing = sub.preparing && m_completed == 0;
        emit(preparing, sub.preparationDone, sub.preparationTotal);
    }

    void end() {
        const std::vector<std::uint64_t>& whole = m_batchWhole[m_current];
        for (std::size_t t = 0; t < whole.size(); ++t) {
            std::uint64_t done = whole[t];
            if (!m_control.share.whole())
                done = m_reportComplete ? m_currentDone[t] : shareOf(whole[t], m_control.share);
            m_doneCounted[t] += done;
            m_completedTotal += done;
            m_wholeDone[t] += whole[t];
        }
        m_current = kNone;
        ++m_completed;
        std::fill(m_currentDone.begin(), m_currentDone.end(), 0);
        m_fraction = 0;
        emit(false, 0, 0);
    }

    void emit(bool preparing, std::size_t preparationDone, std::size_t preparationTotal) const {
        if (!m_control.onProgress)
            return;
        CountProgress progress;
        progress.preparing = preparing;
        progress.preparationDone = preparationDone;
        progress.preparationTotal = preparationTotal;
        const std::size_t tasks = m_doneCounted.size();
        progress.pairsDonePerTask.resize(tasks);
        for (std::size_t t = 0; t < tasks; ++t) {
            const double current =
                m_current == kNone ? 0.0
                                   : m_fraction * static_cast<double>(m_batchWhole[m_current][t]);
            progress.pairsDonePerTask[t] =
                m_doneCounted[t] + m_currentDone[t] + skippedCredit(t, current);
            progress.pairsDone += progress.pairsDonePerTask[t];
        }
        progress.pairsTotal = m_skippedTotal + m_completedTotal + currentTotal() + m_future;
        m_control.onProgress(progress);
    }

private:
    static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

    // Skipped pairs cost nothing, so they are credited as the task's counted pairs are done:
    // the fraction done then follows the work (as the CPU backend credits pairs culled away).
    std::uint64_t skippedCredit(std::size_t t, double currentWhole) const {
        const std::uint64_t full = m_skippedShare[t];
        const std::uint64_t counted = m_plan.countedPairs[t];
        if (counted == 0 || m_wholeDone[t] >= counted)
            return full;
        const double fraction =
            (static_cast<double>(m_wholeDone[t]) + currentWhole) / static_cast<double>(counted);
        return std::min(
            full, static_cast<std::uint64_t>(static_cast<double>(full) * std::min(1.0, fraction)));
    }

    std::uint64_t currentTotal() const {
        if (m_current == kNone)
            return 0;
        // The whole batch's totals are known; a share's once the sub-batch reports its own.
        if (m_control.share.whole() || !m_reported)
            return m_estimate[m_current];
        return m_reportedTotal;
    }

    const CountControl& m_control;
    const Plan& m_plan;
    std::vector<std::uint64_t> m_skippedShare;
    std::uint64_t m_skippedTotal = 0;
    std::vector<std::vector<std::uint64_t>> m_batchWhole; // per sub-batch, per task
    std::vector<std::uint64_t> m_estimate;                // per sub-batch: its share's pairs
    std::uint64_t m_future = 0;                           // estimates of sub-batches to come
    std::uint64_t m_completedTotal = 0;
    std::vector<std::uint64_t> m_doneCounted; // per task, sub-batches completed
    std::vector<std::uint64_t> m_wholeDone;   // per task, whole pairs of sub-batches completed
    std::size_t m_completed = 0;
    std::size_t m_current = kNone;
    std::vector<std::uint64_t> m_currentDone; // per task, the current sub-batch's report
    bool m_reported = false;
    bool m_reportComplete = false;
    std::uint64_t m_reportedTotal = 0;
    double m_fraction = 0;
};

template <class Result>
using CountFn = std::function<std::vector<Result>(std::span<const CountTask>, const CountControl&)>;

// The loop shared by plain and region counts: `zero` gives a task's empty result, `add` adds a
// piece count's result into its task's (checking the shape the counter returned).
template <class Result>
std::vector<Result>
countInChunks(std::span<const CountTask> tasks, const Binning& binning, const CountControl& control,
              std::uint64_t maxPointsPerBatch, const CountFn<Result>& count,
              const std::function<Result(const CountTask&)>& zero,
              const std::function<void(Result&, const Result&)>& add, ChunkReport* report) {
    const auto checkShape = [](const std::vector<Result>& counts, std::size_t asked) {
        if (counts.size() != asked)
            throw Error("the sub-batch counter returned " + std::to_string(counts.size()) +
                        " counts for " + std::to_string(asked) + " tasks");
    };
    if (control.cancelled())
        throw Cancelled();
    if (distinctPoints(tasks) <= maxPointsPerBatch) {
        std::vector<Result> counts = count(tasks, control);
        checkShape(counts, tasks.size());
        if (report) {
            *report = {};
            for (const Catalog* catalog : chunk::distinctCatalogs(tasks))
                report->pieces += catalog->empty() ? 0 : 1;
            report->subBatches = 1;
            report->subTasks = tasks.size();
        }
        return counts;
    }

    const auto poll = [&] {
        if (control.cancelled())
            throw Cancelled();
    };
    std::uint64_t batchPairs = 0;
    for (const CountTask& task : tasks)
        batchPairs += task.pairTotal();
    const std::size_t catalogCount = chunk::distinctCatalogs(tasks).size();
    const auto preparing = [&](std::size_t catalogsDone) {
        poll();
        if (!control.onProgress)
            return;
        CountProgress progress;
        progress.preparing = true;
        progress.preparationDone = catalogsDone;
        progress.preparationTotal = catalogCount;
        // As the CPU backend: the whole batch's total is known, a share's once planned.
        progress.pairsTotal = control.share.whole() ? batchPairs : 0;
        progress.pairsDonePerTask.assign(tasks.size(), 0);
        control.onProgress(progress);
    };
    const Plan plan = chunk::makePlan(tasks, binning, maxPointsPerBatch, preparing, poll);

    std::vector<Result> results;
    results.reserve(tasks.size());
    for (const CountTask& task : tasks)
        results.push_back(zero(task));

    ChunkProgress progress(control, tasks.size(), plan);
    CountControl subControl;
    subControl.cancelRequested = control.cancelRequested;
    subControl.progressEvery = control.progressEvery;
    subControl.share = control.share;
    if (control.onProgress)
        subControl.onProgress = [&](const CountProgress& sub) { progress.observe(sub); };
    progress.emit(false, 0, 0);

    // Materialised pieces (global piece → copy), kept from one sub-batch to the next only where
    // the next one needs them too.
    std::vector<std::unique_ptr<Catalog>> pieces(plan.piecePoints.size());
    std::vector<char> needed(plan.piecePoints.size(), 0);
    const auto catalogOf = [&](std::uint32_t piece) -> const Catalog* {
        const PieceSet& set = plan.sets[plan.pieceSet[piece]];
        return set.whole() ? set.catalog : pieces[piece].get();
    };
    std::vector<CountTask> subTasks;
    for (std::size_t b = 0; b < plan.batches.size(); ++b) {
        poll();
        const SubBatch& batch = plan.batches[b];
        for (const std::uint32_t piece : batch.pieces)
            needed[piece] = 1;
        for (std::size_t piece = 0; piece < pieces.size(); ++piece)
            if (!needed[piece])
                pieces[piece].reset();
        for (const std::uint32_t piece : batch.pieces) {
            const PieceSet& set = plan.sets[plan.pieceSet[piece]];
            if (!set.whole() && !pieces[piece])
                pieces[piece] =
                    std::make_unique<Catalog>(chunk::materializePiece(set, plan.pieceIndex[piece]));
            needed[piece] = 0;
        }
        subTasks.clear();
        for (const std::uint32_t id : batch.subTasks) {
            const SubTask& s = plan.subTasks[id];
            subTasks.push_back({catalogOf(s.a), s.b == kNoPiece ? nullptr : catalogOf(s.b)});
        }
        progress.begin(b);
        const std::vector<Result> counts = count(subTasks, subControl);
        checkShape(counts, subTasks.size());
        for (std::size_t s = 0; s < counts.size(); ++s)
            add(results[plan.subTasks[batch.subTasks[s]].task], counts[s]);
        progress.end();
    }
    if (report) {
        report->pieces = plan.piecePoints.size();
        report->subBatches = plan.batches.size();
        report->subTasks = plan.subTasks.size();
        report->piecePairsSkipped = plan.skippedPiecePairs;
    }
    return results;
}

void checkLength(std::size_t length, std::size_t expected, const char* what) {
    if (length != expected)
        throw Error(std::string("the sub-batch counter returned ") + what + " of length " +
                    std::to_string(length) + " where " + std::to_string(expected) +
                    " were expected");
}

template <class T> void addInto(std::vector<T>& sum, const std::vector<T>& part, const char* what) {
    checkLength(part.size(), sum.size(), what);
    for (std::size_t k = 0; k < part.size(); ++k)
        sum[k] += part[k];
}

} // namespace

std::uint64_t distinctPoints(std::span<const CountTask> tasks) {
    std::uint64_t points = 0;
    for (const Catalog* catalog : chunk::distinctCatalogs(tasks))
        points += catalog->size();
    return points;
}

std::vector<TaskCounts> countBatchInChunks(std::span<const CountTask> tasks, const Binning& binning,
                                           const CountControl& control,
                                           std::uint64_t maxPointsPerBatch,
                                           const SubBatchCount& count, ChunkReport* report) {
    validate(tasks, control, maxPointsPerBatch, bool(count));
    const std::size_t bins = binning.count();
    return countInChunks<TaskCounts>(
        tasks, binning, control, maxPointsPerBatch,
        [&](std::span<const CountTask> sub, const CountControl& c) {
            return count(sub, binning, c);
        },
        [&](const CountTask& task) {
            TaskCounts counts;
            counts.raw.assign(bins, 0);
            if (task.weighted())
                counts.weighted.assign(bins, 0.0);
            return counts;
        },
        [](TaskCounts& sum, const TaskCounts& part) {
            addInto(sum.raw, part.raw, "raw counts");
            // A piece count is weighted exactly where its task is: pieces keep their weights.
            addInto(sum.weighted, part.weighted, "weighted sums");
        },
        report);
}

std::vector<RegionPairCounts>
countBatchByRegionInChunks(std::span<const CountTask> tasks, const Binning& binning,
                           std::size_t regionCount, const CountControl& control,
                           std::uint64_t maxPointsPerBatch, const SubBatchRegionCount& count,
                           ChunkReport* report) {
    validate(tasks, control, maxPointsPerBatch, bool(count));
    const std::size_t bins = binning.count();
    return countInChunks<RegionPairCounts>(
        tasks, binning, control, maxPointsPerBatch,
        [&](std::span<const CountTask> sub, const CountControl& c) {
            return count(sub, binning, regionCount, c);
        },
        [&](const CountTask& task) {
            RegionPairCounts counts;
            counts.regionCount = regionCount;
            counts.binCount = bins;
            counts.total.assign(bins, 0);
            counts.touching.assign(regionCount * bins, 0);
            counts.within.assign(regionCount * bins, 0);
            if (task.weighted()) {
                counts.weightedTotal.assign(bins, 0.0);
                counts.weightedTouching.assign(regionCount * bins, 0.0);
                counts.weightedWithin.assign(regionCount * bins, 0.0);
            }
            return counts;
        },
        [](RegionPairCounts& sum, const RegionPairCounts& part) {
            checkLength(part.regionCount, sum.regionCount, "region counts");
            checkLength(part.binCount, sum.binCount, "bin counts");
            addInto(sum.total, part.total, "region totals");
            addInto(sum.touching, part.touching, "touching counts");
            addInto(sum.within, part.within, "within counts");
            addInto(sum.weightedTotal, part.weightedTotal, "weighted totals");
            addInto(sum.weightedTouching, part.weightedTouching, "weighted touching sums");
            addInto(sum.weightedWithin, part.weightedWithin, "weighted within sums");
        },
        report);
}

} // namespace tpacf
