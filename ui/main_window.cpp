// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, part one: builds the window and wires the catalog set, the run controller and the
// panels together; catalogs and runs as the window presents them. Actions, menus and dialogs are in
// main_window_menus.cpp; sessions, exports and settings in main_window_files.cpp.
#include "main_window.h"

#include "backend_panel.h"
#include "binning_panel.h"
#include "catalogs_panel.h"
#include "column_mapping_dialog.h"
#include "errors_panel.h"
#include "plot_panel.h"
#include "result_table.h"
#include "run_panel.h"
#include "sky_plot.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/errors.h>

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QGuiApplication>
#include <QJsonArray>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
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

const QString kSampleData = QStringLiteral(":/samples/sample_data.txt");
const QStringList kSampleRandoms = {QStringLiteral(":/samples/sample_random_1.txt"),
                                    QStringLiteral(":/samples/sample_random_2.txt")};

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

    if (m_options.useSettings)
        restoreSettings();
    if (m_options.loadSample)
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
                queueCatalogChange(change, std::move(intent));
            });

    m_skyPlot = new SkyPlot(this);
    m_binningPanel = new BinningPanel(this);
    m_backendPanel = new BackendPanel(m_backends, this);
    m_errorsPanel = new ErrorsPanel(this);
    connect(m_binningPanel, &BinningPanel::changed, this, &MainWindow::updateRunState);
    connect(m_backendPanel, &BackendPanel::changed, this, &MainWindow::updateRunState);
    connect(m_errorsPanel, &ErrorsPanel::changed, this, &MainWindow::updateRunState);
    // Estimator, error bars and backend share one dock: the errors in their own group below
    // the estimator's formula.
    auto* estimatorWidget = new QWidget(this);
    auto* errorsGroup = new QGroupBox(tr("Error bars"), estimatorWidget);
    auto* errorsLayout = new QVBoxLayout(errorsGroup);
    errorsLayout->setContentsMargins(6, 4, 6, 4);
    errorsLayout->addWidget(m_errorsPanel);
    auto* estimatorLayout = new QVBoxLayout(estimatorWidget);
    estimatorLayout->setContentsMargins(0, 0, 0, 0);
    estimatorLayout->setSpacing(0);
    estimatorLayout->addWidget(m_backendPanel);
    estimatorLayout->addWidget(errorsGroup);
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

void MainWindow::reportMessage(MessageSeverity severity, const QString& text) {
    logLine(severity, text);
    const QString prefix = severity == MessageSeverity::Error     ? tr("Error: ")
                           : severity == MessageSeverity::Warning ? tr("Warning: ")
                                                                  : QString();
    statusBar()->showMessage(prefix + text, 8000);
    Q_EMIT messageReported(severity, text);
    if (!m_options.interactive || severity == MessageSeverity::Info)
        return;
    if (severity == MessageSeverity::Error)
        QMessageBox::critical(this, tr("TPACF Studio"), text);
    else
        QMessageBox::warning(this, tr("TPACF Studio"), text);
}

// ----------------------------------------------------------------------------------------------
// Catalogs

bool MainWindow::setDataCatalog(const CatalogSource& source) {
    CatalogChange change;
    change.data = source;
    return queueCatalogChange(std::move(change), LoadIntent::pickedFiles());
}

bool MainWindow::addRandomCatalog(const CatalogSource& source) {
    CatalogChange change;
    change.randoms = {source};
    return queueCatalogChange(std::move(change), LoadIntent::pickedFiles());
}

void MainWindow::removeRandomCatalog(int index) {
    if (isRunning() || index < 0 || index >= m_catalogs->randoms().size())
        return;
    const QString name = m_catalogs->randoms()[index].source.displayName();
    if (!m_catalogs->removeRandom(index)) // refused while loading
        return;
    reportMessage(MessageSeverity::Info, tr("Removed random catalog %1").arg(name));
}

bool MainWindow::setSecondDataCatalog(const CatalogSource& source) {
    CatalogChange change;
    change.data2 = source;
    LoadIntent intent = LoadIntent::pickedFiles();
    intent.recordRecent = false; // File > Open Recent knows data and randoms only
    return queueCatalogChange(std::move(change), std::move(intent));
}

bool MainWindow::addSecondRandomCatalog(const CatalogSource& source) {
    CatalogChange change;
    change.randoms2 = {source};
    LoadIntent intent = LoadIntent::pickedFiles();
    intent.recordRecent = false;
    return queueCatalogChange(std::move(change), std::move(intent));
}

void MainWindow::removeSecondRandomCatalog(int index) {
    if (isRunning() || index < 0 || index >= m_catalogs->randoms2().size())
        return;
    const QString name = m_catalogs->randoms2()[index].source.displayName();
    if (!m_catalogs->removeRandom2(index)) // refused while loading
        return;
    reportMessage(MessageSeverity::Info,
                  tr("Removed random catalog %1 of the second sample").arg(name));
}

void MainWindow::removeSecondSample() {
    if (isRunning() || !m_catalogs->clearSecondSample())
        return;
    reportMessage(MessageSeverity::Info,
                  tr("Removed the second sample: runs are auto-correlations again."));
}

bool MainWindow::openSecondSampleFile(const QString& path, bool asRandom) {
    return openCatalogFiles({path}, !asRandom, true);
}

std::optional<CatalogSource> MainWindow::sourceForFile(const QString& path) {
    CatalogSource source;
    source.path = path;
    m_lastDirectory = QFileInfo(path).absolutePath();
    try {
        // Only the first rows: quick enough for the GUI thread, and the dialog needs them.
        const TablePreview preview = previewCatalogFile(QFile::encodeName(path).toStdString());
        if (m_options.interactive && ColumnMappingDialog::needsMapping(preview)) {
            ColumnMappingDialog dialog(source, preview, this);
            if (dialog.exec() != QDialog::Accepted)
                return std::nullopt;
            source = dialog.source();
        }
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error,
                      tr("Cannot read the catalog. %1").arg(describeReadError(error)));
        return std::nullopt;
    }
    return source;
}

bool MainWindow::openCatalogFile(const QString& path, bool asRandom) {
    return openCatalogFiles({path}, !asRandom);
}

bool MainWindow::openCatalogFiles(QStringList paths, bool firstIsData, bool secondSample) {
    if (isRunning() || paths.isEmpty())
        return false;
    // All files in one load: they arrive together or not at all.
    CatalogChange change;
    for (int i = 0; i < paths.size(); ++i) {
        const std::optional<CatalogSource> source = sourceForFile(paths[i]);
        if (!source)
            return false;
        if (i == 0 && firstIsData)
            (secondSample ? change.data2 : change.data) = *source;
        else
            (secondSample ? change.randoms2 : change.randoms).append(*source);
    }
    LoadIntent intent = LoadIntent::pickedFiles();
    intent.recordRecent = !secondSample; // File > Open Recent knows data and randoms only
    return queueCatalogChange(std::move(change), std::move(intent));
}

bool MainWindow::loadBundledSample() {
    if (!QFile::exists(kSampleData)) {
        reportMessage(MessageSeverity::Info,
                      tr("This build has no bundled sample; open a catalog to start."));
        return false;
    }
    // The catalogs only: the settings stay as they are.
    CatalogChange change;
    change.replaceAll = true;
    change.data = CatalogSource{kSampleData};
    for (const QString& random : kSampleRandoms)
        if (QFile::exists(random))
            change.randoms.append(CatalogSource{random});
    LoadIntent intent;
    intent.doneMessage = tr("Loaded the bundled sample. Press Run (Ctrl+R) to compute w(θ).");
    return queueCatalogChange(std::move(change), std::move(intent));
}

bool MainWindow::queueCatalogChange(CatalogChange change, LoadIntent intent) {
    if (isRunning())
        return false;
    intent.hasData = change.data.has_value();
    intent.randomCount = int(change.randoms.size());
    intent.hasData2 = change.data2.has_value();
    intent.random2Count = int(change.randoms2.size());
    intent.change = change;
    // Nothing changes until every file of the change is read: the window keeps showing (and can
    // run on) what it has; only the catalog controls and Run wait.
    const quint64 id = m_catalogs->queueChange(std::move(change));
    m_loadIntents.insert(id, std::move(intent));
    updateInputsEnabled();
    updateRunState();
    return true;
}

void MainWindow::onChangeApplied(quint64 id) {
    // The catalogs are already shown (updateCatalogViews ran on catalogsChanged).
    const LoadIntent intent = m_loadIntents.take(id);
    if (intent.settings) {
        m_binningPanel->setSpec(intent.settings->bins);
        m_backendPanel->setEstimator(intent.settings->estimator);
        m_backendPanel->setBackendOptions(intent.settings->backend);
        m_errorsPanel->setSettings(intent.settings->errors);
        m_plotPanel->setExportStyle(intent.settings->figure);
    }
    if (intent.history)
        restoreHistory(*intent.history);
    updateInputsEnabled();
    const std::optional<LoadedCatalog>& data = m_catalogs->data();
    const QList<LoadedCatalog> randoms = m_catalogs->randoms().mid(
        m_catalogs->randoms().size() - qMin(intent.randomCount, int(m_catalogs->randoms().size())));
    if (intent.reportEach) {
        // "a.txt: ascii, columns ra, dec (header names), deg, 5000 rows": how it was read, with
        // Σw where the catalog is weighted.
        const auto describe = [](const LoadedCatalog& loaded) {
            QString text = tr("%1: %2").arg(loaded.source.displayName(),
                                            CatalogsPanel::describeOrigin(*loaded.catalog));
            if (loaded.catalog->hasWeights())
                text +=
                    tr(", Σw = %1")
                        .arg(CatalogsPanel::formatWeightSum(WeightSums::of(*loaded.catalog).sum));
            return text;
        };
        if (intent.hasData && data)
            reportMessage(MessageSeverity::Info, tr("Data catalog %1").arg(describe(*data)));
        for (const LoadedCatalog& random : randoms)
            reportMessage(MessageSeverity::Info, tr("Random catalog %1").arg(describe(random)));
        if (intent.hasData2 && m_catalogs->data2())
            reportMessage(MessageSeverity::Info,
                          tr("Second data catalog %1").arg(describe(*m_catalogs->data2())));
        const QList<LoadedCatalog>& allRandoms2 = m_catalogs->randoms2();
        for (const LoadedCatalog& random : allRandoms2.mid(
                 allRandoms2.size() - qMin(intent.random2Count, int(allRandoms2.size()))))
            reportMessage(MessageSeverity::Info,
                          tr("Random catalog %1 of the second sample").arg(describe(random)));
    }
    if (intent.recordRecent) {
        // Randoms first, so the data file ends up on top of the list.
        for (auto it = randoms.crbegin(); it != randoms.crend(); ++it)
            if (!it->source.isResource())
                m_recentFiles->add({RecentRole::Random, it->source});
        if (intent.hasData && data && !data->source.isResource())
            m_recentFiles->add({RecentRole::Data, data->source});
    }
    if (!intent.sessionPath.isEmpty()) {
        m_recentFiles->add({RecentRole::Session, CatalogSource{intent.sessionPath}});
        reportMessage(MessageSeverity::Info, tr("Session loaded from %1").arg(intent.sessionPath));
    }
    if (!intent.doneMessage.isEmpty())
        reportMessage(MessageSeverity::Info, intent.doneMessage);
    updateRunState();
    Q_EMIT loadFinished(true);
}

void MainWindow::onChangeFailed(quint64 id, const QString& message) {
    LoadIntent intent = m_loadIntents.take(id);
    // The state is as it was before the load; say why, through the one message path.
    updateInputsEnabled();
    updateRunState();
    // A file that is gone (a session or recent file whose folder moved): ask where it is now and
    // read the same change from there, the session's settings with it.
    if (intent.change)
        for (const CatalogSource& source : intent.change->sources()) {
            if (source.isResource() || source.path.isEmpty() || QFileInfo::exists(source.path))
                continue;
            const QString moved = locateMissingFile(source.path);
            if (moved.isEmpty()) {
                reportMessage(MessageSeverity::Error,
                              tr("Cannot read the catalog: %1 does not exist (moved or renamed? "
                                 "Open it where it is now with File ▸ Open Data Catalog…).")
                                  .arg(source.path));
                Q_EMIT loadFinished(false);
                return;
            }
            reportMessage(MessageSeverity::Info,
                          tr("%1 does not exist; reading %2 instead.").arg(source.path, moved));
            CatalogChange retry = *intent.change;
            // Files of the same folder that are gone too, and sit beside the one located, moved
            // with it (a session's catalogs usually share a folder).
            const QDir oldFolder = QFileInfo(source.path).dir();
            const QDir newFolder = QFileInfo(moved).dir();
            const auto relocate = [&](CatalogSource& candidate) {
                if (candidate.path == source.path) {
                    candidate.path = moved;
                    return;
                }
                const QFileInfo info(candidate.path);
                const QString beside = newFolder.filePath(info.fileName());
                if (!candidate.isResource() && !info.exists() && info.dir() == oldFolder &&
                    QFileInfo::exists(beside))
                    candidate.path = beside;
            };
            if (retry.data)
                relocate(*retry.data);
            if (retry.data2)
                relocate(*retry.data2);
            for (CatalogSource& random : retry.randoms)
                relocate(random);
            for (CatalogSource& random : retry.randoms2)
                relocate(random);
            Q_EMIT loadFinished(false);
            queueCatalogChange(std::move(retry), std::move(intent));
            return;
        }
    reportMessage(MessageSeverity::Error, tr("Cannot read the catalog. %1").arg(message));
    Q_EMIT loadFinished(false);
}

QString MainWindow::locateMissingFile(const QString& path) {
    if (m_options.locate)
        return m_options.locate(path);
    if (!m_options.interactive)
        return {};
    // Start in the nearest folder that still exists.
    QDir folder = QFileInfo(path).dir();
    while (!folder.exists() && folder.cdUp()) {
    }
    return QFileDialog::getOpenFileName(
        this, tr("Where is %1 now?").arg(QFileInfo(path).fileName()), folder.absolutePath());
}

void MainWindow::updateLoadingIndicator() {
    // What is being read, and a busy bar, at the right of the status bar (where transient
    // messages do not overwrite them).
    const QString text = m_catalogs->loadingDescription();
    m_loadLabel->setText(text);
    m_loadLabel->setVisible(!text.isEmpty());
    m_loadBusy->setVisible(!text.isEmpty());
}

void MainWindow::updateInputsEnabled() {
    // While catalogs load, their controls wait (the list stays readable); a session also sets
    // every other input, so those wait for it too.
    bool sessionPending = false;
    for (const LoadIntent& intent : std::as_const(m_loadIntents))
        sessionPending = sessionPending || intent.settings.has_value();
    for (QWidget* panel : std::as_const(m_inputPanels))
        panel->setEnabled(!isRunning() && (!sessionPending || panel == m_inputPanels.front()));
    m_catalogsPanel->setButtonsEnabled(!isLoading());
    if (m_recentMenu)
        m_recentMenu->setEnabled(!isRunning() && !isLoading() && !recentFiles().isEmpty());
}

std::shared_ptr<const Catalog> MainWindow::dataCatalog() const {
    return m_catalogs->dataCatalog();
}

std::vector<std::shared_ptr<const Catalog>> MainWindow::randomCatalogs() const {
    return m_catalogs->randomCatalogs();
}

void MainWindow::updateCatalogViews() {
    m_catalogsPanel->setCatalogs(m_catalogs->data(), m_catalogs->randoms(), m_catalogs->data2(),
                                 m_catalogs->randoms2());
    m_backendPanel->setCrossMode(m_catalogs->data2().has_value());
    // The data file's other columns, for jackknife regions from a column.
    m_errorsPanel->setRegionColumnChoices(m_catalogs->dataColumnNames());
    m_skyPlot->setCatalogs(dataCatalog(), randomCatalogs());
    updateTitle();
    updateRunState();
    Q_EMIT catalogsChanged();
}

void MainWindow::updateTitle() {
    const std::optional<LoadedCatalog>& data = m_catalogs->data();
    QString name = data ? data->source.displayName() : tr("no data");
    if (const std::optional<LoadedCatalog>& data2 = m_catalogs->data2())
        name = tr("%1 × %2").arg(name, data2->source.displayName());
    setWindowTitle(tr("%1 — TPACF Studio").arg(name));
}

// ----------------------------------------------------------------------------------------------
// Run

} // namespace tpacf::ui
