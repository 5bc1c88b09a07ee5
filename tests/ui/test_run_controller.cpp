// SPDX-License-Identifier: GPL-3.0-or-later
// RunController: a run's outcomes (finished, failed, cancelled) and the state after each, one run
// at a time, results marked stale when the inputs change after a run, partial results handed on
// at most once per refresh tick, and runs whose region labels are read first; cross-correlation
// runs of a second sample, and why one cannot run.
#include "catalog_set.h"
#include "run_controller.h"
#include "tpacf_test_main.h"

#include <tpacf/errors.h>
#include <tpacf/mock.h>

#include <QJsonObject>

#include <cmath>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

constexpr int kTimeoutMs = 60000;

// A GPU module whose counter creation blocks (on the worker thread) until the test releases it,
// then fails: a run that is "running" for exactly as long as the test wants, with no progress
// reports of its own.
class BlockingGpuProvider final : public BackendModule {
public:
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }
    std::vector<GpuDeviceInfo> devices() const override {
        return {{0, "Blocking GPU", 1ull << 30, 8, 0, 10}};
    }
    std::string unavailableReason() const override { return ""; }
    std::string versionDescription() const override { return "test"; }
    std::unique_ptr<PairCounter> create(Precision, const std::vector<int>&) const override {
        m_entered.release();
        m_release.tryAcquire(1, kTimeoutMs);
        throw BackendUnavailable("released by the test");
    }
    void release() const { m_release.release(); }
    bool waitEntered() const { return m_entered.tryAcquire(1, kTimeoutMs); }

private:
    mutable QSemaphore m_entered;
    mutable QSemaphore m_release;
};

std::shared_ptr<const Catalog> uniform(std::size_t count, std::uint64_t seed) {
    return std::make_shared<const Catalog>(
        generateUniformRandoms(count, Footprint::box(150, 170, 0, 20), seed));
}

CorrelationParams paramsFor(std::shared_ptr<const Catalog> data,
                            std::shared_ptr<const Catalog> random, const std::string& backend) {
    CorrelationParams params;
    params.data = std::move(data);
    params.randoms = {std::move(random)};
    params.bins = BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 5);
    params.backend.name = backend;
    params.backend.cpuThreads = 1;
    return params;
}

RunInputs inputsFor(const CorrelationParams& params, const QString& tag) {
    RunInputs inputs;
    inputs.data = params.data;
    inputs.randoms = params.randoms;
    inputs.settings[QStringLiteral("tag")] = tag;
    return inputs;
}

// The same points with weights in [0.5, 1.5).
std::shared_ptr<const Catalog> weighted(const Catalog& catalog) {
    std::vector<double> weights(catalog.size());
    for (std::size_t i = 0; i < weights.size(); ++i)
        weights[i] = 0.5 + double((i * 7919) % 1000) / 1000.0;
    return std::make_shared<const Catalog>(Catalog::fromRadians(
        catalog.name() + " (weighted)", {catalog.ra().begin(), catalog.ra().end()},
        {catalog.dec().begin(), catalog.dec().end()}, std::move(weights)));
}

// One run of `params` through `run`, waited for.
ResultPtr runThrough(RunController& run, const CorrelationParams& params, const QString& tag) {
    QSignalSpy finished(&run, &RunController::finished);
    if (!run.start(params, inputsFor(params, tag)) || !finished.wait(kTimeoutMs))
        return {};
    return finished.front().front().value<ResultPtr>();
}

// What a fresh job without any reused counts gives.
CorrelationResult freshRun(CorrelationParams params) {
    params.reuse.reset();
    params.collectCounts = false;
    return CorrelationJob(std::move(params)).run();
}

// w equal bin for bin (NaN where the other is NaN): exactly, or to `relative`.
bool sameW(const std::vector<double>& a, const std::vector<double>& b, double relative = 0) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
            if (std::isnan(a[i]) != std::isnan(b[i]))
                return false;
        } else if (relative == 0 ? a[i] != b[i]
                                 : std::abs(a[i] - b[i]) >
                                       relative * std::max(std::abs(a[i]), std::abs(b[i]))) {
            return false;
        }
    }
    return true;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& line : lines)
        if (line.find(text) != std::string::npos)
            return true;
    return false;
}

ResultPtr partialWithBins(std::size_t bins) {
    auto result = std::make_shared<CorrelationResult>();
    result->w.assign(bins, 0.0);
    return result;
}

} // namespace

class TestRunController : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void finishedRunKeepsResultAndInputs();
    void cancelGivesCancelledState();
    void failureKeepsThePreviousResult();
    void resultIsStaleWhenInputsChange();
    void partialResultsAtMostOncePerTick();
    void regionLabelsAreReadFirst();
    void cancelWhileReadingRegionLabels();
    void secondSampleProblem_data();
    void secondSampleProblem();
    void crossRunPassesTheSecondSample();
    void crossRunWithRegionLabels();
    void newDataReusesTheRandomCounts();
    void newEstimatorReusesEveryCount();
    void weightedNewDataReusesTheRandomCounts();
    void newRandomsReuseNoRandomCounts();
    void clearedCacheReusesNothing();
    void otherBinsReuseNothing();
};

void TestRunController::finishedRunKeepsResultAndInputs() {
    RunController run(BackendRegistry{});
    QCOMPARE(run.state(), RunController::State::Idle);
    QCOMPARE(run.lastOutcome(), RunController::Outcome::None);
    const CorrelationParams params = paramsFor(uniform(300, 1), uniform(600, 2), "cpu");
    const RunInputs inputs = inputsFor(params, QStringLiteral("first"));
    QSignalSpy finished(&run, &RunController::finished);
    QSignalSpy started(&run, &RunController::jobStarted);
    std::shared_ptr<const Catalog> jobDataWhenFinished;
    connect(&run, &RunController::finished, this, [&] { jobDataWhenFinished = run.jobData(); });
    QVERIFY(run.start(params, inputs));
    QCOMPARE(started.count(), 1);
    QCOMPARE(run.state(), RunController::State::Running);
    QVERIFY(run.isRunning());
    QCOMPARE(run.jobData(), params.data);
    // One run at a time.
    QVERIFY(!run.start(params, inputs));
    QVERIFY(finished.wait(kTimeoutMs));
    const auto result = finished.front().front().value<ResultPtr>();
    QVERIFY(result);
    QVERIFY(result->binCount() > 0);
    QCOMPARE(run.result(), result);
    QVERIFY(run.resultInputs() == inputs);
    QCOMPARE(run.state(), RunController::State::Idle);
    QCOMPARE(run.lastOutcome(), RunController::Outcome::Finished);
    QCOMPARE(jobDataWhenFinished, params.data);
    QVERIFY(!run.jobData()); // released once the run is over
}

void TestRunController::cancelGivesCancelledState() {
    RunController run(BackendRegistry{});
    // Large enough on one thread that the job polls the cancel flag long before it ends.
    const CorrelationParams params = paramsFor(uniform(60000, 3), uniform(60000, 4), "cpu");
    QSignalSpy cancelled(&run, &RunController::cancelled);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start(params, inputsFor(params, QStringLiteral("big"))));
    run.cancel();
    QCOMPARE(run.state(), RunController::State::Cancelling);
    QVERIFY(run.isRunning()); // until the job answers
    QVERIFY(cancelled.wait(kTimeoutMs));
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(run.state(), RunController::State::Idle);
    QCOMPARE(run.lastOutcome(), RunController::Outcome::Cancelled);
    QVERIFY(!run.result());
    // Cancel when idle does nothing.
    run.cancel();
    QCOMPARE(run.state(), RunController::State::Idle);
    QTest::qWait(50);
    QCOMPARE(cancelled.count(), 1);
}

void TestRunController::failureKeepsThePreviousResult() {
    const auto gpu = std::make_shared<BlockingGpuProvider>();
    RunController run(BackendRegistry().add(gpu));
    const auto data = uniform(300, 5);
    const auto random = uniform(600, 6);
    QSignalSpy finished(&run, &RunController::finished);
    const CorrelationParams cpu = paramsFor(data, random, "cpu");
    QVERIFY(run.start(cpu, inputsFor(cpu, QStringLiteral("cpu"))));
    QVERIFY(finished.wait(kTimeoutMs));
    const ResultPtr result = run.result();

    QSignalSpy failed(&run, &RunController::failed);
    const CorrelationParams gpuParams = paramsFor(data, random, "cuda");
    QVERIFY(run.start(gpuParams, inputsFor(gpuParams, QStringLiteral("gpu"))));
    QVERIFY(gpu->waitEntered());
    gpu->release();
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("released by the test")));
    QCOMPARE(run.lastOutcome(), RunController::Outcome::Failed);
    QCOMPARE(run.state(), RunController::State::Idle);
    QCOMPARE(run.result(), result);
    QVERIFY(run.resultInputs() == inputsFor(cpu, QStringLiteral("cpu")));
}

void TestRunController::resultIsStaleWhenInputsChange() {
    RunController run(BackendRegistry{});
    const CorrelationParams params = paramsFor(uniform(300, 7), uniform(600, 8), "cpu");
    const RunInputs inputs = inputsFor(params, QStringLiteral("A"));
    QSignalSpy stale(&run, &RunController::staleChanged);
    // No result yet: nothing can be stale, whatever the inputs.
    run.setCurrentInputs(inputsFor(params, QStringLiteral("B")));
    QVERIFY(!run.isResultStale());
    run.setCurrentInputs(inputs);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start(params, inputs));
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!run.isResultStale());
    QCOMPARE(stale.count(), 0);

    // Settings changed after the run: stale; changed back: current again.
    run.setCurrentInputs(inputsFor(params, QStringLiteral("B")));
    QVERIFY(run.isResultStale());
    QCOMPARE(stale.count(), 1);
    QCOMPARE(stale.last().front().toBool(), true);
    run.setCurrentInputs(inputs);
    QVERIFY(!run.isResultStale());
    QCOMPARE(stale.count(), 2);
    QCOMPARE(stale.last().front().toBool(), false);
    // The same content read again (another object: a session reopened) is the same input.
    RunInputs sameContent = inputs;
    sameContent.data = std::make_shared<const Catalog>(*inputs.data);
    run.setCurrentInputs(sameContent);
    QVERIFY(!run.isResultStale());
    QCOMPARE(stale.count(), 2);
    // Other content of the same size is another input.
    RunInputs otherData = inputs;
    otherData.data = uniform(300, 70);
    run.setCurrentInputs(otherData);
    QVERIFY(run.isResultStale());
    // The same value again: no new signal.
    run.setCurrentInputs(otherData);
    QCOMPARE(stale.count(), 3);
    // While the run with those inputs goes on, nothing is marked; it ends current.
    const CorrelationParams rerun = paramsFor(otherData.data, inputs.randoms.front(), "cpu");
    QVERIFY(run.start(rerun, otherData));
    QVERIFY(!run.isResultStale());
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!run.isResultStale());
    QVERIFY(run.resultInputs() == otherData);
}

void TestRunController::partialResultsAtMostOncePerTick() {
    const auto gpu = std::make_shared<BlockingGpuProvider>();
    RunController run(BackendRegistry().add(gpu));
    run.setRefreshInterval(40);
    QSignalSpy partials(&run, &RunController::partialResult);
    QSignalSpy progress(&run, &RunController::progress);
    QSignalSpy failed(&run, &RunController::failed);
    const CorrelationParams params = paramsFor(uniform(100, 9), uniform(100, 10), "cuda");
    QVERIFY(run.start(params, inputsFor(params, QStringLiteral("blocked"))));
    QVERIFY(gpu->waitEntered()); // running, and silent until released

    // A burst of reports from the worker (as a fast backend would send them): each reaches the
    // progress signal, only the latest partial reaches the plots, once.
    auto burst = [&](int count, std::size_t firstBins) {
        for (int i = 0; i < count; ++i) {
            JobProgressUpdate update;
            update.fraction = 0.01 * (i + 1);
            update.partial = partialWithBins(firstBins + std::size_t(i));
            Q_EMIT run.worker()->progress(update);
        }
    };
    burst(50, 100);
    QVERIFY(partials.wait(5000));
    QTest::qWait(5 * run.refreshInterval()); // several ticks with nothing new
    QCOMPARE(progress.count(), 50);
    QCOMPARE(partials.count(), 1);
    QCOMPARE(partials.front().front().value<ResultPtr>()->w.size(), std::size_t(149));
    // Reports without a partial move the progress only.
    JobProgressUpdate noPartial;
    noPartial.fraction = 0.6;
    Q_EMIT run.worker()->progress(noPartial);
    QTest::qWait(5 * run.refreshInterval());
    QCOMPARE(partials.count(), 1);
    QCOMPARE(progress.count(), 51);
    burst(20, 300);
    QVERIFY(partials.wait(5000));
    QTest::qWait(5 * run.refreshInterval());
    QCOMPARE(partials.count(), 2);
    QCOMPARE(partials.last().front().value<ResultPtr>()->w.size(), std::size_t(319));

    gpu->release();
    QVERIFY(failed.wait(kTimeoutMs));
    // Reports that arrive after the run ended are dropped, partials included.
    burst(5, 500);
    QTest::qWait(5 * run.refreshInterval());
    QCOMPARE(partials.count(), 2);
    QCOMPARE(progress.count(), 71);
}

void TestRunController::regionLabelsAreReadFirst() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Positions and a region label (0..3) per row.
    auto write = [&dir](const QString& name, int rows, int seed) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly))
            return QString();
        for (int i = 0; i < rows; ++i)
            file.write(QStringLiteral("%1 %2 %3\n")
                           .arg(150 + (i * 7 + seed) % 200 * 0.1)
                           .arg((i * 13 + seed) % 200 * 0.1)
                           .arg(i % 4)
                           .toUtf8());
        return dir.filePath(name);
    };
    const QString dataPath = write(QStringLiteral("data.txt"), 400, 1);
    const QString randomPath = write(QStringLiteral("random.txt"), 800, 2);
    QVERIFY(!dataPath.isEmpty() && !randomPath.isEmpty());
    CatalogSet catalogs;
    CatalogChange change;
    change.data = CatalogSource{dataPath};
    change.randoms = {CatalogSource{randomPath}};
    QSignalSpy applied(&catalogs, &CatalogSet::changeApplied);
    catalogs.queueChange(change);
    QVERIFY(applied.wait(kTimeoutMs));

    RunController run(BackendRegistry{}, &catalogs);
    CorrelationParams params =
        paramsFor(catalogs.dataCatalog(), catalogs.randomCatalogs().front(), "cpu");
    // Not `= "3"`: GCC 12 reports a false -Wrestrict on that assignment at -O3.
    params.jackknife.regionColumn = std::string(1, '3');
    QSignalSpy started(&run, &RunController::jobStarted);
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start(params, inputsFor(params, QStringLiteral("labels")), QStringLiteral("3")));
    QCOMPARE(run.state(), RunController::State::ReadingRegions);
    QCOMPARE(started.count(), 0);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(started.count(), 1);
    const auto result = finished.front().front().value<ResultPtr>();
    QVERIFY(result->hasJackknife());
    QCOMPARE(result->jackknifeRegions.count, 4);

    // A column the files lack: the run fails and says which column.
    QSignalSpy failed(&run, &RunController::failed);
    QVERIFY(run.start(params, inputsFor(params, QStringLiteral("labels")), QStringLiteral("9")));
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("region column '9'")));
    QCOMPARE(run.lastOutcome(), RunController::Outcome::Failed);
    QCOMPARE(run.result(), result);
}

void TestRunController::cancelWhileReadingRegionLabels() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("labelled.txt"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        for (int i = 0; i < 50; ++i)
            file.write(
                QStringLiteral("%1 %2 %3\n").arg(150 + i * 0.1).arg(i * 0.1).arg(i % 2).toUtf8());
    }
    CatalogSet catalogs;
    CatalogChange change;
    change.data = CatalogSource{path};
    change.randoms = {CatalogSource{path}};
    catalogs.queueChange(change);
    QVERIFY(QTest::qWaitFor([&] { return !catalogs.isLoading(); }, kTimeoutMs));
    RunController run(BackendRegistry{}, &catalogs);
    CorrelationParams params =
        paramsFor(catalogs.dataCatalog(), catalogs.randomCatalogs().front(), "cpu");
    QSignalSpy cancelled(&run, &RunController::cancelled);
    QSignalSpy started(&run, &RunController::jobStarted);
    QVERIFY(run.start(params, inputsFor(params, QStringLiteral("x")), QStringLiteral("3")));
    run.cancel();
    // Nothing to wait for: cancelled before cancel() returns, and the job never starts.
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(run.state(), RunController::State::Idle);
    QCOMPARE(run.lastOutcome(), RunController::Outcome::Cancelled);
    QTest::qWait(200);
    QCOMPARE(started.count(), 0);
    QCOMPARE(cancelled.count(), 1);
}

void TestRunController::secondSampleProblem_data() {
    QTest::addColumn<bool>("hasData2");
    QTest::addColumn<int>("randoms");
    QTest::addColumn<int>("randoms2");
    QTest::addColumn<QString>("reason"); // a word the reason must hold; empty: no problem
    QTest::newRow("one sample") << false << 2 << 0 << QString();
    QTest::newRow("shared randoms") << true << 2 << 0 << QString();
    QTest::newRow("paired randoms") << true << 2 << 2 << QString();
    QTest::newRow("one random set each") << true << 1 << 1 << QString();
    QTest::newRow("fewer randoms2") << true << 2 << 1 << QStringLiteral("paired");
    QTest::newRow("more randoms2") << true << 1 << 3 << QStringLiteral("paired");
    QTest::newRow("randoms2 without data2") << false << 1 << 1 << QStringLiteral("no data");
}

void TestRunController::secondSampleProblem() {
    QFETCH(bool, hasData2);
    QFETCH(int, randoms);
    QFETCH(int, randoms2);
    QFETCH(QString, reason);
    const QString problem = RunController::secondSampleProblem(hasData2, randoms, randoms2);
    if (reason.isEmpty()) {
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        return;
    }
    QVERIFY2(problem.contains(reason), qPrintable(problem));
    if (hasData2) // it names both counts
        QVERIFY(problem.contains(QString::number(randoms)) &&
                problem.contains(QString::number(randoms2)));
}

void TestRunController::crossRunPassesTheSecondSample() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Footprint box = Footprint::box(150, 170, 0, 20);
    auto write = [&dir, &box](const QString& name, std::size_t count, std::uint64_t seed) {
        const QString path = dir.filePath(name);
        writeCatalogAscii(path.toStdString(), generateUniformRandoms(count, box, seed));
        return path;
    };
    CatalogSet catalogs;
    CatalogChange change;
    change.data = CatalogSource{write(QStringLiteral("d1.txt"), 300, 21)};
    change.randoms = {CatalogSource{write(QStringLiteral("r1.txt"), 500, 22)}};
    change.data2 = CatalogSource{write(QStringLiteral("d2.txt"), 200, 23)};
    change.randoms2 = {CatalogSource{write(QStringLiteral("r2.txt"), 400, 24)}};
    catalogs.queueChange(change);
    QVERIFY(QTest::qWaitFor([&] { return !catalogs.isLoading(); }, kTimeoutMs));

    // The params of the loaded catalogs carry the second sample.
    CorrelationParams params = RunController::catalogParams(catalogs);
    QCOMPARE(params.data, catalogs.dataCatalog());
    QCOMPARE(params.data2, catalogs.data2Catalog());
    QVERIFY(params.randoms == catalogs.randomCatalogs());
    QVERIFY(params.randoms2 == catalogs.random2Catalogs());
    params.bins = BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 5);
    params.backend.name = "cpu";
    params.backend.cpuThreads = 1;

    RunController run(BackendRegistry{}, &catalogs);
    QSignalSpy finished(&run, &RunController::finished);
    RunInputs inputs = inputsFor(params, QStringLiteral("cross"));
    inputs.data2 = params.data2;
    inputs.randoms2 = params.randoms2;
    run.setCurrentInputs(inputs);
    QVERIFY(run.start(params, inputs));
    QVERIFY(finished.wait(kTimeoutMs));
    const auto result = finished.front().front().value<ResultPtr>();
    QVERIFY(result->isCross());
    QCOMPARE(result->data.size, std::uint64_t(300));
    QCOMPARE(result->data2.size, std::uint64_t(200));
    QCOMPARE(result->randoms2.size(), std::size_t(1));
    // D1D2 never exceeds N1·N2 (a cross count, not an auto count of either sample).
    std::uint64_t pairs = 0;
    for (const std::uint64_t count : result->raw.dd)
        pairs += count;
    QVERIFY(pairs > 0 && pairs <= 300ull * 200ull);
    QVERIFY(!run.isResultStale());
    // The second sample is part of the inputs: another data2 makes the result stale (the same
    // content again does not).
    RunInputs sameData2 = inputs;
    sameData2.data2 = std::make_shared<const Catalog>(*inputs.data2);
    run.setCurrentInputs(sameData2);
    QVERIFY(!run.isResultStale());
    RunInputs otherData2 = inputs;
    otherData2.data2 = uniform(200, 71);
    run.setCurrentInputs(otherData2);
    QVERIFY(run.isResultStale());
}

void TestRunController::crossRunWithRegionLabels() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // Positions and a region label (0..3) per row; sizes tell the catalogs apart.
    auto write = [&dir](const QString& name, int rows, int seed) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly))
            return QString();
        for (int i = 0; i < rows; ++i)
            file.write(QStringLiteral("%1 %2 %3\n")
                           .arg(150 + (i * 7 + seed) % 200 * 0.1)
                           .arg((i * 13 + seed) % 200 * 0.1)
                           .arg(i % 4)
                           .toUtf8());
        return dir.filePath(name);
    };
    CatalogSet catalogs;
    CatalogChange change;
    change.data = CatalogSource{write(QStringLiteral("d1.txt"), 400, 1)};
    change.randoms = {CatalogSource{write(QStringLiteral("r1.txt"), 800, 2)}};
    change.data2 = CatalogSource{write(QStringLiteral("d2.txt"), 300, 3)};
    change.randoms2 = {CatalogSource{write(QStringLiteral("r2.txt"), 700, 4)}};
    QSignalSpy applied(&catalogs, &CatalogSet::changeApplied);
    catalogs.queueChange(change);
    QVERIFY(applied.wait(kTimeoutMs));

    RunController run(BackendRegistry{}, &catalogs);
    CorrelationParams params = RunController::catalogParams(catalogs);
    params.bins = BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 5);
    params.backend.name = "cpu";
    params.backend.cpuThreads = 1;
    params.jackknife.regionColumn = std::string(1, '3');
    QSignalSpy finished(&run, &RunController::finished);
    QSignalSpy failed(&run, &RunController::failed);
    QVERIFY(run.start(params, inputsFor(params, QStringLiteral("labels")), QStringLiteral("3")));
    QCOMPARE(run.state(), RunController::State::ReadingRegions);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(failed.count(), 0);
    const auto result = finished.front().front().value<ResultPtr>();
    // The re-read catalogs went back to their places: each keeps its size.
    QVERIFY(result->isCross());
    QCOMPARE(result->data.size, std::uint64_t(400));
    QCOMPARE(result->randoms.front().size, std::uint64_t(800));
    QCOMPARE(result->data2.size, std::uint64_t(300));
    QCOMPARE(result->randoms2.front().size, std::uint64_t(700));
    QVERIFY(result->hasJackknife());
    QCOMPARE(result->jackknifeRegions.count, 4);
}

TPACF_TEST_MAIN(TestRunController)
void TestRunController::newDataReusesTheRandomCounts() {
    RunController run(BackendRegistry{});
    const std::shared_ptr<const Catalog> random = uniform(2000, 11);
    const CorrelationParams first = paramsFor(uniform(500, 10), random, "cpu");
    const ResultPtr firstResult = runThrough(run, first, QStringLiteral("first"));
    QVERIFY(firstResult);
    QVERIFY(firstResult->reusedCounts.empty()); // nothing cached before the first run
    QVERIFY(!run.resultWasOfferedCache());
    QVERIFY(firstResult->counts);
    QVERIFY(run.countCache());
    // The provenance of a Studio run.
    QVERIFY(!firstResult->invocation.empty());
    QVERIFY(firstResult->invocation.rfind("TPACF Studio ", 0) == 0);
    QVERIFY(firstResult->invocation.find("session") != std::string::npos);

    const CorrelationParams second = paramsFor(uniform(500, 12), random, "cpu");
    const ResultPtr result = runThrough(run, second, QStringLiteral("second"));
    QVERIFY(result);
    QCOMPARE(result->reusedCounts.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(result->reusedCounts.front()),
             QStringLiteral("RR_1 from the counts of the previous run"));
    QVERIFY(run.resultWasOfferedCache());
    QVERIFY(mentions(result->notes, "counted afresh: DD, DR_1"));
    QVERIFY(!result->invocation.empty());
    const CorrelationResult fresh = freshRun(second);
    QVERIFY(fresh.reusedCounts.empty());
    QVERIFY(sameW(result->w, fresh.w));
    QVERIFY(result->rrSummed() == fresh.rrSummed());
}

void TestRunController::newEstimatorReusesEveryCount() {
    RunController run(BackendRegistry{});
    CorrelationParams params = paramsFor(uniform(500, 20), uniform(2000, 21), "cpu");
    QVERIFY(runThrough(run, params, QStringLiteral("landy-szalay")));
    params.estimator = Estimator::Natural;
    const ResultPtr result = runThrough(run, params, QStringLiteral("natural"));
    QVERIFY(result);
    QCOMPARE(result->estimator, Estimator::Natural);
    QVERIFY(mentions(result->reusedCounts, "RR_1"));
    QVERIFY(mentions(result->reusedCounts, "the counts of the previous run"));
    QVERIFY(!mentions(result->notes, "counted afresh"));
    QVERIFY(sameW(result->w, freshRun(params).w));
    // A re-run of the very same inputs counts afresh.
    QSignalSpy finished(&run, &RunController::finished);
    QVERIFY(run.start(params, inputsFor(params, QStringLiteral("natural"))));
    QVERIFY(finished.wait(kTimeoutMs));
    const auto rerun = finished.front().front().value<ResultPtr>();
    QVERIFY(rerun);
    QVERIFY(rerun->reusedCounts.empty());
    QVERIFY(!run.resultWasOfferedCache()); // counted afresh on purpose, not for want of a match
    QVERIFY(sameW(rerun->w, result->w));
}

void TestRunController::weightedNewDataReusesTheRandomCounts() {
    RunController run(BackendRegistry{});
    const std::shared_ptr<const Catalog> random = weighted(*uniform(2000, 31));
    QVERIFY(runThrough(run, paramsFor(weighted(*uniform(500, 30)), random, "cpu"),
                       QStringLiteral("first")));
    const CorrelationParams second = paramsFor(weighted(*uniform(500, 32)), random, "cpu");
    const ResultPtr result = runThrough(run, second, QStringLiteral("second"));
    QVERIFY(result);
    QVERIFY(result->isWeighted());
    QVERIFY(mentions(result->reusedCounts, "RR_1"));
    QVERIFY(sameW(result->w, freshRun(second).w, 1e-12));
}

void TestRunController::newRandomsReuseNoRandomCounts() {
    RunController run(BackendRegistry{});
    const std::shared_ptr<const Catalog> data = uniform(500, 40);
    QVERIFY(runThrough(run, paramsFor(data, uniform(2000, 41), "cpu"), QStringLiteral("first")));
    const CorrelationParams second = paramsFor(data, uniform(2000, 42), "cpu");
    const ResultPtr result = runThrough(run, second, QStringLiteral("second"));
    QVERIFY(result);
    QVERIFY(!mentions(result->reusedCounts, "RR")); // DD may be reused, RR_1 not
    QVERIFY(mentions(result->notes, "RR_1"));        // counted afresh
    QVERIFY(sameW(result->w, freshRun(second).w));
    // The cache follows the last run: its randoms are now the ones reused.
    const ResultPtr third = runThrough(run, paramsFor(uniform(500, 43), second.randoms.front(),
                                                      "cpu"),
                                       QStringLiteral("third"));
    QVERIFY(third);
    QVERIFY(mentions(third->reusedCounts, "RR_1"));
}

void TestRunController::clearedCacheReusesNothing() {
    RunController run(BackendRegistry{});
    const std::shared_ptr<const Catalog> random = uniform(2000, 51);
    QVERIFY(runThrough(run, paramsFor(uniform(500, 50), random, "cpu"), QStringLiteral("first")));
    QVERIFY(run.countCache());
    run.clearCountCache();
    QVERIFY(!run.countCache());
    const ResultPtr result =
        runThrough(run, paramsFor(uniform(500, 52), random, "cpu"), QStringLiteral("second"));
    QVERIFY(result);
    QVERIFY(result->reusedCounts.empty());
    QVERIFY(!run.resultWasOfferedCache());
    QVERIFY(result->counts); // and its counts are cached again
    QVERIFY(run.countCache());
}

void TestRunController::otherBinsReuseNothing() {
    // The cache is offered, matches nothing (the bins differ) and the run counts everything:
    // what Studio reports as "no counts of the previous run matched".
    RunController run(BackendRegistry{});
    CorrelationParams params = paramsFor(uniform(500, 60), uniform(2000, 61), "cpu");
    QVERIFY(runThrough(run, params, QStringLiteral("five per decade")));
    params.bins = BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 4);
    const ResultPtr result = runThrough(run, params, QStringLiteral("four per decade"));
    QVERIFY(result);
    QVERIFY(run.resultWasOfferedCache());
    QVERIFY(result->reusedCounts.empty());
    QVERIFY(!mentions(result->notes, "counted afresh")); // no partial reuse to explain
    const CorrelationResult fresh = freshRun(params);
    QVERIFY(sameW(result->w, fresh.w));
    QVERIFY(result->rrSummed() == fresh.rrSummed());
}

#include "test_run_controller.moc"
