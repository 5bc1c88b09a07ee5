// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, part two: its actions, menus and toolbar, File > Open Recent, drag and drop, Run >
// Copy as Command Line, Help > User Guide (F1) and Tools > Kernel Lab. (main_window.cpp builds
// and wires the window; main_window_dialogs.cpp holds the file dialogs behind the actions and
// the About box.)
#include "main_window.h"

#include "catalogs_panel.h"
#include "command_line_export.h"
#include "covariance_view.h"
#include "figure_dialog.h"
#include "help_window.h"
#include "themed_icon.h"
#if TPACF_HAVE_FCS
#include "fcs/fcs_window.h"
#endif
#include "lab/kernel_lab_window.h"
#include "binning_panel.h"
#include "plot_panel.h"

#include <tpacf/catalog_formats.h>
#include <tpacf/version.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolBar>

namespace tpacf::ui {

// Built from the core's format table, so a format appears exactly where this build reads it
// (FITS only with cfitsio): all catalogs, then each format by name, then all files (the ASCII
// reader takes any name).
QString catalogFileFilter() {
    auto text = [](std::string_view view) {
        return QString::fromUtf8(view.data(), qsizetype(view.size()));
    };
    QStringList all, filters;
    for (const CatalogFormat& format : catalogFormats()) {
        QStringList patterns;
        for (const std::string_view pattern : format.patterns)
            patterns.append(text(pattern));
        all.append(patterns);
        filters.append(QStringLiteral("%1 (%2)").arg(text(format.name), patterns.join(u' ')));
    }
    filters.prepend(
        QCoreApplication::translate("tpacf::ui::MainWindow", "Catalogs (%1)").arg(all.join(u' ')));
    filters.append(QCoreApplication::translate("tpacf::ui::MainWindow", "All files (*)"));
    return filters.join(QStringLiteral(";;"));
}

// ----------------------------------------------------------------------------------------------
// Actions and menus

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

    m_maskRandomsAction = new QAction(tr("Make Randoms from &Mask…"), this);
    m_maskRandomsAction->setObjectName(QStringLiteral("maskRandomsAction"));
    m_maskRandomsAction->setStatusTip(
        tr("Draw random points inside a HEALPix map or MOC and add them as a random catalog"));
    connect(m_maskRandomsAction, &QAction::triggered, this, &MainWindow::makeRandomsFromMaskDialog);

    m_setMaskAction = new QAction(tr("Set Mas&k…"), this);
    m_setMaskAction->setObjectName(QStringLiteral("setMaskAction"));
    m_setMaskAction->setStatusTip(tr("A HEALPix map or MOC every run cuts its catalogs to"));
    connect(m_setMaskAction, &QAction::triggered, this, &MainWindow::setMaskDialog);
    m_clearMaskAction = new QAction(tr("Clear Mask"), this);
    m_clearMaskAction->setObjectName(QStringLiteral("clearMaskAction"));
    m_clearMaskAction->setEnabled(false);
    connect(m_clearMaskAction, &QAction::triggered, this, &MainWindow::clearMask);

    // The second sample of a cross-correlation (D1 × D2).
    m_openData2Action = new QAction(tr("Open &Second Data Catalog…"), this);
    m_openData2Action->setToolTip(
        tr("A second data catalog: w(θ) becomes the cross-correlation of the two samples"));
    connect(m_openData2Action, &QAction::triggered, this, &MainWindow::openData2Dialog);
    m_addRandom2Action = new QAction(tr("Add Random Catalog of the Second Sa&mple…"), this);
    m_addRandom2Action->setToolTip(
        tr("Randoms of the second sample, as many sets as the first's (paired by position); "
           "without them the second sample uses the first's randoms"));
    connect(m_addRandom2Action, &QAction::triggered, this, &MainWindow::addRandom2Dialog);
    m_removeSecondAction = new QAction(tr("Remove Second Sam&ple"), this);
    connect(m_removeSecondAction, &QAction::triggered, this, &MainWindow::removeSecondSample);

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
                    tr("&Export Results…"), this);
    m_exportCsvAction->setToolTip(
        tr("The result table as ECSV, FITS, VOTable or JSON, by the file's extension"));
    m_exportCsvAction->setShortcut(QKeySequence(tr("Ctrl+E")));
    connect(m_exportCsvAction, &QAction::triggered, this, &MainWindow::exportCsvDialog);
    m_exportCovarianceAction = new QAction(tr("Export &Covariance…"), this);
    m_exportCovarianceAction->setToolTip(
        tr("The jackknife covariance matrix of w(θ), bins × bins, as ECSV, FITS or VOTable"));
    connect(m_exportCovarianceAction, &QAction::triggered, this,
            &MainWindow::exportCovarianceDialog);
    m_saveRegionsAction = new QAction(tr("Save Jackknife &Regions…"), this);
    m_saveRegionsAction->setObjectName(QStringLiteral("saveRegionsAction"));
    m_saveRegionsAction->setToolTip(
        tr("The shown run's jackknife regions as a file, for \"regions from a file\" in another "
           "run (tpacf run --regions)"));
    m_saveRegionsAction->setEnabled(false);
    connect(m_saveRegionsAction, &QAction::triggered, this, &MainWindow::saveRegionsDialog);
    m_exportPlotAction = new QAction(
        themedIcon(QStringLiteral("image-x-generic"), QStyle::SP_FileDialogContentsView),
        svgSupported() ? tr("Export &Plot (PNG/PDF/SVG)…") : tr("Export &Plot (PNG/PDF)…"), this);
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
    m_forgetCountsAction = new QAction(tr("&Forget Cached Pair Counts"), this);
    m_forgetCountsAction->setObjectName(QStringLiteral("forgetCountsAction"));
    m_exportCsvAction->setObjectName(QStringLiteral("exportCsvAction"));
    m_exportPlotAction->setObjectName(QStringLiteral("exportPlotAction"));
    // Why one would: to time a run in full, or to count the pairs again after doubting them.
    const QString forgetTip =
        tr("Drop the pair counts kept from the last run: the next run counts every pair afresh "
           "instead of reusing those whose catalogs and bins match");
    m_forgetCountsAction->setStatusTip(forgetTip);
    m_forgetCountsAction->setToolTip(forgetTip);
    m_forgetCountsAction->setEnabled(false);
    connect(m_forgetCountsAction, &QAction::triggered, this, &MainWindow::forgetCachedCounts);

    m_aboutAction = new QAction(tr("&About TPACF Studio"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openDataAction);
    file->addAction(m_addRandomAction);
    file->addAction(m_removeRandomAction);
    file->addAction(m_maskRandomsAction);
    file->addAction(m_setMaskAction);
    file->addAction(m_clearMaskAction);
    file->addSeparator();
    file->addAction(m_openData2Action);
    file->addAction(m_addRandom2Action);
    file->addAction(m_removeSecondAction);
    file->addSeparator();
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    file->addAction(m_loadSampleAction);
    file->addSeparator();
    file->addAction(m_openSessionAction);
    file->addAction(m_saveSessionAction);
    file->addSeparator();
    file->addAction(m_exportCsvAction);
    file->addAction(m_exportCovarianceAction);
    file->addAction(m_saveRegionsAction);
    file->addAction(m_exportPlotAction);
    file->addSeparator();
    file->addAction(m_addComparisonAction);
    file->addAction(m_exportComparisonAction);
    file->addSeparator();
    file->addAction(m_quitAction);
    updateRecentMenu();

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_cancelAction);
    run->addSeparator();
    run->addAction(m_forgetCountsAction);
    // The same run for scripts and clusters: what Run would compute now, as a `tpacf run` command.
    QAction* copyCommand = run->addAction(tr("Copy as Command &Line"), this, [this] {
        const RunCommandLine command = runCommandLine(session());
        QApplication::clipboard()->setText(command.clipboardText());
        for (const QString& note : command.notes)
            logLine(MessageSeverity::Warning, tr("Command line: %1").arg(note));
        reportMessage(MessageSeverity::Info,
                      command.exact()
                          ? tr("Copied to the clipboard: %1").arg(command.text())
                          : tr("Copied to the clipboard (%n note(s) in the log and after the "
                               "command): %1",
                               nullptr, int(command.notes.size()))
                                .arg(command.text()));
    });
    copyCommand->setObjectName(QStringLiteral("copyCommandLineAction"));
    const QString copyTip = tr("Copy the tpacf run command that computes what Run would compute "
                               "now: the catalogs, bins, estimator, error bars and backend");
    copyCommand->setToolTip(copyTip);
    copyCommand->setStatusTip(copyTip);
    QAction* saveJob = run->addAction(tr("Save Run as &Job File…"), this,
                                      &MainWindow::saveRunAsJobFileDialog);
    saveJob->setObjectName(QStringLiteral("saveRunAsJobFileAction"));
    const QString jobTip = tr("Save what Run would compute now as a job file for "
                              "tpacf run --config FILE (TOML: one key per flag)");
    saveJob->setToolTip(jobTip);
    saveJob->setStatusTip(jobTip);
    run->setToolTipsVisible(true);

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
    QAction* resetLayout = m_viewMenu->addAction(tr("Reset &Layout"), this, &MainWindow::resetLayout);
    resetLayout->setObjectName(QStringLiteral("resetLayoutAction"));
    resetLayout->setToolTip(tr("Every panel back where the window first put it for this screen"));
    m_meanThetaPointsAction = m_viewMenu->addAction(tr("Points at &Mean Separation ⟨θ⟩"));
    m_meanThetaPointsAction->setObjectName(QStringLiteral("meanThetaPointsAction"));
    m_meanThetaPointsAction->setCheckable(true);
    m_meanThetaPointsAction->setToolTip(
        tr("Draw each w(θ) point at the mean separation of its bin's DD pairs instead of the bin "
           "centre, where the run summed separations (Estimator panel: Mean separation per "
           "bin); exports follow"));
    connect(m_meanThetaPointsAction, &QAction::toggled, m_plotPanel,
            &PlotPanel::setPointsAtMeanTheta);
    connect(m_plotPanel, &PlotPanel::pointsAtMeanThetaChanged, this, [this](bool on) {
        const QSignalBlocker blocker(m_meanThetaPointsAction);
        m_meanThetaPointsAction->setChecked(on);
    });
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        // The dock sets its toggle's text to its title whenever that changes, and a menu reads
        // "&" as a mnemonic ("Errors & Backend" showed as "Errors _Backend"): double it each time.
        QAction* toggle = dock->toggleViewAction();
        const auto showTitleLiterally = [dock, toggle] {
            QString text = dock->windowTitle();
            text.replace(QLatin1Char('&'), QStringLiteral("&&"));
            if (toggle->text() != text)
                toggle->setText(text);
        };
        showTitleLiterally();
        connect(toggle, &QAction::changed, this, showTitleLiterally);
        m_viewMenu->addAction(toggle);
    }

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* kernelLab = tools->addAction(tr("&Kernel Lab…"), this, &MainWindow::openKernelLab);
    kernelLab->setObjectName(QStringLiteral("kernelLabAction"));
    kernelLab->setShortcut(QKeySequence(tr("Ctrl+Shift+K")));
    const QString kernelLabTip =
        tr("The pair-counting kernel step by step, for teaching: run each rung of the ladder "
           "(naive to the product's path) on the loaded catalog, compare speed and exactness, "
           "read each rung's code");
    kernelLab->setToolTip(kernelLabTip);
    kernelLab->setStatusTip(kernelLabTip);
#if TPACF_HAVE_FCS
    // A child window (closed with this one, its worker joined then), found again on reopening.
    QAction* fcsAction = tools->addAction(tr("&FCS / Time Correlation…"), this, [this] {
        auto* window = findChild<FcsWindow*>(QString(), Qt::FindDirectChildrenOnly);
        if (!window)
            window = new FcsWindow(m_options.correlators ? *m_options.correlators
                                                         : fcs::CorrelatorRegistry{},
                                   this);
        window->show();
        window->raise();
        window->activateWindow();
    });
    fcsAction->setObjectName(QStringLiteral("fcsAction"));
    fcsAction->setStatusTip(tr("Multi-tau autocorrelation of photon streams (FCS): simulate or "
                               "open a stream, watch G(tau) as the frames arrive"));
#endif

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(new UserGuideAction(this));
    help->addSeparator();
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

// ----------------------------------------------------------------------------------------------
// Tools > Kernel Lab

KernelLabWindow* MainWindow::openKernelLab() {
    if (!m_kernelLab) {
        // A child window: it closes with this one, and its worker thread is joined then.
        m_kernelLab = new KernelLabWindow(
            m_options.labProviders ? *m_options.labProviders : lab::LabRegistry{}, this);
        connect(this, &MainWindow::catalogsChanged, m_kernelLab,
                [this] { updateKernelLabInputs(); });
        connect(m_binningPanel, &BinningPanel::changed, m_kernelLab,
                [this] { updateKernelLabInputs(); });
        updateKernelLabInputs();
    }
    m_kernelLab->show();
    m_kernelLab->raise();
    m_kernelLab->activateWindow();
    return m_kernelLab;
}

void MainWindow::updateKernelLabInputs() {
    if (!m_kernelLab)
        return;
    KernelLabInputs inputs;
    inputs.data = dataCatalog();
    const auto randoms = randomCatalogs();
    if (!randoms.empty())
        inputs.random = randoms.front();
    if (const auto& binning = m_binningPanel->binning())
        inputs.bins = binning->spec();
    m_kernelLab->setInputs(inputs);
}

// ----------------------------------------------------------------------------------------------
// Drag and drop

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (isRunning() || isLoading() || !event->mimeData()->hasUrls())
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
// Recent files

bool MainWindow::openRecentFile(int index) {
    if (index < 0 || index >= recentFiles().size())
        return false;
    const RecentFile recent = recentFiles()[index];
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
    const QList<RecentFile>& entries = recentFiles();
    for (int i = 0; i < entries.size(); ++i) {
        const RecentFile& recent = entries[i];
        // A row filter's "&&" would read as a mnemonic: doubled, it shows as written.
        QString text = RecentFiles::menuText(recent);
        text.replace(QLatin1Char('&'), QStringLiteral("&&"));
        QAction* action = m_recentMenu->addAction(text, this, [this, i] { openRecentFile(i); });
        action->setToolTip(recent.source.path);
        action->setData(RecentFiles::roleKey(recent.role));
    }
    if (!entries.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), m_recentFiles, &RecentFiles::clear);
    }
    m_recentMenu->setEnabled(!isRunning() && !isLoading() && !entries.isEmpty());
}

} // namespace tpacf::ui
