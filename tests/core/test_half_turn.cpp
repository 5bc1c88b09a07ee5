// SPDX-License-Identifier: GPL-3.0-or-later
// The last bin at 180°: closed, [edge, 180°], so that exact antipodal pairs count whatever way
// their c² rounds (just above or just below 4). The CPU backend (culling on and off, plain and
// weighted, auto and cross) against a brute force that measures each pair's angle with atan2 in
// long double, independent of the c² route; Binning's thresholds for every unit.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <vector>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::CountTask;
using tpacf::CpuPairCounter;
using tpacf::CullingMode;

namespace {

constexpr long double kPiL = 3.141592653589793238462643383279502884L;

// n random points and their exact antipodes (RA + 180°, −Dec): n antipodal pairs, in degrees as
// a catalog file gives them, so that the unit vectors carry the rounding a real catalog does.
Catalog antipodalCatalog(std::size_t n, std::uint64_t seed, bool weighted) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> raDist(0.0, 180.0), zDist(-1.0, 1.0), wDist(0.5, 2.0);
    std::vector<double> ra, dec, weight;
    for (std::size_t i = 0; i < n; ++i) {
        const double r = raDist(rng);
        const double d = std::asin(zDist(rng)) * 180.0 / 3.141592653589793;
        ra.insert(ra.end(), {r, r + 180.0});
        dec.insert(dec.end(), {d, -d});
        weight.insert(weight.end(), {wDist(rng), wDist(rng)});
    }
    return Catalog::fromDegrees("antipodes", std::move(ra), std::move(dec),
                                weighted ? std::move(weight) : std::vector<double>{});
}

// The angle between two points in degrees, long double, from atan2(|a × b|, a · b): accurate
// at 180° where acos and the chord lose everything.
long double angleDegrees(const Catalog& a, std::size_t i, const Catalog& b, std::size_t j) {
    const auto unit = [](const Catalog& c, std::size_t k, long double v[3]) {
        const long double ra = c.ra()[k], dec = c.dec()[k];
        v[0] = std::cos(dec) * std::cos(ra);
        v[1] = std::cos(dec) * std::sin(ra);
        v[2] = std::sin(dec);
    };
    long double u[3], v[3];
    unit(a, i, u);
    unit(b, j, v);
    const long double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2],
                      cz = u[0] * v[1] - u[1] * v[0];
    const long double dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    return std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz), dot) * 180.0L / kPiL;
}

struct Expected {
    std::vector<std::uint64_t> raw;
    std::vector<double> weighted;
};

// Every pair into its bin by angle; the last bin takes θ up to and including 180°.
Expected bruteForce(const Catalog& a, const Catalog* b, const std::vector<double>& edgesDeg) {
    const std::size_t bins = edgesDeg.size() - 1;
    Expected expected{std::vector<std::uint64_t>(bins, 0), std::vector<double>(bins, 0.0)};
    const Catalog& second = b ? *b : a;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = b ? 0 : i + 1; j < second.size(); ++j) {
            const long double theta = angleDegrees(a, i, second, j);
            for (std::size_t k = 0; k < bins; ++k) {
                const bool last = k + 1 == bins;
                if (theta >= edgesDeg[k] && (theta < edgesDeg[k + 1] || last)) {
                    ++expected.raw[k];
                    const double wi = a.hasWeights() ? a.weight()[i] : 1.0;
                    const double wj = second.hasWeights() ? second.weight()[j] : 1.0;
                    expected.weighted[k] += wi * wj;
                    break;
                }
            }
        }
    return expected;
}

} // namespace

class TestHalfTurn : public QObject {
    Q_OBJECT
private slots:
    void thresholdAtHalfTurn_data() {
        QTest::addColumn<double>("max");
        QTest::addColumn<AngleUnit>("unit");
        QTest::newRow("180 deg") << 180.0 << AngleUnit::Degree;
        QTest::newRow("10800 arcmin") << 10800.0 << AngleUnit::Arcminute;
        QTest::newRow("648000 arcsec") << 648000.0 << AngleUnit::Arcsecond;
        QTest::newRow("pi rad") << 3.141592653589793 << AngleUnit::Radian;
    }
    void thresholdAtHalfTurn() {
        QFETCH(double, max);
        QFETCH(AngleUnit, unit);
        const Binning binning(BinSpec::linearCount(max / 2, max, unit, 4));
        QCOMPARE(binning.chord2Edges().back(), tpacf::kChord2BeyondHalfTurn);
        // Every rounding of an antipodal pair's c² lands in the last bin.
        for (const double c2 : {3.999999999999997, 4.0, 4.0000000000000036})
            QCOMPARE(binning.binOfChord2(c2), 3);
        // An edge short of 180° keeps its own threshold: the bin stays half-open.
        const Binning shorter(BinSpec::linearCount(max / 2, max * (1 - 1e-6), unit, 4));
        QVERIFY(shorter.chord2Edges().back() < 4.0);
        QCOMPARE(shorter.binOfChord2(4.0), -1);
    }

    void antipodalPairs_data() {
        QTest::addColumn<bool>("cross");
        QTest::addColumn<bool>("weighted");
        QTest::addColumn<CullingMode>("culling");
        for (const bool cross : {false, true})
            for (const bool weighted : {false, true})
                for (const CullingMode culling : {CullingMode::On, CullingMode::Off})
                    QTest::addRow("%s %s culling %s", cross ? "cross" : "auto",
                                  weighted ? "weighted" : "plain",
                                  culling == CullingMode::On ? "on" : "off")
                        << cross << weighted << culling;
    }
    void antipodalPairs() {
        QFETCH(bool, cross);
        QFETCH(bool, weighted);
        QFETCH(CullingMode, culling);
        // 200 antipodal pairs; the cross count pairs the catalog with a copy of itself.
        const Catalog a = antipodalCatalog(200, 7, weighted);
        const Catalog b = antipodalCatalog(200, 7, weighted);
        const std::vector<double> edges{0.0, 60.0, 120.0, 179.9, 180.0};
        const Binning binning(BinSpec::fromEdges(edges, AngleUnit::Degree));
        const CountTask task{&a, cross ? &b : nullptr};
        CpuPairCounter counter(2);
        counter.setCulling(culling);
        const auto counts = counter.countBatch(std::span(&task, 1), binning);
        const Expected expected = bruteForce(a, cross ? &b : nullptr, edges);
        QCOMPARE(counts.at(0).raw, expected.raw);
        // Every antipodal pair is in the last bin: 200 of them, 400 across the copies.
        QVERIFY(expected.raw.back() >= (cross ? 400u : 200u));
        if (weighted)
            for (std::size_t k = 0; k < expected.weighted.size(); ++k)
                QVERIFY2(std::abs(counts[0].weighted[k] - expected.weighted[k]) <=
                             1e-12 * std::abs(expected.weighted[k]),
                         qPrintable(QString::number(k)));
    }
};

TPACF_TEST_MAIN(TestHalfTurn)
#include "test_half_turn.moc"
