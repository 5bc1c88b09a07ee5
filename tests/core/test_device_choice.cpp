// SPDX-License-Identifier: GPL-3.0-or-later
// The automatic device count (device_choice.h) as a pure function of the work estimate and the
// device list, each rank's share of a host's GPUs, the work estimates against independent
// counts, and — through a fake GPU module that records what it was asked to reserve, start and
// count on — which GPUs a job starts for --devices, for the automatic count and for MPI ranks.
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/correlation_job.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/device_choice.h"
#include "tpacf/mock.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <set>
#include <string>

using namespace tpacf;

namespace {

// An H200-like device: 4e11 pairs/s in double, 1.5e12 in float (device_rates' reference).
GpuDeviceInfo device(int index, bool started = false, bool reachable = true, double rate = 4e11) {
    GpuDeviceInfo info;
    info.index = index;
    info.name = "Fake H200";
    info.computeMajor = 9;
    info.multiprocessors = 132;
    info.fp32PerFp64 = 2;
    info.pairsPerSecondDouble = rate;
    info.pairsPerSecondFloat = rate * 3.75;
    info.started = started;
    info.reachable = reachable;
    return info;
}

std::vector<GpuDeviceInfo> devices(int count, int started = 0) {
    std::vector<GpuDeviceInfo> list;
    for (int i = 0; i < count; ++i)
        list.push_back(device(i, i < started));
    return list;
}

CountWorkEstimate workOf(double seconds, double rate = 4e11) {
    CountWorkEstimate work;
    work.pairsComputed = seconds * rate;
    work.pairs = static_cast<std::uint64_t>(work.pairsComputed);
    return work;
}

// A GPU module whose devices cost nothing: it records which devices it was asked to keep, to
// start and to count on, and lists the others as unreachable once it kept some.
class RecordingModule final : public BackendModule {
public:
    explicit RecordingModule(int count, int fp32PerFp64 = 2)
        : m_count(count), m_fp32PerFp64(fp32PerFp64) {}
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }
    std::vector<GpuDeviceInfo> devices() const override {
        std::vector<GpuDeviceInfo> list;
        for (int i = 0; i < m_count; ++i) {
            list.push_back(device(i, started.contains(i)));
            list.back().reachable = reserved.empty() || reserved.contains(i);
            list.back().fp32PerFp64 = m_fp32PerFp64;
        }
        return list;
    }
    std::string unavailableReason() const override { return {}; }
    std::string versionDescription() const override { return "recording 1.0"; }
    std::unique_ptr<PairCounter> create(Precision precision,
                                        const std::vector<int>& indices) const override {
        created = indices;
        createdPrecision = precision;
        started.insert(indices.begin(), indices.end());
        return std::make_unique<CpuPairCounter>(1);
    }
    void warmUp(const std::vector<int>& indices, Precision precision) const override {
        warmed = indices;
        warmedPrecision = precision;
        started.insert(indices.begin(), indices.end());
    }
    void reserveDevices(const std::vector<int>& indices) const override {
        if (started.empty() && reserved.empty()) // as the CUDA module: only before any start
            reserved.insert(indices.begin(), indices.end());
    }

    mutable std::set<int> reserved, started;
    mutable std::vector<int> warmed, created;
    mutable std::optional<Precision> warmedPrecision, createdPrecision;

private:
    int m_count;
    int m_fp32PerFp64;
};

// What the CLI does for one process (reserveDevicesBeforeReading, the warm-up beside the
// reading, then the job's selection), recorded by a fresh module: one process per call.
struct StartRecord {
    std::set<int> reserved, started;
    std::vector<int> warmed, created;
    std::string reason;
    std::optional<Precision> warmedPrecision, createdPrecision;
};
StartRecord startAs(const BackendOptions& asked, int hostDevices, const CountWorkEstimate* work,
                    int fp32PerFp64 = 2) {
    auto module = std::make_shared<RecordingModule>(hostDevices, fp32PerFp64);
    BackendRegistry registry;
    registry.add(module);
    const BackendOptions chosen = reserveJobDevices(asked, registry, work);
    warmUpBackend(chosen, registry);
    const BackendSelection selection = selectBackend(chosen, registry, work);
    StartRecord record;
    record.reserved = module->reserved;
    record.started = module->started;
    record.warmed = module->warmed;
    record.created = module->created;
    record.reason = selection.deviceChoice;
    record.warmedPrecision = module->warmedPrecision;
    record.createdPrecision = module->createdPrecision;
    return record;
}

std::vector<int> range(int begin, int end) {
    std::vector<int> list;
    for (int i = begin; i < end; ++i)
        list.push_back(i);
    return list;
}

} // namespace

class TestDeviceChoice : public QObject {
    Q_OBJECT

private slots:
    // Rows: seconds of work on one device (double), devices on the host, how many are started
    // already, expected count. Walls by hand from the model (start 0.3 s each not started,
    // 0.03 s per extra device, work / (k · 4e11)): 0.55 s work: 0.85 / 0.905 / ... → 1;
    // 1 s: 1.3 / 1.13 / 1.293 → 2; 25 s: 25.3 / 13.13 / 9.23 / 7.44 → 4; all started, 1 s:
    // 1 / 0.53 / 0.393 / 0.34 → 4; one started, 0.2 s: 0.2 / 0.43 → 1.
    void automaticCount_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<int>("host");
        QTest::addColumn<int>("started");
        QTest::addColumn<int>("expected");
        QTest::newRow("tiny job, 4 GPUs") << 0.001 << 4 << 0 << 1;
        QTest::newRow("standard job, 4 GPUs") << 0.55 << 4 << 0 << 1;
        QTest::newRow("1 s, 4 GPUs") << 1.0 << 4 << 0 << 2;
        QTest::newRow("25 s, 4 GPUs") << 25.0 << 4 << 0 << 4;
        QTest::newRow("25 s, 2 GPUs") << 25.0 << 2 << 0 << 2;
        QTest::newRow("1 s, all 4 started") << 1.0 << 4 << 4 << 4;
        QTest::newRow("0.2 s, one started") << 0.2 << 4 << 1 << 1;
        QTest::newRow("one GPU") << 25.0 << 1 << 0 << 1;
        QTest::newRow("no work") << 0.0 << 4 << 0 << 1;
    }
    void automaticCount() {
        QFETCH(double, seconds);
        QFETCH(int, host);
        QFETCH(int, started);
        QFETCH(int, expected);
        const DeviceChoice choice =
            chooseDeviceCount(workOf(seconds), devices(host, started), Precision::Double);
        QCOMPARE(choice.devices, range(0, expected));
        if (host == 1) { // nothing to choose, nothing to explain
            QVERIFY(choice.reason.empty());
            return;
        }
        const std::string said = "auto device count: " + std::to_string(expected) + " of " +
                                 std::to_string(host) + " GPUs";
        QVERIFY2(choice.reason.starts_with(said), choice.reason.c_str());
    }

    void startedDevicesComeFirst() {
        // Device 2 is started: a job that wants one GPU takes it, not device 0.
        std::vector<GpuDeviceInfo> list = devices(4);
        list[2].started = true;
        QCOMPARE(chooseDeviceCount(workOf(0.2), list, Precision::Double).devices,
                 std::vector<int>{2});
    }

    void unreachableDevicesAreLeftOut() {
        std::vector<GpuDeviceInfo> list = devices(4);
        list[0].reachable = list[2].reachable = false;
        QCOMPARE(chooseDeviceCount(workOf(25), list, Precision::Double).devices,
                 (std::vector<int>{1, 3}));
        for (GpuDeviceInfo& d : list)
            d.reachable = false;
        QVERIFY(chooseDeviceCount(workOf(25), list, Precision::Double).devices.empty());
    }

    void precisionPicksTheRate() {
        // 1.6e12 pairs: 4 s in double (→ 4 GPUs: 4.3 / 2.63 / 2.23 / 2.29 → 3), 1.07 s in
        // float (1.37 / 1.16 / 1.32 → 2).
        CountWorkEstimate work;
        work.pairsComputed = 1.6e12;
        QCOMPARE(chooseDeviceCount(work, devices(4), Precision::Double).devices, range(0, 3));
        QCOMPARE(chooseDeviceCount(work, devices(4), Precision::Float).devices, range(0, 2));
    }

    void unknownRatesUseEveryDevice() {
        std::vector<GpuDeviceInfo> list = devices(3);
        list[1].pairsPerSecondDouble = 0;
        QCOMPARE(chooseDeviceCount(workOf(0.001), list, Precision::Double).devices, range(0, 3));
    }

    void ranksShareTheHost_data() {
        QTest::addColumn<int>("pool");
        QTest::addColumn<int>("ranks");
        QTest::newRow("4 GPUs, 1 rank") << 4 << 1;
        QTest::newRow("4 GPUs, 2 ranks") << 4 << 2;
        QTest::newRow("4 GPUs, 3 ranks") << 4 << 3;
        QTest::newRow("4 GPUs, 4 ranks") << 4 << 4;
        QTest::newRow("8 GPUs, 3 ranks") << 8 << 3;
        QTest::newRow("2 GPUs, 4 ranks") << 2 << 4;
    }
    void ranksShareTheHost() {
        QFETCH(int, pool);
        QFETCH(int, ranks);
        const std::vector<int> all = range(10, 10 + pool); // indices need not start at 0
        std::vector<int> seen;
        for (int rank = 0; rank < ranks; ++rank) {
            const std::vector<int> mine = devicesOfRank(all, rank, ranks);
            QVERIFY(!mine.empty());
            if (pool >= ranks) {
                // A contiguous block of about pool/ranks devices, disjoint from the others'.
                QVERIFY(mine.size() == static_cast<std::size_t>(pool / ranks) ||
                        mine.size() == static_cast<std::size_t>(pool / ranks + 1));
                seen.insert(seen.end(), mine.begin(), mine.end());
            } else {
                QCOMPARE(mine, std::vector<int>{all[static_cast<std::size_t>(rank % pool)]});
            }
        }
        if (pool >= ranks)
            QCOMPARE(seen, all); // every device once, in order
    }

    void estimateFromSizes() {
        // Culling off: every pair is computed. 10 DR of 1e6 x 1e6 and 11 auto counts of 1e6.
        const Binning full(BinSpec::logCount(1, 180 * 60, AngleUnit::Arcminute, 10));
        std::vector<CountShape> shapes{{1000000, 0, true}};
        for (int i = 0; i < 10; ++i)
            shapes.push_back({1000000, 1000000, false});
        for (int i = 0; i < 10; ++i)
            shapes.push_back({1000000, 0, true});
        const double pairs = 1e12 * 10 + 11 * (1e6 * (1e6 - 1) / 2);
        const CountWorkEstimate off = estimateCountWork(shapes, full, CullingMode::Off);
        QVERIFY(!off.culled);
        QCOMPARE(off.pairsComputed, pairs);
        QCOMPARE(static_cast<double>(off.pairs), pairs);
        QCOMPARE(estimateCountWork(shapes, full, CullingMode::Off, 0.25).pairsComputed, pairs / 4);
        // Culling to 10°: the cap fraction (1 - cos θ)/2 of a uniform sky, widened by two tile
        // radii of 256 points (sqrt(4·256/1e6) rad each).
        const Binning ten(BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 30));
        const CountWorkEstimate on = estimateCountWork(shapes, ten, CullingMode::On);
        QVERIFY(on.culled);
        const double reach = 10 * std::numbers::pi / 180 + 2 * std::sqrt(4 * 256 / 1e6);
        QCOMPARE(on.pairsComputed, pairs * (1 - std::cos(reach)) / 2);
    }

    void estimateFromCatalogsSeesTheFootprint() {
        // Uniform full sky: the sampled fraction agrees with the cap fraction within its noise;
        // all points within 2° of one spot: every pair is within 10°, so all are computed.
        const Binning ten(BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 30));
        const Catalog sky = generateUniformRandoms(20000, Footprint::fullSky(), 7);
        const CountTask skyTask{&sky, nullptr};
        const CountWorkEstimate uniform =
            estimateCountWork(std::span(&skyTask, 1), ten, CullingMode::On);
        const CountShape shape{20000, 0, true};
        const CountWorkEstimate bySize =
            estimateCountWork(std::span(&shape, 1), ten, CullingMode::On);
        QVERIFY(uniform.sampled);
        QVERIFY(uniform.pairsComputed >= bySize.pairsComputed);
        QVERIFY(uniform.pairsComputed < 1.5 * bySize.pairsComputed);
        const Catalog spot = generateUniformRandoms(20000, Footprint::cap(150, 30, 2), 8);
        const CountTask spotTask{&spot, nullptr};
        const CountWorkEstimate dense =
            estimateCountWork(std::span(&spotTask, 1), ten, CullingMode::On);
        QCOMPARE(dense.pairsComputed, 20000.0 * 19999 / 2);
    }

    // --devices 2 on a 4-GPU host: only device 2 is kept, started and counted on, whatever the
    // work.
    void explicitDevicesStartOnlyThose() {
        BackendOptions asked;
        asked.gpuDevices = {2};
        const CountWorkEstimate big = workOf(25);
        const StartRecord record = startAs(asked, 4, &big);
        QCOMPARE(record.reserved, std::set<int>{2});
        QCOMPARE(record.started, std::set<int>{2});
        QCOMPARE(record.warmed, std::vector<int>{2});
        QCOMPARE(record.created, std::vector<int>{2});
        QVERIFY(record.reason.empty()); // asked for: nothing to explain
    }

    // The warm-up beside the reading loads the kernels of the precision the job then counts in:
    // asked for, or auto on the devices' FP64 rate (full rate: double; 1/64: float).
    void warmUpPreparesTheJobsPrecision_data() {
        // Precisions as ints (Precision's values), -1: none asked (auto).
        QTest::addColumn<int>("asked");
        QTest::addColumn<int>("fp32PerFp64");
        QTest::addColumn<int>("expected");
        const int none = -1, asFloat = static_cast<int>(Precision::Float),
                  asDouble = static_cast<int>(Precision::Double);
        QTest::newRow("auto, full-rate FP64") << none << 2 << asDouble;
        QTest::newRow("auto, 1/64 FP64") << none << 64 << asFloat;
        QTest::newRow("float asked, full-rate FP64") << asFloat << 2 << asFloat;
        QTest::newRow("double asked, 1/64 FP64") << asDouble << 64 << asDouble;
    }
    void warmUpPreparesTheJobsPrecision() {
        QFETCH(int, asked);
        QFETCH(int, fp32PerFp64);
        QFETCH(int, expected);
        BackendOptions options;
        if (asked >= 0)
            options.precision = static_cast<Precision>(asked);
        const CountWorkEstimate work = workOf(0.5);
        const StartRecord record = startAs(options, 2, &work, fp32PerFp64);
        QVERIFY(record.warmedPrecision && record.createdPrecision);
        QCOMPARE(static_cast<int>(*record.warmedPrecision), expected);
        QCOMPARE(static_cast<int>(*record.createdPrecision), expected);
        QCOMPARE(record.warmed, record.created);
    }

    // Auto: a small job starts one GPU of four, a large one all four.
    void automaticCountStartsWhatItUses() {
        const CountWorkEstimate small = workOf(0.2), big = workOf(25);
        const StartRecord one = startAs({}, 4, &small);
        QCOMPARE(one.reserved, std::set<int>{0});
        QCOMPARE(one.started, std::set<int>{0});
        QCOMPARE(one.created, std::vector<int>{0});
        QVERIFY2(one.reason.find("1 of 4 GPUs") != std::string::npos, one.reason.c_str());
        const StartRecord four = startAs({}, 4, &big);
        QCOMPARE(four.started, (std::set<int>{0, 1, 2, 3}));
        QCOMPARE(four.created, range(0, 4));
        QVERIFY2(four.reason.find("4 of 4 GPUs") != std::string::npos, four.reason.c_str());
    }

    // MPI: 2 ranks on a 4-GPU host each start their own pair (a large share each); 4 ranks one
    // GPU each; with --devices 1,3 and 2 ranks, one of those each. No device is started twice.
    void ranksStartOnlyTheirOwn() {
        const CountWorkEstimate big = workOf(25);
        std::vector<int> startedByAll;
        for (int ranks : {2, 4}) {
            startedByAll.clear();
            for (int rank = 0; rank < ranks; ++rank) {
                BackendOptions asked;
                asked.placement = {rank, ranks};
                const StartRecord record = startAs(asked, 4, &big);
                const std::vector<int> mine = range(rank * 4 / ranks, (rank + 1) * 4 / ranks);
                QCOMPARE(record.created, mine);
                QCOMPARE(record.started, std::set<int>(mine.begin(), mine.end()));
                QCOMPARE(record.reserved, std::set<int>(mine.begin(), mine.end()));
                startedByAll.insert(startedByAll.end(), mine.begin(), mine.end());
            }
            QCOMPARE(startedByAll, range(0, 4));
        }
        for (int rank = 0; rank < 2; ++rank) {
            BackendOptions asked;
            asked.gpuDevices = {1, 3};
            asked.placement = {rank, 2};
            const StartRecord record = startAs(asked, 4, &big);
            QCOMPARE(record.created, std::vector<int>{rank == 0 ? 1 : 3});
            QCOMPARE(record.started.size(), std::size_t{1});
        }
    }

    // A job given no devices chooses from its own catalogs (Studio's path): small catalogs on
    // a 4-GPU host count on one, and the result says so.
    void jobChoosesFromItsCatalogs() {
        auto module = std::make_shared<RecordingModule>(4);
        BackendRegistry registry;
        registry.add(module);
        CorrelationParams params;
        params.data =
            std::make_shared<const Catalog>(generateUniformRandoms(2000, Footprint::fullSky(), 11));
        params.randoms = {std::make_shared<const Catalog>(
            generateUniformRandoms(2000, Footprint::fullSky(), 12))};
        params.bins = BinSpec::logCount(1, 600, AngleUnit::Arcminute, 10);
        params.backend.name = "cuda";
        CorrelationJob job(params, registry);
        const CorrelationResult result = job.run();
        QCOMPARE(module->created, std::vector<int>{0});
        QCOMPARE(module->started, std::set<int>{0});
        QVERIFY2(result.deviceChoice.find("1 of 4 GPUs") != std::string::npos,
                 result.deviceChoice.c_str());
        QVERIFY(std::find(result.notes.begin(), result.notes.end(), result.deviceChoice) !=
                result.notes.end());
    }
};

TPACF_TEST_MAIN(TestDeviceChoice)
#include "test_device_choice.moc"
