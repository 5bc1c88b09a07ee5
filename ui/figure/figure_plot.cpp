// SPDX-License-Identifier: GPL-3.0-or-later
#include "figure_plot.h"

#include <tpacf/units.h>

#include <QCoreApplication>

#include <cmath>

namespace tpacf::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("tpacf::ui::PlotPanel", text);
}

QSharedPointer<QCPAxisTicker> tickerFor(bool logScale) {
    if (logScale) {
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        return ticker;
    }
    return QSharedPointer<QCPAxisTicker>::create();
}

} // namespace

void setupFigurePlot(QCustomPlot* plot) {
    plot->legend->setVisible(true);
    plot->legend->setBrush(QColor(255, 255, 255, 220));
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot->xAxis2->setVisible(true);
    plot->yAxis2->setVisible(true);
    plot->xAxis2->setTickLabels(false);
    plot->yAxis2->setTickLabels(false);
    // The mirror axes follow the main ones so the frame and its ticks stay consistent.
    QObject::connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), plot->xAxis2,
                     qOverload<const QCPRange&>(&QCPAxis::setRange));
    QObject::connect(plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), plot->yAxis2,
                     qOverload<const QCPRange&>(&QCPAxis::setRange));
}

void padRange(QCPAxis* axis, double factor) {
    const QCPRange range = axis->range();
    if (axis->scaleType() == QCPAxis::stLogarithmic && range.lower > 0)
        axis->scaleRange(factor, std::sqrt(range.lower * range.upper));
    else
        axis->scaleRange(factor, range.center());
}

void setAxisScale(QCPAxis* axis, bool logScale) {
    axis->setScaleType(logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    axis->setTicker(tickerFor(logScale));
    axis->setNumberFormat(logScale ? QStringLiteral("eb") : QStringLiteral("g"));
    axis->setNumberPrecision(logScale ? 0 : 6);
}

void setAxisScales(QCustomPlot* plot, bool logX, bool logY, const QString& thetaLabel) {
    setAxisScale(plot->xAxis, logX);
    setAxisScale(plot->xAxis2, logX);
    setAxisScale(plot->yAxis, logY);
    setAxisScale(plot->yAxis2, logY);
    plot->xAxis->setLabel(thetaLabel);
}

void fitAxesToData(QCustomPlot* plot, bool logX, std::optional<QCPRange> yExtent,
                   const std::vector<double>* edges, double thetaScale) {
    QCPRange keys;
    bool foundRange = false;
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (!plot->graph(i)->visible())
            continue;
        bool graphFound = false;
        const QCPRange r =
            plot->graph(i)->getKeyRange(graphFound, logX ? QCP::sdPositive : QCP::sdBoth);
        if (graphFound) {
            keys = foundRange ? QCPRange(qMin(keys.lower, r.lower), qMax(keys.upper, r.upper)) : r;
            foundRange = true;
        }
    }
    if (foundRange) {
        plot->xAxis->setRange(keys);
        padRange(plot->xAxis, 1.12);
        // w(θ) frames its points and error bars itself (bars reaching zero on log y excluded);
        // the counts fit their graphs.
        // A single value (no spread to frame) is left to QCustomPlot's own fit.
        if (yExtent)
            plot->yAxis->setRange(yExtent->lower, yExtent->upper);
        else
            plot->yAxis->rescale(true);
        padRange(plot->yAxis, 1.15);
    } else if (edges && edges->size() >= 2) {
        // Nothing finite to show yet (e.g. the first partial result): frame the bin range.
        const double lower = edges->front();
        plot->xAxis->setRange((logX && lower <= 0 ? (*edges)[1] : lower) * thetaScale,
                              edges->back() * thetaScale);
    }
}

void applyStyleRanges(QCustomPlot* plot, const FigureStyle& style, bool withY) {
    const auto apply = [](QCPAxis* axis, const FigureStyle::Axis& given) {
        if (std::isfinite(given.min))
            axis->setRangeLower(given.min);
        if (std::isfinite(given.max))
            axis->setRangeUpper(given.max);
    };
    apply(plot->xAxis, style.x);
    if (withY)
        apply(plot->yAxis, style.y);
}

bool figureLogX(const FigureStyle* style, const CorrelationResult* result) {
    if (style && style->x.scale != FigureStyle::Scale::Auto)
        return style->x.scale == FigureStyle::Scale::Log;
    return !result || result->bins.scale == BinScale::Logarithmic;
}

bool figureLogY(const FigureStyle* style, bool shownLogY) {
    if (style && style->y.scale != FigureStyle::Scale::Auto)
        return style->y.scale == FigureStyle::Scale::Log;
    return shownLogY;
}

double figureThetaScale(const FigureStyle* style, const CorrelationResult* result) {
    if (!style || !style->thetaUnit || !result)
        return 1.0;
    return radiansPer(result->bins.unit) / radiansPer(*style->thetaUnit);
}

QString thetaAxisLabel(const FigureStyle* style, const CorrelationResult* result) {
    if (!result)
        return tr("θ");
    const AngleUnit unit = style && style->thetaUnit ? *style->thetaUnit : result->bins.unit;
    return tr("θ (%1)").arg(QString::fromLatin1(angleUnitName(unit)));
}

QCPScatterStyle::ScatterShape scatterShapeOf(FigureStyle::Marker marker) {
    switch (marker) {
    case FigureStyle::Marker::Disc:
        return QCPScatterStyle::ssDisc;
    case FigureStyle::Marker::Circle:
        return QCPScatterStyle::ssCircle;
    case FigureStyle::Marker::Square:
        return QCPScatterStyle::ssSquare;
    case FigureStyle::Marker::Triangle:
        return QCPScatterStyle::ssTriangle;
    case FigureStyle::Marker::Diamond:
        return QCPScatterStyle::ssDiamond;
    case FigureStyle::Marker::Cross:
        return QCPScatterStyle::ssCross;
    case FigureStyle::Marker::Plus:
        return QCPScatterStyle::ssPlus;
    }
    return QCPScatterStyle::ssDisc;
}

} // namespace tpacf::ui
