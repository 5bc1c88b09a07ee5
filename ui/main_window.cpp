#include "main_window.h"

#include "backend_panel.h"
#include "binning_panel.h"
#include "column_mapping_dialog.h"
#include "covariance_view.h"
#include "errors_panel.h"
#include "plot_panel.h"
#include "result_table.h"
#include "sky_plot.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/errors.h>
#include <tpacf/output_file.h>
#include <tpacf/result_io.h>
#include <tpacf/version.h>

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

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
constexpr int kMaxRecentFiles = 8;
constexpr int kPlotRefreshMs = 250; // live plots at 4 Hz
constexpr int kProgressSteps = 1000;

QString formatDegrees(double radians) {
    return QString::number(fromRadians(radians, AngleUnit::Degree), 'f', 1);
}

// N for the catalog list: exact up to 999,999; above, three significant digits ("1.00 M",
// "12.3 M") so a large catalog does not widen the column at the names' expense. The tooltip
// keeps the exact count.
QString formatCount(std::size_t count) {
    if (count < 1000000)
        return QLocale().toString(qulonglong(count));
    double value = double(count) / 1e6;
    QString suffix = QStringLiteral(" M");
    if (value >= 1000.0) {
        value /= 1000.0;
        suffix = QStringLiteral(" G");
    }
    const int decimals = value < 10 ? 2 : value < 100 ? 1 : 0;
    return QLocale().toString(value, 'f', decimals) + suffix;
}

QString formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return QStringLiteral("–");
    const auto total = qint64(std::llround(seconds));
    if (total >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(total / 3600)
            .arg((total / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(total % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
}

QString formatRate(double pairsPerSecond) {
    const char* prefixes[] = {"", "k", "M", "G", "T"};
    int p = 0;
    while (pairsPerSecond >= 1000.0 && p < 4) {
        pairsPerSecond /= 1000.0;
        ++p;
    }
    return QStringLiteral("%1 %2pairs/s")
        .arg(pairsPerSecond, 0, 'f', pairsPerSecond < 10 ? 2 : 1)
        .arg(QLatin1String(prefixes[p]));
}

// FITS appears in the file dialogs only where the core was built with cfitsio.
QString catalogFileFilter() {
    const QString patterns = fitsSupported()
                                 ? QStringLiteral("*.txt *.dat *.csv *.cat *.fits *.fit")
                                 : QStringLiteral("*.txt *.dat *.csv *.cat");
    return QCoreApplication::translate("tpacf::ui::MainWindow", "Catalogs (%1);;All files (*)")
        .arg(patterns);
}

// Theme icons where the desktop has them (Linux), the style's built-in ones elsewhere.
QIcon themedIcon(const QString& name, QStyle::StandardPixmap fallback) {
    return QIcon::fromTheme(name, qApp->style()->standardIcon(fallback));
}

QDockWidget* makeDock(const QString& title, const QString& objectName, QWidget* content,
                      QWidget* parent) {
    auto* dock = new QDockWidget(title, parent);
    dock->setObjectName(objectName); // needed by saveState()/restoreState()
    dock->setWidget(content);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    return dock;
}

} // namespace

MainWindow::MainWindow(const GpuBackendProvider* gpu, QWidget* parent)
    : MainWindow(gpu, Options{}, parent) {}

MainWindow::MainWindow(const GpuBackendProvider* gpu, Options options, QWidget* parent)
    : QMainWindow(parent), m_gpu(gpu), m_options(options) {
    initStudioResources();
    qRegisterMetaType<MessageSeverity>();
    // The PNG rendering of the SVG icon: Qt needs its optional SVG plugin to read the SVG.
    setWindowIcon(QIcon(QStringLiteral(":/icons/tpacf-studio-256.png")));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    // The worker lives on its own thread for the window's lifetime; signals cross queued.
    m_worker = new JobWorker(m_gpu);
    m_worker->moveToThread(&m_workerThread);
    connect(&m_workerThread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &JobWorker::progress, this, &MainWindow::onProgress, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::finished, this, &MainWindow::onFinished, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::failed, this, &MainWindow::onFailed, Qt::QueuedConnection);
    connect(m_worker, &JobWorker::cancelled, this, &MainWindow::onCancelled, Qt::QueuedConnection);
    m_workerThread.setObjectName(QStringLiteral("tpacf-job"));
    m_workerThread.start();

    // Catalogs are read on a thread of their own, so a large file never freezes the window.
    m_loader = new CatalogLoader;
    m_loader->moveToThread(&m_loaderThread);
    connect(&m_loaderThread, &QThread::finished, m_loader, &QObject::deleteLater);
    connect(m_loader, &CatalogLoader::reading, this, &MainWindow::onCatalogReading,
            Qt::QueuedConnection);
    connect(m_loader, &CatalogLoader::loaded, this, &MainWindow::onCatalogsRead,
            Qt::QueuedConnection);
    connect(m_loader, &CatalogLoader::failed, this, &MainWindow::onCatalogReadFailed,
            Qt::QueuedConnection);
    m_loaderThread.setObjectName(QStringLiteral("tpacf-catalogs"));
    m_loaderThread.start();

    m_plotTimer.setInterval(kPlotRefreshMs);
    connect(&m_plotTimer, &QTimer::timeout, this, &MainWindow::refreshLivePlots);

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
    resize(1500, 940);

    if (m_options.useSettings)
        restoreSettings();
    if (m_options.loadSample)
        loadBundledSample();
    updateCatalogViews();
    updateRunState();
}

MainWindow::~MainWindow() {
    // Stop a running job promptly, then let the thread finish its event loop. A catalog being
    // read is finished (the readers cannot be interrupted); the loads queued behind it are not.
    m_worker->requestCancel();
    m_loader->cancelUpTo(std::numeric_limits<quint64>::max());
    m_workerThread.quit();
    m_loaderThread.quit();
    m_workerThread.wait();
    m_loaderThread.wait();
}

// ----------------------------------------------------------------------------------------------
// Construction

void MainWindow::createActions() {
    m_openDataAction =
        new QAction(themedIcon(QStringLiteral("document-open"), QStyle::SP_DialogOpenButton),
                    tr("&Open Data Catalog…"), this);
    m_openDataAction->setShortcut(QKeySequence::Open);
    m_openDataAction->setToolTip(tr("Open the data catalog (Ctrl+O)"));
    connect(m_openDataAction, &QAction::triggered, this, &MainWindow::openDataDialog);

    m_addRandomAction =
        new QAction(themedIcon(QStringLiteral("list-add"), QStyle::SP_FileDialogNewFolder),
                    tr("&Add Random Catalog…"), this);
    m_addRandomAction->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
    connect(m_addRandomAction, &QAction::triggered, this, &MainWindow::addRandomDialog);

    m_removeRandomAction =
        new QAction(themedIcon(QStringLiteral("list-remove"), QStyle::SP_TrashIcon),
                    tr("&Remove Random Catalog"), this);
    m_removeRandomAction->setShortcut(QKeySequence::Delete);
    m_removeRandomAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_removeRandomAction, &QAction::triggered, this, &MainWindow::removeSelectedRandom);

    m_loadSampleAction = new QAction(tr("Load &Bundled Sample"), this);
    connect(m_loadSampleAction, &QAction::triggered, this, &MainWindow::loadBundledSample);

    m_openSessionAction = new QAction(tr("Open &Session…"), this);
    m_openSessionAction->setShortcut(QKeySequence(tr("Ctrl+Shift+L")));
    connect(m_openSessionAction, &QAction::triggered, this, &MainWindow::openSessionDialog);
    m_saveSessionAction =
        new QAction(themedIcon(QStringLiteral("document-save"), QStyle::SP_DialogSaveButton),
                    tr("Sa&ve Session…"), this);
    m_saveSessionAction->setShortcut(QKeySequence::Save);
    connect(m_saveSessionAction, &QAction::triggered, this, &MainWindow::saveSessionDialog);

    m_exportCsvAction =
        new QAction(themedIcon(QStringLiteral("document-export"), QStyle::SP_DialogSaveButton),
                    tr("&Export Results (CSV)…"), this);
    m_exportCsvAction->setShortcut(QKeySequence(tr("Ctrl+E")));
    connect(m_exportCsvAction, &QAction::triggered, this, &MainWindow::exportCsvDialog);
    m_exportCovarianceAction = new QAction(tr("Export &Covariance (CSV)…"), this);
    m_exportCovarianceAction->setToolTip(
        tr("The jackknife covariance matrix of w(θ), bins × bins, as CSV"));
    connect(m_exportCovarianceAction, &QAction::triggered, this,
            &MainWindow::exportCovarianceDialog);
    m_exportPlotAction = new QAction(
        themedIcon(QStringLiteral("image-x-generic"), QStyle::SP_FileDialogContentsView),
        tr("Export &Plot (PNG/PDF)…"), this);
    m_exportPlotAction->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    connect(m_exportPlotAction, &QAction::triggered, this, &MainWindow::exportPlotDialog);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence(tr("Ctrl+Q")));
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_runAction = new QAction(
        themedIcon(QStringLiteral("media-playback-start"), QStyle::SP_MediaPlay), tr("&Run"), this);
    m_runAction->setShortcut(QKeySequence(tr("Ctrl+R")));
    m_runAction->setToolTip(tr("Compute w(θ) (Ctrl+R)"));
    connect(m_runAction, &QAction::triggered, this, &MainWindow::startRun);
    m_cancelAction = new QAction(themedIcon(QStringLiteral("process-stop"), QStyle::SP_MediaStop),
                                 tr("&Cancel"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setToolTip(tr("Stop the run (Esc)"));
    connect(m_cancelAction, &QAction::triggered, this, &MainWindow::cancelRun);

    m_aboutAction = new QAction(tr("&About TPACF Studio"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openDataAction);
    file->addAction(m_addRandomAction);
    file->addAction(m_removeRandomAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    file->addAction(m_loadSampleAction);
    file->addSeparator();
    file->addAction(m_openSessionAction);
    file->addAction(m_saveSessionAction);
    file->addSeparator();
    file->addAction(m_exportCsvAction);
    file->addAction(m_exportCovarianceAction);
    file->addAction(m_exportPlotAction);
    file->addSeparator();
    file->addAction(m_quitAction);
    updateRecentMenu();

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_cancelAction);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    auto* wTab = m_viewMenu->addAction(tr("Show &w(θ) Plot"), this, [this] {
        m_plotPanel->setCurrentPlot(PlotPanel::Plot::Correlation);
    });
    wTab->setShortcut(QKeySequence(tr("Ctrl+1")));
    auto* countsTab = m_viewMenu->addAction(tr("Show &Pair Counts Plot"), this, [this] {
        m_plotPanel->setCurrentPlot(PlotPanel::Plot::PairCounts);
    });
    countsTab->setShortcut(QKeySequence(tr("Ctrl+2")));
    auto* covarianceTab = m_viewMenu->addAction(tr("Show &Covariance Matrix"), this, [this] {
        m_plotPanel->setCurrentPlot(PlotPanel::Plot::Covariance);
    });
    covarianceTab->setShortcut(QKeySequence(tr("Ctrl+3")));
    auto* reset = m_viewMenu->addAction(tr("&Reset Plot View"), m_plotPanel, &PlotPanel::resetView);
    reset->setShortcut(QKeySequence(tr("Ctrl+0")));
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    QToolBar* toolBar = addToolBar(tr("Main"));
    toolBar->setObjectName(QStringLiteral("mainToolBar"));
    toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolBar->addAction(m_openDataAction);
    toolBar->addAction(m_addRandomAction);
    toolBar->addSeparator();
    toolBar->addAction(m_runAction);
    toolBar->addAction(m_cancelAction);
    toolBar->addSeparator();
    toolBar->addAction(m_exportCsvAction);
    toolBar->addAction(m_exportPlotAction);
}

void MainWindow::createDocks() {
    // Catalogs: data and randoms with N and RA/Dec extent.
    auto* catalogWidget = new QWidget(this);
    m_catalogTree = new QTreeWidget(catalogWidget);
    m_catalogTree->setColumnCount(4);
    m_catalogTree->setHeaderLabels({tr("Catalog"), tr("N"), tr("RA (°)"), tr("Dec (°)")});
    m_catalogTree->setRootIsDecorated(false);
    m_catalogTree->setIndentation(12);
    m_catalogTree->setUniformRowHeights(true);
    // The name takes the room the numbers leave; N stays narrow (compact above a million, see
    // formatCount) and long names lose their middle, not the end that tells sets apart
    // ("…_random_1.txt" vs "…_random_2.txt"); the tooltip has the whole path.
    m_catalogTree->header()->setStretchLastSection(false);
    m_catalogTree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_catalogTree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_catalogTree->setTextElideMode(Qt::ElideMiddle);
    m_catalogTree->addAction(m_removeRandomAction);
    auto* openButton = new QPushButton(tr("Data…"), catalogWidget);
    openButton->setToolTip(m_openDataAction->text());
    connect(openButton, &QPushButton::clicked, m_openDataAction, &QAction::trigger);
    auto* addButton = new QPushButton(tr("Add random…"), catalogWidget);
    connect(addButton, &QPushButton::clicked, m_addRandomAction, &QAction::trigger);
    auto* removeButton = new QPushButton(tr("Remove"), catalogWidget);
    connect(removeButton, &QPushButton::clicked, m_removeRandomAction, &QAction::trigger);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(openButton);
    buttons->addWidget(addButton);
    buttons->addWidget(removeButton);
    m_catalogButtons = {openButton, addButton, removeButton};
    openButton->setObjectName(QStringLiteral("openDataButton"));
    addButton->setObjectName(QStringLiteral("addRandomButton"));
    removeButton->setObjectName(QStringLiteral("removeRandomButton"));
    auto* hint = new QLabel(tr("Drop catalog files here to open them."), catalogWidget);
    hint->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); }"));
    auto* catalogLayout = new QVBoxLayout(catalogWidget);
    catalogLayout->setContentsMargins(4, 4, 4, 4);
    catalogLayout->addWidget(m_catalogTree, 1);
    catalogLayout->addLayout(buttons);
    catalogLayout->addWidget(hint);
    m_catalogTree->setMinimumHeight(110);

    m_skyPlot = new SkyPlot(this);
    m_binningPanel = new BinningPanel(this);
    m_backendPanel = new BackendPanel(m_gpu, this);
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
    auto* runWidget = new QWidget(this);
    m_runButton =
        new QPushButton(themedIcon(QStringLiteral("media-playback-start"), QStyle::SP_MediaPlay),
                        tr("Run"), runWidget);
    m_runButton->setDefault(true);
    m_runButton->setMinimumHeight(32);
    QFont runFont = m_runButton->font();
    runFont.setBold(true);
    m_runButton->setFont(runFont);
    connect(m_runButton, &QPushButton::clicked, this, &MainWindow::startRun);
    m_cancelButton = new QPushButton(
        themedIcon(QStringLiteral("process-stop"), QStyle::SP_MediaStop), tr("Cancel"), runWidget);
    m_cancelButton->setMinimumHeight(32);
    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelRun);
    m_progressBar = new QProgressBar(runWidget);
    m_progressBar->setRange(0, kProgressSteps);
    m_progressBar->setValue(0);
    m_progressBar->setFormat(QStringLiteral("%p%"));
    m_rateLabel = new QLabel(runWidget);
    m_rateLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_runReason = new QLabel(runWidget);
    m_runReason->setWordWrap(true);
    m_runReason->setObjectName(QStringLiteral("runBlockedReason"));
    m_runReason->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    m_staleLabel = new QLabel(tr("The result shown is from previous inputs: press Run to update "
                                 "it."),
                              runWidget);
    m_staleLabel->setObjectName(QStringLiteral("staleResult"));
    m_staleLabel->setWordWrap(true);
    m_staleLabel->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));
    m_staleLabel->hide();
    auto* runButtons = new QHBoxLayout;
    runButtons->addWidget(m_runButton, 2);
    runButtons->addWidget(m_cancelButton, 1);
    auto* runLayout = new QVBoxLayout(runWidget);
    runLayout->setContentsMargins(6, 6, 6, 6);
    runLayout->addLayout(runButtons);
    runLayout->addWidget(m_progressBar);
    runLayout->addWidget(m_rateLabel);
    runLayout->addWidget(m_runReason);
    runLayout->addWidget(m_staleLabel);
    runLayout->addStretch();
    // Room for a two-line reason under the rate line, so the dock splitter never clips it.
    runWidget->setMinimumHeight(m_runButton->minimumHeight() + m_progressBar->sizeHint().height() +
                                3 * runWidget->fontMetrics().lineSpacing() +
                                4 * runLayout->spacing() + 12);

    m_resultModel = new ResultTableModel(this);
    m_resultView = new ResultTableView(this);
    m_resultView->setModel(m_resultModel);
    m_log = new QPlainTextEdit(this);
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);

    auto* catalogDock =
        makeDock(tr("Catalogs"), QStringLiteral("catalogsDock"), catalogWidget, this);
    auto* skyDock = makeDock(tr("Sky Preview"), QStringLiteral("skyDock"), m_skyPlot, this);
    auto* binningDock =
        makeDock(tr("Binning"), QStringLiteral("binningDock"), m_binningPanel, this);
    auto* backendDock = makeDock(tr("Estimator, Errors & Backend"), QStringLiteral("backendDock"),
                                 estimatorWidget, this);
    auto* runDock = makeDock(tr("Run"), QStringLiteral("runDock"), runWidget, this);
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
    resultsDock->raise();
    resizeDocks({catalogDock, binningDock}, {380, 360}, Qt::Horizontal);
    resizeDocks({catalogDock, skyDock}, {200, 440}, Qt::Vertical);
    resizeDocks({binningDock, backendDock, runDock}, {210, 370, 150}, Qt::Vertical);
    resizeDocks({resultsDock}, {230}, Qt::Vertical);

    m_inputPanels = {catalogWidget, m_binningPanel, m_backendPanel, m_errorsPanel};

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
    change.reportEach = true;
    change.recordRecent = true;
    return queueCatalogChange(std::move(change));
}

bool MainWindow::addRandomCatalog(const CatalogSource& source) {
    CatalogChange change;
    change.randoms = {source};
    change.reportEach = true;
    change.recordRecent = true;
    return queueCatalogChange(std::move(change));
}

void MainWindow::removeRandomCatalog(int index) {
    if (m_running || isLoading() || index < 0 || index >= m_randoms.size())
        return;
    const QString name = m_randoms[index].source.displayName();
    m_randoms.removeAt(index);
    reportMessage(MessageSeverity::Info, tr("Removed random catalog %1").arg(name));
    updateCatalogViews();
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

bool MainWindow::openCatalogFiles(QStringList paths, bool firstIsData) {
    if (m_running || paths.isEmpty())
        return false;
    // All files in one load: they arrive together or not at all.
    CatalogChange change;
    change.reportEach = true;
    change.recordRecent = true;
    for (int i = 0; i < paths.size(); ++i) {
        const std::optional<CatalogSource> source = sourceForFile(paths[i]);
        if (!source)
            return false;
        if (i == 0 && firstIsData)
            change.data = *source;
        else
            change.randoms.append(*source);
    }
    return queueCatalogChange(std::move(change));
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
    change.doneMessage = tr("Loaded the bundled sample. Press Run (Ctrl+R) to compute w(θ).");
    return queueCatalogChange(std::move(change));
}

bool MainWindow::queueCatalogChange(CatalogChange change) {
    if (m_running)
        return false;
    QList<CatalogSource> sources;
    if (change.data)
        sources.append(*change.data);
    sources += change.randoms;
    PendingLoad pending;
    for (const CatalogSource& source : std::as_const(sources))
        pending.names.append(source.displayName());
    pending.change = std::move(change);
    // Nothing changes until every file of the change is read: the window keeps showing (and can
    // run on) what it has; only the catalog controls and Run wait.
    pending.id = m_loader->load(std::move(sources));
    m_pendingLoads.append(std::move(pending));
    updateLoadingIndicator();
    updateInputsEnabled();
    updateRunState();
    return true;
}

void MainWindow::onCatalogReading(quint64 id, int index) {
    for (PendingLoad& pending : m_pendingLoads)
        if (pending.id == id)
            pending.reading = index;
    updateLoadingIndicator();
}

void MainWindow::onCatalogsRead(quint64 id, const CatalogList& catalogs) {
    if (id == m_regionLoadId) { // the catalogs of a run with region labels from a column
        m_regionLoadId = 0;
        if (!m_running || catalogs.isEmpty())
            return;
        CorrelationParams params = std::move(m_pendingRun);
        m_pendingRun = {};
        params.data = catalogs.front();
        params.randoms.assign(catalogs.begin() + 1, catalogs.end());
        startWorker(std::move(params));
        return;
    }
    if (m_pendingLoads.isEmpty() || m_pendingLoads.front().id != id)
        return; // not one of ours (cannot happen: the loader answers in order)
    const CatalogChange change = m_pendingLoads.takeFirst().change;
    int next = 0;
    std::optional<LoadedCatalog> data;
    if (change.data)
        data = LoadedCatalog{*change.data, catalogs.value(next++)};
    QList<LoadedCatalog> randoms;
    for (const CatalogSource& source : change.randoms)
        randoms.append(LoadedCatalog{source, catalogs.value(next++)});

    if (change.replaceAll || data)
        m_data = std::move(data);
    if (change.replaceAll)
        m_randoms = randoms;
    else
        m_randoms += randoms;
    if (change.settings) {
        m_binningPanel->setSpec(change.settings->bins);
        m_backendPanel->setEstimator(change.settings->estimator);
        m_backendPanel->setBackendOptions(change.settings->backend);
        m_errorsPanel->setSettings(change.settings->errors);
    }
    updateLoadingIndicator();
    updateInputsEnabled();
    if (change.reportEach) {
        if (change.data)
            reportMessage(MessageSeverity::Info,
                          tr("Data catalog %1: %2 points")
                              .arg(m_data->source.displayName())
                              .arg(QLocale().toString(qulonglong(m_data->catalog->size()))));
        for (const LoadedCatalog& random : std::as_const(randoms))
            reportMessage(MessageSeverity::Info,
                          tr("Random catalog %1: %2 points")
                              .arg(random.source.displayName())
                              .arg(QLocale().toString(qulonglong(random.catalog->size()))));
    }
    if (change.recordRecent) {
        // Randoms first, so the data file ends up on top of the list.
        for (auto it = randoms.crbegin(); it != randoms.crend(); ++it)
            if (!it->source.isResource())
                addRecentFile({RecentRole::Random, it->source});
        if (change.data && !change.data->isResource())
            addRecentFile({RecentRole::Data, *change.data});
    }
    if (!change.sessionPath.isEmpty()) {
        addRecentFile({RecentRole::Session, CatalogSource{change.sessionPath}});
        reportMessage(MessageSeverity::Info, tr("Session loaded from %1").arg(change.sessionPath));
    }
    if (!change.doneMessage.isEmpty())
        reportMessage(MessageSeverity::Info, change.doneMessage);
    updateCatalogViews();
    Q_EMIT loadFinished(true);
}

void MainWindow::onCatalogReadFailed(quint64 id, const QString& message) {
    if (id == m_regionLoadId) {
        m_regionLoadId = 0;
        m_pendingRun = {};
        if (m_running)
            onFailed(tr("Cannot read the region column '%1'. %2")
                         .arg(m_errorsPanel->settings().regionColumn, message));
        return;
    }
    if (m_pendingLoads.isEmpty() || m_pendingLoads.front().id != id)
        return;
    m_pendingLoads.removeFirst();
    // The state is as it was before the load; say why, through the one message path.
    updateLoadingIndicator();
    updateInputsEnabled();
    updateRunState();
    reportMessage(MessageSeverity::Error, tr("Cannot read the catalog. %1").arg(message));
    Q_EMIT loadFinished(false);
}

void MainWindow::updateLoadingIndicator() {
    if (m_pendingLoads.isEmpty()) {
        m_loadLabel->hide();
        m_loadBusy->hide();
        return;
    }
    const PendingLoad& current = m_pendingLoads.front();
    int files = 0;
    for (const PendingLoad& pending : std::as_const(m_pendingLoads))
        files += int(pending.names.size());
    QString text;
    if (current.names.isEmpty())
        text = tr("Applying the session…");
    else if (files == 1)
        text = tr("Reading %1…").arg(current.names.front());
    else
        text = tr("Reading %1 (%2 of %3 files)…")
                   .arg(current.names.value(current.reading))
                   .arg(current.reading + 1)
                   .arg(files);
    m_loadLabel->setText(text);
    m_loadLabel->show();
    m_loadBusy->show();
}

void MainWindow::updateInputsEnabled() {
    // While catalogs load, their controls wait (the list stays readable); a session also sets
    // every other input, so those wait for it too.
    bool sessionPending = false;
    for (const PendingLoad& pending : std::as_const(m_pendingLoads))
        sessionPending = sessionPending || pending.change.settings.has_value();
    for (QWidget* panel : std::as_const(m_inputPanels))
        panel->setEnabled(!m_running && (!sessionPending || panel == m_inputPanels.front()));
    for (QPushButton* button : std::as_const(m_catalogButtons))
        button->setEnabled(!isLoading());
    if (m_recentMenu)
        m_recentMenu->setEnabled(!m_running && !isLoading() && !m_recentFiles.isEmpty());
}

std::shared_ptr<const Catalog> MainWindow::dataCatalog() const {
    return m_data ? m_data->catalog : nullptr;
}

std::vector<std::shared_ptr<const Catalog>> MainWindow::randomCatalogs() const {
    std::vector<std::shared_ptr<const Catalog>> randoms;
    for (const LoadedCatalog& random : m_randoms)
        randoms.push_back(random.catalog);
    return randoms;
}

void MainWindow::updateCatalogViews() {
    m_catalogTree->clear();
    // Two groups, "Data" and "Randoms", so the file names get the full first column.
    auto addGroup = [this](const QString& title) {
        auto* group = new QTreeWidgetItem(m_catalogTree);
        group->setText(0, title);
        QFont bold = group->font(0);
        bold.setBold(true);
        group->setFont(0, bold);
        group->setFlags(Qt::ItemIsEnabled);
        group->setData(0, Qt::UserRole, -1);
        return group;
    };
    auto addRow = [](QTreeWidgetItem* group, const LoadedCatalog& loaded, int randomIndex) {
        const SkyExtent extent = loaded.catalog->extent();
        auto* item = new QTreeWidgetItem(group);
        item->setText(0, loaded.source.displayName());
        item->setText(1, formatCount(loaded.catalog->size()));
        item->setText(2, QStringLiteral("%1 – %2").arg(formatDegrees(extent.raMin),
                                                       formatDegrees(extent.raMax)));
        item->setText(3, QStringLiteral("%1 – %2").arg(formatDegrees(extent.decMin),
                                                       formatDegrees(extent.decMax)));
        const QString origin =
            (loaded.source.isResource() ? tr("Bundled sample") : loaded.source.path) +
            tr("\n%1 points").arg(QLocale().toString(qulonglong(loaded.catalog->size())));
        for (int c = 0; c < 4; ++c)
            item->setToolTip(c, origin);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(0, Qt::UserRole, randomIndex);
    };
    QTreeWidgetItem* dataGroup = addGroup(tr("Data"));
    if (m_data)
        addRow(dataGroup, *m_data, -1);
    QTreeWidgetItem* randomGroup = addGroup(tr("Randoms (%1)").arg(m_randoms.size()));
    for (int i = 0; i < m_randoms.size(); ++i)
        addRow(randomGroup, m_randoms[i], i);
    m_catalogTree->expandAll();
    m_skyPlot->setCatalogs(dataCatalog(), randomCatalogs());
    updateTitle();
    updateRunState();
    Q_EMIT catalogsChanged();
}

void MainWindow::updateTitle() {
    const QString name = m_data ? m_data->source.displayName() : tr("no data");
    setWindowTitle(tr("%1 — TPACF Studio").arg(name));
}

// ----------------------------------------------------------------------------------------------
// Run

QString MainWindow::runBlockedReason() const {
    if (m_running)
        return tr("A run is in progress.");
    if (isLoading())
        return tr("Reading the catalogs: Run is available when they are loaded.");
    if (!m_data)
        return tr("Open a data catalog (File > Open Data Catalog).");
    if (m_randoms.isEmpty())
        return tr("Add at least one random catalog.");
    if (!m_binningPanel->isValid())
        return tr("Run disabled: %1").arg(m_binningPanel->problem());
    if (!m_errorsPanel->isValid())
        return tr("Run disabled: %1").arg(m_errorsPanel->problem());
    const ErrorSettings errors = m_errorsPanel->settings();
    if (errors.method == ErrorSettings::Method::Regions &&
        m_data->catalog->size() < std::size_t(errors.regions))
        return tr("Run disabled: jackknife with %1 regions needs at least %1 data points; the "
                  "data catalog has %2. Lower K.")
            .arg(errors.regions)
            .arg(m_data->catalog->size());
    return {};
}

bool MainWindow::canRun() const {
    return runBlockedReason().isEmpty();
}

MainWindow::ResultInputs MainWindow::currentInputs() const {
    ResultInputs inputs;
    inputs.data = dataCatalog();
    inputs.randoms = randomCatalogs();
    RunSettings settings;
    settings.bins = m_binningPanel->spec();
    settings.estimator = m_backendPanel->estimator();
    QJsonObject object = settings.toJson();
    object.remove(QStringLiteral("backend"));
    object.remove(QStringLiteral("errors"));
    // Bins by their edges (two specs that give the same edges give the same result).
    if (const std::optional<Binning>& binning = m_binningPanel->binning()) {
        QJsonArray edges;
        for (double edge : binning->edges())
            edges.append(edge);
        QJsonObject bins;
        bins[QStringLiteral("edges")] = edges;
        bins[QStringLiteral("unit")] = unitLabel(binning->unit());
        bins[QStringLiteral("scale")] =
            object.value(QStringLiteral("bins")).toObject().value(QStringLiteral("scale"));
        object[QStringLiteral("bins")] = bins;
    }
    // Errors as the job sees them: K and the seed of a method not chosen change nothing.
    const JackknifeSettings jackknife = m_errorsPanel->settings().jackknife();
    QJsonObject errors;
    errors[QStringLiteral("regions")] = jackknife.regions;
    errors[QStringLiteral("column")] = QString::fromStdString(jackknife.regionColumn);
    if (jackknife.regions > 0)
        errors[QStringLiteral("seed")] = QString::number(jackknife.seed);
    object[QStringLiteral("errors")] = errors;
    inputs.settings = object;
    return inputs;
}

void MainWindow::updateStaleState() {
    // A result whose inputs changed stays on screen, marked, rather than being cleared: it may
    // be an hour of GPU time, the user often wants to compare it with the next run, and a failed
    // or cancelled run also keeps it. What must not happen is reading it as the result of the
    // inputs now shown, hence the mark on the plots (and so on an exported figure), the Results
    // dock and the Run panel. The CSV export stays possible: its header lists the inputs it came
    // from. Changing the inputs back removes the mark.
    const bool stale = m_result && !m_running && currentInputs() != m_resultInputs;
    if (stale == m_resultStale)
        return;
    m_resultStale = stale;
    m_plotPanel->setStale(stale);
    m_staleLabel->setVisible(stale);
    m_resultsDock->setWindowTitle(stale ? tr("Results (previous inputs)") : tr("Results"));
}

void MainWindow::updateRunState() {
    updateStaleState();
    const QString reason = runBlockedReason();
    const bool runnable = reason.isEmpty();
    m_runButton->setEnabled(runnable);
    m_runAction->setEnabled(runnable);
    m_runButton->setToolTip(runnable ? tr("Compute w(θ) (Ctrl+R)") : reason);
    m_cancelButton->setEnabled(m_running);
    m_cancelAction->setEnabled(m_running);
    m_runReason->setText(m_running ? QString() : reason);
    // Red for what the user must fix; a neutral grey while catalogs are read (nothing is wrong).
    const QString reasonStyle = isLoading() && !m_running
                                    ? QStringLiteral("QLabel { color: #555555; }")
                                    : QStringLiteral("QLabel { color: #b00020; }");
    if (m_runReason->styleSheet() != reasonStyle) // a new style sheet re-polishes the label
        m_runReason->setStyleSheet(reasonStyle);
    m_runReason->setVisible(!m_running && !reason.isEmpty());
    const bool haveResult = m_result != nullptr;
    m_exportCsvAction->setEnabled(haveResult);
    m_exportCovarianceAction->setEnabled(haveResult && m_result->hasJackknife());
    m_exportPlotAction->setEnabled(haveResult);
    m_exportCsvAction->setToolTip(m_resultStale ? tr("Export the result shown, computed from "
                                                     "previous inputs (the CSV header lists them)")
                                                : QString()); // empty: the action's text
    m_removeRandomAction->setEnabled(!m_running && !isLoading() && !m_randoms.isEmpty());
    for (QAction* action :
         {m_openDataAction, m_addRandomAction, m_loadSampleAction, m_openSessionAction})
        action->setEnabled(!m_running && !isLoading());
}

bool MainWindow::startRun() {
    if (!canRun()) {
        if (!m_running)
            reportMessage(MessageSeverity::Warning, runBlockedReason());
        return false;
    }
    CorrelationParams params;
    params.data = m_data->catalog;
    for (const LoadedCatalog& random : m_randoms)
        params.randoms.push_back(random.catalog);
    params.bins = m_binningPanel->spec();
    params.estimator = m_backendPanel->estimator();
    params.backend = m_backendPanel->backendOptions();
    const ErrorSettings errors = m_errorsPanel->settings();
    params.jackknife = errors.jackknife();
    m_runInputs = currentInputs();
    if (errors.method == ErrorSettings::Method::Column) {
        // Region labels are read with the catalogs: read them again, with the column, on the
        // loader's thread. The run has started for the user (Cancel works); the job follows
        // once the files are read.
        QList<CatalogSource> sources{m_data->source};
        for (const LoadedCatalog& random : std::as_const(m_randoms))
            sources.append(random.source);
        m_pendingRun = std::move(params);
        m_regionLoadId = m_loader->load(std::move(sources), errors.regionColumn);
    } else {
        const std::shared_ptr<const Catalog> runData = params.data;
        if (!m_worker->start(std::move(params))) {
            reportMessage(MessageSeverity::Warning, tr("A run is already in progress."));
            return false;
        }
        m_runData = runData;
    }
    m_latestPartial.reset();
    m_partialDirty = false;
    m_plotPanel->clear();
    setRunning(true);
    m_progressBar->setValue(0);
    m_rateLabel->setText(
        m_regionLoadId != 0 ? tr("Reading region labels from column '%1'…").arg(errors.regionColumn)
                            : tr("Starting…"));
    QString errorText = tr("no error bars");
    if (errors.method == ErrorSettings::Method::Regions)
        errorText = tr("jackknife, %1 regions (seed %2)").arg(errors.regions).arg(errors.seed);
    else if (errors.method == ErrorSettings::Method::Column)
        errorText = tr("jackknife, regions from column '%1'").arg(errors.regionColumn);
    reportMessage(MessageSeverity::Info,
                  tr("Run started: %1; %2; random sets: %3; %4")
                      .arg(QString::fromStdString(m_binningPanel->spec().describe()),
                           QString::fromLatin1(estimatorName(m_backendPanel->estimator())))
                      .arg(m_randoms.size())
                      .arg(errorText));
    Q_EMIT runStarted();
    return true;
}

void MainWindow::startWorker(CorrelationParams params) {
    const std::shared_ptr<const Catalog> runData = params.data;
    if (!m_worker->start(std::move(params))) {
        onFailed(tr("A run is already in progress."));
        return;
    }
    m_runData = runData;
    m_rateLabel->setText(tr("Starting…"));
}

void MainWindow::cancelRun() {
    if (!m_running)
        return;
    if (m_regionLoadId != 0) { // still reading the region labels: nothing to wait for
        m_loader->cancelUpTo(m_regionLoadId);
        m_regionLoadId = 0;
        m_pendingRun = {};
        onCancelled();
        return;
    }
    m_worker->requestCancel();
    m_rateLabel->setText(tr("Cancelling…"));
    m_cancelButton->setEnabled(false);
    m_cancelAction->setEnabled(false);
}

void MainWindow::setRunning(bool running) {
    m_running = running;
    updateInputsEnabled();
    if (running)
        m_plotTimer.start();
    else
        m_plotTimer.stop();
    updateRunState();
}

void MainWindow::onProgress(const JobProgressUpdate& update) {
    if (!m_running)
        return; // a late report of a run that already ended
    m_progressBar->setValue(int(std::lround(qBound(0.0, update.fraction, 1.0) * kProgressSteps)));
    QString text = formatRate(update.pairsPerSecond);
    text +=
        tr(" · ETA %1")
            .arg(update.etaSeconds >= 0 ? formatDuration(update.etaSeconds) : QStringLiteral("–"));
    text += tr(" · elapsed %1").arg(formatDuration(update.elapsedSeconds));
    m_rateLabel->setText(text);
    if (update.partial) {
        // Only remembered here; the 4 Hz timer draws it, so a fast stream of reports never
        // turns into a stream of redraws.
        m_latestPartial = update.partial;
        m_partialDirty = true;
    }
}

void MainWindow::refreshLivePlots() {
    if (!m_partialDirty || !m_latestPartial)
        return;
    m_partialDirty = false;
    m_plotPanel->setResult(m_latestPartial, true);
}

void MainWindow::onFinished(const ResultPtr& result) {
    m_result = result;
    m_resultInputs = m_runInputs;
    m_latestPartial.reset();
    setRunning(false);
    m_progressBar->setValue(kProgressSteps);
    const QString culling = result->culled ? tr("culling on") : tr("culling off");
    m_rateLabel->setText(tr("Done in %1 s on %2 · %3")
                             .arg(result->elapsedSeconds, 0, 'f', 2)
                             .arg(QString::fromStdString(result->deviceDescription), culling));
    m_resultModel->setResult(result);
    m_plotPanel->setResult(result, false);
    // The region map applies to the data the run used, and only while that data is loaded.
    if (result->hasJackknife() && m_data && m_runData &&
        m_runData->size() == m_data->catalog->size())
        m_skyPlot->setRegions(result->jackknifeRegions.dataRegions, result->jackknifeRegions.count);
    else
        m_skyPlot->setRegions(nullptr, 0);
    m_runData.reset();
    if (!result->backendNotice.empty())
        reportMessage(MessageSeverity::Info, QString::fromStdString(result->backendNotice));
    reportMessage(MessageSeverity::Info,
                  tr("Finished in %1 s: %2 bins on %3 (%4), %5 precision, %6 (requested %7)")
                      .arg(result->elapsedSeconds, 0, 'f', 2)
                      .arg(result->binCount())
                      .arg(QString::fromStdString(result->backendName),
                           QString::fromStdString(result->deviceDescription),
                           QString::fromLatin1(precisionName(result->precision)), culling,
                           QString::fromLatin1(cullingModeName(result->cullingRequested))));
    reportJackknife(*result);
    updateRunState();
    Q_EMIT runFinished(result);
}

void MainWindow::reportJackknife(const CorrelationResult& result) {
    const JackknifeRegionsSummary& regions = result.jackknifeRegions;
    if (!result.hasJackknife())
        return;
    logLine(MessageSeverity::Info,
            tr("Jackknife: %1 regions (%2); σ(θ) in the w_err column, covariance in the "
               "Covariance tab")
                .arg(regions.count)
                .arg(QString::fromStdString(regions.method)));
    // A bin can have a finite w but no σ (a leave-one-out sample without pairs there): its
    // point is drawn without a bar, which must not read as "exact".
    const std::size_t withoutSigma = result.binsWithoutSigma();
    if (withoutSigma > 0)
        logLine(MessageSeverity::Info,
                tr("Jackknife: %1 bins with a finite w have no σ (a leave-one-out sample has no "
                   "pairs there); their points are drawn without error bars.")
                    .arg(withoutSigma));
    if (regions.warnings.empty())
        return;
    // Every warning gets its own log line; one message (and in interactive mode one box) says
    // that there are some.
    for (const std::string& warning : regions.warnings)
        logLine(MessageSeverity::Warning, tr("Jackknife: %1").arg(QString::fromStdString(warning)));
    const QString first = QString::fromStdString(regions.warnings.front());
    reportMessage(MessageSeverity::Warning,
                  regions.warnings.size() == 1
                      ? tr("Jackknife regions: %1").arg(first)
                      : tr("Jackknife regions: %1 warnings, listed in the log (first: %2)")
                            .arg(regions.warnings.size())
                            .arg(first));
}

void MainWindow::onFailed(const QString& message) {
    m_runData.reset();
    setRunning(false);
    m_progressBar->setValue(0);
    m_rateLabel->setText(tr("Failed"));
    // The previous result stays on screen: a failed run does not erase finished work.
    if (m_result)
        m_plotPanel->setResult(m_result, false);
    else
        m_plotPanel->clear();
    reportMessage(MessageSeverity::Error, tr("The run failed: %1").arg(message));
    Q_EMIT runFailed(message);
}

void MainWindow::onCancelled() {
    m_runData.reset();
    setRunning(false);
    m_progressBar->setValue(0);
    m_rateLabel->setText(tr("Cancelled"));
    if (m_result)
        m_plotPanel->setResult(m_result, false);
    else
        m_plotPanel->clear();
    reportMessage(MessageSeverity::Info, tr("Run cancelled."));
    Q_EMIT runCancelled();
}

// ----------------------------------------------------------------------------------------------
// Sessions

Session MainWindow::session() const {
    Session session;
    if (m_data)
        session.data = m_data->source;
    for (const LoadedCatalog& random : m_randoms)
        session.randoms.append(random.source);
    session.settings.bins = m_binningPanel->spec();
    session.settings.estimator = m_backendPanel->estimator();
    session.settings.backend = m_backendPanel->backendOptions();
    session.settings.errors = m_errorsPanel->settings();
    return session;
}

MainWindow::CatalogChange MainWindow::sessionChange(const Session& session) {
    CatalogChange change;
    change.replaceAll = true;
    change.data = session.data;
    change.randoms = session.randoms;
    change.settings = session.settings;
    return change;
}

bool MainWindow::applySession(const Session& session) {
    return queueCatalogChange(sessionChange(session));
}

bool MainWindow::saveSession(const QString& path) {
    if (refuseOverwritingCatalog(path, tr("session")))
        return false;
    QString error;
    if (!saveSessionFile(path, session(), &error)) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    addRecentFile({RecentRole::Session, CatalogSource{path}});
    reportMessage(MessageSeverity::Info, tr("Session saved to %1").arg(path));
    return true;
}

bool MainWindow::loadSession(const QString& path) {
    if (m_running)
        return false;
    QString error;
    const std::optional<Session> loaded = loadSessionFile(path, &error);
    if (!loaded) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    // Remembered and reported once its catalogs are read (onCatalogsRead).
    CatalogChange change = sessionChange(*loaded);
    change.sessionPath = path;
    return queueCatalogChange(std::move(change));
}

// ----------------------------------------------------------------------------------------------
// Export

bool MainWindow::refuseOverwritingCatalog(const QString& path, const QString& what) {
    QList<const CatalogSource*> loaded;
    if (m_data)
        loaded.append(&m_data->source);
    for (const LoadedCatalog& random : m_randoms)
        loaded.append(&random.source);
    const std::string target = QFile::encodeName(path).toStdString();
    for (const CatalogSource* source : loaded) {
        const std::string catalog = QFile::encodeName(source->path).toStdString();
        if (source->isResource() || !sameFile(target, catalog))
            continue;
        reportMessage(MessageSeverity::Error,
                      tr("Not written: %1 is the loaded catalog %2; writing the %3 there would "
                         "destroy it. Choose another file name.")
                          .arg(path, source->displayName(), what));
        return true;
    }
    return false;
}

bool MainWindow::exportResultCsv(const QString& path) {
    if (!m_result) {
        reportMessage(MessageSeverity::Warning, tr("There is no result to export yet."));
        return false;
    }
    if (refuseOverwritingCatalog(path, tr("results")))
        return false;
    try {
        // The same writer as the CLI, so the two files are identical for the same run.
        writeResultCsvFile(QFile::encodeName(path).toStdString(), *m_result);
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, describeReadError(error));
        return false;
    }
    reportMessage(MessageSeverity::Info,
                  m_resultStale
                      ? tr("Results written to %1 (the result of previous inputs, as its header "
                           "lists them)")
                            .arg(path)
                      : tr("Results written to %1").arg(path));
    return true;
}

bool MainWindow::exportCovarianceCsv(const QString& path) {
    if (!m_result || !m_result->hasJackknife()) {
        reportMessage(MessageSeverity::Warning,
                      tr("There is no covariance to export: run with jackknife errors first."));
        return false;
    }
    if (refuseOverwritingCatalog(path, tr("covariance")))
        return false;
    try {
        writeCovarianceCsvFile(QFile::encodeName(path).toStdString(), *m_result);
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, describeReadError(error));
        return false;
    }
    reportMessage(MessageSeverity::Info,
                  m_resultStale
                      ? tr("Covariance written to %1 (the result of previous inputs)").arg(path)
                      : tr("Covariance written to %1").arg(path));
    return true;
}

bool MainWindow::exportPlot(int plot, const QString& path, const PlotExportSettings& settings) {
    if (refuseOverwritingCatalog(path, tr("plot")))
        return false;
    const auto which = PlotPanel::Plot(plot);
    QCustomPlot* target = m_plotPanel->plot(which);
    QString error;
    const bool pdf =
        QFileInfo(path).suffix().compare(QStringLiteral("pdf"), Qt::CaseInsensitive) == 0;
    const bool ok = pdf ? savePlotPdf(target, path, settings, m_plotPanel->plotTitle(which), &error)
                        : savePlotPng(target, path, settings, &error);
    if (!ok) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    // A figure of a stale result carries the plot's "previous inputs" title.
    reportMessage(MessageSeverity::Info,
                  m_resultStale ? tr("Plot written to %1 (the result of previous inputs)").arg(path)
                                : tr("Plot written to %1").arg(path));
    return true;
}

// ----------------------------------------------------------------------------------------------
// Dialogs behind the menu actions

void MainWindow::openDataDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Data Catalog"),
                                                      m_lastDirectory, catalogFileFilter());
    if (!path.isEmpty())
        openCatalogFile(path, false);
}

void MainWindow::addRandomDialog() {
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Add Random Catalogs"),
                                                            m_lastDirectory, catalogFileFilter());
    if (!paths.isEmpty())
        openCatalogFiles(paths, false);
}

void MainWindow::removeSelectedRandom() {
    const QTreeWidgetItem* item = m_catalogTree->currentItem();
    int index = item ? item->data(0, Qt::UserRole).toInt() : -1;
    if (index < 0) // nothing or the data selected: remove the last random set
        index = int(m_randoms.size()) - 1;
    removeRandomCatalog(index);
}

void MainWindow::openSessionDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Session"), m_lastDirectory,
                                                      tr("TPACF sessions (*.json)"));
    if (!path.isEmpty())
        loadSession(path);
}

void MainWindow::saveSessionDialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Session"),
                                                QDir(m_lastDirectory).filePath(tr("session.json")),
                                                tr("TPACF sessions (*.json)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    saveSession(path);
}

void MainWindow::exportCsvDialog() {
    if (!m_result)
        return;
    QString path = QFileDialog::getSaveFileName(this, tr("Export Results"),
                                                QDir(m_lastDirectory).filePath(tr("wtheta.csv")),
                                                tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".csv");
    exportResultCsv(path);
}

void MainWindow::exportCovarianceDialog() {
    if (!m_result || !m_result->hasJackknife())
        return;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Covariance"), QDir(m_lastDirectory).filePath(tr("wtheta_covariance.csv")),
        tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".csv");
    exportCovarianceCsv(path);
}

void MainWindow::exportPlotDialog() {
    if (!m_result)
        return;
    const PlotPanel::Plot which = m_plotPanel->currentPlot();
    const QString base =
        which == PlotPanel::Plot::Correlation ? tr("wtheta")
        : which == PlotPanel::Plot::PairCounts
            ? tr("pair_counts")
            : (m_plotPanel->covarianceView()->mode() == CovarianceView::Mode::Correlation
                   ? tr("wtheta_correlation_matrix")
                   : tr("wtheta_covariance"));
    QString selectedFilter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Plot"), QDir(m_lastDirectory).filePath(base + QStringLiteral(".png")),
        tr("PNG image (*.png);;PDF vector (*.pdf)"), &selectedFilter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += selectedFilter.contains(QStringLiteral("pdf")) ? QStringLiteral(".pdf")
                                                               : QStringLiteral(".png");
    PlotExportDialog dialog(m_exportSettings, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_exportSettings = dialog.settings();
    exportPlot(int(which), path, m_exportSettings);
}

void MainWindow::showAbout() {
    QString gpuText;
    if (!m_gpu) {
        gpuText = tr("CUDA: no GPU module");
    } else {
        const QString versions = QString::fromStdString(m_gpu->versionDescription());
        const auto devices = m_gpu->devices();
        QStringList lines;
        if (!versions.isEmpty())
            lines.append(versions.toHtmlEscaped());
        if (devices.empty())
            lines.append(
                tr("CUDA: %1")
                    .arg(QString::fromStdString(m_gpu->unavailableReason()).toHtmlEscaped()));
        for (const GpuDeviceInfo& device : devices)
            lines.append(tr("GPU %1: %2, %3 GiB, compute %4.%5, %6 SMs")
                             .arg(device.index)
                             .arg(QString::fromStdString(device.name).toHtmlEscaped())
                             .arg(double(device.memoryBytes) / double(1ull << 30), 0, 'f', 1)
                             .arg(device.computeMajor)
                             .arg(device.computeMinor)
                             .arg(device.multiprocessors));
        gpuText = lines.join(QStringLiteral("<br>"));
    }
    QMessageBox::about(
        this, tr("About TPACF Studio"),
        tr("<h3>TPACF Studio %1</h3>"
           "<p>The two-point angular correlation function w(θ) of astronomical catalogs, "
           "on GPU and CPU.</p>"
           "<p>Qt %2 (built with %3)<br>%4</p>")
            .arg(QString::fromLatin1(tpacf::version()), QString::fromLatin1(qVersion()),
                 QStringLiteral(QT_VERSION_STR), gpuText));
}

// ----------------------------------------------------------------------------------------------
// Drag and drop

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (m_running || isLoading() || !event->mimeData()->hasUrls())
        return;
    for (const QUrl& url : event->mimeData()->urls())
        if (!url.isLocalFile())
            return;
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        paths.append(url.toLocalFile());
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    // Dropped files: session files open as sessions; for catalogs ask whether they are data or
    // randoms (the first of several becomes the data with "data + randoms").
    if (paths.size() == 1 && paths.front().endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) {
        loadSession(paths.front());
        return;
    }
    // Interactive: ask. Otherwise (tests) the first file is the data and the rest randoms.
    bool firstIsData = true;
    if (m_options.interactive) {
        QMenu menu(this);
        QAction* asData =
            menu.addAction(paths.size() == 1 ? tr("Open as &Data Catalog")
                                             : tr("First as &Data, the Rest as Randoms"));
        menu.addAction(paths.size() == 1 ? tr("Add as &Random Catalog")
                                         : tr("Add All as &Random Catalogs"));
        QAction* chosen = menu.exec(mapToGlobal(event->position().toPoint()));
        if (!chosen)
            return;
        firstIsData = chosen == asData;
    }
    openCatalogFiles(paths, firstIsData);
}

// ----------------------------------------------------------------------------------------------
// Settings and recent files

namespace {

QString recentRoleKey(MainWindow::RecentRole role) {
    switch (role) {
    case MainWindow::RecentRole::Data:
        return QStringLiteral("data");
    case MainWindow::RecentRole::Random:
        return QStringLiteral("random");
    case MainWindow::RecentRole::Session:
        return QStringLiteral("session");
    }
    return QStringLiteral("data");
}

std::optional<MainWindow::RecentRole> parseRecentRole(const QString& key) {
    for (auto role : {MainWindow::RecentRole::Data, MainWindow::RecentRole::Random,
                      MainWindow::RecentRole::Session})
        if (key == recentRoleKey(role))
            return role;
    return std::nullopt;
}

// Settings written before roles were remembered: a plain list of paths, sessions by suffix.
MainWindow::RecentFile recentFromPath(const QString& path) {
    const bool session = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive);
    return {session ? MainWindow::RecentRole::Session : MainWindow::RecentRole::Data,
            CatalogSource{path}};
}

} // namespace

void MainWindow::addRecentFile(const RecentFile& entry) {
    RecentFile recent = entry;
    recent.source.path = QFileInfo(entry.source.path).absoluteFilePath();
    // One entry per file and role: a file opened as data and as random appears twice.
    m_recentFiles.removeIf([&recent](const RecentFile& other) {
        return other.role == recent.role && other.source.path == recent.source.path;
    });
    m_recentFiles.prepend(recent);
    while (m_recentFiles.size() > kMaxRecentFiles)
        m_recentFiles.removeLast();
    updateRecentMenu();
}

bool MainWindow::openRecentFile(int index) {
    if (index < 0 || index >= m_recentFiles.size())
        return false;
    const RecentFile recent = m_recentFiles[index];
    switch (recent.role) {
    case RecentRole::Session:
        return loadSession(recent.source.path);
    case RecentRole::Random:
        return addRandomCatalog(recent.source);
    case RecentRole::Data:
        break;
    }
    return setDataCatalog(recent.source);
}

void MainWindow::updateRecentMenu() {
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    for (int i = 0; i < m_recentFiles.size(); ++i) {
        const RecentFile& recent = m_recentFiles[i];
        const QString name = QFileInfo(recent.source.path).fileName();
        const QString text = recent.role == RecentRole::Data     ? tr("%1 (data)").arg(name)
                             : recent.role == RecentRole::Random ? tr("%1 (random)").arg(name)
                                                                 : name;
        QAction* action = m_recentMenu->addAction(text, this, [this, i] { openRecentFile(i); });
        action->setToolTip(recent.source.path);
        action->setData(recentRoleKey(recent.role));
    }
    if (!m_recentFiles.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            m_recentFiles.clear();
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!m_running && !isLoading() && !m_recentFiles.isEmpty());
}

void MainWindow::restoreSettings() {
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_recentFiles.clear();
    const int recentCount = settings.beginReadArray(QStringLiteral("recent"));
    for (int i = 0; i < recentCount; ++i) {
        settings.setArrayIndex(i);
        const auto role = parseRecentRole(settings.value(QStringLiteral("role")).toString());
        const QJsonObject source =
            QJsonDocument::fromJson(settings.value(QStringLiteral("source")).toByteArray())
                .object();
        if (role && !source.value(QStringLiteral("path")).toString().isEmpty())
            m_recentFiles.append({*role, CatalogSource::fromJson(source)});
    }
    settings.endArray();
    if (recentCount == 0)
        for (const QString& path : settings.value(QStringLiteral("recentFiles")).toStringList())
            m_recentFiles.append(recentFromPath(path));
    m_lastDirectory = settings.value(QStringLiteral("lastDirectory"), QDir::homePath()).toString();
    m_exportSettings.widthPx = settings.value(QStringLiteral("export/width"), 1800).toInt();
    m_exportSettings.heightPx = settings.value(QStringLiteral("export/height"), 1200).toInt();
    m_exportSettings.dpi = settings.value(QStringLiteral("export/dpi"), 300).toInt();
    const QByteArray last = settings.value(QStringLiteral("lastSettings")).toByteArray();
    if (!last.isEmpty()) {
        const RunSettings run = RunSettings::fromJson(QJsonDocument::fromJson(last).object());
        m_binningPanel->setSpec(run.bins);
        m_backendPanel->setEstimator(run.estimator);
        m_backendPanel->setBackendOptions(run.backend);
        m_errorsPanel->setSettings(run.errors);
    }
    updateRecentMenu();
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.remove(QStringLiteral("recentFiles")); // the list before roles were remembered
    settings.remove(QStringLiteral("recent"));
    settings.beginWriteArray(QStringLiteral("recent"), int(m_recentFiles.size()));
    for (int i = 0; i < m_recentFiles.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("role"), recentRoleKey(m_recentFiles[i].role));
        settings.setValue(
            QStringLiteral("source"),
            QJsonDocument(m_recentFiles[i].source.toJson()).toJson(QJsonDocument::Compact));
    }
    settings.endArray();
    settings.setValue(QStringLiteral("lastDirectory"), m_lastDirectory);
    settings.setValue(QStringLiteral("export/width"), m_exportSettings.widthPx);
    settings.setValue(QStringLiteral("export/height"), m_exportSettings.heightPx);
    settings.setValue(QStringLiteral("export/dpi"), m_exportSettings.dpi);
    settings.setValue(QStringLiteral("lastSettings"),
                      QJsonDocument(session().settings.toJson()).toJson(QJsonDocument::Compact));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_options.useSettings)
        saveSettings();
    m_worker->requestCancel();
    event->accept();
}

} // namespace tpacf::ui
