// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Jackknife error bars: sky regions, and statistics from per-region pair counts.
#include "tpacf/catalog.h"
#include "tpacf/cross_region_weight.h"
#include "tpacf/estimator.h"
#include "tpacf/pair_counter.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tpacf {

/// A region centre: a unit vector.
struct RegionCentre {
    double x = 0, y = 0, z = 1;
};

/// Regions as they can be saved and given again (--save-regions, --regions; regions_file.h), so
/// that two redshift slices, or data and mocks, share them.
struct RegionsDefinition {
    enum class Kind { KMeans, Healpix };
    Kind kind = Kind::KMeans;
    /// k-means: one centre per region (a point's region is its nearest centre), and the largest
    /// distance (chord) of a point (data or random) from its centre when the regions were made:
    /// a point beyond 1.5 times that (plus 0.1°) from its nearest centre is "far from every
    /// centre".
    std::vector<RegionCentre> centres;
    std::vector<double> radii;
    /// HEALPix: NESTED pixels at this NSIDE; region r holds pixels firstPixels[r] up to
    /// firstPixels[r + 1] (the last: to the end of the sphere), firstPixels[0] = 0.
    std::int64_t nside = 0;
    std::vector<std::uint64_t> firstPixels;
    std::string method; ///< as JackknifeRegionsSummary::method says it

    int count() const noexcept {
        return static_cast<int>(kind == Kind::KMeans ? centres.size() : firstPixels.size());
    }
};

/// How to split the footprint. regions = K ≥ 2: equal-count regions grown on the sphere
/// (k-means on unit vectors of a subsample of the data; every point to its nearest centre).
/// regionColumn set: regions taken from that catalog column instead (integer labels).
struct JackknifeSettings {
    int regions = 0;
    std::string regionColumn;
    std::uint64_t seed = 1;
    /// > 0: HEALPix regions at this NSIDE (a power of 2 up to 8192) instead of k-means:
    /// `regions` runs of the data's occupied pixels in NESTED order of near-equal data weight.
    std::int64_t healpixNside = 0;
    /// Regions given (a regions file): used as they are; `regions` and `healpixNside`, where
    /// set, must agree with them.
    std::shared_ptr<const RegionsDefinition> given;
    /// > 0: the error bars from this many bootstrap resamplings of the regions (bootstrap.h)
    /// instead of the jackknife; seeded by bootstrapSeed.
    int bootstrapSamples = 0;
    std::uint64_t bootstrapSeed = 1;
    /// How samples weigh the pairs between two regions (cross_region_weight.h); unset: the
    /// method's default (effectiveCrossRegionWeight).
    std::optional<CrossRegionWeight> crossRegionWeight;

    /// The weighting the job uses (throws ConfigError for one its method does not take).
    CrossRegionWeight crossWeight() const {
        return effectiveCrossRegionWeight(crossRegionWeight, bootstrapSamples > 0);
    }

    bool enabled() const noexcept {
        return regions > 0 || !regionColumn.empty() || given != nullptr;
    }
};

/// The regions a job used, for output and the GUI's region map.
struct JackknifeRegionsSummary {
    int count = 0;
    std::string method;                         // "k-means (seed 1)" or "column 'patch'"
    std::vector<std::uint64_t> dataPerRegion;   // count entries
    std::vector<std::uint64_t> randomPerRegion; // summed over random sets
    std::vector<std::string> warnings;          // empty or tiny regions, one line each
    std::shared_ptr<const std::vector<std::int32_t>> dataRegions; // region of each data point
    /// What assigned them (K, seed or column): the same call on the same catalogs gives the
    /// same regions, so a saved result's region map can be drawn again without storing it.
    JackknifeSettings settings;
    /// The regions as a regions file holds them (k-means and HEALPix; null for a column).
    std::shared_ptr<const RegionsDefinition> definition;
};

/// Smallest and largest region counts accepted: one place for the core, the GUI's spin box, the
/// CLI and the GPU backend (memory and the k-means cost grow with K; see
/// estimateJackknifeMemory for what a K and a bin count cost together).
inline constexpr int kMinJackknifeRegions = 2;
inline constexpr int kMaxJackknifeRegions = 10000;

/// Throws ConfigError unless kMinJackknifeRegions ≤ regions ≤ kMaxJackknifeRegions. Frontends
/// call it for a count the user gave explicitly (a 0 the user typed is an error, not "off").
void validateJackknifeRegionCount(int regions);

/// What a jackknife job will hold in memory for its region-keyed counts and statistics, by stage
/// (bytes; the catalogs come on top). Per-region counts are K × bins 64-bit counters per count,
/// so K = 3000 regions and 3000 bins cost 72 MB per array, and a job has three arrays for each
/// of its 1 + 2·randomSets counts while it counts.
struct JackknifeMemory {
    std::size_t regions = 0, bins = 0, randomSets = 0, threads = 0;
    /// While counting, the larger of the two backends' needs. CPU: each count's per-region
    /// tallies (pairs by first point, by second point, within one region; three arrays) and
    /// every thread's rows for the regions its work touches. GPU: the host copy of each count's
    /// counters and the per-region counts split from it (four arrays), whatever the threads.
    std::uint64_t counting = 0;
    /// After counting: the per-region counts the job keeps (touching and within per count), the
    /// K leave-one-out samples, their deviations from the mean and the bins × bins covariance.
    std::uint64_t statistics = 0;
    /// In the result: the samples and the covariance, and the correlation matrix and colour map
    /// of bins × bins values that the GUI draws.
    std::uint64_t result = 0;

    /// The most held at one time: the largest stage.
    std::uint64_t peak() const noexcept;
    /// "jackknife with K = 3000 regions, 3000 bins and 1 random set needs about 824 MiB of
    /// memory besides the catalogs (counting on 2 threads 824 MiB, covariance 618 MiB, result
    /// 275 MiB)": one line for a notice or an error.
    std::string describe() const;
};

/// The memory estimate of a jackknife job with these parameters; threads <= 0: all hardware
/// threads (as the CPU backend takes them).
JackknifeMemory estimateJackknifeMemory(std::size_t regions, std::size_t bins,
                                        std::size_t randomSets, int threads);

/// Physical memory of this machine in bytes (sysconf); 0 where the system does not say.
std::uint64_t physicalMemoryBytes();

/// The share of physical memory a jackknife job may plan to hold: the catalogs, a frontend and
/// the system need the rest, and a job that swaps at this size would not finish.
inline constexpr double kJackknifeMemoryShare = 0.75;

/// Throws ConfigError, with the estimate and the limit in the message, when `memory.peak()`
/// exceeds `limitBytes`. limitBytes == 0: kJackknifeMemoryShare of physicalMemoryBytes() (no
/// check where the system does not say).
void checkJackknifeMemory(const JackknifeMemory& memory, std::uint64_t limitBytes = 0);

/// Above this estimate frontends say before a run how much memory the jackknife will take.
inline constexpr std::uint64_t kJackknifeMemoryNoticeBytes = std::uint64_t{1} << 30;

/// "812 KiB", "648 MiB", "9.1 GiB": binary units, as memory is sized.
std::string formatBytes(std::uint64_t bytes);

/// Centres of `regions` roughly equal-count regions: spherical k-means (k-means++ start, then
/// at most 50 Lloyd steps) on the unit vectors of a seeded subsample of `data`: min(N,
/// max(10 000, 40·K)) points drawn without replacement (Floyd's algorithm on SplitMix64 from
/// `seed`), in catalog order. Deterministic for a seed and the same for any `threads` (the
/// Lloyd steps' labels may be found on several threads; the means are summed on one).
/// Throws ConfigError when the count is invalid or exceeds the data's distinct positions.
std::vector<RegionCentre> kMeansRegionCentres(const Catalog& data, int regions, std::uint64_t seed,
                                              int threads = 0);

/// Region of every point: the index of the nearest centre (largest dot product; the lowest
/// index on ties). threads <= 0: all hardware threads; the result does not depend on them.
std::vector<std::int32_t> nearestCentreRegions(const Catalog& catalog,
                                               std::span<const RegionCentre> centres,
                                               int threads = 0);

/// nearestCentreRegions of several catalogs at once (one vector per catalog, in order), on one
/// set of workers that share all their points.
std::vector<std::vector<std::int32_t>>
nearestCentreRegionsOf(std::span<const Catalog* const> catalogs,
                       std::span<const RegionCentre> centres, int threads = 0);

/// Regions of a job's catalogs, 0..count−1, data and randoms on the same regions.
struct RegionAssignment {
    int count = 0;
    std::string method;                             // as in JackknifeRegionsSummary
    std::vector<std::int32_t> data;                 // one per data point
    std::vector<std::vector<std::int32_t>> randoms; // one vector per random set
    std::vector<std::int32_t> columnLabels;         // column method: the label of each region
    std::shared_ptr<const RegionsDefinition> definition; // k-means and HEALPix
};

/// HEALPix regions grown on the data (JackknifeSettings::healpixNside): the occupied pixels at
/// `nside` in NESTED order (the HEALPix Z-order curve, which keeps a run of pixels compact) cut
/// into `regions` runs holding near-equal data weight (Σw, or points without weights): region
/// r begins at the first occupied pixel where the weight before it reaches r/K of the total,
/// each holding at least one occupied pixel. Pixels without data belong to the run they fall
/// in. ConfigError for a bad NSIDE, fewer occupied pixels than regions, a build without
/// healpix-cxx.
RegionsDefinition healpixRegions(const Catalog& data, int regions, std::int64_t nside,
                                 int threads = 0);

/// Region of every point under a definition (nearest centre, or the run of its pixel).
std::vector<std::int32_t> regionsOf(const Catalog& catalog, const RegionsDefinition& definition,
                                    int threads = 0);

/// Column method: maps the integer labels that the readers put in Catalog::region() onto
/// 0..K−1 in sorted order, over the union of all catalogs (so data and randoms agree).
/// Throws ConfigError naming a catalog without labels, or when fewer than 2 labels occur.
RegionAssignment remapRegionLabels(const Catalog& data, std::span<const Catalog* const> randoms,
                                   const std::string& column);

/// The regions `settings` ask for: k-means regions grown on the data, or the labels of
/// settings.regionColumn (remapRegionLabels). Throws ConfigError for K < 2 (K = 1, negative),
/// K > kMaxJackknifeRegions, K larger than the data, a region count that contradicts the column.
RegionAssignment assignJackknifeRegions(const JackknifeSettings& settings, const Catalog& data,
                                        std::span<const Catalog* const> randoms, int threads = 0);

/// Points per region and warnings for empty or tiny regions (fewer than a quarter of the mean).
JackknifeRegionsSummary summariseRegions(const RegionAssignment& assignment);

/// A copy of `catalog` with `regions` attached and its points stably ordered by region (the
/// order that counting by region wants; no pair changes). Coordinates are bit-identical.
/// Throws ConfigError for a negative region or a region list of another size. threads <= 0:
/// all hardware threads; the copy does not depend on them.
Catalog regionOrderedCopy(const Catalog& catalog, const std::vector<std::int32_t>& regions,
                          int threads = 0);

/// regionOrderedCopy of several catalogs at once (regions[i] for catalogs[i]), their points
/// shared by one set of workers.
std::vector<Catalog> regionOrderedCopies(std::span<const Catalog* const> catalogs,
                                         std::span<const std::vector<std::int32_t>* const> regions,
                                         int threads = 0);

/// A catalog's share of each jackknife region: its points and their weight sums (N and N
/// per region without weights), summed in point order.
struct RegionShares {
    std::vector<std::uint64_t> points; // one per region
    std::vector<WeightSums> weights;   // one per region

    /// From the regions the catalog carries (Catalog::region(), values in [0, regionCount)).
    /// threads <= 0: all hardware threads; the shares are the same for any (each region's
    /// weights are still summed in point order).
    static RegionShares of(const Catalog& catalog, std::size_t regionCount, int threads = 0);
};

/// Per-region counts of one job and what normalising each leave-one-out sample needs: the
/// whole job's RawCounts (its sizes, weight sums, and whether cross and weighted; its counts
/// are not read) and every catalog's share of every region. dr, rd, rr: one per random set,
/// rd only in cross mode; data2 and randoms2 only in cross mode (randoms2 only where D2 has
/// randoms of its own).
struct JackknifeCounts {
    RawCounts whole;
    RegionPairCounts dd;
    std::vector<RegionPairCounts> dr, rd, rr;
    RegionShares data, data2;
    std::vector<RegionShares> randoms, randoms2;
};

/// The raw counts, catalog sizes and weight sums of the sample without `region` (N_D^(k),
/// N_Ri^(k), Σw^(k), Σw²^(k)); the weighted sums without the pairs touching it. With a
/// crossWeight other than simple, the pairs between `region` and the rest count
/// jackknifeCrossWeight(crossWeight, K) each, in the counts (then weighted sums) and in the pair
/// totals they are divided by (RawCounts::givenTotals) alike, as TreeCorr's cross_patch_weight.
RawCounts leaveOneOutCounts(const JackknifeCounts& counts, std::size_t region,
                            CrossRegionWeight crossWeight = CrossRegionWeight::Simple);

/// w of every leave-one-out sample: samples[k][bin].
std::vector<std::vector<double>>
leaveOneOutSamples(Estimator estimator, const JackknifeCounts& counts,
                   CrossRegionWeight crossWeight = CrossRegionWeight::Simple);

/// Jackknife mean, σ and covariance (row-major bins × bins) of K samples:
/// C_ij = (K−1)/K Σ_k (w_k,i − w̄_i)(w_k,j − w̄_j), σ_i = √C_ii. Throws ConfigError for K < 2.
/// One O(K · bins²/2) pass, summing over k in sample order (the result is bit for bit that of
/// the formula evaluated pair by pair); exactly symmetric. Holds K × bins deviations besides.
struct JackknifeStatistics {
    std::vector<double> mean, sigma, covariance;
};
JackknifeStatistics jackknifeStatistics(const std::vector<std::vector<double>>& samples);
/// The same for B bootstrap samples: C_ij = 1/(B−1) Σ_b (w_b,i − w̄_i)(w_b,j − w̄_j).
JackknifeStatistics bootstrapStatistics(const std::vector<std::vector<double>>& samples);

/// Correlation matrix C_ij / (σ_i σ_j) of a row-major bins × bins covariance (NaN where σ = 0).
std::vector<double> correlationMatrix(std::span<const double> covariance, std::size_t bins);

} // namespace tpacf
