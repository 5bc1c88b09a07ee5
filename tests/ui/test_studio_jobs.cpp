// SPDX-License-Identifier: GPL-3.0-or-later
// TPACF Studio on the offscreen platform: Runs against a direct CorrelationJob, cancel, invalid
// bins, culling, GPU failures, stale results, custom edges, reused counts.
#include "command_line_export.h"
#include "studio_suite.h"

using namespace studiosuite;

class TestStudioJobs : public StudioSuite {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { initFixture(); }
    void runMatchesDirectJob();
    void cancelIsImmediateAndANewRunWorks();
    void invalidBinsDisableRun();
    void cullingChoiceReachesTheRun();
    void gpuDevicesListedAndFailuresReported();
    void staleResultIsMarked();
    void customEdgesDisableRunAndRoundTrip();
    void reusedCountsAreLoggedAndForgettable();
    void meanSeparationReachesTableplotsAndSession();
};

void TestStudioJobs::runMatchesDirectJob() {
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(window->canRun());
    QSignalSpy progress(window->worker(), &JobWorker::progress);
    QSignalSpy finished(window.get(), &MainWindow::runFinished);

    QVERIFY(window->startRun());
    QVERIFY(window->isRunning());
    QVERIFY(!window->runButton()->isEnabled());
    QVERIFY(!window->startRun()); // a second run cannot start while one runs
    QVERIFY(finished.wait(30000));
    QVERIFY(!window->isRunning());
    QVERIFY(window->runButton()->isEnabled());
    QVERIFY(progress.count() >= 1);
    QCOMPARE(window->progressBar()->value(), window->progressBar()->maximum());
    const ResultPtr result = window->currentResult();
    QVERIFY(result);

    // The same inputs straight through the core.
    CorrelationParams params;
    params.data = std::make_shared<const Catalog>(readCatalog(m_dataPath.toStdString()));
    params.randoms = {std::make_shared<const Catalog>(readCatalog(m_randomPath1.toStdString())),
                      std::make_shared<const Catalog>(readCatalog(m_randomPath2.toStdString()))};
    params.bins = m_bins;
    params.backend.name = "cpu";
    const CorrelationResult direct = CorrelationJob(params).run();
    QCOMPARE(result->binCount(), direct.binCount());
    QVERIFY(result->raw.dd == direct.raw.dd);
    QVERIFY(result->drSummed() == direct.drSummed());
    QVERIFY(result->rrSummed() == direct.rrSummed());

    // Table: every cell equals the direct result.
    ResultTableModel* model = window->resultModel();
    QCOMPARE(model->rowCount(), int(direct.binCount()));
    QCOMPARE(model->columnCount(), 10);
    const auto dr = direct.drSummed();
    const auto rr = direct.rrSummed();
    for (int k = 0; k < model->rowCount(); ++k) {
        const auto b = std::size_t(k);
        const double expected[10] = {direct.edges[b],         direct.edges[b + 1],
                                     direct.centres[b],       double(direct.raw.dd[b]),
                                     double(dr[b]),           double(rr[b]),
                                     direct.normalised.dd[b], direct.normalised.dr[b],
                                     direct.normalised.rr[b], direct.w[b]};
        for (int c = 0; c < 10; ++c)
            QVERIFY2(sameDouble(model->value(k, c), expected[c]),
                     qPrintable(QStringLiteral("row %1 column %2: %3 vs %4")
                                    .arg(k)
                                    .arg(c)
                                    .arg(model->value(k, c))
                                    .arg(expected[c])));
    }

    // Plots: the w(θ) points and the three normalised series equal the direct result.
    PlotPanel* plots = window->plotPanel();
    QVector<QPointF> expectedW;
    for (std::size_t k = 0; k < direct.binCount(); ++k)
        if (std::isfinite(direct.w[k]))
            expectedW.append(QPointF(direct.centres[k], direct.w[k]));
    QVERIFY(!expectedW.isEmpty());
    QCOMPARE(plots->plottedW(), expectedW);
    const std::vector<double>* series[3] = {&direct.normalised.dd, &direct.normalised.dr,
                                            &direct.normalised.rr};
    for (int s = 0; s < 3; ++s) {
        QVector<QPointF> expected;
        for (std::size_t k = 0; k < direct.binCount(); ++k)
            if (std::isfinite((*series[s])[k]))
                expected.append(QPointF(direct.centres[k], (*series[s])[k]));
        QCOMPARE(plots->plottedCounts(PlotPanel::Series(s)), expected);
    }
    // Linear y: the graph itself holds every finite w with its sign.
    plots->setLogY(PlotPanel::Plot::Correlation, false);
    QCPGraph* wGraph = plots->plot(PlotPanel::Plot::Correlation)->graph(0);
    QCOMPARE(wGraph->dataCount(), int(expectedW.size()));
    for (int i = 0; i < wGraph->dataCount(); ++i) {
        QCOMPARE(wGraph->data()->at(i)->key, expectedW[i].x());
        QCOMPARE(wGraph->data()->at(i)->value, expectedW[i].y());
    }
    // Log y: positive w in the first graph, |w| of negative ones in the second.
    plots->setLogY(PlotPanel::Plot::Correlation, true);
    QCPGraph* negGraph = plots->plot(PlotPanel::Plot::Correlation)->graph(1);
    QCOMPARE(wGraph->dataCount() + negGraph->dataCount(), int(expectedW.size()));
    for (int i = 0; i < negGraph->dataCount(); ++i)
        QVERIFY(negGraph->data()->at(i)->value > 0);

    // Copy: Ctrl+C text of a whole-row selection starts with the CSV's column names.
    window->resultView()->selectAll();
    const QString copied = window->resultView()->selectionAsText();
    QVERIFY(copied.startsWith(QStringLiteral("theta_lo\ttheta_hi\ttheta_mid\tDD")));
    QCOMPARE(copied.count(QLatin1Char('\n')), model->rowCount() + 1);
    QTest::keyClick(window->resultView(), Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QGuiApplication::clipboard()->text(), copied);
}

void TestStudioJobs::cancelIsImmediateAndANewRunWorks() {
    // Big enough that a run takes far longer than the test: ~2·10^10 pairs per count.
    const Footprint sky = Footprint::box(0, 90, -30, 30);
    const QString bigData = writeCatalog(QStringLiteral("big_data.txt"),
                                         generateUniformRandoms(200000, sky, 21, "big_data"));
    const QString bigRandom = writeCatalog(QStringLiteral("big_random.txt"),
                                           generateUniformRandoms(200000, sky, 22, "big_random"));
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{bigData}); }));
    QVERIFY(
        loadAndWait(*window, [&] { return window->addRandomCatalog(CatalogSource{bigRandom}); }));
    window->binningPanel()->setSpec(BinSpec::logPerDecade(0.1, 1000, AngleUnit::Arcminute, 5));
    BackendOptions cpu;
    cpu.name = "cpu";
    window->backendPanel()->setBackendOptions(cpu);

    QSignalSpy progress(window->worker(), &JobWorker::progress);
    QSignalSpy cancelled(window.get(), &MainWindow::runCancelled);
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun());
    QVERIFY(progress.wait(15000)); // the job is really counting
    QVERIFY(window->isRunning());
    // Live plots: while the run counts, the plots show a partial result of it (within a few
    // 4 Hz ticks on an idle machine; the limit leaves room for one busy with other suites).
    QTRY_VERIFY_WITH_TIMEOUT(window->plotPanel()->result() != nullptr, 15000);
    QVERIFY(window->plotPanel()->result()->binCount() > 0);
    QVERIFY(window->isRunning());

    QElapsedTimer sinceCancel;
    sinceCancel.start();
    window->cancelRun();
    QVERIFY(cancelled.wait(5000));
    const qint64 latencyMs = sinceCancel.elapsed();
    qInfo("cancel latency: %lld ms", latencyMs);
    QVERIFY2(latencyMs < 1000, qPrintable(QStringLiteral("cancel took %1 ms").arg(latencyMs)));
    QVERIFY(finished.isEmpty());
    QVERIFY(!window->isRunning());
    QVERIFY(!window->worker()->isBusy());
    QVERIFY(window->runButton()->isEnabled());
    QVERIFY(!window->currentResult());

    // A new run on small inputs completes.
    QVERIFY(
        loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{m_dataPath}); }));
    window->removeRandomCatalog(0);
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath1}); }));
    window->binningPanel()->setSpec(m_bins);
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);
    QCOMPARE(result->status, JobStatus::Completed);
    QCOMPARE(window->resultModel()->rowCount(), int(result->binCount()));
}

void TestStudioJobs::invalidBinsDisableRun() {
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(window->runButton()->isEnabled());
    BinningPanel* bins = window->binningPanel();

    // min > max through the widgets, as a user would type it.
    bins->minSpin()->setValue(100);
    bins->maxSpin()->setValue(10);
    QVERIFY(!bins->isValid());
    QVERIFY(!window->canRun());
    QVERIFY(!window->runButton()->isEnabled());
    QVERIFY(window->runBlockedReason().startsWith(QStringLiteral("Run disabled")));
    QVERIFY(window->runBlockedReason().contains(bins->problem()));
    QVERIFY(!bins->problem().isEmpty());
    auto* reasonLabel = window->findChild<QLabel*>(QStringLiteral("runBlockedReason"));
    QVERIFY(reasonLabel);
    QCOMPARE(reasonLabel->text(), window->runBlockedReason());
    auto* inlineError = window->findChild<QLabel*>(QStringLiteral("binningError"));
    QVERIFY(inlineError && !inlineError->isHidden());
    QVERIFY(!window->startRun());
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1500, 940);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("invalid-bins.png")));
    }

    // Log bins need min > 0.
    bins->setSpec(BinSpec::logPerDecade(0.0, 10.0, AngleUnit::Degree, 5));
    QVERIFY(!window->runButton()->isEnabled());
    // Beyond 180°.
    bins->setSpec(BinSpec::linearCount(0.0, 200.0, AngleUnit::Degree, 10));
    QVERIFY(!window->runButton()->isEnabled());

    // Valid again: Run comes back.
    bins->setSpec(BinSpec::linearCount(0.0, 2.0, AngleUnit::Degree, 8));
    QVERIFY(bins->isValid());
    QCOMPARE(int(bins->binning()->count()), 8);
    QVERIFY(window->runButton()->isEnabled());
    QVERIFY(inlineError->isHidden());

    // Missing randoms is a reason too.
    window->removeRandomCatalog(1);
    window->removeRandomCatalog(0);
    QVERIFY(!window->runButton()->isEnabled());
    QVERIFY(window->runBlockedReason().contains(QStringLiteral("random")));
}

void TestStudioJobs::cullingChoiceReachesTheRun() {
    auto window = makeWindow();
    QVERIFY(window);
    QComboBox* culling = window->backendPanel()->cullingCombo();
    // Auto by default, three choices, and a tooltip that says what it does.
    QCOMPARE(culling->count(), 3);
    QCOMPARE(window->backendPanel()->backendOptions().culling, CullingMode::Auto);
    QVERIFY(culling->toolTip().contains(QStringLiteral("θ max")));
    QVERIFY(culling->toolTip().contains(QStringLiteral("counts are the same")));

    QSignalSpy changed(window->backendPanel(), &BackendPanel::changed);
    culling->setCurrentIndex(culling->findData(int(CullingMode::Off)));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(window->session().settings.backend.culling, CullingMode::Off);

    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun());
    QVERIFY(finished.wait(30000));
    const ResultPtr result = window->currentResult();
    QVERIFY(result);
    QCOMPARE(result->cullingRequested, CullingMode::Off);
    QVERIFY(!result->culled);
    const auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    QVERIFY(log);
    QVERIFY2(log->toPlainText().contains(QStringLiteral("culling off (requested off)")),
             qPrintable(log->toPlainText()));

    // The exported CSV carries the metadata line.
    const QString csvPath = m_dir.filePath(QStringLiteral("culling.csv"));
    QVERIFY(window->exportResultCsv(csvPath));
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    QVERIFY(csv.readAll().contains("#   culling: 'off (requested off): brute force"));
}

void TestStudioJobs::gpuDevicesListedAndFailuresReported() {
    MainWindow window(BackendRegistry().add(std::make_shared<FakeGpuProvider>()), testOptions());
    QVERIFY(loadAndWait(window, [&] { return window.setDataCatalog(CatalogSource{m_dataPath}); }));
    QVERIFY(
        loadAndWait(window, [&] { return window.addRandomCatalog(CatalogSource{m_randomPath1}); }));
    window.binningPanel()->setSpec(m_bins);

    QComboBox* backends = window.backendPanel()->backendCombo();
    QStringList entries;
    for (int i = 0; i < backends->count(); ++i)
        entries.append(backends->itemText(i));
    // One decimal, as `tpacf devices` prints it.
    QVERIFY2(entries.contains(QStringLiteral("GPU 1: Fake H100 (80.0 GiB)")),
             qPrintable(entries.join(QStringLiteral(" | "))));
    BackendOptions options;
    options.name = "cuda";
    options.gpuDevices = {1};
    options.precision = Precision::Float;
    window.backendPanel()->setBackendOptions(options);
    const BackendOptions chosen = window.backendPanel()->backendOptions();
    QCOMPARE(chosen.name, std::string("cuda"));
    QVERIFY(chosen.gpuDevices == std::vector<int>{1});
    QVERIFY(chosen.precision == Precision::Float);

    // The backend throws inside the job: the run fails through the message path, UI idle.
    QSignalSpy failed(&window, &MainWindow::runFailed);
    QSignalSpy messages(&window, &MainWindow::messageReported);
    QVERIFY(window.startRun());
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("fake device lost")));
    QVERIFY(!window.isRunning());
    QVERIFY(window.runButton()->isEnabled());
    bool reported = false;
    for (const auto& message : messages)
        reported =
            reported || (qvariant_cast<MessageSeverity>(message.at(0)) == MessageSeverity::Error &&
                         message.at(1).toString().contains(QStringLiteral("fake device lost")));
    QVERIFY(reported);
}

void TestStudioJobs::staleResultIsMarked() {
    auto window = makeWindow();
    QVERIFY(window);
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);
    PlotPanel* plots = window->plotPanel();
    auto* banner = window->findChild<QLabel*>(QStringLiteral("staleBanner"));
    auto* runLine = window->findChild<QLabel*>(QStringLiteral("staleResult"));
    auto* resultsDock = window->findChild<QDockWidget*>(QStringLiteral("resultsDock"));
    QVERIFY(banner && runLine && resultsDock);
    const QString marker = QStringLiteral("previous inputs");
    auto isMarked = [&] {
        const bool marked = plots->plotTitle(PlotPanel::Plot::Correlation).contains(marker) &&
                            plots->plotTitle(PlotPanel::Plot::PairCounts).contains(marker) &&
                            !banner->isHidden() && !runLine->isHidden() &&
                            resultsDock->windowTitle().contains(marker);
        const bool unmarked = !plots->plotTitle(PlotPanel::Plot::Correlation).contains(marker) &&
                              !plots->plotTitle(PlotPanel::Plot::PairCounts).contains(marker) &&
                              banner->isHidden() && runLine->isHidden() &&
                              !resultsDock->windowTitle().contains(marker);
        if (marked == unmarked) // half marked
            return -1;
        return marked == window->isResultStale() ? int(marked) : -1;
    };
    QCOMPARE(isMarked(), 0);

    // Bins: marked; back to the same edges: unmarked.
    window->binningPanel()->setSpec(BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 4));
    QCOMPARE(isMarked(), 1);
    // The result stays (shown and exportable, the export says what it is).
    QCOMPARE(window->currentResult(), result);
    QCOMPARE(plots->result(), result);
    QCOMPARE(window->resultModel()->rowCount(), int(result->binCount()));
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    const QString csvPath = m_dir.filePath(QStringLiteral("stale.csv"));
    QVERIFY(window->exportResultCsv(csvPath));
    QVERIFY(messages.last().at(1).toString().contains(marker));
    std::ostringstream expected;
    writeResultCsv(expected, *result);
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().toStdString(), expected.str());
    QVERIFY(window->exportPlot(0, m_dir.filePath(QStringLiteral("stale.png")), {600, 400, 100}));
    QVERIFY(messages.last().at(1).toString().contains(marker));
    window->binningPanel()->setSpec(m_bins);
    QCOMPARE(isMarked(), 0);

    // Estimator.
    window->backendPanel()->setEstimator(Estimator::Hamilton);
    QCOMPARE(isMarked(), 1);
    window->backendPanel()->setEstimator(Estimator::LandySzalay);
    QCOMPARE(isMarked(), 0);

    // Error settings: K without jackknife changes nothing; jackknife does.
    window->errorsPanel()->regionsSpin()->setValue(7);
    QCOMPARE(isMarked(), 0);
    chooseJackknife(*window, 7, 1);
    QCOMPARE(isMarked(), 1);
    window->errorsPanel()->methodCombo()->setCurrentIndex(0);
    QCOMPARE(isMarked(), 0);

    // The backend is not an input of w: every backend counts the same pairs.
    window->backendPanel()->threadsSpin()->setValue(1);
    QCOMPARE(isMarked(), 0);

    // Catalogs: a random added, then removed; the data read again from the same file (the
    // same content: not marked), then replaced by other content (marked).
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath1}); }));
    QCOMPARE(isMarked(), 1);
    window->removeRandomCatalog(2);
    QCOMPARE(isMarked(), 0);
    QVERIFY(
        loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{m_dataPath}); }));
    QCOMPARE(isMarked(), 0);
    QVERIFY(
        loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{m_randomPath2}); }));
    QCOMPARE(isMarked(), 1);
    QVERIFY(window->exportCovarianceCsv(m_dir.filePath(QStringLiteral("none.csv"))) == false);

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the window with a stale result.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1500, 940);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTest::qWait(100);
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("stale-result.png")));
    }

    // A run with the new inputs: current again.
    const ResultPtr rerun = runToCompletion(*window);
    QVERIFY(rerun && rerun != result);
    QCOMPARE(isMarked(), 0);
    // A cancelled run keeps the last result, still current when the inputs did not change.
    QSignalSpy cancelled(window.get(), &MainWindow::runCancelled);
    QVERIFY(window->startRun());
    window->cancelRun();
    QVERIFY(cancelled.count() == 1 || cancelled.wait(5000));
    QCOMPARE(window->currentResult(), rerun);
    QCOMPARE(isMarked(), 0);
}

void TestStudioJobs::customEdgesDisableRunAndRoundTrip() {
    auto window = makeWindow();
    QVERIFY(window);
    BinningPanel* bins = window->binningPanel();
    bins->scaleCombo()->setCurrentIndex(bins->scaleCombo()->findData(int(BinScale::Custom)));
    bins->edgesEdit()->setText(QStringLiteral("1, 30, 3"));
    QVERIFY(!bins->isValid());
    QVERIFY(!window->canRun());
    QVERIFY(window->runBlockedReason().contains(bins->problem()));
    QVERIFY(bins->problem().contains(QStringLiteral("edge 3 (3 arcmin)")));

    // 30.000000000000004 is the double after 30: a lossy step anywhere would make it 30.
    const std::vector<double> edges{1, 3, 10, std::nextafter(30.0, 31.0), 100};
    bins->edgesEdit()->setText(QStringLiteral("1, 3 10 30.000000000000004,100"));
    QVERIFY2(bins->isValid(), qPrintable(bins->problem()));
    QVERIFY(window->canRun());
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);
    QVERIFY(result->edges == edges);
    QCOMPARE(result->bins.scale, BinScale::Custom);

    const QString path = m_dir.filePath(QStringLiteral("custom_edges_session.json"));
    QVERIFY(window->saveSession(path));
    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    const BinSpec restored = reopened->binningPanel()->spec();
    QCOMPARE(restored.scale, BinScale::Custom);
    QCOMPARE(restored.unit, AngleUnit::Arcminute);
    QVERIFY(restored.edges == edges);
    QVERIFY(reopened->binningPanel()->isValid());
}

void TestStudioJobs::reusedCountsAreLoggedAndForgettable() {
    auto window = makeWindow();
    QVERIFY(window);
    const auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    auto* forget = window->findChild<QAction*>(QStringLiteral("forgetCountsAction"));
    QVERIFY(log && forget);
    QVERIFY(!forget->statusTip().isEmpty());
    QVERIFY(!forget->isEnabled()); // nothing cached yet
    QVERIFY(!window->forgetCachedCounts());
    const QString noMatch = QStringLiteral("No pair counts of the previous run matched");
    // The log lines a run adds (the log only grows here).
    const auto runAndLog = [&](ResultPtr& result) {
        const qsizetype before = log->toPlainText().size();
        result = runToCompletion(*window);
        return log->toPlainText().mid(before);
    };
    const auto reusedLines = [](const CorrelationResult& result) {
        QStringList lines;
        for (const std::string& reused : result.reusedCounts)
            lines << QStringLiteral("Reused ") + QString::fromStdString(reused);
        return lines;
    };

    ResultPtr first;
    const QString firstLog = runAndLog(first);
    QVERIFY(first);
    QVERIFY(first->reusedCounts.empty());
    QVERIFY2(!firstLog.contains(QStringLiteral("Reused")) && !firstLog.contains(noMatch),
             qPrintable(firstLog));
    QVERIFY(forget->isEnabled()); // its counts are cached now

    // Only the data changes: RR of both random sets comes from the cache.
    MockParams mock;
    mock.count = 2500;
    mock.seed = 8;
    mock.footprint = Footprint::box(150, 170, 0, 20);
    mock.outerRadiusDeg = 3;
    const QString otherData =
        writeCatalog(QStringLiteral("data_other.txt"), generateClusteredMock(mock, "other"));
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{otherData}); }));
    ResultPtr newData;
    const QString newDataLog = runAndLog(newData);
    QVERIFY(newData);
    QCOMPARE(reusedLines(*newData),
             QStringList{QStringLiteral("Reused RR_1, RR_2 from the counts of the previous run")});
    QVERIFY2(newDataLog.contains(reusedLines(*newData).front()), qPrintable(newDataLog));
    QVERIFY2(!newDataLog.contains(noMatch), qPrintable(newDataLog));

    // Only the estimator changes: every count comes from the cache, and the log says so.
    window->backendPanel()->setEstimator(Estimator::Natural);
    ResultPtr natural;
    const QString naturalLog = runAndLog(natural);
    QVERIFY(natural);
    QCOMPARE(natural->estimator, Estimator::Natural);
    QVERIFY(!natural->reusedCounts.empty());
    for (const QString& line : reusedLines(*natural)) {
        QVERIFY2(line.contains(QStringLiteral("RR_1")) && line.contains(QStringLiteral("RR_2")),
                 qPrintable(line));
        QVERIFY2(naturalLog.contains(line), qPrintable(naturalLog));
    }

    // Forgotten: the next run (another estimator) counts everything and says nothing of reuse.
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    forget->trigger();
    QVERIFY(!forget->isEnabled());
    QVERIFY(!window->runController()->countCache());
    QCOMPARE(messages.count(), 1);
    QVERIFY(messages.front().at(1).toString().contains(QStringLiteral("counts every pair")));
    window->backendPanel()->setEstimator(Estimator::Hamilton);
    const qsizetype beforeAfresh = log->toPlainText().size();
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun());
    QVERIFY(!forget->isEnabled()); // nothing to forget while the run fills the cache
    QVERIFY(!window->forgetCachedCounts());
    QVERIFY(finished.wait(30000));
    const ResultPtr afresh = window->currentResult();
    QVERIFY(afresh);
    QVERIFY(afresh->reusedCounts.empty());
    const QString afreshLog = log->toPlainText().mid(beforeAfresh);
    QVERIFY2(!afreshLog.contains(QStringLiteral("Reused")) && !afreshLog.contains(noMatch),
             qPrintable(afreshLog));
    QVERIFY(forget->isEnabled()); // cached again

    // Other bins: the cache is offered but matches nothing, which the log says as such.
    window->binningPanel()->setSpec(BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 4));
    ResultPtr otherBins;
    const QString otherBinsLog = runAndLog(otherBins);
    QVERIFY(otherBins);
    QVERIFY(otherBins->reusedCounts.empty());
    QVERIFY2(!otherBinsLog.contains(QStringLiteral("Reused")) && otherBinsLog.contains(noMatch),
             qPrintable(otherBinsLog));
}

// Estimator panel: Mean separation per bin. The run carries ⟨θ⟩ and ⟨ln θ⟩ of DD, DR, RR (as
// the core's job gives them for the same inputs), the results table shows them, View ▸ Points at
// Mean Separation moves the w(θ) points there, and a saved session brings back the choice, the
// means of its last run and the point placement; the command line asks for --mean-theta.
void TestStudioJobs::meanSeparationReachesTableplotsAndSession() {
    auto window = makeWindow();
    QVERIFY(window);
    QCheckBox* check = window->backendPanel()->meanThetaCheck();
    QVERIFY(check && !check->isChecked());
    QSignalSpy changed(window->backendPanel(), &BackendPanel::changed);
    check->setChecked(true);
    QCOMPARE(changed.count(), 1);
    QVERIFY(window->session().settings.meanSeparation);

    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun());
    QVERIFY(finished.wait(30000));
    const ResultPtr result = window->currentResult();
    QVERIFY(result);
    QCOMPARE(result->meanSeparations.size(), std::size_t(3));

    CorrelationParams params;
    params.data = std::make_shared<const Catalog>(readCatalog(m_dataPath.toStdString()));
    params.randoms = {std::make_shared<const Catalog>(readCatalog(m_randomPath1.toStdString())),
                      std::make_shared<const Catalog>(readCatalog(m_randomPath2.toStdString()))};
    params.bins = m_bins;
    params.backend.name = "cpu";
    params.meanSeparation = true;
    const CorrelationResult direct = CorrelationJob(params).run();
    ResultTableModel* model = window->resultModel();
    int filled = 0;
    for (const MeanSeparation& mean : direct.meanSeparations) {
        const QString label = QString::fromStdString(mean.label);
        const int thetaColumn = model->columnIndex(QStringLiteral("mean_theta_") + label);
        const int logColumn = model->columnIndex(QStringLiteral("mean_log_theta_") + label);
        QVERIFY2(thetaColumn >= 0 && logColumn >= 0, qPrintable(label));
        for (int k = 0; k < model->rowCount(); ++k) {
            const double expected = mean.theta[std::size_t(k)];
            const double shown = model->value(k, thetaColumn);
            if (std::isnan(expected)) {
                QVERIFY(std::isnan(shown));
                continue;
            }
            ++filled;
            // The same sums in another order: equal to the last bits.
            QVERIFY2(std::abs(shown - expected) <= 1e-12 * expected,
                     qPrintable(QStringLiteral("%1 bin %2: %3 vs %4")
                                    .arg(label)
                                    .arg(k)
                                    .arg(shown, 0, 'g', 17)
                                    .arg(expected, 0, 'g', 17)));
            QVERIFY(std::abs(model->value(k, logColumn) - mean.logTheta[std::size_t(k)]) <=
                    1e-12 * std::abs(mean.logTheta[std::size_t(k)]) + 1e-15);
        }
    }
    QVERIFY(filled >= 6);

    // Points at the bin centres by default; at ⟨θ⟩ of DD once asked, a bin without DD pairs
    // staying at its centre.
    PlotPanel* plots = window->plotPanel();
    auto* atMean = window->findChild<QAction*>(QStringLiteral("meanThetaPointsAction"));
    QVERIFY(atMean && atMean->isCheckable() && !atMean->isChecked());
    const MeanSeparation* dd = result->meanSeparation("DD");
    QVERIFY(dd);
    const auto expectedKeys = [&](bool mean) {
        QVector<double> keys;
        for (std::size_t k = 0; k < result->binCount(); ++k)
            if (std::isfinite(result->w[k]))
                keys.append(mean && std::isfinite(dd->theta[k]) ? dd->theta[k]
                                                                : result->centres[k]);
        return keys;
    };
    const auto drawnKeys = [&] {
        QVector<double> keys;
        for (const QPointF& point : plots->plottedW())
            keys.append(point.x());
        return keys;
    };
    QCOMPARE(drawnKeys(), expectedKeys(false));
    atMean->trigger();
    QVERIFY(plots->pointsAtMeanTheta());
    QCOMPARE(drawnKeys(), expectedKeys(true));
    QVERIFY(drawnKeys() != expectedKeys(false));

    QVERIFY(runCommandLine(window->session()).arguments.contains(QStringLiteral("--mean-theta")));

    const QString path = m_dir.filePath(QStringLiteral("mean-theta-session.json"));
    QVERIFY(window->saveSession(path));
    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    QVERIFY(reopened->backendPanel()->meanThetaCheck()->isChecked());
    QVERIFY(reopened->plotPanel()->pointsAtMeanTheta());
    QVERIFY(reopened->findChild<QAction*>(QStringLiteral("meanThetaPointsAction"))->isChecked());
    const ResultPtr restored = reopened->currentResult();
    QVERIFY(restored);
    QCOMPARE(restored->meanSeparations.size(), std::size_t(3));
    const MeanSeparation* restoredDd = restored->meanSeparation("DD");
    QVERIFY(restoredDd);
    QCOMPARE(restoredDd->pairs, dd->pairs);
    for (std::size_t k = 0; k < dd->theta.size(); ++k)
        QVERIFY(sameDouble(restoredDd->theta[k], dd->theta[k]) &&
                sameDouble(restoredDd->logTheta[k], dd->logTheta[k]));
    QCOMPARE(reopened->plotPanel()->plottedW().size(), plots->plottedW().size());
    QCOMPARE(reopened->plotPanel()->plottedW().front().x(), plots->plottedW().front().x());
}

TPACF_TEST_MAIN(TestStudioJobs)
#include "test_studio_jobs.moc"
