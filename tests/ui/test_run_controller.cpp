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
    // A different catalog (even with the same content) is a different input.
    RunInputs otherData = inputs;
    otherData.data = std::make_shared<const Catalog>(*inputs.data);
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
    // The second sample is part of the inputs: another data2 makes the result stale.
    RunInputs otherData2 = inputs;
    otherData2.data2 = std::make_shared<const Catalog>(*inputs.data2);
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
#include "test_run_controller.moc"
