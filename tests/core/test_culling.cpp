// SPDX-License-Identifier: GPL-3.0-or-later
// Spatial culling: the culling mode and the Auto rule, listCellPairs against a brute-force scan
// of random cells (every cell pair that holds a pair in range is listed), the CPU backend's
// cell plan (every pair counted exactly once, whole or by the kernels), and culled counts against
// brute force (CullingMode::Off): identical, for every footprint, bin set and size, plain and by
// jackknife region, with progress and cancellation.
#include "cancel_latency.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/culling.h"
#include "tpacf/errors.h"
#include "tpacf/mock.h"
#include "tpacf_test_main.h"

// White box: the CPU backend's partition and plan (core/src), to price every population.
#include "counting/sky_cell_plan.h"
#include "counting/sky_cells.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::CellBounds;
using tpacf::CellPairClass;
using tpacf::CellPairQuery;
using tpacf::CellPairRun;
using tpacf::CountControl;
using tpacf::CountProgress;
using tpacf::CountTask;
using tpacf::CpuKernel;
using tpacf::CpuPairCounter;
using tpacf::CullingMode;
using tpacf::Footprint;
using tpacf::PairCounts;
using tpacf::RegionPairCounts;
using tpacf::TaskCounts;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDegree = kPi / 180;

// Points within 1° of either pole, half each.
Catalog polarCaps(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n);
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 360 * unit(rng);
        const double fromPole = unit(rng); // degrees
        dec[i] = i % 2 == 0 ? 90 - fromPole : -90 + fromPole;
    }
    // Exactly on the poles too, with different RA (the same unit vector up to rounding).
    if (n >= 4) {
        dec[0] = 90;
        dec[1] = -90;
        dec[2] = 90;
        ra[2] = 123;
    }
    return Catalog::fromDegrees("poles", std::move(ra), std::move(dec));
}

// Clumps of exact duplicates and near duplicates (1e-9 rad) on top of a uniform cap: many
// points share one finest Morton cell, and c² = 0 pairs land in bins that start at 0.
Catalog duplicates(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra, dec;
    while (ra.size() < n) {
        const double r = 0.2 + 0.05 * unit(rng), d = 0.1 + 0.05 * unit(rng);
        const std::size_t copies = 1 + rng() % 40;
        for (std::size_t c = 0; c < copies && ra.size() < n; ++c) {
            ra.push_back(c % 3 == 2 ? r + 1e-9 : r);
            dec.push_back(d);
        }
    }
    return Catalog::fromRadians("duplicates", std::move(ra), std::move(dec));
}

Catalog catalogNamed(const QString& name, std::size_t n, std::uint64_t seed) {
    if (name == QLatin1String("full-sky"))
        return tpacf::generateUniformRandoms(n, Footprint::fullSky(), seed, "full-sky");
    if (name == QLatin1String("clustered")) {
        tpacf::MockParams params;
        params.count = n;
        params.seed = seed;
        params.footprint = Footprint::box(10, 50, -20, 20);
        return tpacf::generateClusteredMock(params, "clustered");
    }
    if (name == QLatin1String("cap"))
        return tpacf::generateUniformRandoms(n, Footprint::cap(200, -30, 2), seed, "cap");
    if (name == QLatin1String("ra0-box"))
        return tpacf::generateUniformRandoms(n, Footprint::box(350, 10, -5, 5), seed, "ra0-box");
    if (name == QLatin1String("poles"))
        return polarCaps(n, seed);
    return duplicates(n, seed);
}

const char* const kFootprints[] = {"full-sky", "clustered", "cap",
                                   "ra0-box",  "poles",     "duplicates"};

// θ_max from 0.01° to 179°; "dense" has edges closer than any cell, "linear0" starts at θ = 0.
BinSpec binsNamed(const QString& name) {
    if (name == QLatin1String("tiny"))
        return BinSpec::logCount(0.001, 0.01, AngleUnit::Degree, 8);
    if (name == QLatin1String("small"))
        return BinSpec::logCount(0.01, 1.0, AngleUnit::Degree, 10);
    if (name == QLatin1String("log30"))
        return BinSpec::logCount(0.01, 600.0, AngleUnit::Arcminute, 30);
    if (name == QLatin1String("wide"))
        return BinSpec::logCount(0.01, 179.0, AngleUnit::Degree, 20);
    if (name == QLatin1String("linear0"))
        return BinSpec::linearWidth(0.0, 30.0, AngleUnit::Degree, 0.5);
    if (name == QLatin1String("linear179"))
        return BinSpec::linearCount(0.0, 179.0, AngleUnit::Degree, 179);
    return BinSpec::logCount(0.01, 600.0, AngleUnit::Arcminute, 2000); // dense
}

const char* const kBinSets[] = {"tiny", "small", "log30", "wide", "linear0", "linear179", "dense"};

QByteArray describe(const PairCounts& got, const PairCounts& want) {
    QByteArray text;
    int shown = 0;
    for (std::size_t k = 0; k < got.size() && k < want.size() && shown < 8; ++k)
        if (got[k] != want[k]) {
            text += "bin " + QByteArray::number(qulonglong(k)) + ": got " +
                    QByteArray::number(qulonglong(got[k])) + ", want " +
                    QByteArray::number(qulonglong(want[k])) + "; ";
            ++shown;
        }
    return text;
}

#define COMPARE_COUNTS(got, want)                                                                  \
    do {                                                                                           \
        const PairCounts got_ = (got);                                                             \
        const PairCounts want_ = (want);                                                           \
        QCOMPARE(got_.size(), want_.size());                                                       \
        QVERIFY2(got_ == want_, describe(got_, want_).constData());                                \
    } while (false)

// The contract's squared chord, written out on its own: (dx² + dy²) + dz².
double contractChord2(double ax, double ay, double az, double bx, double by, double bz) {
    const double dx = ax - bx;
    const double dy = ay - by;
    const double dz = az - bz;
    return dx * dx + dy * dy + dz * dz;
}

std::vector<PairCounts> countWith(CullingMode mode, std::span<const CountTask> tasks,
                                  const Binning& binning, CpuKernel kernel = CpuKernel::Best,
                                  bool* culled = nullptr) {
    CpuPairCounter counter(2, kernel);
    counter.setCulling(mode);
    std::vector<PairCounts> counts;
    for (TaskCounts& task : counter.countBatch(tasks, binning))
        counts.push_back(std::move(task.raw));
    if (culled)
        *culled = counter.lastBatchCulled();
    return counts;
}

// ---- random cells for listCellPairs ----

struct TestCells {
    std::vector<std::vector<std::array<double, 3>>> points; // per cell
    std::vector<CellBounds> bounds;
};

// Cells of a few points each around random centres (some at the poles, some across RA = 0),
// each cell a small random cap; the boxes are the points' boxes.
TestCells randomCells(std::size_t cellCount, std::size_t perCell, double radiusDeg,
                      std::uint64_t seed, bool sortedByCentre) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    struct Centre {
        double ra, dec;
    };
    std::vector<Centre> centres(cellCount);
    for (std::size_t c = 0; c < cellCount; ++c) {
        switch (c % 5) {
        case 0: // near a pole
            centres[c] = {2 * kPi * unit(rng), (c % 2 ? 1 : -1) * (kPi / 2 - 0.02 * unit(rng))};
            break;
        case 1: // across RA = 0
            centres[c] = {(unit(rng) - 0.5) * 0.05, (unit(rng) - 0.5) * 0.4};
            break;
        default:
            centres[c] = {2 * kPi * unit(rng), std::asin(2 * unit(rng) - 1)};
        }
    }
    if (sortedByCentre) // a coherent order, as the backends give
        std::sort(centres.begin(), centres.end(),
                  [](const Centre& l, const Centre& r) { return l.dec < r.dec; });
    TestCells cells;
    for (const Centre& centre : centres) {
        std::vector<double> ra, dec;
        const std::size_t n = 1 + rng() % perCell;
        for (std::size_t i = 0; i < n; ++i) {
            ra.push_back(centre.ra + radiusDeg * kDegree * (unit(rng) - 0.5) /
                                         std::max(0.05, std::cos(centre.dec)));
            dec.push_back(std::clamp(centre.dec + radiusDeg * kDegree * (unit(rng) - 0.5), -kPi / 2,
                                     kPi / 2));
        }
        const Catalog catalog = Catalog::fromRadians("cell", ra, dec);
        std::vector<std::array<double, 3>> points;
        CellBounds box{{1e9, 1e9, 1e9}, {-1e9, -1e9, -1e9}};
        for (std::size_t i = 0; i < catalog.size(); ++i) {
            const std::array<double, 3> p = {catalog.x()[i], catalog.y()[i], catalog.z()[i]};
            points.push_back(p);
            for (int axis = 0; axis < 3; ++axis) {
                box.lo[axis] = std::min(box.lo[axis], p[axis]);
                box.hi[axis] = std::max(box.hi[axis], p[axis]);
            }
        }
        cells.points.push_back(std::move(points));
        cells.bounds.push_back(box);
    }
    return cells;
}

// Whether cells a and b hold a pair (i < j within one cell when a == b) with c² in [min, max),
// and whether all their pairs do.
std::pair<bool, bool> pairsInRange(const TestCells& first, std::size_t a, const TestCells& second,
                                   std::size_t b, bool sameCell, double c2Min, double c2Max) {
    bool any = false, all = true;
    const auto& pa = first.points[a];
    const auto& pb = second.points[b];
    for (std::size_t i = 0; i < pa.size(); ++i)
        for (std::size_t j = sameCell ? i + 1 : 0; j < pb.size(); ++j) {
            const double c2 =
                contractChord2(pa[i][0], pa[i][1], pa[i][2], pb[j][0], pb[j][1], pb[j][2]);
            const bool in = c2Min <= c2 && c2 < c2Max;
            any = any || in;
            all = all && in;
        }
    return {any, all};
}

} // namespace

class TestCulling : public QObject {
    Q_OBJECT

private slots:
    void parseAndName();
    void chooseCullingRule_data();
    void chooseCullingRule();

    void listFindsEveryPairInRange_data();
    void listFindsEveryPairInRange();
    void listIsTheSameOnAnyThreads_data();
    void listIsTheSameOnAnyThreads();
    void sampledListKeepsTheSampledRows_data();
    void sampledListKeepsTheSampledRows();
    void listEmptyInputs();
    void listSkipsEmptyCells();

    void planCountsEveryPairOnce_data();
    void planCountsEveryPairOnce();

    void culledMatchesBruteForce_data();
    void culledMatchesBruteForce();
    void culledTinyCatalogs_data();
    void culledTinyCatalogs();
    void culledBatchSharesCatalogs();
    void culledLargeCatalog_data();
    void culledLargeCatalog();
    void culledByRegionMatches_data();
    void culledByRegionMatches();
    void autoModeAndReport();
    void culledProgressReachesTotal();
    void culledCancel();
};

void TestCulling::parseAndName() {
    for (CullingMode mode : {CullingMode::Auto, CullingMode::On, CullingMode::Off})
        QCOMPARE(tpacf::parseCullingMode(tpacf::cullingModeName(mode)), std::optional(mode));
    QCOMPARE(tpacf::cullingModeName(CullingMode::On), std::string_view("on"));
    QVERIFY(!tpacf::parseCullingMode("yes").has_value());
    QVERIFY(!tpacf::parseCullingMode("").has_value());
    QVERIFY(!tpacf::parseCullingMode("ON").has_value());
}

void TestCulling::chooseCullingRule_data() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<double>("thetaMaxDeg");
    QTest::addColumn<qulonglong>("pairs");
    QTest::addColumn<bool>("expected");
    const qulonglong threshold = 1ull << 20;
    QTest::newRow("on, nothing to count") << int(CullingMode::On) << 10.0 << 0ull << true;
    QTest::newRow("off, large batch") << int(CullingMode::Off) << 1.0 << (1ull << 40) << false;
    QTest::newRow("auto, small batch") << int(CullingMode::Auto) << 1.0 << threshold - 1 << false;
    QTest::newRow("auto, at threshold") << int(CullingMode::Auto) << 1.0 << threshold << true;
    // Whole cell pairs inside one bin keep the culled path ahead at large θ_max (measured on
    // the CPU), so θ_max alone does not turn it off.
    QTest::newRow("auto, 180 deg") << int(CullingMode::Auto) << 180.0 << (1ull << 33) << true;
}

void TestCulling::chooseCullingRule() {
    QFETCH(int, mode);
    QFETCH(double, thetaMaxDeg);
    QFETCH(qulonglong, pairs);
    QFETCH(bool, expected);
    QCOMPARE(tpacf::chooseCulling(CullingMode(mode), thetaMaxDeg, pairs), expected);
}

void TestCulling::listFindsEveryPairInRange_data() {
    QTest::addColumn<bool>("autoPairs");
    QTest::addColumn<double>("thetaMinDeg");
    QTest::addColumn<double>("thetaMaxDeg");
    QTest::addColumn<double>("cellRadiusDeg");
    QTest::addColumn<bool>("sorted");
    QTest::addColumn<int>("seed");
    const struct {
        double min, max;
    } ranges[] = {{0.0, 0.5}, {0.01, 3.0}, {1.0, 20.0}, {0.0, 180.0}, {30.0, 179.0}};
    int seed = 1;
    for (bool autoPairs : {true, false})
        for (const auto& range : ranges)
            for (double radius : {0.2, 4.0})
                for (bool sorted : {true, false})
                    QTest::addRow("%s %g-%g deg cells %g deg %s", autoPairs ? "auto" : "cross",
                                  range.min, range.max, radius, sorted ? "sorted" : "random order")
                        << autoPairs << range.min << range.max << radius << sorted << seed++;
}

void TestCulling::listFindsEveryPairInRange() {
    QFETCH(bool, autoPairs);
    QFETCH(double, thetaMinDeg);
    QFETCH(double, thetaMaxDeg);
    QFETCH(double, cellRadiusDeg);
    QFETCH(bool, sorted);
    QFETCH(int, seed);
    const TestCells cellsA = randomCells(70, 12, cellRadiusDeg, std::uint64_t(seed), sorted);
    const TestCells cellsB = randomCells(50, 12, cellRadiusDeg, 1000 + std::uint64_t(seed), sorted);
    const TestCells& second = autoPairs ? cellsA : cellsB;

    CellPairQuery query;
    query.chord2Min = tpacf::chord2OfAngle(thetaMinDeg * kDegree);
    query.chord2Max = tpacf::chord2OfAngle(thetaMaxDeg * kDegree);
    query.relativeMargin = 1e-12;
    query.autoPairs = autoPairs;
    const std::vector<CellPairRun> runs = tpacf::listCellPairs(cellsA.bounds, cellsB.bounds, query);

    // Runs: non-empty, within range, sorted by (a, bBegin), disjoint, merged, b >= a for auto.
    std::vector<std::vector<int>> listed(cellsA.bounds.size(),
                                         std::vector<int>(second.bounds.size(), -1));
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const CellPairRun& run = runs[r];
        QVERIFY(run.a < cellsA.bounds.size());
        QVERIFY(run.bBegin < run.bEnd);
        QVERIFY(run.bEnd <= second.bounds.size());
        if (autoPairs)
            QVERIFY(run.bBegin >= run.a);
        if (r > 0) {
            const CellPairRun& previous = runs[r - 1];
            QVERIFY(previous.a < run.a || (previous.a == run.a && previous.bEnd <= run.bBegin));
            QVERIFY2(
                !(previous.a == run.a && previous.bEnd == run.bBegin && previous.kind == run.kind),
                "adjacent runs of one kind are not merged");
        }
        for (std::uint32_t b = run.bBegin; b < run.bEnd; ++b)
            listed[run.a][b] = int(run.kind);
    }
    QCOMPARE(tpacf::cellPairCount(runs),
             std::uint64_t(std::accumulate(listed.begin(), listed.end(), std::size_t{0},
                                           [](std::size_t sum, const std::vector<int>& row) {
                                               return sum + std::size_t(std::count_if(
                                                                row.begin(), row.end(),
                                                                [](int k) { return k >= 0; }));
                                           })));

    // Brute force over every cell pair.
    std::size_t inRange = 0;
    for (std::size_t a = 0; a < cellsA.bounds.size(); ++a)
        for (std::size_t b = autoPairs ? a : 0; b < second.bounds.size(); ++b) {
            const auto [any, all] = pairsInRange(cellsA, a, second, b, autoPairs && a == b,
                                                 query.chord2Min, query.chord2Max);
            if (any) {
                ++inRange;
                QVERIFY2(listed[a][b] >= 0, qPrintable(QStringLiteral("cell pair (%1, %2) holds "
                                                                      "a pair in range but is "
                                                                      "not listed")
                                                           .arg(a)
                                                           .arg(b)));
            }
            if (listed[a][b] == int(CellPairClass::InsideRange))
                QVERIFY2(all, qPrintable(QStringLiteral("cell pair (%1, %2) is listed inside the "
                                                        "range but holds a pair outside it")
                                             .arg(a)
                                             .arg(b)));
        }
    if (autoPairs)
        for (std::size_t a = 0; a < cellsA.bounds.size(); ++a)
            for (std::size_t b = 0; b < a; ++b)
                QCOMPARE(listed[a][b], -1);
    QVERIFY(inRange > 0); // the cases are built so that something is in range
}

namespace {

// The listing query of bins from thetaMinDeg to thetaMaxDeg (the default margin).
CellPairQuery queryOfDegrees(double thetaMinDeg, double thetaMaxDeg, bool autoPairs) {
    CellPairQuery query;
    query.chord2Min = tpacf::chord2OfAngle(thetaMinDeg * kDegree);
    query.chord2Max = tpacf::chord2OfAngle(thetaMaxDeg * kDegree);
    query.autoPairs = autoPairs;
    return query;
}

// The current row's listing case (autoPairs, thetaMinDeg, thetaMaxDeg): two sets of random cells
// sorted as the planner's coarse cells are, from seeds `seed` and seed + 1, and its query.
struct ListingCase {
    bool autoPairs;
    TestCells cellsA, cellsB;
    CellPairQuery query;
};
ListingCase fetchListingCase(std::size_t sizeA, std::size_t sizeB, std::uint64_t seed) {
    QFETCH(bool, autoPairs);
    QFETCH(double, thetaMinDeg);
    QFETCH(double, thetaMaxDeg);
    return {autoPairs, randomCells(sizeA, 1, 0.5, seed, true),
            randomCells(sizeB, 1, 0.5, seed + 1, true),
            queryOfDegrees(thetaMinDeg, thetaMaxDeg, autoPairs)};
}

} // namespace

void TestCulling::listIsTheSameOnAnyThreads_data() {
    QTest::addColumn<bool>("autoPairs");
    QTest::addColumn<double>("thetaMinDeg");
    QTest::addColumn<double>("thetaMaxDeg");
    for (bool autoPairs : {true, false})
        for (const auto& [min, max] : {std::pair{0.0, 2.0}, {0.01, 10.0}, {5.0, 180.0}})
            QTest::addRow("%s %g-%g deg", autoPairs ? "auto" : "cross", min, max)
                << autoPairs << min << max;
}

void TestCulling::listIsTheSameOnAnyThreads() {
    // Enough cells that the descent is cut into node pairs for the workers (its cut lies a few
    // levels below the root: 16 pairs per worker).
    const auto [autoPairs, cellsA, cellsB, query] = fetchListingCase(3000, 2000, 7);
    const std::vector<CellPairRun> one = tpacf::listCellPairs(cellsA.bounds, cellsB.bounds, query);
    QVERIFY(!one.empty());
    for (std::size_t threads : {2, 3, 16}) {
        const std::vector<CellPairRun> many =
            tpacf::listCellPairs(cellsA.bounds, cellsB.bounds, query, threads);
        QCOMPARE(many.size(), one.size());
        for (std::size_t r = 0; r < one.size(); ++r)
            QVERIFY2(many[r].a == one[r].a && many[r].bBegin == one[r].bBegin &&
                         many[r].bEnd == one[r].bEnd && many[r].kind == one[r].kind,
                     qPrintable(QStringLiteral("%1 threads: run %2 differs").arg(threads).arg(r)));
    }
}

void TestCulling::sampledListKeepsTheSampledRows_data() {
    listIsTheSameOnAnyThreads_data();
}

void TestCulling::sampledListKeepsTheSampledRows() {
    // The list of every stride-th a (what a priced plan reads) against the whole list's rows of
    // those a, cell pair by cell pair (no cell is empty here, so they must agree exactly).
    const auto [autoPairs, cellsA, cellsB, query] = fetchListingCase(1500, 1000, 17);
    const auto cellPairs = [](const std::vector<CellPairRun>& runs, std::uint32_t stride) {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
        for (const CellPairRun& run : runs)
            if (run.a % stride == 0)
                for (std::uint32_t b = run.bBegin; b < run.bEnd; ++b)
                    pairs.emplace_back(run.a, b);
        return pairs;
    };
    const std::vector<CellPairRun> whole =
        tpacf::listCellPairs(cellsA.bounds, cellsB.bounds, query);
    for (std::uint32_t stride : {1u, 2u, 16u}) {
        const auto want = cellPairs(whole, stride);
        QVERIFY(!want.empty());
        for (std::size_t threads : {1, 4}) {
            const std::vector<CellPairRun> sampled = tpacf::sky::sampledCellPairs(
                cellsA.bounds, autoPairs ? cellsA.bounds : cellsB.bounds, query, stride, threads);
            QVERIFY2(cellPairs(sampled, 1) == want,
                     qPrintable(QStringLiteral("stride %1, %2 threads").arg(stride).arg(threads)));
        }
    }
}

void TestCulling::listEmptyInputs() {
    const TestCells cells = randomCells(10, 5, 1.0, 3, true);
    CellPairQuery query;
    query.chord2Max = 4;
    QVERIFY(tpacf::listCellPairs({}, {}, query).empty());
    QVERIFY(tpacf::listCellPairs(cells.bounds, {}, query).empty());
    QVERIFY(tpacf::listCellPairs({}, cells.bounds, query).empty());
    query.autoPairs = true;
    QVERIFY(tpacf::listCellPairs({}, {}, query).empty());
    QCOMPARE(tpacf::cellPairCount({}), std::uint64_t{0});
    // One cell, auto, full range: just its diagonal.
    const std::vector<CellPairRun> one =
        tpacf::listCellPairs(std::span(cells.bounds).first(1), {}, query);
    QCOMPARE(one.size(), std::size_t{1});
    QCOMPARE(one[0].a, 0u);
    QCOMPARE(one[0].bBegin, 0u);
    QCOMPARE(one[0].bEnd, 1u);
}

void TestCulling::listSkipsEmptyCells() {
    // Cells with lo > hi (no points) are never listed on their own.
    TestCells cells = randomCells(40, 5, 1.0, 4, true);
    const CellBounds empty{{1, 1, 1}, {-1, -1, -1}};
    for (std::size_t c = 0; c < cells.bounds.size(); c += 3)
        cells.bounds[c] = empty;
    CellPairQuery query;
    query.chord2Min = tpacf::chord2OfAngle(0.01 * kDegree);
    query.chord2Max = tpacf::chord2OfAngle(2 * kDegree);
    query.autoPairs = true;
    for (const CellPairRun& run : tpacf::listCellPairs(cells.bounds, {}, query)) {
        if (run.bEnd - run.bBegin == 1 && run.kind == CellPairClass::Partial) {
            QVERIFY(run.a % 3 != 0);
            QVERIFY(run.bBegin % 3 != 0);
        }
    }
}

void TestCulling::planCountsEveryPairOnce_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<bool>("cross");
    QTest::addColumn<int>("regions");
    for (const char* footprint : {"full-sky", "clustered", "poles", "duplicates"})
        for (const char* bins : {"small", "wide", "linear0", "dense"})
            for (bool cross : {false, true})
                QTest::addRow("%s %s %s", footprint, bins, cross ? "cross" : "auto")
                    << QString::fromLatin1(footprint) << QString::fromLatin1(bins) << cross << 0;
    QTest::addRow("clustered wide auto regions") << "clustered"
                                                 << "wide" << false << 5;
    QTest::addRow("full-sky log30 cross regions") << "full-sky"
                                                  << "log30" << true << 3;
}

void TestCulling::planCountsEveryPairOnce() {
    // The plan itself, for every population from single points to one cell: the whole cell
    // pairs plus a naive count of the runs' rectangles equal a naive count of all pairs.
    QFETCH(QString, footprint);
    QFETCH(QString, bins);
    QFETCH(bool, cross);
    QFETCH(int, regions);
    const Binning binning(binsNamed(bins));
    const auto edges = binning.chord2Edges();
    const auto withRegions = [&](const Catalog& c) {
        if (regions == 0)
            return c;
        std::vector<std::int32_t> region(c.size());
        for (std::size_t i = 0; i < c.size(); ++i)
            region[i] = std::int32_t(std::size_t(c.ra()[i] * 7.3 + i % 2) % std::size_t(regions));
        return Catalog::fromRadians(c.name(), {c.ra().begin(), c.ra().end()},
                                    {c.dec().begin(), c.dec().end()}, {}, region);
    };
    const Catalog a = withRegions(catalogNamed(footprint, 900, 11));
    const Catalog b = withRegions(catalogNamed(footprint, 500, 12));
    const auto none = [] {};
    std::vector<tpacf::sky::SortedCatalog> sorted;
    sorted.push_back(tpacf::sky::sortCatalog(a, std::size_t(regions), none));
    if (cross)
        sorted.push_back(tpacf::sky::sortCatalog(b, std::size_t(regions), none));
    const tpacf::sky::CellTask task{0, cross ? 1u : 0u, !cross};

    const auto binOf = [&](double c2) -> int {
        const auto above = std::upper_bound(edges.begin(), edges.end(), c2);
        if (above == edges.begin() || above == edges.end())
            return -1;
        return int(above - edges.begin()) - 1;
    };
    PairCounts want(binning.count(), 0);
    const tpacf::sky::SortedCatalog& sa = sorted[0];
    const tpacf::sky::SortedCatalog& sb = sorted[cross ? 1 : 0];
    for (std::size_t i = 0; i < sa.size(); ++i)
        for (std::size_t j = cross ? 0 : i + 1; j < sb.size(); ++j) {
            const int bin =
                binOf(contractChord2(sa.x[i], sa.y[i], sa.z[i], sb.x[j], sb.y[j], sb.z[j]));
            if (bin >= 0)
                ++want[std::size_t(bin)];
        }

    for (std::size_t population : {1, 2, 8, 64, 2048}) {
        const tpacf::sky::CellPlan plan = tpacf::sky::planForPopulation(
            sorted, std::span(&task, 1), edges, std::size_t(regions), population, none);
        const auto& cellsA = plan.cells[0];
        const auto& cellsB = plan.cells[cross ? 1 : 0];
        const tpacf::sky::TaskCellPlan& out = plan.tasks[0];
        // Cells never straddle a region.
        for (std::size_t c = 0; c < cellsA.cellCount(); ++c)
            for (std::size_t i = cellsA.start[c]; i < cellsA.start[c + 1]; ++i)
                QVERIFY(i >= sa.segmentStart[cellsA.segment[c]] &&
                        i < sa.segmentStart[cellsA.segment[c] + 1]);
        PairCounts got(binning.count(), 0);
        for (std::size_t k = 0; k < got.size(); ++k)
            for (std::size_t r = 0; r < std::size_t(std::max(1, regions)); ++r)
                got[k] += out.wholeByFirst[r * got.size() + k];
        std::uint64_t runPairs = 0;
        for (std::size_t r = 0; r < out.runs.size(); ++r) {
            const tpacf::sky::CountRun& run = out.runs[r];
            if (r > 0)
                QVERIFY(out.runs[r - 1].a < run.a ||
                        (out.runs[r - 1].a == run.a && out.runs[r - 1].bEnd <= run.bBegin));
            for (std::uint32_t cb = run.bBegin; cb < run.bEnd; ++cb)
                QCOMPARE(cellsB.segment[cb], cellsB.segment[run.bBegin]);
            for (std::size_t i = cellsA.start[run.a]; i < cellsA.start[run.a + 1]; ++i)
                for (std::size_t j = cellsB.start[run.bBegin]; j < cellsB.start[run.bEnd]; ++j) {
                    if (!cross && j <= i)
                        continue;
                    ++runPairs;
                    const int bin =
                        binOf(contractChord2(sa.x[i], sa.y[i], sa.z[i], sb.x[j], sb.y[j], sb.z[j]));
                    if (bin >= 0)
                        ++got[std::size_t(bin)];
                }
        }
        QCOMPARE(runPairs, out.countedPairs);
        QVERIFY2(got == want, qPrintable(QStringLiteral("population %1: ").arg(population) +
                                         QString::fromLatin1(describe(got, want))));
    }
}

void TestCulling::culledMatchesBruteForce_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<int>("sizeA");
    QTest::addColumn<int>("sizeB"); // -1: auto
    QTest::addColumn<QString>("kernel");
    for (const char* footprint : kFootprints)
        for (const char* bins : kBinSets) {
            QTest::addRow("%s %s auto 3000", footprint, bins)
                << QString::fromLatin1(footprint) << QString::fromLatin1(bins) << 3000 << -1
                << "best";
            QTest::addRow("%s %s cross 2500x1700", footprint, bins)
                << QString::fromLatin1(footprint) << QString::fromLatin1(bins) << 2500 << 1700
                << "best";
        }
    for (const char* footprint : kFootprints)
        for (const char* bins : {"small", "log30", "linear179"})
            QTest::addRow("%s %s auto 20000", footprint, bins)
                << QString::fromLatin1(footprint) << QString::fromLatin1(bins) << 20000 << -1
                << "best";
    for (const char* bins : {"log30", "linear0"})
        QTest::addRow("clustered %s auto 3000 portable", bins)
            << "clustered" << QString::fromLatin1(bins) << 3000 << -1 << "portable";
}

void TestCulling::culledMatchesBruteForce() {
    QFETCH(QString, footprint);
    QFETCH(QString, bins);
    QFETCH(int, sizeA);
    QFETCH(int, sizeB);
    QFETCH(QString, kernel);
    const Catalog a = catalogNamed(footprint, std::size_t(sizeA), 100 + std::uint64_t(sizeA));
    const Catalog b = catalogNamed(footprint, std::size_t(std::max(0, sizeB)), 7);
    const CountTask task{&a, sizeB < 0 ? nullptr : &b};
    const Binning binning(binsNamed(bins));
    const CpuKernel cpuKernel =
        kernel == QLatin1String("portable") ? CpuKernel::Portable : CpuKernel::Best;
    bool culled = false, bruteCulled = true;
    const PairCounts got =
        countWith(CullingMode::On, std::span(&task, 1), binning, cpuKernel, &culled).front();
    const PairCounts want =
        countWith(CullingMode::Off, std::span(&task, 1), binning, cpuKernel, &bruteCulled).front();
    QVERIFY(culled);
    QVERIFY(!bruteCulled);
    COMPARE_COUNTS(got, want);
}

void TestCulling::culledTinyCatalogs_data() {
    QTest::addColumn<int>("sizeA");
    QTest::addColumn<int>("sizeB");
    for (int a : {0, 1, 2, 7})
        for (int b : {-1, 0, 1, 5})
            QTest::addRow("%d x %d", a, b) << a << b;
}

void TestCulling::culledTinyCatalogs() {
    QFETCH(int, sizeA);
    QFETCH(int, sizeB);
    const Catalog a = catalogNamed(QStringLiteral("poles"), std::size_t(sizeA), 5);
    const Catalog b = catalogNamed(QStringLiteral("poles"), std::size_t(std::max(0, sizeB)), 6);
    const CountTask task{&a, sizeB < 0 ? nullptr : &b};
    for (const char* bins : {"tiny", "wide", "linear0"}) {
        const Binning binning(binsNamed(QString::fromLatin1(bins)));
        COMPARE_COUNTS(countWith(CullingMode::On, std::span(&task, 1), binning).front(),
                       countWith(CullingMode::Off, std::span(&task, 1), binning).front());
    }
}

void TestCulling::culledBatchSharesCatalogs() {
    // DD + DR_i + RR_i with catalogs of different sizes and footprints shared between tasks,
    // and the same catalog on both sides of a cross task.
    const Catalog d = catalogNamed(QStringLiteral("clustered"), 6000, 1);
    const Catalog r1 = catalogNamed(QStringLiteral("full-sky"), 9000, 2);
    const Catalog r2 = catalogNamed(QStringLiteral("cap"), 300, 3);
    const Catalog empty;
    const std::vector<CountTask> tasks = {{&d, nullptr},  {&d, &r1}, {&r1, nullptr}, {&d, &r2},
                                          {&r2, nullptr}, {&d, &d},  {&empty, &d},   {&r2, &r1}};
    const Binning binning(binsNamed(QStringLiteral("log30")));
    const std::vector<PairCounts> got = countWith(CullingMode::On, tasks, binning);
    const std::vector<PairCounts> want = countWith(CullingMode::Off, tasks, binning);
    QCOMPARE(got.size(), tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
        QVERIFY2(got[t] == want[t],
                 ("task " + QByteArray::number(qulonglong(t)) + ": " + describe(got[t], want[t]))
                     .constData());
}

void TestCulling::culledLargeCatalog_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<bool>("cross");
    QTest::newRow("full-sky 200000 auto, 0.05 deg") << "full-sky" << false;
    QTest::newRow("clustered 200000 auto, 0.05 deg") << "clustered" << false;
    QTest::newRow("full-sky 200000 x 1500, 0.01'-10 deg") << "full-sky" << true;
}

void TestCulling::culledLargeCatalog() {
    QFETCH(QString, footprint);
    QFETCH(bool, cross);
    const Catalog big = catalogNamed(footprint, 200000, 77);
    if (cross) {
        // Brute force stays cheap: 3e8 pairs, or 8e7 under the sanitizers (where every load is
        // checked; the large catalog's culled plan is the same, only the other side shrinks).
#ifdef __SANITIZE_ADDRESS__
        const std::size_t smallSize = 400;
#else
        const std::size_t smallSize = 1500;
#endif
        const Catalog small = catalogNamed(footprint, smallSize, 78);
        const Binning binning(binsNamed(QStringLiteral("log30")));
        const std::vector<CountTask> tasks = {{&big, &small}, {&small, &big}};
        const std::vector<PairCounts> got = countWith(CullingMode::On, tasks, binning);
        const std::vector<PairCounts> want = countWith(CullingMode::Off, tasks, binning);
        COMPARE_COUNTS(got[0], want[0]);
        COMPARE_COUNTS(got[1], want[1]);
        return;
    }
    // Auto at small θ_max against an independent reference: a sweep in Dec (pairs within
    // θ_max differ by at most θ_max in Dec; a generous window keeps edge pairs in).
    const Binning binning(BinSpec::logCount(0.001, 0.05, AngleUnit::Degree, 12));
    const auto edges = binning.chord2Edges();
    const double window = 0.05 * kDegree * 1.01 + 1e-9;
    std::vector<std::size_t> order(big.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto dec = big.dec();
    std::sort(order.begin(), order.end(),
              [&](std::size_t l, std::size_t r) { return dec[l] < dec[r]; });
    PairCounts want(binning.count(), 0);
    for (std::size_t p = 0; p < order.size(); ++p) {
        const std::size_t i = order[p];
        for (std::size_t q = p + 1; q < order.size() && dec[order[q]] - dec[i] <= window; ++q) {
            const std::size_t j = order[q];
            // Either order gives the same c²: rounding to nearest is symmetric in the sign.
            const double c2 = contractChord2(big.x()[i], big.y()[i], big.z()[i], big.x()[j],
                                             big.y()[j], big.z()[j]);
            const auto above = std::upper_bound(edges.begin(), edges.end(), c2);
            if (above != edges.begin() && above != edges.end())
                ++want[std::size_t(above - edges.begin()) - 1];
        }
    }
    QVERIFY(std::accumulate(want.begin(), want.end(), std::uint64_t{0}) > 1000);
    const CountTask task{&big, nullptr};
    COMPARE_COUNTS(countWith(CullingMode::On, std::span(&task, 1), binning).front(), want);
}

void TestCulling::culledByRegionMatches_data() {
    QTest::addColumn<QString>("footprint");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<int>("regions");
    QTest::addColumn<bool>("scattered"); // regions assigned at random, not by position
    for (const char* footprint : {"full-sky", "clustered", "ra0-box"})
        for (const char* bins : {"small", "wide", "linear0"})
            QTest::addRow("%s %s 9 regions", footprint, bins)
                << QString::fromLatin1(footprint) << QString::fromLatin1(bins) << 9 << false;
    QTest::addRow("full-sky log30 scattered 4 regions") << "full-sky"
                                                        << "log30" << 4 << true;
    QTest::addRow("clustered wide 1 region") << "clustered"
                                             << "wide" << 1 << false;
}

void TestCulling::culledByRegionMatches() {
    QFETCH(QString, footprint);
    QFETCH(QString, bins);
    QFETCH(int, regions);
    QFETCH(bool, scattered);
    std::mt19937_64 rng(9);
    const auto withRegions = [&](const Catalog& c) {
        std::vector<std::int32_t> region(c.size());
        for (std::size_t i = 0; i < c.size(); ++i)
            region[i] = scattered
                            ? std::int32_t(rng() % std::uint64_t(regions))
                            : std::int32_t(std::size_t(c.ra()[i] * 40 + c.dec()[i] * 13 + 100) %
                                           std::size_t(regions));
        return Catalog::fromRadians(c.name(), {c.ra().begin(), c.ra().end()},
                                    {c.dec().begin(), c.dec().end()}, {}, region);
    };
    const Catalog d = withRegions(catalogNamed(footprint, 4000, 21));
    const Catalog r = withRegions(catalogNamed(footprint, 3000, 22));
    const std::vector<CountTask> tasks = {{&d, nullptr}, {&d, &r}, {&r, nullptr}};
    const Binning binning(binsNamed(bins));
    CpuPairCounter culled(2), brute(2);
    culled.setCulling(CullingMode::On);
    brute.setCulling(CullingMode::Off);
    const std::vector<RegionPairCounts> got =
        culled.countBatchByRegion(tasks, binning, std::size_t(regions));
    QVERIFY(culled.lastBatchCulled());
    const std::vector<RegionPairCounts> want =
        brute.countBatchByRegion(tasks, binning, std::size_t(regions));
    QVERIFY(!brute.lastBatchCulled());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        COMPARE_COUNTS(got[t].total, want[t].total);
        QVERIFY2(got[t].touching == want[t].touching, "touching differs");
        QVERIFY2(got[t].within == want[t].within, "within differs");
    }
    // And the plain count agrees with the region totals.
    const std::vector<PairCounts> plain = countWith(CullingMode::On, tasks, binning);
    for (std::size_t t = 0; t < tasks.size(); ++t)
        COMPARE_COUNTS(plain[t], want[t].total);
}

void TestCulling::autoModeAndReport() {
    const Catalog small = catalogNamed(QStringLiteral("full-sky"), 1000, 1); // 5e5 pairs
    const Catalog large = catalogNamed(QStringLiteral("full-sky"), 2000, 2); // 2e6 pairs
    const Binning binning(binsNamed(QStringLiteral("small")));
    CpuPairCounter counter(2);
    QVERIFY(counter.culling() == CullingMode::Auto);
    counter.countAuto(small, binning);
    QVERIFY(!counter.lastBatchCulled());
    const PairCounts culled = counter.countAuto(large, binning);
    QVERIFY(counter.lastBatchCulled());
    counter.setCulling(CullingMode::Off);
    COMPARE_COUNTS(counter.countAuto(large, binning), culled);
    QVERIFY(!counter.lastBatchCulled());
    counter.setCulling(CullingMode::On);
    counter.countAuto(small, binning);
    QVERIFY(counter.lastBatchCulled());
    // By region too.
    std::vector<std::int32_t> region(large.size(), 0);
    const Catalog withRegion =
        Catalog::fromRadians("r", {large.ra().begin(), large.ra().end()},
                             {large.dec().begin(), large.dec().end()}, {}, region);
    counter.setCulling(CullingMode::Auto);
    const CountTask task{&withRegion, nullptr};
    COMPARE_COUNTS(counter.countBatchByRegion(std::span(&task, 1), binning, 1).front().total,
                   culled);
    QVERIFY(counter.lastBatchCulled());
}

void TestCulling::culledProgressReachesTotal() {
    const Catalog d = catalogNamed(QStringLiteral("clustered"), 30000, 31);
    const Catalog r = catalogNamed(QStringLiteral("full-sky"), 20000, 32);
    const std::vector<CountTask> tasks = {{&d, nullptr}, {&d, &r}, {&r, nullptr}};
    const Binning binning(binsNamed(QStringLiteral("log30")));
    std::uint64_t total = 0;
    for (const CountTask& t : tasks)
        total += t.pairTotal();
    std::vector<CountProgress> reports;
    std::vector<std::chrono::steady_clock::time_point> times;
    CountControl control;
    control.onProgress = [&](const CountProgress& p) {
        reports.push_back(p);
        times.push_back(std::chrono::steady_clock::now());
    };
    CpuPairCounter counter(2);
    counter.setCulling(CullingMode::On);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<TaskCounts> counts = counter.countBatch(tasks, binning, control);
    QVERIFY(!reports.empty());
    std::uint64_t previous = 0;
    for (const CountProgress& p : reports) {
        QCOMPARE(p.pairsTotal, total);
        QVERIFY(p.pairsDone >= previous);
        QVERIFY(p.pairsDone <= total);
        previous = p.pairsDone;
        QCOMPARE(p.pairsDonePerTask.size(), tasks.size());
        for (std::size_t t = 0; t < tasks.size() && !p.partialCounts.empty(); ++t)
            QVERIFY(std::accumulate(p.partialCounts[t].begin(), p.partialCounts[t].end(),
                                    std::uint64_t{0}) <= p.pairsDonePerTask[t]);
    }
    QCOMPARE(reports.back().pairsDone, total);
    for (std::size_t t = 0; t < tasks.size(); ++t)
        QCOMPARE(reports.back().pairsDonePerTask[t], tasks[t].pairTotal());
    QCOMPARE(reports.back().partialCounts.size(), counts.size());
    for (std::size_t t = 0; t < counts.size(); ++t)
        QVERIFY(reports.back().partialCounts[t] == counts[t].raw);
    for (std::size_t i = 1; i < times.size(); ++i)
        QVERIFY(times[i] - times[i - 1] < std::chrono::milliseconds(1000));
    QVERIFY(times.front() - start < std::chrono::milliseconds(1000));
}

void TestCulling::culledCancel() {
    // 4.5e10 pairs over the whole sphere with bins to 179°: far longer than the test waits,
    // in the preparation or in the counting.
    const Catalog catalog = catalogNamed(QStringLiteral("full-sky"), 300000, 41);
    const Binning binning(binsNamed(QStringLiteral("wide")));
    for (int delayMs : {5, 400}) {
        CpuPairCounter counter(2);
        counter.setCulling(CullingMode::On);
        const double latency = tpacf::test::secondsToCancel(
            std::chrono::milliseconds(delayMs),
            [&](const CountControl& control) { counter.countAuto(catalog, binning, control); });
        QVERIFY2(latency >= 0, "the count did not end in tpacf::Cancelled");
        qInfo("cancel after %d ms took %.3f s", delayMs, latency);
        QVERIFY2(latency < 0.3, qPrintable(QStringLiteral("cancel took %1 s").arg(latency)));
    }
}

TPACF_TEST_MAIN(TestCulling)
#include "test_culling.moc"
