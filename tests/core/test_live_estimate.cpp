// SPDX-License-Identifier: GPL-3.0-or-later
// The live w(θ) a running job reports is an honest estimate: at a quarter, half and three
// quarters of a run on the bundled sample it lies within the final jackknife σ (or 10 %) of the
// final w in every bin whose live counts hold pairs enough for an estimate (≥ 100 in DD and in
// every DR_i and RR_i: Poisson scatter ≤ 10 %; a bin of 20 random pairs scatters by more than
// the final σ whatever the order of the work). A live estimate from a fraction f of the sky
// differs from the whole sky's with a scatter of σ·√(1/f − 1) (1.7 σ at f = 1/4, σ at 1/2), so
// the allowance is twice that where it exceeds σ: a bound of σ alone would fail an unbiased
// estimate by chance (about a third of the bins at f = 1/2). The estimates this replaced, or
// tiles of a brute-force count taken in list order, were off by 3 to 10 times that. Counted brute force the sample is a handful of tiles per
// count, too few for an even sample: then no live estimate is made at all. And the progress
// fraction never goes back and ends whole.
#include "tpacf_test_main.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/correlation_job.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

std::shared_ptr<const Catalog> sample(const std::string& name) {
    return std::make_shared<const Catalog>(
        readAsciiCatalog(std::string(TPACF_SOURCE_DIR) + "/resources/samples/" + name));
}

struct LiveReport {
    double coverage = 0;
    double fraction = 0;
    std::vector<double> w;
    RawCounts raw;
};

constexpr std::uint64_t kEnoughPairs = 100;

bool enoughPairs(const RawCounts& raw, std::size_t bin) {
    bool enough = raw.dd[bin] >= kEnoughPairs;
    for (const PairCounts& dr : raw.dr)
        enough = enough && dr[bin] >= kEnoughPairs;
    for (const PairCounts& rr : raw.rr)
        enough = enough && rr[bin] >= kEnoughPairs;
    return enough;
}

} // namespace

class TestLiveEstimate : public QObject {
    Q_OBJECT
private slots:
    void liveWithinFinalErrors_data();
    void liveWithinFinalErrors();
};

void TestLiveEstimate::liveWithinFinalErrors_data() {
    QTest::addColumn<int>("culling");
    QTest::addColumn<int>("regions");
    QTest::addColumn<bool>("expectLive");
    QTest::newRow("culling on, jackknife 16") << int(CullingMode::On) << 16 << true;
    QTest::newRow("culling on, no jackknife") << int(CullingMode::On) << 0 << true;
    QTest::newRow("culling off (too few tiles)") << int(CullingMode::Off) << 16 << false;
}

void TestLiveEstimate::liveWithinFinalErrors() {
    QFETCH(int, culling);
    QFETCH(int, regions);
    QFETCH(bool, expectLive);
    CorrelationParams p;
    p.data = sample("sample_data.txt");
    p.randoms = {sample("sample_random_1.txt"), sample("sample_random_2.txt")};
    p.bins = BinSpec::logCount(1.0, 1200.0, AngleUnit::Arcminute, 12);
    p.backend.name = "cpu";
    p.backend.cpuThreads = 2;
    p.backend.culling = static_cast<CullingMode>(culling);
    p.jackknife.regions = regions;
    // A live estimate at every report: the run on the sample is short.
    p.liveEstimateInterval = 0.0;

    std::vector<LiveReport> live;
    double previousFraction = 0;
    bool fractionWentBack = false;
    const CorrelationResult final = CorrelationJob(p).run([&](const JobProgress& progress) {
        fractionWentBack = fractionWentBack || progress.fraction < previousFraction;
        previousFraction = progress.fraction;
        if (progress.partial && progress.fraction < 1.0)
            live.push_back({progress.partialCoverage, progress.fraction, progress.partial->w,
                            progress.partial->raw});
    });
    QCOMPARE(int(final.status), int(JobStatus::Completed));
    QVERIFY(!fractionWentBack);
    QCOMPARE(previousFraction, 1.0);
    // Without jackknife regions (the plain count path) σ comes from a run with them.
    std::vector<double> sigma = final.wError;
    if (regions == 0) {
        CorrelationParams withErrors = p;
        withErrors.jackknife.regions = 16;
        const CorrelationResult reference = CorrelationJob(withErrors).run();
        for (std::size_t k = 0; k < final.binCount(); ++k)
            QCOMPARE(reference.w[k], final.w[k]);
        sigma = reference.wError;
    }
    QCOMPARE(sigma.size(), final.binCount());
    qInfo("%zu live estimates", live.size());
    if (!expectLive) {
        QVERIFY(live.empty());
        return;
    }

    // The first live estimate at or past each quarter. The sample's work comes in about twelve
    // units of a ms or two, released as they finish and reported every ms; a report that waits
    // behind a busy machine skips a unit or two, so the window is three units wide.
    for (const double target : {0.25, 0.5, 0.75}) {
        const auto at = std::find_if(live.begin(), live.end(),
                                     [&](const LiveReport& r) { return r.coverage >= target; });
        QVERIFY2(at != live.end() && at->coverage < target + 0.25,
                 qPrintable(QStringLiteral("no live estimate between %1 and %2 of the pairs")
                                .arg(target)
                                .arg(target + 0.25)));
        int compared = 0;
        double worst = 0; // the largest |Δw| / σ
        for (std::size_t k = 0; k < final.binCount(); ++k) {
            if (!enoughPairs(at->raw, k) || !std::isfinite(final.w[k]))
                continue;
            const double sampleScatter = sigma[k] * std::sqrt(1.0 / at->coverage - 1.0);
            const double allowance = std::max(
                {sigma[k], 2.0 * sampleScatter, 0.1 * std::abs(final.w[k])});
            const double off = std::abs(at->w[k] - final.w[k]);
            worst = std::max(worst, off / sigma[k]);
            ++compared;
            QVERIFY2(off <= allowance,
                     qPrintable(QStringLiteral("bin %1 at %2 % of the pairs: live w %3, final "
                                               "%4 ± %5")
                                    .arg(k)
                                    .arg(100 * at->coverage, 0, 'f', 1)
                                    .arg(at->w[k])
                                    .arg(final.w[k])
                                    .arg(sigma[k])));
        }
        QVERIFY2(compared >= 8, qPrintable(QStringLiteral("%1 bins compared").arg(compared)));
        qInfo("at %.1f %% of the pairs (%.1f %% of the work): %d bins compared, worst %.2f σ",
              100 * at->coverage, 100 * at->fraction, compared, worst);
    }
}

TPACF_TEST_MAIN(TestLiveEstimate)
#include "test_live_estimate.moc"
