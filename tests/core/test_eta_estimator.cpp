// SPDX-License-Identifier: GPL-3.0-or-later
// EtaEstimator against made-up clocks: a run's progress reported every 50 ms, a preparation
// before the counting, and a counting rate that is constant, jittered or drifting. After the
// first 10 % of the counting, the time left it gives is within ±30 % of the true time left
// (the bound) wherever that is more than a second; before that, and while preparing, it
// says it does not know.
#include "tpacf_test_main.h"
#include "tpacf/eta_estimator.h"

#include <QtTest>

#include <cmath>
#include <random>

using tpacf::EtaEstimator;

class TestEtaEstimator : public QObject {
    Q_OBJECT
private slots:
    void withinThirtyPercent_data();
    void withinThirtyPercent();
    void unknownWhilePreparingAndAtTheStart();
};

void TestEtaEstimator::withinThirtyPercent_data() {
    QTest::addColumn<double>("prepareSeconds");
    QTest::addColumn<double>("countSeconds");
    QTest::addColumn<double>("jitter"); // relative rate noise per 50 ms step
    QTest::addColumn<double>("drift");  // rate at the end over the rate at the start
    // The run of the issue: 10 s of preparation, then 139 s of counting.
    QTest::newRow("149 s run, steady") << 10.0 << 139.0 << 0.0 << 1.0;
    QTest::newRow("149 s run, jittered ±50 %") << 10.0 << 139.0 << 0.5 << 1.0;
    QTest::newRow("20 s run, drifting 1.2x faster") << 2.0 << 18.0 << 0.2 << 1.2;
    QTest::newRow("20 s run, drifting 1.2x slower") << 2.0 << 18.0 << 0.2 << 1.0 / 1.2;
    QTest::newRow("no preparation") << 0.0 << 30.0 << 0.3 << 1.0;
}

void TestEtaEstimator::withinThirtyPercent() {
    QFETCH(double, prepareSeconds);
    QFETCH(double, countSeconds);
    QFETCH(double, jitter);
    QFETCH(double, drift);
    // The work rate r(t) = r0 · (1 + (drift − 1)·t/T), scaled so the work ends at countSeconds;
    // the reports see the fraction done, each step's progress jittered (same total).
    const double step = 0.05;
    const int steps = static_cast<int>(std::lround(countSeconds / step));
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> noise(1.0 - jitter, 1.0 + jitter);
    std::vector<double> increments(steps);
    double sum = 0;
    for (int i = 0; i < steps; ++i) {
        const double t = (i + 0.5) * step / countSeconds;
        increments[i] = (1.0 + (drift - 1.0) * t) * noise(random);
        sum += increments[i];
    }

    EtaEstimator eta;
    for (double t = 0; t < prepareSeconds; t += step)
        eta.observe(t, 0.0, true);
    double fraction = 0;
    int checked = 0;
    double worst = 0;
    for (int i = 0; i < steps; ++i) {
        fraction += increments[i] / sum;
        const double now = prepareSeconds + (i + 1) * step;
        eta.observe(now, std::min(fraction, 1.0));
        const double trueLeft = prepareSeconds + countSeconds - now;
        if (fraction < 0.1 || trueLeft < 1.0)
            continue;
        const double left = eta.remainingSeconds();
        QVERIFY2(left >= 0, qPrintable(QStringLiteral("unknown at %1 s").arg(now)));
        const double error = std::abs(left - trueLeft) / trueLeft;
        worst = std::max(worst, error);
        QVERIFY2(error <= 0.3, qPrintable(QStringLiteral("at %1 s (%2 % done): %3 s left, truly %4")
                                              .arg(now)
                                              .arg(100 * fraction, 0, 'f', 1)
                                              .arg(left)
                                              .arg(trueLeft)));
        ++checked;
    }
    QVERIFY(checked > steps / 2);
    qInfo("%d reports checked, worst error %.1f %%", checked, 100 * worst);
}

void TestEtaEstimator::unknownWhilePreparingAndAtTheStart() {
    EtaEstimator eta;
    QCOMPARE(eta.remainingSeconds() < 0, true);
    eta.observe(5.0, 0.0, true);
    QVERIFY(eta.remainingSeconds() < 0);
    // Counting for 0.2 s only: too early to tell.
    eta.observe(5.2, 0.05);
    QVERIFY(eta.remainingSeconds() < 0);
    // 1 s of counting (from the last report of preparation) for 10 %: 9 s left.
    eta.observe(6.0, 0.10);
    QCOMPARE(eta.remainingSeconds(), 9.0);
    eta.observe(15.0, 1.0);
    QCOMPARE(eta.remainingSeconds(), 0.0);
}

TPACF_TEST_MAIN(TestEtaEstimator)
#include "test_eta_estimator.moc"
