#pragma once
// Jackknife error bars: sky regions, and statistics from per-region pair counts.
#include "tpacf/catalog.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tpacf {

/// How to split the footprint. regions = K ≥ 2: equal-count regions grown on the sphere
/// (k-means on unit vectors of a subsample of the data; every point to its nearest centre).
/// regionColumn set: regions taken from that catalog column instead (integer labels).
struct JackknifeSettings {
    int regions = 0;
    std::string regionColumn;
    std::uint64_t seed = 1;

    bool enabled() const noexcept { return regions > 0 || !regionColumn.empty(); }
};

/// The regions a job used, for output and the GUI's region map.
struct JackknifeRegionsSummary {
    int count = 0;
    std::string method;                          // "k-means (seed 1)" or "column 'patch'"
    std::vector<std::uint64_t> dataPerRegion;    // count entries
    std::vector<std::uint64_t> randomPerRegion;  // summed over random sets
    std::vector<std::string> warnings;           // empty or tiny regions, one line each
    std::shared_ptr<const std::vector<std::int32_t>> dataRegions; // region of each data point
};

} // namespace tpacf
