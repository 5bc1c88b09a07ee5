// SPDX-License-Identifier: GPL-3.0-or-later
#include "job/job_separations.h"

#include "tpacf/eta_estimator.h"
#include "tpacf/separation_moments.h"

#include <chrono>
#include <cmath>
#include <string>

namespace tpacf::job {

std::vector<MeanSeparation> poolSeparations(const std::vector<SeparationMoments>& perTask,
                                            const std::vector<std::string>& labels,
                                            AngleUnit unit) {
    std::vector<std::string> kinds;
    std::vector<SeparationMoments> pooled;
    for (std::size_t t = 0; t < perTask.size(); ++t) {
        // "DR_2" pools into "DR".
        const std::string kind = labels[t].substr(0, labels[t].find('_'));
        std::size_t k = 0;
        while (k < kinds.size() && kinds[k] != kind)
            ++k;
        if (k == kinds.size()) {
            kinds.push_back(kind);
            pooled.push_back(SeparationMoments::zeros(perTask[t].binCount()));
        }
        pooled[k].add(perTask[t]);
    }
    std::vector<MeanSeparation> means;
    for (std::size_t k = 0; k < kinds.size(); ++k)
        means.push_back(meanSeparationOf(pooled[k], kinds[k], unit));
    return means;
}

void measureSeparations(CorrelationResult& result, PairCounter& counter,
                        const std::vector<CountTask>& tasks, const JobCatalogs& catalogs,
                        const Binning& binning, const CountControl& control,
                        const CorrelationJob::ProgressCallback& onProgress) {
    CountControl separations = control;
    const auto start = std::chrono::steady_clock::now();
    EtaEstimator eta;
    if (onProgress)
        separations.onProgress = [&](const CountProgress& progress) {
            JobProgress job;
            job.meanSeparation = true;
            job.pairsDone = progress.pairsDone;
            job.pairsTotal = progress.pairsTotal;
            job.fraction = progress.pairsTotal > 0 ? static_cast<double>(progress.pairsDone) /
                                                         static_cast<double>(progress.pairsTotal)
                                                   : 0.0;
            job.elapsedSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            job.pairsPerSecond = job.elapsedSeconds > 0
                                     ? static_cast<double>(job.pairsDone) / job.elapsedSeconds
                                     : 0.0;
            eta.observe(job.elapsedSeconds, job.fraction, false);
            job.etaSeconds = eta.remainingSeconds();
            onProgress(job);
        };
    else
        separations.onProgress = {};
    const std::vector<SeparationMoments> sums =
        counter.countSeparationMoments(tasks, binning, separations);
    result.meanSeparations = poolSeparations(sums, countLabels(catalogs), binning.unit());
}

} // namespace tpacf::job
