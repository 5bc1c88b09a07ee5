// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow: catalogs as the window presents them — opening and adding files (the bundled
// sample among them), queueing each change to the catalog set's loader, what the window shows,
// logs and asks when a change is applied or fails, and which inputs are enabled meanwhile.
// Construction and docks are in main_window.cpp.
#include "main_window.h"

#include "backend_panel.h"
#include "binning_panel.h"
#include "catalogs_panel.h"
#include "column_mapping_dialog.h"
#include "errors_panel.h"
#include "fit_panel.h"
#include "plot_panel.h"
#include "sky_plot.h"

#include <tpacf/catalog_reader.h>
#include <tpacf/errors.h>

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>

namespace tpacf::ui {

namespace {

const QString kSampleData = QStringLiteral(":/samples/sample_data.txt");
const QStringList kSampleRandoms = {QStringLiteral(":/samples/sample_random_1.txt"),
                                    QStringLiteral(":/samples/sample_random_2.txt")};

} // namespace

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
        m_backendPanel->setMeanSeparation(intent.settings->meanSeparation);
        m_backendPanel->setBackendOptions(intent.settings->backend);
        m_errorsPanel->setSettings(intent.settings->errors);
        m_plotPanel->setExportStyle(intent.settings->figure);
        if (intent.mask && intent.mask->first.isEmpty())
            clearMask();
        else if (intent.mask)
            setMaskFile(intent.mask->first, intent.mask->second);
    }
    if (intent.history)
        restoreHistory(*intent.history);
    if (intent.fit && intent.history && !intent.history->isEmpty()) {
        // The fit bar shows with it (A, γ, χ²/dof), as when it was saved.
        if (m_plotPanel->fitPanel()->fitWith(*intent.fit))
            m_plotPanel->fitButton()->setChecked(true);
        else
            logLine(MessageSeverity::Warning,
                    tr("The session's power-law fit could not be made again: %1")
                        .arg(m_plotPanel->fitPanel()->lastError()));
    }
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
        // A random read again in place (a remedy) keeps its index: that one, not the last.
        const int replaced = intent.change ? intent.change->replaceRandom : -1;
        const QList<LoadedCatalog> recorded =
            replaced >= 0 && replaced < m_catalogs->randoms().size() && intent.randomCount == 1
                ? QList<LoadedCatalog>{m_catalogs->randoms()[replaced]}
                : randoms;
        // Randoms first, so the data file ends up on top of the list.
        for (auto it = recorded.crbegin(); it != recorded.crend(); ++it)
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
    std::vector<std::shared_ptr<const Catalog>> randoms2;
    for (const LoadedCatalog& random : m_catalogs->randoms2())
        randoms2.push_back(random.catalog);
    m_skyPlot->setCatalogs(dataCatalog(), randomCatalogs(),
                           m_catalogs->data2() ? m_catalogs->data2()->catalog : nullptr,
                           std::move(randoms2));
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

} // namespace tpacf::ui
