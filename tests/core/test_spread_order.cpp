// SPDX-License-Identifier: GPL-3.0-or-later
// The order in which the CPU backend counts a task's units (tpacf/spread_order.h, its bands in
// counting/tile_schedule.h and cpu_culled_batch.cpp), so that a live partial count is an even
// sample of the task's pairs at every separation:
// - SpreadOrder, unit by unit or in blocks, is a permutation; in blocks, the filled blocks go in
//   golden-ratio order and each keeps its units in list order;
// - brute-force tiles: the bands cover every tile pair once (auto, cross, cross listed by
//   columns), and in a brute-force auto count of 1000 block rows every prefix's share of the
//   diagonal tiles' pairs (where the close pairs of a catalog in sky order lie) matches its
//   share of all pairs within 3 % (1.0 %; bands of unfolded rows: 4.7 %);
// - culled: an auto task's runs go line by line (rows a and R - 1 - a), no work item spans two
//   bands of lines, and the live counts of a full-range DD and D×R of 32768 and 16384 points
//   match the final counts, bin by bin, within 5 % once a quarter of a task's pairs is behind
//   them (1.4-3.2 %; with items cut by work alone in list order, tpacf_live_evenness on the same
//   catalogs: 9.6-10.7 %).
#include "live_departure.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/culling.h"
#include "tpacf/spread_order.h"
#include "tpacf_test_main.h"

#include "counting/cpu_culled_batch.h"
#include "counting/tile_schedule.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

using namespace tpacf;
using tpacf::test::skyByDeclination;

namespace {


// A uniform full sky in declination order, as many catalogs come: a brute-force tile, or a
// sorted cell, then holds a band of the sky.
bool isPermutation(const SpreadOrder& order) {
    std::vector<bool> seen(order.count(), false);
    for (std::uint64_t rank = 0; rank < order.count(); ++rank) {
        const std::uint64_t unit = order(rank);
        if (unit >= order.count() || seen[unit])
            return false;
        seen[unit] = true;
    }
    return true;
}

// A plan of `rows` x `columns` tiles, sizes only (no tile is counted).
cpu::TaskPlan planOf(std::uint64_t rows, std::uint64_t columns, bool autoCount) {
    const cpu::Points first(nullptr, nullptr, nullptr, rows * cpu::kTileSide);
    const cpu::Points second(nullptr, nullptr, nullptr, columns * cpu::kTileSide);
    return cpu::TaskPlan(first, autoCount ? first : second, autoCount);
}

} // namespace

class TestSpreadOrder : public QObject {
    Q_OBJECT

private slots:
    void unitByUnitIsAPermutation_data() {
        QTest::addColumn<quint64>("count");
        for (const quint64 count : {0ull, 1ull, 2ull, 3ull, 64ull, 1000ull, 65537ull})
            QTest::newRow(std::to_string(count).c_str()) << count;
    }
    void unitByUnitIsAPermutation() {
        QFETCH(quint64, count);
        const SpreadOrder order(count);
        QCOMPARE(order.count(), count);
        QCOMPARE(order.filledBlocks(), count);
        QVERIFY(isPermutation(order));
    }

    // Blocks [0,3) [3,3) [3,10) [10,11) [11,20): the empty one is left out, each other goes whole
    // in the golden-ratio order of the five, its units in list order.
    void blocksKeepTheirUnitsInListOrder() {
        const std::vector<std::uint64_t> starts{0, 3, 3, 10, 11, 20};
        const SpreadOrder order(starts);
        QCOMPARE(order.count(), std::uint64_t{20});
        QCOMPARE(order.filledBlocks(), std::uint64_t{4});
        QVERIFY(isPermutation(order));
        const SpreadOrder blocks(5); // the order of the blocks themselves
        std::vector<std::uint64_t> expected;
        for (std::uint64_t rank = 0; rank < 5; ++rank) {
            const std::uint64_t b = blocks(rank);
            for (std::uint64_t unit = starts[b]; unit < starts[b + 1]; ++unit)
                expected.push_back(unit);
        }
        std::vector<std::uint64_t> got;
        for (std::uint64_t rank = 0; rank < order.count(); ++rank)
            got.push_back(order(rank));
        QCOMPARE(got, expected);
        QVERIFY(!evenSamples({order}));
        QVERIFY(evenSamples({SpreadOrder(std::vector<std::uint64_t>{0}), SpreadOrder(64)}));
    }

    void bruteForceBandsCoverEveryTileOnce_data() {
        QTest::addColumn<quint64>("rows");
        QTest::addColumn<quint64>("columns");
        QTest::addColumn<bool>("autoCount");
        QTest::addColumn<quint64>("lines");
        QTest::newRow("auto, 7 rows") << 7ull << 7ull << true << 4ull;
        QTest::newRow("auto, 8 rows") << 8ull << 8ull << true << 4ull;
        QTest::newRow("auto, 2500 rows (1024 bands)") << 2500ull << 2500ull << true << 1250ull;
        QTest::newRow("cross, 40 x 9") << 40ull << 9ull << false << 40ull;
        QTest::newRow("cross, 100 x 300") << 100ull << 300ull << false << 100ull;
        QTest::newRow("cross by columns, 9 x 1100") << 9ull << 1100ull << false << 1100ull;
    }
    void bruteForceBandsCoverEveryTileOnce() {
        QFETCH(quint64, rows);
        QFETCH(quint64, columns);
        QFETCH(bool, autoCount);
        QFETCH(quint64, lines);
        const cpu::TaskPlan plan = planOf(rows, columns, autoCount);
        QCOMPARE(plan.lines, lines);
        QCOMPARE(plan.byColumns, !autoCount && rows < kEvenSampleUnits && rows < columns);
        const std::vector<std::uint64_t> starts = plan.bandStarts();
        QCOMPARE(starts.size() - 1, std::min<std::uint64_t>(lines, kSpreadBands));
        QCOMPARE(starts.back(), plan.tileCount);
        const SpreadOrder order(starts);
        QVERIFY(isPermutation(order));
        std::set<std::pair<std::size_t, std::size_t>> tiles;
        for (std::uint64_t index = 0; index < plan.tileCount; ++index) {
            const cpu::TaskPlan::Tile tile = plan.tile(index);
            QVERIFY(tile.i1 > tile.i0 && tile.j1 > tile.j0);
            QCOMPARE(tile.diagonal, autoCount && tile.i0 == tile.j0);
            QVERIFY(!autoCount || tile.j0 >= tile.i0);
            tiles.emplace(tile.i0, tile.j0);
        }
        QCOMPARE(tiles.size(), autoCount ? rows * (rows + 1) / 2 : rows * columns);
        // Every band holds whole lines: an auto task's start with a long row's diagonal tile and
        // end with a short row's last tile; a cross task's span the whole other side.
        for (std::size_t band = 0; band + 1 < starts.size(); ++band) {
            const cpu::TaskPlan::Tile first = plan.tile(starts[band]);
            const cpu::TaskPlan::Tile last = plan.tile(starts[band + 1] - 1);
            if (autoCount)
                QVERIFY(first.diagonal && last.j1 == plan.b.size);
            else if (plan.byColumns)
                QVERIFY(first.i0 == 0 && last.i1 == plan.a.size);
            else
                QVERIFY(first.j0 == 0 && last.j1 == plan.b.size);
        }
    }

    void bruteForcePrefixesAreEven() {
        const cpu::TaskPlan plan = planOf(1000, 1000, true);
        const SpreadOrder order(plan.bandStarts());
        std::uint64_t diagonalTotal = 0;
        for (std::uint64_t index = 0; index < plan.tileCount; ++index)
            if (plan.tile(index).diagonal)
                diagonalTotal += cpu::TaskPlan::pairsOf(plan.tile(index));
        const auto total = static_cast<double>(plan.pairTotal());
        std::uint64_t pairs = 0, diagonal = 0;
        double worst = 0;
        for (std::uint64_t rank = 0; rank < order.count(); ++rank) {
            const cpu::TaskPlan::Tile tile = plan.tile(order(rank));
            pairs += cpu::TaskPlan::pairsOf(tile);
            diagonal += tile.diagonal ? cpu::TaskPlan::pairsOf(tile) : 0;
            const double share = static_cast<double>(pairs) / total;
            if (share >= 0.1 && share <= 0.95)
                worst = std::max(worst, std::abs(static_cast<double>(diagonal) /
                                                     static_cast<double>(diagonalTotal) / share -
                                                 1));
        }
        qInfo("brute-force auto of 1000 rows: the diagonal tiles' share departs from the pairs' "
              "share by %.2f %% at most",
              100 * worst);
        QVERIFY(worst < 0.03);
    }

    // An auto task's runs go line by line (rows a and R - 1 - a), and no work item spans two
    // bands of lines.
    void culledItemsNeverSpanTwoBands() {
        const Catalog sky = skyByDeclination(32768, 3);
        const std::vector<CountTask> tasks{{&sky, nullptr}};
        const Binning binning(BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30));
        const cpu::CulledBatch batch = cpu::prepareCulledBatch(
            tasks, binning, 0, 2, [] {}, WorkShare{});
        const std::vector<sky::CountRun>& runs = batch.plan.tasks[0].runs;
        const std::uint64_t rows = batch.plan.cells[batch.cellTasks[0].first].cellCount();
        const std::uint64_t lines = (rows + 1) / 2;
        const std::uint64_t bands = std::min<std::uint64_t>(lines, kSpreadBands);
        const auto lineOf = [&](std::uint32_t a) {
            return std::min<std::uint64_t>(a, rows - 1 - a);
        };
        for (std::size_t r = 1; r < runs.size(); ++r)
            QVERIFY(lineOf(runs[r - 1].a) <= lineOf(runs[r].a));
        const std::vector<std::size_t>& items = batch.itemStart[0];
        const std::vector<std::uint64_t>& bandStarts = batch.itemBands[0];
        QVERIFY(items.size() > 1);
        QCOMPARE(bandStarts.front(), std::uint64_t{0});
        QCOMPARE(bandStarts.back(), std::uint64_t{items.size() - 1});
        std::size_t block = 0;
        for (std::size_t item = 0; item + 1 < items.size(); ++item) {
            while (bandStarts[block + 1] <= item)
                ++block;
            const std::uint64_t band = lineOf(runs[items[item]].a) * bands / lines;
            for (std::size_t r = items[item]; r < items[item + 1]; ++r)
                QCOMPARE(lineOf(runs[r].a) * bands / lines, band);
            // An item starts a spread block exactly where its band differs from the last item's.
            if (item > 0) {
                const bool newBand = lineOf(runs[items[item - 1]].a) * bands / lines != band;
                QCOMPARE(bandStarts[block] == item, newBand);
            }
        }
        QVERIFY(bandStarts.size() - 1 >= kEvenSampleUnits);
    }

    void culledLiveCountsAreEvenSamples() {
        const Catalog a = skyByDeclination(32768, 1), b = skyByDeclination(16384, 2);
        const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &b}};
        const Binning binning(BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30));
        CpuPairCounter counter(2);
        counter.setCulling(CullingMode::On);
        // From a quarter: a tenth of 256 bands of lines is too few for 5 %.
        const test::LiveDeparture d = test::measureLiveDeparture(counter, tasks, binning, 0.25);
        qInfo("culled live counts: %zu samples of 25-95 %% of a task, largest departure from an "
              "even sample %.2f %% (task %zu, bin %zu, at %.1f %% of its pairs)",
              d.samples, 100 * d.worst, d.worstTask, d.worstBin, 100 * d.worstShare);
        QCOMPARE(d.flagged, d.snapshots);
        QVERIFY(d.samples > 0);
        QVERIFY(d.worst < 0.05);
    }
};

TPACF_TEST_MAIN(TestSpreadOrder)
#include "test_spread_order.moc"
