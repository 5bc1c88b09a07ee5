// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel Lab's CPU rungs and runner: every exact rung equals a brute-force double loop
// written here (and the CPU backend) bin for bin; the naive float rung is wrong exactly where its
// explanation says (every bin below acosf's smallest non-zero angle empty, elsewhere no more
// pairs moved than lie within the float rounding band of an edge); the overflow demo's 32-bit
// counter holds the true count mod 2^32; every excerpt is found in its source; runLab's
// speed-ups, differences and errors on fake variants with fixed times.
#include "tpacf_test_main.h"
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf/lab.h"
#include "tpacf/lab_demos.h"
#include "tpacf/mock.h"

#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::CountTask;
using tpacf::CpuPairCounter;
using tpacf::CullingMode;
using tpacf::Footprint;
using tpacf::PairCounts;
namespace lab = tpacf::lab;

namespace {

/// Angle of a squared chord, in double.
double angleOfChord2(double c2) {
    return 2.0 * std::asin(std::min(1.0, std::sqrt(c2) / 2.0));
}

/// Every pair's squared chord from the coordinate differences, in the order of the backends.
template <class Visit> void forEachPair(const Catalog& a, const Catalog* second, Visit&& visit) {
    const Catalog& b = second ? *second : a;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = second ? 0 : i + 1; j < b.size(); ++j) {
            const double dx = a.x()[i] - b.x()[j], dy = a.y()[i] - b.y()[j],
                         dz = a.z()[i] - b.z()[j];
            visit(dx * dx + dy * dy + dz * dz);
        }
}

/// Brute force: each pair's bin by a linear scan over the edges' squared chords.
PairCounts bruteForce(const Catalog& a, const Catalog* b, const Binning& binning) {
    const auto edges = binning.chord2Edges();
    PairCounts counts(binning.count(), 0);
    forEachPair(a, b, [&](double c2) {
        for (std::size_t k = 0; k + 1 < edges.size(); ++k)
            if (edges[k] <= c2 && c2 < edges[k + 1]) {
                ++counts[k];
                break;
            }
    });
    return counts;
}

PairCounts backendCounts(const Catalog& a, const Catalog* b, const Binning& binning) {
    CpuPairCounter counter(2);
    const CountTask task{&a, b};
    return counter.countBatch({&task, 1}, binning).front().raw;
}

Footprint footprintNamed(const QString& name) {
    if (name == QLatin1String("full"))
        return Footprint::fullSky();
    return Footprint::cap(40.0, -20.0, name.toDouble()); // a cap of that radius in degrees
}

BinSpec binsNamed(const QString& name) {
    if (name == QLatin1String("log5"))
        return BinSpec::logPerDecade(0.01, 10000.0, AngleUnit::Arcminute, 5.0);
    if (name == QLatin1String("small"))
        return BinSpec::logPerDecade(0.01, 1.0, AngleUnit::Arcminute, 5.0);
    if (name == QLatin1String("fine"))
        return BinSpec::logPerDecade(0.05, 300.0, AngleUnit::Arcminute, 10.0);
    if (name == QLatin1String("linear"))
        return BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 18);
    if (name == QLatin1String("one"))
        return BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 1);
    throw std::invalid_argument("no such bins");
}

/// A test-only variant: fixed time, the reference's counts plus fixed offsets per bin, or an
/// error.
class FakeVariant final : public lab::LabVariant {
public:
    FakeVariant(std::string key, std::string backend, double seconds,
                std::vector<std::int64_t> offsets = {}, std::string error = {})
        : m_key(std::move(key)), m_backend(std::move(backend)), m_seconds(seconds),
          m_offsets(std::move(offsets)), m_error(std::move(error)) {}
    std::string key() const override { return m_key; }
    std::string name() const override { return "fake " + m_key; }
    int rung() const override { return 1; }
    std::string backend() const override { return m_backend; }
    bool exact() const override { return m_offsets.empty(); }
    std::string explanation() const override { return {}; }
    std::string sourceFile() const override { return {}; }
    lab::LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                         int, const std::atomic<bool>*) override {
        if (!m_error.empty())
            throw tpacf::BackendUnavailable(m_error);
        lab::LabCounts result;
        result.counts = bruteForce(first, second, binning);
        for (std::size_t k = 0; k < m_offsets.size(); ++k)
            result.counts[k] = static_cast<std::uint64_t>(
                static_cast<std::int64_t>(result.counts[k]) + m_offsets[k]);
        result.seconds = m_seconds;
        return result;
    }

private:
    std::string m_key, m_backend;
    double m_seconds;
    std::vector<std::int64_t> m_offsets;
    std::string m_error;
};

} // namespace

class TestLab : public QObject {
    Q_OBJECT

private slots:
    void exactRungsEqualTheReference_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("m"); // 0: auto count
        QTest::addColumn<QString>("footprint");
        QTest::addColumn<QString>("bins");
        QTest::newRow("auto 1500, 5 deg cap, log5") << 1500 << 0 << "5" << "log5";
        QTest::newRow("cross 1100 x 900, 5 deg cap, log5") << 1100 << 900 << "5" << "log5";
        QTest::newRow("auto 2500 (3 tiles a side), 0.5 deg cap, 0.01'-1'")
            << 2500 << 0 << "0.5" << "small";
        QTest::newRow("cross 1300 x 2100, 0.5 deg cap, 0.01'-1'")
            << 1300 << 2100 << "0.5" << "small";
        QTest::newRow("auto 1200, full sky, linear 0-180 deg") << 1200 << 0 << "full" << "linear";
        QTest::newRow("cross 1000 x 1030, full sky, one bin 0-180 deg")
            << 1000 << 1030 << "full" << "one";
        QTest::newRow("auto 2, full sky, log5") << 2 << 0 << "full" << "log5";
    }
    void exactRungsEqualTheReference() {
        QFETCH(int, n);
        QFETCH(int, m);
        QFETCH(QString, footprint);
        QFETCH(QString, bins);
        const Catalog a = tpacf::generateUniformRandoms(std::size_t(n), footprintNamed(footprint),
                                                        11, "a");
        const Catalog b = tpacf::generateUniformRandoms(std::size_t(std::max(m, 1)),
                                                        footprintNamed(footprint), 12, "b");
        const Catalog* second = m > 0 ? &b : nullptr;
        const Binning binning(binsNamed(bins));
        const PairCounts expected = bruteForce(a, second, binning);
        QCOMPARE(backendCounts(a, second, binning), expected);

        int exactRungs = 0;
        for (const auto& variant : lab::cpuLabVariants(2)) {
            if (!variant->exact())
                continue;
            ++exactRungs;
            const lab::LabCounts counts = variant->count(a, second, binning, 1, nullptr);
            if (counts.counts != expected)
                QFAIL(qPrintable(QString::fromStdString(variant->key() + " differs")));
            QVERIFY(counts.seconds >= 0);
        }
        QCOMPARE(exactRungs, 4);
    }

    void ladderIsOrdered() {
        const auto variants = lab::cpuLabVariants();
        QCOMPARE(variants.size(), std::size_t(5));
        QCOMPARE(QString::fromStdString(variants.front()->key()), QStringLiteral("cpu-1-naive"));
        QVERIFY(!variants.front()->exact());
        for (std::size_t v = 0; v < variants.size(); ++v) {
            QCOMPARE(variants[v]->rung(), int(v) + 1);
            QCOMPARE(QString::fromStdString(variants[v]->backend()), QStringLiteral("cpu"));
            QVERIFY(!variants[v]->explanation().empty());
        }
        // With no provider registered, all variants are the CPU's.
        QCOMPARE(lab::allLabVariants(lab::LabRegistry{}).size(), variants.size());
    }

    void floatThresholdsAreWhatTheExplanationStates() {
        // 2^-12 rad: 1 - cos is half a float step below 1; 1.187': acosf of the float below 1.
        QCOMPARE(lab::floatDotUnresolvedRadians(), std::ldexp(1.0, -12));
        const float smallest = std::acos(std::nextafter(1.0f, 0.0f));
        QVERIFY(std::fabs(lab::floatDotSmallestAngleRadians() - double(smallest)) <
                4e-7 * double(smallest));
        QVERIFY(std::fabs(lab::floatDotSmallestAngleRadians() - std::pow(2.0, -11.5)) < 1e-9);
        QCOMPARE(std::cos(static_cast<float>(0.99 * lab::floatDotUnresolvedRadians())) == 1.0f,
                 true);
        const std::string text = lab::cpuLabVariants().front()->explanation();
        QVERIFY(text.find("0.839'") != std::string::npos);
        QVERIFY(text.find("1.19'") != std::string::npos);
    }

    void naiveRungIsWrongWhereItsExplanationSays_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("m");
        QTest::addColumn<QString>("footprint");
        QTest::addColumn<QString>("bins");
        QTest::newRow("auto 3000, 0.5 deg cap, 0.05'-300'") << 3000 << 0 << "0.5" << "fine";
        QTest::newRow("cross 2000 x 2500, 0.5 deg cap, 0.01'-1'")
            << 2000 << 2500 << "0.5" << "small";
        QTest::newRow("auto 3000, 5 deg cap, log5") << 3000 << 0 << "5" << "log5";
    }
    void naiveRungIsWrongWhereItsExplanationSays() {
        QFETCH(int, n);
        QFETCH(int, m);
        QFETCH(QString, footprint);
        QFETCH(QString, bins);
        const Catalog a = tpacf::generateUniformRandoms(std::size_t(n), footprintNamed(footprint),
                                                        21, "a");
        const Catalog b = tpacf::generateUniformRandoms(std::size_t(std::max(m, 1)),
                                                        footprintNamed(footprint), 22, "b");
        const Catalog* second = m > 0 ? &b : nullptr;
        const Binning binning(binsNamed(bins));
        const PairCounts reference = bruteForce(a, second, binning);
        const PairCounts naive =
            lab::cpuLabVariants().front()->count(a, second, binning, 1, nullptr).counts;
        const auto edges = binning.edgesRadians();
        const double smallest = lab::floatDotSmallestAngleRadians();

        // Bins wholly below acosf's smallest non-zero angle count nothing: the lesson, and the
        // reference holds pairs there (else this row could not fail).
        int lostBinsWithPairs = 0;
        for (std::size_t k = 0; k < binning.count(); ++k)
            if (edges[k + 1] * (1 + 1e-6) < smallest) {
                QCOMPARE(naive[k], std::uint64_t(0));
                lostBinsWithPairs += reference[k] > 0;
            }
        QVERIFY(lostBinsWithPairs > 0);

        // Above twice that angle a pair moves bin only if its angle lies within the rounding
        // band of an edge: |delta cos| <= 5 u (inputs rounded to float: 2u, three products and
        // two sums: 3u; u = 2^-24), so |delta theta| <= 5u / sin(theta), plus acosf's and the
        // float edge's own rounding (2u theta); doubled for safety. The difference of each bin
        // is at most the pairs in the bands of its two edges.
        const double u = std::ldexp(1.0, -24);
        const auto band = [&](double theta) {
            return 2 * (5 * u / std::sin(theta) + 2 * u * theta);
        };
        std::vector<std::uint64_t> nearEdge(edges.size(), 0);
        forEachPair(a, second, [&](double c2) {
            const double theta = angleOfChord2(c2);
            for (std::size_t e = 0; e < edges.size(); ++e)
                if (std::fabs(theta - edges[e]) <= band(std::max(edges[e], 1e-9)))
                    ++nearEdge[e];
        });
        int checkedBins = 0;
        for (std::size_t k = 0; k < binning.count(); ++k) {
            if (edges[k] < 2 * smallest)
                continue;
            ++checkedBins;
            const auto difference = std::llabs(static_cast<long long>(naive[k]) -
                                               static_cast<long long>(reference[k]));
            if (static_cast<std::uint64_t>(difference) > nearEdge[k] + nearEdge[k + 1])
                QFAIL(qPrintable(QStringLiteral("bin %1: naive differs by %2, more than the %3 "
                                                "pairs near its edges")
                                     .arg(k)
                                     .arg(difference)
                                     .arg(nearEdge[k] + nearEdge[k + 1])));
        }
        QVERIFY(checkedBins > 0 || bins == QLatin1String("small"));
    }

    void dotProductBinningLosesTheSmallBins() {
        const Catalog a = lab::precisionDemoCatalog(2500, 5);
        const Binning binning(lab::precisionDemoBins());
        QCOMPARE(binning.count(), std::size_t(10));
        const lab::PrecisionDemo demo = lab::dotVersusChord2(a, nullptr, binning);
        const PairCounts reference = bruteForce(a, nullptr, binning);
        QCOMPARE(demo.reference, reference);
        QCOMPARE(demo.chord2, reference);
        QCOMPARE(demo.pairs, std::uint64_t(2500) * 2499 / 2);
        // Edges below 2^-12 rad have cos = 1.0f: the bins between two of them stay empty.
        int emptied = 0;
        for (std::size_t k = 0; k < binning.count(); ++k) {
            const double lo = binning.edgesRadians()[k], hi = binning.edgesRadians()[k + 1];
            if (hi < 0.99 * lab::floatDotUnresolvedRadians()) {
                QCOMPARE(demo.cosEdges[k], 1.0f);
                QCOMPARE(demo.cosEdges[k + 1], 1.0f);
                QCOMPARE(demo.floatDot[k], std::uint64_t(0));
                emptied += reference[k] > 0;
            }
            if (lo > 1.01 * lab::floatDotUnresolvedRadians())
                QVERIFY(demo.cosEdges[k] < 1.0f);
        }
        QVERIFY(emptied >= 5);
    }

    void overflowDemoWrapsModulo2To32_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("wraps");
        QTest::newRow("3000 points, no wrap") << 3000 << 0;
#ifndef __SANITIZE_ADDRESS__
        // 92,700 points: 4,296,598,650 pairs, just above 2^32 = 4,294,967,296. Under
        // AddressSanitizer these 4.3e9 brute-force pairs take minutes; the sanitizer build runs the
        // 3,000-point row, whose memory accesses are the same code path, and the plain build both.
        QTest::newRow("92700 points, one wrap") << 92700 << 1;
#endif
    }
    void overflowDemoWrapsModulo2To32() {
        QFETCH(int, n);
        QFETCH(int, wraps);
        const Catalog a = lab::overflowDemoCatalog(std::size_t(n), 3);
        const Binning binning(lab::overflowDemoBins());
        const lab::OverflowDemo demo = lab::counterOverflow(a, nullptr, binning, 2);
        // The true count from the reference (culled: whole cell pairs, fast), and its closed
        // form: every pair of points lies within [0, 180 deg).
        CpuPairCounter counter(2);
        counter.setCulling(CullingMode::On);
        const CountTask task{&a, nullptr};
        const PairCounts reference = counter.countBatch({&task, 1}, binning).front().raw;
        const std::uint64_t pairs = std::uint64_t(n) * std::uint64_t(n - 1) / 2;
        QCOMPARE(reference.front(), pairs);
        QCOMPARE(demo.counts64, reference);
        QCOMPARE(std::uint64_t(demo.counts32.front()), pairs % (std::uint64_t{1} << 32));
        QCOMPARE(demo.wraps.front(), std::uint64_t(wraps));
        QCOMPARE(demo.pairs, pairs);
    }

    void everyExcerptIsInItsSource() {
        const std::map<std::string, std::string> token = {
            {"cpu-1-naive", "std::acos"},  {"cpu-2-chord2", "chord2"},
            {"cpu-3-vectorised", "kernel("}, {"cpu-4-threads", "runWorkers"},
            {"cpu-5-culled", "setCulling"}};
        for (const auto& variant : lab::cpuLabVariants()) {
            const std::string excerpt =
                lab::sourceExcerpt(TPACF_SOURCE_DIR, variant->sourceFile(), variant->key());
            if (excerpt.empty())
                QFAIL(qPrintable(QString::fromStdString("no excerpt for " + variant->key())));
            QVERIFY(excerpt.find("[lab:") == std::string::npos);
            QVERIFY2(excerpt.find(token.at(variant->key())) != std::string::npos,
                     variant->key().c_str());
            QVERIFY(excerpt.front() != ' '); // the shared indent is taken off
        }
        QVERIFY(lab::sourceExcerpt(TPACF_SOURCE_DIR, "core/lab/src/cpu_naive.cpp", "cpu-1").empty());
        QVERIFY(lab::sourceExcerpt(TPACF_SOURCE_DIR, "core/lab/src/missing.cpp", "cpu-1-naive")
                    .empty());
        QVERIFY(lab::sourceExcerpt("", "core/lab/src/cpu_naive.cpp", "cpu-1-naive").empty());
        // An excerpt that is never closed is no excerpt.
        QTemporaryDir folder;
        {
            std::ofstream file(folder.filePath(QStringLiteral("open.cpp")).toStdString());
            file << "// [lab:excerpt k]\nint x;\n";
        }
        QVERIFY(lab::sourceExcerpt(folder.path().toStdString(), "open.cpp", "k").empty());
        {
            std::ofstream file(folder.filePath(QStringLiteral("closed.cpp")).toStdString());
            file << "  // [lab:excerpt k]\n    int x;\n      int y;\n  // [lab:end]\n";
        }
        QCOMPARE(lab::sourceExcerpt(folder.path().toStdString(), "closed.cpp", "k"),
                 std::string("int x;\n  int y;\n"));
    }

    void runLabArithmetic() {
        const Catalog a = tpacf::generateUniformRandoms(300, Footprint::cap(0, 0, 5), 7, "a");
        const Binning binning(BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 2.0));
        const PairCounts reference = bruteForce(a, nullptr, binning);
        QVERIFY(reference[2] >= 10 && reference[3] >= 10);
        lab::LabVariantList variants;
        variants.push_back(std::make_unique<FakeVariant>("c1", "cpu", 4.0));
        variants.push_back(std::make_unique<FakeVariant>("c2", "cpu", 2.0));
        variants.push_back(std::make_unique<FakeVariant>("g1", "gpu", 1.0));
        variants.push_back(std::make_unique<FakeVariant>("c3", "cpu", 1.0, std::vector<std::int64_t>{},
                                                         "no device"));
        variants.push_back(
            std::make_unique<FakeVariant>("c4", "cpu", 0.5, std::vector<std::int64_t>{0, 0, -5, 3}));
        variants.push_back(std::make_unique<FakeVariant>("g2", "gpu", 0.25));
        std::vector<std::pair<int, int>> calls;
        const lab::LabReport report = lab::runLab(variants, a, nullptr, binning, 3,
                                                  [&](int done, int total) {
                                                      calls.emplace_back(done, total);
                                                  });
        QCOMPARE(report.pairs, std::uint64_t(300 * 299 / 2));
        QCOMPARE(report.reference, reference);
        QCOMPARE(report.edges.size(), binning.count() + 1);
        QCOMPARE(calls.size(), std::size_t(7));
        QCOMPARE(calls.front(), std::make_pair(0, 6));
        QCOMPARE(calls.back(), std::make_pair(6, 6));
        const auto& rows = report.rows;
        QCOMPARE(rows.size(), std::size_t(6));
        const auto speedups = [&](std::size_t r) {
            return std::make_pair(rows[r].speedupOverPrevious, rows[r].speedupOverFirst);
        };
        QCOMPARE(speedups(0), std::make_pair(0.0, 0.0));
        QCOMPARE(speedups(1), std::make_pair(2.0, 2.0));
        QCOMPARE(speedups(2), std::make_pair(0.0, 0.0)); // first of its backend
        QCOMPARE(QString::fromStdString(rows[3].error), QStringLiteral("no device"));
        QCOMPARE(rows[3].seconds, 0.0);
        QCOMPARE(speedups(3), std::make_pair(0.0, 0.0));
        QCOMPARE(speedups(4), std::make_pair(4.0, 8.0)); // over c2 (c3 failed) and over c1
        QCOMPARE(speedups(5), std::make_pair(4.0, 4.0));
        QCOMPARE(rows[1].pairsPerSecond, double(report.pairs) / 2.0);
        for (std::size_t r : {0, 1, 2, 5}) {
            QCOMPARE(rows[r].wrongBins, 0);
            QCOMPARE(rows[r].maxRelativeError, 0.0);
        }
        QCOMPARE(rows[4].wrongBins, 2);
        QCOMPARE(rows[4].difference[2], std::int64_t(-5));
        QCOMPARE(rows[4].difference[3], std::int64_t(3));
        QCOMPARE(rows[4].maxRelativeError,
                 std::max(5.0 / double(reference[2]), 3.0 / double(reference[3])));
        QVERIFY(!rows[4].expectedExact);
        QCOMPARE(QString::fromStdString(rows[2].backend), QStringLiteral("gpu"));

        // A raised cancel flag stops the lab with Cancelled, not an error row.
        std::atomic<bool> cancel{true};
        QVERIFY_THROWS_EXCEPTION(tpacf::Cancelled,
                                 lab::runLab(variants, a, nullptr, binning, 1, {}, &cancel));
    }
};

TPACF_TEST_MAIN(TestLab)
#include "test_lab.moc"
