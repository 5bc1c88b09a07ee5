// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, part three: sessions, exports and the settings kept between starts.
// (main_window.cpp builds and wires the window.)
#include "main_window.h"
#include "fit_panel.h"

#include "backend_panel.h"
#include "binning_panel.h"
#include "errors_panel.h"
#include "command_line_export.h"
#include "plot_panel.h"

#include <tpacf/output_file.h>
#include <tpacf/result_io.h>

#include <qcustomplot.h>

#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

#include <algorithm>

namespace tpacf::ui {

// ----------------------------------------------------------------------------------------------
// Sessions

Session MainWindow::session() const {
    Session session;
    if (const std::optional<LoadedCatalog>& data = m_catalogs->data())
        session.data = data->source;
    for (const LoadedCatalog& random : m_catalogs->randoms())
        session.randoms.append(random.source);
    if (const std::optional<LoadedCatalog>& data2 = m_catalogs->data2())
        session.data2 = data2->source;
    for (const LoadedCatalog& random : m_catalogs->randoms2())
        session.randoms2.append(random.source);
    session.settings.bins = m_binningPanel->spec();
    session.settings.estimator = m_backendPanel->estimator();
    session.settings.meanSeparation = m_backendPanel->meanSeparation();
    session.settings.backend = m_backendPanel->backendOptions();
    session.settings.errors = m_errorsPanel->settings();
    session.settings.figure = m_plotPanel->exportStyle();
    session.history = m_history->records();
    if (m_plotPanel->fitPanel()->currentFit())
        session.fit = m_plotPanel->fitPanel()->options();
    session.mask = m_maskPath;
    session.maskThreshold = m_maskThreshold;
    return session;
}

namespace {

// A session's catalogs, replacing the window's.
CatalogChange sessionCatalogs(const Session& session) {
    CatalogChange change;
    change.replaceAll = true;
    change.data = session.data;
    change.randoms = session.randoms;
    change.data2 = session.data2;
    change.randoms2 = session.randoms2;
    return change;
}

} // namespace

bool MainWindow::applySession(const Session& session) {
    return queueCatalogChange(sessionCatalogs(session), LoadIntent::session(session));
}

bool MainWindow::saveSession(const QString& path) {
    if (refuseOverwritingCatalog(path, tr("session")))
        return false;
    QString error;
    if (!saveSessionFile(path, session(), &error)) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    m_recentFiles->add({RecentRole::Session, CatalogSource{path}});
    reportMessage(MessageSeverity::Info, tr("Session saved to %1").arg(path));
    return true;
}

bool MainWindow::loadSession(const QString& path) {
    if (isRunning())
        return false;
    QString error;
    const std::optional<Session> loaded = loadSessionFile(path, &error);
    if (!loaded) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    if (loaded->droppedRuns > 0)
        reportMessage(MessageSeverity::Warning,
                      tr("%1: %2 saved run(s) could not be read back and were left out")
                          .arg(path)
                          .arg(loaded->droppedRuns));
    // Remembered and reported once its catalogs are read (onChangeApplied); its runs are
    // shown then, without counting again.
    return queueCatalogChange(sessionCatalogs(*loaded), LoadIntent::session(*loaded, path));
}

// ----------------------------------------------------------------------------------------------
// Export

bool MainWindow::refuseOverwritingCatalog(const QString& path, const QString& what) {
    const CatalogSource* source = m_catalogs->loadedSourceAt(path);
    if (!source)
        return false;
    reportMessage(MessageSeverity::Error,
                  tr("Not written: %1 is the loaded catalog %2; writing the %3 there would "
                     "destroy it. Choose another file name.")
                      .arg(path, source->displayName(), what));
    return true;
}

bool MainWindow::exportResultCsv(const QString& path) {
    const ResultPtr result = currentResult();
    if (!result) {
        reportMessage(MessageSeverity::Warning, tr("There is no result to export yet."));
        return false;
    }
    if (refuseOverwritingCatalog(path, tr("results")))
        return false;
    try {
        // The same writers as the CLI, the form chosen by the name as there (.fits, .vot, .json,
        // else ECSV), so the two files are identical for the same run.
        const std::string name = QFile::encodeName(path).toStdString();
        writeResultFile(name, *result, tableFormatOfPath(name));
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, describeReadError(error));
        return false;
    }
    reportMessage(MessageSeverity::Info,
                  isResultStale()
                      ? tr("Results written to %1 (the result of previous inputs, as its header "
                           "lists them)")
                            .arg(path)
                      : tr("Results written to %1").arg(path));
    rememberExportFolder(path);
    return true;
}

bool MainWindow::exportCovarianceCsv(const QString& path) {
    const ResultPtr result = currentResult();
    if (!result || !result->hasJackknife()) {
        reportMessage(MessageSeverity::Warning,
                      tr("There is no covariance to export: run with jackknife errors first."));
        return false;
    }
    if (refuseOverwritingCatalog(path, tr("covariance")))
        return false;
    try {
        const std::string name = QFile::encodeName(path).toStdString();
        writeCovarianceFile(name, *result, tableFormatOfPath(name));
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, describeReadError(error));
        return false;
    }
    reportMessage(MessageSeverity::Info,
                  isResultStale()
                      ? tr("Covariance written to %1 (the result of previous inputs)").arg(path)
                      : tr("Covariance written to %1").arg(path));
    rememberExportFolder(path);
    return true;
}

bool MainWindow::saveRunAsJobFile(const QString& path) {
    if (refuseOverwritingCatalog(path, tr("job file")))
        return false;
    const RunCommandLine command =
        runCommandLine(session(), {QStringLiteral("wtheta.ecsv"),
                                   QStringLiteral("wtheta_covariance.ecsv")});
    try {
        writeFileAtomically(QFile::encodeName(path).toStdString(),
                            command.jobFileText().toStdString());
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, describeReadError(error));
        return false;
    }
    for (const QString& note : command.notes)
        logLine(MessageSeverity::Warning, tr("Job file: %1").arg(note));
    reportMessage(MessageSeverity::Info,
                  tr("Job file written to %1: run it with tpacf run --config %2")
                      .arg(path, QFileInfo(path).fileName()));
    rememberExportFolder(path);
    return true;
}

bool MainWindow::exportPlot(int plot, const QString& path) {
    return exportPlotAs(plot, path, m_plotPanel->exportStyle());
}

bool MainWindow::exportPlot(int plot, const QString& path, const PlotExportSettings& settings) {
    return exportPlotAs(plot, path, withExportSize(m_plotPanel->exportStyle(), settings));
}

bool MainWindow::exportPlotAs(int plot, const QString& path, const FigureStyle& style) {
    if (refuseOverwritingCatalog(path, tr("plot")))
        return false;
    QString error;
    if (!exportFigure(*m_plotPanel, PlotPanel::Plot(plot), style, path, &error)) {
        reportMessage(MessageSeverity::Error, error);
        return false;
    }
    // A figure of a stale result carries the plot's "previous inputs" title.
    reportMessage(MessageSeverity::Info,
                  isResultStale()
                      ? tr("Plot written to %1 (the result of previous inputs)").arg(path)
                      : tr("Plot written to %1").arg(path));
    rememberExportFolder(path);
    return true;
}

void MainWindow::rememberExportFolder(const QString& path) {
    m_lastExportDirectory = QFileInfo(path).absolutePath();
    m_plotPanel->fitPanel()->setExportFolder(m_lastExportDirectory);
}

QString MainWindow::exportDirectory() const {
    return m_lastExportDirectory.isEmpty() ? m_lastDirectory : m_lastExportDirectory;
}

// ----------------------------------------------------------------------------------------------
// Settings

void MainWindow::restoreSettings() {
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    // Dock sizes saved on a larger screen would squeeze the panels on this one (clipped combo
    // boxes, a horizontal scroll bar): the default layout for this screen instead.
    const QSize savedOn = settings.value(QStringLiteral("window/screen")).toSize();
    const QSize screen = availableScreenSize();
    if (savedOn.isValid() && (savedOn.width() > screen.width() || savedOn.height() > screen.height()))
        logLine(MessageSeverity::Info,
                tr("The window layout of the last start was made on a larger screen (%1 × %2): "
                   "the default layout for this one (%3 × %4) is shown instead.")
                    .arg(savedOn.width())
                    .arg(savedOn.height())
                    .arg(screen.width())
                    .arg(screen.height()));
    else
        m_checkRestoredLayout =
            restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    // A geometry saved on a larger screen still opens inside this one.
    fitToScreen(size());
    m_recentFiles->restore(settings);
    m_lastDirectory = settings.value(QStringLiteral("lastDirectory"), QDir::homePath()).toString();
    m_lastExportDirectory = settings.value(QStringLiteral("lastExportDirectory")).toString();
    m_plotPanel->fitPanel()->setExportFolder(exportDirectory());
    m_exportSettings.widthPx = settings.value(QStringLiteral("export/width"), 1800).toInt();
    m_exportSettings.heightPx = settings.value(QStringLiteral("export/height"), 1200).toInt();
    m_exportSettings.dpi = settings.value(QStringLiteral("export/dpi"), 300).toInt();
    const QByteArray last = settings.value(QStringLiteral("lastSettings")).toByteArray();
    if (!last.isEmpty()) {
        const RunSettings run = RunSettings::fromJson(QJsonDocument::fromJson(last).object());
        m_binningPanel->setSpec(run.bins);
        m_backendPanel->setEstimator(run.estimator);
        m_backendPanel->setMeanSeparation(run.meanSeparation);
        m_backendPanel->setBackendOptions(run.backend);
        m_errorsPanel->setSettings(run.errors);
        m_plotPanel->setExportStyle(run.figure);
    }
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/screen"), availableScreenSize());
    m_recentFiles->save(settings);
    settings.setValue(QStringLiteral("lastDirectory"), m_lastDirectory);
    settings.setValue(QStringLiteral("lastExportDirectory"), m_lastExportDirectory);
    settings.setValue(QStringLiteral("export/width"), m_exportSettings.widthPx);
    settings.setValue(QStringLiteral("export/height"), m_exportSettings.heightPx);
    settings.setValue(QStringLiteral("export/dpi"), m_exportSettings.dpi);
    settings.setValue(QStringLiteral("lastSettings"),
                      QJsonDocument(session().settings.toJson()).toJson(QJsonDocument::Compact));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    // Quitting throws the running count away: ask first (the run goes on if the answer is no).
    if (isRunning() &&
        !confirm(tr("A run is in progress. Cancel it and quit? Its pair counts so far are lost."),
                 tr("Cancel the Run and Quit"))) {
        event->ignore();
        return;
    }
    if (!keepAutoSession()) {
        event->ignore();
        return;
    }
    if (m_options.useSettings)
        saveSettings();
    m_run->worker()->requestCancel();
    event->accept();
}

namespace {

// Every catalog of a session.
QList<CatalogSource> catalogSources(const Session& session) {
    QList<CatalogSource> sources = session.randoms + session.randoms2;
    if (session.data)
        sources.append(*session.data);
    if (session.data2)
        sources.append(*session.data2);
    return sources;
}

// Whether a session holds work worth keeping across a quit: a run, or a catalog the user chose
// (the bundled sample alone comes back by itself).
bool holdsWork(const Session& session) {
    if (!session.history.isEmpty())
        return true;
    const QList<CatalogSource> sources = catalogSources(session);
    return std::any_of(sources.cbegin(), sources.cend(),
                       [](const CatalogSource& source) { return !source.isResource(); });
}

// The catalog files of a session that no longer exist.
QStringList missingCatalogs(const Session& session) {
    QStringList missing;
    for (const CatalogSource& source : catalogSources(session))
        if (!source.isResource() && !QFileInfo::exists(source.path))
            missing.append(source.path);
    return missing;
}

} // namespace

bool MainWindow::keepAutoSession() {
    const QString path = m_options.autoSessionPath;
    if (path.isEmpty())
        return true;
    const Session current = session();
    if (!holdsWork(current)) {
        QFile::remove(path); // an older one would bring back work since replaced
        return true;
    }
    QString error;
    if (QDir().mkpath(QFileInfo(path).absolutePath()) && saveSessionFile(path, current, &error))
        return true;
    if (error.isEmpty())
        error = tr("cannot create the folder %1").arg(QFileInfo(path).absolutePath());
    return confirm(tr("The catalogs, settings and %n run(s) of this window could not be kept for "
                      "the next start: %1\n\nQuit anyway? (File ▸ Save Session… keeps them in a "
                      "file of your choice.)",
                      nullptr, int(current.history.size()))
                       .arg(error),
                   tr("Quit Without Keeping Them"));
}

bool MainWindow::reopenAutoSession() {
    const QString path = m_options.autoSessionPath;
    if (path.isEmpty() || !QFileInfo::exists(path))
        return false;
    QString error;
    const std::optional<Session> kept = loadSessionFile(path, &error);
    if (!kept) {
        logLine(MessageSeverity::Warning,
                tr("The work kept at the last quit could not be reopened (%1); the bundled sample "
                   "is shown instead.")
                    .arg(error));
        return false;
    }
    if (const QStringList missing = missingCatalogs(*kept); !missing.isEmpty()) {
        logLine(MessageSeverity::Warning,
                tr("The work kept at the last quit was not reopened: its catalog %1 no longer "
                   "exists. Its runs are still in %2 (File ▸ Open Session… asks where the "
                   "catalog is now).")
                    .arg(missing.front(), path));
        return false;
    }
    LoadIntent intent = LoadIntent::session(*kept);
    intent.doneMessage =
        tr("Reopened the work of the last quit (its catalogs, settings and %n run(s)), kept "
           "automatically in %1. File ▸ Load Bundled Sample or Open Data Catalog… starts afresh.",
           nullptr, int(kept->history.size()))
            .arg(path);
    return queueCatalogChange(sessionCatalogs(*kept), std::move(intent));
}

bool MainWindow::confirm(const QString& question, const QString& yes) {
    if (m_options.confirm)
        return m_options.confirm(question);
    if (!m_options.interactive)
        return true;
    QMessageBox box(QMessageBox::Question, tr("TPACF Studio"), question, QMessageBox::NoButton,
                    this);
    QPushButton* goOn = box.addButton(yes, QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == goOn;
}

} // namespace tpacf::ui
