// SPDX-License-Identifier: GPL-3.0-or-later
// TPACF Studio on the offscreen platform: Jackknife error bars and covariance, region-column
// warnings, invalid settings, settings round trip.
#include "studio_suite.h"

#include "command_line_export.h"

#include "fit_panel.h"

#include <QApplication>
#include <QMessageBox>
#include <QTimer>

using namespace studiosuite;

class TestStudioJackknife : public StudioSuite {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { initFixture(); }
    void jackknifeRunShowsErrorBarsAndCovariance();
    void jackknifeRegionColumnWarningsReachTheLog();
    void invalidJackknifeSettingsDisableRun();
    void jackknifeSettingsRoundTrip();
    void aReopenedSessionKeepsItsFitAndRegionMap();
    void bootstrapOfHealpixRegionsIsKept();
    void regionsAreSavedAndTakenFromAFile();
    void crossRegionWeightIsChosenAndKept();
};

namespace {

// The window's catalogs and bins as a job on the CPU, for a run through the core alone.
CorrelationParams cpuParamsOf(MainWindow& window) {
    CorrelationParams params;
    params.data = window.dataCatalog();
    params.randoms = window.randomCatalogs();
    params.bins = window.binningPanel()->spec();
    params.backend.name = "cpu";
    return params;
}

} // namespace

void TestStudioJackknife::jackknifeRunShowsErrorBarsAndCovariance() {
    // The bundled sample where this build has it (what a user runs first), else the test's.
    std::unique_ptr<MainWindow> window;
    if (QFile::exists(QStringLiteral(":/samples/sample_data.txt"))) {
        MainWindow::Options options = testOptions();
        options.loadSample = true;
        window = std::make_unique<MainWindow>(BackendRegistry{}, options);
        QVERIFY(waitForLoads(*window));
        window->binningPanel()->setSpec(m_bins);
        BackendOptions cpu;
        cpu.name = "cpu";
        window->backendPanel()->setBackendOptions(cpu);
    } else {
        window = makeWindow();
    }
    QVERIFY(window && window->dataCatalog());
    constexpr int kRegions = 12;
    constexpr quint64 kSeed = 5;
    chooseJackknife(*window, kRegions, kSeed);
    QVERIFY(window->canRun());
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);
    QVERIFY(result->hasJackknife());

    // The same catalogs and settings straight through the core.
    CorrelationParams params;
    params.data = window->dataCatalog();
    params.randoms = window->randomCatalogs();
    params.bins = m_bins;
    params.backend.name = "cpu";
    params.jackknife.regions = kRegions;
    params.jackknife.seed = kSeed;
    const CorrelationResult direct = CorrelationJob(params).run();
    QVERIFY(direct.hasJackknife());
    const std::size_t bins = direct.binCount();
    QCOMPARE(result->wError.size(), bins);
    QCOMPARE(result->jackknifeRegions.count, kRegions);

    // Error bars: σ of every plotted point equals the direct σ.
    PlotPanel* plots = window->plotPanel();
    QVector<double> expectedSigma;
    for (std::size_t k = 0; k < bins; ++k)
        if (std::isfinite(direct.w[k]))
            expectedSigma.append(direct.wError[k]);
    QCOMPARE(plots->plottedWErrors().size(), expectedSigma.size());
    for (int i = 0; i < expectedSigma.size(); ++i)
        QVERIFY2(sameDouble(plots->plottedWErrors()[i], expectedSigma[i]),
                 qPrintable(QStringLiteral("point %1: %2 vs %3")
                                .arg(i)
                                .arg(plots->plottedWErrors()[i])
                                .arg(expectedSigma[i])));
    // Linear y: the QCPErrorBars of the w graph draw exactly w ± σ.
    QCustomPlot* wPlot = plots->plot(PlotPanel::Plot::Correlation);
    plots->setLogY(PlotPanel::Plot::Correlation, false);
    QCPErrorBars* bars = nullptr;
    QCPErrorBars* negBars = nullptr;
    for (int i = 0; i < wPlot->plottableCount(); ++i)
        if (auto* candidate = qobject_cast<QCPErrorBars*>(wPlot->plottable(i)))
            (candidate->dataPlottable() == wPlot->graph(0) ? bars : negBars) = candidate;
    QVERIFY(bars && negBars);
    QVERIFY(bars->visible());
    QCOMPARE(bars->dataCount(), int(expectedSigma.size()));
    for (int i = 0; i < bars->dataCount(); ++i) {
        const double sigma = std::isfinite(expectedSigma[i]) ? expectedSigma[i] : 0.0;
        QCOMPARE(bars->data()->at(i).errorMinus, sigma);
        QCOMPARE(bars->data()->at(i).errorPlus, sigma);
    }
    // Log y: |w| ± σ; a bar reaching zero runs off the bottom of the frame, the others are σ.
    plots->setLogY(PlotPanel::Plot::Correlation, true);
    const double bottom = wPlot->yAxis->range().lower;
    QVERIFY(bottom > 0);
    for (QCPErrorBars* logBars : {bars, negBars}) {
        auto* graph = static_cast<QCPGraph*>(logBars->dataPlottable());
        QCOMPARE(logBars->dataCount(), graph->dataCount());
        for (int i = 0; i < logBars->dataCount(); ++i) {
            const double value = graph->data()->at(i)->value;
            const double minus = logBars->data()->at(i).errorMinus;
            const double plus = logBars->data()->at(i).errorPlus;
            QVERIFY(value > 0);
            if (value - plus <= 0) {
                QVERIFY2(value - minus < bottom && value - minus > 0,
                         qPrintable(QStringLiteral("bar %1 ends at %2, frame bottom %3")
                                        .arg(i)
                                        .arg(value - minus)
                                        .arg(bottom)));
            } else {
                QCOMPARE(minus, plus);
                QVERIFY(value - minus >= bottom);
            }
        }
    }

    // Table: w_err after w, equal to the direct σ; the copy header names it.
    ResultTableModel* model = window->resultModel();
    QCOMPARE(model->columnCount(), 11);
    QCOMPARE(model->wErrorColumn(), 10);
    QCOMPARE(model->headerData(10, Qt::Horizontal).toString(), QStringLiteral("w_err"));
    for (int k = 0; k < model->rowCount(); ++k)
        QVERIFY(sameDouble(model->value(k, 10), direct.wError[std::size_t(k)]));
    window->resultView()->selectAll();
    QVERIFY(window->resultView()
                ->selectionAsText()
                .section(QLatin1Char('\n'), 0, 0)
                .endsWith(QStringLiteral("\tw\tw_err")));
    // The exported CSV (the core's writer) has the same columns as the table.
    const QString csvPath = m_dir.filePath(QStringLiteral("jackknife.csv"));
    QVERIFY(window->exportResultCsv(csvPath));
    const ResultTable table = readResultCsv(csvPath.toStdString());
    QStringList csvColumns;
    for (const std::string& column : table.columns)
        csvColumns.append(QString::fromStdString(column));
    QCOMPARE(csvColumns, model->currentColumnNames());

    // The covariance CSV is the core writer's, byte for byte.
    const QString covPath = m_dir.filePath(QStringLiteral("covariance.csv"));
    QVERIFY(window->exportCovarianceCsv(covPath));
    std::ostringstream expectedCov;
    writeCovarianceCsv(expectedCov, *result);
    QFile covFile(covPath);
    QVERIFY(covFile.open(QIODevice::ReadOnly));
    QCOMPARE(covFile.readAll().toStdString(), expectedCov.str());

    // The form follows the name, as on the command line: FITS and VOTable by their extensions
    // (the same writers), for the result and the covariance; a JSON covariance is refused.
    const auto startsWith = [&](const QString& name, const QByteArray& head) {
        QFile file(m_dir.filePath(name));
        return file.open(QIODevice::ReadOnly) && file.read(head.size()) == head;
    };
    if (fitsOutputSupported()) {
        QVERIFY(window->exportResultCsv(m_dir.filePath(QStringLiteral("jackknife.fits"))));
        QVERIFY(startsWith(QStringLiteral("jackknife.fits"), "SIMPLE  ="));
        QVERIFY(window->exportCovarianceCsv(m_dir.filePath(QStringLiteral("covariance.fit"))));
        QVERIFY(startsWith(QStringLiteral("covariance.fit"), "SIMPLE  ="));
    }
    QVERIFY(window->exportResultCsv(m_dir.filePath(QStringLiteral("jackknife.vot"))));
    QVERIFY(startsWith(QStringLiteral("jackknife.vot"), "<?xml version=\"1.0\""));
    QVERIFY(window->exportCovarianceCsv(m_dir.filePath(QStringLiteral("covariance.xml"))));
    QVERIFY(startsWith(QStringLiteral("covariance.xml"), "<?xml version=\"1.0\""));
    QVERIFY(window->exportResultCsv(m_dir.filePath(QStringLiteral("jackknife.json"))));
    QVERIFY(startsWith(QStringLiteral("jackknife.json"), "{"));
    QVERIFY(!window->exportCovarianceCsv(m_dir.filePath(QStringLiteral("covariance.json"))));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("covariance.json"))));

    // Covariance view: the matrix, cell by cell, in covariance mode; unit diagonal as correlation.
    CovarianceView* covariance = plots->covarianceView();
    QCOMPARE(covariance->matrixSize(), int(bins));
    QCOMPARE(direct.covariance.size(), bins * bins);
    covariance->setMode(CovarianceView::Mode::Covariance);
    QCPColorMapData* cells = covariance->colorMap()->data();
    QCOMPARE(cells->keySize(), int(bins));
    QCOMPARE(cells->valueSize(), int(bins));
    for (std::size_t i = 0; i < bins; ++i)
        for (std::size_t j = 0; j < bins; ++j) {
            const double expected = direct.covariance[i * bins + j];
            QVERIFY(sameDouble(covariance->cellValue(int(i), int(j)), expected));
            QVERIFY(sameDouble(cells->cell(int(i), int(j)), expected));
        }
    covariance->setMode(CovarianceView::Mode::Correlation);
    for (std::size_t i = 0; i < bins; ++i)
        if (direct.wError[i] > 0)
            QVERIFY(std::abs(covariance->cellValue(int(i), int(i)) - 1.0) < 1e-12);
    QVERIFY(covariance->title().contains(QString::number(kRegions)));
    // It exports like the other plots.
    const QString png = m_dir.filePath(QStringLiteral("covariance.png"));
    QVERIFY(window->exportPlot(int(PlotPanel::Plot::Covariance), png, {1200, 1000, 200}));
    QCOMPARE(QImage(png).size(), QSize(1200, 1000));
    const QString pdf = m_dir.filePath(QStringLiteral("covariance.pdf"));
    QVERIFY(window->exportPlot(int(PlotPanel::Plot::Covariance), pdf, {}));
    QVERIFY(QFileInfo(pdf).size() > 1000);

    // Region map: the data coloured by region, with a toggle.
    SkyPlot* sky = window->skyPlot();
    QVERIFY(sky->hasRegions());
    QVERIFY(sky->regionsCheck()->isEnabled());
    QVERIFY(sky->plottedRegions() > 1 && sky->plottedRegions() <= kRegions);
    sky->regionsCheck()->setChecked(false);
    QCOMPARE(sky->plottedRegions(), 0);
    sky->regionsCheck()->setChecked(true);
    QVERIFY(sky->plottedRegions() > 1);

    // The log names the regions.
    auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    QVERIFY(log);
    QVERIFY(log->toPlainText().contains(QStringLiteral("Jackknife: %1 regions").arg(kRegions)));

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir keeps the window and the exports.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1500, 940);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("jackknife-window.png")));
        plots->setCurrentPlot(PlotPanel::Plot::Covariance);
        QTest::qWait(100);
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("jackknife-covariance.png")));
        QVERIFY(
            window->exportPlot(0, QDir(grabDir).filePath(QStringLiteral("export-w-err.png")), {}));
        QVERIFY(window->exportPlot(
            2, QDir(grabDir).filePath(QStringLiteral("export-covariance.png")), {}));
    }

    // A run without errors clears the bars, the w_err column, the matrix and the region map.
    window->errorsPanel()->methodCombo()->setCurrentIndex(0);
    const ResultPtr plain = runToCompletion(*window);
    QVERIFY(plain && !plain->hasJackknife());
    QVERIFY(!window->exportCovarianceCsv(m_dir.filePath(QStringLiteral("none.csv"))));
    QVERIFY(plots->plottedWErrors().isEmpty());
    QCOMPARE(model->columnCount(), 10);
    QCOMPARE(covariance->matrixSize(), 0);
    QVERIFY(!sky->hasRegions());
}

void TestStudioJackknife::jackknifeRegionColumnWarningsReachTheLog() {
    // Region labels 0..3 in a 'patch' column; region 3 holds no data point, only randoms.
    const Catalog data = readCatalog(m_dataPath.toStdString());
    const Catalog random = readCatalog(m_randomPath1.toStdString());
    auto writeWithPatch = [this](const QString& name, const Catalog& catalog, int regions) {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
            return QString();
        QTextStream out(&file);
        out.setRealNumberPrecision(17);
        out << "ra dec patch\n";
        for (std::size_t i = 0; i < catalog.size(); ++i) {
            const double ra = fromRadians(catalog.ra()[i], AngleUnit::Degree);
            out << ra << ' ' << fromRadians(catalog.dec()[i], AngleUnit::Degree) << ' '
                << qMin(regions - 1, int((ra - 150.0) / 20.0 * regions)) << '\n';
        }
        return path;
    };
    const QString dataPath = writeWithPatch(QStringLiteral("data_patch.txt"), data, 3);
    const QString randomPath = writeWithPatch(QStringLiteral("random_patch.txt"), random, 4);
    QVERIFY(!dataPath.isEmpty() && !randomPath.isEmpty());
    // Interactive, as a user has it: any message box the run raises is recorded and closed.
    MainWindow::Options options = testOptions();
    options.interactive = true;
    options.confirm = [](const QString&) { return true; };
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, options);
    QStringList boxes;
    QTimer watchdog;
    connect(&watchdog, &QTimer::timeout, [&] {
        if (QWidget* modal = QApplication::activeModalWidget()) {
            if (auto* box = qobject_cast<QMessageBox*>(modal))
                boxes.append(box->text());
            modal->close();
        }
    });
    watchdog.start(20);
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{dataPath}); }));
    QVERIFY(
        loadAndWait(*window, [&] { return window->addRandomCatalog(CatalogSource{randomPath}); }));
    window->binningPanel()->setSpec(m_bins);
    BackendOptions cpu;
    cpu.name = "cpu";
    window->backendPanel()->setBackendOptions(cpu);
    ErrorsPanel* errors = window->errorsPanel();
    errors->methodCombo()->setCurrentIndex(
        errors->methodCombo()->findData(int(ErrorSettings::Method::Column)));
    errors->columnEdit()->setText(QStringLiteral("patch"));
    QVERIFY2(window->canRun(), qPrintable(window->runBlockedReason()));

    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QSignalSpy failed(window.get(), &MainWindow::runFailed);
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun());
    QVERIFY(finished.wait(30000) || !failed.isEmpty());
    QVERIFY2(failed.isEmpty(),
             failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    const ResultPtr result = window->currentResult();
    QVERIFY(result && result->hasJackknife());
    const auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    QCOMPARE(result->jackknifeRegions.count, 4);
    QVERIFY(!result->jackknifeRegions.warnings.empty()); // region 3 holds no data point
    for (const std::string& warning : result->jackknifeRegions.warnings)
        QVERIFY2(log->toPlainText().contains(QString::fromStdString(warning)), warning.c_str());
    if (!result->jackknifeRegions.warnings.empty()) {
        bool warned = false;
        for (const auto& message : messages)
            warned =
                warned || qvariant_cast<MessageSeverity>(message.at(0)) == MessageSeverity::Warning;
        QVERIFY(warned);
    }
    // Issue 35, item 6: the warnings are in the log and the status bar, not in a box that
    // stops every jackknife run.
    QVERIFY2(boxes.isEmpty(), qPrintable(boxes.join(QLatin1Char('\n'))));
}

void TestStudioJackknife::invalidJackknifeSettingsDisableRun() {
    auto window = makeWindow();
    QVERIFY(window);
    ErrorsPanel* errors = window->errorsPanel();
    QCOMPARE(errors->settings().method, ErrorSettings::Method::None);
    QCOMPARE(errors->regionsSpin()->value(), 32);
    QCOMPARE(errors->regionsSpin()->minimum(), 2);
    // The core's limit: the GUI accepts what the job and the CLI accept.
    QCOMPARE(errors->regionsSpin()->maximum(), kMaxJackknifeRegions);
    QVERIFY(window->runButton()->isEnabled());
    auto* reasonLabel = window->findChild<QLabel*>(QStringLiteral("runBlockedReason"));
    auto* inlineError = window->findChild<QLabel*>(QStringLiteral("errorsError"));
    QVERIFY(reasonLabel && inlineError);

    // Regions from a column, but no column named.
    errors->methodCombo()->setCurrentIndex(
        errors->methodCombo()->findData(int(ErrorSettings::Method::Column)));
    QVERIFY(!errors->isValid());
    QVERIFY(!window->canRun());
    QVERIFY(!window->runButton()->isEnabled());
    QVERIFY(window->runBlockedReason().startsWith(QStringLiteral("Run disabled")));
    QVERIFY(window->runBlockedReason().contains(errors->problem()));
    QCOMPARE(reasonLabel->text(), window->runBlockedReason());
    QVERIFY(!inlineError->isHidden());
    QVERIFY(!window->startRun());
    errors->columnEdit()->setText(QStringLiteral("patch"));
    QVERIFY(errors->isValid());
    QVERIFY(inlineError->isHidden());
    QVERIFY(window->runButton()->isEnabled());

    // More regions than data points.
    const QString tiny =
        writeCatalog(QStringLiteral("tiny.txt"),
                     generateUniformRandoms(20, Footprint::box(150, 170, 0, 20), 3, "tiny"));
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{tiny}); }));
    chooseJackknife(*window, 32, 1);
    QVERIFY(!window->runButton()->isEnabled());
    QVERIFY(window->runBlockedReason().contains(QStringLiteral("32 regions")));
    QCOMPARE(reasonLabel->text(), window->runBlockedReason());
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1500, 940);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("invalid-jackknife.png")));
    }
    errors->regionsSpin()->setValue(10);
    QVERIFY(window->runButton()->isEnabled());
    // The spin box keeps K within the core's limits whatever is typed or loaded.
    errors->regionsSpin()->setValue(1);
    QCOMPARE(errors->regionsSpin()->value(), 2);
    ErrorSettings huge;
    huge.method = ErrorSettings::Method::Regions;
    huge.regions = 100000;
    errors->setSettings(huge);
    QCOMPARE(errors->settings().regions, kMaxJackknifeRegions);
    // No errors: always runnable.
    errors->methodCombo()->setCurrentIndex(0);
    QVERIFY(window->runButton()->isEnabled());
}

void TestStudioJackknife::jackknifeSettingsRoundTrip() {
    // Session file.
    auto window = makeWindow();
    QVERIFY(window);
    chooseJackknife(*window, 77, 123456);
    const ErrorSettings chosen = window->errorsPanel()->settings();
    QCOMPARE(chosen.method, ErrorSettings::Method::Regions);
    QCOMPARE(chosen.regions, 77);
    QCOMPARE(chosen.seed, quint64(123456));
    const JackknifeSettings jackknife = chosen.jackknife();
    QCOMPARE(jackknife.regions, 77);
    QVERIFY(jackknife.regionColumn.empty());
    QCOMPARE(jackknife.seed, std::uint64_t(123456));
    const QString path = m_dir.filePath(QStringLiteral("jackknife_session.json"));
    QVERIFY(window->saveSession(path));
    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    QVERIFY(reopened->errorsPanel()->settings() == chosen);
    QCOMPARE(QJsonDocument(reopened->session().toJson()).toJson(),
             QJsonDocument(window->session().toJson()).toJson());

    // Column mode keeps K and the seed for when the user switches back.
    ErrorSettings column = chosen;
    column.method = ErrorSettings::Method::Column;
    column.regionColumn = QStringLiteral("patch");
    column.seed = (quint64(1) << 60) + 3; // beyond a double's exact integers
    const ErrorSettings back = ErrorSettings::fromJson(column.toJson());
    QVERIFY(back == column);
    QCOMPARE(back.jackknife().regionColumn, std::string("patch"));
    QCOMPARE(back.jackknife().regions, 0);
    // An old session without errors opens with none.
    QCOMPARE(RunSettings::fromJson(QJsonObject()).errors.method, ErrorSettings::Method::None);

    // QSettings: remembered between starts.
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-ui-test"));
    QCoreApplication::setApplicationName(QStringLiteral("jackknifeSettingsRoundTrip"));
    QSettings().clear();
    MainWindow::Options options = testOptions();
    options.useSettings = true;
    ErrorSettings remembered;
    remembered.method = ErrorSettings::Method::Column;
    remembered.regions = 9;
    remembered.regionColumn = QStringLiteral("zone");
    remembered.seed = 42;
    {
        MainWindow first(BackendRegistry{}, options);
        first.errorsPanel()->setSettings(remembered);
        first.close(); // saves
    }
    MainWindow second(BackendRegistry{}, options);
    QVERIFY(second.errorsPanel()->settings() == remembered);
    QSettings().clear();
}

// Issue 35, item 8: a session saved with a fit and a jackknife run reopens with the same fit
// (range, constraint, A and γ as fitted before) and the sky map coloured by the same regions.
void TestStudioJackknife::aReopenedSessionKeepsItsFitAndRegionMap() {
    auto window = makeWindow();
    QVERIFY(window);
    chooseJackknife(*window, 8, 3);
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result && result->hasJackknife());
    QVERIFY(window->skyPlot()->hasRegions());
    QVERIFY(window->skyPlot()->regionsCheck()->isEnabled());
    const std::vector<std::int32_t> regions = *result->jackknifeRegions.dataRegions;
    FitPanel* fitPanel = window->plotPanel()->fitPanel();
    const auto range = FitPanel::defaultRange(*result);
    QVERIFY(range);
    PowerLawFitOptions asked;
    asked.thetaMin = range->first;
    asked.thetaMax = range->second;
    asked.integralConstraint = true;
    QVERIFY2(fitPanel->fitWith(asked), qPrintable(fitPanel->lastError()));
    const PowerLawFit fitted = *fitPanel->currentFit();
    const PowerLawFitOptions used = fitPanel->options(); // the range as the spin boxes hold it
    const QString path = m_dir.filePath(QStringLiteral("fitted_session.json"));
    QVERIFY(window->saveSession(path));

    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    FitPanel* again = reopened->plotPanel()->fitPanel();
    QVERIFY2(again->currentFit(), qPrintable(again->lastError()));
    QCOMPARE(again->options().thetaMin, used.thetaMin);
    QCOMPARE(again->options().thetaMax, used.thetaMax);
    QVERIFY(again->options().integralConstraint);
    QVERIFY(sameDouble(again->currentFit()->amplitude, fitted.amplitude));
    QVERIFY(sameDouble(again->currentFit()->gamma, fitted.gamma));
    QVERIFY(reopened->plotPanel()->fitButton()->isChecked());
    // The region map: enabled, and every data point in the region of the saved run.
    SkyPlot* sky = reopened->skyPlot();
    QVERIFY(sky->hasRegions());
    QVERIFY(sky->regionsCheck()->isEnabled());
    QVERIFY(sky->plottedRegions() > 0);
    QVERIFY(sky->regions());
    QVERIFY(*sky->regions() == regions);

    // Data that fall into the regions in other numbers (every tenth point dropped): no map, and
    // the Log says why, rather than a map of other regions.
    Session edited = window->session();
    const QString thinned = m_dir.filePath(QStringLiteral("thinned.txt"));
    {
        const Catalog& data = *window->dataCatalog();
        std::vector<double> ra, dec;
        for (std::size_t i = 0; i < data.size(); ++i)
            if (i % 10 != 0) {
                ra.push_back(data.ra()[i]);
                dec.push_back(data.dec()[i]);
            }
        writeCatalogAscii(thinned.toStdString(),
                          Catalog::fromRadians("thinned", std::move(ra), std::move(dec)));
    }
    edited.data = CatalogSource{thinned};
    auto other = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*other, [&] { return other->applySession(edited); }));
    QVERIFY(!other->skyPlot()->hasRegions());
    const auto* log = other->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    QVERIFY(log && log->toPlainText().contains(QStringLiteral("not coloured by the jackknife")));
}

// Errors ▸ Cross pairs: "match" as a user picks it gives the core's job with that weighting
// (and not the default's σ), says so in the Log, survives a saved session; the bootstrap refuses
// it in the panel, as the core does, until "mean" or the default is chosen.
void TestStudioJackknife::crossRegionWeightIsChosenAndKept() {
    auto window = makeWindow();
    QVERIFY(window);
    chooseJackknife(*window, 6, 3);
    ErrorsPanel* errors = window->errorsPanel();
    QComboBox* weight = errors->crossWeightCombo();
    QVERIFY(!weight->isHidden());
    QCOMPARE(weight->itemText(0), QStringLiteral("default (simple)"));
    weight->setCurrentIndex(weight->findText(QStringLiteral("match")));
    QCOMPARE(errors->settings().crossRegionWeight, std::optional(CrossRegionWeight::Match));
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result && result->hasJackknife());
    QCOMPARE(result->crossRegionWeight(), CrossRegionWeight::Match);

    CorrelationParams params = cpuParamsOf(*window);
    params.jackknife.regions = 6;
    params.jackknife.seed = 3;
    params.jackknife.crossRegionWeight = CrossRegionWeight::Match;
    const CorrelationResult direct = CorrelationJob(params).run();
    params.jackknife.crossRegionWeight.reset();
    const CorrelationResult simple = CorrelationJob(params).run();
    QCOMPARE(direct.wError.size(), result->wError.size());
    bool differsFromSimple = false;
    for (std::size_t b = 0; b < direct.wError.size(); ++b) {
        QVERIFY(sameDouble(direct.wError[b], result->wError[b]));
        differsFromSimple |= !sameDouble(simple.wError[b], result->wError[b]);
    }
    QVERIFY(differsFromSimple);
    const auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    QVERIFY(log && log->toPlainText().contains(QStringLiteral("(cross-region weight 'match')")));

    const QString path = m_dir.filePath(QStringLiteral("match_session.json"));
    QVERIFY(window->saveSession(path));
    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    QCOMPARE(reopened->errorsPanel()->settings().crossRegionWeight,
             std::optional(CrossRegionWeight::Match));
    const ResultPtr again = reopened->currentResult();
    QVERIFY(again && again->crossRegionWeight() == CrossRegionWeight::Match);

    errors->bootstrapSpin()->setValue(20);
    QVERIFY(!errors->isValid());
    QVERIFY(errors->problem().contains(QStringLiteral("by the mean only")));
    QCOMPARE(weight->itemText(0), QStringLiteral("default (mean)"));
    weight->setCurrentIndex(weight->findText(QStringLiteral("mean")));
    QVERIFY(errors->isValid());
}

TPACF_TEST_MAIN(TestStudioJackknife)
// Errors: K HEALPix regions and a bootstrap, as a user picks them: the run's σ is the
// bootstrap's (the core's job with the same settings gives the same numbers), the Log says so,
// and a saved session reopens with the same σ and draws.
void TestStudioJackknife::bootstrapOfHealpixRegionsIsKept() {
    auto window = makeWindow();
    QVERIFY(window);
    ErrorsPanel* errors = window->errorsPanel();
    errors->methodCombo()->setCurrentIndex(
        errors->methodCombo()->findData(int(ErrorSettings::Method::Healpix)));
    errors->regionsSpin()->setValue(6);
    errors->nsideCombo()->setCurrentIndex(errors->nsideCombo()->findData(16));
    QVERIFY(!errors->bootstrapSpin()->isHidden());
    errors->bootstrapSpin()->setValue(40);
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result && result->hasBootstrap());
    QCOMPARE(result->bootstrapSelections.size(), std::size_t(40));
    QVERIFY(result->jackknifeRegions.method.find("HEALPix NSIDE 16") != std::string::npos);

    // The same job through the core alone.
    CorrelationParams params = cpuParamsOf(*window);
    params.jackknife.regions = 6;
    params.jackknife.healpixNside = 16;
    params.jackknife.bootstrapSamples = 40;
    const CorrelationResult direct = CorrelationJob(params).run();
    QCOMPARE(direct.bootstrapSelections, result->bootstrapSelections);
    QCOMPARE(direct.wError.size(), result->wError.size());
    for (std::size_t b = 0; b < direct.wError.size(); ++b)
        QVERIFY(sameDouble(direct.wError[b], result->wError[b]));
    const auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    QVERIFY(log && log->toPlainText().contains(QStringLiteral("Bootstrap: 40 samples of 6 regions")));

    const QString path = m_dir.filePath(QStringLiteral("bootstrap_session.json"));
    QVERIFY(window->saveSession(path));
    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    const ResultPtr again = reopened->currentResult();
    QVERIFY(again && again->hasBootstrap());
    QCOMPARE(again->bootstrapSelections, result->bootstrapSelections);
    for (std::size_t b = 0; b < result->wError.size(); ++b)
        QVERIFY(sameDouble(again->wError[b], result->wError[b]));
    QCOMPARE(reopened->errorsPanel()->settings().bootstrapSamples, 40);
    QCOMPARE(reopened->errorsPanel()->settings().healpixNside, 16);
}

// File > Save Jackknife Regions, then "regions from a file" in another window: the same regions,
// so the same σ, bin for bit; Copy as Command Line names the file; a damaged file stops the run
// with the file named.
void TestStudioJackknife::regionsAreSavedAndTakenFromAFile() {
    auto window = makeWindow();
    QVERIFY(window);
    chooseJackknife(*window, 5, 4);
    const ResultPtr first = runToCompletion(*window);
    QVERIFY(first && first->hasJackknife() && first->jackknifeRegions.definition);
    const QString path = m_dir.filePath(QStringLiteral("shared_regions.json"));
    QVERIFY(window->saveRegions(path));

    auto other = makeWindow();
    QVERIFY(other);
    ErrorsPanel* errors = other->errorsPanel();
    errors->methodCombo()->setCurrentIndex(
        errors->methodCombo()->findData(int(ErrorSettings::Method::File)));
    QVERIFY(!other->canRun()); // no file yet
    errors->regionsFileEdit()->setText(path);
    QVERIFY2(other->canRun(), qPrintable(other->runBlockedReason()));
    QSignalSpy runMessages(other.get(), &MainWindow::messageReported);
    const ResultPtr second = runToCompletion(*other);
    QVERIFY2(second && second->hasJackknife(),
             qPrintable(runMessages.isEmpty() ? QString() : runMessages.last().at(1).toString()));
    QCOMPARE(second->jackknifeRegions.count, 5);
    QVERIFY(second->jackknifeRegions.method.find("regions given") == 0);
    QCOMPARE(second->wError.size(), first->wError.size());
    for (std::size_t b = 0; b < first->wError.size(); ++b)
        QVERIFY(sameDouble(second->wError[b], first->wError[b]));
    const RunCommandLine command = runCommandLine(other->session());
    QVERIFY(command.arguments.contains(QStringLiteral("--regions")) &&
            command.arguments.contains(path));

    QFile damaged(path);
    QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
    damaged.write("{\"format\": \"tpacf-regions\", \"kind\": \"voronoi\"}");
    damaged.close();
    QSignalSpy messages(other.get(), &MainWindow::messageReported);
    QVERIFY(!other->startRun());
    QVERIFY(!messages.isEmpty());
    const QString said = messages.last().at(1).toString();
    QVERIFY2(said.contains(QStringLiteral("shared_regions.json")) &&
                 said.contains(QStringLiteral("neither k-means nor healpix")),
             qPrintable(said));
}

#include "test_studio_jackknife.moc"
