// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stages of CorrelationJob::run, one function each, in the order the run takes them: the
// backend, the inputs (jackknife regions, fingerprints), the reuse plan (reuse_plan.h), the
// result's header, the count, the count store and the estimate. correlation_job.cpp reads as
// that list; live progress is live_progress.h.
#include "job/job_counts.h"
#include "job/reuse_plan.h"
#include "tpacf/correlation_job.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tpacf::job {

/// The seconds of each stage as the run ends it (CorrelationResult::stageSeconds).
class StageClock {
public:
    using Clock = std::chrono::steady_clock;
    void end(const char* name);
    double elapsedSeconds() const;
    Clock::time_point start() const { return m_start; }
    std::vector<std::pair<std::string, double>> take() { return std::move(m_stages); }

private:
    Clock::time_point m_start = Clock::now();
    Clock::time_point m_stageStart = m_start;
    std::vector<std::pair<std::string, double>> m_stages;
};

/// Per-region counts and the covariance grow as K · bins and bins²: ConfigError where a jackknife
/// of `regionCount` regions cannot fit, before the regions are grown or a pair is counted.
void checkJobMemory(const CorrelationParams& params, const Binning& binning, int regionCount);

/// Stage "backend": the backend for the job's work (the GPUs follow the work where none were
/// asked for). Where a jackknife is asked for and the backend cannot count by region, "auto"
/// takes the CPU with a notice and an explicit backend is a ConfigError.
BackendSelection chooseJobBackend(const CorrelationParams& params, const BackendRegistry& backends,
                                  const Binning& binning);

struct JobInputs {
    JobCatalogs originals; // as given
    JobCatalogs counted;   // in a jackknife job, copies ordered by region; else the originals
    RegionAssignment regions;
    std::size_t regionCount = 0;    // 0 without jackknife
    std::vector<CountCatalog> keys; // fingerprints, in JobCatalogs::all() order
};

/// Stages "jackknife regions" and "fingerprints": the share and reuse settings checked, regions
/// for every point (two samples share those grown on the first), region-ordered copies, and the
/// fingerprints count files and reuse key on (the result records them too).
JobInputs prepareInputs(const CorrelationParams& params, const Binning& binning, StageClock& clock);

/// Everything of the result but the counts; partial results copy it.
CorrelationResult describeJob(const CorrelationParams& params, const Binning& binning,
                              const BackendSelection& backend, const JobInputs& inputs,
                              const ReusePlan& plan);

/// Auto culling is decided on the whole batch: counting the rest of a batch whose other counts
/// are reused decides as the whole batch would, so that the counts are made alike.
void cullLikeWholeBatch(PairCounter& counter, const std::vector<CountTask>& tasks,
                        const ReusePlan& plan, const Binning& binning);

/// The cancel token, the share and how often progress comes (often enough for the live estimate).
CountControl countControl(const CorrelationParams& params, const std::atomic<bool>* cancelRequested);

/// The counts of every task, in task order (reused ones merged in); per region in a jackknife job.
struct JobTally {
    std::vector<TaskCounts> taskCounts;
    std::vector<RegionPairCounts> regionCounts;
};

/// Stage "count": the counted tasks as one batch, so that the backend schedules DD, every DR_i,
/// RD_i and RR_i together. Throws Cancelled.
JobTally countJob(PairCounter& counter, const std::vector<CountTask>& tasks, const ReusePlan& plan,
                  const Binning& binning, std::size_t regionCount, const CountControl& control);

/// The job's counts as a CountStore (what --save-counts writes).
std::shared_ptr<CountStore> storeOf(const CorrelationParams& params, const Binning& binning,
                                    const JobInputs& inputs, const CorrelationResult& result,
                                    const JobTally& tally);

/// Stage "estimate": the counts, normalised counts and w, and in a jackknife job the regions'
/// summary, the leave-one-out samples, σ and the covariance.
void estimateInto(CorrelationResult& result, const CorrelationParams& params, JobInputs& inputs,
                  JobTally tally);

} // namespace tpacf::job
