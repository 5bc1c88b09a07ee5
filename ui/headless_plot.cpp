// SPDX-License-Identifier: GPL-3.0-or-later
#include "headless_plot.h"

#include "plot_panel.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QFileInfo>

#include <cmath>
#include <limits>

namespace tpacf::ui {

namespace {

/// How much of the data `area` (pixels) would hide: 3 per marker, 1 per error bar it crosses.
int dataUnder(QCustomPlot* plot, const QRectF& area) {
    int hidden = 0;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* plottable = plot->plottable(i);
        QCPPlottableInterface1D* points = plottable->interface1D();
        if (!plottable->visible() || !points)
            continue;
        const bool bars = qobject_cast<QCPErrorBars*>(plottable) != nullptr;
        QCPAxis* valueAxis = plottable->valueAxis();
        for (int k = 0; k < points->dataCount(); ++k) {
            const double key = points->dataMainKey(k);
            const double value = points->dataMainValue(k);
            if (!std::isfinite(key) || !std::isfinite(value))
                continue;
            const QPointF centre = plottable->coordsToPixels(key, value);
            if (!bars) {
                hidden += area.contains(centre) ? 3 : 0;
                continue;
            }
            QCPRange span = points->dataValueRange(k);
            if (valueAxis->scaleType() == QCPAxis::stLogarithmic && span.lower <= 0)
                span.lower = valueAxis->range().lower; // drawn down to the frame
            const double top = valueAxis->coordToPixel(span.upper);
            const double bottom = valueAxis->coordToPixel(span.lower);
            const bool inColumn = centre.x() >= area.left() && centre.x() <= area.right();
            if (inColumn && qMax(top, bottom) >= area.top() && qMin(top, bottom) <= area.bottom())
                ++hidden;
        }
    }
    return hidden;
}

/// Puts the legend in the corner of the axis rect where it hides the least data: the app's
/// top right unless points lie there. On screen the user pans; on paper nothing may hide.
void placeLegendClearOfData(QCustomPlot* plot, const QSize& size) {
    plot->setViewport(QRect(QPoint(0, 0), size));
    QCPLayoutInset* insets = plot->axisRect()->insetLayout();
    const Qt::Alignment corners[] = {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                     Qt::AlignBottom | Qt::AlignLeft,
                                     Qt::AlignBottom | Qt::AlignRight};
    Qt::Alignment best = insets->insetAlignment(0);
    int leastHidden = std::numeric_limits<int>::max();
    for (const Qt::Alignment corner : corners) {
        insets->setInsetAlignment(0, corner);
        plot->replot(); // lays the legend out in this corner
        constexpr double kMarkerRadius = 4;
        const QRectF area =
            QRectF(plot->legend->outerRect())
                .adjusted(-kMarkerRadius, -kMarkerRadius, kMarkerRadius, kMarkerRadius);
        const int hidden = dataUnder(plot, area);
        if (hidden < leastHidden) {
            leastHidden = hidden;
            best = corner;
        }
        if (hidden == 0)
            break;
    }
    insets->setInsetAlignment(0, best);
}

/// The figure formats exportCorrelationPlot() writes, by file suffix ("png", "pdf").
bool isPlotSuffixSupported(const QString& suffix) {
    return suffix.compare(QStringLiteral("png"), Qt::CaseInsensitive) == 0 ||
           suffix.compare(QStringLiteral("pdf"), Qt::CaseInsensitive) == 0;
}

} // namespace

bool exportCorrelationPlot(const ResultPtr& result, const QString& path,
                           const PlotExportSettings& settings, QString* error) {
    const QString suffix = QFileInfo(path).suffix();
    if (!result || !isPlotSuffixSupported(suffix)) {
        *error = QCoreApplication::translate("tpacf::ui::PlotExport",
                                             "Cannot write %1: no result, or not .png or .pdf")
                     .arg(path);
        return false;
    }
    // The panel itself, never shown: the figure is the app's by construction, not a copy of it.
    PlotPanel panel;
    panel.setResult(result, false);
    QCustomPlot* plot = panel.plot(PlotPanel::Plot::Correlation);
    placeLegendClearOfData(plot, plotLayoutSize(settings));
    if (suffix.compare(QStringLiteral("pdf"), Qt::CaseInsensitive) == 0)
        return savePlotPdf(plot, path, settings, panel.plotTitle(PlotPanel::Plot::Correlation),
                           error);
    return savePlotPng(plot, path, settings, error);
}

} // namespace tpacf::ui
