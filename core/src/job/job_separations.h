// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stage "mean separation" of a job (CorrelationParams::meanSeparation): every count's Σθ and
// Σ ln θ per bin from the backend, pooled by kind of count (DD, DR, RD, RR) into the result.
#include "job/job_counts.h"
#include "tpacf/correlation_job.h"

#include <vector>

namespace tpacf::job {

/// Sums the separations of every task (all of them, reused counts included: a count file holds
/// no separations) on `counter` and fills result.meanSeparations. Progress goes to onProgress
/// (JobProgress::meanSeparation set) where given. Throws Cancelled.
void measureSeparations(CorrelationResult& result, PairCounter& counter,
                        const std::vector<CountTask>& tasks, const JobCatalogs& catalogs,
                        const Binning& binning, const CountControl& control,
                        const CorrelationJob::ProgressCallback& onProgress);

/// The pooled means from the per-task sums (countTasks order): the kinds in DD, DR, RD, RR
/// order, each in the bins' unit. Separate from measureSeparations so tests can pool sums of
/// their own.
std::vector<MeanSeparation> poolSeparations(const std::vector<SeparationMoments>& perTask,
                                            const std::vector<std::string>& labels,
                                            AngleUnit unit);

} // namespace tpacf::job
