#pragma once
// The one entry point the GUI and the CLI share: catalogs + bins + estimator + backend in,
// a CorrelationResult out, with progress and cancellation.
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tpacf {

struct CorrelationParams {
    std::shared_ptr<const Catalog> data;
    std::vector<std::shared_ptr<const Catalog>> randoms; // at least one
    BinSpec bins;
    Estimator estimator = Estimator::LandySzalay;
    BackendOptions backend;
    JackknifeSettings jackknife; // regions == 0 and no regionColumn: no jackknife
};

enum class JobStatus { Completed, Cancelled };

/// Name and size of one input, for metadata.
struct InputSummary {
    std::string name;
    std::uint64_t size = 0;
};

struct CorrelationResult {
    JobStatus status = JobStatus::Completed;
    BinSpec bins;
    std::vector<double> edges;   // count+1, in bins.unit
    std::vector<double> centres; // count, in bins.unit
    RawCounts raw;
    NormalisedCounts normalised;
    std::vector<double> w;
    Estimator estimator = Estimator::LandySzalay;
    std::string backendName;
    std::string deviceDescription;
    Precision precision = Precision::Double;
    std::string backendNotice; // e.g. the fallback to the CPU; "" when none
    /// Spatial culling: the mode asked for (BackendOptions::culling) and whether the counts
    /// visited only the cell pairs within reach of the bins (false: every pair computed), as the
    /// backend reported it (PairCounter::lastBatchCulled). In a partial result, what the backend
    /// reports while the batch runs.
    CullingMode cullingRequested = CullingMode::Auto;
    bool culled = false;
    double elapsedSeconds = 0;
    InputSummary data;
    std::vector<InputSummary> randoms;

    /// Jackknife (empty / zero without it): σ(θ) per bin, the bins × bins covariance (row-major)
    /// with the (K−1)/K factor, the K leave-one-out w samples, and the regions.
    std::vector<double> wError;
    std::vector<double> covariance;
    std::vector<std::vector<double>> jackknifeSamples;
    JackknifeRegionsSummary jackknifeRegions;

    bool hasJackknife() const noexcept { return !wError.empty(); }
    /// Bins with a finite w but no jackknife σ (a leave-one-out sample has no pairs there):
    /// frontends say so, since a point without an error bar must not read as exact.
    std::size_t binsWithoutSigma() const noexcept;

    std::size_t binCount() const noexcept { return centres.size(); }
    /// DR and RR raw counts summed over random sets (the CSV's DR, RR columns).
    std::vector<std::uint64_t> drSummed() const;
    std::vector<std::uint64_t> rrSummed() const;
};

struct JobProgress {
    double fraction = 0; // 0..1 of all pairs
    std::uint64_t pairsDone = 0;
    std::uint64_t pairsTotal = 0;
    double pairsPerSecond = 0;
    double elapsedSeconds = 0;
    /// Estimate from the counts so far (normalised by pairs visited); null when none yet.
    std::shared_ptr<const CorrelationResult> partial;
};

class CorrelationJob {
public:
    using ProgressCallback = std::function<void(const JobProgress&)>;

    /// `backends`: what params.backend.name is chosen from (by default the CPU alone).
    explicit CorrelationJob(CorrelationParams params, BackendRegistry backends = {});

    /// Runs on the calling thread; progress is reported on it too. Throws ConfigError (bad bins,
    /// no randoms, empty catalog, bad jackknife settings, jackknife on an explicitly chosen
    /// backend that cannot count by region, Auto falls back to the CPU with a notice; a jackknife
    /// whose estimateJackknifeMemory exceeds checkJackknifeMemory's limit, before any counting),
    /// BackendUnavailable; a cancel request gives status Cancelled with no counts. Partial
    /// results in progress reports carry no jackknife fields.
    CorrelationResult run(const ProgressCallback& onProgress = {},
                          const std::atomic<bool>* cancelRequested = nullptr);

    const CorrelationParams& params() const noexcept { return m_params; }

private:
    CorrelationParams m_params;
    BackendRegistry m_backends;
};

} // namespace tpacf
