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
    // Stop a running job promptly, then let the thread finish its event loop.
    m_worker->requestCancel();
    m_workerThread.quit();
    m_workerThread.wait();
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
    m_catalogTree->header()->setStretchLastSection(false);
    m_catalogTree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_catalogTree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
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
    auto* runButtons = new QHBoxLayout;
    runButtons->addWidget(m_runButton, 2);
    runButtons->addWidget(m_cancelButton, 1);
    auto* runLayout = new QVBoxLayout(runWidget);
    runLayout->setContentsMargins(6, 6, 6, 6);
    runLayout->addLayout(runButtons);
    runLayout->addWidget(m_progressBar);
    runLayout->addWidget(m_rateLabel);
    runLayout->addWidget(m_runReason);
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

std::optional<MainWindow::LoadedCatalog>
MainWindow::readCatalogSource(const CatalogSource& source) {
    // Reading happens on the GUI thread (it is quick for typical catalogs); a busy cursor tells
    // the user why the window pauses on a very large file.
    QString problem;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        LoadedCatalog loaded{source, loadCatalog(source)};
        QApplication::restoreOverrideCursor();
        return loaded;
    } catch (const std::exception& error) {
        problem = describeReadError(error);
    }
    QApplication::restoreOverrideCursor(); // before a message box may open
    reportMessage(MessageSeverity::Error, tr("Cannot read the catalog. %1").arg(problem));
    return std::nullopt;
}

bool MainWindow::setDataCatalog(const CatalogSource& source) {
    if (m_running)
        return false;
    auto loaded = readCatalogSource(source);
    if (!loaded)
        return false;
    m_data = std::move(loaded);
    reportMessage(
        MessageSeverity::Info,
        tr("Data catalog %1: %2 points").arg(source.displayName()).arg(m_data->catalog->size()));
    if (!source.isResource())
        addRecentFile(source.path);
    updateCatalogViews();
    return true;
}

bool MainWindow::addRandomCatalog(const CatalogSource& source) {
    if (m_running)
        return false;
    auto loaded = readCatalogSource(source);
    if (!loaded)
        return false;
    m_randoms.append(*loaded);
    reportMessage(
        MessageSeverity::Info,
        tr("Random catalog %1: %2 points").arg(source.displayName()).arg(loaded->catalog->size()));
    updateCatalogViews();
    return true;
}

void MainWindow::removeRandomCatalog(int index) {
    if (m_running || index < 0 || index >= m_randoms.size())
        return;
    const QString name = m_randoms[index].source.displayName();
    m_randoms.removeAt(index);
    reportMessage(MessageSeverity::Info, tr("Removed random catalog %1").arg(name));
    updateCatalogViews();
}

bool MainWindow::openCatalogFile(const QString& path, bool asRandom) {
    CatalogSource source;
    source.path = path;
    m_lastDirectory = QFileInfo(path).absolutePath();
    try {
        const TablePreview preview = previewCatalogFile(QFile::encodeName(path).toStdString());
        if (m_options.interactive && ColumnMappingDialog::needsMapping(preview)) {
            ColumnMappingDialog dialog(source, preview, this);
            if (dialog.exec() != QDialog::Accepted)
                return false;
            source = dialog.source();
        }
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error,
                      tr("Cannot read the catalog. %1").arg(describeReadError(error)));
        return false;
    }
    return asRandom ? addRandomCatalog(source) : setDataCatalog(source);
}

bool MainWindow::loadBundledSample() {
    if (!QFile::exists(kSampleData)) {
        reportMessage(MessageSeverity::Info,
                      tr("This build has no bundled sample; open a catalog to start."));
        return false;
    }
    Session sample;
    sample.data = CatalogSource{kSampleData};
    for (const QString& random : kSampleRandoms)
        if (QFile::exists(random))
            sample.randoms.append(CatalogSource{random});
    sample.settings.bins = m_binningPanel->spec();
    sample.settings.estimator = m_backendPanel->estimator();
    sample.settings.backend = m_backendPanel->backendOptions();
    sample.settings.errors = m_errorsPanel->settings();
    if (!applySession(sample))
        return false;
    reportMessage(MessageSeverity::Info,
                  tr("Loaded the bundled sample. Press Run (Ctrl+R) to compute w(θ)."));
    return true;
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
        item->setText(1, QLocale().toString(qulonglong(loaded.catalog->size())));
        item->setText(2, QStringLiteral("%1 – %2").arg(formatDegrees(extent.raMin),
                                                       formatDegrees(extent.raMax)));
        item->setText(3, QStringLiteral("%1 – %2").arg(formatDegrees(extent.decMin),
                                                       formatDegrees(extent.decMax)));
        const QString origin =
            loaded.source.isResource() ? tr("Bundled sample") : loaded.source.path;
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

void MainWindow::updateRunState() {
    const QString reason = runBlockedReason();
    const bool runnable = reason.isEmpty();
    m_runButton->setEnabled(runnable);
    m_runAction->setEnabled(runnable);
    m_runButton->setToolTip(runnable ? tr("Compute w(θ) (Ctrl+R)") : reason);
    m_cancelButton->setEnabled(m_running);
    m_cancelAction->setEnabled(m_running);
    m_runReason->setText(m_running ? QString() : reason);
    m_runReason->setVisible(!m_running && !reason.isEmpty());
    const bool haveResult = m_result != nullptr;
    m_exportCsvAction->setEnabled(haveResult);
    m_exportCovarianceAction->setEnabled(haveResult && m_result->hasJackknife());
    m_exportPlotAction->setEnabled(haveResult);
    m_removeRandomAction->setEnabled(!m_running && !m_randoms.isEmpty());
    for (QAction* action :
         {m_openDataAction, m_addRandomAction, m_loadSampleAction, m_openSessionAction})
        action->setEnabled(!m_running);
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
    if (errors.method == ErrorSettings::Method::Column) {
        // Region labels are read with the catalogs: read them again, with the column.
        QApplication::setOverrideCursor(Qt::WaitCursor);
        QString problem;
        try {
            params.data = loadCatalog(m_data->source, errors.regionColumn);
            params.randoms.clear();
            for (const LoadedCatalog& random : std::as_const(m_randoms))
                params.randoms.push_back(loadCatalog(random.source, errors.regionColumn));
        } catch (const std::exception& error) {
            problem = describeReadError(error);
        }
        QApplication::restoreOverrideCursor();
        if (!problem.isEmpty()) {
            reportMessage(
                MessageSeverity::Error,
                tr("Cannot read the region column '%1'. %2").arg(errors.regionColumn, problem));
            return false;
        }
    }
    const std::shared_ptr<const Catalog> runData = params.data;
    if (!m_worker->start(std::move(params))) {
        reportMessage(MessageSeverity::Warning, tr("A run is already in progress."));
        return false;
    }
    m_runData = runData;
    m_latestPartial.reset();
    m_partialDirty = false;
    m_plotPanel->clear();
    setRunning(true);
    m_progressBar->setValue(0);
    m_rateLabel->setText(tr("Starting…"));
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

void MainWindow::cancelRun() {
    if (!m_running)
        return;
    m_worker->requestCancel();
    m_rateLabel->setText(tr("Cancelling…"));
    m_cancelButton->setEnabled(false);
    m_cancelAction->setEnabled(false);
}

void MainWindow::setRunning(bool running) {
    m_running = running;
    for (QWidget* panel : std::as_const(m_inputPanels))
        panel->setEnabled(!running);
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
    int withoutSigma = 0;
    for (std::size_t k = 0; k < result.w.size() && k < result.wError.size(); ++k)
        withoutSigma += std::isfinite(result.w[k]) && !std::isfinite(result.wError[k]) ? 1 : 0;
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

bool MainWindow::applySession(const Session& session) {
    if (m_running)
        return false;
    // Read everything first so a bad file leaves the current state untouched.
    std::optional<LoadedCatalog> data;
    if (session.data) {
        data = readCatalogSource(*session.data);
        if (!data)
            return false;
    }
    QList<LoadedCatalog> randoms;
    for (const CatalogSource& source : session.randoms) {
        auto loaded = readCatalogSource(source);
        if (!loaded)
            return false;
        randoms.append(*loaded);
    }
    m_data = std::move(data);
    m_randoms = std::move(randoms);
    m_binningPanel->setSpec(session.settings.bins);
    m_backendPanel->setEstimator(session.settings.estimator);
    m_backendPanel->setBackendOptions(session.settings.backend);
    m_errorsPanel->setSettings(session.settings.errors);
    updateCatalogViews();
    return true;
}

bool MainWindow::saveSession(const QString& path) {
    QString error;
    if (!saveSessionFile(path, session(), &error)) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    addRecentFile(path);
    reportMessage(MessageSeverity::Info, tr("Session saved to %1").arg(path));
    return true;
}

bool MainWindow::loadSession(const QString& path) {
    QString error;
    const std::optional<Session> loaded = loadSessionFile(path, &error);
    if (!loaded) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    if (!applySession(*loaded))
        return false;
    addRecentFile(path);
    reportMessage(MessageSeverity::Info, tr("Session loaded from %1").arg(path));
    return true;
}

// ----------------------------------------------------------------------------------------------
// Export

bool MainWindow::exportResultCsv(const QString& path) {
    if (!m_result) {
        reportMessage(MessageSeverity::Warning, tr("There is no result to export yet."));
        return false;
    }
    try {
        // The same writer as the CLI, so the two files are identical for the same run.
        writeResultCsvFile(QFile::encodeName(path).toStdString(), *m_result);
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, describeReadError(error));
        return false;
    }
    reportMessage(MessageSeverity::Info, tr("Results written to %1").arg(path));
    return true;
}

bool MainWindow::exportCovarianceCsv(const QString& path) {
    if (!m_result || !m_result->hasJackknife()) {
        reportMessage(MessageSeverity::Warning,
                      tr("There is no covariance to export: run with jackknife errors first."));
        return false;
    }
    try {
        writeCovarianceCsvFile(QFile::encodeName(path).toStdString(), *m_result);
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, describeReadError(error));
        return false;
    }
    reportMessage(MessageSeverity::Info, tr("Covariance written to %1").arg(path));
    return true;
}

bool MainWindow::exportPlot(int plot, const QString& path, const PlotExportSettings& settings) {
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
    reportMessage(MessageSeverity::Info, tr("Plot written to %1").arg(path));
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
    for (const QString& path : paths)
        if (!openCatalogFile(path, true))
            break;
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
    if (m_running || !event->mimeData()->hasUrls())
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
    if (firstIsData && !openCatalogFile(paths.takeFirst(), false))
        return;
    for (const QString& path : std::as_const(paths))
        if (!openCatalogFile(path, true))
            break;
}

// ----------------------------------------------------------------------------------------------
// Settings and recent files

void MainWindow::addRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_recentFiles.removeAll(absolute);
    m_recentFiles.prepend(absolute);
    while (m_recentFiles.size() > kMaxRecentFiles)
        m_recentFiles.removeLast();
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    for (const QString& path : std::as_const(m_recentFiles)) {
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
                                loadSession(path);
                            else
                                openCatalogFile(path, false);
                        })
            ->setToolTip(path);
    }
    if (!m_recentFiles.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            m_recentFiles.clear();
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!m_recentFiles.isEmpty());
}

void MainWindow::restoreSettings() {
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_recentFiles = settings.value(QStringLiteral("recentFiles")).toStringList();
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
    settings.setValue(QStringLiteral("recentFiles"), m_recentFiles);
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
