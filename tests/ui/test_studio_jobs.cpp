// SPDX-License-Identifier: GPL-3.0-or-later
// TPACF Studio through its GUI layer on the offscreen platform: a full run against a direct
// CorrelationJob, jackknife error bars and covariance, cancel, bad input, invalid bins and
// jackknife settings, export and sessions, catalogs read in the background, results marked when
// their inputs change, recent files with their roles.
#include "tpacf_test_main.h"
#include "backend_panel.h"
#include "binning_panel.h"
#include "catalogs_panel.h"
#include "column_mapping_dialog.h"
#include "covariance_view.h"
#include "errors_panel.h"
#include "main_window.h"
#include "plot_panel.h"
#include "result_table.h"
#include "sky_plot.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/correlation_job.h>
#include <tpacf/errors.h>
#include <tpacf/mock.h>
#include <tpacf/result_io.h>

#include <qcustomplot.h>

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QAbstractItemView>
#include <QAction>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

#include <cmath>
#include <numeric>
#include <random>

#ifdef TPACF_TEST_HAVE_CFITSIO
#include <fitsio.h>
#endif

using namespace tpacf;
using namespace tpacf::ui;

namespace {

// Doubles are equal, NaN included (an empty bin's w is NaN on both sides).
bool sameDouble(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Catalogs are read on a background thread: waits until the window has no load left, processing
// events meanwhile. False on a timeout.
bool waitForLoads(MainWindow& window, int timeoutMs = 60000) {
    return QTest::qWaitFor([&window] { return !window.isLoading(); }, timeoutMs);
}

// Calls `start` (which queues a catalog load: setDataCatalog(), loadSession() and the like) and
// waits for the load to end: true when it was queued and its catalogs are now the window's.
template <typename Start> bool loadAndWait(MainWindow& window, Start&& start) {
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    if (!start())
        return false;
    if (!waitForLoads(window) || finished.isEmpty())
        return false;
    return finished.last().front().toBool();
}

MainWindow::Options testOptions() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false; // no modal dialog may block a test
    return options;
}

// A GPU module with two devices whose counters cannot be created: lists like CUDA would and
// lets a run fail inside the job, as a broken driver would.
class FakeGpuProvider final : public BackendModule {
public:
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }
    std::vector<GpuDeviceInfo> devices() const override {
        return {{0, "Fake A100", 40ull << 30, 8, 0, 108}, {1, "Fake H100", 80ull << 30, 9, 0, 132}};
    }
    std::string unavailableReason() const override { return ""; }
    std::string versionDescription() const override { return "CUDA runtime 99.0, driver 99.0"; }
    std::unique_ptr<PairCounter> create(Precision, const std::vector<int>&) const override {
        throw BackendUnavailable("fake device lost");
    }
};

} // namespace

class TestStudio : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void runMatchesDirectJob();
    void jackknifeRunShowsErrorBarsAndCovariance();
    void jackknifeRegionColumnWarningsReachTheLog();
    void invalidJackknifeSettingsDisableRun();
    void jackknifeSettingsRoundTrip();
    void cancelIsImmediateAndANewRunWorks();
    void badCatalogIsReportedAndStateKept_data();
    void badCatalogIsReportedAndStateKept();
    void invalidBinsDisableRun();
    void exportWritesCsvPngPdf();
    void exportNeverOverwritesLoadedCatalog();
    void sessionRoundTrips();
    void cullingChoiceReachesTheRun();
    void bundledSampleLoads();
    void columnMappingDialogGuessesColumns();
    void settingsPersistAcrossStarts();
    void droppedFilesOpen();
    void gpuDevicesListedAndFailuresReported();
    void largeCatalogLoadsWithoutBlocking();
    void staleResultIsMarked();
    void recentFilesRememberRoles();
    // Issue 13: weights and two-sample cross-correlations.
    void weightedCatalogShowsWeightSum();
    void crossRunCountsD1D2();
    void secondSampleRandomsMismatchDisablesRun();
    void sessionRoundTripsSecondSampleAndWeights();
    // Issue 13: bins from a list of edges.
    void customEdgesDisableRunAndRoundTrip();
    // Issue 14: FITS HDU and row filter chosen in the mapping dialog; columns stated.
    void fitsDialogChoosesHduAndRowFilter();
    void sessionKeepsHduAndRowFilter();
    void asciiLoadStatesItsColumns();
    // Issue 14: the counts of the last run reused, said in the log, and forgotten on request.
    void reusedCountsAreLoggedAndForgettable();

private:
    /// A window with the small catalogs loaded, CPU backend, quick bins.
    std::unique_ptr<MainWindow> makeWindow();
    /// Runs to completion; fails the test on a failure signal or a timeout.
    ResultPtr runToCompletion(MainWindow& window);
    QString writeCatalog(const QString& name, const Catalog& catalog);
    /// The two-table FITS file of the issue-14 tests (written once): its path, or "" after a
    /// failed check.
    QString twoTableFits();
    /// Sets jackknife over `regions` k-means regions with `seed` through the Errors controls.
    static void chooseJackknife(MainWindow& window, int regions, quint64 seed);

    QTemporaryDir m_dir;
    QString m_dataPath, m_randomPath1, m_randomPath2;
    BinSpec m_bins = BinSpec::logPerDecade(1.0, 600.0, AngleUnit::Arcminute, 5);
    QString m_fitsPath;
};

void TestStudio::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    MockParams mock;
    mock.count = 3000;
    mock.seed = 7;
    mock.footprint = Footprint::box(150, 170, 0, 20);
    mock.outerRadiusDeg = 3;
    m_dataPath = writeCatalog(QStringLiteral("data.txt"), generateClusteredMock(mock, "data"));
    m_randomPath1 = writeCatalog(QStringLiteral("random1.txt"),
                                 generateUniformRandoms(4000, mock.footprint, 11, "random1"));
    m_randomPath2 = writeCatalog(QStringLiteral("random2.txt"),
                                 generateUniformRandoms(4000, mock.footprint, 12, "random2"));
}

QString TestStudio::writeCatalog(const QString& name, const Catalog& catalog) {
    const QString path = m_dir.filePath(name);
    writeCatalogAscii(path.toStdString(), catalog);
    return path;
}

std::unique_ptr<MainWindow> TestStudio::makeWindow() {
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    MainWindow& w = *window;
    if (!loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{m_dataPath}); }) ||
        !loadAndWait(w, [&] { return w.addRandomCatalog(CatalogSource{m_randomPath1}); }) ||
        !loadAndWait(w, [&] { return w.addRandomCatalog(CatalogSource{m_randomPath2}); }))
        return nullptr;
    window->binningPanel()->setSpec(m_bins);
    BackendOptions cpu;
    cpu.name = "cpu";
    window->backendPanel()->setBackendOptions(cpu);
    return window;
}

ResultPtr TestStudio::runToCompletion(MainWindow& window) {
    QSignalSpy finished(&window, &MainWindow::runFinished);
    QSignalSpy failed(&window, &MainWindow::runFailed);
    if (!window.startRun())
        return nullptr;
    if (!finished.wait(30000) || !failed.isEmpty())
        return nullptr;
    return qvariant_cast<ResultPtr>(finished.front().front());
}

void TestStudio::runMatchesDirectJob() {
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

void TestStudio::chooseJackknife(MainWindow& window, int regions, quint64 seed) {
    ErrorsPanel* errors = window.errorsPanel();
    errors->methodCombo()->setCurrentIndex(
        errors->methodCombo()->findData(int(ErrorSettings::Method::Regions)));
    errors->regionsSpin()->setValue(regions);
    errors->seedSpin()->setValue(int(seed));
}

void TestStudio::jackknifeRunShowsErrorBarsAndCovariance() {
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

void TestStudio::jackknifeRegionColumnWarningsReachTheLog() {
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
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
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
}

void TestStudio::invalidJackknifeSettingsDisableRun() {
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

void TestStudio::jackknifeSettingsRoundTrip() {
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

void TestStudio::cancelIsImmediateAndANewRunWorks() {
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
    // Live plots: within a few 4 Hz ticks the plots show a partial result of this run.
    QTRY_VERIFY_WITH_TIMEOUT(window->plotPanel()->result() != nullptr, 3000);
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

void TestStudio::badCatalogIsReportedAndStateKept_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("asRandom");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("non-numeric dec")
        << QByteArray("# ra dec\n10 20\n30 abc\n40 50\n") << false << 3 << 2;
    QTest::newRow("dec above 90") << QByteArray("10 20\n30 40\n50 95.5\n") << true << 3 << 2;
    QTest::newRow("nan ra") << QByteArray("10 20\nnan 40\n") << false << 2 << 1;
}

void TestStudio::badCatalogIsReportedAndStateKept() {
    QFETCH(QByteArray, content);
    QFETCH(bool, asRandom);
    QFETCH(int, line);
    QFETCH(int, column);
    auto window = makeWindow();
    QVERIFY(window);
    const auto dataBefore = window->dataCatalog();
    const auto randomsBefore = window->randomCatalogs();

    const QString badPath = m_dir.filePath(QStringLiteral("bad_%1.txt")
                                               .arg(QString::fromLatin1(QTest::currentDataTag()))
                                               .replace(QLatin1Char(' '), QLatin1Char('_')));
    QFile file(badPath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
    file.close();

    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QSignalSpy loads(window.get(), &MainWindow::loadFinished);
    const CatalogSource bad{badPath};
    QVERIFY(!loadAndWait(*window, [&] {
        return asRandom ? window->addRandomCatalog(bad) : window->setDataCatalog(bad);
    }));
    QCOMPARE(loads.count(), 1); // the read was queued and ended in failure
    QCOMPARE(messages.count(), 1);
    QCOMPARE(qvariant_cast<MessageSeverity>(messages.front().at(0)), MessageSeverity::Error);
    const QString text = messages.front().at(1).toString();
    QVERIFY2(text.contains(QFileInfo(badPath).fileName()), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("line %1").arg(line)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("column %1").arg(column)), qPrintable(text));

    // The interactive entry point takes the same path.
    messages.clear();
    QVERIFY(!loadAndWait(*window, [&] { return window->openCatalogFile(badPath, asRandom); }));
    QCOMPARE(messages.count(), 1);
    QCOMPARE(messages.front().at(1).toString(), text);

    QCOMPARE(window->dataCatalog(), dataBefore);
    QVERIFY(window->randomCatalogs() == randomsBefore);
    QVERIFY(window->canRun());
}

void TestStudio::invalidBinsDisableRun() {
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

void TestStudio::exportWritesCsvPngPdf() {
    auto window = makeWindow();
    QVERIFY(window);
    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);

    const QString csvPath = m_dir.filePath(QStringLiteral("result.csv"));
    QVERIFY(window->exportResultCsv(csvPath));
    const ResultTable table = readResultCsv(csvPath.toStdString());
    QCOMPARE(table.rows.size(), result->binCount());
    QCOMPARE(int(table.columns.size()), ResultTableModel::columnNames().size());
    for (std::size_t c = 0; c < table.columns.size(); ++c)
        QCOMPARE(QString::fromStdString(table.columns[c]), ResultTableModel::columnNames()[int(c)]);
    for (int k = 0; k < int(table.rows.size()); ++k)
        for (int c = 0; c < int(table.columns.size()); ++c)
            QVERIFY2(sameDouble(table.rows[std::size_t(k)][std::size_t(c)],
                                window->resultModel()->value(k, c)),
                     qPrintable(QStringLiteral("row %1 column %2").arg(k).arg(c)));

    // Identical to what the core writer (and so the CLI) writes for the same result.
    std::ostringstream expected;
    writeResultCsv(expected, *result);
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().toStdString(), expected.str());

    for (const PlotExportSettings& settings :
         {PlotExportSettings{1800, 1200, 300}, PlotExportSettings{1001, 667, 150}}) {
        for (int plot : {0, 1}) {
            const QString png = m_dir.filePath(QStringLiteral("plot%1_%2x%3.png")
                                                   .arg(plot)
                                                   .arg(settings.widthPx)
                                                   .arg(settings.heightPx));
            QVERIFY(window->exportPlot(plot, png, settings));
            const QImage image(png);
            QCOMPARE(image.size(), QSize(settings.widthPx, settings.heightPx));
            QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), settings.dpi);
            // Something was drawn: not a blank page.
            QVERIFY(image.pixel(image.width() / 2, image.height() / 2) != 0 ||
                    image.pixel(10, 10) != image.pixel(image.width() / 2, image.height() / 2));
        }
    }
    // For looking at them: TPACF_UI_GRAB_DIR=/some/dir keeps a copy of the paper-size PNGs.
    const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR");
    if (!grabDir.isEmpty()) {
        QVERIFY(window->exportPlot(0, QDir(grabDir).filePath(QStringLiteral("export-w.png")), {}));
        QVERIFY(
            window->exportPlot(1, QDir(grabDir).filePath(QStringLiteral("export-counts.png")), {}));
    }
    const QString pdf = m_dir.filePath(QStringLiteral("w.pdf"));
    QVERIFY(window->exportPlot(0, pdf, PlotExportSettings{}));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.size() > 1000);
    QVERIFY(pdfFile.read(5).startsWith("%PDF"));
}

void TestStudio::exportNeverOverwritesLoadedCatalog() {
    auto window = makeWindow();
    QVERIFY(window);
    QVERIFY(runToCompletion(*window));
    const auto bytesOf = [](const QString& path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    const QByteArray data = bytesOf(m_dataPath), random = bytesOf(m_randomPath1),
                     random2 = bytesOf(m_randomPath2);
    // A plot name that is a link to a loaded catalog, as a file dialog would let one pick.
    const QString link = m_dir.filePath(QStringLiteral("random1-link.png"));
    QFile::remove(link);
    QVERIFY(QFile::link(m_randomPath1, link));

    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(!window->exportResultCsv(m_dataPath));
    QVERIFY(!window->exportPlot(0, link, {600, 400, 100}));
    QVERIFY(!window->saveSession(m_randomPath2));
    QCOMPARE(messages.count(), 3);
    for (const QList<QVariant>& message : messages) {
        QCOMPARE(qvariant_cast<MessageSeverity>(message.at(0)), MessageSeverity::Error);
        QVERIFY2(message.at(1).toString().contains(QStringLiteral("is the loaded catalog")),
                 qPrintable(message.at(1).toString()));
    }
    QCOMPARE(bytesOf(m_dataPath), data);
    QCOMPARE(bytesOf(m_randomPath1), random);
    QCOMPARE(bytesOf(m_randomPath2), random2);
    QVERIFY(QFileInfo(link).isSymLink());
    QFile::remove(link);
}

void TestStudio::sessionRoundTrips() {
    // A data file that needs a column mapping: id, dec, ra (so defaults would be wrong).
    const Catalog data = readCatalog(m_dataPath.toStdString());
    const QString mappedPath = m_dir.filePath(QStringLiteral("mapped.txt"));
    {
        QFile file(mappedPath);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Text));
        QTextStream out(&file);
        out << "id dec_arcmin ra_arcmin\n";
        out.setRealNumberPrecision(17);
        for (std::size_t i = 0; i < data.size(); ++i)
            out << i << ' ' << fromRadians(data.dec()[i], AngleUnit::Arcminute) << ' '
                << fromRadians(data.ra()[i], AngleUnit::Arcminute) << '\n';
    }
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    CatalogSource mapped{mappedPath};
    mapped.raColumn = 3;
    mapped.decColumn = 2;
    mapped.unit = AngleUnit::Arcminute;
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(mapped); }));
    QCOMPARE(window->dataCatalog()->size(), data.size());
    QVERIFY(std::abs(window->dataCatalog()->dec()[5] - data.dec()[5]) < 1e-12);
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath1}); }));
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath2}); }));
    window->binningPanel()->setSpec(BinSpec::linearWidth(0.5, 30.0, AngleUnit::Arcminute, 0.5));
    window->backendPanel()->setEstimator(Estimator::Hamilton);
    BackendOptions backend;
    backend.name = "cpu";
    backend.cpuThreads = 3;
    backend.precision = Precision::Double;
    backend.culling = CullingMode::Off;
    window->backendPanel()->setBackendOptions(backend);

    const Session saved = window->session();
    QCOMPARE(saved.toJson()
                 .value(QStringLiteral("backend"))
                 .toObject()
                 .value(QStringLiteral("culling"))
                 .toString(),
             QStringLiteral("off"));
    const QString path = m_dir.filePath(QStringLiteral("session.json"));
    QVERIFY(window->saveSession(path));

    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    const Session loaded = reopened->session();
    QCOMPARE(QJsonDocument(loaded.toJson()).toJson(), QJsonDocument(saved.toJson()).toJson());
    QVERIFY(loaded.data && *loaded.data == mapped);
    QCOMPARE(loaded.randoms.size(), 2);
    const BinSpec bins = reopened->binningPanel()->spec();
    QCOMPARE(bins.scale, BinScale::Linear);
    QCOMPARE(bins.unit, AngleUnit::Arcminute);
    QCOMPARE(bins.min, 0.5);
    QCOMPARE(bins.max, 30.0);
    QCOMPARE(bins.width, 0.5);
    QCOMPARE(reopened->backendPanel()->estimator(), Estimator::Hamilton);
    const BackendOptions reopenedBackend = reopened->backendPanel()->backendOptions();
    QCOMPARE(reopenedBackend.name, std::string("cpu"));
    QCOMPARE(reopenedBackend.cpuThreads, 3);
    QVERIFY(reopenedBackend.precision == Precision::Double);
    QCOMPARE(reopenedBackend.culling, CullingMode::Off);
    QCOMPARE(reopened->backendPanel()->cullingCombo()->currentData().toInt(),
             int(CullingMode::Off));
    // A session written before culling existed opens with Auto.
    QJsonObject older = saved.toJson();
    QJsonObject olderBackend = older.value(QStringLiteral("backend")).toObject();
    olderBackend.remove(QStringLiteral("culling"));
    older[QStringLiteral("backend")] = olderBackend;
    QCOMPARE(Session::fromJson(older).settings.backend.culling, CullingMode::Auto);
    QCOMPARE(reopened->dataCatalog()->size(), data.size());
    QCOMPARE(reopened->randomCatalogs().size(), std::size_t(2));

    // A file that is not a session is refused through the message path, state unchanged.
    QSignalSpy messages(reopened.get(), &MainWindow::messageReported);
    QVERIFY(!reopened->loadSession(m_dataPath));
    QCOMPARE(messages.count(), 1);
    QCOMPARE(qvariant_cast<MessageSeverity>(messages.front().at(0)), MessageSeverity::Error);
    QCOMPARE(QJsonDocument(reopened->session().toJson()).toJson(),
             QJsonDocument(saved.toJson()).toJson());
}

void TestStudio::cullingChoiceReachesTheRun() {
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

void TestStudio::bundledSampleLoads() {
    MainWindow::Options options = testOptions();
    options.loadSample = true;
    MainWindow window(BackendRegistry{}, options);
    if (!QFile::exists(QStringLiteral(":/samples/sample_data.txt")))
        QSKIP("this build has no bundled sample");
    // Read in the background: the window exists (and could be shown) before the sample is in.
    QVERIFY(window.isLoading());
    QVERIFY(!window.dataCatalog());
    QVERIFY(!window.canRun());
    QVERIFY(waitForLoads(window));
    QVERIFY(window.dataCatalog());
    QVERIFY(window.dataCatalog()->size() > 0);
    QVERIFY(!window.randomCatalogs().empty());
    QVERIFY(window.canRun());
    QVERIFY(window.skyPlot()->plottedDataPoints() > 0);
}

void TestStudio::columnMappingDialogGuessesColumns() {
    const QString path = m_dir.filePath(QStringLiteral("with_header.csv"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("id,mag,dec,ra\n1,20.5,-5.25,150.125\n2,21.0,-5.5,150.5\n3,19.8,-4.75,151.0\n");
    file.close();
    const TablePreview preview = previewCatalogFile(path.toStdString());
    QVERIFY(ColumnMappingDialog::needsMapping(preview));
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    const CatalogSource mapped = dialog.source();
    QCOMPARE(mapped.raColumn, 4);
    QCOMPARE(mapped.decColumn, 3);
    // The mapped source reads the right numbers.
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(mapped); }));
    QCOMPARE(window->dataCatalog()->size(), std::size_t(3));
    QVERIFY(std::abs(fromRadians(window->dataCatalog()->dec()[0], AngleUnit::Degree) + 5.25) <
            1e-12);
    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the dialog as a PNG.
    const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR");
    if (!grabDir.isEmpty()) {
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.grab().save(QDir(grabDir).filePath(QStringLiteral("column-mapping.png")));
    }
}

void TestStudio::settingsPersistAcrossStarts() {
    // QSettings under a throw-away organisation so the user's real settings are never touched.
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-ui-test"));
    QCoreApplication::setApplicationName(QStringLiteral("settingsPersistAcrossStarts"));
    QSettings().clear();
    MainWindow::Options options = testOptions();
    options.useSettings = true;
    const BinSpec bins = BinSpec::logCount(0.5, 50, AngleUnit::Degree, 7);
    {
        MainWindow first(BackendRegistry{}, options);
        first.binningPanel()->setSpec(bins);
        first.backendPanel()->setEstimator(Estimator::DavisPeebles);
        QComboBox* culling = first.backendPanel()->cullingCombo();
        culling->setCurrentIndex(culling->findData(int(CullingMode::On)));
        first.close(); // saves
    }
    MainWindow second(BackendRegistry{}, options);
    const BinSpec restored = second.binningPanel()->spec();
    QCOMPARE(restored.scale, BinScale::Logarithmic);
    QCOMPARE(restored.unit, AngleUnit::Degree);
    QCOMPARE(restored.min, 0.5);
    QCOMPARE(restored.max, 50.0);
    QCOMPARE(restored.count, 7);
    QCOMPARE(second.backendPanel()->estimator(), Estimator::DavisPeebles);
    QCOMPARE(second.backendPanel()->backendOptions().culling, CullingMode::On);
    QSettings().clear();
}

void TestStudio::droppedFilesOpen() {
    MainWindow window(BackendRegistry{}, testOptions());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(m_dataPath), QUrl::fromLocalFile(m_randomPath1),
                  QUrl::fromLocalFile(m_randomPath2)});
    const QPointF where(window.width() / 2.0, window.height() / 2.0);
    QDragEnterEvent enter(where.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(where, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QSignalSpy loads(&window, &MainWindow::loadFinished);
    QCoreApplication::sendEvent(&window, &drop);
    QVERIFY(drop.isAccepted());
    QVERIFY(waitForLoads(window));
    QCOMPARE(loads.count(), 1); // all dropped files in one load
    QVERIFY(loads.front().front().toBool());
    QVERIFY(window.dataCatalog());
    QCOMPARE(window.dataCatalog()->size(), std::size_t(3000));
    QCOMPARE(window.randomCatalogs().size(), std::size_t(2));
    QVERIFY(window.canRun());
}

void TestStudio::gpuDevicesListedAndFailuresReported() {
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

void TestStudio::largeCatalogLoadsWithoutBlocking() {
    // A catalog large enough that reading it takes a noticeable time.
    constexpr std::size_t kRows = 300000;
    const Footprint sky = Footprint::box(20, 80, -10, 25);
    const QString largePath = writeCatalog(QStringLiteral("large_300k.txt"),
                                           generateUniformRandoms(kRows, sky, 31, "large"));
    auto window = makeWindow();
    QVERIFY(window);
    const auto dataBefore = window->dataCatalog();
    const auto randomsBefore = window->randomCatalogs();
    auto* runButton = window->runButton();
    auto* openButton = window->findChild<QPushButton*>(QStringLiteral("openDataButton"));
    auto* addButton = window->findChild<QPushButton*>(QStringLiteral("addRandomButton"));
    auto* loadingLabel = window->findChild<QLabel*>(QStringLiteral("loadingLabel"));
    QVERIFY(openButton && addButton && loadingLabel);
    QVERIFY(runButton->isEnabled() && openButton->isEnabled() && addButton->isEnabled());
    QVERIFY(loadingLabel->isHidden());

    // A timer on the GUI thread keeps firing while the file is read; each tick while loading also
    // checks what the user sees: the old catalogs, Run and the catalog buttons disabled, and
    // the loading line in the status bar.
    int ticksWhileLoading = 0;
    QStringList problems;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(2);
    connect(&ticker, &QTimer::timeout, this, [&] {
        if (!window->isLoading())
            return;
        ++ticksWhileLoading;
        if (window->dataCatalog() != dataBefore)
            problems.append(QStringLiteral("the data changed before the load ended"));
        if (runButton->isEnabled() || openButton->isEnabled() || addButton->isEnabled())
            problems.append(QStringLiteral("Run or a catalog button is enabled while loading"));
        if (loadingLabel->isHidden() || !loadingLabel->text().contains(QStringLiteral("large")))
            problems.append(QStringLiteral("no loading line: '%1'").arg(loadingLabel->text()));
    });
    ticker.start();
    QSignalSpy finished(window.get(), &MainWindow::loadFinished);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(window->setDataCatalog(CatalogSource{largePath}));
    const qint64 callMs = clock.elapsed();
    // The call only queued the read: nothing has changed yet.
    QVERIFY(window->isLoading());
    QCOMPARE(window->dataCatalog(), dataBefore);
    QVERIFY(!window->canRun());
    QVERIFY(window->runBlockedReason().contains(QStringLiteral("Reading")));
    QVERIFY(!window->startRun());
    QVERIFY(finished.wait(60000));
    const qint64 loadMs = clock.elapsed();
    ticker.stop();
    qInfo("setDataCatalog returned after %lld ms; the load ended after %lld ms with %d timer ticks "
          "while loading",
          callMs, loadMs, ticksWhileLoading);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
    QVERIFY2(ticksWhileLoading >= 2, qPrintable(QString::number(ticksWhileLoading)));
    QVERIFY(finished.front().front().toBool());

    // Done: the new N, the randoms kept, everything enabled again.
    QVERIFY(!window->isLoading());
    QCOMPARE(window->dataCatalog()->size(), kRows);
    QVERIFY(window->randomCatalogs() == randomsBefore);
    QVERIFY(window->canRun());
    QVERIFY(runButton->isEnabled() && openButton->isEnabled() && addButton->isEnabled());
    QVERIFY(loadingLabel->isHidden());
    // The sky preview frames the footprint with a margin: no point on the frame.
    const QCPRange ra = window->skyPlot()->plot()->xAxis->range();
    const QCPRange dec = window->skyPlot()->plot()->yAxis->range();
    const SkyExtent extent = window->dataCatalog()->extent();
    const double raMin = fromRadians(extent.raMin, AngleUnit::Degree);
    const double raMax = fromRadians(extent.raMax, AngleUnit::Degree);
    const double decMin = fromRadians(extent.decMin, AngleUnit::Degree);
    const double decMax = fromRadians(extent.decMax, AngleUnit::Degree);
    QVERIFY(ra.lower < raMin - 0.04 * (raMax - raMin));
    QVERIFY(ra.upper > raMax + 0.04 * (raMax - raMin));
    QVERIFY(dec.lower < decMin - 0.04 * (decMax - decMin));
    QVERIFY(dec.upper > decMax + 0.04 * (decMax - decMin));

    // A session with the large file loads the same way and ends as a synchronous load did.
    Session session = window->session();
    session.randoms = {CatalogSource{m_randomPath2}};
    session.settings.estimator = Estimator::Natural;
    QSignalSpy sessionLoads(window.get(), &MainWindow::loadFinished);
    QVERIFY(window->applySession(session));
    QVERIFY(window->isLoading());
    QVERIFY(!window->binningPanel()->isEnabled()); // the session will set it
    QVERIFY(sessionLoads.wait(60000));
    QVERIFY(sessionLoads.front().front().toBool());
    QCOMPARE(window->dataCatalog()->size(), kRows);
    QCOMPARE(window->randomCatalogs().size(), std::size_t(1));
    QCOMPARE(window->randomCatalogs().front()->size(), std::size_t(4000));
    QCOMPARE(window->backendPanel()->estimator(), Estimator::Natural);
    QVERIFY(window->binningPanel()->isEnabled());
    QCOMPARE(QJsonDocument(window->session().toJson()).toJson(),
             QJsonDocument(session.toJson()).toJson());

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the window in the middle of a load.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1500, 940);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(window->addRandomCatalog(CatalogSource{largePath}));
        QTest::qWait(30);
        if (window->isLoading())
            window->grab().save(QDir(grabDir).filePath(QStringLiteral("loading.png")));
        QVERIFY(waitForLoads(*window));
    }
}

void TestStudio::staleResultIsMarked() {
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
    QVERIFY(loadAndWait(*window,
                        [&] { return window->setDataCatalog(CatalogSource{m_randomPath2}); }));
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

void TestStudio::recentFilesRememberRoles() {
    // QSettings under a throw-away organisation so the user's real settings are never touched.
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-ui-test"));
    QCoreApplication::setApplicationName(QStringLiteral("recentFilesRememberRoles"));
    QSettings().clear();
    MainWindow::Options options = testOptions();
    options.useSettings = true;
    using Role = MainWindow::RecentRole;
    const QString dataPath = QFileInfo(m_dataPath).absoluteFilePath();
    const QString randomPath = QFileInfo(m_randomPath1).absoluteFilePath();
    CatalogSource mappedRandom{QFileInfo(m_randomPath2).absoluteFilePath()};
    mappedRandom.raColumn = 1;
    mappedRandom.decColumn = 2;
    {
        MainWindow first(BackendRegistry{}, options);
        QVERIFY(first.recentFiles().isEmpty());
        QVERIFY(loadAndWait(first, [&] { return first.setDataCatalog(CatalogSource{dataPath}); }));
        QVERIFY(
            loadAndWait(first, [&] { return first.addRandomCatalog(CatalogSource{randomPath}); }));
        QVERIFY(loadAndWait(first, [&] { return first.addRandomCatalog(mappedRandom); }));
        // Opened again as a random: one entry per file and role, moved to the top.
        QVERIFY(
            loadAndWait(first, [&] { return first.addRandomCatalog(CatalogSource{randomPath}); }));
        const QList<MainWindow::RecentFile> expected = {{Role::Random, CatalogSource{randomPath}},
                                                        {Role::Random, mappedRandom},
                                                        {Role::Data, CatalogSource{dataPath}}};
        QVERIFY(first.recentFiles() == expected);
        first.close(); // saves
    }

    MainWindow second(BackendRegistry{}, options);
    QCOMPARE(second.recentFiles().size(), 3);
    QCOMPARE(second.recentFiles()[0].role, Role::Random);
    QVERIFY(second.recentFiles()[1].source == mappedRandom); // with its column mapping
    QCOMPARE(second.recentFiles()[2].role, Role::Data);
    // The menu says which is which, and reopens each in its role.
    auto* menu = second.findChild<QMenu*>(QStringLiteral("recentMenu"));
    QVERIFY(menu && menu->isEnabled());
    QAction* randomAction = nullptr;
    QAction* dataAction = nullptr;
    for (QAction* action : menu->actions()) {
        if (action->toolTip() == randomPath && action->text().contains(QStringLiteral("random")))
            randomAction = action;
        if (action->toolTip() == dataPath && action->text().contains(QStringLiteral("data")))
            dataAction = action;
    }
    QVERIFY(randomAction && dataAction);
    QVERIFY(loadAndWait(second, [&] {
        randomAction->trigger();
        return second.isLoading();
    }));
    QVERIFY(!second.dataCatalog());
    QCOMPARE(second.randomCatalogs().size(), std::size_t(1));
    QCOMPARE(second.randomCatalogs().front()->size(), std::size_t(4000));
    // The menu was rebuilt (the random moved to the top): find the data entry again.
    dataAction = nullptr;
    for (QAction* action : menu->actions())
        if (action->toolTip() == dataPath && action->text().contains(QStringLiteral("data")))
            dataAction = action;
    QVERIFY(dataAction);
    QVERIFY(loadAndWait(second, [&] {
        dataAction->trigger();
        return second.isLoading();
    }));
    QVERIFY(second.dataCatalog());
    QCOMPARE(second.dataCatalog()->size(), std::size_t(3000));
    QCOMPARE(second.randomCatalogs().size(), std::size_t(1));
    // The mapped random reopens with its mapping (through openRecentFile, like the menu).
    const int mappedIndex = int(second.recentFiles().indexOf({Role::Random, mappedRandom}));
    QVERIFY(mappedIndex >= 0);
    QVERIFY(loadAndWait(second, [&] { return second.openRecentFile(mappedIndex); }));
    QCOMPARE(second.session().randoms.back(), mappedRandom);

    // Settings of an older version (paths only) open catalogs as data, sessions as sessions.
    second.close();
    {
        QSettings settings;
        settings.remove(QStringLiteral("recent"));
        settings.setValue(QStringLiteral("recentFiles"),
                          QStringList{dataPath, QStringLiteral("/tmp/old_session.json")});
    }
    MainWindow third(BackendRegistry{}, options);
    QCOMPARE(third.recentFiles().size(), 2);
    QCOMPARE(third.recentFiles()[0].role, Role::Data);
    QCOMPARE(third.recentFiles()[1].role, Role::Session);
    QSettings().clear();
}

// ----------------------------------------------------------------------------------------------
// Issue 13: weights and two-sample cross-correlations

namespace {

// ra dec w rows from `catalog` (degrees) with weights 0.5 + (i mod 7)/4, every 97th negative:
// writes the file and returns the weights as written (the text the reader parses).
std::vector<double> writeWeighted(const QString& path, const Catalog& catalog) {
    std::vector<double> weights;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return weights;
    QTextStream out(&file);
    out.setRealNumberPrecision(17);
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        const double w = (i % 97 == 3 ? -1.0 : 1.0) * (0.5 + double(i % 7) / 4.0);
        weights.push_back(w);
        out << fromRadians(catalog.ra()[i], AngleUnit::Degree) << ' '
            << fromRadians(catalog.dec()[i], AngleUnit::Degree) << ' ' << w << '\n';
    }
    return weights;
}

// The catalogs panel's row of the first catalog in group `group`.
const QTreeWidgetItem* catalogRow(const MainWindow& window, int group) {
    const QTreeWidgetItem* header = window.catalogsPanel()->tree()->topLevelItem(group);
    return header && header->childCount() > 0 ? header->child(0) : nullptr;
}

} // namespace

void TestStudio::weightedCatalogShowsWeightSum() {
    const Catalog base = readCatalog(m_randomPath1.toStdString());
    const QString path = m_dir.filePath(QStringLiteral("weighted_data.txt"));
    const std::vector<double> weights = writeWeighted(path, base);
    QCOMPARE(weights.size(), base.size());
    double sum = 0;
    int negative = 0;
    for (const double w : weights) {
        sum += w;
        negative += w < 0 ? 1 : 0;
    }
    QVERIFY(negative > 0);

    // The mapping dialog offers the weight column, "(none)" by default.
    const TablePreview preview = previewCatalogFile(path.toStdString());
    QVERIFY(ColumnMappingDialog::needsMapping(preview)); // three columns
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    QComboBox* weightCombo = dialog.weightCombo();
    QCOMPARE(weightCombo->count(), 4);
    QCOMPARE(weightCombo->currentText(), QStringLiteral("(none)"));
    QCOMPARE(dialog.source().weightColumn, 0);
    weightCombo->setCurrentIndex(weightCombo->findData(3));
    const CatalogSource source = dialog.source();
    QCOMPARE(source.weightColumn, 3);
    QCOMPARE(source.raColumn, 1);
    QCOMPARE(source.decColumn, 2);
    // A source that has a weight column opens the dialog with it chosen.
    QCOMPARE(ColumnMappingDialog(source, preview).source().weightColumn, 3);

    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(source); }));
    QVERIFY(window->dataCatalog()->hasWeights());
    QTreeWidget* tree = window->catalogsPanel()->tree();
    QVERIFY(!tree->isColumnHidden(CatalogsPanel::WeightColumn));
    // Σw beside N (visually the next column), the negatives counted.
    QCOMPARE(tree->header()->visualIndex(CatalogsPanel::WeightColumn),
             tree->header()->visualIndex(CatalogsPanel::CountColumn) + 1);
    const QTreeWidgetItem* row = catalogRow(*window, 0);
    QVERIFY(row);
    QCOMPARE(row->text(CatalogsPanel::CountColumn), QLocale().toString(qulonglong(base.size())));
    const QString expected =
        CatalogsPanel::formatWeightSum(sum) + QStringLiteral(" (%1 < 0)").arg(negative);
    QCOMPARE(row->text(CatalogsPanel::WeightColumn), expected);
    QVERIFY(row->toolTip(0).contains(QStringLiteral("%1 negative weights").arg(negative)));
    // The load's message says it too.
    bool reported = false;
    for (const QList<QVariant>& message : std::as_const(messages))
        reported = reported || message.at(1).toString().contains(QStringLiteral("Σw = %1").arg(
                                   CatalogsPanel::formatWeightSum(sum)));
    QVERIFY(reported);

    // An unweighted random: no Σw in its row; without any weighted catalog the column hides.
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(catalogRow(*window, 1)->text(CatalogsPanel::WeightColumn).isEmpty());
    QVERIFY(
        loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{m_dataPath}); }));
    QVERIFY(tree->isColumnHidden(CatalogsPanel::WeightColumn));
}

void TestStudio::crossRunCountsD1D2() {
    auto window = makeWindow();
    QVERIFY(window);
    // D2: a weighted uniform sample over the same footprint.
    const Catalog base = generateUniformRandoms(1500, Footprint::box(150, 170, 0, 20), 31);
    const QString path = m_dir.filePath(QStringLiteral("second_weighted.txt"));
    const std::vector<double> weights = writeWeighted(path, base);
    CatalogSource source{path};
    source.weightColumn = 3;
    QVERIFY(!window->backendPanel()->formulaText().contains(QStringLiteral("D1D2")));
    QVERIFY(loadAndWait(*window, [&] { return window->setSecondDataCatalog(source); }));
    QVERIFY(window->catalogSet()->data2());
    QVERIFY(window->windowTitle().contains(QStringLiteral("second_weighted.txt")));
    // Two more groups in the list: D2 and (none of) its randoms.
    QTreeWidget* tree = window->catalogsPanel()->tree();
    QCOMPARE(tree->topLevelItemCount(), 4);
    QCOMPARE(catalogRow(*window, 2)->text(0), QStringLiteral("second_weighted.txt"));
    QVERIFY(tree->topLevelItem(3)->text(0).contains(QStringLiteral("none")));
    // The estimator shows its two-sample form.
    QVERIFY(window->backendPanel()->formulaText().contains(QStringLiteral("D1D2")));
    QVERIFY(window->canRun());

    const ResultPtr result = runToCompletion(*window);
    QVERIFY(result);
    QVERIFY(result->isCross());
    QVERIFY(result->isWeighted());
    const std::shared_ptr<const Catalog> d1 = window->dataCatalog();
    const std::shared_ptr<const Catalog> d2 = window->catalogSet()->data2Catalog();
    QCOMPARE(d2->size(), base.size());

    // Independent brute force: every D1 × D2 pair binned on the chord² of the unit vectors.
    const Binning binning(m_bins);
    std::vector<std::uint64_t> d1d2(binning.count(), 0);
    std::vector<double> d1d2Weighted(binning.count(), 0.0);
    for (std::size_t i = 0; i < d1->size(); ++i)
        for (std::size_t j = 0; j < d2->size(); ++j) {
            const double dx = d1->x()[i] - d2->x()[j];
            const double dy = d1->y()[i] - d2->y()[j];
            const double dz = d1->z()[i] - d2->z()[j];
            const int bin = binning.binOfChord2(dx * dx + dy * dy + dz * dz);
            if (bin >= 0) {
                ++d1d2[std::size_t(bin)];
                d1d2Weighted[std::size_t(bin)] += weights[j]; // D1 unweighted: w = 1
            }
        }
    QVERIFY(std::accumulate(d1d2.begin(), d1d2.end(), std::uint64_t(0)) > 0);
    QVERIFY(result->raw.dd == d1d2);

    // The table names the counts by sample, RD appears, and the weighted sums sit beside them.
    ResultTableModel* model = window->resultModel();
    const int dd = model->columnIndex(QStringLiteral("DD"));
    QCOMPARE(dd, 3);
    QCOMPARE(model->headerData(dd, Qt::Horizontal).toString(), QStringLiteral("D1D2"));
    const int rd = model->columnIndex(QStringLiteral("RD"));
    QVERIFY(rd > dd);
    QCOMPARE(model->headerData(rd, Qt::Horizontal).toString(), QStringLiteral("R1D2"));
    QCOMPARE(model->headerData(model->columnIndex(QStringLiteral("RR")), Qt::Horizontal).toString(),
             QStringLiteral("R1R2"));
    const int ddWeighted = model->columnIndex(QStringLiteral("DD_w"));
    QVERIFY(ddWeighted > 0);
    QCOMPARE(model->headerData(ddWeighted, Qt::Horizontal).toString(), QStringLiteral("D1D2_w"));
    for (int k = 0; k < model->rowCount(); ++k) {
        QCOMPARE(model->value(k, dd), double(d1d2[std::size_t(k)]));
        // Σ w over the pairs of the bin: the order of the sum differs, so a rounding tolerance
        // (a few ulp per term, far below 1e-9 of the total).
        const double expected = d1d2Weighted[std::size_t(k)];
        QVERIFY2(std::abs(model->value(k, ddWeighted) - expected) <=
                     1e-9 * std::max(1.0, std::abs(expected)),
                 qPrintable(QStringLiteral("bin %1: %2 vs %3")
                                .arg(k)
                                .arg(model->value(k, ddWeighted), 0, 'g', 17)
                                .arg(expected, 0, 'g', 17)));
    }
    // The table has the CSV's columns in the CSV's order.
    std::ostringstream csv;
    writeResultCsv(csv, *result);
    QString header; // the first line that is not a '#' comment
    for (const QString& line : QString::fromStdString(csv.str()).split(QLatin1Char('\n')))
        if (!line.startsWith(QLatin1Char('#'))) {
            header = line;
            break;
        }
    QCOMPARE(header, model->currentColumnNames().join(QLatin1Char(',')));

    // The plots: R1D2 drawn, the legend names by sample.
    PlotPanel* plots = window->plotPanel();
    QCOMPARE(plots->seriesName(PlotPanel::Series::DD), QStringLiteral("D1D2"));
    QVERIFY(plots->isSeriesShown(PlotPanel::Series::RD));
    QVERIFY(!plots->plottedCounts(PlotPanel::Series::RD).isEmpty());
    QVERIFY(plots->plotTitle(PlotPanel::Plot::Correlation)
                .contains(QStringLiteral("second_weighted.txt")));
    // The notes (shared randoms, negative weights) reach the log.
    QVERIFY(!result->notes.empty());
    auto* log = window->findChild<QPlainTextEdit*>(QStringLiteral("log"));
    for (const std::string& note : result->notes)
        QVERIFY(log->toPlainText().contains(QString::fromStdString(note)));

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir keeps the window at 1280×720.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        window->resize(1280, 720);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTest::qWait(100);
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("cross-window.png")));
        plots->setCurrentPlot(PlotPanel::Plot::PairCounts);
        QTest::qWait(100);
        window->grab().save(QDir(grabDir).filePath(QStringLiteral("cross-counts.png")));
    }

    // Without the second sample: back to one sample, no RD.
    window->removeSecondSample();
    QVERIFY(!window->catalogSet()->hasSecondSample());
    QCOMPARE(tree->topLevelItemCount(), 2);
    QVERIFY(window->isResultStale());
    const ResultPtr autoResult = runToCompletion(*window);
    QVERIFY(autoResult && !autoResult->isCross());
    QCOMPARE(window->resultModel()->columnIndex(QStringLiteral("RD")), -1);
    QCOMPARE(window->resultModel()->headerData(3, Qt::Horizontal).toString(), QStringLiteral("DD"));
    QVERIFY(!plots->isSeriesShown(PlotPanel::Series::RD));
}

void TestStudio::secondSampleRandomsMismatchDisablesRun() {
    auto window = makeWindow(); // two random sets
    QVERIFY(window);
    QVERIFY(loadAndWait(
        *window, [&] { return window->setSecondDataCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(window->canRun()); // no randoms of its own: it uses the first's
    QVERIFY(loadAndWait(
        *window, [&] { return window->addSecondRandomCatalog(CatalogSource{m_randomPath1}); }));
    // One set against two: Run disabled, and the reason says why.
    QVERIFY(!window->canRun());
    QVERIFY(!window->runButton()->isEnabled());
    const QString reason = window->runBlockedReason();
    QVERIFY2(reason.contains(QStringLiteral("paired")), qPrintable(reason));
    QVERIFY(!window->startRun());
    QVERIFY(loadAndWait(
        *window, [&] { return window->addSecondRandomCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(window->canRun());
    QVERIFY(window->runButton()->isEnabled());
    // Removing one of them (selected in the list, as Delete would) disables it again.
    QTreeWidget* tree = window->catalogsPanel()->tree();
    tree->setCurrentItem(tree->topLevelItem(3)->child(1));
    QCOMPARE(window->catalogsPanel()->selectedRandom2Index(), 1);
    QCOMPARE(window->catalogsPanel()->selectedRandomIndex(), -1);
    window->removeRandomCatalog(-1); // out of range: nothing
    QCOMPARE(window->catalogSet()->randoms2().size(), 2);
    window->removeSecondRandomCatalog(1);
    QCOMPARE(window->catalogSet()->randoms2().size(), 1);
    QCOMPARE(window->catalogSet()->randoms().size(), 2);
    QVERIFY(!window->canRun());
    window->removeSecondSample();
    QVERIFY(window->canRun());
}

void TestStudio::sessionRoundTripsSecondSampleAndWeights() {
    const Catalog base = readCatalog(m_dataPath.toStdString());
    const QString weightedPath = m_dir.filePath(QStringLiteral("session_weighted.txt"));
    QCOMPARE(writeWeighted(weightedPath, base).size(), base.size());
    CatalogSource weighted{weightedPath};
    weighted.weightColumn = 3;

    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(weighted); }));
    QVERIFY(loadAndWait(*window,
                        [&] { return window->addRandomCatalog(CatalogSource{m_randomPath1}); }));
    QVERIFY(loadAndWait(
        *window, [&] { return window->setSecondDataCatalog(CatalogSource{m_randomPath2}); }));
    QVERIFY(loadAndWait(
        *window, [&] { return window->addSecondRandomCatalog(CatalogSource{m_randomPath1}); }));
    const QString path = m_dir.filePath(QStringLiteral("cross_session.json"));
    QVERIFY(window->saveSession(path));
    // The file carries the weight column and the second sample.
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(
        json.value(QStringLiteral("data")).toObject().value(QStringLiteral("weightColumn")).toInt(),
        3);
    QCOMPARE(
        json.value(QStringLiteral("data2")).toObject().value(QStringLiteral("path")).toString(),
        m_randomPath2);
    QCOMPARE(json.value(QStringLiteral("randoms2")).toArray().size(), 1);

    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(path); }));
    const Session restored = reopened->session();
    const Session saved = window->session();
    QVERIFY(restored.data == saved.data);
    QCOMPARE(restored.data->weightColumn, 3);
    QVERIFY(restored.randoms == saved.randoms);
    QVERIFY(restored.data2 == saved.data2);
    QVERIFY(restored.randoms2 == saved.randoms2);
    QVERIFY(reopened->dataCatalog()->hasWeights());
    QVERIFY(std::equal(
        reopened->dataCatalog()->weight().begin(), reopened->dataCatalog()->weight().end(),
        window->dataCatalog()->weight().begin(), window->dataCatalog()->weight().end()));
    QCOMPARE(reopened->catalogSet()->data2Catalog()->size(),
             window->catalogSet()->data2Catalog()->size());
    QVERIFY(reopened->canRun());

    // A one-sample session replaces the second sample with none.
    Session oneSample = saved;
    oneSample.data2.reset();
    oneSample.randoms2.clear();
    QVERIFY(!oneSample.toJson().contains(QStringLiteral("data2")));
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->applySession(oneSample); }));
    QVERIFY(!reopened->catalogSet()->hasSecondSample());
}

void TestStudio::customEdgesDisableRunAndRoundTrip() {
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

namespace {

// The tables of the FITS file: CATALOG (RA, DEC, Z) and RANDOMS with its columns in another
// order (Z, W, DEC, RA), so that a column number of one HDU is wrong in the other.
struct FitsSample {
    std::vector<double> ra, dec, z, w;
};

FitsSample makeFitsSample(std::size_t rows, unsigned seed) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> raDist(150.0, 170.0), decDist(0.0, 20.0),
        zDist(0.0, 1.2), wDist(0.5, 2.0);
    FitsSample sample;
    for (std::size_t i = 0; i < rows; ++i) {
        sample.ra.push_back(raDist(random));
        sample.dec.push_back(decDist(random));
        sample.z.push_back(zDist(random));
        sample.w.push_back(wDist(random));
    }
    return sample;
}

const FitsSample& fitsCatalog() {
    static const FitsSample sample = makeFitsSample(40, 141);
    return sample;
}

const FitsSample& fitsRandoms() {
    static const FitsSample sample = makeFitsSample(300, 142);
    return sample;
}

// The RANDOMS rows the filter "Z>0.4 && Z<0.8" keeps, in file order (RA, Dec in degrees).
std::pair<std::vector<double>, std::vector<double>> filteredRandoms() {
    std::vector<double> ra, dec;
    const FitsSample& randoms = fitsRandoms();
    for (std::size_t i = 0; i < randoms.z.size(); ++i)
        if (randoms.z[i] > 0.4 && randoms.z[i] < 0.8) {
            ra.push_back(randoms.ra[i]);
            dec.push_back(randoms.dec[i]);
        }
    return {ra, dec};
}

#ifdef TPACF_TEST_HAVE_CFITSIO
// A binary table HDU of double columns; cfitsio's status accumulates in `status`.
void writeFitsTable(fitsfile* file, const char* extname, const std::vector<const char*>& names,
                    const std::vector<const std::vector<double>*>& columns, int& status) {
    std::vector<const char*> forms(names.size(), "D");
    fits_create_tbl(file, BINARY_TBL, 0, int(names.size()), const_cast<char**>(names.data()),
                    const_cast<char**>(forms.data()), nullptr, extname, &status);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::vector<double> values = *columns[c];
        fits_write_col(file, TDOUBLE, int(c) + 1, 1, 1, LONGLONG(values.size()), values.data(),
                       &status);
    }
}
#endif

} // namespace

QString TestStudio::twoTableFits() {
#ifdef TPACF_TEST_HAVE_CFITSIO
    if (!m_fitsPath.isEmpty())
        return m_fitsPath;
    // Primary (empty), 1: CATALOG, 2: RANDOMS, 3: IMG (an image, which holds no catalog).
    const QString path = m_dir.filePath(QStringLiteral("survey.fits"));
    int status = 0;
    fitsfile* file = nullptr;
    // '!' replaces an existing file. Appended rather than "!" + path: GCC 12 warns falsely
    // (-Wrestrict) on that operator+.
    std::string name("!");
    name += path.toStdString();
    fits_create_file(&file, name.c_str(), &status);
    const FitsSample& catalog = fitsCatalog();
    const FitsSample& randoms = fitsRandoms();
    writeFitsTable(file, "CATALOG", {"RA", "DEC", "Z"}, {&catalog.ra, &catalog.dec, &catalog.z},
                   status);
    writeFitsTable(file, "RANDOMS", {"Z", "W", "DEC", "RA"},
                   {&randoms.z, &randoms.w, &randoms.dec, &randoms.ra}, status);
    long axes[2] = {4, 3};
    fits_create_img(file, SHORT_IMG, 2, axes, &status);
    fits_write_key(file, TSTRING, "EXTNAME", const_cast<char*>("IMG"), nullptr, &status);
    std::vector<short> pixels(12, 7);
    fits_write_img(file, TSHORT, 1, 12, pixels.data(), &status);
    fits_close_file(file, &status);
    if (status != 0) {
        char text[FLEN_STATUS] = {};
        fits_get_errstatus(status, text);
        qWarning("cfitsio: %s", text);
        return {};
    }
    m_fitsPath = path;
    return path;
#else
    return {};
#endif
}

void TestStudio::fitsDialogChoosesHduAndRowFilter() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no FITS file to write");
#endif
    if (!fitsSupported())
        QSKIP("this build reads no FITS tables");
    const QString path = twoTableFits();
    QVERIFY(!path.isEmpty());

    // The dialog opens on the first table, with every extension listed and the image disabled.
    const TablePreview preview = previewCatalogFile(path.toStdString());
    QVERIFY(ColumnMappingDialog::needsMapping(preview));
    ColumnMappingDialog dialog(CatalogSource{path}, preview);
    QComboBox* hdu = dialog.hduCombo();
    QVERIFY(!hdu->isHidden());
    QCOMPARE(hdu->count(), 3);
    QCOMPARE(hdu->currentData().toString(), QStringLiteral("1"));
    QCOMPARE(hdu->itemText(1), QStringLiteral("2: RANDOMS (300 rows, 4 columns)"));
    const auto* model = qobject_cast<const QStandardItemModel*>(hdu->model());
    QVERIFY(model);
    QVERIFY(model->item(0)->isEnabled());
    QVERIFY(model->item(1)->isEnabled());
    QCOMPARE(hdu->itemText(2), QStringLiteral("3: IMG (image)"));
    QVERIFY(!model->item(2)->isEnabled());
    QVERIFY(!dialog.rowFilterEdit()->isHidden());
    QCOMPARE(dialog.source().hdu, QStringLiteral("1")); // stated even when left as it is
    QCOMPARE(dialog.source().raColumn, 1);
    QCOMPARE(dialog.source().decColumn, 2);

    // HDU 2: its own columns, RA and Dec found again by name at their new places.
    hdu->setCurrentIndex(1);
    QCOMPARE(dialog.raCombo()->count(), 4);
    QCOMPARE(dialog.raCombo()->currentText(), QStringLiteral("4: RA"));
    QCOMPARE(dialog.decCombo()->currentText(), QStringLiteral("3: DEC"));
    QVERIFY(dialog.noteLabel()->text().contains(QStringLiteral("HDU 2")));
    dialog.rowFilterEdit()->setText(QStringLiteral(" Z>0.4 && Z<0.8 "));
    const CatalogSource source = dialog.source();
    QCOMPARE(source.hdu, QStringLiteral("2"));
    QCOMPARE(source.rowFilter, QStringLiteral("Z>0.4 && Z<0.8"));
    QCOMPARE(source.raColumn, 4);
    QCOMPARE(source.decColumn, 3);
    QCOMPARE(source.readPath(), path + QStringLiteral("[2][Z>0.4 && Z<0.8]"));
    // A source naming an HDU reopens the dialog on it (a recent file, a session).
    ColumnMappingDialog reopened(source, preview);
    QCOMPARE(reopened.hduCombo()->currentData().toString(), QStringLiteral("2"));
    QCOMPARE(reopened.source(), source);

    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the dialog as a PNG.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.grab().save(QDir(grabDir).filePath(QStringLiteral("column-mapping-fits.png")));
        // The HDU list open, with the image greyed out.
        hdu->showPopup();
        QVERIFY(QTest::qWaitForWindowExposed(hdu->view()->window()));
        hdu->view()->window()->grab().save(
            QDir(grabDir).filePath(QStringLiteral("column-mapping-fits-hdus.png")));
        hdu->hidePopup();
    }

    // Read: exactly the RANDOMS rows the filter keeps, RA and Dec from the right columns.
    const auto [ra, dec] = filteredRandoms();
    QVERIFY(ra.size() > 20 && ra.size() < fitsRandoms().ra.size()); // the filter does select
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(source); }));
    const auto catalog = window->dataCatalog();
    QCOMPARE(catalog->size(), ra.size());
    for (std::size_t i = 0; i < ra.size(); ++i) {
        QVERIFY(std::abs(fromRadians(catalog->ra()[i], AngleUnit::Degree) - ra[i]) < 1e-9);
        QVERIFY(std::abs(fromRadians(catalog->dec()[i], AngleUnit::Degree) - dec[i]) < 1e-9);
    }
    // The list's tooltip and the load's message state the columns, the HDU, filter and rows.
    const QTreeWidgetItem* row = catalogRow(*window, 0);
    QVERIFY(row);
    QCOMPARE(row->text(0), QStringLiteral("survey.fits[2][Z>0.4 && Z<0.8]"));
    const QString tooltip = row->toolTip(0);
    for (const QString& part :
         {QStringLiteral("fits, columns"), QStringLiteral("RA"), QStringLiteral("DEC"),
          QStringLiteral("RANDOMS"), QStringLiteral("Z>0.4 && Z<0.8"), QStringLiteral("deg"),
          QStringLiteral("%1 rows").arg(ra.size())})
        QVERIFY2(tooltip.contains(part), qPrintable(part + QStringLiteral(" not in ") + tooltip));
    const QString stated = QString::fromStdString(catalog->origin().describe());
    QVERIFY(tooltip.contains(stated));
    bool reported = false;
    for (const QList<QVariant>& message : std::as_const(messages))
        reported = reported || message.at(1).toString().contains(stated);
    QVERIFY(reported);
}

void TestStudio::sessionKeepsHduAndRowFilter() {
#ifndef TPACF_TEST_HAVE_CFITSIO
    QSKIP("the tests are built without cfitsio: no FITS file to write");
#endif
    if (!fitsSupported())
        QSKIP("this build reads no FITS tables");
    const QString path = twoTableFits();
    QVERIFY(!path.isEmpty());
    CatalogSource filtered{path};
    filtered.hdu = QStringLiteral("RANDOMS"); // by EXTNAME, as a session may say it
    filtered.rowFilter = QStringLiteral("Z>0.4 && Z<0.8");
    filtered.raColumn = 4;
    filtered.decColumn = 3;
    CatalogSource whole{path};
    whole.hdu = QStringLiteral("2");
    whole.raColumn = 4;
    whole.decColumn = 3;

    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(filtered); }));
    QVERIFY(loadAndWait(*window, [&] { return window->addRandomCatalog(whole); }));
    const std::size_t kept = filteredRandoms().first.size();
    QCOMPARE(window->dataCatalog()->size(), kept);
    QCOMPARE(window->randomCatalogs().at(0)->size(), fitsRandoms().ra.size());
    const QString sessionPath = m_dir.filePath(QStringLiteral("fits_session.json"));
    QVERIFY(window->saveSession(sessionPath));
    QFile file(sessionPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    const QJsonObject data = json.value(QStringLiteral("data")).toObject();
    QCOMPARE(data.value(QStringLiteral("hdu")).toString(), QStringLiteral("RANDOMS"));
    QCOMPARE(data.value(QStringLiteral("rowFilter")).toString(), QStringLiteral("Z>0.4 && Z<0.8"));
    const QJsonObject random = json.value(QStringLiteral("randoms")).toArray().at(0).toObject();
    QCOMPARE(random.value(QStringLiteral("hdu")).toString(), QStringLiteral("2"));
    QVERIFY(!random.contains(QStringLiteral("rowFilter"))); // written only when set

    auto reopened = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(*reopened, [&] { return reopened->loadSession(sessionPath); }));
    const Session restored = reopened->session();
    QVERIFY(restored.data && *restored.data == filtered);
    QCOMPARE(restored.randoms.size(), 1);
    QVERIFY(restored.randoms.front() == whole);
    QCOMPARE(reopened->dataCatalog()->size(), kept);
    QCOMPARE(reopened->randomCatalogs().at(0)->size(), fitsRandoms().ra.size());
}

void TestStudio::asciiLoadStatesItsColumns() {
    // A header naming the columns in an unusual order: the load says which it took.
    const QString path = m_dir.filePath(QStringLiteral("named_columns.txt"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id dec ra\n1 -5.25 150.125\n2 -5.5 150.5\n3 -4.75 151.0\n");
    }
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, testOptions());
    QSignalSpy messages(window.get(), &MainWindow::messageReported);
    QVERIFY(loadAndWait(*window, [&] { return window->setDataCatalog(CatalogSource{path}); }));
    QCOMPARE(window->dataCatalog()->size(), std::size_t(3));
    // Columns as the header names them, how they were chosen, the unit and the rows.
    const QString stated = QStringLiteral("ascii, columns ra, dec (header names), deg, 3 rows");
    QCOMPARE(catalogRow(*window, 0)->toolTip(0), path + QLatin1Char('\n') + stated);
    bool reported = false;
    for (const QList<QVariant>& message : std::as_const(messages))
        reported = reported || message.at(1).toString() ==
                                   QStringLiteral("Data catalog named_columns.txt: ") + stated;
    QVERIFY(reported);
}

void TestStudio::reusedCountsAreLoggedAndForgettable() {
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

TPACF_TEST_MAIN(TestStudio)
#include "test_studio.moc"
