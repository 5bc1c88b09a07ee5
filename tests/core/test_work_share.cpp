// SPDX-License-Identifier: GPL-3.0-or-later
// Work shares (CountControl::share, part k of n of a batch's work list) in the CPU backend: the
// n shares of a batch, counted separately (on different thread counts, as different processes
// would), add up bin by bin to the whole batch exactly, plain and by region, brute force and
// culled; each share's progress ends at its own total and the totals add up to the batch's; the
// whole batch equals a double loop written here; an invalid share is a ConfigError.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::ConfigError;
using tpacf::CountControl;
using tpacf::CountProgress;
using tpacf::CountTask;
using tpacf::CpuPairCounter;
using tpacf::CullingMode;
using tpacf::PairCounts;
using tpacf::RegionPairCounts;
using tpacf::TaskCounts;
using tpacf::WorkShare;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A 30° x 30° box (RA 30–60°, Dec 10–40°) with half the points in a few tight clumps, so that
// culling has pairs to skip and cells to add whole; regions are RA stripes (0 without).
Catalog clumpedBox(std::size_t n, std::uint64_t seed, int regions) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double deg = kPi / 180;
    std::vector<double> ra(n), dec(n);
    std::vector<std::int32_t> region;
    for (std::size_t i = 0; i < n; ++i) {
        if (rng() % 2 == 0) {
            const double centre = 32.0 + 5.0 * static_cast<double>(rng() % 6);
            ra[i] = (centre + 0.3 * (2 * unit(rng) - 1)) * deg;
            dec[i] = (25.0 + 0.3 * (2 * unit(rng) - 1)) * deg;
        } else {
            ra[i] = (30.0 + 30.0 * unit(rng)) * deg;
            const double sinLow = std::sin(10.0 * deg), sinHigh = std::sin(40.0 * deg);
            dec[i] = std::asin(sinLow + (sinHigh - sinLow) * unit(rng));
        }
        if (regions > 0)
            region.push_back(std::min<std::int32_t>(
                regions - 1, static_cast<std::int32_t>((ra[i] / deg - 30.0) / 30.0 * regions)));
    }
    return Catalog::fromRadians("box" + std::to_string(seed), std::move(ra), std::move(dec), {},
                                std::move(region));
}

// D, R1, R2 of odd sizes and the batch DD, DR1, DR2, R1R1, R2R2.
struct Batch {
    std::vector<Catalog> catalogs;
    std::vector<CountTask> tasks;

    Batch(std::size_t n, int regions) {
        catalogs.push_back(clumpedBox(n, 11, regions));
        catalogs.push_back(clumpedBox(n + n / 5 + 2, 12, regions));
        catalogs.push_back(clumpedBox(n + n / 9 + 4, 13, regions));
        const Catalog* d = &catalogs[0];
        tasks = {{d, nullptr},
                 {d, &catalogs[1]},
                 {d, &catalogs[2]},
                 {&catalogs[1], nullptr},
                 {&catalogs[2], nullptr}};
    }
    std::uint64_t pairTotal() const {
        std::uint64_t total = 0;
        for (const CountTask& task : tasks)
            total += task.pairTotal();
        return total;
    }
};

Binning shareBins() {
    return Binning(BinSpec::logCount(0.5, 300.0, AngleUnit::Arcminute, 12));
}

// Every pair, binned with the contract's arithmetic: (dx² + dy²) + dz², each rounded.
int binOf(const Binning& binning, const Catalog& a, std::size_t i, const Catalog& b,
          std::size_t j) {
    const double dx = a.x()[i] - b.x()[j];
    const double dy = a.y()[i] - b.y()[j];
    const double dz = a.z()[i] - b.z()[j];
    return binning.binOfChord2(dx * dx + dy * dy + dz * dz);
}

PairCounts naiveCounts(const CountTask& task, const Binning& binning) {
    PairCounts counts(binning.count(), 0);
    const Catalog& a = *task.first;
    const Catalog& b = task.second ? *task.second : a;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = task.isAuto() ? i + 1 : 0; j < b.size(); ++j)
            if (const int bin = binOf(binning, a, i, b, j); bin >= 0)
                ++counts[std::size_t(bin)];
    return counts;
}

RegionPairCounts naiveRegionCounts(const CountTask& task, const Binning& binning,
                                   std::size_t regions) {
    const std::size_t bins = binning.count();
    RegionPairCounts counts{regions, bins, PairCounts(bins, 0),
                            std::vector<std::uint64_t>(regions * bins, 0),
                            std::vector<std::uint64_t>(regions * bins, 0)};
    const Catalog& a = *task.first;
    const Catalog& b = task.second ? *task.second : a;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = task.isAuto() ? i + 1 : 0; j < b.size(); ++j) {
            const int bin = binOf(binning, a, i, b, j);
            if (bin < 0)
                continue;
            const auto ra = std::size_t(a.region()[i]), rb = std::size_t(b.region()[j]);
            ++counts.total[std::size_t(bin)];
            ++counts.touching[ra * bins + std::size_t(bin)];
            if (rb != ra)
                ++counts.touching[rb * bins + std::size_t(bin)];
            else
                ++counts.within[ra * bins + std::size_t(bin)];
        }
    return counts;
}

void addInto(std::vector<std::uint64_t>& sum, const std::vector<std::uint64_t>& part) {
    if (sum.empty())
        sum.assign(part.size(), 0);
    QCOMPARE(sum.size(), part.size());
    for (std::size_t k = 0; k < part.size(); ++k)
        sum[k] += part[k];
}

// The last progress a count reported.
struct LastProgress {
    CountProgress last;
    int calls = 0;
    CountControl control(WorkShare share) {
        CountControl c;
        c.share = share;
        c.onProgress = [this](const CountProgress& progress) {
            last = progress;
            ++calls;
        };
        return c;
    }
};

CullingMode cullingNamed(const QString& name) {
    return name == QLatin1String("on") ? CullingMode::On : CullingMode::Off;
}

} // namespace

class TestWorkShare : public QObject {
    Q_OBJECT

private slots:
    void sharesAddUpToTheWhole_data();
    void sharesAddUpToTheWhole();
    void regionSharesAddUpToTheWhole_data();
    void regionSharesAddUpToTheWhole();
    void wholeEqualsDoubleLoop_data();
    void wholeEqualsDoubleLoop();
    void invalidShareIsConfigError_data();
    void invalidShareIsConfigError();
    void pathWithoutSharesRefusesParts();
};

namespace {

void addShareRows() {
    QTest::addColumn<int>("points");
    QTest::addColumn<QString>("culling");
    QTest::addColumn<int>("parts");
    // 1501 points: 2 tiles a side (brute force: 3 + 4 + 4 + 3 + 3 tiles); 37: one tile, few
    // culled runs, so 64 parts leave most shares empty; 4001: hundreds of culled runs.
    for (int points : {37, 1501, 4001})
        for (const QString& culling : {QStringLiteral("off"), QStringLiteral("on")})
            for (int parts : {1, 2, 3, 7, 64}) {
                const QByteArray name = QStringLiteral("N=%1 culling %2, %3 parts")
                                            .arg(points)
                                            .arg(culling)
                                            .arg(parts)
                                            .toLatin1();
                QTest::newRow(name.constData()) << points << culling << parts;
            }
}

// Whether every share must hold some counted pairs: the batch has enough units for the parts
// (a part 0 that took everything would also add up to the whole).
bool everyShareCounts(int points, int parts) {
    return points >= 1501 && parts <= 7;
}

std::uint64_t pairsIn(const std::vector<TaskCounts>& counts) {
    std::uint64_t pairs = 0;
    for (const TaskCounts& task : counts)
        for (std::uint64_t c : task.raw)
            pairs += c;
    return pairs;
}

// Part k runs on 1 + k % 3 threads: the work list must not depend on the thread count.
CpuPairCounter counterForPart(std::uint32_t part, CullingMode culling) {
    CpuPairCounter counter(1 + int(part % 3));
    counter.setCulling(culling);
    return counter;
}

} // namespace

void TestWorkShare::sharesAddUpToTheWhole_data() {
    addShareRows();
}

void TestWorkShare::sharesAddUpToTheWhole() {
    QFETCH(int, points);
    QFETCH(QString, culling);
    QFETCH(int, parts);
    const Batch batch(std::size_t(points), 0);
    const Binning binning = shareBins();
    const CullingMode mode = cullingNamed(culling);

    CpuPairCounter wholeCounter(2);
    wholeCounter.setCulling(mode);
    const std::vector<TaskCounts> whole = wholeCounter.countBatch(batch.tasks, binning);
    QCOMPARE(wholeCounter.lastBatchCulled(), mode == CullingMode::On);

    std::vector<std::vector<std::uint64_t>> sum(batch.tasks.size());
    std::uint64_t totalOfShares = 0;
    for (std::uint32_t part = 0; part < std::uint32_t(parts); ++part) {
        CpuPairCounter counter = counterForPart(part, mode);
        LastProgress progress;
        const auto counts = counter.countBatch(batch.tasks, binning,
                                               progress.control({part, std::uint32_t(parts)}));
        QCOMPARE(counts.size(), batch.tasks.size());
        for (std::size_t t = 0; t < counts.size(); ++t)
            addInto(sum[t], counts[t].raw);
        if (everyShareCounts(points, parts))
            QVERIFY2(pairsIn(counts) > 0, "a share of a large batch counted nothing");
        // The share's progress ends at the share's own total.
        QVERIFY(progress.calls > 0);
        QCOMPARE(progress.last.pairsDone, progress.last.pairsTotal);
        totalOfShares += progress.last.pairsTotal;
        // Brute force, the shares are balanced by pairs to within about a tile (1024² pairs).
        if (mode == CullingMode::Off)
            QVERIFY(progress.last.pairsTotal <=
                    2 * batch.pairTotal() / std::uint64_t(parts) + (std::uint64_t{1} << 20));
    }
    for (std::size_t t = 0; t < whole.size(); ++t)
        QCOMPARE(sum[t], whole[t].raw);
    QCOMPARE(totalOfShares, batch.pairTotal());
}

void TestWorkShare::regionSharesAddUpToTheWhole_data() {
    addShareRows();
}

void TestWorkShare::regionSharesAddUpToTheWhole() {
    QFETCH(int, points);
    QFETCH(QString, culling);
    QFETCH(int, parts);
    constexpr int kRegions = 5;
    const Batch batch(std::size_t(points), kRegions);
    const Binning binning = shareBins();
    const CullingMode mode = cullingNamed(culling);

    CpuPairCounter wholeCounter(2);
    wholeCounter.setCulling(mode);
    const std::vector<RegionPairCounts> whole =
        wholeCounter.countBatchByRegion(batch.tasks, binning, kRegions);
    QCOMPARE(wholeCounter.lastBatchCulled(), mode == CullingMode::On);

    const std::size_t tasks = batch.tasks.size();
    std::vector<std::vector<std::uint64_t>> total(tasks), touching(tasks), within(tasks);
    std::uint64_t totalOfShares = 0;
    for (std::uint32_t part = 0; part < std::uint32_t(parts); ++part) {
        CpuPairCounter counter = counterForPart(part, mode);
        LastProgress progress;
        const auto counts = counter.countBatchByRegion(
            batch.tasks, binning, kRegions, progress.control({part, std::uint32_t(parts)}));
        QCOMPARE(counts.size(), tasks);
        std::uint64_t pairsInShare = 0;
        for (std::size_t t = 0; t < tasks; ++t)
            for (std::uint64_t c : counts[t].total)
                pairsInShare += c;
        if (everyShareCounts(points, parts))
            QVERIFY2(pairsInShare > 0, "a share of a large batch counted nothing");
        for (std::size_t t = 0; t < tasks; ++t) {
            addInto(total[t], counts[t].total);
            addInto(touching[t], counts[t].touching);
            addInto(within[t], counts[t].within);
        }
        QCOMPARE(progress.last.pairsDone, progress.last.pairsTotal);
        totalOfShares += progress.last.pairsTotal;
    }
    for (std::size_t t = 0; t < tasks; ++t) {
        QCOMPARE(total[t], whole[t].total);
        QCOMPARE(touching[t], whole[t].touching);
        QCOMPARE(within[t], whole[t].within);
    }
    QCOMPARE(totalOfShares, batch.pairTotal());
}

void TestWorkShare::wholeEqualsDoubleLoop_data() {
    QTest::addColumn<QString>("culling");
    QTest::addColumn<int>("parts");
    for (const char* culling : {"off", "on"})
        for (int parts : {1, 3})
            QTest::addRow("culling %s, %d parts", culling, parts)
                << QString::fromLatin1(culling) << parts;
}

// The shares' sum (the whole when one part) against every pair binned here, plain and by
// region: the anchor that makes "adds up to the whole" mean "adds up to the right counts".
void TestWorkShare::wholeEqualsDoubleLoop() {
    QFETCH(QString, culling);
    QFETCH(int, parts);
    constexpr int kRegions = 4;
    const Batch batch(1201, kRegions);
    const Binning binning = shareBins();
    const CullingMode mode = cullingNamed(culling);
    const std::size_t tasks = batch.tasks.size();

    std::vector<std::vector<std::uint64_t>> plain(tasks), total(tasks), touching(tasks),
        within(tasks);
    for (std::uint32_t part = 0; part < std::uint32_t(parts); ++part) {
        CpuPairCounter counter = counterForPart(part, mode);
        CountControl control;
        control.share = {part, std::uint32_t(parts)};
        const auto counts = counter.countBatch(batch.tasks, binning, control);
        const auto regionCounts =
            counter.countBatchByRegion(batch.tasks, binning, kRegions, control);
        for (std::size_t t = 0; t < tasks; ++t) {
            addInto(plain[t], counts[t].raw);
            addInto(total[t], regionCounts[t].total);
            addInto(touching[t], regionCounts[t].touching);
            addInto(within[t], regionCounts[t].within);
        }
    }
    for (std::size_t t = 0; t < tasks; ++t) {
        const RegionPairCounts naive = naiveRegionCounts(batch.tasks[t], binning, kRegions);
        QCOMPARE(naive.total, naiveCounts(batch.tasks[t], binning));
        QCOMPARE(plain[t], naive.total);
        QCOMPARE(total[t], naive.total);
        QCOMPARE(touching[t], naive.touching);
        QCOMPARE(within[t], naive.within);
    }
}

void TestWorkShare::invalidShareIsConfigError_data() {
    QTest::addColumn<QString>("culling");
    QTest::addColumn<int>("part");
    QTest::addColumn<int>("parts");
    for (const char* culling : {"off", "on"}) {
        QTest::addRow("culling %s, 0 parts", culling) << QString::fromLatin1(culling) << 0 << 0;
        QTest::addRow("culling %s, part 1 of 1", culling) << QString::fromLatin1(culling) << 1 << 1;
        QTest::addRow("culling %s, part 3 of 3", culling) << QString::fromLatin1(culling) << 3 << 3;
        QTest::addRow("culling %s, part 9 of 2", culling) << QString::fromLatin1(culling) << 9 << 2;
    }
}

void TestWorkShare::invalidShareIsConfigError() {
    QFETCH(QString, culling);
    QFETCH(int, part);
    QFETCH(int, parts);
    const Batch batch(301, 3);
    const Binning binning = shareBins();
    CpuPairCounter counter(2);
    counter.setCulling(cullingNamed(culling));
    CountControl control;
    control.share = {std::uint32_t(part), std::uint32_t(parts)};
    QVERIFY_THROWS_EXCEPTION(ConfigError, counter.countBatch(batch.tasks, binning, control));
    QVERIFY_THROWS_EXCEPTION(ConfigError,
                             counter.countBatchByRegion(batch.tasks, binning, 3, control));
    QVERIFY_THROWS_EXCEPTION(ConfigError, counter.countAuto(batch.catalogs[0], binning, control));
}

namespace {

// A backend that counts whole batches only (as a GPU path without shares would): it must refuse
// a part rather than count everything.
class WholeOnlyCounter final : public tpacf::PairCounter {
public:
    std::string backendName() const override { return "whole-only"; }
    std::string deviceDescription() const override { return "test"; }
    tpacf::Precision precision() const override { return tpacf::Precision::Double; }
    std::vector<TaskCounts> countBatch(std::span<const CountTask> tasks, const Binning& binning,
                                       const CountControl& control) override {
        requireWholeShare(control);
        return m_cpu.countBatch(tasks, binning, control);
    }

private:
    CpuPairCounter m_cpu{1};
};

} // namespace

// The contract's defaults: a path that cannot honour a share throws ConfigError, and so does
// the default countBatchByRegion, whatever the share.
void TestWorkShare::pathWithoutSharesRefusesParts() {
    const Batch batch(101, 2);
    const Binning binning = shareBins();
    WholeOnlyCounter counter;
    CountControl part;
    part.share = {1, 2};
    QVERIFY_THROWS_EXCEPTION(ConfigError, counter.countBatch(batch.tasks, binning, part));
    CountControl invalid;
    invalid.share = {0, 0};
    QVERIFY_THROWS_EXCEPTION(ConfigError, counter.countBatch(batch.tasks, binning, invalid));
    QCOMPARE(counter.countBatch(batch.tasks, binning, CountControl{}).size(), batch.tasks.size());
    QVERIFY_THROWS_EXCEPTION(ConfigError, counter.countBatchByRegion(batch.tasks, binning, 2));
    QVERIFY_THROWS_EXCEPTION(ConfigError,
                             counter.countBatchByRegion(batch.tasks, binning, 2, part));
}

TPACF_TEST_MAIN(TestWorkShare)
#include "test_work_share.moc"
