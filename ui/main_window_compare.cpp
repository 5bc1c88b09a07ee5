// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, part four: Compare runs (result files as overlays, the ratio or difference panel,
// its CSV) and the run history of the session (every completed run kept, saved with the
// session, shown again or overlaid without counting). (main_window.cpp builds the window.)
#include "main_window.h"

#include "compare_panel.h"
#include "plot_panel.h"
#include "result_table.h"
#include "sky_plot.h"
#include "run_history.h"

#include <tpacf/jackknife.h>

#include <QLocale>
#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>

namespace tpacf::ui {

void MainWindow::createCompareDocks(QDockWidget* besides) {
    m_compareRuns = new CompareRuns(this);
    m_comparePanel = new ComparePanel(m_compareRuns, this);
    m_history = new RunHistory(this);
    m_historyPanel = new RunHistoryPanel(m_history, this);
    m_compareDock = new QDockWidget(tr("Compare Runs"), this);
    m_compareDock->setObjectName(QStringLiteral("compareDock"));
    m_compareDock->setWidget(m_comparePanel);
    auto* historyDock = new QDockWidget(tr("Run History"), this);
    historyDock->setObjectName(QStringLiteral("historyDock"));
    historyDock->setWidget(m_historyPanel);
    for (QDockWidget* dock : {m_compareDock, historyDock}) {
        dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                          QDockWidget::DockWidgetClosable);
        addDockWidget(Qt::BottomDockWidgetArea, dock);
    }
    tabifyDockWidget(besides, m_compareDock);
    tabifyDockWidget(m_compareDock, historyDock);

    m_addComparisonAction = new QAction(tr("Add &Comparison Run…"), this);
    m_addComparisonAction->setObjectName(QStringLiteral("addComparisonAction"));
    m_addComparisonAction->setStatusTip(
        tr("Draw a result file of this tool (CSV, ECSV or FITS) beside the current run"));
    connect(m_addComparisonAction, &QAction::triggered, this, &MainWindow::addComparisonDialog);
    m_exportComparisonAction = new QAction(tr("Export Compared Runs as CS&V…"), this);
    m_exportComparisonAction->setObjectName(QStringLiteral("exportComparisonAction"));
    m_exportComparisonAction->setStatusTip(
        tr("Every shown run and the ratio or difference as one long table"));
    connect(m_exportComparisonAction, &QAction::triggered, this,
            &MainWindow::exportComparisonDialog);

    connect(m_comparePanel, &ComparePanel::addRequested, this, &MainWindow::addComparisonDialog);
    connect(m_comparePanel, &ComparePanel::exportRequested, this,
            &MainWindow::exportComparisonDialog);
    connect(m_compareRuns, &CompareRuns::changed, this, &MainWindow::updateComparison);
    connect(m_historyPanel, &RunHistoryPanel::showRequested, this, &MainWindow::showHistoryRun);
    connect(m_historyPanel, &RunHistoryPanel::overlayRequested, this,
            &MainWindow::addHistoryOverlay);
}

void MainWindow::updateComparison() {
    m_plotPanel->setComparison(m_compareRuns->comparison());
    m_comparePanel->setMessage(m_plotPanel->comparisonMessage());
}

bool MainWindow::addComparisonRun(const QString& path) {
    QString error;
    if (!m_compareRuns->addFile(path, &error)) {
        reportMessage(MessageSeverity::Error, tr("Not added to Compare Runs: %1").arg(error));
        return false;
    }
    m_compareDock->raise();
    const OverlayRun& run = m_compareRuns->overlay(m_compareRuns->count() - 1);
    reportMessage(MessageSeverity::Info, tr("Comparison run '%1' added from %2 (%3 bins)")
                                             .arg(run.label, path)
                                             .arg(run.table->binCount()));
    return true;
}

void MainWindow::addComparisonDialog() {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Add Comparison Run"), m_lastDirectory,
        tr("Result tables (*.csv *.ecsv *.fits *.fit *.fts);;TreeCorr and Corrfunc outputs "
           "(*.dat *.out *.txt *.fits);;All files (*)"));
    for (const QString& path : paths) {
        m_lastDirectory = QFileInfo(path).absolutePath();
        addComparisonRun(path);
    }
}

bool MainWindow::exportComparisonCsv(const QString& path) {
    if (refuseOverwritingCatalog(path, tr("comparison")))
        return false;
    const ResultPtr result = currentResult();
    const LoadedResultPtr current =
        result ? std::make_shared<LoadedResult>(loadedResultOf(*result)) : nullptr;
    QString error;
    if (!writeComparisonCsv(path, m_compareRuns->comparison(), current, &error)) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    reportMessage(MessageSeverity::Info, tr("Compared runs written to %1").arg(path));
    rememberExportFolder(path);
    return true;
}

void MainWindow::exportComparisonDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Compared Runs"),
        QDir(exportDirectory()).filePath(QStringLiteral("compared_runs.csv")), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    exportComparisonCsv(path);
}

void MainWindow::showResult(const ResultPtr& result, bool stale) {
    m_shownResult = result;
    m_resultModel->setResult(result);
    if (result)
        m_plotPanel->setResult(result, false);
    else
        m_plotPanel->clear();
    m_plotPanel->setStale(stale);
    // The panel compares against the current run, which has just changed.
    m_comparePanel->setMessage(m_plotPanel->comparisonMessage());
    updateRunState();
}

void MainWindow::recordRun(const ResultPtr& result) {
    m_history->append(result);
    showResult(result, isResultStale());
}

void MainWindow::restoreHistory(const QList<RunRecord>& records) {
    m_history->setRecords(records);
    if (records.isEmpty())
        return;
    // The session's catalogs and settings are those of its last run: shown as current, and
    // tracked like a run of this window's own, so that changing an input marks it stale.
    m_run->adoptResult(records.back().result, currentInputs());
    showResult(records.back().result, false);
    drawSavedRegionMap(*records.back().result);
    reportMessage(MessageSeverity::Info,
                  tr("Showing the session's last run (%1), saved with it: no pairs were counted")
                      .arg(records.back().summary));
}

void MainWindow::drawSavedRegionMap(const CorrelationResult& result) {
    m_skyPlot->setRegions(nullptr, 0);
    const JackknifeSettings& settings = result.jackknifeRegions.settings;
    const std::shared_ptr<const Catalog> data = dataCatalog();
    if (!result.hasJackknife() || !settings.enabled() || !data)
        return;
    // The job's order of the other catalogs (a region column is remapped over all of them).
    std::vector<std::shared_ptr<const Catalog>> held = randomCatalogs();
    if (m_catalogs->data2())
        held.push_back(m_catalogs->data2()->catalog);
    for (const LoadedCatalog& random : m_catalogs->randoms2())
        held.push_back(random.catalog);
    std::vector<const Catalog*> others;
    for (const std::shared_ptr<const Catalog>& catalog : held)
        others.push_back(catalog.get());
    QString why;
    try {
        RegionAssignment assignment = assignJackknifeRegions(settings, *data, others, 0);
        const JackknifeRegionsSummary again = summariseRegions(assignment);
        if (again.count == result.jackknifeRegions.count &&
            again.dataPerRegion == result.jackknifeRegions.dataPerRegion) {
            m_skyPlot->setRegions(again.dataRegions, again.count);
            return;
        }
        why = tr("the loaded data fall into its regions in other numbers");
    } catch (const std::exception& error) {
        why = QString::fromStdString(error.what());
    }
    logLine(MessageSeverity::Info,
            tr("The sky map is not coloured by the jackknife regions of the reopened run: %1. "
               "Run again to see them.")
                .arg(why));
}

bool MainWindow::showHistoryRun(int index) {
    const QList<RunRecord>& records = m_history->records();
    if (index < 0 || index >= records.size() || isRunning())
        return false;
    const RunRecord& record = records.at(index);
    // Only the run the controller holds is tracked against the inputs now shown; an earlier run
    // is marked as of previous inputs.
    const bool latest = record.result == m_run->result();
    showResult(record.result, latest ? isResultStale() : index != records.size() - 1);
    reportMessage(MessageSeverity::Info, tr("Showing run #%1: %2").arg(index + 1).arg(record.summary));
    return true;
}

bool MainWindow::addHistoryOverlay(int index) {
    const QList<RunRecord>& records = m_history->records();
    if (index < 0 || index >= records.size())
        return false;
    const RunRecord& record = records.at(index);
    auto table = std::make_shared<LoadedResult>(loadedResultOf(*record.result));
    // What the run was and when, as the history lists it: "galaxies.txt, Landy-Szalay (run 2,
    // 14:03)", not a bare number.
    const QString what = QString::fromStdString(table->summary());
    const QString when = tr("run %1, %2")
                             .arg(index + 1)
                             .arg(QLocale().toString(record.finished.time(), QLocale::ShortFormat));
    m_compareRuns->addTable(std::move(table),
                            what.isEmpty() ? when : QStringLiteral("%1 (%2)").arg(what, when));
    m_compareDock->raise();
    return true;
}

} // namespace tpacf::ui
