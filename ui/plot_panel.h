// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Plots panel: "w(θ)" (with jackknife error bars when the result has them), "Pair counts"
// (normalised DD, DR, RR; in cross mode D1D2, D1R2, R1D2, R1R2) and "Covariance" as QCustomPlots in
// tabs. The owner feeds it results; it only draws them (no science here).
#include "job_worker.h"

#include <QPointF>
#include <QVector>
#include <QWidget>

#include <vector>

class QCheckBox;
class QLabel;
class QCPErrorBars;
class QCPGraph;
class QCPItemStraightLine;
class QCPTextElement;
class QCustomPlot;
class QTabWidget;

namespace tpacf::ui {

class CovarianceView;

class PlotPanel : public QWidget {
    Q_OBJECT
public:
    enum class Plot { Correlation = 0, PairCounts = 1, Covariance = 2 };
    /// RD (R1D2) is drawn in cross mode only.
    enum class Series { DD = 0, DR = 1, RR = 2, RD = 3 };
    static constexpr int kSeriesCount = 4;

    explicit PlotPanel(QWidget* parent = nullptr);

    /// Shows `result` (a partial one while a job runs), with the result's jackknife σ as error
    /// bars where it has them. Redraws through a queued replot, so calling this often costs at
    /// most one redraw per event-loop pass.
    void setResult(const ResultPtr& result, bool partial);
    void clear();
    const ResultPtr& result() const { return m_result; }
    /// Marks the shown (final) result as computed from previous inputs: a banner over the tabs
    /// and " (previous inputs: press Run)" in the plot titles, so an exported figure says it too.
    /// Kept across setResult(); the owner decides.
    void setStale(bool stale);
    /// A run is in progress: the titles say so, and what is shown (a live estimate and the share
    /// of the pairs behind it, or the previous result until the first one).
    void setRunning(bool running);
    void setLiveCoverage(double fraction);
    bool isStale() const { return m_stale; }

    QCustomPlot* plot(Plot which) const;
    Plot currentPlot() const;
    void setCurrentPlot(Plot which);
    QString plotTitle(Plot which) const;

    /// Log y on the current plot. For w(θ), log y plots |w|: positive values as filled circles,
    /// negative ones as open red circles, so no bin disappears (a log axis cannot show w ≤ 0).
    /// An error bar whose lower end |w| − σ reaches zero runs off the bottom of the plot: the
    /// bin is consistent with zero. The covariance tab has no log y.
    bool logY(Plot which) const { return m_logY[int(which)]; }
    void setLogY(Plot which, bool on);
    void resetView();

    /// The points drawn, in bin order, skipping non-finite values: (θ centre, w) with the sign
    /// of w kept, and (θ centre, normalised count) per series (RD empty unless cross).
    const QVector<QPointF>& plottedW() const { return m_wPoints; }
    const QVector<QPointF>& plottedCounts(Series series) const {
        return m_countPoints[int(series)];
    }
    /// The legend name of a series as drawn now: "DD" or, in cross mode, "D1D2".
    QString seriesName(Series series) const;
    /// Whether a series is drawn (RD only in cross mode).
    bool isSeriesShown(Series series) const;
    /// σ of each point of plottedW() (empty when the result has no error bars).
    const QVector<double>& plottedWErrors() const { return m_wErrorValues; }

    /// Replaces the error bars: σ per bin (empty: none). setResult() sets them from the result.
    void setWErrors(std::vector<double> sigma);

    CovarianceView* covarianceView() const { return m_covariance; }

Q_SIGNALS:
    /// A one-line value read-out for the position under the cursor ("" when it leaves a plot).
    void readout(const QString& text);

private:
    QCustomPlot* createPlot();
    QString runningNote() const;
    void rebuild();
    void rebuildCorrelation();
    void rebuildCounts();
    void applyAxes(Plot which);
    void onMouseMove(Plot which, QMouseEvent* event);

    QTabWidget* m_tabs = nullptr;
    QLabel* m_staleBanner = nullptr;
    QCheckBox* m_logYCheck = nullptr;
    QCustomPlot* m_wPlot = nullptr;
    QCustomPlot* m_countsPlot = nullptr;
    QCPTextElement* m_wTitle = nullptr;
    QCPTextElement* m_countsTitle = nullptr;
    QCPGraph* m_wGraph = nullptr;    // all w (linear y) or w > 0 (log y)
    QCPGraph* m_wNegGraph = nullptr; // |w| where w < 0 (log y only)
    QCPErrorBars* m_wErrors = nullptr;
    QCPErrorBars* m_wNegErrors = nullptr;
    QCPItemStraightLine* m_zeroLine = nullptr;
    QCPGraph* m_countGraphs[kSeriesCount] = {nullptr, nullptr, nullptr, nullptr};
    CovarianceView* m_covariance = nullptr;

    ResultPtr m_result;
    bool m_partial = false;
    bool m_stale = false;
    bool m_running = false;
    double m_liveCoverage = 0; // share of the pairs behind a live estimate
    bool m_logY[3] = {true, true, false};
    bool m_userMovedView[3] = {false, false, false};
    std::vector<double> m_sigma;
    QVector<QPointF> m_wPoints;
    QVector<double> m_wErrorValues;
    double m_wLow = 1, m_wHigh = 0; // y extent of the points and bars; low > high when none
    QVector<QPointF> m_countPoints[kSeriesCount];
};

} // namespace tpacf::ui
