// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Plots panel: "w(θ)" (with jackknife error bars when the result has them), "Pair counts"
// (normalised DD, DR, RR; in cross mode D1D2, D1R2, R1D2, R1R2) and "Covariance" as QCustomPlots in
// tabs. The owner feeds it results; it only draws them (no science here). Under the tabs, the
// power-law fit bar (FitPanel) whose curve is drawn on w(θ). The w(θ) tab is drawn by the figure
// library's CorrelationFigure (ui/figure/), as `tpacf run --plot` draws it. Exports draw a styled
// copy (figureCopy(); plot_panel_figure.cpp).
#include "compare_runs.h"
#include "correlation_figure.h"
#include "figure_style.h"
#include "job_worker.h"

#include <tpacf/power_law_fit.h>

#include <QPointF>
#include <QVector>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QLabel;
class QPushButton;
class QCPAxisRect;
class QCPGraph;
class QCPTextElement;
class QCustomPlot;
class QTabWidget;

namespace tpacf::ui {

class CovarianceView;
class FitPanel;
class FittedTitle;

class PlotPanel : public QWidget {
    Q_OBJECT
public:
    enum class Plot { Correlation = 0, PairCounts = 1, Covariance = 2 };
    /// RD (R1D2) is drawn in cross mode only.
    enum class Series { DD = 0, DR = 1, RR = 2, RD = 3 };
    static constexpr int kSeriesCount = 4;

    explicit PlotPanel(QWidget* parent = nullptr);
    ~PlotPanel() override;

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
    const QVector<QPointF>& plottedW() const { return m_figure->plottedW(); }
    const QVector<QPointF>& plottedCounts(Series series) const {
        return m_countPoints[int(series)];
    }
    /// The legend name of a series as drawn now: "DD" or, in cross mode, "D1D2".
    QString seriesName(Series series) const;
    /// Whether a series is drawn (RD only in cross mode).
    bool isSeriesShown(Series series) const;
    /// σ of each point of plottedW() (empty when the result has no error bars).
    const QVector<double>& plottedWErrors() const { return m_figure->plottedWErrors(); }

    /// Replaces the error bars: σ per bin (empty: none). setResult() sets them from the result.
    void setWErrors(std::vector<double> sigma);

    CovarianceView* covarianceView() const { return m_covariance; }

    /// The fit bar under the plots (hidden until the "Fit" button shows it).
    FitPanel* fitPanel() const { return m_fitPanel; }
    QPushButton* fitButton() const { return m_fitButton; }
    /// The fitted curve drawn on w(θ) (the fit bar sets it); nullopt: none.
    const std::optional<FitCurve>& fitCurve() const { return m_fit; }
    void setFitCurve(std::optional<FitCurve> fit);
    /// The curve as drawn: (θ, model w) in the plot's θ unit; empty when none is shown.
    QVector<QPointF> plottedFit() const;

    /// The style exports use (File > Export Plot, saved with the session). Not applied on
    /// screen, where the plots stay interactive; the export dialog previews it.
    const FigureStyle& exportStyle() const { return m_exportStyle; }
    void setExportStyle(const FigureStyle& style);
    /// The bins the next run will count (edges in `unit`; empty or no unit: none valid): an
    /// empty plot frames them and names their unit on the θ axis.
    void setPendingBins(std::vector<double> edges, std::optional<AngleUnit> unit);
    /// Points at each bin's ⟨θ⟩ of DD (FigureStyle::pointsAtMeanTheta): the one part of the
    /// export style the screen shows too, so that the plot looks as the export will.
    bool pointsAtMeanTheta() const { return m_exportStyle.pointsAtMeanTheta; }
    void setPointsAtMeanTheta(bool on);

    /// A hidden panel that draws what this one shows (result, error bars, log y, the stale and
    /// running marks, the fit, the covariance mode) with `style`'s axes, θ unit, markers and
    /// error bars; the view is fitted to the data or the style's ranges, not this panel's pan
    /// and zoom. Fonts, title and legend are the export's (plot_export.h, exportFigure()).
    std::unique_ptr<PlotPanel> figureCopy(const FigureStyle& style) const;
    /// Other runs drawn beside the result (plot_panel_compare.cpp): each visible overlay on
    /// w(θ) and the counts in its colour with its legend entry, and under w(θ) the ratio or
    /// difference panel against the reference, on the bins it shares with each run.
    void setComparison(const Comparison& comparison);
    const Comparison& comparison() const;
    /// Why the panel leaves a run out (other bins), or that it has no reference; "" when none.
    QString comparisonMessage() const;
    /// The w graph of overlay `index` (w > 0 only on log y); null when it is hidden or absent.
    QCPGraph* overlayGraph(int index) const;
    /// The panel's graph of a run (Comparison::kCurrentRun or an overlay index); null when the
    /// run is the reference, refused, or there is no panel.
    QCPGraph* comparisonGraph(int run) const;
    /// The axes of the panel under w(θ); null when no panel is shown.
    QCPAxisRect* comparisonRect() const;

    /// The style this panel draws with (set on copies only).
    const std::optional<FigureStyle>& drawingStyle() const { return m_style; }

Q_SIGNALS:
    /// A one-line value read-out for the position under the cursor ("" when it leaves a plot).
    void readout(const QString& text);
    /// pointsAtMeanTheta() changed (the View menu's check follows it).
    void pointsAtMeanThetaChanged(bool on);

private:
    QCustomPlot* createPlot();
    QString runningNote() const;
    void rebuild();
    void rebuildCorrelation();
    void rebuildCounts();
    void applyAxes(Plot which);
    void onMouseMove(Plot which, QMouseEvent* event);
    // plot_panel_figure.cpp: the drawing style.
    // plot_panel_compare.cpp: overlays and the ratio / difference panel.
    struct ComparisonPlots;
    void createComparisonPlots();
    void rebuildComparison(bool logAxis);
    void rebuildComparisonPanel();
    void createComparisonRect();
    void rebuildCountOverlays(bool logAxis);
    void finishComparisonAxes();
    double thetaScaleOf(const LoadedResult& table) const;
    void applyStyleToGraphs();
    void applyStyleRanges(Plot which);
    bool drawnLogX() const;
    bool drawnLogY(Plot which) const;
    /// θ in the plot's unit per θ in the bins' unit (1 without a style's θ unit).
    double thetaScale() const;
    QString thetaAxisLabel() const;

    QTabWidget* m_tabs = nullptr;
    QLabel* m_staleBanner = nullptr;
    QCheckBox* m_logYCheck = nullptr;
    QCustomPlot* m_wPlot = nullptr;
    QCustomPlot* m_countsPlot = nullptr;
    std::unique_ptr<CorrelationFigure> m_figure; // draws on m_wPlot
    QCPTextElement* m_countsTitle = nullptr;
    FittedTitle* m_wTitleFit = nullptr;      // the titles on screen, elided to their plots
    FittedTitle* m_countsTitleFit = nullptr;
    QCPGraph* m_countGraphs[kSeriesCount] = {nullptr, nullptr, nullptr, nullptr};
    CovarianceView* m_covariance = nullptr;
    FitPanel* m_fitPanel = nullptr;
    QPushButton* m_fitButton = nullptr;
    std::optional<FitCurve> m_fit;
    FigureStyle m_exportStyle;
    std::optional<FigureStyle> m_style;
    ComparisonPlots* m_comparisonPlots = nullptr; // owned; complete in plot_panel_compare.cpp

    ResultPtr m_result;
    bool m_partial = false;
    bool m_stale = false;
    bool m_running = false;
    double m_liveCoverage = 0; // share of the pairs behind a live estimate
    bool m_logY[3] = {true, true, false};
    bool m_userMovedView[3] = {false, false, false};
    std::vector<double> m_sigma;
    // The y extent of the points and bars, the overlays' included; low > high when none.
    double m_wLow = 1, m_wHigh = 0;
    QVector<QPointF> m_countPoints[kSeriesCount];
    std::vector<double> m_pendingEdges;     // setPendingBins
    std::optional<AngleUnit> m_pendingUnit; // setPendingBins
};

/// The whole export of one of `panel`'s plots: a hidden styled copy (PlotPanel::figureCopy), laid
/// out by styleFigure() and written by writeFigure() (plot_export.h). Fails on an invalid style
/// or a suffix other than .png, .pdf (or .svg where supported).
bool exportFigure(const PlotPanel& panel, PlotPanel::Plot which, const FigureStyle& style,
                  const QString& path, QString* error);

} // namespace tpacf::ui
