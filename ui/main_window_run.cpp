// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow: the run — whether it can start (and why not), starting and cancelling it, and what
// the window shows and logs when it ends. Construction and docks are in main_window.cpp, menus
// in main_window_menus.cpp, catalog files in main_window_files.cpp.
#include "main_window.h"

#include <tpacf/regions_file.h>

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
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QGroupBox>
#include <QJsonArray>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QStatusBar>
#include <QVBoxLayout>

namespace tpacf::ui {

QPushButton* MainWindow::runButton() const {
    return m_runPanel->runButton();
}

QProgressBar* MainWindow::progressBar() const {
    return m_runPanel->progressBar();
}

QString MainWindow::runBlockedReason() const {
    if (isRunning())
        return tr("A run is in progress.");
    if (isLoading())
        return tr("Reading the catalogs: Run is available when they are loaded.");
    const std::shared_ptr<const Catalog> data = dataCatalog();
    if (!data)
        return tr("Open a data catalog (File > Open Data Catalog).");
    if (m_catalogs->randoms().isEmpty())
        return tr("Add at least one random catalog.");
    if (const QString problem = RunController::secondSampleProblem(
            m_catalogs->data2().has_value(), int(m_catalogs->randoms().size()),
            int(m_catalogs->randoms2().size()));
        !problem.isEmpty())
        return problem;
    if (!m_binningPanel->isValid())
        return tr("Run disabled: %1").arg(m_binningPanel->problem());
    if (!m_errorsPanel->isValid())
        return tr("Run disabled: %1").arg(m_errorsPanel->problem());
    const ErrorSettings errors = m_errorsPanel->settings();
    if ((errors.method == ErrorSettings::Method::Regions ||
         errors.method == ErrorSettings::Method::Healpix) &&
        data->size() < std::size_t(errors.regions))
        return tr("Run disabled: jackknife with %1 regions needs at least %1 data points; the "
                  "data catalog has %2. Lower K.")
            .arg(errors.regions)
            .arg(data->size());
    return {};
}

bool MainWindow::canRun() const {
    return runBlockedReason().isEmpty();
}

RunInputs MainWindow::currentInputs() const {
    RunInputs inputs;
    inputs.data = dataCatalog();
    inputs.randoms = randomCatalogs();
    inputs.data2 = m_catalogs->data2Catalog();
    inputs.randoms2 = m_catalogs->random2Catalogs();
    RunSettings settings;
    settings.bins = m_binningPanel->spec();
    settings.estimator = m_backendPanel->estimator();
    settings.meanSeparation = m_backendPanel->meanSeparation();
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
    if (jackknife.regions > 0 && jackknife.healpixNside == 0)
        errors[QStringLiteral("seed")] = QString::number(jackknife.seed);
    if (jackknife.healpixNside > 0)
        errors[QStringLiteral("healpixNside")] = qint64(jackknife.healpixNside);
    if (jackknife.bootstrapSamples > 0)
        errors[QStringLiteral("bootstrap")] = jackknife.bootstrapSamples;
    if (jackknife.crossRegionWeight)
        errors[QStringLiteral("crossRegionWeight")] =
            QString::fromUtf8(crossRegionWeightInfo(*jackknife.crossRegionWeight).key);
    if (const ErrorSettings settings = m_errorsPanel->settings();
        settings.method == ErrorSettings::Method::File)
        errors[QStringLiteral("regionsFile")] = settings.regionsFile;
    object[QStringLiteral("errors")] = errors;
    // The mask changes every catalog the run counts.
    object[QStringLiteral("mask")] = m_maskPath;
    object[QStringLiteral("maskThreshold")] = m_maskThreshold;
    inputs.settings = object;
    return inputs;
}

void MainWindow::onStaleChanged(bool stale) {
    // A result whose inputs changed stays on screen, marked rather than cleared (see
    // RunController). What must not happen is reading it as the result of the inputs now shown,
    // hence the mark on the plots (and so on an exported figure), the Results dock and the Run
    // panel. The CSV export stays possible: its header lists the inputs it came from.
    m_plotPanel->setStale(stale);
    m_runPanel->setStale(stale);
    updateResultsTitle();
}

void MainWindow::updateResultsTitle() {
    // The table fills when a run ends; meanwhile it says whose numbers it holds.
    QString title = tr("Results");
    if (isRunning())
        title = currentResult() ? tr("Results (previous run; this run's appear when it ends)")
                                : tr("Results (running; the table fills when the run ends)");
    else if (isResultStale())
        title = tr("Results (previous inputs)");
    m_resultsDock->setWindowTitle(title);
}

void MainWindow::updateRunState() {
    m_run->setCurrentInputs(currentInputs());
    const QString reason = runBlockedReason();
    const bool runnable = reason.isEmpty();
    m_runPanel->setRunState(reason, isRunning(), isLoading());
    m_runAction->setEnabled(runnable);
    m_cancelAction->setEnabled(isRunning());
    m_forgetCountsAction->setEnabled(!isRunning() && m_run->countCache() != nullptr);
    const ResultPtr result = currentResult();
    // No export while a run is in progress: the file would hold the previous run's numbers
    // under the name the user means for this one.
    const bool haveResult = result != nullptr && !isRunning();
    updateResultsTitle();
    m_exportCsvAction->setEnabled(haveResult);
    m_exportCovarianceAction->setEnabled(haveResult && result->hasJackknife());
    m_saveRegionsAction->setEnabled(haveResult && result->jackknifeRegions.definition);
    m_exportPlotAction->setEnabled(haveResult);
    m_exportCsvAction->setToolTip(isResultStale()
                                      ? tr("Export the result shown, computed from "
                                           "previous inputs (the CSV header lists them)")
                                      : QString()); // empty: the action's text
    m_removeRandomAction->setEnabled(
        !isRunning() && !isLoading() &&
        (!m_catalogs->randoms().isEmpty() || !m_catalogs->randoms2().isEmpty()));
    m_removeSecondAction->setEnabled(!isRunning() && !isLoading() && m_catalogs->hasSecondSample());
    for (QAction* action : {m_openDataAction, m_addRandomAction, m_openData2Action,
                            m_addRandom2Action, m_loadSampleAction, m_openSessionAction})
        action->setEnabled(!isRunning() && !isLoading());
}

bool MainWindow::startRun() {
    if (!canRun()) {
        if (!isRunning())
            reportMessage(MessageSeverity::Warning, runBlockedReason());
        return false;
    }
    // Data outside the randoms give a w of nonsense (10^4 where they do not overlap at all).
    const QString footprint = m_catalogs->footprintWarning();
    if (!footprint.isEmpty()) {
        reportMessage(MessageSeverity::Info, tr("Footprints: %1").arg(footprint));
        if (!confirm(tr("%1\n\nw(θ) from catalogs whose footprints differ is not meaningful. "
                        "Run anyway?")
                         .arg(footprint),
                     tr("Run Anyway")))
            return false;
    }
    // Data, randoms and the second sample where one is loaded (a cross-correlation).
    CorrelationParams params = RunController::catalogParams(*m_catalogs);
    params.bins = m_binningPanel->spec();
    params.estimator = m_backendPanel->estimator();
    params.meanSeparation = m_backendPanel->meanSeparation();
    params.backend = m_backendPanel->backendOptions();
    const ErrorSettings errors = m_errorsPanel->settings();
    params.jackknife = errors.jackknife();
    if (errors.method == ErrorSettings::Method::File) {
        // Read now: a file changed or gone since it was chosen is said before the run.
        try {
            params.jackknife.given = std::make_shared<const RegionsDefinition>(
                readRegionsFile(QFile::encodeName(errors.regionsFile).toStdString()));
        } catch (const std::exception& error) {
            reportMessage(MessageSeverity::Error,
                          tr("The regions file cannot be used: %1").arg(QString::fromStdString(error.what())));
            return false;
        }
    }
    params.mask = m_mask;
    params.maskThreshold = m_maskThreshold;
    // Region labels from a column are read with the catalogs: the controller reads them again,
    // with the column, before the job starts (Cancel works meanwhile).
    const bool readRegions = errors.method == ErrorSettings::Method::Column;
    if (!m_run->start(std::move(params), currentInputs(),
                      readRegions ? errors.regionColumn : QString())) {
        reportMessage(MessageSeverity::Warning, tr("A run is already in progress."));
        return false;
    }
    m_plotPanel->clear();
    m_plotPanel->setRunning(true);
    updateInputsEnabled();
    updateRunState();
    m_runPanel->showStarting(
        readRegions ? tr("Reading region labels from column '%1'…").arg(errors.regionColumn)
                    : tr("Starting…"));
    QString errorText = tr("no error bars");
    if (errors.method == ErrorSettings::Method::Regions)
        errorText = tr("jackknife, %1 regions (seed %2)").arg(errors.regions).arg(errors.seed);
    else if (errors.method == ErrorSettings::Method::Healpix)
        errorText = tr("jackknife, %1 regions of HEALPix pixels at NSIDE %2")
                        .arg(errors.regions)
                        .arg(errors.healpixNside);
    else if (readRegions)
        errorText = tr("jackknife, regions from column '%1'").arg(errors.regionColumn);
    if (errors.method != ErrorSettings::Method::None && errors.bootstrapSamples > 0)
        errorText += tr(", σ from %1 bootstrap samples of the regions").arg(errors.bootstrapSamples);
    if (errors.method != ErrorSettings::Method::None && errors.crossRegionWeight)
        errorText += tr(", pairs between regions weighed '%1'")
                         .arg(QString::fromUtf8(crossRegionWeightInfo(*errors.crossRegionWeight).key));
    QString samples;
    if (const std::optional<LoadedCatalog>& data2 = m_catalogs->data2())
        samples = m_catalogs->randoms2().isEmpty()
                      ? tr("; cross-correlation with %1 (sharing the randoms)")
                            .arg(data2->source.displayName())
                      : tr("; cross-correlation with %1 (%2 random sets of its own)")
                            .arg(data2->source.displayName())
                            .arg(m_catalogs->randoms2().size());
    reportMessage(MessageSeverity::Info,
                  tr("Run started: %1; %2; random sets: %3; %4%5")
                      .arg(QString::fromStdString(m_binningPanel->spec().describe()),
                           QString::fromLatin1(estimatorName(m_backendPanel->estimator())))
                      .arg(m_catalogs->randoms().size())
                      .arg(errorText, samples));
    Q_EMIT runStarted();
    return true;
}

void MainWindow::cancelRun() {
    if (!isRunning())
        return;
    m_run->cancel(); // while region labels are read, the run ends here (onRunCancelled)
    if (!isRunning())
        return;
    m_runPanel->showCancelling();
    m_cancelAction->setEnabled(false);
}

bool MainWindow::forgetCachedCounts() {
    if (isRunning() || !m_run->countCache())
        return false;
    m_run->clearCountCache();
    reportMessage(MessageSeverity::Info,
                  tr("Forgot the pair counts of the previous run: the next run counts every pair "
                     "afresh."));
    updateRunState();
    return true;
}

void MainWindow::showRunEnded() {
    m_plotPanel->setRunning(false);
    updateInputsEnabled();
    updateRunState();
}

void MainWindow::onRunFinished(const ResultPtr& result) {
    showRunEnded();
    m_runPanel->showFinished(*result);
    recordRun(result);
    // The region map applies to the data the run used, and only while that data is loaded.
    const std::shared_ptr<const Catalog> data = dataCatalog();
    const std::shared_ptr<const Catalog> jobData = m_run->jobData();
    if (result->hasJackknife() && data && jobData && jobData->size() == data->size())
        m_skyPlot->setRegions(result->jackknifeRegions.dataRegions, result->jackknifeRegions.count);
    else
        m_skyPlot->setRegions(nullptr, 0);
    const QString culling = result->culled ? tr("culling on") : tr("culling off");
    if (!result->backendNotice.empty())
        reportMessage(MessageSeverity::Info, QString::fromStdString(result->backendNotice));
    QString kind;
    if (result->isCross())
        kind += tr(", cross D1×D2");
    if (result->isWeighted())
        kind += tr(", weighted");
    reportMessage(MessageSeverity::Info,
                  tr("Finished in %1 s: %2 bins on %3 (%4), %5 precision, %6 (requested %7)%8")
                      .arg(result->elapsedSeconds, 0, 'f', 2)
                      .arg(result->binCount())
                      .arg(QString::fromStdString(result->backendName),
                           QString::fromStdString(result->deviceDescription),
                           QString::fromLatin1(precisionName(result->precision)), culling,
                           QString::fromLatin1(cullingModeName(result->cullingRequested)), kind));
    // Counts taken from the previous run's (RR when only the data changed, all of them when only
    // the estimator did); the notes below say which were counted afresh. A cache that matched
    // nothing is said as such, so that a slow run after a small change is not a mystery; with
    // no cache at all (first run, forgotten, a re-run of the same inputs) nothing is said.
    for (const std::string& reused : result->reusedCounts)
        logLine(MessageSeverity::Info, tr("Reused %1").arg(QString::fromStdString(reused)));
    if (result->reusedCounts.empty() && m_run->resultWasOfferedCache())
        logLine(MessageSeverity::Info,
                tr("No pair counts of the previous run matched this run (other bins, jackknife "
                   "regions or catalogs): every pair was counted afresh."));
    // What a reader of the result must not miss (negative weights, shared randoms): each in the
    // log and, last, in the status bar.
    for (const std::string& note : result->notes)
        reportMessage(MessageSeverity::Info, tr("Note: %1").arg(QString::fromStdString(note)));
    reportJackknife(*result);
    updateRunState();
    Q_EMIT runFinished(result);
}

void MainWindow::reportJackknife(const CorrelationResult& result) {
    const JackknifeRegionsSummary& regions = result.jackknifeRegions;
    if (!result.hasJackknife())
        return;
    if (result.hasBootstrap())
        logLine(MessageSeverity::Info,
                tr("Bootstrap: %1 samples of %2 regions (%3), drawn with replacement (seed %4); "
                   "σ(θ) in the w_err column, covariance in the Covariance tab")
                    .arg(result.bootstrapSelections.size())
                    .arg(regions.count)
                    .arg(QString::fromStdString(regions.method))
                    .arg(regions.settings.bootstrapSeed));
    else
        logLine(MessageSeverity::Info,
                tr("Jackknife: %1 regions (%2); σ(θ) in the w_err column, covariance in the "
                   "Covariance tab")
                    .arg(regions.count)
                    .arg(QString::fromStdString(regions.method)));
    if (const CrossRegionWeight weight = result.crossRegionWeight();
        weight != CrossRegionWeight::Simple && !result.hasBootstrap())
        logLine(MessageSeverity::Info,
                tr("Pairs between the region left out and the others counted %1 each "
                   "(cross-region weight '%2')")
                    .arg(jackknifeCrossWeight(weight, regions.count), 0, 'g', 4)
                    .arg(QString::fromUtf8(crossRegionWeightInfo(weight).key)));
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
    // Every warning gets its own log line; one message in the status bar says that there are
    // some. No box: the result is fine to use, and a box on every run repeats the log.
    for (const std::string& warning : regions.warnings)
        logLine(MessageSeverity::Warning, tr("Jackknife: %1").arg(QString::fromStdString(warning)));
    const QString first = QString::fromStdString(regions.warnings.front());
    reportMessage(MessageSeverity::Warning,
                  regions.warnings.size() == 1
                      ? tr("Jackknife regions: %1").arg(first)
                      : tr("Jackknife regions: %1 warnings, listed in the log (first: %2)")
                            .arg(regions.warnings.size())
                            .arg(first),
                  MessageBoxUse::Never);
}

void MainWindow::onRunFailed(const QString& message) {
    showRunEnded();
    m_runPanel->showFailed();
    // The previous result stays on screen: a failed run does not erase finished work.
    if (const ResultPtr result = currentResult())
        m_plotPanel->setResult(result, false);
    else
        m_plotPanel->clear();
    reportMessage(MessageSeverity::Error, tr("The run failed: %1").arg(message));
    Q_EMIT runFailed(message);
}

void MainWindow::onRunCancelled() {
    showRunEnded();
    m_runPanel->showCancelled();
    if (const ResultPtr result = currentResult())
        m_plotPanel->setResult(result, false);
    else
        m_plotPanel->clear();
    reportMessage(MessageSeverity::Info, tr("Run cancelled."));
    Q_EMIT runCancelled();
}

} // namespace tpacf::ui
