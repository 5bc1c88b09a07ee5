// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, part one: builds the window and wires the catalog set, the run controller and the
// panels together, and reports messages. Catalogs as the window presents them are in
// main_window_catalogs.cpp, the run in main_window_run.cpp; actions, menus and dialogs in
// main_window_menus.cpp; sessions, exports and settings in main_window_files.cpp.
#include "main_window.h"
#include "wheel_guard.h"

#include "backend_panel.h"
#include "binning_panel.h"
#include "catalogs_panel.h"
#include "errors_panel.h"
#include "plot_panel.h"
#include "result_table.h"
#include "run_panel.h"
#include "sky_plot.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDockWidget>
#include <QGroupBox>
#include <QGuiApplication>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QShowEvent>
#include <QTimer>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>

// Resources of a static library must be registered explicitly (outside any namespace).
static void initStudioResources() {
    Q_INIT_RESOURCE(tpacf_studio);
#ifdef TPACF_UI_HAVE_SAMPLES
    Q_INIT_RESOURCE(samples);
#endif
}

namespace tpacf::ui {

namespace {

enum class DockContent { Fixed, Scrolled };

// Settings panels sit in a scroll area: their natural heights add up to more than a 720-pixel
// screen holds, and a dock's minimum size would otherwise become the window's (a window larger
// than the screen, or docks drawn over each other when it is forced smaller).
QDockWidget* makeDock(const QString& title, const QString& objectName, QWidget* content,
                      QWidget* parent, DockContent kind = DockContent::Fixed) {
    auto* dock = new QDockWidget(title, parent);
    dock->setObjectName(objectName); // needed by saveState()/restoreState()
    if (kind == DockContent::Scrolled) {
        auto* scroll = new QScrollArea(dock);
        scroll->setObjectName(objectName + QStringLiteral("Scroll"));
        scroll->setWidget(content);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
        dock->setWidget(scroll);
    } else {
        dock->setWidget(content);
    }
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    return dock;
}

} // namespace

MainWindow::MainWindow(BackendRegistry backends, QWidget* parent)
    : MainWindow(std::move(backends), Options{}, parent) {}

MainWindow::MainWindow(BackendRegistry backends, Options options, QWidget* parent)
    : QMainWindow(parent), m_backends(std::move(backends)), m_options(options) {
    initStudioResources();
    qRegisterMetaType<MessageSeverity>();
    // The PNG rendering of the SVG icon: Qt needs its optional SVG plugin to read the SVG.
    setWindowIcon(QIcon(QStringLiteral(":/icons/tpacf-studio-256.png")));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    // Catalogs read in the background; runs on the worker thread (reading region labels through
    // the catalogs' loader); recent files. The window only wires them to its widgets.
    m_catalogs = new CatalogSet(this);
    connect(m_catalogs, &CatalogSet::catalogsChanged, this, &MainWindow::updateCatalogViews);
    connect(m_catalogs, &CatalogSet::changeApplied, this, &MainWindow::onChangeApplied);
    connect(m_catalogs, &CatalogSet::changeFailed, this, &MainWindow::onChangeFailed);
    connect(m_catalogs, &CatalogSet::loadingChanged, this, &MainWindow::updateLoadingIndicator);
    m_run = new RunController(m_backends, m_catalogs, this);
    connect(m_run, &RunController::finished, this, &MainWindow::onRunFinished);
    connect(m_run, &RunController::failed, this, &MainWindow::onRunFailed);
    connect(m_run, &RunController::cancelled, this, &MainWindow::onRunCancelled);
    connect(m_run, &RunController::staleChanged, this, &MainWindow::onStaleChanged);
    m_recentFiles = new RecentFiles(RecentFiles::kDefaultLimit, this);
    connect(m_recentFiles, &RecentFiles::changed, this, &MainWindow::updateRecentMenu);

    m_plotPanel = new PlotPanel(this);
    setCentralWidget(m_plotPanel);
    connect(m_plotPanel, &PlotPanel::readout, this, [this](const QString& text) {
        if (text.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(text);
    });

    createActions();
    createDocks();
    createMenus();
    statusBar()->showMessage(tr("Ready"));
    fitToScreen(QSize(1500, 940));
    m_defaultLayout = saveState();

    if (m_options.useSettings)
        restoreSettings();
    if (m_options.loadSample && !(m_options.reopenAutoSession && reopenAutoSession()))
        loadBundledSample();
    updateCatalogViews();
    updateRunState();
}

MainWindow::~MainWindow() {
    // Stop the run and the reads (joining their threads) while every widget they report to
    // still exists.
    delete m_run;
    delete m_catalogs;
}

// ----------------------------------------------------------------------------------------------
// Construction

QSize MainWindow::availableScreenSize() const {
    const QScreen* shown = screen() ? screen() : QGuiApplication::primaryScreen();
    return shown ? shown->availableGeometry().size() : QSize(1280, 720);
}

void MainWindow::fitToScreen(QSize preferred) {
    // Inside the screen's available area, less a margin for the window frame and title bar.
    const QSize available = availableScreenSize();
    const QSize size(std::min(preferred.width(), available.width() - 16),
                     std::min(preferred.height(), available.height() - 48));
    resize(size.expandedTo(QSize(640, 480)));
    if (const QScreen* shown = screen()) {
        const QRect area = shown->availableGeometry();
        const QRect frame = frameGeometry();
        if (!area.contains(frame))
            move(area.topLeft() + QPoint(std::max(0, (area.width() - frame.width()) / 2),
                                         std::max(0, (area.height() - frame.height()) / 2)));
    }
}

void MainWindow::resetLayout() {
    restoreState(m_defaultLayout);
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        if (dock->isFloating())
            dock->setFloating(false);
    fitToScreen(QSize(1500, 940));
}

bool MainWindow::layoutFitsScreen() const {
    const QSize available = availableScreenSize();
    const QSize minimum = minimumSizeHint().expandedTo(minimumSize());
    return minimum.width() <= available.width() && minimum.height() <= available.height();
}

void MainWindow::keepLayoutOnScreen() {
    if (layoutFitsScreen())
        return;
    resetLayout();
    logLine(MessageSeverity::Info,
            tr("The window layout of the last start does not fit this screen (%1 × %2): the "
               "default layout is shown instead (View ▸ Reset Layout brings it back any time).")
                .arg(availableScreenSize().width())
                .arg(availableScreenSize().height()));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!m_checkRestoredLayout)
        return;
    m_checkRestoredLayout = false;
    // Once the docks have their sizes: the layout is applied after the show.
    QTimer::singleShot(0, this, &MainWindow::keepLayoutOnScreen);
}

void MainWindow::createDocks() {
    // Catalogs: data and randoms with N and RA/Dec extent.
    m_catalogsPanel = new CatalogsPanel(this);
    m_catalogsPanel->setActions(m_openDataAction, m_addRandomAction, m_removeRandomAction);
    m_catalogsPanel->setSecondSampleActions(m_openData2Action, m_addRandom2Action,
                                            m_removeSecondAction);
    // The panel's own remedies (another unit or columns for a listed catalog) reread it in place.
    m_catalogsPanel->setCatalogSet(m_catalogs);
    connect(m_catalogsPanel, &CatalogsPanel::changeRequested, this,
            [this](const CatalogChange& change) {
                LoadIntent intent;
                intent.doneMessage = tr("Catalog reread with the new reading settings");
                // Open Recent then reopens it as last read (its new filter, columns or unit).
                intent.recordRecent = true;
                queueCatalogChange(change, std::move(intent));
            });

    m_skyPlot = new SkyPlot(this);
    m_binningPanel = new BinningPanel(this);
    m_backendPanel = new BackendPanel(m_backends, this);
    m_errorsPanel = new ErrorsPanel(this);
    connect(m_binningPanel, &BinningPanel::changed, this, &MainWindow::updateRunState);
    connect(m_binningPanel, &BinningPanel::changed, this, &MainWindow::showPendingBins);
    connect(m_backendPanel, &BackendPanel::changed, this, &MainWindow::updateRunState);
    connect(m_errorsPanel, &ErrorsPanel::changed, this, &MainWindow::updateRunState);
    // Estimator, error bars and backend share one dock: the errors in their own group between
    // the estimator and the backend, where a short screen still shows them without scrolling
    // (the backend's choices are set once; the error bars change with every analysis).
    auto* estimatorWidget = new QWidget(this);
    auto* errorsGroup = new QGroupBox(tr("Error bars"), estimatorWidget);
    errorsGroup->setObjectName(QStringLiteral("errorBarsGroup"));
    auto* errorsLayout = new QVBoxLayout(errorsGroup);
    errorsLayout->setContentsMargins(6, 4, 6, 4);
    errorsLayout->addWidget(m_errorsPanel);
    m_backendPanel->insertSection(errorsGroup);
    auto* estimatorLayout = new QVBoxLayout(estimatorWidget);
    estimatorLayout->setContentsMargins(0, 0, 0, 0);
    estimatorLayout->setSpacing(0);
    estimatorLayout->addWidget(m_backendPanel);
    estimatorLayout->addStretch();

    // Run: start, cancel, progress with pairs/s and ETA, and why Run is disabled.
    m_runPanel = new RunPanel(this);
    connect(m_runPanel, &RunPanel::runRequested, this, &MainWindow::startRun);
    connect(m_runPanel, &RunPanel::cancelRequested, this, &MainWindow::cancelRun);
    connect(m_run, &RunController::jobStarted, m_runPanel,
            [this] { m_runPanel->showStarting(tr("Starting…")); });
    connect(m_run, &RunController::progress, m_runPanel, &RunPanel::showProgress);
    connect(m_run, &RunController::progress, m_plotPanel, [this](const JobProgressUpdate& update) {
        if (update.partial)
            m_plotPanel->setLiveCoverage(update.partialCoverage);
    });
    // The refresh timer hands on the latest partial result: live plots without a redraw per
    // progress report.
    connect(m_run, &RunController::partialResult, m_plotPanel,
            [this](const ResultPtr& partial) { m_plotPanel->setResult(partial, true); });

    m_resultModel = new ResultTableModel(this);
    m_resultView = new ResultTableView(this);
    m_resultView->setModel(m_resultModel);
    m_log = new QPlainTextEdit(this);
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);

    auto* catalogDock =
        makeDock(tr("Catalogs"), QStringLiteral("catalogsDock"), m_catalogsPanel, this,
                 DockContent::Scrolled);
    auto* skyDock = makeDock(tr("Sky Preview"), QStringLiteral("skyDock"), m_skyPlot, this);
    auto* binningDock =
        makeDock(tr("Binning"), QStringLiteral("binningDock"), m_binningPanel, this,
                 DockContent::Scrolled);
    auto* backendDock = makeDock(tr("Estimator, Errors, Backend"), QStringLiteral("backendDock"),
                                 estimatorWidget, this, DockContent::Scrolled);
    for (QWidget* scrolled : {static_cast<QWidget*>(m_catalogsPanel),
                              static_cast<QWidget*>(m_binningPanel), estimatorWidget})
        guardWheel(scrolled);
    // The Run panel sizes itself to its (wrapped) messages: no scroll area, nothing clipped.
    auto* runDock = makeDock(tr("Run"), QStringLiteral("runDock"), m_runPanel, this);
    auto* resultsDock = makeDock(tr("Results"), QStringLiteral("resultsDock"), m_resultView, this);
    m_resultsDock = resultsDock;
    auto* logDock = makeDock(tr("Log"), QStringLiteral("logDock"), m_log, this);

    // Inputs on the left, settings and run on the right, plots in the middle, table and log below
    // (reaching under the settings column, so all ten CSV columns fit).
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    addDockWidget(Qt::LeftDockWidgetArea, catalogDock);
    addDockWidget(Qt::LeftDockWidgetArea, skyDock);
    addDockWidget(Qt::RightDockWidgetArea, binningDock);
    addDockWidget(Qt::RightDockWidgetArea, backendDock);
    addDockWidget(Qt::RightDockWidgetArea, runDock);
    addDockWidget(Qt::BottomDockWidgetArea, resultsDock);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    tabifyDockWidget(resultsDock, logDock);
    createCompareDocks(logDock);
    resultsDock->raise();
    // On short screens (a 1280 x 720 or 1366 x 768 laptop) binning and estimator share a
    // column as tabs, so that each shows whole instead of three squeezed panels.
    if (availableScreenSize().height() < 900) {
        tabifyDockWidget(binningDock, backendDock);
        binningDock->raise();
        resizeDocks({catalogDock, binningDock}, {300, 400}, Qt::Horizontal);
        resizeDocks({catalogDock, skyDock}, {170, 300}, Qt::Vertical);
        resizeDocks({binningDock, runDock}, {420, 100}, Qt::Vertical);
        resizeDocks({resultsDock}, {170}, Qt::Vertical);
    } else {
        resizeDocks({catalogDock, binningDock}, {360, 440}, Qt::Horizontal);
        resizeDocks({catalogDock, skyDock}, {200, 440}, Qt::Vertical);
        resizeDocks({binningDock, backendDock, runDock}, {250, 350, 130}, Qt::Vertical);
        // Ten result rows (plus the dock's title bar).
        resizeDocks({resultsDock},
                    {m_resultView->heightForRows(ResultTableView::kPreferredRows) + 24},
                    Qt::Vertical);
    }

    m_inputPanels = {m_catalogsPanel, m_binningPanel, m_backendPanel, m_errorsPanel};
    createLoadingIndicator();
    showPendingBins();
}

void MainWindow::showPendingBins() {
    const std::optional<Binning>& binning = m_binningPanel->binning();
    if (!binning) {
        m_plotPanel->setPendingBins({}, std::nullopt);
        return;
    }
    const auto edges = binning->edges();
    m_plotPanel->setPendingBins(std::vector<double>(edges.begin(), edges.end()), binning->unit());
}

void MainWindow::createLoadingIndicator() {
    // While catalogs are read: what is being read, and a busy bar, at the right of the status
    // bar (where transient messages do not overwrite them).
    m_loadLabel = new QLabel(this);
    m_loadLabel->setObjectName(QStringLiteral("loadingLabel"));
    m_loadBusy = new QProgressBar(this);
    m_loadBusy->setObjectName(QStringLiteral("loadingBusy"));
    m_loadBusy->setRange(0, 0); // indeterminate: the readers report no progress
    m_loadBusy->setMaximumWidth(140);
    m_loadBusy->setMaximumHeight(statusBar()->fontMetrics().height() + 4);
    m_loadBusy->setTextVisible(false);
    statusBar()->addPermanentWidget(m_loadLabel);
    statusBar()->addPermanentWidget(m_loadBusy);
    m_loadLabel->hide();
    m_loadBusy->hide();
}

// ----------------------------------------------------------------------------------------------
// Messages

void MainWindow::logLine(MessageSeverity severity, const QString& text) {
    const QString prefix = severity == MessageSeverity::Error     ? tr("Error: ")
                           : severity == MessageSeverity::Warning ? tr("Warning: ")
                                                                  : QString();
    m_log->appendPlainText(
        QStringLiteral("[%1] %2%3")
            .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), prefix, text));
}

void MainWindow::reportMessage(MessageSeverity severity, const QString& text,
                               MessageBoxUse box) {
    logLine(severity, text);
    const QString prefix = severity == MessageSeverity::Error     ? tr("Error: ")
                           : severity == MessageSeverity::Warning ? tr("Warning: ")
                                                                  : QString();
    statusBar()->showMessage(prefix + text, 8000);
    Q_EMIT messageReported(severity, text);
    if (!m_options.interactive || severity == MessageSeverity::Info ||
        box == MessageBoxUse::Never)
        return;
    if (severity == MessageSeverity::Error)
        QMessageBox::critical(this, tr("TPACF Studio"), text);
    else
        QMessageBox::warning(this, tr("TPACF Studio"), text);
}

} // namespace tpacf::ui
