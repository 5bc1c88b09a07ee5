// SPDX-License-Identifier: GPL-3.0-or-later
#include "fcs_window.h"

#include "figure_style.h"
#include "plot_export.h"

#include <tpacf/errors.h>
#include <tpacf/fcs_io.h>

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <cmath>
#include <fstream>

namespace tpacf::ui {

namespace {

constexpr int kCpuIndex = 0;

bool isSquare(std::size_t n, int* side) {
    const auto root = static_cast<std::size_t>(std::llround(std::sqrt(double(n))));
    if (n == 0 || root * root != n)
        return false;
    *side = static_cast<int>(root);
    return true;
}

} // namespace

FcsWindow::FcsWindow(fcs::CorrelatorRegistry correlators, QWidget* parent)
    : QMainWindow(parent, Qt::Window), m_correlators(std::move(correlators)) {
    setObjectName(QStringLiteral("fcsWindow"));
    setWindowTitle(tr("FCS / time correlation — TPACF Studio"));
    buildUi();
    m_worker = new FcsWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &FcsWorker::progress, this, &FcsWindow::onProgress);
    connect(m_worker, &FcsWorker::finished, this, &FcsWindow::onFinished);
    connect(m_worker, &FcsWorker::cancelled, this, &FcsWindow::onCancelled);
    connect(m_worker, &FcsWorker::failed, this, &FcsWindow::onFailed);
    m_thread.setObjectName(QStringLiteral("fcs-correlator"));
    m_thread.start();
    resize(1200, 680);
}

FcsWindow::~FcsWindow() {
    m_worker->requestCancel();
    m_thread.quit();
    m_thread.wait();
}

void FcsWindow::updateSourceWidgets() {
    const auto source = static_cast<Source>(m_source->currentIndex());
    m_sourcePages->setCurrentIndex(source == Source::Simulate ? 0 : 1);
    m_rawChannels->setEnabled(source == Source::RawFile);
}

void FcsWindow::setSource(Source source) {
    m_source->setCurrentIndex(static_cast<int>(source));
}

void FcsWindow::setSimulation(const fcs::FcsSimulationParams& params, std::uint64_t frames) {
    setSource(Source::Simulate);
    m_particles->setValue(params.particles);
    m_tauD->setValue(params.tauDFrames);
    m_simChannels->setValue(static_cast<int>(params.channels));
    m_frames->setValue(static_cast<int>(frames));
}

void FcsWindow::setFile(const QString& path, std::size_t rawChannels) {
    setSource(rawChannels ? Source::RawFile : Source::AsciiFile);
    m_path->setText(path);
    if (rawChannels)
        m_rawChannels->setValue(static_cast<int>(rawChannels));
}

void FcsWindow::browse() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open photon counts"), m_path->text(),
        tr("Raw uint8 frames (*.u8 *.bin *.raw);;ASCII columns (*.txt *.csv *.dat);;All files (*)"));
    if (path.isEmpty())
        return;
    const bool raw = !(path.endsWith(QLatin1String(".txt")) ||
                       path.endsWith(QLatin1String(".csv")) ||
                       path.endsWith(QLatin1String(".dat")));
    setSource(raw ? Source::RawFile : Source::AsciiFile);
    m_path->setText(path);
}

fcs::MultiTauSettings FcsWindow::settings() const {
    fcs::MultiTauSettings settings;
    settings.lagsPerLevel = m_lagsPerLevel->value();
    settings.levels = m_levels->value();
    return settings;
}

bool FcsWindow::isRunning() const {
    return m_worker->isBusy();
}

bool FcsWindow::run() {
    if (m_worker->isBusy())
        return false;
    FcsRunRequest request;
    request.settings = settings();
    request.chunkFrames = m_chunkFrames;
    const auto source = static_cast<Source>(m_source->currentIndex());
    m_expected.clear();
    if (source == Source::Simulate) {
        request.source = FcsRunRequest::Source::Simulate;
        request.simulation.channels = static_cast<std::size_t>(m_simChannels->value());
        request.simulation.particles = m_particles->value();
        request.simulation.tauDFrames = m_tauD->value();
        request.frames = static_cast<std::uint64_t>(m_frames->value());
        m_runSimulation = request.simulation;
        m_runInput = tr("simulated: %1, %2 frames")
                         .arg(QString::fromStdString(request.simulation.describe()))
                         .arg(request.frames);
        try {
            request.settings.validate();
            request.simulation.validate();
            m_expected = fcs::expectedMultiTauG(request.simulation, request.settings,
                                                request.frames);
        } catch (const std::exception& error) {
            reportError(tr("Cannot simulate"), QString::fromStdString(error.what()));
            return false;
        }
    } else {
        if (m_path->text().trimmed().isEmpty()) {
            reportError(tr("No file"), tr("Choose a file of photon counts first (Open…)."));
            return false;
        }
        request.source = source == Source::RawFile ? FcsRunRequest::Source::RawFile
                                                   : FcsRunRequest::Source::AsciiFile;
        request.path = m_path->text().trimmed();
        request.rawChannels = static_cast<std::size_t>(m_rawChannels->value());
        m_runInput = request.path;
    }
    const QString moduleName = m_backend->currentData().toString();
    if (m_backend->currentIndex() != kCpuIndex && !moduleName.isEmpty()) {
        const fcs::CorrelatorRegistry correlators = m_correlators;
        const std::string name = moduleName.toStdString();
        request.makeCorrelator = [correlators, name](const fcs::MultiTauSettings& settings,
                                                     std::size_t channels) {
            const fcs::CorrelatorProvider* provider = correlators.find(name);
            if (!provider)
                throw BackendUnavailable("the " + name + " backend has no multi-tau correlator");
            return provider->create(settings, channels, {});
        };
    }
    m_counts.reset();
    m_completed = false;
    m_lastError.clear();
    m_progress->setValue(0);
    m_status->setText(tr("Running…"));
    if (!m_worker->start(std::move(request)))
        return false;
    setRunning(true);
    return true;
}

void FcsWindow::stop() {
    m_worker->requestCancel();
}

void FcsWindow::setRunning(bool running) {
    m_run->setEnabled(!running);
    m_stop->setEnabled(running);
    m_source->setEnabled(!running);
    m_sourcePages->setEnabled(!running);
    m_lagsPerLevel->setEnabled(!running);
    m_levels->setEnabled(!running);
    m_backend->setEnabled(!running);
    m_exportCsv->setEnabled(!running && m_counts);
    m_exportPlot->setEnabled(!running && m_counts);
}

void FcsWindow::onProgress(const FcsCountsPtr& counts, double fraction) {
    if (fraction >= 0)
        m_progress->setValue(static_cast<int>(fraction * 1000));
    m_status->setText(tr("Running… %1 frames").arg(counts->frames));
    showCounts(counts);
}

void FcsWindow::onFinished(const FcsCountsPtr& counts, const QString& backend,
                           const QString& device, double seconds) {
    m_backendName = backend;
    m_deviceName = device;
    m_seconds = seconds;
    m_completed = true;
    m_progress->setValue(1000);
    const double samples = double(counts->frames) * double(counts->channels);
    m_status->setText(tr("%1 frames × %2 channels on %3 in %4 s (%5 samples/s, reading or simulating included)")
                          .arg(counts->frames)
                          .arg(counts->channels)
                          .arg(backend)
                          .arg(seconds, 0, 'f', 2)
                          .arg(seconds > 0 ? samples / seconds : 0.0, 0, 'g', 3));
    showCounts(counts);
    setRunning(false);
    Q_EMIT runEnded();
}

void FcsWindow::onCancelled(const FcsCountsPtr& counts) {
    m_completed = false;
    m_status->setText(counts ? tr("Stopped after %1 frames (G so far).").arg(counts->frames)
                             : tr("Stopped."));
    if (counts)
        showCounts(counts);
    setRunning(false);
    Q_EMIT runEnded();
}

void FcsWindow::onFailed(const QString& message) {
    m_status->setText(tr("Failed."));
    setRunning(false);
    reportError(tr("Correlation failed"), message);
    Q_EMIT runEnded();
}

void FcsWindow::reportError(const QString& title, const QString& message) {
    m_lastError = message;
    // open(), not exec(): the window (and a test driving it) never blocks on the box.
    if (!m_errorBox) {
        m_errorBox = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        m_errorBox->setObjectName(QStringLiteral("fcsError"));
    }
    m_errorBox->setWindowTitle(title);
    m_errorBox->setText(message);
    m_errorBox->open();
}

QString FcsWindow::statusText() const {
    return m_status->text();
}

void FcsWindow::showCounts(const FcsCountsPtr& counts) {
    const bool layoutChanged = !m_counts || m_counts->channels != counts->channels ||
                               m_counts->settings != counts->settings;
    m_counts = counts;
    if (layoutChanged)
        refillSelectors(); // redraws
    else {
        redrawCurve();
        redrawMap();
    }
}

void FcsWindow::refillSelectors() {
    const QSignalBlocker channelBlock(m_channel);
    const QSignalBlocker lagBlock(m_mapLag);
    const int oldChannel = m_channel->currentData().isValid() ? m_channel->currentData().toInt() : -1;
    m_channel->clear();
    m_mapLag->clear();
    if (m_counts) {
        m_channel->addItem(tr("mean of %1").arg(m_counts->channels), -1);
        for (std::size_t c = 0; c < m_counts->channels; ++c)
            m_channel->addItem(tr("channel %1").arg(c), int(c));
        const int found = m_channel->findData(oldChannel);
        m_channel->setCurrentIndex(found >= 0 ? found : 0);
        const double frameSeconds = m_frameMicros->value() * 1e-6;
        const auto lags = fcs::lagsOf(m_counts->settings);
        int firstPositive = -1;
        for (std::size_t i = 0; i < lags.size(); ++i) {
            m_mapLag->addItem(tr("τ = %1 frames (%2 s)")
                                  .arg(lags[i].tauFrames)
                                  .arg(double(lags[i].tauFrames) * frameSeconds, 0, 'g', 3),
                              int(i));
            if (firstPositive < 0 && lags[i].tauFrames > 0)
                firstPositive = int(i);
        }
        m_mapLag->setCurrentIndex(std::max(firstPositive, 0));
    }
    redrawCurve();
    redrawMap();
}

void FcsWindow::setChannel(int channel) {
    const int index = m_channel->findData(channel);
    if (index >= 0)
        m_channel->setCurrentIndex(index);
}

void FcsWindow::redrawCurve() {
    QVector<double> tau, g, expectedTau, expectedG;
    if (m_counts) {
        const double frameSeconds = m_frameMicros->value() * 1e-6;
        const int channel = m_channel->currentData().isValid() ? m_channel->currentData().toInt() : -1;
        const auto lags = fcs::lagsOf(m_counts->settings);
        for (std::size_t i = 0; i < lags.size(); ++i) {
            const auto& lag = lags[i];
            if (lag.tauFrames == 0) // no place on a log axis (and the shot noise spike)
                continue;
            const double value = channel < 0
                                     ? m_counts->meanG(lag.level, lag.j)
                                     : m_counts->g(std::size_t(channel), lag.level, lag.j);
            if (!std::isfinite(value)) // levels with too few coalesced samples yet
                continue;
            tau.push_back(double(lag.tauFrames) * frameSeconds);
            g.push_back(value);
            if (i < m_expected.size()) {
                expectedTau.push_back(tau.back());
                expectedG.push_back(m_expected[i]);
            }
        }
    }
    m_plot->graph(0)->setData(tau, g, true);
    m_plot->graph(1)->setData(expectedTau, expectedG, true);
    m_plot->graph(1)->setVisible(!expectedG.isEmpty());
    m_plot->graph(1)->removeFromLegend();
    if (!expectedG.isEmpty())
        m_plot->graph(1)->addToLegend();
    m_plot->rescaleAxes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void FcsWindow::redrawMap() {
    int side = 0;
    const bool square = m_counts && isSquare(m_counts->channels, &side);
    m_mapPlot->setVisible(square);
    m_mapNote->setVisible(!square);
    if (!square) {
        if (m_counts)
            m_mapNote->setText(tr("The map needs a square number of channels: %1 is not one "
                                  "(16 = 4 × 4 and 1024 = 32 × 32 are).")
                                   .arg(m_counts->channels));
        return;
    }
    const auto lags = fcs::lagsOf(m_counts->settings);
    const int index = m_mapLag->currentData().isValid() ? m_mapLag->currentData().toInt() : 0;
    if (index < 0 || std::size_t(index) >= lags.size())
        return;
    const auto& lag = lags[std::size_t(index)];
    m_map->data()->setSize(side, side);
    m_map->data()->setRange(QCPRange(0, side - 1), QCPRange(0, side - 1));
    for (int row = 0; row < side; ++row)
        for (int col = 0; col < side; ++col) {
            const double value = m_counts->g(std::size_t(row * side + col), lag.level, lag.j);
            m_map->data()->setCell(col, row, std::isfinite(value) ? value : 0.0);
        }
    m_map->rescaleDataRange(true);
    m_mapPlot->yAxis->setRangeReversed(true);
    // Square cells leave room beside the array (squareMapCells): ticks only on its columns and
    // rows, so the axes do not read as if the detector went on there.
    const int step = std::max(1, side / 8);
    for (QCPAxis* axis : {m_mapPlot->xAxis, m_mapPlot->yAxis}) {
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int k = 0; k < side; k += step)
            ticker->addTick(k, QString::number(k));
        axis->setTicker(ticker);
    }
    squareMapCells();
    m_mapPlot->replot(QCustomPlot::rpQueuedReplot);
}

// The detector's pixels are square: the whole array in view, and the longer side of the axis
// rectangle given the extra range, so that a cell is as wide as it is tall whatever the window.
void FcsWindow::squareMapCells() {
    const int side = m_map->data()->keySize();
    if (side <= 0)
        return;
    QCPAxis* x = m_mapPlot->xAxis;
    QCPAxis* y = m_mapPlot->yAxis;
    x->setRange(-0.5, side - 0.5);
    y->setRange(-0.5, side - 0.5);
    const QRect area = m_mapPlot->axisRect()->rect();
    if (area.width() <= 0 || area.height() <= 0)
        return;
    if (area.width() > area.height())
        x->setScaleRatio(y, 1.0);
    else
        y->setScaleRatio(x, 1.0);
}

double FcsWindow::mapCellAspect() const {
    const QRect area = m_mapPlot->axisRect()->rect();
    if (area.width() <= 0 || area.height() <= 0)
        return 0;
    const double xPerPixel = m_mapPlot->xAxis->range().size() / area.width();
    const double yPerPixel = m_mapPlot->yAxis->range().size() / area.height();
    return yPerPixel / xPerPixel; // a cell's width over its height
}

bool FcsWindow::hasMap() const {
    return m_mapPlot->isVisibleTo(const_cast<FcsWindow*>(this));
}

QString FcsWindow::mapNote() const {
    return m_mapNote->isVisibleTo(this) ? m_mapNote->text() : QString();
}

QVector<double> FcsWindow::plottedTau() const {
    QVector<double> out;
    for (auto it = m_plot->graph(0)->data()->constBegin(); it != m_plot->graph(0)->data()->constEnd(); ++it)
        out.push_back(it->key);
    return out;
}

QVector<double> FcsWindow::plottedG() const {
    QVector<double> out;
    for (auto it = m_plot->graph(0)->data()->constBegin(); it != m_plot->graph(0)->data()->constEnd(); ++it)
        out.push_back(it->value);
    return out;
}

bool FcsWindow::exportCsv(const QString& path) {
    if (!m_counts)
        return false;
    std::ofstream out(path.toStdString());
    if (!out) {
        reportError(tr("Export failed"), tr("Cannot write %1").arg(path));
        return false;
    }
    fcs::AutocorrelationInfo info;
    info.frameSeconds = m_frameMicros->value() * 1e-6;
    info.input = m_runInput.toStdString();
    info.backend = m_backendName.isEmpty() ? "cpu" : m_backendName.toStdString();
    info.device = m_deviceName.toStdString();
    info.elapsedSeconds = m_seconds;
    info.completed = m_completed;
    info.invocation = "TPACF Studio, FCS / time correlation";
    try {
        fcs::writeAutocorrelationEcsv(out, *m_counts, info);
    } catch (const std::exception& error) {
        reportError(tr("Export failed"), QString::fromStdString(error.what()));
        return false;
    }
    out.close();
    if (!out) {
        reportError(tr("Export failed"), tr("Cannot write %1").arg(path));
        return false;
    }
    return true;
}

bool FcsWindow::exportPlot(const QString& path) {
    // The w(θ) plots' writer and default figure style: the PDF page and the PNG's pixels are
    // exactly the style's size (6 × 4 in, 300 dpi), SVG where Qt Svg is there.
    QString error;
    const bool ok = writeFigure(m_plot, path, FigureStyle{}, tr("G(τ)"), &error);
    m_plot->replot(); // the writer lays the plot out at the figure's size; restore the screen's
    if (!ok)
        reportError(tr("Export failed"), error);
    return ok;
}

void FcsWindow::exportCsvInteractive() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export G table"),
                                                      QStringLiteral("g.csv"),
                                                      tr("ECSV table (*.csv *.ecsv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void FcsWindow::exportPlotInteractive() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export G plot"),
                                                      QStringLiteral("g.png"),
                                                      figureFileFilter());
    if (!path.isEmpty())
        exportPlot(path);
}

} // namespace tpacf::ui
