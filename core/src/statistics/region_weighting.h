// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the statistics: a jackknife or bootstrap sample as weights on the regions, for
// the samples that weigh the pairs between two regions apart from those inside one
// (cross_region_weight.h). With g_ii the weight of region i's inner pairs and g_ij that of the
// pairs between regions i and j, a sample's count is Σ g_ij n_ij and its pair total the same sum
// of the pair totals: the pairs of two catalogs X, Y total B(X, Y) = Σ_ij g_ij X_i Y_j, those of
// one catalog (B(X, X) − Σ_i g_ii S_i) / 2 (distinct pairs: X_i are Σw or N per region, S_i Σw²
// or N). Every weighting here has B, and the count from per-region tallies, in closed form.
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tpacf::detail {

/// A catalog's sums as a sample weighs them: the whole catalog's, and per region.
struct CatalogSums {
    WeightSums whole;
    const RegionShares* regions = nullptr;
    bool weighted = false; ///< false: every weight 1 (sums are point counts)

    WeightSums region(std::size_t r) const;
};

class RegionWeighting {
public:
    virtual ~RegionWeighting() = default;
    /// The sample's count in `bin` from a count's region tallies: the weighted sums, or the
    /// pairs themselves.
    virtual double count(const RegionPairCounts& counts, std::size_t bin, bool weighted) const = 0;
    /// B(X, Y) = Σ_ij g_ij X_i Y_j over the catalogs' sums.
    virtual double bilinear(const CatalogSums& x, const CatalogSums& y) const = 0;
    /// Σ_i g_ii X_i and Σ_i g_ii S_i: the sample's share of a catalog.
    virtual WeightSums kept(const CatalogSums& x) const = 0;
};

/// Leaving out one region, with pairs between it and the others counted `crossWeight`.
class LeaveOneOutWeighting final : public RegionWeighting {
public:
    LeaveOneOutWeighting(std::size_t region, double crossWeight)
        : m_region(region), m_cross(crossWeight) {}
    double count(const RegionPairCounts& counts, std::size_t bin, bool weighted) const override;
    double bilinear(const CatalogSums& x, const CatalogSums& y) const override;
    WeightSums kept(const CatalogSums& x) const override;

private:
    std::size_t m_region;
    double m_cross;
};

/// A bootstrap draw of regions (a region drawn twice weighs 2) with pairs between two regions
/// weighing the mean of their weights: TreeCorr's bootstrap with cross_patch_weight 'mean'. A
/// region's count is then its inner pairs whole and half of those leaving it, Loh's (2008)
/// marks: Σ_i m_i (touching_i + within_i) / 2; B(X, Y) = (X_b·Y + X·Y_b) / 2.
class BootstrapMeanWeighting final : public RegionWeighting {
public:
    explicit BootstrapMeanWeighting(std::span<const std::uint32_t> selection)
        : m_selection(selection) {}
    double count(const RegionPairCounts& counts, std::size_t bin, bool weighted) const override;
    double bilinear(const CatalogSums& x, const CatalogSums& y) const override;
    WeightSums kept(const CatalogSums& x) const override;

private:
    std::span<const std::uint32_t> m_selection;
};

/// Throws ConfigError where the counts of `counts` hold another number of random sets than its
/// catalogs (DR, RR, RD and the randoms' shares, one each per set).
void requireRandomSets(const JackknifeCounts& counts);

/// The counts, catalog shares and pair totals (RawCounts::givenTotals) of the sample that
/// `weighting` describes, as weighted counts (RawCounts::weighted): the raw integer counts hold
/// the pairs' weighted sum rounded, for the record.
RawCounts weighedSample(const JackknifeCounts& counts, const RegionWeighting& weighting);

} // namespace tpacf::detail
