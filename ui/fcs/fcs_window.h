// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tools > FCS / time correlation: a photon stream (simulated, raw uint8 frames or ASCII columns)
// streamed through a multi-tau correlator on a worker thread, G(tau) redrawn as frames arrive,
// with the simulated stream's expectation, a per-channel selector and, for a square number of
// channels (a 32 x 32 SPAD array), the map of one lag's G over the array.
#include "fcs_worker.h"

#include <tpacf/multitau.h>

#include <QMainWindow>
#include <QThread>
#include <QVector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMessageBox;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QCustomPlot;
class QCPColorMap;

namespace tpacf::ui {

class FcsWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit FcsWindow(fcs::CorrelatorRegistry correlators, QWidget* parent = nullptr);
    ~FcsWindow() override;

    // For tests and scripts: the controls' values, and what is on screen.
    enum class Source { Simulate = 0, RawFile = 1, AsciiFile = 2 };
    void setSource(Source source);
    void setSimulation(const fcs::FcsSimulationParams& params, std::uint64_t frames);
    void setFile(const QString& path, std::size_t rawChannels = 0);
    void setChunkFrames(std::size_t frames) { m_chunkFrames = frames; }
    bool run();
    void stop();
    bool isRunning() const;
    FcsCountsPtr counts() const { return m_counts; }
    /// The G curve as plotted (lags with tau > 0, in lagsOf order) and its tau in seconds.
    QVector<double> plottedTau() const;
    QVector<double> plottedG() const;
    QString lastError() const { return m_lastError; }
    /// A map cell's width over its height on screen (1: square); 0 before the map is laid out.
    double mapCellAspect() const;
    QString statusText() const;
    /// -1: the mean over channels, else a channel.
    void setChannel(int channel);
    bool exportCsv(const QString& path);
    bool exportPlot(const QString& path); // .png or .pdf by suffix
    bool hasMap() const;
    /// The channel map (its axes' ticks name only the detector's columns and rows).
    QCustomPlot* mapPlot() const { return m_mapPlot; }
    /// Beside the map where there is none: why (before a run, or not a square array).
    QString mapNote() const;

Q_SIGNALS:
    void runEnded();

private:
    void buildUi();
    void onProgress(const FcsCountsPtr& counts, double fraction);
    void onFinished(const FcsCountsPtr& counts, const QString& backend, const QString& device,
                    double seconds);
    void onCancelled(const FcsCountsPtr& counts);
    void onFailed(const QString& message);
    void setRunning(bool running);
    void showCounts(const FcsCountsPtr& counts);
    void redrawCurve();
    void redrawMap();
    void squareMapCells();
    void refillSelectors();
    void updateSourceWidgets();
    void browse();
    void reportError(const QString& title, const QString& message);
    void exportCsvInteractive();
    void exportPlotInteractive();
    fcs::MultiTauSettings settings() const;

    fcs::CorrelatorRegistry m_correlators;
    QThread m_thread;
    FcsWorker* m_worker = nullptr;
    FcsCountsPtr m_counts;
    std::vector<double> m_expected; // simulated runs: G expected at each lag
    fcs::FcsSimulationParams m_runSimulation;
    QString m_runInput;
    QString m_backendName, m_deviceName;
    double m_seconds = 0;
    bool m_completed = false;
    QString m_lastError;
    std::size_t m_chunkFrames = 1u << 14;

    QComboBox* m_source = nullptr;
    QStackedWidget* m_sourcePages = nullptr;
    QDoubleSpinBox* m_particles = nullptr;
    QDoubleSpinBox* m_tauD = nullptr;
    QSpinBox* m_simChannels = nullptr;
    QSpinBox* m_frames = nullptr;
    QLineEdit* m_path = nullptr;
    QSpinBox* m_rawChannels = nullptr;
    QSpinBox* m_lagsPerLevel = nullptr;
    QSpinBox* m_levels = nullptr;
    QDoubleSpinBox* m_frameMicros = nullptr;
    QComboBox* m_backend = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QComboBox* m_channel = nullptr;
    QComboBox* m_mapLag = nullptr;
    QPushButton* m_exportCsv = nullptr;
    QPushButton* m_exportPlot = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCustomPlot* m_mapPlot = nullptr;
    QCPColorMap* m_map = nullptr;
    QLabel* m_mapNote = nullptr;
    QMessageBox* m_errorBox = nullptr;
};

} // namespace tpacf::ui
