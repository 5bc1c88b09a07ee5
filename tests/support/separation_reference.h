// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The independent reference of the mean-separation suites (CPU and GPU): every pair visited in a
// plain double loop, binned as the counting contract says (c² from the unit vectors'
// differences, Binning::binOfChord2), its angle measured apart from the c² route, in long double
// from the same double unit vectors (atan2(|u × v|, u · v), accurate at 0 and at 180°), and
// summed in long double. A suite built with -ffp-contract=off rounds c² as the backends do.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/separation_moments.h"

#include <QString>
#include <QtTest/QtTest>

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

/// Fails the calling test (with the bin and both values) unless `got` bins the reference's pairs
/// exactly and its sums agree within `relative` of the sums' scale; a bin holding coincident
/// points (ln 0) must hold −inf in both.
inline void compareWithReference(const SeparationMoments& got, const SeparationReference& ref,
                                 double relative, const QString& what) {
    QCOMPARE(got.binCount(), ref.pairs.size());
    for (std::size_t k = 0; k < ref.pairs.size(); ++k) {
        const QString where = QStringLiteral("%1, bin %2").arg(what).arg(k);
        QVERIFY2(got.pairs[k] == ref.pairs[k],
                 qPrintable(where + QStringLiteral(": %1 pairs, reference %2")
                                        .arg(got.pairs[k])
                                        .arg(ref.pairs[k])));
        const auto close = [&](double value, long double expected, long double scale,
                               const char* name) {
            if (std::isinf(static_cast<double>(expected))) {
                QVERIFY2(value == static_cast<double>(expected),
                         qPrintable(where + QStringLiteral(": %1 = %2, reference %3")
                                                .arg(QLatin1String(name))
                                                .arg(value)
                                                .arg(static_cast<double>(expected))));
                return;
            }
            const long double gap = std::fabs(static_cast<long double>(value) - expected);
            QVERIFY2(gap <= relative * scale,
                     qPrintable(where + QStringLiteral(": %1 = %2, reference %3, off by %4 of "
                                                       "its scale")
                                            .arg(QLatin1String(name))
                                            .arg(value, 0, 'g', 17)
                                            .arg(static_cast<double>(expected), 0, 'g', 17)
                                            .arg(scale > 0 ? static_cast<double>(gap / scale)
                                                           : static_cast<double>(gap))));
        };
        close(got.weight[k], ref.weight[k], ref.weightScale[k], "sum w");
        close(got.theta[k], ref.theta[k], ref.thetaScale[k], "sum w theta");
        close(got.logTheta[k], ref.logTheta[k], ref.logScale[k], "sum w ln theta");
    }
}

} // namespace tpacf::test
