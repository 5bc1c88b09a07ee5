// SPDX-License-Identifier: GPL-3.0-or-later
#include "job/live_progress.h"

#include <algorithm>
#include <utility>

namespace tpacf::job {

LiveProgress::LiveProgress(const CorrelationResult& header, const std::vector<CountTask>& tasks,
                           const ReusePlan& plan, const JobCatalogs& counted, Estimator estimator,
                           const PairCounter& counter, double partialInterval,
                           Clock::time_point start, CorrelationJob::ProgressCallback onProgress)
    : m_header(header), m_tasks(tasks), m_plan(plan), m_counted(counted), m_estimator(estimator),
      m_counter(counter), m_partialInterval(partialInterval), m_start(start),
      m_onProgress(std::move(onProgress)), m_lastPartial(-partialInterval) {}

double LiveProgress::fractionOf(const CountProgress& progress) {
    if (progress.preparing)
        return 0.0;
    if (progress.workTotal > 0)
        return std::clamp(progress.workDone / progress.workTotal, 0.0, 1.0);
    return progress.pairsTotal > 0 ? static_cast<double>(progress.pairsDone) /
                                         static_cast<double>(progress.pairsTotal)
                                   : 1.0;
}

void LiveProgress::operator()(const CountProgress& progress) {
    JobProgress job;
    job.pairsDone = progress.pairsDone;
    job.pairsTotal = progress.pairsTotal;
    job.preparing = progress.preparing;
    job.fraction = fractionOf(progress);
    job.elapsedSeconds = std::chrono::duration<double>(Clock::now() - m_start).count();
    m_eta.observe(job.elapsedSeconds, job.fraction, job.preparing);
    job.etaSeconds = m_eta.remainingSeconds();
    job.pairsPerSecond = job.elapsedSeconds > 0
                             ? static_cast<double>(progress.pairsDone) / job.elapsedSeconds
                             : 0.0;
    // The pairs behind the partial counts: their own where they lag the progress.
    const std::vector<std::uint64_t>& partialPairs = progress.partialPairsPerTask.empty()
                                                         ? progress.pairsDonePerTask
                                                         : progress.partialPairsPerTask;
    const std::size_t batchSize = m_plan.counted.size();
    if (progress.partialsEvenlySpread && progress.partialCounts.size() == batchSize &&
        partialPairs.size() == batchSize &&
        job.elapsedSeconds - m_lastPartial >= m_partialInterval) {
        m_lastPartial = job.elapsedSeconds;
        job.partial = partialResult(progress, partialPairs, job.elapsedSeconds, job.partialCoverage);
    }
    m_onProgress(job);
}

std::shared_ptr<CorrelationResult>
LiveProgress::partialResult(const CountProgress& progress,
                            const std::vector<std::uint64_t>& partialPairs, double elapsedSeconds,
                            double& coverage) const {
    auto partial = std::make_shared<CorrelationResult>(m_header);
    partial->culled = m_counter.lastBatchCulled();
    std::vector<TaskCounts> counts(m_tasks.size());
    std::vector<std::uint64_t> pairsDone(m_tasks.size());
    const bool haveWeighted = progress.partialWeighted.size() == m_plan.counted.size();
    for (std::size_t t = 0; t < m_tasks.size(); ++t) {
        if (!m_plan.stored[t])
            continue;
        // A reused count is complete: all its pairs are visited.
        const StoredCount& stored = *m_plan.stored[t]->count;
        counts[t].raw = stored.counts.raw;
        if (haveWeighted)
            counts[t].weighted = stored.counts.weighted;
        pairsDone[t] = m_tasks[t].pairTotal();
    }
    for (std::size_t j = 0; j < m_plan.counted.size(); ++j) {
        const std::size_t t = m_plan.counted[j];
        counts[t].raw = progress.partialCounts[j];
        if (haveWeighted)
            counts[t].weighted = progress.partialWeighted[j];
        pairsDone[t] = partialPairs[j];
    }
    partial->raw = rawCountsOf(std::move(counts), m_counted);
    // A backend that reports raw counts alone while it runs: the live estimate is then the
    // unweighted one, until the final counts.
    if (partial->raw.weighted && !haveWeighted)
        partial->raw.weighted = false;
    coverage = 1.0;
    for (std::size_t t = 0; t < m_tasks.size(); ++t)
        if (m_tasks[t].pairTotal() > 0)
            coverage = std::min(coverage, static_cast<double>(pairsDone[t]) /
                                              static_cast<double>(m_tasks[t].pairTotal()));
    partial->normalised = normaliseByPairsVisited(partial->raw, pairsDone);
    partial->w = estimate(m_estimator, partial->normalised);
    partial->elapsedSeconds = elapsedSeconds;
    return partial;
}

} // namespace tpacf::job
