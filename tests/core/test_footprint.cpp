// SPDX-License-Identifier: GPL-3.0-or-later
// Data and random footprints compared on the equal-area grid, against closed forms: identical
// footprints (nothing outside, area ratio 1), disjoint caps (everything outside), half sky
// against full sky both ways (area ratio 2 exactly; the outside fraction is the data south of
// the equator, counted here point by point), a cap inside a box (the ratio of their solid
// angles), boxes overlapping in part (the fraction beyond the randoms' edge, to one cell); the
// grid itself (equal areas, a cell of level L−1 is four of level L) and the subsample.
#include "tpacf/footprint.h"
#include "tpacf/mock.h"
#include "tpacf/units.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>

using tpacf::Catalog;
using tpacf::Footprint;
using tpacf::FootprintComparison;
using tpacf::generateUniformRandoms;
using tpacf::kPi;
using tpacf::SkyOccupancy;

namespace {

constexpr double kDeg = kPi / 180.0;
constexpr double kSkyDeg2 = 4 * kPi / (kDeg * kDeg);

FootprintComparison compare(const Catalog& data, const Catalog& randoms) {
    return tpacf::compareFootprints(SkyOccupancy::of(data), SkyOccupancy::of(randoms));
}

QString describe(const FootprintComparison& c) {
    return QStringLiteral("level %1, outside %2 of %3, areas %4 vs %5 deg², ratio %6")
        .arg(c.level)
        .arg(c.dataPointsOutside)
        .arg(c.dataPoints)
        .arg(c.dataAreaDeg2)
        .arg(c.randomAreaDeg2)
        .arg(c.areaRatio);
}

// A box's solid angle: ΔRA · (sin decMax − sin decMin).
double boxDeg2(double raMin, double raMax, double decMin, double decMax) {
    return (raMax - raMin) * kDeg * (std::sin(decMax * kDeg) - std::sin(decMin * kDeg)) /
           (kDeg * kDeg);
}

} // namespace

class TestFootprint : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cellsNestAcrossLevels();
    void cellsHaveEqualAreas();
    void identicalFootprintsAgree();
    void disjointCapsAreAllOutside();
    void halfSkyAgainstFullSky();
    void fullSkyAgainstHalfSky();
    void capInsideABox();
    void partialOverlap();
    void subsampleKeepsTheFootprint();
    void emptySidesGiveNoWarning();
    void mergedOccupanciesHoldEveryCell();
};

void TestFootprint::cellsNestAcrossLevels() {
    // Two directions share a cell of level L exactly when their band (equal steps in sin Dec)
    // and their RA slice of that level agree: computed here directly, per level.
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> raDist(0, 2 * kPi), zDist(-1, 1);
    constexpr int kFinest = SkyOccupancy::kFinestLevel;
    for (int trial = 0; trial < 20000; ++trial) {
        const double ra1 = raDist(random), z1 = zDist(random);
        // Neighbours at every scale: a second point close to the first as often as not.
        const double scale = std::ldexp(1.0, -int(trial % 14));
        const double ra2 =
            std::fmod(ra1 + scale * (raDist(random) / (2 * kPi) - 0.5) + 2 * kPi, 2 * kPi);
        const double z2 = std::clamp(z1 + scale * (zDist(random) * 0.5), -1.0, 1.0);
        const std::uint32_t a = SkyOccupancy::cellOf(ra1, z1);
        const std::uint32_t b = SkyOccupancy::cellOf(ra2, z2);
        for (int level = 0; level <= kFinest; ++level) {
            const double bands = std::ldexp(1.0, level);
            const auto band = [bands](double z) {
                return std::min(bands - 1, std::floor((z + 1) * 0.5 * bands));
            };
            const auto slice = [bands](double ra) {
                return std::min(4 * bands - 1, std::floor(ra / (2 * kPi) * 4 * bands));
            };
            const bool same = band(z1) == band(z2) && slice(ra1) == slice(ra2);
            const int shift = 2 * (kFinest - level);
            QVERIFY2(((a >> shift) == (b >> shift)) == same,
                     qPrintable(QStringLiteral("trial %1, level %2").arg(trial).arg(level)));
        }
    }
}

void TestFootprint::cellsHaveEqualAreas() {
    // 4^(L+1) cells tile the sphere; a uniform full sky fills every cell of level 3 (256 cells)
    // with a count within 5σ of the mean.
    double total = 0;
    for (int level = 0; level <= SkyOccupancy::kFinestLevel; ++level)
        QVERIFY(std::abs(SkyOccupancy::cellSolidAngle(level) * std::ldexp(1.0, 2 * (level + 1)) -
                         4 * kPi) < 1e-12);
    const Catalog sky = generateUniformRandoms(256000, Footprint::fullSky(), 3);
    const SkyOccupancy occupancy = SkyOccupancy::of(sky, 0); // every point
    QCOMPARE(occupancy.pointCount(), sky.size());
    QCOMPARE(occupancy.occupiedCells(3), std::size_t(256));
    const auto cells = occupancy.cells();
    std::vector<int> counts(256, 0);
    for (const std::uint32_t cell : cells)
        ++counts[cell >> (2 * (SkyOccupancy::kFinestLevel - 3))];
    for (const int count : counts) {
        total += count;
        QVERIFY2(std::abs(count - 1000) < 5 * std::sqrt(1000.0),
                 qPrintable(QString::number(count)));
    }
    QCOMPARE(total, 256000.0);
}

void TestFootprint::identicalFootprintsAgree() {
    const Footprint box = Footprint::box(150, 190, 0, 40);
    const Catalog data = generateUniformRandoms(20000, box, 1);
    const Catalog randoms = generateUniformRandoms(50000, box, 2);
    const FootprintComparison c = compare(data, randoms);
    QVERIFY2(c.outsideFraction <= 0.002, qPrintable(describe(c)));
    QVERIFY2(std::abs(c.areaRatio - 1) < 0.05, qPrintable(describe(c)));
    // The cells hold the box and at most a rim of one cell around it.
    const double truth = boxDeg2(150, 190, 0, 40);
    QVERIFY2(c.randomAreaDeg2 >= truth * 0.99, qPrintable(describe(c)));
    QVERIFY2(c.randomAreaDeg2 <= truth * 1.25, qPrintable(describe(c)));
    QVERIFY2(tpacf::footprintWarning(c).empty(), tpacf::footprintWarning(c).c_str());
}

void TestFootprint::disjointCapsAreAllOutside() {
    const Catalog data = generateUniformRandoms(5000, Footprint::cap(0, 0, 10), 1);
    const Catalog randoms = generateUniformRandoms(20000, Footprint::cap(180, 0, 10), 2);
    const FootprintComparison c = compare(data, randoms);
    QCOMPARE(c.dataPointsOutside, c.dataPoints);
    QCOMPARE(c.outsideFraction, 1.0);
    const QString warning = QString::fromStdString(tpacf::footprintWarning(c));
    QVERIFY2(warning.startsWith(QStringLiteral("100 % of the data points lie in sky cells")),
             qPrintable(warning));
    // The caps are equal: no word about their areas.
    QVERIFY2(!warning.contains(QStringLiteral("times the data's area")), qPrintable(warning));
}

void TestFootprint::halfSkyAgainstFullSky() {
    // The equator is a band edge at every level: the northern data fill exactly half the cells.
    const Catalog data = generateUniformRandoms(60000, Footprint::box(0, 360, 0, 90), 4);
    const Catalog randoms = generateUniformRandoms(120000, Footprint::fullSky(), 5);
    const FootprintComparison c = compare(data, randoms);
    QCOMPARE(c.dataPointsOutside, std::size_t(0));
    QVERIFY2(std::abs(c.areaRatio - 2.0) < 1e-12, qPrintable(describe(c)));
    QVERIFY2(std::abs(c.dataAreaDeg2 - kSkyDeg2 / 2) < 1e-6 * kSkyDeg2, qPrintable(describe(c)));
    // Twice the area is the limit itself, not beyond it.
    QVERIFY(tpacf::footprintWarning(c).empty());
    tpacf::FootprintLimits strict;
    strict.maxAreaRatio = 1.5;
    const QString warning = QString::fromStdString(tpacf::footprintWarning(c, strict));
    QVERIFY2(warning.startsWith(QStringLiteral("the randoms cover 2 times the data's area")),
             qPrintable(warning));
}

void TestFootprint::fullSkyAgainstHalfSky() {
    const Catalog data = generateUniformRandoms(60000, Footprint::fullSky(), 6);
    const Catalog randoms = generateUniformRandoms(120000, Footprint::box(0, 360, 0, 90), 7);
    std::size_t south = 0; // sin Dec < 0: the bands without randoms
    for (const double z : data.z())
        south += z < 0 ? 1 : 0;
    const FootprintComparison c = compare(data, randoms);
    QCOMPARE(c.dataPointsOutside, south);
    QVERIFY2(std::abs(c.areaRatio - 0.5) < 1e-12, qPrintable(describe(c)));
    const QString warning = QString::fromStdString(tpacf::footprintWarning(c));
    QVERIFY2(warning.contains(QStringLiteral(" % of the data points lie in sky cells")),
             qPrintable(warning));
}

void TestFootprint::capInsideABox() {
    // Data in a 5° cap at the centre of the randoms' 40° box: none outside, the area ratio is
    // that of the solid angles (to the rim of the cap's cells).
    const Footprint cap = Footprint::cap(170, 20, 5);
    const Footprint box = Footprint::box(150, 190, 0, 40);
    const Catalog data = generateUniformRandoms(20000, cap, 8);
    const Catalog randoms = generateUniformRandoms(80000, box, 9);
    const FootprintComparison c = compare(data, randoms);
    QCOMPARE(c.dataPointsOutside, std::size_t(0));
    const double expected = box.solidAngle() / cap.solidAngle();
    QVERIFY2(c.areaRatio > 0.75 * expected && c.areaRatio <= 1.05 * expected,
             qPrintable(describe(c) + QStringLiteral(", expected %1").arg(expected)));
    const QString warning = QString::fromStdString(tpacf::footprintWarning(c));
    QVERIFY2(warning.startsWith(QStringLiteral("the randoms cover ")), qPrintable(warning));
    QVERIFY2(warning.contains(QStringLiteral("times the data's area")), qPrintable(warning));
}

void TestFootprint::partialOverlap() {
    // Randoms shifted 20° in RA: the data west of RA 170° are outside, to within the cells that
    // straddle RA 170° (they hold randoms, so their data count as inside).
    const Catalog data = generateUniformRandoms(30000, Footprint::box(150, 190, 0, 40), 10);
    const Catalog randoms = generateUniformRandoms(60000, Footprint::box(170, 210, 0, 40), 11);
    std::size_t west = 0;
    for (const double ra : data.ra())
        west += ra < 170 * kDeg ? 1 : 0;
    const FootprintComparison c = compare(data, randoms);
    const double cellWidthDeg = 360.0 / (4 * std::ldexp(1.0, c.level));
    const double expected = double(west) / double(data.size());
    QVERIFY2(c.outsideFraction <= expected, qPrintable(describe(c)));
    QVERIFY2(c.outsideFraction >= expected - cellWidthDeg / 40.0 - 0.01,
             qPrintable(describe(c) + QStringLiteral(", expected %1").arg(expected)));
    QVERIFY(!tpacf::footprintWarning(c).empty());
}

void TestFootprint::subsampleKeepsTheFootprint() {
    const Footprint box = Footprint::box(20, 80, -10, 25);
    const Catalog a = generateUniformRandoms(90000, box, 12);
    const Catalog b = generateUniformRandoms(60000, box, 13);
    const Catalog* both[] = {&a, &b};
    const SkyOccupancy all = SkyOccupancy::of(both, 0); // 0: no limit
    const SkyOccupancy some = SkyOccupancy::of(both, 30000);
    QCOMPARE(all.pointCount(), a.size() + b.size());
    QVERIFY(some.pointCount() <= 30000 + 2);
    QVERIFY(some.pointCount() >= 29000);
    // At the comparison's own level the subsample covers what the whole covers.
    const FootprintComparison c = tpacf::compareFootprints(some, all);
    QCOMPARE(c.dataPointsOutside, std::size_t(0));
    QVERIFY2(std::abs(c.areaRatio - 1) < 0.05, qPrintable(describe(c)));
}

void TestFootprint::emptySidesGiveNoWarning() {
    const Catalog randoms = generateUniformRandoms(1000, Footprint::fullSky(), 14);
    const FootprintComparison none =
        tpacf::compareFootprints(SkyOccupancy{}, SkyOccupancy::of(randoms));
    QCOMPARE(none.dataPoints, std::size_t(0));
    QCOMPARE(none.areaRatio, 0.0);
    QVERIFY(tpacf::footprintWarning(none).empty());
    const FootprintComparison noRandoms =
        tpacf::compareFootprints(SkyOccupancy::of(randoms), SkyOccupancy{});
    QCOMPARE(noRandoms.dataPoints, randoms.size());
    QVERIFY(tpacf::footprintWarning(noRandoms).empty());
}

// The occupancy of several catalogs from theirs: every cell of each, sorted, none dropped (the
// Studio merges the random catalogs' occupancies computed once on its loader thread).
void TestFootprint::mergedOccupanciesHoldEveryCell() {
    const Catalog a = generateUniformRandoms(3000, Footprint::cap(30, 10, 8), 21);
    const Catalog b = generateUniformRandoms(5000, Footprint::box(100, 140, -20, 20), 22);
    const Catalog c = generateUniformRandoms(1000, Footprint::fullSky(), 23);
    const SkyOccupancy oa = SkyOccupancy::of(a), ob = SkyOccupancy::of(b), oc = SkyOccupancy::of(c);
    const SkyOccupancy* parts[] = {&oa, nullptr, &ob, &oc};
    const SkyOccupancy all = SkyOccupancy::merged(parts);
    std::vector<std::uint32_t> expected;
    for (const SkyOccupancy* part : {&oa, &ob, &oc})
        expected.insert(expected.end(), part->cells().begin(), part->cells().end());
    std::sort(expected.begin(), expected.end());
    QCOMPARE(all.pointCount(), std::size_t(9000));
    QVERIFY(std::equal(all.cells().begin(), all.cells().end(), expected.begin(), expected.end()));
    // Below the subsample threshold merging is the occupancy of the catalogs together.
    const Catalog* together[] = {&a, &b, &c};
    const SkyOccupancy joint = SkyOccupancy::of(together);
    QVERIFY(std::equal(all.cells().begin(), all.cells().end(), joint.cells().begin(),
                       joint.cells().end()));
    const SkyOccupancy* one[] = {&ob};
    const SkyOccupancy single = SkyOccupancy::merged(one);
    QVERIFY(std::equal(single.cells().begin(), single.cells().end(), ob.cells().begin(),
                       ob.cells().end()));
}

TPACF_TEST_MAIN(TestFootprint)
#include "test_footprint.moc"
