// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend's parallel preparation (core/src/counting/sky_cells.h): the sort into Morton
// order against an independent check (keys ascending within each region, ties in catalog order:
// the unique stable order) and bit for bit the same for every thread count; the cell-pair plan
// of several tasks the same, run for run and count for count, on one thread and on several.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/mock.h"
#include "tpacf_test_main.h"

// White box: the partition and plan are internal to core (core/src).
#include "counting/sky_cells.h"

#include <QtTest/QtTest>

#include <random>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::Footprint;
namespace sky = tpacf::sky;

namespace {

// `name`'s points with weight i (so the sorted weights name each point's catalog index) and,
// for regions > 0, a region per point that follows RA in stripes with some mixing.
Catalog catalogNamed(const QString& name, std::size_t n, std::uint64_t seed, int regions) {
    Catalog base;
    if (name == QLatin1String("full-sky")) {
        base = tpacf::generateUniformRandoms(n, Footprint::fullSky(), seed, "full-sky");
    } else if (name == QLatin1String("clustered")) {
        tpacf::MockParams params;
        params.count = n;
        params.seed = seed;
        params.footprint = Footprint::box(10, 50, -20, 20);
        base = tpacf::generateClusteredMock(params, "clustered");
    } else {
        // Clumps of exact duplicates in a tiny cap: long runs of equal keys.
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        std::vector<double> ra, dec;
        while (ra.size() < n) {
            const double r = 0.2 + 1e-4 * unit(rng), d = 0.1 + 1e-4 * unit(rng);
            for (std::size_t c = 1 + rng() % 300; c > 0 && ra.size() < n; --c) {
                ra.push_back(r);
                dec.push_back(d);
            }
        }
        base = Catalog::fromRadians("duplicates", std::move(ra), std::move(dec));
    }
    std::vector<double> weight(base.size());
    std::vector<std::int32_t> region;
    for (std::size_t i = 0; i < base.size(); ++i)
        weight[i] = double(i);
    if (regions > 0)
        for (std::size_t i = 0; i < base.size(); ++i)
            region.push_back(std::int32_t(std::size_t(base.ra()[i] * 3.1 + double(i % 3)) %
                                          std::size_t(regions)));
    return Catalog::fromRadians(base.name(), {base.ra().begin(), base.ra().end()},
                                {base.dec().begin(), base.dec().end()}, std::move(weight),
                                std::move(region));
}

bool sameSorted(const sky::SortedCatalog& a, const sky::SortedCatalog& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w && a.keys == b.keys &&
           a.segmentStart == b.segmentStart;
}

const char* const kFootprints[] = {"full-sky", "clustered", "duplicates"};

} // namespace

class TestSkyCells : public QObject {
    Q_OBJECT

private slots:
    void sortIsStableAndThreadIndependent_data();
    void sortIsStableAndThreadIndependent();
    void partitionIsThreadIndependent_data();
    void partitionIsThreadIndependent();
    void planIsThreadIndependent_data();
    void planIsThreadIndependent();
    void chosenPlanIsThreadIndependent_data();
    void chosenPlanIsThreadIndependent();
};

void TestSkyCells::sortIsStableAndThreadIndependent_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("regions");
    // 300,000 points: above the size from which ranges are split by parallel passes.
    for (const char* footprint : kFootprints)
        for (int regions : {0, 7})
            for (int size : {1, 1000, 300000})
                QTest::newRow(QByteArray(footprint) + " n=" + QByteArray::number(size) +
                              " regions=" + QByteArray::number(regions))
                    << QString::fromLatin1(footprint) << size << regions;
}

void TestSkyCells::sortIsStableAndThreadIndependent() {
    QFETCH(QString, footprint);
    QFETCH(int, size);
    QFETCH(int, regions);
    const Catalog catalog = catalogNamed(footprint, std::size_t(size), 5, regions);
    const auto none = [] {};
    const sky::SortedCatalog one = sky::sortCatalog(catalog, std::size_t(regions), none, 1);

    // A permutation, region-major, keys ascending within a region, ties in catalog order; each
    // point carries its own coordinates.
    const std::size_t n = catalog.size();
    QCOMPARE(one.size(), n);
    QCOMPARE(one.segmentStart.front(), std::size_t(0));
    QCOMPARE(one.segmentStart.back(), n);
    std::vector<bool> seen(n, false);
    for (std::size_t s = 0; s + 1 < one.segmentStart.size(); ++s)
        for (std::size_t i = one.segmentStart[s]; i < one.segmentStart[s + 1]; ++i) {
            const auto index = std::size_t(one.w[i]);
            QVERIFY(index < n && !seen[index]);
            seen[index] = true;
            QCOMPARE(one.x[i], catalog.x()[index]);
            QCOMPARE(one.y[i], catalog.y()[index]);
            QCOMPARE(one.z[i], catalog.z()[index]);
            if (regions > 0)
                QCOMPARE(std::size_t(catalog.region()[index]), s);
            if (i > one.segmentStart[s]) {
                QVERIFY(one.keys[i - 1] <= one.keys[i]);
                if (one.keys[i - 1] == one.keys[i])
                    QVERIFY(one.w[i - 1] < one.w[i]);
            }
        }

    for (std::size_t threads : {2, 3, 8}) {
        int polls = 0;
        const sky::SortedCatalog many = sky::sortCatalog(
            catalog, std::size_t(regions), [&] { ++polls; }, threads);
        QVERIFY2(sameSorted(one, many), qPrintable(QStringLiteral("%1 threads").arg(threads)));
    }
}

void TestSkyCells::partitionIsThreadIndependent_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<int>("regions");
    QTest::addColumn<int>("population");
    // 200,000 points: nodes large enough to be partitioned on workers of their own.
    for (const char* footprint : kFootprints)
        for (int regions : {0, 7})
            for (int population : {8, 64, 1024})
                QTest::addRow("%s regions=%d population=%d", footprint, regions, population)
                    << QString::fromLatin1(footprint) << regions << population;
}

namespace {

bool sameNode(const sky::CellNode& a, const sky::CellNode& b) {
    for (int axis = 0; axis < 3; ++axis)
        if (a.box.lo[axis] != b.box.lo[axis] || a.box.hi[axis] != b.box.hi[axis])
            return false;
    return a.cellBegin == b.cellBegin && a.cellEnd == b.cellEnd && a.childBegin == b.childBegin &&
           a.childEnd == b.childEnd && a.segment == b.segment && a.weightSum == b.weightSum &&
           a.weightSquareSum == b.weightSquareSum;
}

// The first array in which two partitions differ (empty: none).
QString partitionDifference(const sky::CellPartition& a, const sky::CellPartition& b) {
    if (a.start != b.start)
        return QStringLiteral("start");
    if (a.segment != b.segment)
        return QStringLiteral("segment");
    if (a.children != b.children)
        return QStringLiteral("children");
    if (a.root != b.root)
        return QStringLiteral("root");
    if (a.bounds.size() != b.bounds.size() || a.nodes.size() != b.nodes.size())
        return QStringLiteral("sizes");
    for (std::size_t c = 0; c < a.bounds.size(); ++c)
        for (int axis = 0; axis < 3; ++axis)
            if (a.bounds[c].lo[axis] != b.bounds[c].lo[axis] ||
                a.bounds[c].hi[axis] != b.bounds[c].hi[axis])
                return QStringLiteral("bounds of cell %1").arg(c);
    for (std::size_t n = 0; n < a.nodes.size(); ++n)
        if (!sameNode(a.nodes[n], b.nodes[n]))
            return QStringLiteral("node %1").arg(n);
    return {};
}

} // namespace

// The partition built with its large nodes on workers is the one-thread partition, array for
// array; and that one holds every point once, in cells of at most `population` (but for
// duplicates' finest keys), each inside its node's box, under a tree whose leaves are the cells.
void TestSkyCells::partitionIsThreadIndependent() {
    QFETCH(QString, footprint);
    QFETCH(int, regions);
    QFETCH(int, population);
    const auto none = [] {};
    const sky::SortedCatalog sorted = sky::sortCatalog(catalogNamed(footprint, 200000, 3, regions),
                                                       std::size_t(regions), none, 2);
    const sky::CellPartition one = sky::partitionCells(sorted, std::size_t(population), 1);

    QCOMPARE(one.start.front(), std::size_t(0));
    QCOMPARE(one.start.back(), sorted.size());
    std::size_t leaves = 0;
    for (const sky::CellNode& node : one.nodes)
        if (node.isCell()) {
            ++leaves;
            const std::size_t c = node.cellBegin;
            QVERIFY(one.start[c] < one.start[c + 1]);
            QVERIFY(one.countOf(c) <= std::size_t(population) ||
                    sorted.keys[one.start[c]] == sorted.keys[one.start[c + 1] - 1]);
            for (std::size_t i = one.start[c]; i < one.start[c + 1]; ++i)
                QVERIFY(node.box.lo[0] <= sorted.x[i] && sorted.x[i] <= node.box.hi[0] &&
                        node.box.lo[1] <= sorted.y[i] && sorted.y[i] <= node.box.hi[1] &&
                        node.box.lo[2] <= sorted.z[i] && sorted.z[i] <= node.box.hi[2]);
        }
    QCOMPARE(leaves, one.cellCount());

    for (std::size_t threads : {2, 3, 16}) {
        int polls = 0;
        const sky::CellPartition many =
            sky::partitionCells(sorted, std::size_t(population), threads, [&] { ++polls; });
        const QString difference = partitionDifference(one, many);
        QVERIFY2(difference.isEmpty(),
                 qPrintable(QStringLiteral("%1 threads: %2").arg(threads).arg(difference)));
    }
}

void TestSkyCells::planIsThreadIndependent_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<int>("regions");
    QTest::addColumn<double>("thetaMaxDegrees");
    for (const char* footprint : {"full-sky", "clustered"})
        for (int regions : {0, 5})
            for (double thetaMax : {0.05, 5.0})
                QTest::addRow("%s regions=%d theta<%g", footprint, regions, thetaMax)
                    << QString::fromLatin1(footprint) << regions << thetaMax;
}

namespace {

// The same cells, runs and whole counts (what the counts are made of).
QString planDifference(const sky::CellPlan& a, const sky::CellPlan& b) {
    if (a.population != b.population)
        return QStringLiteral("population %1 vs %2").arg(a.population).arg(b.population);
    for (std::size_t c = 0; c < a.cells.size(); ++c)
        if (a.cells[c].start != b.cells[c].start)
            return QStringLiteral("cells of catalog %1").arg(c);
    for (std::size_t t = 0; t < a.tasks.size(); ++t) {
        const sky::TaskCellPlan& x = a.tasks[t];
        const sky::TaskCellPlan& y = b.tasks[t];
        bool same = x.runs.size() == y.runs.size() && x.wholeByFirst == y.wholeByFirst &&
                    x.wholeBySecond == y.wholeBySecond && x.wholeWithin == y.wholeWithin &&
                    x.wholePairs == y.wholePairs && x.countedPairs == y.countedPairs;
        for (std::size_t r = 0; same && r < x.runs.size(); ++r)
            same = x.runs[r].a == y.runs[r].a && x.runs[r].bBegin == y.runs[r].bBegin &&
                   x.runs[r].bEnd == y.runs[r].bEnd;
        if (!same)
            return QStringLiteral("task %1").arg(t);
    }
    return {};
}

} // namespace

void TestSkyCells::chosenPlanIsThreadIndependent_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<double>("thetaMinDegrees");
    QTest::addColumn<double>("thetaMaxDegrees");
    // A near-empty binning (the smallest cells allowed win), a small and a large θ_max.
    for (const char* footprint : {"full-sky", "clustered"})
        for (auto [lo, hi] : {std::pair{1e-6, 2e-6}, std::pair{0.005, 0.5}, std::pair{0.1, 10.0}})
            QTest::addRow("%s theta %g-%g", footprint, lo, hi)
                << QString::fromLatin1(footprint) << lo << hi;
}

// The search over populations (planCellPairs) chooses alike on one thread and on several, and
// its plan, made over the cells of the chosen candidate, is the full plan of that population.
void TestSkyCells::chosenPlanIsThreadIndependent() {
    QFETCH(QString, footprint);
    QFETCH(double, thetaMinDegrees);
    QFETCH(double, thetaMaxDegrees);
    const Binning binning(
        BinSpec::logCount(thetaMinDegrees, thetaMaxDegrees, AngleUnit::Degree, 6));
    const auto none = [] {};
    std::vector<sky::SortedCatalog> sorted;
    sorted.push_back(sky::sortCatalog(catalogNamed(footprint, 40000, 1, 0), 0, none));
    sorted.push_back(
        sky::sortCatalog(catalogNamed(QStringLiteral("full-sky"), 30000, 2, 0), 0, none));
    const std::vector<sky::CellTask> tasks = {
        {0, 0, true, false}, {0, 1, false, false}, {1, 1, true, false}};
    const sky::CellPlan one = sky::planCellPairs(sorted, tasks, binning.chord2Edges(), 0, none, 1);
    const sky::CellPlan full =
        sky::planForPopulation(sorted, tasks, binning.chord2Edges(), 0, one.population, none, 1);
    QVERIFY2(planDifference(one, full).isEmpty(), qPrintable(planDifference(one, full)));
    for (std::size_t threads : {2, 5}) {
        const sky::CellPlan many =
            sky::planCellPairs(sorted, tasks, binning.chord2Edges(), 0, none, threads);
        QVERIFY2(planDifference(one, many).isEmpty(),
                 qPrintable(
                     QStringLiteral("%1 threads: %2").arg(threads).arg(planDifference(one, many))));
    }
}

// Auto, cross and weighted tasks of one batch, planned on one thread and on several (the
// tasks listed, refined and finished on parallel workers): the same cells, runs and counts.
void TestSkyCells::planIsThreadIndependent() {
    QFETCH(QString, footprint);
    QFETCH(int, regions);
    QFETCH(double, thetaMaxDegrees);
    const Binning binning(
        BinSpec::logCount(thetaMaxDegrees / 100, thetaMaxDegrees, AngleUnit::Degree, 12));
    const auto none = [] {};
    std::vector<sky::SortedCatalog> sorted;
    sorted.push_back(
        sky::sortCatalog(catalogNamed(footprint, 20000, 1, regions), std::size_t(regions), none));
    sorted.push_back(sky::sortCatalog(catalogNamed(QStringLiteral("full-sky"), 15000, 2, regions),
                                      std::size_t(regions), none));
    const std::vector<sky::CellTask> tasks = {
        {0, 0, true, false}, {0, 1, false, false}, {1, 1, true, false}, {1, 0, false, false}};

    for (std::size_t population : {8, 64, 512}) {
        const sky::CellPlan one = sky::planForPopulation(sorted, tasks, binning.chord2Edges(),
                                                         std::size_t(regions), population, none, 1);
        for (std::size_t threads : {2, 5}) {
            const sky::CellPlan many =
                sky::planForPopulation(sorted, tasks, binning.chord2Edges(), std::size_t(regions),
                                       population, none, threads);
            const QString where =
                QStringLiteral("population %1, %2 threads").arg(population).arg(threads);
            QVERIFY2(one.cost == many.cost, qPrintable(where));
            QVERIFY2(one.checks == many.checks, qPrintable(where));
            QVERIFY2(one.listedCellPairs == many.listedCellPairs, qPrintable(where));
            for (std::size_t c = 0; c < sorted.size(); ++c)
                QVERIFY2(one.cells[c].start == many.cells[c].start, qPrintable(where));
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                const sky::TaskCellPlan& a = one.tasks[t];
                const sky::TaskCellPlan& b = many.tasks[t];
                QVERIFY2(a.runs.size() == b.runs.size(), qPrintable(where));
                for (std::size_t r = 0; r < a.runs.size(); ++r)
                    QVERIFY2(a.runs[r].a == b.runs[r].a && a.runs[r].bBegin == b.runs[r].bBegin &&
                                 a.runs[r].bEnd == b.runs[r].bEnd,
                             qPrintable(where));
                QVERIFY2(a.wholeByFirst == b.wholeByFirst && a.wholeBySecond == b.wholeBySecond &&
                             a.wholeWithin == b.wholeWithin,
                         qPrintable(where));
                QVERIFY2(a.wholePairs == b.wholePairs && a.countedPairs == b.countedPairs,
                         qPrintable(where));
            }
        }
    }
}

TPACF_TEST_MAIN(TestSkyCells)
#include "test_sky_cells.moc"
