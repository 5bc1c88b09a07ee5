// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The mean-separation suites' comparison with the brute force of separation_brute_force.h, as Qt
// Test checks.
#include "separation_brute_force.h"
#include "tpacf/separation_moments.h"

#include <QString>
#include <QtTest/QtTest>

#include <cmath>

namespace tpacf::test {

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
