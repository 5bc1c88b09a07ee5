// SPDX-License-Identifier: GPL-3.0-or-later
// countBatchInChunks / countBatchByRegionInChunks (tpacf/chunked_count.h) over the CPU backend:
// the chunked counts equal the unchunked ones of the same backend (integers exactly, weighted
// sums to 1e-12 relative) for auto, cross, a survey batch with shared catalogs, weights on one or
// both sides, region counts, shares, tiny budgets and small θ_max where piece pairs are skipped;
// and a double loop written here for one small case. Every sub-batch stays within the budget,
// the pieces are exact copies that partition each catalog, consecutive sub-batches share
// pieces; a batch that fits is one call; cancel between sub-batches; bad budgets are refused.
#include "tpacf/chunked_count.h"

#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::ChunkReport;
using tpacf::CountControl;
using tpacf::CountProgress;
using tpacf::CountTask;
using tpacf::CpuPairCounter;
using tpacf::RegionPairCounts;
using tpacf::TaskCounts;
using tpacf::WorkShare;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kRegions = 5;

// Weights in [0.5, 2) and regions (RA stripes) where asked.
void decorate(std::mt19937_64& rng, const std::vector<double>& ra, bool weighted,
              std::vector<double>& weight, std::vector<std::int32_t>& region) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (double r : ra) {
        if (weighted)
            weight.push_back(0.5 + 1.5 * unit(rng));
        region.push_back(std::min(kRegions - 1, int(r / (2 * kPi) * kRegions)));
    }
}

// Uniform on the whole sphere.
Catalog uniformSky(std::size_t n, std::uint64_t seed, bool weighted = false) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n), weight;
    std::vector<std::int32_t> region;
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 2 * kPi * unit(rng);
        dec[i] = std::asin(2 * unit(rng) - 1);
    }
    decorate(rng, ra, weighted, weight, region);
    return Catalog::fromRadians("sky" + std::to_string(seed), std::move(ra), std::move(dec),
                                std::move(weight), std::move(region));
}

// A 40° x 40° patch (RA 340–20° across RA = 0, Dec −10–30°), half of it in 8 tight clumps.
Catalog clustered(std::size_t n, std::uint64_t seed, bool weighted = false) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> clump(0.0, 0.3);
    const double deg = kPi / 180;
    std::vector<double> centreRa(8), centreDec(8);
    for (int c = 0; c < 8; ++c) {
        centreRa[c] = -15 + 30 * unit(rng);
        centreDec[c] = -5 + 30 * unit(rng);
    }
    std::vector<double> ra(n), dec(n), weight;
    std::vector<std::int32_t> region;
    for (std::size_t i = 0; i < n; ++i) {
        double r = -20 + 40 * unit(rng), d = -10 + 40 * unit(rng);
        if (i % 2 == 0) {
            const std::size_t c = rng() % 8;
            r = centreRa[c] + clump(rng);
            d = centreDec[c] + clump(rng);
        }
        ra[i] = std::fmod(r + 360.0, 360.0) * deg;
        dec[i] = d * deg;
    }
    decorate(rng, ra, weighted, weight, region);
    return Catalog::fromRadians("clumps" + std::to_string(seed), std::move(ra), std::move(dec),
                                std::move(weight), std::move(region));
}

// Points along the equator over RA 0–1° (Dec within ±0.001°): the k-d tree cuts it into
// segments, so piece pairs a few segments apart lie just within or beyond a bin's reach.
Catalog line(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n);
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = unit(rng) * kPi / 180;
        dec[i] = (2 * unit(rng) - 1) * 0.001 * kPi / 180;
    }
    return Catalog::fromRadians("line" + std::to_string(seed), std::move(ra), std::move(dec));
}

Binning binsNamed(const QString& name) {
    // 1′–12.6′: the line's pieces are about 6′ long, so pieces 3 apart (gap about 12′) are just
    // within reach and hold pairs in the last bin; 4 apart are skipped.
    if (name == QLatin1String("line"))
        return Binning(BinSpec::logCount(1.0, 12.6, AngleUnit::Arcminute, 6));
    if (name == QLatin1String("full"))
        return Binning(BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 18));
    if (name == QLatin1String("small"))
        return Binning(BinSpec::logCount(0.5, 30.0, AngleUnit::Arcminute, 8));
    return Binning(BinSpec::logCount(0.5, 600.0, AngleUnit::Arcminute, 12)); // 0.5′–10°
}

// The catalogs and tasks of one kind of batch.
struct Batch {
    std::vector<std::unique_ptr<Catalog>> catalogs;
    std::vector<CountTask> tasks;

    const Catalog* add(Catalog catalog) {
        catalogs.push_back(std::make_unique<Catalog>(std::move(catalog)));
        return catalogs.back().get();
    }
    std::uint64_t pairTotal() const {
        std::uint64_t total = 0;
        for (const CountTask& task : tasks)
            total += task.pairTotal();
        return total;
    }
};

Batch batchNamed(const QString& kind) {
    Batch batch;
    if (kind == QLatin1String("auto")) {
        const Catalog* d = batch.add(uniformSky(3000, 1));
        batch.tasks = {{d, nullptr}};
    } else if (kind == QLatin1String("cross")) {
        const Catalog* d = batch.add(uniformSky(2600, 2));
        const Catalog* c = batch.add(clustered(2100, 3));
        batch.tasks = {{d, c}};
    } else if (kind == QLatin1String("cross with itself")) {
        const Catalog* d = batch.add(clustered(2000, 4));
        batch.tasks = {{d, d}};
    } else if (kind == QLatin1String("survey")) {
        // DD, DR1, DR2, R1R1, R2R2: D and the randoms each used by several tasks.
        const Catalog* d = batch.add(clustered(2000, 5));
        const Catalog* r1 = batch.add(clustered(3000, 6));
        const Catalog* r2 = batch.add(uniformSky(2600, 7));
        batch.tasks = {{d, nullptr}, {d, r1}, {d, r2}, {r1, nullptr}, {r2, nullptr}};
    } else if (kind == QLatin1String("line")) {
        const Catalog* d = batch.add(line(2000, 12));
        const Catalog* r = batch.add(line(2000, 13));
        batch.tasks = {{d, nullptr}, {d, r}};
    } else if (kind == QLatin1String("weighted one")) {
        const Catalog* d = batch.add(clustered(2200, 8, true));
        const Catalog* r = batch.add(clustered(2500, 9));
        batch.tasks = {{d, nullptr}, {d, r}, {r, d}, {r, nullptr}};
    } else if (kind == QLatin1String("weighted both")) {
        const Catalog* d = batch.add(clustered(2200, 10, true));
        const Catalog* r = batch.add(uniformSky(2500, 11, true));
        batch.tasks = {{d, nullptr}, {d, r}, {r, nullptr}};
    }
    return batch;
}

// The sub-batch counter: the CPU backend, each call checked against the budget and recorded.
struct Recorder {
    CpuPairCounter counter{2};
    std::uint64_t budget = 0;
    int calls = 0;
    std::uint64_t mostPoints = 0;
    // Names of each call's catalogs, and every piece seen (by name) with its points.
    std::vector<std::set<std::string>> callCatalogs;
    std::map<std::string,
             std::vector<std::tuple<double, double, double, double, double, double, int>>>
        pieces;
    bool keepPieces = false;

    void record(std::span<const CountTask> tasks) {
        ++calls;
        mostPoints = std::max(mostPoints, tpacf::distinctPoints(tasks));
        std::set<std::string> names;
        for (const CountTask& task : tasks)
            for (const Catalog* c : {task.first, task.second}) {
                if (!c)
                    continue;
                names.insert(c->name());
                if (keepPieces && !pieces.count(c->name())) {
                    auto& points = pieces[c->name()];
                    for (std::size_t i = 0; i < c->size(); ++i)
                        points.emplace_back(c->ra()[i], c->dec()[i], c->x()[i], c->y()[i],
                                            c->z()[i], c->hasWeights() ? c->weight()[i] : -1.0,
                                            c->region()[i]);
                }
            }
        callCatalogs.push_back(std::move(names));
    }
    tpacf::SubBatchCount plain() {
        return [this](std::span<const CountTask> tasks, const Binning& binning,
                      const CountControl& control) {
            record(tasks);
            return counter.countBatch(tasks, binning, control);
        };
    }
    tpacf::SubBatchRegionCount byRegion() {
        return [this](std::span<const CountTask> tasks, const Binning& binning, std::size_t regions,
                      const CountControl& control) {
            record(tasks);
            return counter.countBatchByRegion(tasks, binning, regions, control);
        };
    }
};

bool closeEnough(double a, double b) {
    return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)) + 1e-300;
}

void compareWeighted(const std::vector<double>& chunked, const std::vector<double>& whole) {
    QCOMPARE(chunked.size(), whole.size());
    for (std::size_t k = 0; k < whole.size(); ++k)
        QVERIFY2(closeEnough(chunked[k], whole[k]),
                 qPrintable(QStringLiteral("weighted sum %1: %2 chunked, %3 whole")
                                .arg(k)
                                .arg(chunked[k], 0, 'g', 17)
                                .arg(whole[k], 0, 'g', 17)));
}

void compareCounts(const std::vector<TaskCounts>& chunked, const std::vector<TaskCounts>& whole,
                   std::span<const CountTask> tasks) {
    QCOMPARE(chunked.size(), whole.size());
    for (std::size_t t = 0; t < whole.size(); ++t) {
        QCOMPARE(chunked[t].raw, whole[t].raw);
        QCOMPARE(chunked[t].isWeighted(), tasks[t].weighted());
        compareWeighted(chunked[t].weighted, whole[t].weighted);
    }
}

void compareRegions(const std::vector<RegionPairCounts>& chunked,
                    const std::vector<RegionPairCounts>& whole, std::span<const CountTask> tasks) {
    QCOMPARE(chunked.size(), whole.size());
    for (std::size_t t = 0; t < whole.size(); ++t) {
        QCOMPARE(chunked[t].regionCount, whole[t].regionCount);
        QCOMPARE(chunked[t].binCount, whole[t].binCount);
        QCOMPARE(chunked[t].total, whole[t].total);
        QCOMPARE(chunked[t].touching, whole[t].touching);
        QCOMPARE(chunked[t].within, whole[t].within);
        QCOMPARE(chunked[t].isWeighted(), tasks[t].weighted());
        compareWeighted(chunked[t].weightedTotal, whole[t].weightedTotal);
        compareWeighted(chunked[t].weightedTouching, whole[t].weightedTouching);
        compareWeighted(chunked[t].weightedWithin, whole[t].weightedWithin);
    }
}

template <class T> void addInto(std::vector<T>& sum, const std::vector<T>& part) {
    for (std::size_t k = 0; k < part.size(); ++k)
        sum[k] += part[k];
}

// Every pair binned with the contract's arithmetic.
std::vector<std::uint64_t> naiveCounts(const CountTask& task, const Binning& binning) {
    std::vector<std::uint64_t> counts(binning.count(), 0);
    const Catalog& a = *task.first;
    const Catalog& b = task.second ? *task.second : a;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = task.isAuto() ? i + 1 : 0; j < b.size(); ++j) {
            const double dx = a.x()[i] - b.x()[j];
            const double dy = a.y()[i] - b.y()[j];
            const double dz = a.z()[i] - b.z()[j];
            if (const int bin = binning.binOfChord2(dx * dx + dy * dy + dz * dz); bin >= 0)
                ++counts[std::size_t(bin)];
        }
    return counts;
}

} // namespace

class TestChunkedCount : public QObject {
    Q_OBJECT

private slots:
    void matchesUnchunked_data();
    void matchesUnchunked();
    void regionsMatchUnchunked_data();
    void regionsMatchUnchunked();
    void piecesPartitionEachCatalog();
    void consecutiveSubBatchesSharePieces_data();
    void consecutiveSubBatchesSharePieces();
    void smallReachSkipsPiecePairs_data();
    void smallReachSkipsPiecePairs();
    void sharesAddUpToTheWhole_data();
    void sharesAddUpToTheWhole();
    void progressFollowsTheOriginalTasks();
    void equalsDoubleLoop();
    void batchThatFitsIsOneCall();
    void cancelsBetweenSubBatches();
    void badBudgetIsConfigError_data();
    void badBudgetIsConfigError();
    void wrongShapeFromCounterIsError();
};

void TestChunkedCount::matchesUnchunked_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<int>("budget");
    for (const char* kind :
         {"auto", "cross", "cross with itself", "survey", "weighted one", "weighted both"})
        for (const char* bins : {"mid", "full"})
            // 400: pieces of 200, 10–15 a catalog; 1001: pieces of 500; 0 stands for one point
            // short of the batch: a few large pieces, or whole catalogs that do not fit together.
            for (int budget : {400, 1001, 0})
                QTest::addRow("%s, %s bins, budget %d", kind, bins, budget)
                    << QString::fromLatin1(kind) << QString::fromLatin1(bins) << budget;
}

void TestChunkedCount::matchesUnchunked() {
    QFETCH(QString, kind);
    QFETCH(QString, bins);
    QFETCH(int, budget);
    const Batch batch = batchNamed(kind);
    const Binning binning = binsNamed(bins);
    if (budget == 0)
        budget = int(tpacf::distinctPoints(batch.tasks)) - 1;

    CpuPairCounter reference(2);
    const std::vector<TaskCounts> whole = reference.countBatch(batch.tasks, binning);
    Recorder recorder;
    ChunkReport report;
    const std::vector<TaskCounts> chunked = tpacf::countBatchInChunks(
        batch.tasks, binning, {}, std::uint64_t(budget), recorder.plain(), &report);
    compareCounts(chunked, whole, batch.tasks);

    QVERIFY(recorder.mostPoints <= std::uint64_t(budget));
    QCOMPARE(std::size_t(recorder.calls), report.subBatches);
    QVERIFY(report.pieces > batch.catalogs.size() || report.subBatches > 1);
    if (budget == 400)
        for (const auto& catalog : batch.catalogs)
            QVERIFY(catalog->size() / 200 >= 8); // every catalog in >= 8 pieces
    if (bins == QLatin1String("full"))
        QCOMPARE(report.piecePairsSkipped, std::size_t(0)); // everything is within 180°
}

void TestChunkedCount::regionsMatchUnchunked_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<int>("budget");
    for (const char* kind : {"auto", "cross", "survey", "weighted one", "weighted both"})
        for (const char* bins : {"mid", "small"})
            for (int budget : {400, 1001})
                QTest::addRow("%s, %s bins, budget %d", kind, bins, budget)
                    << QString::fromLatin1(kind) << QString::fromLatin1(bins) << budget;
}

void TestChunkedCount::regionsMatchUnchunked() {
    QFETCH(QString, kind);
    QFETCH(QString, bins);
    QFETCH(int, budget);
    const Batch batch = batchNamed(kind);
    const Binning binning = binsNamed(bins);
    CpuPairCounter reference(2);
    const std::vector<RegionPairCounts> whole =
        reference.countBatchByRegion(batch.tasks, binning, kRegions);
    Recorder recorder;
    ChunkReport report;
    const std::vector<RegionPairCounts> chunked = tpacf::countBatchByRegionInChunks(
        batch.tasks, binning, kRegions, {}, std::uint64_t(budget), recorder.byRegion(), &report);
    compareRegions(chunked, whole, batch.tasks);
    QVERIFY(recorder.mostPoints <= std::uint64_t(budget));
    QVERIFY(report.subBatches > 1);
}

// Every point of every catalog is in exactly one piece, copied exactly (ra, dec, unit vector,
// weight, region); no piece holds more than half the budget.
void TestChunkedCount::piecesPartitionEachCatalog() {
    const Batch batch = batchNamed(QStringLiteral("weighted one"));
    const Binning binning = binsNamed(QStringLiteral("full"));
    constexpr std::uint64_t kBudget = 700;
    Recorder recorder;
    recorder.keepPieces = true;
    tpacf::countBatchInChunks(batch.tasks, binning, {}, kBudget, recorder.plain());
    for (const auto& catalog : batch.catalogs) {
        std::vector<std::tuple<double, double, double, double, double, double, int>> original,
            fromPieces;
        for (std::size_t i = 0; i < catalog->size(); ++i)
            original.emplace_back(catalog->ra()[i], catalog->dec()[i], catalog->x()[i],
                                  catalog->y()[i], catalog->z()[i],
                                  catalog->hasWeights() ? catalog->weight()[i] : -1.0,
                                  catalog->region()[i]);
        const std::string prefix = catalog->name() + " [piece ";
        int pieceCount = 0;
        for (const auto& [name, points] : recorder.pieces)
            if (name.rfind(prefix, 0) == 0) {
                ++pieceCount;
                QVERIFY(points.size() <= kBudget / 2);
                fromPieces.insert(fromPieces.end(), points.begin(), points.end());
            }
        QCOMPARE(pieceCount, int((catalog->size() + kBudget / 2 - 1) / (kBudget / 2)));
        std::sort(original.begin(), original.end());
        std::sort(fromPieces.begin(), fromPieces.end());
        QVERIFY(original == fromPieces);
    }
}

void TestChunkedCount::consecutiveSubBatchesSharePieces_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("pieces");
    QTest::addColumn<int>("subBatches");
    // Room for two pieces: one sub-batch per piece pair, autos riding along.
    QTest::newRow("auto") << QStringLiteral("auto") << 15 << 15 * 14 / 2;
    // D (11 pieces) and R (13): DD, DR and RD (the same piece pairs), RR.
    QTest::newRow("weighted one") << QStringLiteral("weighted one") << 24 << 24 * 23 / 2;
}

// With room for two pieces, each sub-batch is one piece pair, none is counted twice (DR and RD
// of one pair ride together), and the snake order loads about one new piece per sub-batch (it
// keeps one of the one before), not two.
void TestChunkedCount::consecutiveSubBatchesSharePieces() {
    QFETCH(QString, kind);
    QFETCH(int, pieces);
    QFETCH(int, subBatches);
    const Batch batch = batchNamed(kind);
    const Binning binning = binsNamed(QStringLiteral("full"));
    Recorder recorder;
    ChunkReport report;
    tpacf::countBatchInChunks(batch.tasks, binning, {}, 400, recorder.plain(), &report);
    QCOMPARE(report.pieces, std::size_t(pieces));
    QCOMPARE(report.subBatches, std::size_t(subBatches));
    const std::set<std::set<std::string>> distinct(recorder.callCatalogs.begin(),
                                                   recorder.callCatalogs.end());
    QCOMPARE(distinct.size(), recorder.callCatalogs.size());
    std::size_t loads = 0;
    for (std::size_t k = 0; k < recorder.callCatalogs.size(); ++k)
        for (const std::string& name : recorder.callCatalogs[k])
            if (k == 0 || !recorder.callCatalogs[k - 1].count(name))
                ++loads;
    QVERIFY2(loads <= report.subBatches + 1, qPrintable(QString::number(loads)));
}

void TestChunkedCount::smallReachSkipsPiecePairs_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("bins");
    for (const char* kind : {"auto", "cross", "survey", "weighted both"})
        QTest::newRow(kind) << QString::fromLatin1(kind) << QStringLiteral("small");
    QTest::newRow("line") << QStringLiteral("line") << QStringLiteral("line");
}

// At θ_max = 30′ (the line: 12.6′) most piece pairs are out of reach and skipped; the counts stay
// the same, in the largest bin (the line has pairs just within reach of skipped neighbours) and
// in the smallest (pairs below the first edge do not make a piece pair skippable).
void TestChunkedCount::smallReachSkipsPiecePairs() {
    QFETCH(QString, kind);
    QFETCH(QString, bins);
    const Batch batch = batchNamed(kind);
    const Binning binning = binsNamed(bins);
    CpuPairCounter reference(2);
    const std::vector<TaskCounts> whole = reference.countBatch(batch.tasks, binning);
    Recorder recorder;
    ChunkReport report;
    const std::vector<TaskCounts> chunked =
        tpacf::countBatchInChunks(batch.tasks, binning, {}, 400, recorder.plain(), &report);
    compareCounts(chunked, whole, batch.tasks);
    QVERIFY(report.piecePairsSkipped > 0);
    QVERIFY(report.subTasks > 0);
    std::uint64_t counted = 0;
    for (const TaskCounts& counts : whole)
        for (std::uint64_t c : counts.raw)
            counted += c;
    QVERIFY(counted > 0); // the comparison has pairs to lose
}

void TestChunkedCount::sharesAddUpToTheWhole_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<int>("parts");
    for (const char* kind : {"survey", "weighted one"})
        for (const char* bins : {"mid", "small"})
            for (int parts : {2, 3})
                QTest::addRow("%s, %s bins, %d parts", kind, bins, parts)
                    << QString::fromLatin1(kind) << QString::fromLatin1(bins) << parts;
}

// The shares of a chunked count, plain and by region, add up to the unchunked whole; each
// share's progress ends at its total and the totals add up to the batch's pairs.
void TestChunkedCount::sharesAddUpToTheWhole() {
    QFETCH(QString, kind);
    QFETCH(QString, bins);
    QFETCH(int, parts);
    const Batch batch = batchNamed(kind);
    const Binning binning = binsNamed(bins);
    CpuPairCounter reference(2);
    const std::vector<TaskCounts> whole = reference.countBatch(batch.tasks, binning);
    const std::vector<RegionPairCounts> wholeRegions =
        reference.countBatchByRegion(batch.tasks, binning, kRegions);

    std::vector<TaskCounts> sum;
    std::vector<RegionPairCounts> regionSum;
    std::uint64_t totalOfShares = 0;
    for (int part = 0; part < parts; ++part) {
        CountProgress last;
        CountControl control;
        control.share = {std::uint32_t(part), std::uint32_t(parts)};
        control.onProgress = [&](const CountProgress& progress) { last = progress; };
        Recorder recorder;
        const auto counts =
            tpacf::countBatchInChunks(batch.tasks, binning, control, 1001, recorder.plain());
        QCOMPARE(last.pairsDone, last.pairsTotal);
        totalOfShares += last.pairsTotal;
        const auto regions = tpacf::countBatchByRegionInChunks(batch.tasks, binning, kRegions,
                                                               control, 1001, recorder.byRegion());
        if (sum.empty()) {
            sum = counts;
            regionSum = regions;
            continue;
        }
        for (std::size_t t = 0; t < counts.size(); ++t) {
            addInto(sum[t].raw, counts[t].raw);
            addInto(sum[t].weighted, counts[t].weighted);
            RegionPairCounts& r = regionSum[t];
            addInto(r.total, regions[t].total);
            addInto(r.touching, regions[t].touching);
            addInto(r.within, regions[t].within);
            addInto(r.weightedTotal, regions[t].weightedTotal);
            addInto(r.weightedTouching, regions[t].weightedTouching);
            addInto(r.weightedWithin, regions[t].weightedWithin);
        }
    }
    compareCounts(sum, whole, batch.tasks);
    compareRegions(regionSum, wholeRegions, batch.tasks);
    QCOMPARE(totalOfShares, batch.pairTotal());
}

// The whole batch: pairsTotal is the batch's pairs throughout, pairs done never go back, each
// task ends at its own pairs, and no partial counts are claimed.
void TestChunkedCount::progressFollowsTheOriginalTasks() {
    const Batch batch = batchNamed(QStringLiteral("survey"));
    const Binning binning = binsNamed(QStringLiteral("small"));
    std::vector<CountProgress> seen;
    CountControl control;
    control.onProgress = [&](const CountProgress& progress) { seen.push_back(progress); };
    Recorder recorder;
    ChunkReport report;
    tpacf::countBatchInChunks(batch.tasks, binning, control, 1001, recorder.plain(), &report);
    QVERIFY(report.piecePairsSkipped > 0);
    QVERIFY(seen.size() > report.subBatches);
    std::uint64_t lastDone = 0;
    for (const CountProgress& progress : seen) {
        QCOMPARE(progress.pairsTotal, batch.pairTotal());
        QCOMPARE(progress.pairsDonePerTask.size(), batch.tasks.size());
        QVERIFY(progress.partialCounts.empty());
        QVERIFY(!progress.partialsEvenlySpread);
        QCOMPARE(progress.workTotal, 0.0);
        QVERIFY(progress.pairsDone >= lastDone);
        QVERIFY(progress.pairsDone <= progress.pairsTotal);
        lastDone = progress.pairsDone;
    }
    QVERIFY(seen.front().preparing);
    QVERIFY(!seen.back().preparing);
    // Skipped pairs (most of them at 30′) are credited as the counted ones are done, not at
    // once: the pace follows the work.
    const auto started =
        std::find_if(seen.begin(), seen.end(), [](const CountProgress& p) { return !p.preparing; });
    QVERIFY(started != seen.end());
    QCOMPARE(started->pairsDone, std::uint64_t(0));
    for (std::size_t t = 0; t < batch.tasks.size(); ++t)
        QCOMPARE(seen.back().pairsDonePerTask[t], batch.tasks[t].pairTotal());
}

// The anchor: chunked counts (plain and by region) equal every pair binned here.
void TestChunkedCount::equalsDoubleLoop() {
    Batch batch;
    const Catalog* d = batch.add(clustered(300, 21, true));
    const Catalog* r = batch.add(uniformSky(260, 22));
    batch.tasks = {{d, nullptr}, {d, r}, {r, nullptr}};
    const Binning binning = binsNamed(QStringLiteral("mid"));
    Recorder recorder;
    const auto chunked = tpacf::countBatchInChunks(batch.tasks, binning, {}, 100, recorder.plain());
    const auto regions = tpacf::countBatchByRegionInChunks(batch.tasks, binning, kRegions, {}, 100,
                                                           recorder.byRegion());
    for (std::size_t t = 0; t < batch.tasks.size(); ++t) {
        const std::vector<std::uint64_t> naive = naiveCounts(batch.tasks[t], binning);
        QCOMPARE(chunked[t].raw, naive);
        QCOMPARE(regions[t].total, naive);
    }
}

// A batch within the budget is one call with the tasks and control as given.
void TestChunkedCount::batchThatFitsIsOneCall() {
    const Batch batch = batchNamed(QStringLiteral("survey"));
    const Binning binning = binsNamed(QStringLiteral("mid"));
    const std::uint64_t budget = tpacf::distinctPoints(batch.tasks);
    QCOMPARE(budget, std::uint64_t(2000 + 3000 + 2600)); // shared catalogs count once
    CpuPairCounter counter(2);
    int calls = 0;
    CountControl control;
    control.share = {1, 2};
    const auto count = [&](std::span<const CountTask> tasks, const Binning& b,
                           const CountControl& c) {
        ++calls;
        [&] {
            QCOMPARE(tasks.data(), batch.tasks.data());
            QCOMPARE(tasks.size(), batch.tasks.size());
            QCOMPARE(c.share.part, 1u);
            QCOMPARE(c.share.parts, 2u);
        }();
        return counter.countBatch(tasks, b, c);
    };
    ChunkReport report;
    const auto chunked =
        tpacf::countBatchInChunks(batch.tasks, binning, control, budget, count, &report);
    QCOMPARE(calls, 1);
    QCOMPARE(report.subBatches, std::size_t(1));
    QCOMPARE(report.piecePairsSkipped, std::size_t(0));
    compareCounts(chunked, counter.countBatch(batch.tasks, binning, control), batch.tasks);
    // One point less and it is cut.
    calls = 0;
    Recorder recorder;
    tpacf::countBatchInChunks(batch.tasks, binning, control, budget - 1, recorder.plain(), &report);
    QVERIFY(recorder.calls > 1);
}

// The cancel token raised after a sub-batch stops the count before the next one.
void TestChunkedCount::cancelsBetweenSubBatches() {
    const Batch batch = batchNamed(QStringLiteral("survey"));
    const Binning binning = binsNamed(QStringLiteral("mid"));
    std::atomic<bool> cancel{false};
    CountControl control;
    control.cancelRequested = &cancel;
    CpuPairCounter counter(2);
    int calls = 0;
    // The backend is not shown the token, so only the chunked loop can stop the count.
    const auto count = [&](std::span<const CountTask> tasks, const Binning& b,
                           const CountControl& c) {
        if (c.cancelRequested != &cancel)
            throw std::logic_error("the cancel token was not passed on");
        if (++calls == 3)
            cancel = true;
        return counter.countBatch(tasks, b, {});
    };
    QVERIFY_THROWS_EXCEPTION(tpacf::Cancelled,
                             tpacf::countBatchInChunks(batch.tasks, binning, control, 1001, count));
    QCOMPARE(calls, 3);
    // Raised before the count: nothing is counted.
    calls = 0;
    QVERIFY_THROWS_EXCEPTION(tpacf::Cancelled,
                             tpacf::countBatchInChunks(batch.tasks, binning, control, 1001, count));
    QCOMPARE(calls, 0);
}

void TestChunkedCount::badBudgetIsConfigError_data() {
    QTest::addColumn<qulonglong>("budget");
    QTest::newRow("0 points") << 0ULL;
    QTest::newRow("1 point") << 1ULL;
    QTest::newRow("2 points: 5000 pieces of 1 point") << 2ULL;
}

void TestChunkedCount::badBudgetIsConfigError() {
    QFETCH(qulonglong, budget);
    Batch batch;
    const Catalog* d = batch.add(uniformSky(5000, 31));
    batch.tasks = {{d, nullptr}};
    const Binning binning = binsNamed(QStringLiteral("mid"));
    Recorder recorder;
    QVERIFY_THROWS_EXCEPTION(
        tpacf::ConfigError,
        tpacf::countBatchInChunks(batch.tasks, binning, {}, budget, recorder.plain()));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             tpacf::countBatchByRegionInChunks(batch.tasks, binning, kRegions, {},
                                                               budget, recorder.byRegion()));
    QCOMPARE(recorder.calls, 0);
    // Neither a task without a catalog nor a missing counter is counted.
    const std::vector<CountTask> noCatalog{{nullptr, nullptr}};
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::countBatchInChunks(noCatalog, binning, {},
                                                                           1000, recorder.plain()));
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             tpacf::countBatchInChunks(batch.tasks, binning, {}, 1000, {}));
}

// A counter that returns counts of another shape than asked for is an error, not a sum.
void TestChunkedCount::wrongShapeFromCounterIsError() {
    const Batch batch = batchNamed(QStringLiteral("auto"));
    const Binning binning = binsNamed(QStringLiteral("mid"));
    const auto tooFew = [](std::span<const CountTask> tasks, const Binning&, const CountControl&) {
        return std::vector<TaskCounts>(tasks.size() - 1, TaskCounts{{}, {}});
    };
    QVERIFY_THROWS_EXCEPTION(tpacf::Error,
                             tpacf::countBatchInChunks(batch.tasks, binning, {}, 1001, tooFew));
    const auto shortRows = [](std::span<const CountTask> tasks, const Binning& b,
                              const CountControl&) {
        return std::vector<TaskCounts>(tasks.size(),
                                       TaskCounts{std::vector<std::uint64_t>(b.count() - 1), {}});
    };
    QVERIFY_THROWS_EXCEPTION(tpacf::Error,
                             tpacf::countBatchInChunks(batch.tasks, binning, {}, 1001, shortRows));
}

TPACF_TEST_MAIN(TestChunkedCount)
#include "test_chunked_count.moc"
