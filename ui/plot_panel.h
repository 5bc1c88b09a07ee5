#pragma once
// The Plots panel: "w(θ)" and "Pair counts" (normalised DD, DR, RR) as QCustomPlots in tabs.
// The owner feeds it results; it only draws them (no science here).
#include "job_worker.h"

#include <QPointF>
#include <QVector>
#include <QWidget>

#include <vector>

class QCheckBox;
class QCPErrorBars;
class QCPGraph;
class QCPItemStraightLine;
class QCPTextElement;
class QCustomPlot;
class QTabWidget;

namespace tpacf::ui {

class PlotPanel : public QWidget {
    Q_OBJECT
  public:
    enum class Plot { Correlation = 0, PairCounts = 1 };
    enum class Series { DD = 0, DR = 1, RR = 2 };

    explicit PlotPanel(QWidget* parent = nullptr);

    /// Shows `result` (a partial one while a job runs). Redraws through a queued replot, so
    /// calling this often costs at most one redraw per event-loop pass.
    void setResult(const ResultPtr& result, bool partial);
    void clear();
    const ResultPtr& result() const { return m_result; }

    QCustomPlot* plot(Plot which) const;
    Plot currentPlot() const;
    void setCurrentPlot(Plot which);
    QString plotTitle(Plot which) const;

    /// Log y on the current plot. For w(θ), log y plots |w|: positive values as filled circles,
    /// negative ones as open red circles, so no bin disappears (a log axis cannot show w ≤ 0).
    bool logY(Plot which) const { return m_logY[int(which)]; }
    void setLogY(Plot which, bool on);
    void resetView();

    /// The points drawn, in bin order, skipping non-finite values: (θ centre, w) with the sign
    /// of w kept, and (θ centre, normalised count) per series.
    const QVector<QPointF>& plottedW() const { return m_wPoints; }
    const QVector<QPointF>& plottedCounts(Series series) const {
        return m_countPoints[int(series)];
    }

    /// Hook for jackknife error bars: σ per bin (empty: none). The core's result carries no
    /// errors yet; when it does, the owner passes them here and the w(θ) plot shows them.
    void setWErrors(std::vector<double> sigma);

  Q_SIGNALS:
    /// A one-line value read-out for the position under the cursor ("" when it leaves a plot).
    void readout(const QString& text);

  private:
    QCustomPlot* createPlot();
    void rebuild();
    void rebuildCorrelation();
    void rebuildCounts();
    void applyAxes(Plot which);
    void onMouseMove(Plot which, QMouseEvent* event);

    QTabWidget* m_tabs = nullptr;
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
    QCPGraph* m_countGraphs[3] = {nullptr, nullptr, nullptr};

    ResultPtr m_result;
    bool m_partial = false;
    bool m_logY[2] = {true, true};
    bool m_userMovedView[2] = {false, false};
    std::vector<double> m_sigma;
    QVector<QPointF> m_wPoints;
    QVector<QPointF> m_countPoints[3];
};

} // namespace tpacf::ui
