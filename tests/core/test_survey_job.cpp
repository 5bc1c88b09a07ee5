// SPDX-License-Identifier: GPL-3.0-or-later
// The job with per-object weights and with two samples: every count, weighted sum, pair total
// and w against a brute-force double loop and the estimator formulas written out here, and the
// jackknife samples against jobs run from scratch on the catalogs without each region.
#include "tpacf_test_main.h"
#include "tpacf/correlation_job.h"
#include "tpacf/errors.h"

#include <QtTest/QtTest>

#include <cmath>
#include <functional>
#include <random>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::CorrelationJob;
using tpacf::CorrelationParams;
using tpacf::CorrelationResult;
using tpacf::Estimator;
using tpacf::JobStatus;

namespace {

using CatalogPtr = std::shared_ptr<const Catalog>;

// Weights of a test catalog.
enum class Weights { None, Positive, SomeNegative };

// Points in a box of the sky, a third of them in small clumps (so w is far from 0), with
// seeded weights and a region label from RA (four strips), which a job takes as jackknife
// regions when asked for the column.
CatalogPtr catalog(std::size_t n, std::uint64_t seed, Weights weights, const std::string& name,
                   double clumped = 0.3) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n), weight;
    std::vector<std::int32_t> label(n);
    double clumpRa = 0.75, clumpDec = 0.4; // until the first clump centre is drawn
    for (std::size_t i = 0; i < n; ++i) {
        if (unit(rng) < clumped) {
            if (i % 10 == 0) {
                clumpRa = 0.5 + 0.5 * unit(rng);
                clumpDec = 0.2 + 0.4 * unit(rng);
            }
            ra[i] = clumpRa + 5e-3 * unit(rng);
            dec[i] = clumpDec + 5e-3 * unit(rng);
        } else {
            ra[i] = 0.5 + 0.5 * unit(rng);
            dec[i] = 0.2 + 0.4 * unit(rng);
        }
        label[i] = 10 * static_cast<std::int32_t>(std::min(3.0, (ra[i] - 0.5) / 0.5 * 4.0));
    }
    if (weights != Weights::None) {
        for (std::size_t i = 0; i < n; ++i) {
            const double w = 0.25 + 1.5 * unit(rng);
            weight.push_back(weights == Weights::SomeNegative && i % 7 == 3 ? -0.5 * w : w);
        }
    }
    return std::make_shared<const Catalog>(Catalog::fromRadians(
        name, std::move(ra), std::move(dec), std::move(weight), std::move(label)));
}

double weightOf(const Catalog& c, std::size_t i) {
    return c.hasWeights() ? c.weight()[i] : 1.0;
}

// Brute force: raw counts and Σ w_i w_j per bin of a (auto: b == nullptr) count, the chord²
// computed as the backends document it (dx² + dy² + dz² in double).
struct Brute {
    std::vector<std::uint64_t> raw;
    std::vector<double> weighted;
    double total = 0; // pair total: N(N−1)/2, N·M, or their weighted forms
};

Brute bruteForce(const Catalog& a, const Catalog* b, const Binning& binning, bool weighted) {
    Brute out;
    out.raw.assign(binning.count(), 0);
    out.weighted.assign(binning.count(), 0.0);
    const Catalog& other = b ? *b : a;
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = b ? 0 : i + 1; j < other.size(); ++j) {
            const double dx = a.x()[i] - other.x()[j];
            const double dy = a.y()[i] - other.y()[j];
            const double dz = a.z()[i] - other.z()[j];
            const int bin = binning.binOfChord2(dx * dx + dy * dy + dz * dz);
            if (bin < 0)
                continue;
            ++out.raw[static_cast<std::size_t>(bin)];
            out.weighted[static_cast<std::size_t>(bin)] += weightOf(a, i) * weightOf(other, j);
        }
    }
    double sumA = 0, sumA2 = 0, sumB = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double w = weighted ? weightOf(a, i) : 1.0;
        sumA += w;
        sumA2 += w * w;
    }
    for (std::size_t j = 0; j < other.size(); ++j)
        sumB += weighted ? weightOf(other, j) : 1.0;
    out.total = b ? sumA * sumB : (sumA * sumA - sumA2) / 2.0;
    return out;
}

// w of one bin from normalised counts, the estimators written out as in the literature.
double estimatorByHand(Estimator estimator, bool cross, double dd, double dr, double rd,
                       double rr) {
    if (!cross)
        rd = dr;
    switch (estimator) {
    case Estimator::LandySzalay:
        return (dd - dr - rd + rr) / rr;
    case Estimator::Natural:
        return dd / rr - 1.0;
    case Estimator::DavisPeebles:
        return dd / dr - 1.0;
    case Estimator::Hamilton:
        return dd * rr / (dr * rd) - 1.0;
    }
    return NAN;
}

bool close(double a, double b, double relative) {
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= relative * std::max({std::abs(a), std::abs(b), 1e-300});
}

BinSpec bins() {
    return BinSpec::logCount(0.5, 40.0, AngleUnit::Degree, 6);
}

struct Case {
    Weights dataWeights = Weights::None, randomWeights = Weights::None;
    bool cross = false;
    int randomSets = 1;
    bool secondRandoms = false;
    Estimator estimator = Estimator::LandySzalay;
};

CorrelationParams paramsFor(const Case& c) {
    CorrelationParams p;
    p.data = catalog(300, 1, c.dataWeights, "d1");
    for (int s = 0; s < c.randomSets; ++s)
        p.randoms.push_back(catalog(400 + 50 * s, 10 + s, c.randomWeights, "r1", 0.0));
    if (c.cross) {
        p.data2 = catalog(250, 2, c.dataWeights, "d2");
        if (c.secondRandoms)
            for (int s = 0; s < c.randomSets; ++s)
                p.randoms2.push_back(catalog(350 + 30 * s, 20 + s, c.randomWeights, "r2", 0.0));
    }
    p.bins = bins();
    p.estimator = c.estimator;
    p.backend.name = "cpu";
    p.backend.cpuThreads = 2;
    return p;
}

} // namespace

Q_DECLARE_METATYPE(Case)

class TestSurveyJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void countsAndWAgainstBruteForce_data();
    void countsAndWAgainstBruteForce();
    void jackknifeSamplesFromScratch_data();
    void jackknifeSamplesFromScratch();
    void unweightedJobHasNoWeightedSums();
    void notesSayWhatShapesTheNumbers();
    void badInputs_data();
    void badInputs();
};

void TestSurveyJob::countsAndWAgainstBruteForce_data() {
    QTest::addColumn<Case>("c");
    using E = Estimator;
    QTest::newRow("auto weighted LS") << Case{Weights::Positive, Weights::Positive};
    QTest::newRow("auto data weighted only, 2 sets, Hamilton")
        << Case{Weights::Positive, Weights::None, false, 2, false, E::Hamilton};
    QTest::newRow("auto negative weights natural")
        << Case{Weights::SomeNegative, Weights::Positive, false, 1, false, E::Natural};
    QTest::newRow("cross unweighted LS") << Case{Weights::None, Weights::None, true};
    QTest::newRow("cross weighted LS shared randoms")
        << Case{Weights::Positive, Weights::Positive, true};
    QTest::newRow("cross weighted DP own randoms, 2 sets")
        << Case{Weights::Positive, Weights::Positive, true, 2, true, E::DavisPeebles};
    QTest::newRow("cross unweighted Hamilton own randoms")
        << Case{Weights::None, Weights::None, true, 1, true, E::Hamilton};
    QTest::newRow("cross weighted natural own randoms")
        << Case{Weights::Positive, Weights::None, true, 1, true, E::Natural};
}

void TestSurveyJob::countsAndWAgainstBruteForce() {
    QFETCH(Case, c);
    const CorrelationParams p = paramsFor(c);
    const Binning binning(p.bins);
    const bool weighted = c.dataWeights != Weights::None || c.randomWeights != Weights::None;
    const CorrelationResult result = CorrelationJob(p).run();
    QCOMPARE(result.status, JobStatus::Completed);
    QCOMPARE(result.isCross(), c.cross);
    QCOMPARE(result.isWeighted(), weighted);

    // The counts of the job, brute force: DD (D1D2), DR_i (D1 x R2_i or R1_i), RD_i, RR_i.
    const Catalog* d2 = c.cross ? p.data2.get() : nullptr;
    const Brute dd = bruteForce(*p.data, d2, binning, weighted);
    const std::size_t bins = binning.count();
    std::vector<double> ddN(bins), drN(bins, 0.0), rdN(bins, 0.0), rrN(bins, 0.0);
    const auto compare = [&](const Brute& brute, const tpacf::PairCounts& raw,
                             const tpacf::WeightedCounts* sums, std::vector<double>& normalised,
                             const char* what) {
        QVERIFY2(raw == brute.raw, what);
        if (weighted) {
            QVERIFY(sums && sums->size() == bins);
            for (std::size_t k = 0; k < bins; ++k) {
                // Negative weights cancel: compare on the scale of the bin's pairs.
                QVERIFY2(std::abs((*sums)[k] - brute.weighted[k]) <=
                             1e-12 * (std::abs(brute.weighted[k]) + 2.0 * double(brute.raw[k])),
                         what);
            }
        }
        for (std::size_t k = 0; k < bins; ++k)
            normalised[k] += (weighted ? brute.weighted[k] : double(brute.raw[k])) / brute.total;
    };
    compare(dd, result.raw.dd, weighted ? &result.raw.ddWeighted : nullptr, ddN, "DD");
    const double sets = c.randomSets;
    for (int s = 0; s < c.randomSets; ++s) {
        const auto set = static_cast<std::size_t>(s);
        const Catalog& r1 = *p.randoms[set];
        const Catalog* r2 = c.secondRandoms ? p.randoms2[set].get() : &r1;
        std::vector<double> dr(bins, 0.0), rd(bins, 0.0), rr(bins, 0.0);
        compare(bruteForce(*p.data, r2, binning, weighted), result.raw.dr[set],
                weighted ? &result.raw.drWeighted[set] : nullptr, dr, "DR");
        if (c.cross)
            compare(bruteForce(r1, d2, binning, weighted), result.raw.rd[set],
                    weighted ? &result.raw.rdWeighted[set] : nullptr, rd, "RD");
        compare(bruteForce(r1, c.secondRandoms ? r2 : nullptr, binning, weighted),
                result.raw.rr[set], weighted ? &result.raw.rrWeighted[set] : nullptr, rr, "RR");
        for (std::size_t k = 0; k < bins; ++k) {
            drN[k] += dr[k] / sets;
            rdN[k] += rd[k] / sets;
            rrN[k] += rr[k] / sets;
        }
    }
    for (std::size_t k = 0; k < bins; ++k) {
        QVERIFY(close(result.normalised.dd[k], ddN[k], 1e-11));
        QVERIFY(close(result.normalised.dr[k], drN[k], 1e-11));
        QVERIFY(close(result.normalised.rr[k], rrN[k], 1e-11));
        if (c.cross)
            QVERIFY(close(result.normalised.rd[k], rdN[k], 1e-11));
        const double w = estimatorByHand(c.estimator, c.cross, ddN[k], drN[k], rdN[k], rrN[k]);
        QVERIFY2(close(result.w[k], std::isfinite(w) ? w : NAN, 1e-9),
                 qPrintable(QStringLiteral("bin %1: w %2, by hand %3")
                                .arg(k)
                                .arg(result.w[k])
                                .arg(w)));
    }
    // Enough pairs that the test says something: w is finite in most bins.
    int finite = 0;
    for (const double w : result.w)
        finite += std::isfinite(w) ? 1 : 0;
    QVERIFY(finite >= 4);
}

void TestSurveyJob::jackknifeSamplesFromScratch_data() {
    QTest::addColumn<Case>("c");
    QTest::newRow("auto weighted") << Case{Weights::Positive, Weights::Positive};
    QTest::newRow("auto negative weights, 2 sets")
        << Case{Weights::SomeNegative, Weights::None, false, 2};
    QTest::newRow("cross weighted shared randoms")
        << Case{Weights::Positive, Weights::Positive, true};
    QTest::newRow("cross unweighted own randoms") << Case{Weights::None, Weights::None, true, 1, true};
    QTest::newRow("cross weighted own randoms Hamilton")
        << Case{Weights::Positive, Weights::Positive, true, 1, true, Estimator::Hamilton};
}

// The leave-one-out sample k of the job (one pass, counts minus the pairs touching k, weight
// sums minus region k's) against a job run on the catalogs without region k's points.
void TestSurveyJob::jackknifeSamplesFromScratch() {
    QFETCH(Case, c);
    CorrelationParams p = paramsFor(c);
    p.jackknife.regionColumn = "strip";
    const CorrelationResult result = CorrelationJob(p).run();
    QVERIFY(result.hasJackknife());
    QCOMPARE(result.jackknifeRegions.count, 4);

    const auto without = [](const CatalogPtr& catalog, std::int32_t label) -> CatalogPtr {
        std::vector<double> ra, dec, weight;
        for (std::size_t i = 0; i < catalog->size(); ++i) {
            if (catalog->region()[i] == label)
                continue;
            ra.push_back(catalog->ra()[i]);
            dec.push_back(catalog->dec()[i]);
            if (catalog->hasWeights())
                weight.push_back(catalog->weight()[i]);
        }
        return std::make_shared<const Catalog>(
            Catalog::fromRadians(catalog->name(), std::move(ra), std::move(dec), std::move(weight)));
    };
    for (int k = 0; k < 4; ++k) {
        const std::int32_t label = 10 * k; // labels 0, 10, 20, 30 map onto regions 0..3
        CorrelationParams reduced = paramsFor(c);
        reduced.data = without(reduced.data, label);
        for (auto& random : reduced.randoms)
            random = without(random, label);
        if (reduced.data2)
            reduced.data2 = without(reduced.data2, label);
        for (auto& random : reduced.randoms2)
            random = without(random, label);
        const CorrelationResult direct = CorrelationJob(reduced).run();
        const auto& sample = result.jackknifeSamples[static_cast<std::size_t>(k)];
        QCOMPARE(sample.size(), direct.w.size());
        for (std::size_t bin = 0; bin < sample.size(); ++bin)
            QVERIFY2(close(sample[bin], direct.w[bin], 1e-8),
                     qPrintable(QStringLiteral("region %1 bin %2: sample %3, from scratch %4")
                                    .arg(k)
                                    .arg(bin)
                                    .arg(sample[bin])
                                    .arg(direct.w[bin])));
    }
}

void TestSurveyJob::unweightedJobHasNoWeightedSums() {
    const CorrelationResult result = CorrelationJob(paramsFor(Case{})).run();
    QVERIFY(!result.isWeighted());
    QVERIFY(!result.isCross());
    QVERIFY(result.raw.ddWeighted.empty());
    QVERIFY(result.raw.drWeighted.empty());
    QVERIFY(result.raw.rd.empty());
    QVERIFY(result.normalised.rd.empty());
    QVERIFY(!result.data.weighted);
    QCOMPARE(result.data.weightSum, 300.0);
    QVERIFY(result.notes.empty());
}

void TestSurveyJob::notesSayWhatShapesTheNumbers() {
    const CorrelationResult negative =
        CorrelationJob(paramsFor(Case{Weights::SomeNegative, Weights::None})).run();
    QCOMPARE(negative.notes.size(), std::size_t(1));
    // Points 3, 10, 17, ... of 300: 43 negative weights.
    QVERIFY(negative.notes.front().find("43 negative weights") != std::string::npos);
    QCOMPARE(negative.data.negativeWeights, std::uint64_t(43));
    double sum = 0, sum2 = 0;
    const auto data = paramsFor(Case{Weights::SomeNegative, Weights::None}).data;
    for (const double w : data->weight()) {
        sum += w;
        sum2 += w * w;
    }
    QCOMPARE(negative.data.weightSum, sum);
    QCOMPARE(negative.data.weightSquareSum, sum2);

    const CorrelationResult shared =
        CorrelationJob(paramsFor(Case{Weights::None, Weights::None, true})).run();
    QCOMPARE(shared.notes.size(), std::size_t(1));
    QVERIFY(shared.notes.front().find("uses the first sample's randoms") != std::string::npos);
    const CorrelationResult own =
        CorrelationJob(paramsFor(Case{Weights::None, Weights::None, true, 1, true})).run();
    QVERIFY(own.notes.empty());
}

void TestSurveyJob::badInputs_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("expected");
    QTest::newRow("randoms2 without data2") << 0 << QStringLiteral("without the second data");
    QTest::newRow("randoms2 count differs") << 1 << QStringLiteral("give as many");
    QTest::newRow("empty data2") << 2 << QStringLiteral("second data catalog");
    QTest::newRow("empty random2") << 3 << QStringLiteral("of the second sample");
}

void TestSurveyJob::badInputs() {
    QFETCH(int, which);
    QFETCH(QString, expected);
    CorrelationParams p = paramsFor(Case{Weights::None, Weights::None, true, 2, true});
    const auto empty = std::make_shared<const Catalog>();
    switch (which) {
    case 0:
        p.data2.reset();
        break;
    case 1:
        p.randoms2.pop_back();
        break;
    case 2:
        p.data2 = empty;
        break;
    case 3:
        p.randoms2[1] = empty;
        break;
    }
    try {
        CorrelationJob(p).run();
        QFAIL("no ConfigError");
    } catch (const tpacf::ConfigError& error) {
        QVERIFY2(QString::fromStdString(error.what()).contains(expected), error.what());
    }
}

TPACF_TEST_MAIN(TestSurveyJob)
#include "test_survey_job.moc"
