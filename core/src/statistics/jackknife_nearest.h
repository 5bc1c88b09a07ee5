// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the jackknife code: the nearest-centre scan that k-means and the assignment of
// whole catalogs share (jackknife_regions.cpp, jackknife_nearest.cpp).
#include "tpacf/jackknife.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace tpacf::jackknife_detail {

// Point-centre dot products a worker gets at least: below that a thread costs more than it
// saves (K = 32: 125 000 points a worker; a k-means step on 10 000 sampled points runs inline).
inline constexpr std::size_t kDotsPerWorker = 4000000;

inline std::size_t pointsPerWorker(std::size_t centres) {
    return std::max<std::size_t>(1, kDotsPerWorker / std::max<std::size_t>(1, centres));
}

// Centres as three arrays, read in order for every point.
struct CentreArrays {
    std::vector<double> x, y, z;

    explicit CentreArrays(std::span<const RegionCentre> centres) {
        for (const RegionCentre& c : centres) {
            x.push_back(c.x);
            y.push_back(c.y);
            z.push_back(c.z);
        }
    }
};

// out[i] = the centre with the largest dot product with point i, the lowest index on ties.
// A plain scan per point: blocks of points against one centre with a vectorised select were
// 2 to 7 times slower with SSE2 (the compiler keeps the select as a branch), and the scan runs
// at about 1 ns a point-centre pair.
inline void nearestCentres(const double* px, const double* py, const double* pz, std::size_t n,
                           const CentreArrays& centres, std::int32_t* out) noexcept {
    const std::size_t k = centres.x.size();
    const double* cx = centres.x.data();
    const double* cy = centres.y.data();
    const double* cz = centres.z.data();
    for (std::size_t i = 0; i < n; ++i) {
        const double x = px[i], y = py[i], z = pz[i];
        std::int32_t best = 0;
        double bestDot = -std::numeric_limits<double>::infinity();
        for (std::size_t c = 0; c < k; ++c) {
            const double d = x * cx[c] + y * cy[c] + z * cz[c];
            if (d > bestDot) {
                bestDot = d;
                best = static_cast<std::int32_t>(c);
            }
        }
        out[i] = best;
    }
}

} // namespace tpacf::jackknife_detail
