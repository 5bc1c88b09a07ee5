// SPDX-License-Identifier: GPL-3.0-or-later
// Mean separation per bin (--mean-theta): the CPU backend's sums of θ and ln θ per bin against
// a brute force that bins every pair by the counting contract and measures its angle apart from
// the c² route (tests/support/separation_reference.h), over uniform, clustered, polar and RA-wrap
// catalogs, duplicates, log, linear and edge-list bins (edges at 0 and 180°), weights, auto and
// cross counts; the job's pooling over random sets and kinds of count, and its units.
#include "separation_reference.h"
#include "tpacf/correlation_job.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf/separation_moments.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <atomic>
#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

using namespace tpacf;

namespace {

enum class Sky { Uniform, Clustered, PolesAndWrap, Duplicates };

Catalog skyCatalog(Sky sky, std::size_t n, std::uint64_t seed, bool weighted) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> spread(0.0, 0.3);
    std::vector<double> ra, dec, weight;
    const auto uniformPoint = [&] {
        ra.push_back(360.0 * unit(rng));
        dec.push_back(std::asin(2.0 * unit(rng) - 1.0) * 180.0 / std::numbers::pi);
    };
    for (std::size_t i = 0; i < n; ++i) {
        switch (sky) {
        case Sky::Uniform:
            uniformPoint();
            break;
        case Sky::Clustered: { // ten clumps of 0.3° around centres in a 20° box
            const std::size_t clump = i % 10;
            ra.push_back(100.0 + 2.0 * static_cast<double>(clump) + spread(rng));
            dec.push_back(10.0 + 1.5 * static_cast<double>(clump % 4) + spread(rng));
            break;
        }
        case Sky::PolesAndWrap: { // a third near each pole, a third across RA 0
            const double third = unit(rng);
            if (i % 3 == 2) {
                ra.push_back(std::fmod(360.0 + 2.0 * (unit(rng) - 0.5), 360.0));
                dec.push_back(4.0 * (unit(rng) - 0.5));
            } else {
                ra.push_back(360.0 * third);
                dec.push_back((i % 3 == 0 ? 1.0 : -1.0) * (90.0 - 2.0 * unit(rng)));
            }
            break;
        }
        case Sky::Duplicates: // a 3° cap; every fourth point repeats the one before it
            if (i % 4 == 3 && i > 0) {
                ra.push_back(ra.back());
                dec.push_back(dec.back());
            } else {
                ra.push_back(200.0 + 3.0 * unit(rng));
                dec.push_back(-30.0 + 3.0 * unit(rng));
            }
            break;
        }
        weight.push_back(0.25 + 1.5 * unit(rng));
    }
    return Catalog::fromDegrees("sky", std::move(ra), std::move(dec),
                                weighted ? std::move(weight) : std::vector<double>{});
}

} // namespace

Q_DECLARE_METATYPE(Sky)
Q_DECLARE_METATYPE(tpacf::BinSpec)

class TestSeparationMoments : public QObject {
    Q_OBJECT
private slots:
    void matchesBruteForce_data() {
        QTest::addColumn<Sky>("sky");
        QTest::addColumn<bool>("cross");
        QTest::addColumn<bool>("weighted");
        QTest::addColumn<BinSpec>("bins");
        const BinSpec fullLog = BinSpec::logCount(1.0, 10800.0, AngleUnit::Arcminute, 15);
        const BinSpec toTwoDegrees = BinSpec::logCount(0.01, 120.0, AngleUnit::Arcminute, 20);
        const BinSpec linearFromZero = BinSpec::linearCount(0.0, 5.0, AngleUnit::Degree, 10);
        const BinSpec edgeList =
            BinSpec::fromEdges({0.0, 0.5, 5.0, 60.0, 179.0, 180.0}, AngleUnit::Degree);
        QTest::newRow("uniform auto, log to 180 deg") << Sky::Uniform << false << false << fullLog;
        QTest::newRow("uniform cross weighted, log") << Sky::Uniform << true << true << fullLog;
        QTest::newRow("clustered auto, log to 2 deg")
            << Sky::Clustered << false << false << toTwoDegrees;
        QTest::newRow("clustered cross weighted, to 2 deg")
            << Sky::Clustered << true << true << toTwoDegrees;
        QTest::newRow("poles and RA wrap, linear from 0")
            << Sky::PolesAndWrap << false << true << linearFromZero;
        QTest::newRow("poles and RA wrap cross, edge list")
            << Sky::PolesAndWrap << true << false << edgeList;
        QTest::newRow("duplicates, linear from 0")
            << Sky::Duplicates << false << true << linearFromZero;
        QTest::newRow("duplicates cross, edge list") << Sky::Duplicates << true << false << edgeList;
        QTest::newRow("uniform auto, edges at 0 and 180 deg")
            << Sky::Uniform << false << true << edgeList;
    }
    void matchesBruteForce() {
        QFETCH(Sky, sky);
        QFETCH(bool, cross);
        QFETCH(bool, weighted);
        QFETCH(BinSpec, bins);
        const Binning binning(bins);
        const Catalog a = skyCatalog(sky, 1200, 11, weighted);
        const Catalog b = skyCatalog(sky, 900, 12, weighted);
        const CountTask task{&a, cross ? &b : nullptr};
        CpuPairCounter counter(2);
        const std::vector<SeparationMoments> got =
            counter.countSeparationMoments(std::span(&task, 1), binning);
        QCOMPARE(got.size(), std::size_t{1});
        const test::SeparationReference ref =
            test::separationReference(a, cross ? &b : nullptr, binning, weighted);
        test::compareWithReference(got.front(), ref, 1e-12, QStringLiteral("cpu"));
        // The pairs behind the means are the count's pairs, bin for bin.
        QCOMPARE(got.front().pairs, counter.countBatch(std::span(&task, 1), binning).front().raw);
        // The rows exercise what they say: pairs in more than one bin.
        int filled = 0;
        for (const std::uint64_t pairs : ref.pairs)
            filled += pairs > 0 ? 1 : 0;
        QVERIFY(filled >= 2);
    }

    // Coincident points in a bin from 0: ln 0 makes ⟨ln θ⟩ −inf, while ⟨θ⟩ stays finite.
    void coincidentPointsGiveMinusInfinity() {
        const Catalog a = skyCatalog(Sky::Duplicates, 400, 5, false);
        const Binning binning(BinSpec::linearCount(0.0, 3.0, AngleUnit::Degree, 3));
        const CountTask task{&a, nullptr};
        const SeparationMoments got =
            CpuPairCounter(1).countSeparationMoments(std::span(&task, 1), binning).front();
        QVERIFY(std::isinf(got.meanLogTheta(0)) && got.meanLogTheta(0) < 0);
        QVERIFY(std::isfinite(got.meanTheta(0)) && got.meanTheta(0) > 0);
        QVERIFY(std::isnan(SeparationMoments::zeros(2).meanTheta(1)));
    }

    // The job pools DR over the random sets (Σ of the sums, then the ratio), labels every kind
    // of count as the table's columns, and gives ⟨θ⟩ in the bins' unit, ⟨ln θ⟩ of θ in it.
    void jobPoolsKindsAndSets() {
        auto data = std::make_shared<const Catalog>(skyCatalog(Sky::Clustered, 700, 21, false));
        auto r1 = std::make_shared<const Catalog>(skyCatalog(Sky::Clustered, 800, 22, false));
        auto r2 = std::make_shared<const Catalog>(skyCatalog(Sky::Clustered, 600, 23, false));
        CorrelationParams params;
        params.data = data;
        params.randoms = {r1, r2};
        params.bins = BinSpec::logCount(1.0, 90.0, AngleUnit::Arcminute, 8);
        params.meanSeparation = true;
        const CorrelationResult result = CorrelationJob(params).run();
        QCOMPARE(result.meanSeparations.size(), std::size_t{3});
        QCOMPARE(result.meanSeparations[0].label, std::string("DD"));
        QCOMPARE(result.meanSeparations[1].label, std::string("DR"));
        QCOMPARE(result.meanSeparations[2].label, std::string("RR"));
        const Binning binning(params.bins);
        const test::SeparationReference dr1 = test::separationReference(*data, r1.get(), binning, false);
        const test::SeparationReference dr2 = test::separationReference(*data, r2.get(), binning, false);
        const MeanSeparation* dr = result.meanSeparation("DR");
        QVERIFY(dr != nullptr);
        const long double arcminPerRadian = 10800.0L / std::numbers::pi_v<long double>;
        for (std::size_t k = 0; k < binning.count(); ++k) {
            QCOMPARE(dr->pairs[k], dr1.pairs[k] + dr2.pairs[k]);
            QCOMPARE(dr->pairs[k], result.drSummed()[k]);
            if (dr->pairs[k] == 0) {
                QVERIFY(std::isnan(dr->theta[k]));
                continue;
            }
            const long double weight = dr1.weight[k] + dr2.weight[k];
            const long double mean = (dr1.theta[k] + dr2.theta[k]) / weight * arcminPerRadian;
            const long double meanLog =
                (dr1.logTheta[k] + dr2.logTheta[k]) / weight + std::log(arcminPerRadian);
            QVERIFY2(std::fabs(dr->theta[k] - mean) <= 1e-12 * mean,
                     qPrintable(QStringLiteral("bin %1: %2 against %3")
                                    .arg(k)
                                    .arg(dr->theta[k], 0, 'g', 17)
                                    .arg(static_cast<double>(mean), 0, 'g', 17)));
            QVERIFY(std::fabs(dr->logTheta[k] - meanLog) <= 1e-12 * std::fabs(meanLog) + 1e-15);
            // A mean separation lies inside its bin.
            QVERIFY(dr->theta[k] >= result.edges[k] && dr->theta[k] < result.edges[k + 1]);
        }
        // Not asked for: no pass, no entries.
        params.meanSeparation = false;
        QVERIFY(CorrelationJob(params).run().meanSeparations.empty());
    }

    void twoSamplesNameEveryKind() {
        auto d1 = std::make_shared<const Catalog>(skyCatalog(Sky::Uniform, 300, 31, true));
        auto d2 = std::make_shared<const Catalog>(skyCatalog(Sky::Uniform, 300, 32, false));
        auto r = std::make_shared<const Catalog>(skyCatalog(Sky::Uniform, 400, 33, false));
        CorrelationParams params;
        params.data = d1;
        params.data2 = d2;
        params.randoms = {r};
        params.bins = BinSpec::logCount(1.0, 180.0, AngleUnit::Degree, 5);
        params.meanSeparation = true;
        const CorrelationResult result = CorrelationJob(params).run();
        QStringList labels;
        for (const MeanSeparation& mean : result.meanSeparations)
            labels << QString::fromStdString(mean.label);
        QCOMPARE(labels, (QStringList{QStringLiteral("DD"), QStringLiteral("DR"), QStringLiteral("RD"), QStringLiteral("RR")}));
        // D1 carries weights: DD is pair-weighted (w_i · 1).
        const test::SeparationReference dd =
            test::separationReference(*d1, d2.get(), Binning(params.bins), true);
        const MeanSeparation* mean = result.meanSeparation("DD");
        for (std::size_t k = 0; k < dd.pairs.size(); ++k)
            if (dd.weight[k] > 0) {
                const long double expected =
                    dd.theta[k] / dd.weight[k] * (180.0L / std::numbers::pi_v<long double>);
                QVERIFY(std::fabs(mean->theta[k] - expected) <= 1e-12 * expected);
            }
    }

    void shareAndCancelAreRefused() {
        const Catalog a = skyCatalog(Sky::Uniform, 500, 41, false);
        const Binning binning(BinSpec::logCount(1.0, 180.0, AngleUnit::Degree, 5));
        const CountTask task{&a, nullptr};
        CpuPairCounter counter(2);
        CountControl share;
        share.share = WorkShare{0, 2};
        QVERIFY_THROWS_EXCEPTION(ConfigError,
                                 counter.countSeparationMoments(std::span(&task, 1), binning, share));
        std::atomic<bool> cancel{true};
        CountControl cancelled;
        cancelled.cancelRequested = &cancel;
        QVERIFY_THROWS_EXCEPTION(
            Cancelled, counter.countSeparationMoments(std::span(&task, 1), binning, cancelled));

        auto data = std::make_shared<const Catalog>(a);
        CorrelationParams params;
        params.data = data;
        params.randoms = {data};
        params.bins = binning.spec();
        params.meanSeparation = true;
        params.share = WorkShare{1, 2};
        QVERIFY_THROWS_EXCEPTION(ConfigError, CorrelationJob(params).run());
    }

    // Progress comes in pairs of the plan, ending at its total.
    void reportsProgress() {
        const Catalog a = skyCatalog(Sky::Uniform, 3000, 51, false);
        const Binning binning(BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 6));
        const CountTask task{&a, nullptr};
        CountControl control;
        control.progressEvery = std::chrono::milliseconds(0);
        std::uint64_t last = 0, total = 0;
        control.onProgress = [&](const CountProgress& progress) {
            QVERIFY(progress.pairsDone >= last);
            last = progress.pairsDone;
            total = progress.pairsTotal;
        };
        const SeparationMoments got =
            CpuPairCounter(1).countSeparationMoments(std::span(&task, 1), binning, control).front();
        QCOMPARE(total, task.pairTotal()); // 0–180°: every pair is within reach
        QVERIFY(last == total);
        std::uint64_t binned = 0;
        for (const std::uint64_t pairs : got.pairs)
            binned += pairs;
        QCOMPARE(binned, task.pairTotal());
    }
};

TPACF_TEST_MAIN(TestSeparationMoments)
#include "test_separation_moments.moc"
