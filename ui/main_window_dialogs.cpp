// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, part five: the file dialogs behind the menu actions (catalogs, sessions, exports)
// and the About box. (main_window_menus.cpp builds the actions and menus.)
#include "main_window.h"

#include "catalogs_panel.h"
#include "covariance_view.h"
#include "figure_dialog.h"
#include "mask_randoms_dialog.h"
#include "plot_panel.h"

#include <tpacf/catalog_formats.h>
#include <tpacf/mock.h>
#include <tpacf/regions_file.h>
#include <tpacf/sky_mask.h>
#include <tpacf/version.h>

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QPromise>
#include <QThreadPool>

namespace tpacf::ui {

namespace {

// The first pattern's suffix of a chosen save filter ("FITS tables (*.fits *.fit)" -> ".fits"):
// a name typed without one gets it, and with it the form the filter names.
QString suffixOfFilter(const QString& filter) {
    const qsizetype star = filter.indexOf(QStringLiteral("*."));
    if (star < 0)
        return QStringLiteral(".ecsv");
    qsizetype end = star + 1;
    while (end < filter.size() && (filter[end].isLetterOrNumber() || filter[end] == QLatin1Char('.')))
        ++end;
    return filter.mid(star + 1, end - star - 1);
}

// Asks where a table goes (one filter per form the writers take, `filters`), starting at
// `suggested`: the path, with the chosen filter's suffix where none was typed; "" if cancelled.
QString askTablePath(QWidget* parent, const QString& title, const QString& suggested,
                     const QString& filters) {
    QString filter;
    QString path = QFileDialog::getSaveFileName(parent, title, suggested, filters, &filter);
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty())
        path += suffixOfFilter(filter);
    return path;
}

} // namespace

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

void MainWindow::openData2Dialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Second Data Catalog"),
                                                      m_lastDirectory, catalogFileFilter());
    if (!path.isEmpty())
        openSecondSampleFile(path, false);
}

void MainWindow::addRandom2Dialog() {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Add Random Catalogs of the Second Sample"), m_lastDirectory, catalogFileFilter());
    if (!paths.isEmpty())
        openCatalogFiles(paths, false, true);
}

void MainWindow::removeSelectedRandom() {
    if (const int index2 = m_catalogsPanel->selectedRandom2Index(); index2 >= 0) {
        removeSecondRandomCatalog(index2);
        return;
    }
    int index = m_catalogsPanel->selectedRandomIndex();
    if (index < 0) // nothing or the data selected: remove the last random set
        index = int(m_catalogs->randoms().size()) - 1;
    removeRandomCatalog(index);
}

// The points are drawn and written on a worker thread (10^7 of them take a few seconds), then
// read back as any random catalog is, so the file is what the run counts.
void MainWindow::makeRandomsFromMaskDialog() {
    const auto data = m_catalogs->dataCatalog();
    const qint64 suggested = data ? qint64(std::max<std::size_t>(10 * data->size(), 10000)) : 100000;
    MaskRandomsDialog dialog(m_lastDirectory, suggested, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const MaskRandomsRequest request = dialog.request();
    logLine(MessageSeverity::Info, tr("Drawing %L1 random points inside %2…")
                                       .arg(request.count)
                                       .arg(QDir::toNativeSeparators(request.maskPath)));
    m_maskRandomsAction->setEnabled(false);
    struct Outcome {
        QString error, note;
    };
    auto promise = std::make_shared<QPromise<Outcome>>();
    QFuture<Outcome> future = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start([promise, request] {
        Outcome outcome;
        try {
            const SkyMask mask = readSkyMask(request.maskPath.toStdString());
            const std::string path = request.outputPath.toStdString();
            const Catalog randoms = generateRandomsInMask(
                static_cast<std::size_t>(request.count), mask, request.seed, path);
            const std::string note = maskRandomsNote(mask, request.seed, randoms.size());
            writeCatalogAscii(path, randoms, {note});
            outcome.note = QString::fromStdString(note);
        } catch (const std::exception& error) {
            outcome.error = QString::fromStdString(error.what());
        }
        promise->addResult(outcome);
        promise->finish();
    });
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, request] {
        watcher->deleteLater();
        m_maskRandomsAction->setEnabled(true);
        const Outcome outcome = watcher->future().result();
        if (!outcome.error.isEmpty()) {
            reportMessage(MessageSeverity::Error,
                          tr("No randoms were made from the mask: %1").arg(outcome.error));
            return;
        }
        logLine(MessageSeverity::Info,
                tr("Wrote %1 to %2.").arg(outcome.note, QDir::toNativeSeparators(request.outputPath)));
        openCatalogFiles({request.outputPath}, false);
    });
    watcher->setFuture(future);
}

void MainWindow::saveRegionsDialog() {
    const ResultPtr result = currentResult();
    if (!result || !result->jackknifeRegions.definition)
        return;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Save Jackknife Regions"), QDir(m_lastDirectory).filePath(tr("regions.json")),
        tr("Regions files (*.json)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    saveRegions(path);
}

bool MainWindow::saveRegions(const QString& path) {
    const ResultPtr result = currentResult();
    if (!result || !result->jackknifeRegions.definition || refuseOverwritingCatalog(path, tr("regions file")))
        return false;
    try {
        writeRegionsFile(QFile::encodeName(path).toStdString(), *result->jackknifeRegions.definition);
    } catch (const std::exception& error) {
        reportMessage(MessageSeverity::Error, QString::fromStdString(error.what()));
        return false;
    }
    reportMessage(MessageSeverity::Info,
                  tr("Jackknife regions (%1) saved to %2")
                      .arg(QString::fromStdString(result->jackknifeRegions.definition->method),
                           QDir::toNativeSeparators(path)));
    return true;
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
    if (!currentResult())
        return;
    const QString path = askTablePath(
        this, tr("Export Results"), QDir(exportDirectory()).filePath(tr("wtheta.ecsv")),
        tr("ECSV tables (*.ecsv *.csv);;FITS tables (*.fits *.fit *.fts);;VOTables (*.vot "
           "*.xml);;JSON (*.json)"));
    if (!path.isEmpty())
        exportResultCsv(path);
}

void MainWindow::saveRunAsJobFileDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Run as Job File"), QDir(exportDirectory()).filePath(tr("job.toml")),
        tr("Job files (*.toml);;All files (*)"));
    if (!path.isEmpty())
        saveRunAsJobFile(path);
}

void MainWindow::exportCovarianceDialog() {
    if (!currentResult() || !currentResult()->hasJackknife())
        return;
    const QString path = askTablePath(
        this, tr("Export Covariance"),
        QDir(exportDirectory()).filePath(tr("wtheta_covariance.ecsv")),
        tr("ECSV tables (*.ecsv *.csv);;FITS tables (*.fits *.fit *.fts);;VOTables (*.vot *.xml)"));
    if (!path.isEmpty())
        exportCovarianceCsv(path);
}

void MainWindow::exportPlotDialog() {
    if (!currentResult())
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
        this, tr("Export Plot"), QDir(exportDirectory()).filePath(base + QStringLiteral(".png")),
        figureFileFilter(), &selectedFilter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += selectedFilter.contains(QStringLiteral("pdf"))   ? QStringLiteral(".pdf")
                : selectedFilter.contains(QStringLiteral("svg")) ? QStringLiteral(".svg")
                                                                 : QStringLiteral(".png");
    PlotExportDialog dialog(*m_plotPanel, which, m_plotPanel->exportStyle(),
                            figureFormatFor(path).value_or(FigureFormat::Png), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_plotPanel->setExportStyle(dialog.style()); // kept with the session
    exportPlot(int(which), path);
}

void MainWindow::showAbout() {
    QStringList lines;
    if (m_backends.modules().empty())
        lines.append(tr("GPU: no GPU module"));
    for (const auto& module : m_backends.modules()) {
        const QString versions = QString::fromStdString(module->versionDescription());
        const auto devices = module->devices();
        if (!versions.isEmpty())
            lines.append(versions.toHtmlEscaped());
        if (devices.empty())
            lines.append(tr("%1: %2").arg(
                QString::fromStdString(module->displayName()).toHtmlEscaped(),
                QString::fromStdString(module->unavailableReason()).toHtmlEscaped()));
        for (const GpuDeviceInfo& device : devices)
            lines.append(tr("GPU %1: %2, %3 GiB, compute %4.%5, %6 SMs")
                             .arg(device.index)
                             .arg(QString::fromStdString(device.name).toHtmlEscaped())
                             .arg(double(device.memoryBytes) / double(1ull << 30), 0, 'f', 1)
                             .arg(device.computeMajor)
                             .arg(device.computeMinor)
                             .arg(device.multiprocessors));
    }
    const QString gpuText = lines.join(QStringLiteral("<br>"));
    QMessageBox::about(
        this, tr("About TPACF Studio"),
        tr("<h3>TPACF Studio %1</h3>"
           "<p>The two-point angular correlation function w(θ) of astronomical catalogs, "
           "on GPU and CPU.</p>"
           "<p>Qt %2 (built with %3)<br>%4</p>"
           "<p>Free software under the GNU General Public License, version 3 or (at your "
           "option) any later version (GPL-3.0-or-later), without any warranty: see "
           "<a href=\"https://www.gnu.org/licenses/gpl-3.0.html\">the licence</a>. It plots "
           "with QCustomPlot by Emanuel Eichhammer, itself under the GPL-3.0-or-later; Qt is "
           "used under the LGPL-3.0.</p>")
            .arg(QString::fromLatin1(tpacf::version()), QString::fromLatin1(qVersion()),
                 QStringLiteral(QT_VERSION_STR), gpuText));
}

} // namespace tpacf::ui
