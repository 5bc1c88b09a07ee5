// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a correlation run gives: the bins, the counts, w(θ), its jackknife errors and the run's
// provenance. Its own header so that what reads or fits a result (power_law_fit.h, result_io.h,
// result_reader.h) needs no job; correlation_job.h includes it.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/culling.h"
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"
#include "tpacf/pair_counter.h"
#include "tpacf/separation_moments.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tpacf {

struct CountStore; // count_store.h

enum class JobStatus { Completed, Cancelled };

/// Name and size of one input, for metadata; its weight sums where it carries weights.
struct InputSummary {
    std::string name;
    std::uint64_t size = 0;
    bool weighted = false;             // the catalog has a weight column
    double weightSum = 0;              // Σw (N without weights)
    double weightSquareSum = 0;        // Σw² (N without weights)
    std::uint64_t negativeWeights = 0; // points with w < 0
    CatalogOrigin origin{};            // how it was read: columns, unit, selection, rows
    std::string fingerprint{};         // content fingerprint (count_store.h), 32 hex digits

    /// Everything but the fingerprint, which the job takes with the others in parallel.
    static InputSummary of(const Catalog& catalog);
};

/// The mean separation per bin of one kind of count (CorrelationParams::meanSeparation): "DD",
/// "DR", "RD" or "RR" as the table's count columns name them (the random sets pooled: Σ over
/// DR_1…DR_n of the sums, then the ratio). theta: ⟨θ⟩ in the bins' unit; logTheta: ⟨ln θ⟩ with θ
/// in that unit; pair-weighted (w_i·w_j) in a weighted run. NaN where a bin holds no pairs.
struct MeanSeparation {
    std::string label;
    std::vector<double> theta;
    std::vector<double> logTheta;
    std::vector<std::uint64_t> pairs; // the pairs behind the means (the double reference's)
};

/// The means of `moments` in `unit` (⟨θ⟩ scaled, ⟨ln θ⟩ shifted by ln(units per radian)),
/// labelled.
MeanSeparation meanSeparationOf(const SeparationMoments& moments, std::string label,
                                AngleUnit unit);

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
    /// How the precision was chosen: "requested", or the auto rule's reason (BackendSelection).
    std::string precisionChoice;
    std::string backendNotice; // e.g. the fallback to the CPU; "" when none
    /// How many GPUs counted and why, where the job chose them ("auto device count: 1 of 4
    /// GPUs, ..."); "" for the CPU and for GPUs asked for. Also one of `notes` (the metadata).
    std::string deviceChoice;
    /// Spatial culling: the mode asked for (BackendOptions::culling) and whether the counts
    /// visited only the cell pairs within reach of the bins (false: every pair computed), as the
    /// backend reported it (PairCounter::lastBatchCulled). In a partial result, what the backend
    /// reports while the batch runs.
    CullingMode cullingRequested = CullingMode::Auto;
    bool culled = false;
    double elapsedSeconds = 0;
    /// The processes that counted, where a run was split across MPI ranks: one line per rank,
    /// "rank 1 on node07: cuda, NVIDIA H100 80GB HBM3 (1 GPU), float". Empty for one process.
    std::vector<std::string> processes;
    /// Where elapsedSeconds went, stage by stage in order ("backend", "jackknife regions",
    /// "fingerprints", "count", "estimate"): what `tpacf run --timings` prints.
    std::vector<std::pair<std::string, double>> stageSeconds;
    std::string invocation; // CorrelationParams::invocation
    std::string jobFilePath, jobFileText; // CorrelationParams::jobFilePath, jobFileText
    InputSummary data;
    std::vector<InputSummary> randoms;
    /// Cross mode: the second sample and its randoms (empty where it uses the first's).
    InputSummary data2;
    std::vector<InputSummary> randoms2;
    /// Lines a reader of the result must see: negative weights, the second sample counted
    /// against the first's randoms. Frontends print them; the CSV carries them.
    std::vector<std::string> notes;
    /// Counts taken from CorrelationParams::reuse, one line per source: "RR_1, RR_2 from
    /// run.counts.json". Empty when every count was counted.
    std::vector<std::string> reusedCounts;
    /// Every count of the run with its bins and catalog fingerprints (reused ones included),
    /// when CorrelationParams::collectCounts asked for it; null otherwise.
    std::shared_ptr<const CountStore> counts;

    /// --mean-theta: one entry per kind of count, DD first; empty where not asked for.
    std::vector<MeanSeparation> meanSeparations;
    /// The entry of `label` ("DD", ...), or null.
    const MeanSeparation* meanSeparation(const std::string& label) const noexcept;

    bool isCross() const noexcept { return raw.cross; }
    bool isWeighted() const noexcept { return raw.weighted; }

    /// Jackknife (empty / zero without it): σ(θ) per bin, the bins × bins covariance (row-major)
    /// with the (K−1)/K factor, the K leave-one-out w samples, and the regions.
    std::vector<double> wError;
    std::vector<double> covariance;
    std::vector<std::vector<double>> jackknifeSamples;
    JackknifeRegionsSummary jackknifeRegions;
    /// Bootstrap (JackknifeSettings::bootstrapSamples, bootstrap.h): the regions each of the B
    /// samples drew; wError, covariance (1/(B−1)) and jackknifeSamples (B rows) are then the
    /// bootstrap's. Empty for a jackknife.
    std::vector<std::vector<std::uint32_t>> bootstrapSelections;

    bool hasJackknife() const noexcept { return !wError.empty(); }
    bool hasBootstrap() const noexcept { return !bootstrapSelections.empty(); }
    /// How the samples weighed pairs between regions: the settings' choice, or the method's
    /// default where the result does not say (a result read back from an older file).
    CrossRegionWeight crossRegionWeight() const noexcept {
        return jackknifeRegions.settings.crossRegionWeight.value_or(
            hasBootstrap() ? CrossRegionWeight::Mean : CrossRegionWeight::Simple);
    }
    /// Bins with a finite w but no jackknife σ (a leave-one-out sample has no pairs there):
    /// frontends say so, since a point without an error bar must not read as exact.
    std::size_t binsWithoutSigma() const noexcept;

    std::size_t binCount() const noexcept { return centres.size(); }
    /// DR, RD and RR raw counts summed over random sets (the CSV's DR, RD, RR columns).
    std::vector<std::uint64_t> drSummed() const;
    std::vector<std::uint64_t> rdSummed() const;
    std::vector<std::uint64_t> rrSummed() const;
    /// The weighted sums alike (empty unless weighted).
    std::vector<double> drWeightedSummed() const;
    std::vector<double> rdWeightedSummed() const;
    std::vector<double> rrWeightedSummed() const;
};

} // namespace tpacf
