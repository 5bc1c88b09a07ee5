// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every figure's QCustomPlot shares, on screen and in a file: the frame (mirror axes, the
// legend's box), log or linear axes and their ticks, the fit of the axes to the data, the θ unit
// and scales a FigureStyle asks for, and its markers in layout pixels. No science here.
#include "figure_style.h"

#include <tpacf/correlation_result.h>

#include <qcustomplot.h>

#include <QString>

#include <optional>
#include <vector>

namespace tpacf::ui {

/// Layout pixels (96 per inch, what QCustomPlot's sizes are in) per typographic point.
inline constexpr double kPixelsPerPoint = 96.0 / 72.0;

/// The frame a figure's plot is drawn in: mirror axes on top and right (following the main
/// ones, without labels), the legend visible in a translucent box at the top right.
void setupFigurePlot(QCustomPlot* plot);

/// Log (decade ticks, "1e-2" labels) or linear ("g") scale on `axis`.
void setAxisScale(QCPAxis* axis, bool logScale);
/// Widens an axis range by `factor` about its middle: the geometric middle on a log axis, so
/// both ends get the same margin in decades.
void padRange(QCPAxis* axis, double factor);

/// Scales of both axis pairs and the θ label on the bottom axis.
void setAxisScales(QCustomPlot* plot, bool logX, bool logY, const QString& thetaLabel);
/// Fits the axes to the visible graphs (θ) and to `yExtent` where given (else the graphs'
/// values), with a margin; with nothing finite to show, θ frames `edges` (the bins, in their
/// unit, times `thetaScale`).
void fitAxesToData(QCustomPlot* plot, bool logX, std::optional<QCPRange> yExtent,
                   const std::vector<double>* edges, double thetaScale);
/// The style's fixed ends of x and, with `withY`, of y (NaN ends stay fitted).
void applyStyleRanges(QCustomPlot* plot, const FigureStyle& style, bool withY);

/// Whether θ is drawn on a log axis: the style's choice, else log for log bins (and no result).
bool figureLogX(const FigureStyle* style, const CorrelationResult* result);
/// Whether w is drawn on a log axis: the style's choice, else `shownLogY` (the plot's setting).
bool figureLogY(const FigureStyle* style, bool shownLogY);
/// θ in the plot's unit per θ in the bins' unit (1 without a style's θ unit).
double figureThetaScale(const FigureStyle* style, const CorrelationResult* result);
/// "θ (arcmin)": the style's θ unit, else the bins'; "θ" without a result.
QString thetaAxisLabel(const FigureStyle* style, const CorrelationResult* result);

/// The QCustomPlot marker of a style's marker.
QCPScatterStyle::ScatterShape scatterShapeOf(FigureStyle::Marker marker);

} // namespace tpacf::ui
