// SPDX-License-Identifier: GPL-3.0-or-later
// CorrelationJob: the counts it returns are the direct counts, every field of the result is
// filled, bad inputs are ConfigErrors, cancellation gives a Cancelled result, and a long job
// reports progress with partial estimates.
#include "tpacf_test_main.h"
#include "tpacf/correlation_job.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf/mock.h"

#include <QtTest/QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

using tpacf::AngleUnit;
using tpacf::BackendRegistry;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::CorrelationJob;
using tpacf::CorrelationParams;
using tpacf::CorrelationResult;
using tpacf::Estimator;
using tpacf::JobProgress;
using tpacf::JobStatus;
using tpacf::PairCounts;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Uniform points in a box of the sky, a fraction of them gathered into small clumps so that
// w(θ) is clearly positive at small scales.
std::shared_ptr<const Catalog> catalog(std::size_t n, std::uint64_t seed, double clumped,
                                       const std::string& name) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n);
    double clumpRa = 0, clumpDec = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (unit(rng) < clumped) {
            if (i % 20 == 0) {
                clumpRa = 0.5 + 0.5 * unit(rng);
                clumpDec = 0.2 + 0.5 * unit(rng);
            }
            ra[i] = clumpRa + 1e-2 * unit(rng);
            dec[i] = clumpDec + 1e-2 * unit(rng);
        } else {
            ra[i] = 0.5 + 0.5 * unit(rng);
            dec[i] = std::asin(std::sin(0.2) + (std::sin(0.7) - std::sin(0.2)) * unit(rng));
        }
    }
    return std::make_shared<const Catalog>(
        Catalog::fromRadians(name, std::move(ra), std::move(dec)));
}

BinSpec bins() {
    return BinSpec::logPerDecade(0.1, 3000.0, AngleUnit::Arcminute, 4.0);
}

CorrelationParams params(std::size_t nData, std::vector<std::size_t> nRandoms) {
    CorrelationParams p;
    p.data = catalog(nData, 1, 0.3, "data.txt");
    for (std::size_t i = 0; i < nRandoms.size(); ++i)
        p.randoms.push_back(
            catalog(nRandoms[i], 100 + i, 0.0, "random" + std::to_string(i + 1) + ".txt"));
    p.bins = bins();
    p.backend.name = "cpu";
    p.backend.cpuThreads = 2;
    return p;
}

// A GPU backend stand-in that counts on the CPU and reports culling as a backend that decides
// before counting would: culled exactly when On was asked for. It pins down the job's plumbing
// (selectBackend passes the mode, the result records what the counter reported) whatever the
// real backends decide under Auto.
class CullingReportingCounter final : public tpacf::PairCounter {
public:
    std::string backendName() const override { return "fake"; }
    std::string deviceDescription() const override { return "fake device"; }
    tpacf::Precision precision() const override { return tpacf::Precision::Double; }
    bool supportsRegions() const override { return true; }

    std::vector<tpacf::TaskCounts> countBatch(std::span<const tpacf::CountTask> tasks,
                                              const Binning& binning,
                                              const tpacf::CountControl& control) override {
        decide();
        return m_cpu.countBatch(tasks, binning, control);
    }
    std::vector<tpacf::RegionPairCounts>
    countBatchByRegion(std::span<const tpacf::CountTask> tasks, const Binning& binning,
                       std::size_t regionCount, const tpacf::CountControl& control) override {
        decide();
        return m_cpu.countBatchByRegion(tasks, binning, regionCount, control);
    }

private:
    void decide() {
        m_cpu.setCulling(tpacf::CullingMode::Off);
        setLastBatchCulled(culling() == tpacf::CullingMode::On);
    }
    tpacf::CpuPairCounter m_cpu{2};
};

class CullingReportingProvider final : public tpacf::BackendModule {
public:
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }
    std::vector<tpacf::GpuDeviceInfo> devices() const override {
        return {{0, "fake", 1ull << 30, 9, 0, 1}};
    }
    std::string unavailableReason() const override { return ""; }
    std::string versionDescription() const override { return ""; }
    std::unique_ptr<tpacf::PairCounter> create(tpacf::Precision,
                                               const std::vector<int>&) const override {
        return std::make_unique<CullingReportingCounter>();
    }
};

// The GPU module of a machine without a GPU: registered, no device.
class NoDeviceProvider final : public tpacf::BackendModule {
public:
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }
    std::vector<tpacf::GpuDeviceInfo> devices() const override { return {}; }
    std::string unavailableReason() const override { return "no CUDA driver"; }
    std::string versionDescription() const override { return ""; }
    std::unique_ptr<tpacf::PairCounter> create(tpacf::Precision,
                                               const std::vector<int>&) const override {
        throw tpacf::BackendUnavailable("no CUDA driver");
    }
};

BackendRegistry withNoDeviceModule() {
    BackendRegistry backends;
    backends.add(std::make_shared<NoDeviceProvider>());
    return backends;
}

// Catalogs spread far wider than the bins reach, so culling has pairs to skip: a clumped box
// (RA 29-57 deg, Dec 11-40 deg), or a Soneira-Peebles mock in a box that wraps through RA 0
// and reaches within 1 deg of the pole.
CorrelationParams cullingParams(bool acrossRaZero) {
    CorrelationParams p;
    if (acrossRaZero) {
        const auto box = tpacf::Footprint::box(340, 20, 50, 89);
        tpacf::MockParams mock;
        mock.count = 3000;
        mock.seed = 5;
        mock.footprint = box;
        mock.outerRadiusDeg = 3;
        p.data = std::make_shared<const Catalog>(tpacf::generateClusteredMock(mock, "mock"));
        for (std::uint64_t set = 0; set < 2; ++set)
            p.randoms.push_back(std::make_shared<const Catalog>(
                tpacf::generateUniformRandoms(3000, box, 6 + set, "random")));
    } else {
        p.data = catalog(3000, 1, 0.3, "data.txt");
        for (std::uint64_t set = 0; set < 2; ++set)
            p.randoms.push_back(catalog(3000, 100 + set, 0.0, "random.txt"));
    }
    p.bins = BinSpec::logPerDecade(0.5, 120.0, AngleUnit::Arcminute, 5.0); // theta_max = 2 deg
    p.backend.name = "cpu";
    p.backend.cpuThreads = 2;
    return p;
}

std::uint64_t sum(const PairCounts& counts) {
    std::uint64_t total = 0;
    for (const std::uint64_t count : counts)
        total += count;
    return total;
}

bool sameDoubles(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
            return false;
    return true;
}

} // namespace

class TestCorrelationJob : public QObject {
    Q_OBJECT

private slots:
    void countsEqualDirectCounts();
    void fieldsFilled();
    void estimatorsByHand_data();
    void estimatorsByHand();
    void summedColumns();
    void binsWithoutSigma();
    void autoBackendNotice();
    void badInputs_data();
    void badInputs();
    void backendErrors();
    void cancelBeforeStart();
    void cancelWhileRunning();
    void progressAndPartialResults();
    void cullingOnAndOffCountTheSame_data();
    void cullingOnAndOffCountTheSame();
    void resultRecordsCulling_data();
    void resultRecordsCulling();
};

void TestCorrelationJob::countsEqualDirectCounts() {
    const CorrelationParams p = params(1500, {1200, 900, 1});
    const CorrelationResult result = CorrelationJob(p).run();
    QCOMPARE(int(result.status), int(JobStatus::Completed));

    const Binning binning(p.bins);
    tpacf::CpuPairCounter direct(1, tpacf::CpuKernel::Portable);
    QCOMPARE(result.raw.dd, direct.countAuto(*p.data, binning));
    QCOMPARE(result.raw.dr.size(), p.randoms.size());
    QCOMPARE(result.raw.rr.size(), p.randoms.size());
    for (std::size_t i = 0; i < p.randoms.size(); ++i) {
        QCOMPARE(result.raw.dr[i], direct.countCross(*p.data, *p.randoms[i], binning));
        QCOMPARE(result.raw.rr[i], direct.countAuto(*p.randoms[i], binning));
    }
    std::uint64_t ddSum = 0;
    for (auto c : result.raw.dd)
        ddSum += c;
    QVERIFY(ddSum > 0);
}

void TestCorrelationJob::fieldsFilled() {
    CorrelationParams p = params(800, {700, 600});
    p.estimator = Estimator::Hamilton;
    const auto before = std::chrono::steady_clock::now();
    const CorrelationResult r = CorrelationJob(p).run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    const Binning binning(p.bins);

    QCOMPARE(int(r.status), int(JobStatus::Completed));
    QCOMPARE(r.bins.describe(), p.bins.describe());
    QVERIFY(r.edges == std::vector<double>(binning.edges().begin(), binning.edges().end()));
    QVERIFY(r.centres == std::vector<double>(binning.centres().begin(), binning.centres().end()));
    QCOMPARE(r.binCount(), binning.count());
    QCOMPARE(int(r.estimator), int(Estimator::Hamilton));
    QCOMPARE(r.backendName, std::string("cpu"));
    QCOMPARE(r.deviceDescription, std::string("CPU, 2 threads"));
    QVERIFY(r.precision == tpacf::Precision::Double);
    QCOMPARE(r.backendNotice, std::string());
    QVERIFY(r.elapsedSeconds > 0 && r.elapsedSeconds <= wall);
    QCOMPARE(r.data.name, std::string("data.txt"));
    QCOMPARE(r.data.size, std::uint64_t{800});
    QCOMPARE(r.randoms.size(), std::size_t{2});
    QCOMPARE(r.randoms[0].name, std::string("random1.txt"));
    QCOMPARE(r.randoms[0].size, std::uint64_t{700});
    QCOMPARE(r.randoms[1].name, std::string("random2.txt"));
    QCOMPARE(r.randoms[1].size, std::uint64_t{600});
    QCOMPARE(r.raw.dataSize, std::uint64_t{800});
    QCOMPARE(r.raw.randomSizes, (std::vector<std::uint64_t>{700, 600}));
    QCOMPARE(r.raw.dd.size(), binning.count());
    // The estimate is the library's normalisation and estimator applied to the raw counts.
    const tpacf::NormalisedCounts n = tpacf::normalise(r.raw);
    QVERIFY(sameDoubles(r.normalised.dd, n.dd));
    QVERIFY(sameDoubles(r.normalised.dr, n.dr));
    QVERIFY(sameDoubles(r.normalised.rr, n.rr));
    QVERIFY(sameDoubles(r.w, tpacf::estimate(Estimator::Hamilton, n)));
    QCOMPARE(r.w.size(), binning.count());
}

void TestCorrelationJob::estimatorsByHand_data() {
    QTest::addColumn<int>("estimator");
    QTest::newRow("Landy-Szalay") << int(Estimator::LandySzalay);
    QTest::newRow("Natural") << int(Estimator::Natural);
    QTest::newRow("Davis-Peebles") << int(Estimator::DavisPeebles);
}

void TestCorrelationJob::estimatorsByHand() {
    QFETCH(int, estimator);
    CorrelationParams p = params(1000, {1100, 1200});
    p.estimator = Estimator(estimator);
    const CorrelationResult r = CorrelationJob(p).run();
    const double nd = 1000, nr[] = {1100, 1200};
    for (std::size_t k = 0; k < r.binCount(); ++k) {
        const double dd = double(r.raw.dd[k]) / (nd * (nd - 1) / 2);
        double dr = 0, rr = 0;
        for (std::size_t i = 0; i < 2; ++i) {
            dr += double(r.raw.dr[i][k]) / (nd * nr[i]) / 2;
            rr += double(r.raw.rr[i][k]) / (nr[i] * (nr[i] - 1) / 2) / 2;
        }
        if (rr == 0 || dr == 0)
            continue;
        double w = 0;
        switch (Estimator(estimator)) {
        case Estimator::LandySzalay:
            w = (dd - 2 * dr + rr) / rr;
            break;
        case Estimator::Natural:
            w = dd / rr - 1;
            break;
        case Estimator::DavisPeebles:
            w = dd / dr - 1;
            break;
        case Estimator::Hamilton:
            w = dd * rr / (dr * dr) - 1;
            break;
        }
        QVERIFY2(std::abs(r.w[k] - w) <= 1e-12 * std::max(1.0, std::abs(w)),
                 qPrintable(QStringLiteral("bin %1: %2 vs %3").arg(k).arg(r.w[k]).arg(w)));
    }
    // The clumps (about 30′ across) are a strong signal at 18′–32′ (bin 9).
    QVERIFY(r.w[9] > 1);
}

void TestCorrelationJob::summedColumns() {
    // Closed form on counts written by hand.
    CorrelationResult r;
    r.centres = {1, 2, 3};
    r.raw.dr = {{1, 2, 3}, {10, 20, 30}, {100, 200, 300}};
    r.raw.rr = {{5, 0, 7}, {0, 0, 1}, {4000000000ull, 4000000000ull, 0}};
    QCOMPARE(r.drSummed(), (std::vector<std::uint64_t>{111, 222, 333}));
    // Sums past 2^32 stay exact.
    QCOMPARE(r.rrSummed(), (std::vector<std::uint64_t>{4000000005ull, 4000000000ull, 8}));

    // And on a job's result, against the per-set columns.
    const CorrelationResult job = CorrelationJob(params(600, {500, 400, 300})).run();
    const auto dr = job.drSummed(), rr = job.rrSummed();
    QCOMPARE(dr.size(), job.binCount());
    for (std::size_t k = 0; k < job.binCount(); ++k) {
        QCOMPARE(dr[k], job.raw.dr[0][k] + job.raw.dr[1][k] + job.raw.dr[2][k]);
        QCOMPARE(rr[k], job.raw.rr[0][k] + job.raw.rr[1][k] + job.raw.rr[2][k]);
    }
}

void TestCorrelationJob::binsWithoutSigma() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CorrelationResult r;
    r.w = {1.0, nan, 2.0, -3.0, 4.0};
    QCOMPARE(r.binsWithoutSigma(), std::size_t{0}); // no jackknife: nothing to miss
    // Bin 1 has no w, so no σ is expected; bins 2 (nan) and 3 (inf) lack the σ they should have.
    r.wError = {0.1, nan, nan, inf, 0.0};
    QCOMPARE(r.binsWithoutSigma(), std::size_t{2});
}

void TestCorrelationJob::autoBackendNotice() {
    CorrelationParams p = params(300, {300});
    p.backend.name = "auto";
    const CorrelationResult r = CorrelationJob(p, withNoDeviceModule()).run();
    QCOMPARE(r.backendName, std::string("cpu"));
    QVERIFY2(r.backendNotice.find("no CUDA device") != std::string::npos, r.backendNotice.c_str());
    QVERIFY2(r.backendNotice.find("using the CPU backend") != std::string::npos,
             r.backendNotice.c_str());
}

void TestCorrelationJob::badInputs_data() {
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("no data") << "no data"
                             << "data catalog";
    QTest::newRow("empty data") << "empty data"
                                << "data.txt";
    QTest::newRow("no randoms") << "no randoms"
                                << "random catalog";
    QTest::newRow("empty random") << "empty random"
                                  << "empty.txt";
    QTest::newRow("null random") << "null random"
                                 << "random catalog 2";
    QTest::newRow("log bins from 0") << "log min 0"
                                     << "min";
    QTest::newRow("bins beyond 180 deg") << "max 200 deg"
                                         << "180";
    QTest::newRow("no bin count") << "no count"
                                  << "bins";
}

void TestCorrelationJob::badInputs() {
    QFETCH(QString, problem);
    QFETCH(QString, messagePart);
    CorrelationParams p = params(100, {100, 100});
    if (problem == QLatin1String("no data"))
        p.data.reset();
    else if (problem == QLatin1String("empty data"))
        p.data = std::make_shared<const Catalog>(Catalog::fromRadians("data.txt", {}, {}));
    else if (problem == QLatin1String("no randoms"))
        p.randoms.clear();
    else if (problem == QLatin1String("empty random"))
        p.randoms[1] = std::make_shared<const Catalog>(Catalog::fromRadians("empty.txt", {}, {}));
    else if (problem == QLatin1String("null random"))
        p.randoms[1].reset();
    else if (problem == QLatin1String("log min 0"))
        p.bins = BinSpec::logPerDecade(0.0, 100.0, AngleUnit::Arcminute, 5.0);
    else if (problem == QLatin1String("max 200 deg"))
        p.bins = BinSpec::linearCount(0.0, 200.0, AngleUnit::Degree, 10);
    else if (problem == QLatin1String("no count"))
        p.bins = BinSpec::linearCount(0.0, 10.0, AngleUnit::Degree, 0);
    try {
        CorrelationJob(p).run();
        QFAIL("no ConfigError");
    } catch (const tpacf::ConfigError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(messagePart), e.what());
    }
}

void TestCorrelationJob::backendErrors() {
    CorrelationParams p = params(100, {100});
    p.backend.precision = tpacf::Precision::Float;
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, CorrelationJob(p).run());
    p.backend.name = "cuda";
    QVERIFY_THROWS_EXCEPTION(tpacf::BackendUnavailable,
                             CorrelationJob(p, withNoDeviceModule()).run());
}

void TestCorrelationJob::cancelBeforeStart() {
    const std::atomic<bool> cancel{true};
    const CorrelationResult r = CorrelationJob(params(1000, {1000})).run({}, &cancel);
    QCOMPARE(int(r.status), int(JobStatus::Cancelled));
    QVERIFY(r.raw.dd.empty());
    QVERIFY(r.raw.dr.empty());
    QVERIFY(r.w.empty());
}

void TestCorrelationJob::cancelWhileRunning() {
    using Clock = std::chrono::steady_clock;
    // About 1.6e11 pairs: it only ends by being cancelled.
    const CorrelationParams p = params(200000, {200000, 200000});
    std::atomic<bool> cancel{false};
    int reports = 0;
    Clock::time_point cancelledAt;
    const CorrelationResult r = CorrelationJob(p).run(
        [&](const JobProgress&) {
            if (++reports == 3) {
                cancelledAt = Clock::now();
                cancel = true;
            }
        },
        &cancel);
    const double latency = std::chrono::duration<double>(Clock::now() - cancelledAt).count();
    QCOMPARE(int(r.status), int(JobStatus::Cancelled));
    QVERIFY(r.raw.dd.empty() && r.raw.dr.empty() && r.raw.rr.empty());
    QVERIFY(r.w.empty());
    QCOMPARE(r.backendName, std::string("cpu"));
    qInfo("cancelled %.3f s after the request", latency);
    QVERIFY(latency < 0.5);
}

void TestCorrelationJob::progressAndPartialResults() {
    // About 1.4e9 pairs: a second or more on two cores, long enough for several partials.
    const CorrelationParams p = params(20000, {20000, 20000});
    std::vector<JobProgress> reports;
    const CorrelationResult r =
        CorrelationJob(p).run([&](const JobProgress& progress) { reports.push_back(progress); });
    QCOMPARE(int(r.status), int(JobStatus::Completed));
    QVERIFY(reports.size() >= 2);

    const std::uint64_t total = 20000ull * 19999 / 2 * 3 + 20000ull * 20000 * 2;
    double previousFraction = 0, previousPartialAt = -1;
    int partials = 0;
    for (const JobProgress& progress : reports) {
        QCOMPARE(progress.pairsTotal, total);
        QVERIFY(progress.fraction >= previousFraction && progress.fraction <= 1.0);
        previousFraction = progress.fraction;
        QVERIFY(progress.elapsedSeconds > 0);
        QVERIFY(progress.pairsDone == 0 || progress.pairsPerSecond > 0);
        if (!progress.partial)
            continue;
        ++partials;
        // At most ~4 a second.
        QVERIFY(progress.partial->elapsedSeconds - previousPartialAt >= 0.24);
        previousPartialAt = progress.partial->elapsedSeconds;
        const CorrelationResult& partial = *progress.partial;
        QCOMPARE(partial.binCount(), r.binCount());
        QCOMPARE(partial.raw.dr.size(), std::size_t{2});
        QCOMPARE(partial.raw.rr.size(), std::size_t{2});
        QCOMPARE(partial.w.size(), r.binCount());
        QCOMPARE(partial.backendName, std::string("cpu"));
        for (std::size_t k = 0; k < r.binCount(); ++k) {
            QVERIFY(partial.raw.dd[k] <= r.raw.dd[k]);
            QVERIFY(partial.raw.rr[1][k] <= r.raw.rr[1][k]);
        }
    }
    QCOMPARE(reports.back().pairsDone, total);
    QCOMPARE(reports.back().fraction, 1.0);
    const double seconds = reports.back().elapsedSeconds;
    qInfo("%zu reports, %d partial results in %.2f s", reports.size(), partials, seconds);
    QVERIFY(partials >= 1);
    // A mid-run estimate already shows the clustering the final one has (all tasks advance
    // together, so DD, DR and RR are sampled alike). The first estimate past a quarter of the
    // pairs is taken (the last mid-run one where the run was too quick for that): the very first
    // can come at 1 % done on a slow machine (under the sanitizers), where its sampling noise
    // is as large as the signal.
    QVERIFY(r.w[9] > 0.1);
    const CorrelationResult* midRun = nullptr;
    double midRunFraction = 0;
    for (const JobProgress& progress : reports) {
        if (!progress.partial || progress.fraction >= 1.0)
            continue;
        midRun = progress.partial.get();
        midRunFraction = progress.fraction;
        if (progress.fraction >= 0.25)
            break;
    }
    QVERIFY(midRun != nullptr);
    qInfo("w(bin 9): %.3f at %.1f %% done, %.3f at the end", midRun->w[9], 100 * midRunFraction,
          r.w[9]);
    QVERIFY(midRun->w[9] > 0.1);
}

void TestCorrelationJob::cullingOnAndOffCountTheSame_data() {
    QTest::addColumn<bool>("acrossRaZero");
    QTest::addColumn<int>("jackknifeRegions");
    QTest::newRow("clumped box") << false << 0;
    QTest::newRow("clumped box, jackknife") << false << 8;
    QTest::newRow("mock across RA 0 near the pole") << true << 0;
    QTest::newRow("mock across RA 0 near the pole, jackknife") << true << 8;
}

void TestCorrelationJob::cullingOnAndOffCountTheSame() {
    QFETCH(bool, acrossRaZero);
    QFETCH(int, jackknifeRegions);
    CorrelationParams p = cullingParams(acrossRaZero);
    p.jackknife.regions = jackknifeRegions;
    p.backend.culling = tpacf::CullingMode::Off;
    const CorrelationResult off = CorrelationJob(p).run();
    p.backend.culling = tpacf::CullingMode::On;
    const CorrelationResult on = CorrelationJob(p).run();
    QCOMPARE(int(off.status), int(JobStatus::Completed));
    QCOMPARE(int(on.status), int(JobStatus::Completed));
    QCOMPARE(int(off.cullingRequested), int(tpacf::CullingMode::Off));
    QCOMPARE(int(on.cullingRequested), int(tpacf::CullingMode::On));
    QVERIFY(!off.culled); // Off is brute force, whatever the backend
    QVERIFY(on.culled);   // On forces culling: culled is compared with brute force below

    // The comparison means something: the bins hold many pairs, and most pairs of the
    // catalogs lie beyond theta_max, where a culled count must skip them and lose none.
    const std::uint64_t dataPairs = 3000ull * 2999 / 2;
    QVERIFY2(sum(off.raw.dd) > 5000, qPrintable(QString::number(sum(off.raw.dd))));
    QVERIFY(sum(off.raw.rr[0]) > 500);
    QVERIFY(sum(off.raw.dd) < dataPairs / 4);
    QVERIFY(sum(off.raw.rr[1]) < dataPairs / 4);

    // Exact: the same integers in every bin of every count, so the same w (and errors).
    QCOMPARE(on.raw.dd, off.raw.dd);
    QCOMPARE(on.raw.dr, off.raw.dr);
    QCOMPARE(on.raw.rr, off.raw.rr);
    QVERIFY(sameDoubles(on.w, off.w));
    QCOMPARE(on.hasJackknife(), jackknifeRegions > 0);
    if (jackknifeRegions > 0) {
        QVERIFY(sameDoubles(on.wError, off.wError));
        QVERIFY(sameDoubles(on.covariance, off.covariance));
        QCOMPARE(on.jackknifeSamples.size(), std::size_t(jackknifeRegions));
        for (std::size_t k = 0; k < on.jackknifeSamples.size(); ++k)
            QVERIFY(sameDoubles(on.jackknifeSamples[k], off.jackknifeSamples[k]));
    }
}

void TestCorrelationJob::resultRecordsCulling_data() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("jackknife");
    for (const auto mode :
         {tpacf::CullingMode::Auto, tpacf::CullingMode::On, tpacf::CullingMode::Off}) {
        const std::string name(tpacf::cullingModeName(mode));
        QTest::newRow(name.c_str()) << int(mode) << false;
        QTest::newRow((name + ", jackknife").c_str()) << int(mode) << true;
    }
}

void TestCorrelationJob::resultRecordsCulling() {
    QFETCH(int, mode);
    QFETCH(bool, jackknife);
    const auto culling = tpacf::CullingMode(mode);
    CorrelationParams p = params(1500, {1200, 900});
    p.backend.name = "cuda";
    p.backend.culling = culling;
    if (jackknife)
        p.jackknife.regions = 4;
    BackendRegistry gpu;
    gpu.add(std::make_shared<CullingReportingProvider>());
    std::vector<std::shared_ptr<const CorrelationResult>> partials;
    const CorrelationResult r = CorrelationJob(p, gpu).run([&](const JobProgress& progress) {
        if (progress.partial)
            partials.push_back(progress.partial);
    });
    QCOMPARE(int(r.status), int(JobStatus::Completed));
    QCOMPARE(r.backendName, std::string("fake"));
    QCOMPARE(int(r.cullingRequested), mode);
    // The counter got the mode through selectBackend and its report reached the result.
    QCOMPARE(r.culled, culling == tpacf::CullingMode::On);
    QCOMPARE(r.hasJackknife(), jackknife);
    for (const auto& partial : partials) {
        QCOMPARE(int(partial->cullingRequested), mode);
        QCOMPARE(partial->culled, r.culled);
    }
    // The counts are the CPU's, culling or not.
    const CorrelationResult reference = CorrelationJob(params(1500, {1200, 900})).run();
    QCOMPARE(r.raw.dd, reference.raw.dd);
    QCOMPARE(r.raw.rr, reference.raw.rr);

    // selectBackend hands every counter the mode, the CPU's too.
    tpacf::BackendOptions cpu;
    cpu.name = "cpu";
    cpu.culling = culling;
    QCOMPARE(int(tpacf::selectBackend(cpu, BackendRegistry{}).counter->culling()), mode);
    cpu.name = "auto";
    QCOMPARE(int(tpacf::selectBackend(cpu, BackendRegistry{}).counter->culling()), mode);
    QCOMPARE(int(tpacf::selectBackend(cpu, gpu).counter->culling()), mode);
}

TPACF_TEST_MAIN(TestCorrelationJob)
#include "test_correlation_job.moc"
