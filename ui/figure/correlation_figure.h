// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The w(θ) figure on a QCustomPlot, as Studio's Plots panel shows it and `tpacf run --plot`
// writes it: the points, jackknife error bars, negative w on log y as open red circles (|w|),
// the zero line on linear y, the fitted power law, the legend entries and the title. It draws
// what the core computed; no science here.
#include "figure_style.h"

#include <tpacf/correlation_result.h>
#include <tpacf/power_law_fit.h>

#include <QCoreApplication>
#include <QFont>
#include <QPointF>
#include <QString>
#include <QVector>

#include <optional>
#include <utility>
#include <vector>

class QCPErrorBars;
class QCPGraph;
class QCPItemStraightLine;
class QCPTextElement;
class QCustomPlot;

namespace tpacf::ui {

/// A power-law fit as drawn on the w(θ) plot: the core's fit and the options it was made with.
struct FitCurve {
    PowerLawFit fit;
    PowerLawFitOptions options;
};

/// Where bin `bin`'s point goes on θ: its centre, or with `atMeanTheta` the mean separation of
/// its DD pairs where the result has a finite one (--mean-theta).
double pointTheta(const CorrelationResult& result, std::size_t bin, bool atMeanTheta);

class CorrelationFigure {
    Q_DECLARE_TR_FUNCTIONS(tpacf::ui::CorrelationFigure)
public:
    /// Adds to `plot` (set up by setupFigurePlot()) a title row in `font` one point larger and
    /// bold, the w graphs (graph 0: w, or w > 0 on log y; graph 1: |w| where w < 0), their error
    /// bars, the zero line and the fit's graphs (2 to 4). `plot` owns all of them.
    CorrelationFigure(QCustomPlot* plot, const QFont& font);

    /// Draws the points of `result` (none when null) with `sigma` as error bars (empty: none),
    /// on a log y axis as |w| (negative w on the second graph) or linear with the zero line;
    /// θ times `thetaScale`. Names the legend entries and the y axis, shows the legend with a
    /// result, and keeps the y extent of points and bars.
    /// `atMeanTheta`: each point at its bin's ⟨θ⟩ of the DD pairs (pointTheta).
    void drawPoints(const CorrelationResult* result, const std::vector<double>& sigma, bool logY,
                    double thetaScale, bool atMeanTheta = false);
    /// Draws `fit` (none when null, or when it does not match `result`'s bins) over the bins it
    /// fitted: the model, and with an integral constraint the bare power law and w + A·C.
    void drawFit(const FitCurve* fit, const CorrelationResult* result, bool logY,
                 double thetaScale);
    /// Markers, error bars and caps at the style's sizes (colours kept).
    void applyStyle(const FigureStyle& style);

    /// "w(θ), LS: data.txt (N = 1,000), 2 random sets[, weighted]" (the cross form names both).
    static QString resultTitle(const CorrelationResult& result);

    QCustomPlot* plot() const { return m_plot; }
    QCPTextElement* title() const { return m_title; }
    QCPGraph* pointsGraph() const { return m_wGraph; }
    QCPGraph* negativeGraph() const { return m_wNegGraph; }
    /// The points drawn, in bin order, skipping non-finite values: (θ, w), sign kept; θ the bin
    /// centre or its ⟨θ⟩ (drawPoints' atMeanTheta).
    const QVector<QPointF>& plottedW() const { return m_wPoints; }
    /// σ of each point of plottedW() (empty when drawn without error bars).
    const QVector<double>& plottedWErrors() const { return m_wErrorValues; }
    /// The y extent of the points and bars a log axis can show; nullopt when none.
    std::optional<std::pair<double, double>> yExtent() const;
    /// The fitted curve as drawn: (θ, model w) in the plot's θ unit; empty when none is shown.
    QVector<QPointF> plottedFit() const;

private:
    QCustomPlot* m_plot;
    QCPTextElement* m_title = nullptr;
    QCPGraph* m_wGraph = nullptr;    // all w (linear y) or w > 0 (log y)
    QCPGraph* m_wNegGraph = nullptr; // |w| where w < 0 (log y only)
    QCPErrorBars* m_wErrors = nullptr;
    QCPErrorBars* m_wNegErrors = nullptr;
    QCPItemStraightLine* m_zeroLine = nullptr;
    QCPGraph* m_fitGraph = nullptr;       // the fitted model of the observed w
    QCPGraph* m_powerLawGraph = nullptr;  // A·θ^(1−γ) without C (integral constraint only)
    QCPGraph* m_correctedGraph = nullptr; // w + A·C (integral constraint only)
    QVector<QPointF> m_wPoints;
    QVector<double> m_wErrorValues;
    double m_wLow = 1, m_wHigh = 0; // low > high when none
};

/// Writes the w(θ) figure of `result` to `path`, PNG, PDF or SVG by its suffix, as the app's
/// Plots panel exports it (jackknife error bars where the result has them; log axes for log
/// bins; the fitted curve where `fit` is given) with `style`, on a hidden plot of its own.
/// Needs a QApplication (offscreen will do). Returns false with `error` set when it cannot.
bool exportCorrelationPlot(const CorrelationResult& result, const QString& path,
                           const FigureStyle& style, const std::optional<FitCurve>& fit,
                           QString* error);

} // namespace tpacf::ui
