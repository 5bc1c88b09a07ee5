// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the window shows of a catalog that takes a pass over all its points: its extent on the
// sky, the values its file held (for the unit check), its weight sums, the sky cells it covers
// (for the footprint check). Computed once per catalog
// and kept while the catalog lives: the loader's thread computes them right after reading, so
// the window's thread only looks them up (a pass over 10^7 points would stall the window).
#include <tpacf/catalog.h>
#include <tpacf/estimator.h>
#include <tpacf/footprint.h>
#include <tpacf/unit_guess.h>

#include <cstdint>
#include <memory>

namespace tpacf::ui {

struct CatalogStats {
    SkyExtent extent;
    CoordinateRanges ranges; ///< in the units the catalog was read in
    WeightSums weights;      ///< zero without weights
    std::uint64_t negativeWeights = 0;
    /// The sky cells its points fall in (SkyOccupancy::of, subsampled as there): the footprint
    /// check merges the randoms' instead of going over their points again.
    std::shared_ptr<const SkyOccupancy> occupancy;

    /// Computed now, over every point.
    static CatalogStats compute(const Catalog& catalog, CoordinateUnits units);
};

/// The stats of `catalog` read in `units`: the kept ones where they were computed before for
/// this catalog and these units, else computed now and kept. Thread-safe. A null catalog gives
/// the stats of an empty one.
CatalogStats catalogStats(const std::shared_ptr<const Catalog>& catalog, CoordinateUnits units);

} // namespace tpacf::ui
