// SPDX-License-Identifier: GPL-3.0-or-later
// Host-only check of the CUDA backend's multi-scale culling (kernels/src/tile_tree, the culled
// schedule of gpu_schedule.cpp): tiles are made here as the device makes them (sky-curve order,
// region groups), the schedule is built from their boxes, and the pairs of every listed tile
// pair, counted one by one in double, plus the node pairs the traversal counted whole, must equal
// a brute-force double count over all pairs, bin for bin (and region row for region row; weighted
// sums to 1e-12 of Σ|w_i·w_j|). The catalogs put many pairs exactly on bin edges. Runs without a
// GPU, in CI too.
#include "gpu_schedule.h"
#include "host_tiles.h"
#include "list_stages.h"
#include "sky_curve.h"
#include "tile_tree.h"

#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/mock.h"
#include "tpacf/pair_counter.h"
#include "tpacf/spread_order.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace tpacf;
using namespace tpacf::cuda::detail;
using namespace tpacf::gputest;

namespace {

// ---- counts --------------------------------------------------------------------------------------

// Counters in the device layout: binCount, or (1 + 2K) · binCount (total, touching[K], within[K]).
struct Tally {
    std::vector<std::uint64_t> raw;
    std::vector<double> weighted, magnitude; // magnitude: Σ|w_i·w_j| per counter
};

struct Counter {
    std::span<const double> edges;
    std::size_t bins, regions;

    Tally zero() const {
        const std::size_t n = (regions > 0 ? 1 + 2 * regions : 1) * bins;
        return {std::vector<std::uint64_t>(n, 0), std::vector<double>(n, 0.0),
                std::vector<double>(n, 0.0)};
    }
    void pair(const Catalog& a, std::size_t i, const Catalog& b, std::size_t j, Tally& t) const {
        const double dx = a.x()[i] - b.x()[j], dy = a.y()[i] - b.y()[j], dz = a.z()[i] - b.z()[j];
        const double c2 = (dx * dx + dy * dy) + dz * dz;
        const auto slot =
            static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), c2) - edges.begin());
        if (slot == 0 || slot > bins)
            return;
        const std::size_t bin = slot - 1;
        const double w = pointWeight(a, i) * pointWeight(b, j);
        const auto add = [&](std::size_t k) {
            ++t.raw[k];
            t.weighted[k] += w;
            t.magnitude[k] += std::abs(w);
        };
        add(bin);
        if (regions == 0)
            return;
        const auto ra = static_cast<std::size_t>(a.region()[i]);
        const auto rb = static_cast<std::size_t>(b.region()[j]);
        add(bins + ra * bins + bin);
        add(ra == rb ? bins + (regions + ra) * bins + bin : bins + rb * bins + bin);
    }
};

struct Case {
    std::string name;
    Points first;
    std::optional<Points> second; // cross
    BinSpec bins;
    bool weighted = false;
    int regions = 0;
    std::uint32_t tileSize = 8;
    std::uint32_t leafBlockPoints = 1; // judge down to single tile pairs
};

int runCase(const Case& c) {
    const Catalog a = makeCatalog("first", c.first, c.weighted, c.regions);
    const Catalog b = c.second ? makeCatalog("second", *c.second, c.weighted, c.regions) : Catalog{};
    const CountTask task{&a, c.second ? &b : nullptr};
    const std::vector<CountTask> tasks{task};
    const BatchCatalogs batch = indexBatch(tasks);
    const Binning binning(c.bins);
    const std::span<const double> edges = binning.chord2Edges();
    const std::size_t regions = static_cast<std::size_t>(c.regions);

    std::vector<RegionLayout> layouts;
    std::vector<HostTiles> tiles;
    std::vector<std::vector<std::uint32_t>> tileCounts;
    std::vector<CatalogTiles> summaries;
    for (const Catalog* catalog : batch.catalogs) {
        if (regions > 0)
            layouts.push_back(buildRegionLayout(*catalog, regions, c.tileSize, 0));
        tiles.push_back(makeTiles(*catalog, c.tileSize, regions > 0 ? &layouts.back() : nullptr));
        tileCounts.push_back(tiles.back().counts);
        summaries.push_back(tiles.back().summary);
    }
    CulledInputs inputs;
    inputs.tileCounts = &tileCounts;
    inputs.regionLayouts = &layouts;
    inputs.tiles = &summaries;
    inputs.thresholds = edges;
    inputs.regionCount = regions;
    inputs.leafBlockPoints = c.leafBlockPoints;
    const Schedule schedule = buildCulledSchedule(tasks, batch, inputs, c.tileSize, WorkShare{});

    const Counter counter{edges, binning.count(), regions};
    // The schedule's count: every pair of every listed tile pair, plus the whole node pairs.
    Tally listed = counter.zero();
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    int bad = 0;
    std::uint64_t listedPairs = 0;
    for (std::size_t u = schedule.shareBegin; u < schedule.shareEnd; ++u) {
        const WorkUnit& unit = schedule.units[u];
        const Catalog& ca = *batch.catalogs[unit.catA];
        const Catalog& cb = *batch.catalogs[unit.catB];
        for (std::uint32_t tb = unit.tileB0; tb < unit.tileB1; ++tb) {
            if (!seen.emplace(unit.tileA, tb).second && bad++ < 3)
                std::printf("FAIL %s: tile pair (%u, %u) listed twice\n", c.name.c_str(),
                            unit.tileA, tb);
            if (unit.isAuto && tb < unit.tileA && bad++ < 3)
                std::printf("FAIL %s: auto tile pair (%u, %u) below the diagonal\n",
                            c.name.c_str(), unit.tileA, tb);
            const auto& ia = tiles[unit.catA].members[unit.tileA];
            const auto& jb = tiles[unit.catB].members[tb];
            for (std::size_t i = 0; i < ia.size(); ++i)
                for (std::size_t j = (unit.isAuto && tb == unit.tileA ? i + 1 : 0); j < jb.size();
                     ++j) {
                    counter.pair(ca, ia[i], cb, jb[j], listed);
                    ++listedPairs;
                }
        }
    }
    for (std::size_t k = 0; k < listed.raw.size(); ++k) {
        listed.raw[k] += schedule.wholeCounts[0][k];
        if (c.weighted)
            listed.weighted[k] += schedule.wholeWeighted[0][k];
    }
    // The brute force over the catalogs themselves.
    Tally brute = counter.zero();
    if (c.second) {
        for (std::size_t i = 0; i < a.size(); ++i)
            for (std::size_t j = 0; j < b.size(); ++j)
                counter.pair(a, i, b, j, brute);
    } else {
        for (std::size_t i = 0; i < a.size(); ++i)
            for (std::size_t j = i + 1; j < a.size(); ++j)
                counter.pair(a, i, a, j, brute);
    }
    for (std::size_t k = 0; k < brute.raw.size(); ++k) {
        if (listed.raw[k] != brute.raw[k] && bad++ < 8)
            std::printf("FAIL %s: counter %zu: schedule %llu, brute force %llu\n", c.name.c_str(), k,
                        static_cast<unsigned long long>(listed.raw[k]),
                        static_cast<unsigned long long>(brute.raw[k]));
        if (c.weighted &&
            !(std::abs(listed.weighted[k] - brute.weighted[k]) <= 1e-12 * brute.magnitude[k]) &&
            bad++ < 8)
            std::printf("FAIL %s: counter %zu: weighted %.17g, brute force %.17g\n", c.name.c_str(),
                        k, listed.weighted[k], brute.weighted[k]);
    }
    const std::uint64_t inRange = std::accumulate(brute.raw.begin(), brute.raw.begin() +
                                                  static_cast<std::ptrdiff_t>(binning.count()),
                                                  std::uint64_t{0});
    std::printf("%s %s: %llu pairs in range, %llu counted whole, %llu in %zu listed units, "
                "%llu node pairs judged\n",
                bad == 0 ? "ok  " : "FAIL", c.name.c_str(),
                static_cast<unsigned long long>(inRange),
                static_cast<unsigned long long>(schedule.wholePairs),
                static_cast<unsigned long long>(listedPairs), schedule.shareEnd - schedule.shareBegin,
                static_cast<unsigned long long>(schedule.judgedNodePairs));
    return bad;
}

// The order the devices take the list in: chunks of one task each, the tasks advancing together,
// every unit taken once; each task's units in spread blocks, so that the first tenth of a task's
// work already reaches every tenth of its i-tiles (listed in curve order, a prefix of the list
// as built would cover one corner of the sky).
int checkTakingOrder() {
    const Catalog a = makeCatalog("first", uniform(6000, 21), false, 0);
    const Catalog b = makeCatalog("second", clustered(5000, 22), false, 0);
    // Auto tasks in bands of folded rows, the cross task in bands of rows (750 rows, 625 columns;
    // bands of columns: checkEvenPrefixes).
    const std::vector<CountTask> tasks{CountTask{&a, nullptr}, CountTask{&a, &b},
                                       CountTask{&b, nullptr}};
    const BatchCatalogs batch = indexBatch(tasks);
    const Binning binning(BinSpec::logCount(1, 600, AngleUnit::Arcminute, 12));
    const std::uint32_t tileSize = 8;
    const PlainTiles plain(batch, tileSize, binning);
    const std::vector<std::vector<std::uint32_t>>& tileCounts = plain.tileCounts;
    Schedule schedule = buildCulledSchedule(tasks, batch, plain.inputs(), tileSize, WorkShare{});
    int bad = 0;
    const auto fail = [&](const std::string& what) {
        if (bad++ < 8)
            std::printf("FAIL taking order: %s\n", what.c_str());
    };
    if (!schedule.evenlySpread)
        fail("the schedule does not say its tasks are spread");
    const std::vector<std::pair<std::size_t, std::size_t>> taskUnits = schedule.taskUnits;
    const HostArray<WorkUnit> units = schedule.units;
    const HostArray<std::uint64_t> work = schedule.workPrefix;
    // The layout, rebuilt here: a task's units in list order are sorted by i-tile, then first
    // j-tile. A unit of row i and first j-tile j lies on line min(i, R - 1 - i) of an auto task's
    // ceil(R / 2) folded rows, on line i of a cross task's R rows, or on line j of its C columns
    // where R < min(C, 64); block line·B/L of B = min(L, 1024) blocks of the L lines; the blocks go
    // in SpreadOrder, each holding its units in list order. Each unit's work is its pairs, from the
    // tile counts.
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const auto [begin, end] = taskUnits[t];
        std::vector<WorkUnit> listOrder(units.begin() + static_cast<std::ptrdiff_t>(begin),
                                        units.begin() + static_cast<std::ptrdiff_t>(end));
        std::sort(listOrder.begin(), listOrder.end(), [](const WorkUnit& x, const WorkUnit& y) {
            return std::tie(x.tileA, x.tileB0) < std::tie(y.tileA, y.tileB0);
        });
        const std::uint64_t rows = tileCounts[batch.taskCatA[t]].size();
        const std::uint64_t cols = tileCounts[batch.taskCatB[t]].size();
        const bool isAuto = tasks[t].isAuto(), byColumns = !isAuto && rows < 64 && rows < cols;
        const std::uint64_t lines = isAuto ? (rows + 1) / 2 : byColumns ? cols : rows;
        const std::uint64_t count = std::min<std::uint64_t>(lines, 1024);
        const auto blockOf = [&](const WorkUnit& u) {
            const std::uint64_t line = isAuto ? std::min<std::uint64_t>(u.tileA, rows - 1 - u.tileA)
                                       : byColumns ? u.tileB0
                                                   : u.tileA;
            return line * count / lines;
        };
        std::vector<std::vector<WorkUnit>> blocks(count);
        for (const WorkUnit& u : listOrder)
            blocks[blockOf(u)].push_back(u);
        std::size_t filled = 0;
        for (const auto& block : blocks)
            filled += block.empty() ? 0 : 1;
        if (filled < kEvenSampleUnits)
            fail("task " + std::to_string(t) + " fills " + std::to_string(filled) +
                 " spread blocks, too few for even samples");
        const SpreadOrder order(count);
        std::size_t at = begin;
        for (std::size_t rank = 0; rank < count && bad == 0; ++rank) {
            const std::size_t block = order(rank);
            for (std::size_t i = 0; i < blocks[block].size(); ++i, ++at)
                if (std::tie(units[at].tileA, units[at].tileB0, units[at].tileB1) !=
                    std::tie(blocks[block][i].tileA, blocks[block][i].tileB0,
                             blocks[block][i].tileB1))
                    fail("task " + std::to_string(t) + ": unit " + std::to_string(at) +
                         " is not unit " + std::to_string(i) + " of spread block " +
                         std::to_string(block));
        }
        const std::vector<std::uint32_t>& countsA = tileCounts[batch.taskCatA[t]];
        const std::vector<std::uint32_t>& countsB = tileCounts[batch.taskCatB[t]];
        for (std::size_t u = begin; u < end; ++u) {
            std::uint64_t pairs = 0;
            for (std::uint32_t j = units[u].tileB0; j < units[u].tileB1; ++j)
                pairs += units[u].tileA == j && tasks[t].isAuto()
                             ? std::uint64_t{countsA[j]} * (countsA[j] - 1) / 2
                             : std::uint64_t{countsA[units[u].tileA]} * countsB[j];
            if (work[u + 1] - work[u] != pairs)
                fail("unit " + std::to_string(u) + " holds " +
                     std::to_string(work[u + 1] - work[u]) + " pairs of work, its tiles " +
                     std::to_string(pairs));
        }
    }

    BatchState state(tasks.size());
    state.publish(std::move(schedule));
    const std::atomic<bool> stop{false};
    const std::uint64_t budget = std::max<std::uint64_t>(1, work.back() / 60);
    std::vector<int> taken(units.size(), 0);
    std::vector<std::uint64_t> taskTaken(tasks.size(), 0);
    std::vector<std::vector<std::size_t>> takenInOrder(tasks.size());
    std::size_t chunks = 0;
    bool halfChecked = false;
    BatchState::Chunk chunk;
    while (state.take(budget, 1, stop, 1, chunk) == BatchState::Take::Chunk) {
        const std::size_t begin = chunk.begin, end = chunk.end;
        ++chunks;
        const std::uint32_t task = units[begin].task;
        if (begin < taskUnits[task].first || end > taskUnits[task].second)
            fail("a chunk spans two tasks");
        for (std::size_t u = begin; u < end; ++u) {
            ++taken[u];
            takenInOrder[task].push_back(u);
        }
        taskTaken[task] += work[end] - work[begin];
        std::uint64_t takenAll = 0;
        for (const std::uint64_t t : taskTaken)
            takenAll += t;
        if (!halfChecked && 2 * takenAll >= work.back()) {
            halfChecked = true; // half of all work taken: every task about half taken
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                const double fraction =
                    static_cast<double>(taskTaken[t]) /
                    static_cast<double>(work[taskUnits[t].second] - work[taskUnits[t].first]);
                if (fraction < 0.3 || fraction > 0.7)
                    fail("task " + std::to_string(t) + " is " + std::to_string(fraction) +
                         " taken when half of the batch is");
            }
        }
    }
    if (!state.allTaken())
        fail("units left after the last chunk");
    for (std::size_t u = 0; u < taken.size(); ++u)
        if (taken[u] != 1)
            fail("unit " + std::to_string(u) + " taken " + std::to_string(taken[u]) + " times");
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const std::uint32_t tiles = static_cast<std::uint32_t>(tileCounts[batch.taskCatA[t]].size());
        std::set<std::uint32_t> tenthsReached;
        const std::uint64_t taskWork = work[taskUnits[t].second] - work[taskUnits[t].first];
        std::uint64_t seen = 0;
        for (const std::size_t u : takenInOrder[t]) {
            if (10 * seen >= taskWork)
                break;
            tenthsReached.insert(units[u].tileA * 10 / tiles);
            seen += work[u + 1] - work[u];
        }
        if (tenthsReached.size() < 10)
            fail("task " + std::to_string(t) + ": the first tenth of its work reaches " +
                 std::to_string(tenthsReached.size()) + " tenths of its i-tiles");
    }
    std::printf("%s taking order: %zu units of 3 tasks in %zu chunks, each task's first tenth "
                "spread over its sky\n",
                bad == 0 ? "ok  " : "FAIL", units.size(), chunks);
    return bad;
}

// Every prefix of a task's list is an even sample of its pairs, close pairs included: in a
// brute-force auto count of a uniform sky nearly all close pairs lie in the diagonal tile pairs,
// one per row, while a row's units grow fewer down the list (j >= i). Whatever prefix of the
// task's units the devices have counted (they take each task's units in list order), once it
// holds 10 % of the task's pairs its share of the diagonal tiles' pairs must match its share of
// all pairs within 3 %. Equal-count blocks of units missed by 10.5 % at 13 % (the last blocks held
// most of the diagonal tiles), bands of rows by 1.37 %, bands of folded rows (i and R - 1 - i,
// every line of one length) by 0.46 %. A cross count of a few rows against many
// tiles (a small data catalog against large randoms) still gives even samples: its blocks are
// bands of j-tiles.
int checkEvenPrefixes() {
    int bad = 0;
    const std::uint32_t tileSize = 8;
    const auto schedule = [&](const std::vector<CountTask>& tasks, BatchCatalogs& batch,
                              std::vector<std::vector<std::uint32_t>>& tileCounts) {
        batch = indexBatch(tasks);
        for (const Catalog* c : batch.catalogs)
            tileCounts.push_back(plainTileCounts(c->size(), tileSize));
        return buildDenseSchedule(tasks, batch, tileCounts, tileSize, WorkShare{});
    };
    // 8192 tiles of 8 points: up to 8 units (1024 j-tiles each) per row.
    const Catalog sky = makeCatalog("sky", uniform(65536, 41), false, 0);
    {
        const std::vector<CountTask> tasks{CountTask{&sky, nullptr}};
        BatchCatalogs batch;
        std::vector<std::vector<std::uint32_t>> tileCounts;
        const Schedule list = schedule(tasks, batch, tileCounts);
        const std::vector<std::uint32_t>& counts = tileCounts[0];
        const auto [begin, end] = list.taskUnits[0];
        const auto diagonalPairs = [&](const WorkUnit& u) -> std::uint64_t {
            if (u.tileA < u.tileB0 || u.tileA >= u.tileB1)
                return 0;
            return std::uint64_t{counts[u.tileA]} * (counts[u.tileA] - 1) / 2;
        };
        std::uint64_t diagonalTotal = 0;
        for (std::size_t u = begin; u < end; ++u)
            diagonalTotal += diagonalPairs(list.units[u]);
        const double workTotal = static_cast<double>(list.workPrefix[end] - list.workPrefix[begin]);
        std::uint64_t diagonal = 0;
        double worst = 0, worstAt = 0;
        for (std::size_t u = begin; u < end; ++u) {
            diagonal += diagonalPairs(list.units[u]);
            const double share =
                static_cast<double>(list.workPrefix[u + 1] - list.workPrefix[begin]) / workTotal;
            if (share < 0.1 || share > 0.95)
                continue;
            const double off = std::abs(
                static_cast<double>(diagonal) / static_cast<double>(diagonalTotal) / share - 1);
            if (off > worst) {
                worst = off;
                worstAt = share;
            }
        }
        const bool ok = list.evenlySpread && diagonalTotal > 0 && worst < 0.03;
        bad += ok ? 0 : 1;
        std::printf("%s even prefixes, brute-force auto of 8192 rows: %zu units; the diagonal "
                    "tiles' share departs from the pairs' share by %.2f %% at most (at %.0f %% of "
                    "the pairs)\n",
                    ok ? "ok  " : "FAIL", end - begin, 100 * worst, 100 * worstAt);
    }
    {
        // 40 rows against 65536 tiles: 64 units per row, in as many bands of columns.
        const Catalog few = makeCatalog("few", uniform(320, 42), false, 0);
        const Catalog many = makeCatalog("many", uniform(std::size_t{1} << 19, 43), false, 0);
        const std::vector<CountTask> tasks{CountTask{&few, &many}};
        BatchCatalogs batch;
        std::vector<std::vector<std::uint32_t>> tileCounts;
        const Schedule list = schedule(tasks, batch, tileCounts);
        std::set<std::uint32_t> rows, columns, tenthsReached;
        const auto [begin, end] = list.taskUnits[0];
        const std::uint64_t work = list.workPrefix[end] - list.workPrefix[begin];
        const std::uint64_t cols = tileCounts[batch.taskCatB[0]].size();
        for (std::size_t u = begin; u < end; ++u) {
            rows.insert(list.units[u].tileA);
            columns.insert(list.units[u].tileB0);
            // The first quarter of the task's work (in list order) reaches every tenth of its sky.
            if (4 * (list.workPrefix[u] - list.workPrefix[begin]) < work)
                tenthsReached.insert(static_cast<std::uint32_t>(list.units[u].tileB0 * 10 / cols));
        }
        const bool ok = list.evenlySpread && rows.size() == 40 && columns.size() == 64 &&
                        tenthsReached.size() == 10;
        bad += ok ? 0 : 1;
        std::printf("%s even prefixes, cross of 40 rows against 65536 tiles: %s; %zu rows, %zu "
                    "first j-tiles, the first quarter in %zu tenths of the j-tiles\n",
                    ok ? "ok  " : "FAIL",
                    list.evenlySpread ? "spread in bands of its columns" : "not said to be spread",
                    rows.size(), columns.size(), tenthsReached.size());
    }
    return bad;
}

// The list in stages (list_stages.h): DD of a, then DR and RR of b, then DR and RR of c, each
// stage listed once its catalogs' tiles are there. Every task's units and whole pairs must be
// those of the list built at once, a stage's list must hold nothing of another stage's tasks, and
// the cursor must hand out a stage only once the caller can use it, every unit once.
int checkStagedList() {
    const Catalog a = makeCatalog("data", clustered(4000, 31), false, 0);
    const Catalog b = makeCatalog("random 0", uniform(3000, 32), false, 0);
    const Catalog c = makeCatalog("random 1", uniform(3500, 33), false, 0);
    const std::vector<CountTask> tasks{CountTask{&a, nullptr}, CountTask{&a, &b},
                                       CountTask{&b, nullptr}, CountTask{&a, &c},
                                       CountTask{&c, nullptr}};
    const BatchCatalogs batch = indexBatch(tasks);
    const Binning binning(BinSpec::logCount(1, 600, AngleUnit::Arcminute, 12));
    const std::uint32_t tileSize = 8;
    const PlainTiles plain(batch, tileSize, binning);
    int bad = 0;
    const auto fail = [&](const std::string& what) {
        if (bad++ < 8)
            std::printf("FAIL staged list: %s\n", what.c_str());
    };
    const ListStages stages = planStages(batch, true);
    if (stages.taskStage != std::vector<std::uint32_t>{0, 1, 1, 2, 2} ||
        stages.lastCatalog != std::vector<std::uint32_t>{0, 1, 2})
        fail("the stages are not {DD}, {DR, RR of b}, {DR, RR of c}");
    for (std::size_t ready = 0; ready <= 3; ++ready)
        if (stages.usableWith(ready) != ready)
            fail(std::to_string(stages.usableWith(ready)) + " stages usable with " +
                 std::to_string(ready) + " catalogs prepared");
    const ListStages whole = planStages(batch, false);
    if (whole.count() != 1 || whole.usableWith(2) != 0 || whole.usableWith(3) != 1)
        fail("an unstaged batch is not one stage usable once every catalog is prepared");

    const Schedule once = buildCulledSchedule(tasks, batch, plain.inputs(), tileSize, WorkShare{});
    BatchState state(tasks.size());
    state.setStages(stages.taskStage, stages.count());
    // The lister in a thread of its own, the tiles posted one catalog at a time as the leading
    // device does.
    TileMailbox mailbox(batch.catalogs.size());
    const StageLister lister = [&](const std::vector<CatalogTiles>& tiles,
                                   std::span<const std::uint8_t> listed) {
        CulledInputs inputs = plain.inputs();
        inputs.tiles = &tiles;
        inputs.tasksListed = listed;
        return buildCulledSchedule(tasks, batch, inputs, tileSize, WorkShare{});
    };
    const std::atomic<bool> stop{false};
    std::thread listing([&] { listStages(stages, mailbox, lister, state, stop); });
    BatchState::Chunk chunk;
    std::vector<std::vector<int>> taken(stages.count());
    const auto takeAll = [&](std::size_t usable) {
        BatchState::Take result;
        while ((result = state.take(1000, 1, stop, usable, chunk)) == BatchState::Take::Chunk) {
            const std::uint32_t task = chunk.schedule->units[chunk.begin].task;
            if (stages.taskStage[task] >= usable)
                fail("a chunk of stage " + std::to_string(stages.taskStage[task]) + " taken with " +
                     std::to_string(usable) + " usable");
            std::vector<int>& counts = taken[stages.taskStage[task]];
            counts.resize(chunk.schedule->units.size(), 0);
            for (std::size_t u = chunk.begin; u < chunk.end; ++u) {
                if (chunk.schedule->units[u].task != task)
                    fail("a chunk spans two tasks");
                ++counts[u];
            }
            state.completed(chunk);
        }
        return result;
    };
    if (takeAll(3) != BatchState::Take::Later)
        fail("a chunk before any list was published");
    for (std::size_t catalog = 0; catalog < batch.catalogs.size(); ++catalog) {
        mailbox.post(catalog, (*plain.inputs().tiles)[catalog]);
        if (!state.waitForStages(catalog, stop))
            fail("stop seen while waiting");
        if (takeAll(catalog) != BatchState::Take::Later)
            fail("stage " + std::to_string(catalog) + " taken before its catalog was usable");
        if (catalog + 1 < batch.catalogs.size() && takeAll(catalog + 1) != BatchState::Take::Later)
            fail("not later with stages unpublished");
    }
    listing.join();
    if (takeAll(3) != BatchState::Take::None || !state.allTaken() || !state.allPublished())
        fail("units left once every stage was published and taken");
    const auto sameAsOnce = [&](BatchState& lists, const std::string& how) {
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            const Schedule* staged = lists.scheduleOf(t);
            if (staged == nullptr) {
                fail(how + ": task " + std::to_string(t) + " has no list");
                continue;
            }
            const auto [b0, e0] = once.taskUnits[t];
            const auto [b1, e1] = staged->taskUnits[t];
            bool same = e0 - b0 == e1 - b1 && staged->wholeCounts[t] == once.wholeCounts[t];
            for (std::size_t k = 0; same && k < e0 - b0; ++k) {
                const WorkUnit& u0 = once.units[b0 + k];
                const WorkUnit& u1 = staged->units[b1 + k];
                same = u0.task == u1.task && u0.catA == u1.catA && u0.catB == u1.catB &&
                       u0.tileA == u1.tileA && u0.tileB0 == u1.tileB0 && u0.tileB1 == u1.tileB1;
            }
            if (!same)
                fail(how + ": task " + std::to_string(t) + "'s units or whole pairs differ");
        }
    };
    sameAsOnce(state, "one stage a list");
    if (state.schedules().size() != stages.count())
        fail(std::to_string(state.schedules().size()) + " lists for 3 stages posted one by one");
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const Schedule* staged = state.scheduleOf(t);
        if (staged == nullptr)
            continue;
        if (state.pairsDone(t) != tasks[t].pairTotal())
            fail("task " + std::to_string(t) + ": progress " + std::to_string(state.pairsDone(t)) +
                 " of " + std::to_string(tasks[t].pairTotal()));
        for (std::size_t other = 0; other < tasks.size(); ++other) {
            if (stages.taskStage[other] == stages.taskStage[t])
                continue;
            const auto [bo, eo] = staged->taskUnits[other];
            const bool none =
                std::all_of(staged->wholeCounts[other].begin(), staged->wholeCounts[other].end(),
                            [](std::uint64_t n) { return n == 0; });
            if (bo != eo || !none)
                fail("stage " + std::to_string(stages.taskStage[t]) + "'s list holds task " +
                     std::to_string(other));
        }
    }
    for (std::size_t stage = 0; stage < taken.size(); ++stage)
        for (std::size_t u = 0; u < taken[stage].size(); ++u)
            if (taken[stage][u] > 1)
                fail("stage " + std::to_string(stage) + " unit " + std::to_string(u) + " taken " +
                     std::to_string(taken[stage][u]) + " times");
    std::size_t unitsTaken = 0;
    for (const std::vector<int>& counts : taken)
        unitsTaken += static_cast<std::size_t>(std::count(counts.begin(), counts.end(), 1));
    if (unitsTaken != once.units.size())
        fail(std::to_string(unitsTaken) + " units taken, " + std::to_string(once.units.size()) +
             " listed at once");

    // Every catalog posted before the lister looks: the stages come as one list.
    BatchState together(tasks.size());
    together.setStages(stages.taskStage, stages.count());
    TileMailbox full(batch.catalogs.size());
    for (std::size_t catalog = 0; catalog < batch.catalogs.size(); ++catalog)
        full.post(catalog, (*plain.inputs().tiles)[catalog]);
    listStages(stages, full, lister, together, stop);
    if (together.schedules().size() != 1 || !together.allPublished())
        fail(std::to_string(together.schedules().size()) +
             " lists for 3 stages whose catalogs were all posted");
    sameAsOnce(together, "the stages in one list");

    // A lister stopped while it waits for tiles returns.
    std::atomic<bool> stopped{false};
    TileMailbox empty(batch.catalogs.size());
    BatchState idle(tasks.size());
    idle.setStages(stages.taskStage, stages.count());
    std::thread waiting([&] { listStages(stages, empty, lister, idle, stopped); });
    stopped = true;
    waiting.join();
    if (idle.publishedStages() != 0)
        fail("a stopped lister published a stage");
    std::printf("%s staged list: 3 stages of 5 tasks, %zu units, the same as listed at once\n",
                bad == 0 ? "ok  " : "FAIL", unitsTaken);
    return bad;
}

} // namespace

// The sky curve (sky_curve.h) the tiles follow: keys within their bits; the faces chained into
// one closed curve, so that points in key order step only to near neighbours, from the last back
// to the first too (a face flipped the wrong way puts a jump of 60° or more between two faces);
// and tiles of consecutive points compact: their boxes' mean half-diagonal within twice the
// radius of a cap of a tile's area (1.6 times here; a Morton curve of the unit vectors in R³
// gives 2.3).
int checkSkyCurve() {
    int bad = 0;
    const auto fail = [&](const std::string& what) {
        ++bad;
        std::printf("FAIL sky curve: %s\n", what.c_str());
    };
    const Catalog c = makeCatalog("curve", uniform(1 << 16, 41), false, 0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> keyed;
    std::size_t tooWide = 0;
    for (std::uint32_t i = 0; i < c.size(); ++i) {
        const std::uint32_t key = skyCurveKey(c.x()[i], c.y()[i], c.z()[i]);
        tooWide += key >> kSkyCurveKeyBits != 0 ? 1 : 0;
        keyed.emplace_back(key, i);
    }
    if (tooWide > 0)
        fail(std::to_string(tooWide) + " keys have more than " + std::to_string(kSkyCurveKeyBits) +
             " bits");
    std::sort(keyed.begin(), keyed.end());
    const auto degreesBetween = [&](std::uint32_t a, std::uint32_t b) {
        const double dot = c.x()[a] * c.x()[b] + c.y()[a] * c.y()[b] + c.z()[a] * c.z()[b];
        return std::acos(std::clamp(dot, -1.0, 1.0)) * 180 / std::numbers::pi;
    };
    double largestStep = 0;
    for (std::size_t k = 0; k < keyed.size(); ++k)
        largestStep = std::max(
            largestStep, degreesBetween(keyed[k].second, keyed[(k + 1) % keyed.size()].second));
    if (largestStep > 10)
        fail("consecutive points along the curve lie up to " + std::to_string(largestStep) +
             " deg apart (a jump: the faces are not chained)");
    const HostTiles tiles = makeTiles(c, 256, nullptr);
    const std::vector<CellBounds>& boxes = tiles.summary.bounds;
    double sumHalfDiagonal = 0;
    for (const CellBounds& box : boxes)
        sumHalfDiagonal += halfDiagonal(box);
    const auto tileCount = static_cast<double>(boxes.size());
    const double capRadius = std::sqrt(4.0 / tileCount); // π r² = 4π / tiles
    const double ratio = sumHalfDiagonal / tileCount / capRadius;
    if (!(ratio <= 2))
        fail("the tiles' boxes have a mean half-diagonal of " + std::to_string(ratio) +
             " times a tile's cap radius");
    if (bad == 0)
        std::printf("ok   sky curve: %zu points, steps along it at most %.2f deg, tile boxes' "
                    "mean half-diagonal %.2f times a tile's cap radius\n",
                    keyed.size(), largestStep, ratio);
    return bad;
}

// The list's arrays (host_array.h): from 8 MB on, 2 MB aligned and advised for transparent huge
// pages, which the kernel shows as the "hg" flag of their mapping in /proc/self/smaps (whether or
// not huge pages were free to back it); smaller ones as before. Their contents survive a grow.
int checkHostArrays() {
    int bad = 0;
    bool hugePagesChecked = false;
    const auto fail = [&](const std::string& what) {
        ++bad;
        std::printf("FAIL host arrays: %s\n", what.c_str());
    };
    HostArray<WorkUnit> large(std::size_t{1} << 20); // 32 MB
    const auto address = reinterpret_cast<std::uintptr_t>(large.data());
    if (address % (std::uintptr_t{2} << 20) != 0)
        fail("a 32 MB array is not aligned to 2 MB");
#if defined(__linux__)
    // A kernel built without transparent huge pages refuses the advice; nothing to see there.
    const bool hugePages = std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
    std::ifstream smaps(hugePages ? "/proc/self/smaps" : "");
    std::string line;
    bool inside = false, advised = false, found = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2 &&
            line.find(' ') != std::string::npos && line.find('-') < line.find(' ')) {
            inside = lo <= address && address < hi;
            found = found || inside;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            advised = line.find(" hg") != std::string::npos;
        }
    }
    if (!hugePages)
        std::printf(
            "note host arrays: this kernel has no transparent huge pages, advice not checked\n");
    else if (!found)
        fail("the 32 MB array's mapping is not in /proc/self/smaps");
    else if (!advised)
        fail("the 32 MB array's mapping is not advised for huge pages (no hg in VmFlags)");
    hugePagesChecked = hugePages;
#endif
    for (std::size_t i = 0; i < large.size(); ++i)
        large[i].tileA = static_cast<std::uint32_t>(i);
    large.resize(large.size() + 1000); // grows into a new allocation
    bool kept = true;
    for (std::size_t i = 0; i < (std::size_t{1} << 20); ++i)
        kept = kept && large[i].tileA == static_cast<std::uint32_t>(i);
    if (!kept)
        fail("a grown array lost its units");
    HostArray<std::uint64_t> small(100, 7);
    if (small.size() != 100 || small[99] != 7)
        fail("a small array does not hold its values");
    std::printf("%s host arrays: 32 MB aligned to 2 MB%s, contents kept\n",
                bad == 0 ? "ok  " : "FAIL", hugePagesChecked ? " and advised for huge pages" : "");
    return bad;
}

// FNV-1a over the list as the devices read it (units, work and progress prefixes, whole counts):
// two builds of the schedule agree unit for unit when their digests do.
std::uint64_t scheduleDigest(const Schedule& schedule) {
    std::uint64_t hash = 14695981039346656037ull;
    const auto add = [&](const void* data, std::size_t bytes) {
        const auto* byte = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i)
            hash = (hash ^ byte[i]) * 1099511628211ull;
    };
    for (const WorkUnit& unit : schedule.units) {
        const std::uint32_t fields[] = {unit.task,   unit.catA,   unit.catB,  unit.tileA,
                                        unit.tileB0, unit.tileB1, unit.isAuto};
        add(fields, sizeof fields);
    }
    add(schedule.workPrefix.data(), schedule.workPrefix.size() * sizeof(std::uint64_t));
    add(schedule.progressPrefix.data(), schedule.progressPrefix.size() * sizeof(std::uint64_t));
    for (const auto& row : schedule.wholeCounts)
        add(row.data(), row.size() * sizeof(std::uint64_t));
    return hash;
}

// --time N TILE MAX_ARCMIN [box|batch]: the schedule's build time and digest for N uniform points,
// with "box" for the clustered data of `tpacf bench --clustered --footprint box:150,190,0,40`, with
// "batch" for DD, DR and RR of two uniform catalogs (a measurement aid, not a check).
int timeSchedule(std::size_t n, std::uint32_t tileSize, double maxArcmin, const std::string& kind) {
    const Catalog a = timingCatalog(n, kind, "first");
    const Catalog b = makeCatalog("second", uniform(n, 2), false, 0);
    // "batch": DD, DR and RR, as the standard job's first stages.
    std::vector<CountTask> tasks{CountTask{&a, nullptr}};
    if (kind == "batch") {
        tasks.push_back(CountTask{&a, &b});
        tasks.push_back(CountTask{&b, nullptr});
    }
    const BatchCatalogs batch = indexBatch(tasks);
    const Binning binning(BinSpec::logCount(0.01, maxArcmin, AngleUnit::Arcminute, 30));
    const PlainTiles plain(batch, tileSize, binning);
    const CulledInputs inputs = plain.inputs();
    for (int repeat = 0; repeat < 3; ++repeat) {
        const auto start = std::chrono::steady_clock::now();
        const Schedule schedule = buildCulledSchedule(tasks, batch, inputs, tileSize, WorkShare{});
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%zu points, %zu tiles: schedule %.4f s, %zu units, %llu node pairs judged, "
                    "digest %016llx\n",
                    n, plain.tileCounts[0].size(), seconds, schedule.units.size(),
                    static_cast<unsigned long long>(schedule.judgedNodePairs),
                    static_cast<unsigned long long>(scheduleDigest(schedule)));
    }
    return 0;
}

// --classes N TILE MAX_ARCMIN REACH: how the kernel will take the listed tile pairs of N uniform
// points (30 log bins from 0.01'): skipped, one bin, projected with one or two edges, or pair by
// pair, and why (the diagonal tile, some c² below 1e-6, three edges or more, tiles too wide for
// their distance at this reach), each class's tile pairs and share of the listed pairs, and the
// tile boxes' mean and largest half-diagonal. The rules
// are those of classifyTilePair and projectTilePair (pair_loops.cuh, pair_projection.cuh) in
// plain double on the host: a measurement aid, not a check.
int classifyListed(std::size_t n, std::uint32_t tileSize, double maxArcmin, double reach) {
    const Catalog a = makeCatalog("first", uniform(n, 1), false, 0);
    const std::vector<CountTask> tasks{CountTask{&a, nullptr}};
    const BatchCatalogs batch = indexBatch(tasks);
    const Binning binning(BinSpec::logCount(0.01, maxArcmin, AngleUnit::Arcminute, 30));
    const PlainTiles plain(batch, tileSize, binning);
    const Schedule schedule =
        buildCulledSchedule(tasks, batch, plain.inputs(), tileSize, WorkShare{});
    const std::vector<CellBounds>& boxes = plain.summaries[0].bounds;
    const std::vector<double> t(plain.thresholds.begin(), plain.thresholds.end());
    const auto slotOf = [&](double c2) {
        return static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), c2) - t.begin());
    };
    const char* const names[] = {
        "skipped",       "one bin",        "projected, 1 edge", "projected, 2 edges",
        "diagonal tile", "some c2 < 1e-6", "3 edges or more",   "too wide for reach"};
    double pairs[8] = {};
    std::uint64_t tilePairs[8] = {};
    for (std::size_t u = schedule.shareBegin; u < schedule.shareEnd; ++u) {
        const WorkUnit& unit = schedule.units[u];
        for (std::uint32_t tileB = unit.tileB0; tileB < unit.tileB1; ++tileB) {
            const CellBounds& boxA = boxes[unit.tileA];
            const CellBounds& boxB = boxes[tileB];
            double minD2 = 0, maxD2 = 0, d2 = 0, ra2 = 0, rb2 = 0;
            for (int axis = 0; axis < 3; ++axis) {
                const double gap =
                    std::max({0.0, boxA.lo[axis] - boxB.hi[axis], boxB.lo[axis] - boxA.hi[axis]});
                const double span =
                    std::max(boxA.hi[axis] - boxB.lo[axis], boxB.hi[axis] - boxA.lo[axis]);
                const double d =
                    (boxA.lo[axis] + boxA.hi[axis] - boxB.lo[axis] - boxB.hi[axis]) / 2;
                const double ha = (boxA.hi[axis] - boxA.lo[axis]) / 2;
                const double hb = (boxB.hi[axis] - boxB.lo[axis]) / 2;
                minD2 += gap * gap;
                maxD2 += span * span;
                d2 += d * d;
                ra2 += ha * ha;
                rb2 += hb * hb;
            }
            const double lo = minD2 * (1 - kTileBoxMargin), hi = maxD2 * (1 + kTileBoxMargin);
            const std::size_t slotLo = slotOf(lo), slotHi = slotOf(hi), edges = slotHi - slotLo;
            int kind = 0;
            if (hi < t.front() || lo >= t.back())
                kind = 0;
            else if (edges == 0)
                kind = 1;
            else if (unit.tileA == tileB)
                kind = 4;
            else if (!(lo >= 1e-6))
                kind = 5;
            else if (edges > 2)
                kind = 6;
            else if (edges * (std::sqrt(ra2) + std::sqrt(rb2)) <= reach * std::sqrt(d2))
                kind = edges == 1 ? 2 : 3;
            else
                kind = 7;
            pairs[kind] +=
                static_cast<double>(plain.tileCounts[0][unit.tileA]) * plain.tileCounts[0][tileB];
            ++tilePairs[kind];
        }
    }
    const double listed = std::accumulate(std::begin(pairs), std::end(pairs), 0.0);
    // How compact the curve's tiles are: what every judgement's bounds grow with.
    double sumHalfDiagonal = 0, largestHalfDiagonal = 0;
    for (const CellBounds& box : boxes) {
        sumHalfDiagonal += halfDiagonal(box);
        largestHalfDiagonal = std::max(largestHalfDiagonal, halfDiagonal(box));
    }
    std::printf("%zu points, %u-point tiles, 0.01'-%g', reach %g: %zu units, %.4g pairs listed, "
                "%.4g added whole by the host; tile boxes' half-diagonal %.4f on average, %.4f "
                "at most\n",
                n, tileSize, maxArcmin, reach, schedule.units.size(), listed,
                static_cast<double>(schedule.wholePairs),
                sumHalfDiagonal / static_cast<double>(std::max<std::size_t>(boxes.size(), 1)),
                largestHalfDiagonal);
    for (int kind = 0; kind < 8; ++kind)
        std::printf("  %-20s %10llu tile pairs %11.4g pairs %5.1f %%\n", names[kind],
                    static_cast<unsigned long long>(tilePairs[kind]), pairs[kind],
                    100 * pairs[kind] / listed);
    return 0;
}

/// The region layout's k-d group starts: one per whole run of kKdGroupPoints points of one
/// region's stretch (counted here from the catalog's regions), each made of whole tiles of that
/// region; none where the tile size does not divide the run.
int checkKdGroupStarts() {
    const int regions = 3;
    const Catalog catalog = makeCatalog("runs", uniform(30001, 21), false, regions);
    std::vector<std::uint32_t> perRegion(regions, 0);
    for (std::int32_t r : catalog.region())
        ++perRegion[static_cast<std::size_t>(r)];
    std::size_t runs = 0;
    for (std::uint32_t count : perRegion)
        runs += count / kKdGroupPoints;
    int bad = 0;
    const std::uint32_t tileSize = 256;
    const RegionLayout layout = buildRegionLayout(catalog, regions, tileSize, 0);
    if (layout.kdGroupStarts.size() != runs || runs == 0) {
        std::printf("FAIL k-d group starts: %zu, expected %zu\n", layout.kdGroupStarts.size(),
                    runs);
        ++bad;
    }
    for (std::uint32_t start : layout.kdGroupStarts) {
        const auto first =
            std::find(layout.tileSortedStart.begin(), layout.tileSortedStart.end(), start);
        const auto t = static_cast<std::size_t>(first - layout.tileSortedStart.begin());
        bool whole = first != layout.tileSortedStart.end() &&
                     t + kKdGroupPoints / tileSize <= layout.tileCount.size();
        for (std::size_t k = 0; whole && k < kKdGroupPoints / tileSize; ++k)
            whole = layout.tileCount[t + k] == tileSize &&
                    layout.tileRegion[t + k] == layout.tileRegion[t] &&
                    layout.tileSortedStart[t + k] == start + k * tileSize;
        if (!whole) {
            std::printf("FAIL k-d group at %u is not whole tiles of one region\n", start);
            ++bad;
        }
    }
    if (!buildRegionLayout(catalog, regions, 384, 0).kdGroupStarts.empty()) {
        std::printf("FAIL k-d group starts with 384-point tiles\n");
        ++bad;
    }
    std::printf("k-d group starts: %zu runs, %s\n", runs, bad == 0 ? "ok" : "FAILED");
    return bad;
}

int main(int argc, char** argv) {
    if ((argc == 5 ||
         (argc == 6 && (std::string(argv[5]) == "box" || std::string(argv[5]) == "batch"))) &&
        std::string(argv[1]) == "--time")
        return timeSchedule(std::stoul(argv[2]), static_cast<std::uint32_t>(std::stoul(argv[3])),
                            std::stod(argv[4]), argc == 6 ? argv[5] : "uniform");
    if (argc == 6 && std::string(argv[1]) == "--classes")
        return classifyListed(std::stoul(argv[2]), static_cast<std::uint32_t>(std::stoul(argv[3])),
                              std::stod(argv[4]), std::stod(argv[5]));
    const BinSpec fullLog = BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30);
    const BinSpec toTen = BinSpec::logCount(1, 600, AngleUnit::Arcminute, 15);
    const BinSpec linear = BinSpec::linearCount(0, 180, AngleUnit::Degree, 36);
    const BinSpec edgeList = BinSpec::fromEdges({0, 1, 2.5, 5, 10, 30, 60, 90, 120, 179, 180},
                                                AngleUnit::Degree);
    std::vector<Case> cases;
    cases.push_back({"uniform auto, log to 180 deg", uniform(3000, 1), {}, fullLog});
    cases.push_back({"uniform auto, log to 10 deg, 64-point tiles", uniform(3000, 2), {}, toTen,
                     false, 0, 64});
    cases.push_back({"uniform auto, log to 180 deg, 2-point tiles", uniform(1500, 16), {}, fullLog,
                     false, 0, 2});
    cases.push_back({"lattice auto on 5 deg edges, 1-point tiles", lattice(5, 17), {}, linear,
                     false, 0, 1});
    cases.push_back({"uniform auto, log to 180 deg, blocks of 64 points left to the kernel",
                     uniform(3000, 18), {}, fullLog, false, 0, 8, 64});
    cases.push_back({"regions cross (K = 3), blocks of 32 points left to the kernel",
                     clustered(2000, 19), uniform(2000, 20), linear, false, 3, 8, 32});
    cases.push_back({"clustered auto with duplicates, linear 5 deg", clustered(3000, 3), {}, linear});
    cases.push_back({"uniform cross, edge list 0..180 deg", uniform(2000, 4), uniform(2500, 5),
                     edgeList});
    cases.push_back({"lattice auto on 5 deg edges (poles, RA wrap)", lattice(5, 6), {}, linear});
    cases.push_back({"lattice cross on 5 deg edges", lattice(5, 7), lattice(2.5, 8), linear});
    cases.push_back({"weighted auto, log to 180 deg", uniform(2500, 9), {}, fullLog, true});
    cases.push_back({"weighted cross, clustered", clustered(2000, 10), uniform(2000, 11), edgeList,
                     true});
    cases.push_back({"regions auto (K = 6), log to 180 deg", uniform(3000, 12), {}, fullLog, false, 6});
    cases.push_back({"regions cross (K = 5), lattice", lattice(5, 13), uniform(1500, 14), linear,
                     false, 5});
    cases.push_back({"regions weighted auto (K = 4), clustered", clustered(2500, 15), {}, linear,
                     true, 4});
    int bad = 0;
    for (const Case& c : cases)
        bad += runCase(c);
    bad += checkTakingOrder();
    bad += checkEvenPrefixes();
    bad += checkStagedList();
    bad += checkHostArrays();
    bad += checkSkyCurve();
    bad += checkKdGroupStarts();
    std::printf("%s\n", bad == 0 ? "all tile traversal cases passed" : "FAILURES");
    return bad == 0 ? 0 : 1;
}
