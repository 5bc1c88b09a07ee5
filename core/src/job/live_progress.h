// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a job reports while it counts: the backend's progress as the job's (the share of the work
// done, the ETA, the pair rate) and, at most once per interval, a live estimate of w from the
// partial counts, where the backend marks them as even samples of every count.
#include "job/job_counts.h"
#include "job/reuse_plan.h"
#include "tpacf/correlation_job.h"
#include "tpacf/eta_estimator.h"

#include <chrono>
#include <vector>

namespace tpacf::job {

class LiveProgress {
public:
    using Clock = std::chrono::steady_clock;

    /// `header`: the result without counts that partial results copy; `tasks`: every count of
    /// the job in task order; `plan`: which of them are reused (complete) and which counted;
    /// `counted`: the catalogs as counted. All must outlive the object.
    LiveProgress(const CorrelationResult& header, const std::vector<CountTask>& tasks,
                 const ReusePlan& plan, const JobCatalogs& counted, Estimator estimator,
                 const PairCounter& counter, double partialInterval, Clock::time_point start,
                 CorrelationJob::ProgressCallback onProgress);

    void operator()(const CountProgress& progress);

private:
    /// The share of the work done: work where the backend measures it (pairs culled away or
    /// counted whole while planning take no time), else pairs.
    static double fractionOf(const CountProgress& progress);
    /// The live estimate from the partial counts, with the least share of pairs any count has
    /// visited (`coverage`).
    std::shared_ptr<CorrelationResult> partialResult(const CountProgress& progress,
                                                     const std::vector<std::uint64_t>& partialPairs,
                                                     double elapsedSeconds, double& coverage) const;

    const CorrelationResult& m_header;
    const std::vector<CountTask>& m_tasks;
    const ReusePlan& m_plan;
    const JobCatalogs& m_counted;
    Estimator m_estimator;
    const PairCounter& m_counter;
    double m_partialInterval;
    Clock::time_point m_start;
    CorrelationJob::ProgressCallback m_onProgress;
    double m_lastPartial;
    EtaEstimator m_eta;
};

} // namespace tpacf::job
