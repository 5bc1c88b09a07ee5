// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one entry point the GUI and the CLI share: catalogs + bins + estimator + backend in,
// a CorrelationResult out, with progress and cancellation.
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/correlation_result.h"
#include "tpacf/count_store.h"
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"
#include "tpacf/sky_mask.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tpacf {

struct CorrelationParams {
    std::shared_ptr<const Catalog> data;
    std::vector<std::shared_ptr<const Catalog>> randoms; // at least one
    /// Two-sample (cross) correlation of data with data2: set data2. randoms2: the second
    /// sample's randoms, as many sets as randoms (paired by index), or empty to use the first's
    /// (R1D2 is then counted against R1 and R1R2 is R1R1).
    std::shared_ptr<const Catalog> data2;
    std::vector<std::shared_ptr<const Catalog>> randoms2;
    /// How the run was asked for, for the result's provenance: the full command line, or the
    /// Studio session. Copied into CorrelationResult::invocation.
    std::string invocation;
    /// The job file the command line named (tpacf run --config), its path and content; "" for
    /// none. Copied into CorrelationResult::jobFilePath and jobFileText.
    std::string jobFilePath, jobFileText;
    BinSpec bins;
    Estimator estimator = Estimator::LandySzalay;
    BackendOptions backend;
    JackknifeSettings jackknife; // regions == 0 and no regionColumn: no jackknife
    /// Counts to take instead of counting them (a count file, the GUI's cache of RR): every
    /// count whose catalogs (by content fingerprint) and jackknife regions match one in the
    /// store is taken from it, the rest counted. The bins must be the store's, every RR_i must
    /// be in it, and a matched count of other regions is an error (ConfigError naming it).
    std::shared_ptr<const CountStore> reuse;
    /// Strict (the CLI's --reuse-counts): a count that cannot be taken from `reuse` (other bins,
    /// other randoms, other regions) is an error naming which. WhereMatching (Studio's cache of
    /// its last runs): such counts are counted afresh, and the result's notes say which.
    enum class ReusePolicy { Strict, WhereMatching };
    ReusePolicy reusePolicy = ReusePolicy::Strict;
    /// Fill CorrelationResult::counts with every count of the run (for --save-counts, caches).
    bool collectCounts = false;
    /// Count only this share of the batch (count files of disjoint work, added up by
    /// combineCountStores); w of a share alone means nothing. No reuse with a share.
    WorkShare share;
    /// Also sum every count's separations per bin (--mean-theta): CorrelationResult::
    /// meanSeparations, in a pass of its own after the counts (separation_moments.h). Not with a
    /// share (the sums of a share alone mean nothing, and count files do not carry them).
    bool meanSeparation = false;
    /// Seconds between live estimates in progress reports (JobProgress::partial); the backend
    /// reports progress at least twice as often. Four a second keep a plot moving without
    /// flooding the GUI's event queue or spending the calling thread on estimates nobody sees.
    double liveEstimateInterval = 0.25;
    /// A footprint mask (sky_mask.h, --mask): before anything else every catalog is cut to the
    /// points where its completeness is > 0 and ≥ maskThreshold, and the result's notes say
    /// what each kept (maskingNote). InputError naming the catalog when it keeps none.
    std::shared_ptr<const SkyMask> mask;
    double maskThreshold = 0.0;
};

struct JobProgress {
    double fraction = 0; // 0..1 of the counting work (the backend's work measure, else pairs)
    std::uint64_t pairsDone = 0;
    std::uint64_t pairsTotal = 0;
    double pairsPerSecond = 0;
    double elapsedSeconds = 0;
    /// The backend is preparing (sorting catalogs, building pair lists); nothing counted yet.
    bool preparing = false;
    /// Seconds left (EtaEstimator); negative while not known.
    double etaSeconds = -1;
    /// Estimate from the counts so far; null when none yet, and always where the backend's
    /// partial counts are not an even sample of its pairs (CountProgress::partialsEvenlySpread).
    std::shared_ptr<const CorrelationResult> partial;
    /// The share of each count's pairs behind `partial` (the least of them), 0..1.
    double partialCoverage = 0;
    /// The counts are done and the mean separations are being summed (--mean-theta): fraction,
    /// pairs and ETA are that pass's.
    bool meanSeparation = false;
};

class CorrelationJob {
public:
    using ProgressCallback = std::function<void(const JobProgress&)>;

    /// `backends`: what params.backend.name is chosen from (by default the CPU alone).
    explicit CorrelationJob(CorrelationParams params, BackendRegistry backends = {});

    /// Runs on the calling thread; progress is reported on it too. Throws ConfigError (bad bins,
    /// no randoms, empty catalog, randoms2 without data2 or not as many sets as randoms, bad jackknife settings, jackknife on an explicitly chosen
    /// backend that cannot count by region, Auto falls back to the CPU with a notice; a jackknife
    /// whose estimateJackknifeMemory exceeds checkJackknifeMemory's limit, before any counting),
    /// BackendUnavailable; a cancel request gives status Cancelled with no counts. Partial
    /// results in progress reports carry no jackknife fields. With params.reuse: ConfigError
    /// for other bins, an RR_i whose catalogs are not in the store, other jackknife regions, a
    /// store of some shares only; only the counts the store lacks are counted (progress totals
    /// are theirs), the others are merged in.
    CorrelationResult run(const ProgressCallback& onProgress = {},
                          const std::atomic<bool>* cancelRequested = nullptr);

    const CorrelationParams& params() const noexcept { return m_params; }

private:
    CorrelationParams m_params;
    BackendRegistry m_backends;
};

} // namespace tpacf
