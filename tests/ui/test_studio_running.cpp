// SPDX-License-Identifier: GPL-3.0-or-later
// The Studio while a run is in progress and on small screens: every view says a run is in
// progress and what it shows, nothing exports the previous result under this run's name,
// quitting asks first, footprints that differ are asked about before counting, and the window
// fits a 1280 x 720 screen with nothing drawn over anything else.
#include "tpacf_test_main.h"
#include "backend_panel.h"
#include "binning_panel.h"
#include "errors_panel.h"
#include "main_window.h"
#include "fit_panel.h"
#include "plot_panel.h"
#include "plot_export.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/mock.h>

#include <qcustomplot.h>

#include <QAction>
#include <QComboBox>
#include <QGroupBox>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QWheelEvent>
#include <QSpinBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QScreen>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

bool waitForLoads(MainWindow& window) {
    return QTest::qWaitFor([&window] { return !window.isLoading(); }, 60000);
}

template <typename Start> bool loadAndWait(MainWindow& window, Start&& start) {
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    if (!start() || !waitForLoads(window) || finished.isEmpty())
        return false;
    return finished.last().front().toBool();
}

} // namespace

class TestStudioRunning : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void viewsSayARunIsInProgress();
    void quittingDuringARunAsks();
    void differentFootprintsAreAskedAbout();
    void fitsALaptopScreen();
    void staysOnALaptopScreenAfterRuns();
    void catalogsReadAgainAreNotPreviousInputs();
    void aMovedSessionIsLocated();
    void errorBarsAboveTheFoldAndTheWheelScrolls();
    void legendClearOfPointsAndAxisNamesTheUnit();
    void exportsOpenInTheLastExportFolder();
    void aLayoutThatDoesNotFitIsNotRestored();

private:
    /// A window with data and randoms loaded (data over the randoms unless `apart`), the CPU
    /// backend, and every question answered with `answer` (the questions are kept).
    std::unique_ptr<MainWindow> makeWindow(bool apart = false);
    QString writeCatalog(const QString& name, const Catalog& catalog);

    QTemporaryDir m_dir;
    QString m_dataPath, m_randomPath, m_farRandomPath;
    bool m_answer = true;
    QStringList m_questions;
};

void TestStudioRunning::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    MockParams mock;
    mock.count = 20000;
    mock.seed = 3;
    mock.footprint = Footprint::box(150, 190, 0, 30);
    m_dataPath = writeCatalog(QStringLiteral("data.txt"), generateClusteredMock(mock, "data"));
    m_randomPath = writeCatalog(QStringLiteral("random.txt"),
                                generateUniformRandoms(40000, mock.footprint, 5, "random"));
    m_farRandomPath =
        writeCatalog(QStringLiteral("far_random.txt"),
                     generateUniformRandoms(40000, Footprint::box(300, 340, -60, -30), 6, "far"));
}

QString TestStudioRunning::writeCatalog(const QString& name, const Catalog& catalog) {
    const QString path = m_dir.filePath(name);
    writeCatalogAscii(path.toStdString(), catalog);
    return path;
}

std::unique_ptr<MainWindow> TestStudioRunning::makeWindow(bool apart) {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false;
    options.confirm = [this](const QString& question) {
        m_questions.append(question);
        return m_answer;
    };
    auto window = std::make_unique<MainWindow>(BackendRegistry{}, options);
    MainWindow& w = *window;
    const QString randoms = apart ? m_farRandomPath : m_randomPath;
    if (!loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{m_dataPath}); }) ||
        !loadAndWait(w, [&] { return w.addRandomCatalog(CatalogSource{randoms}); }))
        return nullptr;
    // Wide bins: a run of a second or so on two cores, long enough to look at it running.
    w.binningPanel()->setSpec(BinSpec::logCount(0.5, 1200.0, AngleUnit::Arcminute, 20));
    BackendOptions cpu;
    cpu.name = "cpu";
    cpu.cpuThreads = 1;
    w.backendPanel()->setBackendOptions(cpu);
    return window;
}

void TestStudioRunning::viewsSayARunIsInProgress() {
    auto window = makeWindow();
    QVERIFY(window);
    auto* exportCsv = window->findChild<QAction*>(QStringLiteral("exportCsvAction"));
    auto* exportPlot = window->findChild<QAction*>(QStringLiteral("exportPlotAction"));
    auto* resultsDock = window->findChild<QDockWidget*>(QStringLiteral("resultsDock"));
    QVERIFY(exportCsv && exportPlot && resultsDock);
    PlotPanel* plots = window->plotPanel();

    // A first run leaves a result; the second one must not pass it off as its own.
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun());
    QVERIFY(finished.wait(60000));
    QVERIFY(exportCsv->isEnabled() && exportPlot->isEnabled());
    QCOMPARE(resultsDock->windowTitle(), QStringLiteral("Results"));
    QVERIFY(!plots->plotTitle(PlotPanel::Plot::Correlation).contains(QStringLiteral("running")));

    QVERIFY(window->startRun());
    QVERIFY(window->isRunning());
    QVERIFY(!exportCsv->isEnabled());
    QVERIFY(!exportPlot->isEnabled());
    QVERIFY2(resultsDock->windowTitle().contains(QStringLiteral("previous run")),
             qPrintable(resultsDock->windowTitle()));
    for (PlotPanel::Plot plot : {PlotPanel::Plot::Correlation, PlotPanel::Plot::PairCounts}) {
        const QString title = plots->plotTitle(plot);
        QVERIFY2(title.contains(QStringLiteral("running")), qPrintable(title));
        QVERIFY2(!title.contains(QStringLiteral("press Run")), qPrintable(title));
    }
    // A live estimate, when one comes, says how much of the pairs it stands on.
    bool sawLive = false;
    while (window->isRunning() && finished.count() < 2) {
        QTest::qWait(20);
        const QString title = plots->plotTitle(PlotPanel::Plot::Correlation);
        if (title.contains(QStringLiteral("live estimate from"))) {
            sawLive = true;
            QVERIFY2(title.contains(QStringLiteral("% of the pairs")), qPrintable(title));
        }
    }
    QVERIFY(finished.count() == 2 || finished.wait(60000));
    qInfo("a live estimate was %s during the run", sawLive ? "shown" : "not shown (too short)");
    QVERIFY(exportCsv->isEnabled() && exportPlot->isEnabled());
    QCOMPARE(resultsDock->windowTitle(), QStringLiteral("Results"));
    QVERIFY(!plots->plotTitle(PlotPanel::Plot::Correlation).contains(QStringLiteral("running")));
}

void TestStudioRunning::quittingDuringARunAsks() {
    auto window = makeWindow();
    QVERIFY(window);
    window->show();
    m_questions.clear();

    // Nothing runs: no question.
    m_answer = false;
    QVERIFY(window->close());
    QVERIFY(m_questions.isEmpty());

    window->show();
    QSignalSpy cancelled(window.get(), &MainWindow::runCancelled);
    QVERIFY(window->startRun());
    QVERIFY(!window->close()); // "no": the window stays and the run goes on
    QCOMPARE(m_questions.size(), 1);
    QVERIFY2(m_questions.front().contains(QStringLiteral("run is in progress")),
             qPrintable(m_questions.front()));
    QVERIFY(window->isVisible());
    QVERIFY(window->isRunning() || window->currentResult());

    if (window->isRunning()) {
        m_answer = true;
        QVERIFY(window->close()); // "yes": cancelled, and the window closes
        QCOMPARE(m_questions.size(), 2);
        QVERIFY(QTest::qWaitFor([&] { return !window->isRunning(); }, 10000));
    }
    m_answer = true;
}

void TestStudioRunning::differentFootprintsAreAskedAbout() {
    auto window = makeWindow(true);
    QVERIFY(window);
    m_questions.clear();
    m_answer = false;
    QVERIFY(!window->startRun()); // "no": nothing counted
    QVERIFY(!window->isRunning());
    QCOMPARE(m_questions.size(), 1);
    QVERIFY2(m_questions.front().contains(QStringLiteral("Run anyway")),
             qPrintable(m_questions.front()));

    m_answer = true;
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun()); // "yes": the user's call
    QCOMPARE(m_questions.size(), 2);
    QVERIFY(finished.wait(60000));

    // Data over their randoms: no question at all.
    auto matching = makeWindow(false);
    QVERIFY(matching);
    m_questions.clear();
    QSignalSpy done(matching.get(), &MainWindow::runFinished);
    QVERIFY(matching->startRun());
    QVERIFY(m_questions.isEmpty());
    QVERIFY(done.wait(60000));
}

void TestStudioRunning::fitsALaptopScreen() {
    auto window = makeWindow();
    QVERIFY(window);
    // Whatever the screen, the window asks for no more than a 1280 x 720 one holds (less its
    // panel and the title bar), and it opens inside the screen it is on.
    const QSize minimum = window->minimumSizeHint().expandedTo(window->minimumSize());
    QVERIFY2(minimum.width() <= 1264 && minimum.height() <= 672,
             qPrintable(QStringLiteral("minimum %1 x %2").arg(minimum.width()).arg(minimum.height())));
    // On a screen that holds that minimum, the window opens inside it.
    const QRect available = window->screen()->availableGeometry();
    qInfo("screen %d x %d, window %d x %d, minimum %d x %d", available.width(), available.height(),
          window->width(), window->height(), minimum.width(), minimum.height());
    if (available.width() >= minimum.width() + 16 && available.height() >= minimum.height() + 48)
        QVERIFY(window->width() <= available.width() && window->height() <= available.height());

    // At 1264 x 672 the visible docks do not overlap one another.
    window->resize(1264, 672);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QCoreApplication::processEvents();
    QList<QDockWidget*> shown;
    for (QDockWidget* dock : window->findChildren<QDockWidget*>())
        if (dock->isVisible() && !dock->visibleRegion().isEmpty())
            shown.append(dock);
    QVERIFY(shown.size() >= 4);
    for (int i = 0; i < shown.size(); ++i)
        for (int j = i + 1; j < shown.size(); ++j)
            QVERIFY2(!shown[i]->geometry().intersects(shown[j]->geometry()),
                     qPrintable(shown[i]->objectName() + QStringLiteral(" overlaps ") +
                                shown[j]->objectName()));
}

// Issue 35, item 1: no title, note or table raises the window's minimum size past a laptop
// screen, during and after runs (a jackknife one, so the covariance view has content) and on
// every plot tab.
void TestStudioRunning::staysOnALaptopScreenAfterRuns() {
    auto window = makeWindow();
    QVERIFY(window);
    // A survey's file name, as long as they come: it goes into the plot titles.
    const QString longName = m_dir.filePath(
        QStringLiteral("sdss_dr12_cmass_north_galaxies_z0p43_to_0p70_with_fkp_weights_and_"
                       "completeness_above_0p7_version_5_final.txt"));
    QVERIFY(QFile::copy(m_dataPath, longName));
    MainWindow& w = *window;
    QVERIFY(loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{longName}); }));
    ErrorsPanel* errors = window->errorsPanel();
    errors->methodCombo()->setCurrentIndex(
        errors->methodCombo()->findData(int(ErrorSettings::Method::Regions)));
    errors->regionsSpin()->setValue(4);
    window->resize(1264, 672);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    int widest = 0, tallest = 0;
    QString where;
    const auto check = [&](const QString& when) {
        QCoreApplication::processEvents();
        const QSize minimum = window->minimumSizeHint().expandedTo(window->minimumSize());
        if (minimum.width() > widest || minimum.height() > tallest)
            where = when;
        widest = std::max(widest, minimum.width());
        tallest = std::max(tallest, minimum.height());
    };
    check(QStringLiteral("before a run"));
    for (int run = 0; run < 2; ++run) {
        QSignalSpy finished(window.get(), &MainWindow::runFinished);
        QVERIFY(window->startRun());
        check(QStringLiteral("while running"));
        QVERIFY(finished.wait(60000));
        check(QStringLiteral("after run %1").arg(run + 1));
        for (const PlotPanel::Plot plot : {PlotPanel::Plot::Covariance, PlotPanel::Plot::PairCounts,
                                           PlotPanel::Plot::Correlation}) {
            window->plotPanel()->setCurrentPlot(plot);
            check(QStringLiteral("on plot tab %1").arg(int(plot)));
        }
    }
    QVERIFY2(widest <= 1264 && tallest <= 672,
             qPrintable(QStringLiteral("minimum %1 x %2 (largest %3)").arg(widest).arg(tallest).arg(where)));
}

void TestStudioRunning::catalogsReadAgainAreNotPreviousInputs() {
    auto window = makeWindow();
    QVERIFY(window);
    QSignalSpy finished(window.get(), &MainWindow::runFinished);
    QVERIFY(window->startRun());
    QVERIFY(finished.wait(60000));
    QVERIFY(!window->isResultStale());
    // The same file read again (a session reopened): new objects, the same content.
    MainWindow& w = *window;
    QVERIFY(loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{m_dataPath}); }));
    QVERIFY(!window->isResultStale());
    // Other content is another input.
    QVERIFY(loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{m_randomPath}); }));
    QVERIFY(window->isResultStale());
    QVERIFY(loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{m_dataPath}); }));
    QVERIFY(!window->isResultStale());
}

void TestStudioRunning::aMovedSessionIsLocated() {
    // A session saved with its catalogs in one folder, the folder then renamed.
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString before = root.filePath(QStringLiteral("survey"));
    const QString after = root.filePath(QStringLiteral("survey-2026"));
    QVERIFY(QDir().mkpath(before));
    for (const QString& name : {QStringLiteral("data.txt"), QStringLiteral("random.txt")})
        QVERIFY(QFile::copy(m_dir.filePath(name), before + QLatin1Char('/') + name));
    {
        auto window = makeWindow();
        QVERIFY(window);
        MainWindow& w = *window;
        QVERIFY(loadAndWait(w, [&] { return w.setDataCatalog(CatalogSource{before + QStringLiteral("/data.txt")}); }));
        w.removeRandomCatalog(0);
        QVERIFY(loadAndWait(
            w, [&] { return w.addRandomCatalog(CatalogSource{before + QStringLiteral("/random.txt")}); }));
        QVERIFY(w.saveSession(root.filePath(QStringLiteral("survey.json"))));
    }
    QVERIFY(QDir().rename(before, after));

    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false;
    QStringList asked;
    QString answer;
    options.locate = [&](const QString& missing) {
        asked.append(missing);
        return answer;
    };
    // No answer: the load fails, and the message says which file is gone, once.
    {
        MainWindow window(BackendRegistry{}, options);
        QStringList messages;
        connect(&window, &MainWindow::messageReported, this,
                [&](MessageSeverity, const QString& text) { messages.append(text); });
        QVERIFY(!loadAndWait(window, [&] {
            return window.loadSession(root.filePath(QStringLiteral("survey.json")));
        }));
        QCOMPARE(asked, QStringList{before + QStringLiteral("/data.txt")});
        const QString all = messages.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(before + QStringLiteral("/data.txt does not exist")), qPrintable(all));
        QCOMPARE(all.count(QStringLiteral("cannot read the catalog"), Qt::CaseInsensitive), 1);
        QVERIFY(!window.dataCatalog());
    }
    // Located: the data file and, beside it, the random one; the session's catalogs load.
    asked.clear();
    answer = after + QStringLiteral("/data.txt");
    MainWindow window(BackendRegistry{}, options);
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    QVERIFY(window.loadSession(root.filePath(QStringLiteral("survey.json"))));
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty() && finished.last().front().toBool(); },
                            60000));
    QCOMPARE(asked.size(), 1);
    QVERIFY(window.dataCatalog());
    QCOMPARE(window.randomCatalogs().size(), std::size_t{1});
    QCOMPARE(window.session().data->path, after + QStringLiteral("/data.txt"));
    QCOMPARE(window.session().randoms.front().path, after + QStringLiteral("/random.txt"));
}

namespace {

// A wheel turn (one notch up) over the middle of `widget`, delivered as the window would.
void turnWheel(QWidget* widget, int notches) {
    const QPointF centre(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent wheel(centre, widget->mapToGlobal(centre), QPoint(), QPoint(0, 120 * notches),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(widget, &wheel);
}

} // namespace

// Issue 35, item 4: at 1264 x 672 the Error bars section shows without scrolling its dock, and a
// wheel turned over an unfocused spin box or combo box scrolls the panel instead of changing it;
// a focused one still takes the wheel.
void TestStudioRunning::errorBarsAboveTheFoldAndTheWheelScrolls() {
    auto window = makeWindow();
    QVERIFY(window);
    window->resize(1264, 672);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    auto* dock = window->findChild<QDockWidget*>(QStringLiteral("backendDock"));
    QVERIFY(dock);
    dock->raise();
    QCoreApplication::processEvents();
    auto* scroll = window->findChild<QScrollArea*>(QStringLiteral("backendDockScroll"));
    auto* group = window->findChild<QGroupBox*>(QStringLiteral("errorBarsGroup"));
    QVERIFY(scroll && group);
    QComboBox* method = window->errorsPanel()->methodCombo();
    const int methodBottom = method->mapTo(scroll->viewport(), QPoint(0, method->height())).y();
    QVERIFY2(methodBottom <= scroll->viewport()->height(),
             qPrintable(QStringLiteral("the error-bar method ends at %1 px of a %2 px panel")
                            .arg(methodBottom)
                            .arg(scroll->viewport()->height())));

    QSpinBox* threads = window->backendPanel()->threadsSpin();
    QVERIFY(threads->isEnabled());
    const int before = threads->value();
    QScrollBar* bar = scroll->verticalScrollBar();
    bar->setValue(0);
    window->activateWindow();
    window->errorsPanel()->methodCombo()->setFocus(); // the focus elsewhere
    QVERIFY(!threads->hasFocus());
    turnWheel(threads, -1);
    QCOMPARE(threads->value(), before);
    if (bar->maximum() > 0) // the panel scrolls where it is taller than its dock
        QVERIFY2(bar->value() > 0, "the wheel did not scroll the panel");
    QComboBox* precision = window->backendPanel()->precisionCombo();
    const int precisionIndex = precision->currentIndex();
    turnWheel(precision, 1);
    QCOMPARE(precision->currentIndex(), precisionIndex);
    // Focused (a click or Tab), the control takes the wheel as before.
    threads->setFocus();
    QTRY_VERIFY(threads->hasFocus());
    turnWheel(threads, 1);
    QCOMPARE(threads->value(), before + 1);
}

// Issue 35, item 5: on screen the legend goes where it hides no point (as exports place it),
// and the empty plot's θ axis names the unit of the bins it will count.
void TestStudioRunning::legendClearOfPointsAndAxisNamesTheUnit() {
    auto window = makeWindow();
    QVERIFY(window);
    window->resize(1264, 672);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QCustomPlot* plot = window->plotPanel()->plot(PlotPanel::Plot::Correlation);
    QCOMPARE(plot->xAxis->label(), QStringLiteral("θ (arcmin)"));
    window->binningPanel()->setSpec(BinSpec::logCount(0.1, 5.0, AngleUnit::Degree, 8));
    QCOMPARE(plot->xAxis->label(), QStringLiteral("θ (deg)"));
    // The empty axes frame the bins.
    QVERIFY(plot->xAxis->range().lower <= 0.1 && plot->xAxis->range().upper >= 5.0);
    QVERIFY(plot->xAxis->range().upper < 50.0);

    // w rising with θ fills the top right corner, where the legend starts.
    auto result = std::make_shared<CorrelationResult>();
    result->bins = BinSpec::logCount(1.0, 1000.0, AngleUnit::Arcminute, 12);
    const Binning binning(result->bins);
    result->edges.assign(binning.edges().begin(), binning.edges().end());
    result->centres.assign(binning.centres().begin(), binning.centres().end());
    for (std::size_t k = 0; k < binning.count(); ++k)
        result->w.push_back(0.01 * std::pow(1.8, double(k)));
    result->raw.dd.assign(binning.count(), 100);
    window->plotPanel()->setResult(result, false);
    plot->replot();
    const QRectF legend = QRectF(plot->legend->outerRect()).adjusted(-4, -4, 4, 4);
    QVERIFY(plot->legend->visible());
    QCOMPARE(dataUnder(plot, legend), 0);
}

// Issue 35, item 7: every export dialog opens where the last export went (results, covariance,
// plots, job files, compared runs, the fit), not in the catalogs' folder; the folder is kept
// between starts.
void TestStudioRunning::exportsOpenInTheLastExportFolder() {
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-ui-test"));
    QCoreApplication::setApplicationName(QStringLiteral("exportsOpenInTheLastExportFolder"));
    QSettings().clear();
    const QString exports = m_dir.filePath(QStringLiteral("exports"));
    const QString figures = m_dir.filePath(QStringLiteral("figures"));
    QVERIFY(QDir().mkpath(exports) && QDir().mkpath(figures));
    {
        MainWindow::Options options;
        options.loadSample = false;
        options.interactive = false;
        options.useSettings = true;
        MainWindow window(BackendRegistry{}, options);
        QVERIFY(loadAndWait(window, [&] { return window.setDataCatalog(CatalogSource{m_dataPath}); }));
        QVERIFY(loadAndWait(window,
                            [&] { return window.addRandomCatalog(CatalogSource{m_randomPath}); }));
        QVERIFY(QDir(window.exportDirectory()) != QDir(exports));
        QSignalSpy finished(&window, &MainWindow::runFinished);
        QVERIFY(window.startRun());
        QVERIFY(finished.wait(60000));
        QVERIFY(window.exportResultCsv(exports + QStringLiteral("/w.ecsv")));
        QCOMPARE(QDir(window.exportDirectory()), QDir(exports));
        QCOMPARE(QDir(window.plotPanel()->fitPanel()->exportFolder()), QDir(exports));
        QVERIFY(window.exportPlot(int(PlotPanel::Plot::Correlation),
                                  figures + QStringLiteral("/w.png")));
        QCOMPARE(QDir(window.exportDirectory()), QDir(figures));
        QVERIFY(window.saveRunAsJobFile(exports + QStringLiteral("/job.toml")));
        QCOMPARE(QDir(window.exportDirectory()), QDir(exports));
        window.close();
    }
    MainWindow::Options options;
    options.loadSample = false;
    options.interactive = false;
    options.useSettings = true;
    MainWindow reopened(BackendRegistry{}, options);
    QCOMPARE(QDir(reopened.exportDirectory()), QDir(exports));
    QCOMPARE(QDir(reopened.plotPanel()->fitPanel()->exportFolder()), QDir(exports));
    QSettings().clear();
}

namespace {
MainWindow::Options testOptionsWithoutSettings() {
    MainWindow::Options options;
    options.loadSample = false;
    options.interactive = false;
    options.useSettings = false;
    return options;
}
} // namespace

// Issue 35, item 2: a layout saved on a larger screen (side columns 1000 pixels wide) is not
// restored on a smaller one, where it would squeeze the panels: the default layout for this
// screen shows, and the Log says why. View > Reset Layout brings back docks closed or floated.
void TestStudioRunning::aLayoutThatDoesNotFitIsNotRestored() {
    QCoreApplication::setOrganizationName(QStringLiteral("tpacf-ui-test"));
    QCoreApplication::setApplicationName(QStringLiteral("aLayoutThatDoesNotFitIsNotRestored"));
    QSettings().clear();
    MainWindow::Options options = testOptionsWithoutSettings();
    options.useSettings = true;
    const auto dockWidth = [](const MainWindow& window, const char* name) {
        return window.findChild<QDockWidget*>(QString::fromLatin1(name))->width();
    };
    {
        MainWindow wide(BackendRegistry{}, options);
        wide.resize(2560, 1400);
        wide.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wide));
        auto* catalogs = wide.findChild<QDockWidget*>(QStringLiteral("catalogsDock"));
        auto* binning = wide.findChild<QDockWidget*>(QStringLiteral("binningDock"));
        wide.resizeDocks({catalogs, binning}, {1000, 1000}, Qt::Horizontal);
        QCoreApplication::processEvents();
        QVERIFY(catalogs->width() >= 900);
        wide.close();
    }
    // As a 2560 x 1440 screen would have written it.
    QSettings().setValue(QStringLiteral("window/screen"), QSize(2560, 1440));
    int defaultCatalogs = 0, defaultBinning = 0;
    {
        MainWindow fresh(BackendRegistry{}, testOptionsWithoutSettings());
        fresh.show();
        QVERIFY(QTest::qWaitForWindowExposed(&fresh));
        QCoreApplication::processEvents();
        defaultCatalogs = dockWidth(fresh, "catalogsDock");
        defaultBinning = dockWidth(fresh, "binningDock");
    }
    MainWindow window(BackendRegistry{}, options);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
    QCOMPARE(dockWidth(window, "catalogsDock"), defaultCatalogs);
    QCOMPARE(dockWidth(window, "binningDock"), defaultBinning);
    const auto* log = window.findChild<QPlainTextEdit*>(QStringLiteral("log"));
    QVERIFY(log);
    QVERIFY2(log->toPlainText().contains(QStringLiteral("made on a larger screen")),
             qPrintable(log->toPlainText()));

    // Docks closed and floated come back with Reset Layout, at the default sizes.
    auto* logDock = window.findChild<QDockWidget*>(QStringLiteral("logDock"));
    auto* skyDock = window.findChild<QDockWidget*>(QStringLiteral("skyDock"));
    auto* catalogsDock = window.findChild<QDockWidget*>(QStringLiteral("catalogsDock"));
    logDock->close();
    skyDock->setFloating(true);
    window.resizeDocks({catalogsDock}, {defaultCatalogs + 150}, Qt::Horizontal);
    QCoreApplication::processEvents();
    QVERIFY(logDock->isHidden() && skyDock->isFloating());
    QVERIFY(dockWidth(window, "catalogsDock") != defaultCatalogs);
    auto* reset = window.findChild<QAction*>(QStringLiteral("resetLayoutAction"));
    QVERIFY(reset);
    reset->trigger();
    QCoreApplication::processEvents();
    QVERIFY(!skyDock->isFloating() && !skyDock->isHidden());
    QVERIFY(!logDock->isHidden());
    QTRY_COMPARE(dockWidth(window, "catalogsDock"), defaultCatalogs);
    window.close();
    QSettings().clear();
}

TPACF_TEST_MAIN(TestStudioRunning)
#include "test_studio_running.moc"
