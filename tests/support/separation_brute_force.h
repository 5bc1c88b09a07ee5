// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The independent reference of the mean-separation suites (CPU, without Qt for the GPU suite
// too): every pair visited in a plain double loop, binned as the counting contract says (c² from
// the unit vectors' differences, Binning::binOfChord2), its angle measured apart from the c²
// route, in long double from the same double unit vectors (atan2(|u × v|, u · v), accurate at 0
// and at 180°), and summed in long double. A suite built with -ffp-contract=off rounds c² as the
// backends do.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace tpacf::test {

struct SeparationReference {
    std::vector<std::uint64_t> pairs;
    std::vector<long double> weight, theta, logTheta;
    // Σ|w·θ| and Σ|w·ln θ| per bin: the scale the tolerance is relative to.
    std::vector<long double> thetaScale, logScale, weightScale;
};

/// The angle between two points in radians from the catalogs' unit vectors (the double vectors
/// every backend starts from), by atan2(|u × v|, u · v) in long double: another route than the
/// chord, accurate at 0 and at 180°.
inline long double referenceAngle(const Catalog& a, std::size_t i, const Catalog& b,
                                  std::size_t j) {
    const long double u[3] = {a.x()[i], a.y()[i], a.z()[i]};
    const long double v[3] = {b.x()[j], b.y()[j], b.z()[j]};
    const long double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2],
                      cz = u[0] * v[1] - u[1] * v[0];
    const long double dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    return std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz), dot);
}

/// The reference sums of a's auto count (b null) or a × b; weighted where `weighted`.
inline SeparationReference separationReference(const Catalog& a, const Catalog* b,
                                               const Binning& binning, bool weighted) {
    const std::size_t bins = binning.count();
    SeparationReference ref{std::vector<std::uint64_t>(bins, 0),
                            std::vector<long double>(bins, 0), std::vector<long double>(bins, 0),
                            std::vector<long double>(bins, 0), std::vector<long double>(bins, 0),
                            std::vector<long double>(bins, 0), std::vector<long double>(bins, 0)};
    const Catalog& second = b ? *b : a;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = b ? 0 : i + 1; j < second.size(); ++j) {
            const double dx = a.x()[i] - second.x()[j], dy = a.y()[i] - second.y()[j],
                         dz = a.z()[i] - second.z()[j];
            const int bin = binning.binOfChord2(dx * dx + dy * dy + dz * dz);
            if (bin < 0)
                continue;
            const auto k = static_cast<std::size_t>(bin);
            const long double wi = weighted && a.hasWeights() ? a.weight()[i] : 1.0L;
            const long double wj = weighted && second.hasWeights() ? second.weight()[j] : 1.0L;
            const long double w = wi * wj;
            const long double theta = referenceAngle(a, i, second, j);
            const long double logTheta = std::log(theta);
            ref.pairs[k] += 1;
            ref.weight[k] += w;
            ref.theta[k] += w * theta;
            ref.logTheta[k] += w * logTheta;
            ref.weightScale[k] += std::fabs(w);
            ref.thetaScale[k] += std::fabs(w * theta);
            ref.logScale[k] += std::isfinite(logTheta) ? std::fabs(w * logTheta) : 0.0L;
        }
    return ref;
}

} // namespace tpacf::test
