// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalog_stats.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace tpacf::ui {

CatalogStats CatalogStats::compute(const Catalog& catalog, CoordinateUnits units) {
    CatalogStats stats;
    stats.extent = catalog.extent();
    stats.ranges = CoordinateRanges::of(catalog, units);
    stats.occupancy = std::make_shared<const SkyOccupancy>(SkyOccupancy::of(catalog));
    if (catalog.hasWeights()) {
        stats.weights = WeightSums::of(catalog);
        stats.negativeWeights = static_cast<std::uint64_t>(std::count_if(
            catalog.weight().begin(), catalog.weight().end(), [](double w) { return w < 0; }));
    }
    return stats;
}

CatalogStats catalogStats(const std::shared_ptr<const Catalog>& catalog, CoordinateUnits units) {
    if (!catalog) {
        CatalogStats none;
        none.occupancy = std::make_shared<const SkyOccupancy>();
        return none;
    }
    struct Kept {
        std::weak_ptr<const Catalog> catalog; // weak: a freed catalog's address may be reused
        CoordinateUnits units;
        CatalogStats stats;
    };
    static std::mutex mutex;
    static std::vector<Kept> kept;
    {
        const std::lock_guard lock(mutex);
        std::erase_if(kept, [](const Kept& entry) { return entry.catalog.expired(); });
        for (const Kept& entry : kept)
            if (entry.units == units && entry.catalog.lock() == catalog)
                return entry.stats;
    }
    // Outside the lock: another thread may look up other catalogs meanwhile.
    const CatalogStats stats = CatalogStats::compute(*catalog, units);
    const std::lock_guard lock(mutex);
    kept.push_back({catalog, units, stats});
    return stats;
}

} // namespace tpacf::ui
