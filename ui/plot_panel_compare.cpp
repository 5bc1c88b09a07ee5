// SPDX-License-Identifier: GPL-3.0-or-later
// PlotPanel, part three: other runs beside the result. Overlays on w(θ) and on the counts, each
// in its colour with its legend entry, and the ratio or difference panel: a second axis rect
// under w(θ) in the same QCustomPlot, so that exported figures hold it as drawn.
#include "plot_panel.h"

#include "figure_plot.h"

#include <qcustomplot.h>

#include <cmath>
#include <limits>

namespace tpacf::ui {

namespace {

const char* const kCountColumns[PlotPanel::kSeriesCount] = {"DD_norm", "DR_norm", "RR_norm",
                                                            "RD_norm"};
const QCPScatterStyle::ScatterShape kSeriesShapes[PlotPanel::kSeriesCount] = {
    QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
    QCPScatterStyle::ssDiamond};

} // namespace

struct PlotPanel::ComparisonPlots {
    Comparison comparison;
    struct Overlay {
        QCPGraph* w = nullptr;    // all w (linear y) or w > 0 (log y)
        QCPGraph* wNeg = nullptr; // |w| where w < 0 (log y)
        QCPErrorBars* bars = nullptr;
        QCPErrorBars* negBars = nullptr;
        QCPGraph* counts[kSeriesCount] = {nullptr, nullptr, nullptr, nullptr};
    };
    QList<Overlay> overlays; // one per comparison.overlays entry
    QCPAxisRect* rect = nullptr;
    QCPMarginGroup* margins = nullptr;
    QCPItemStraightLine* unity = nullptr;
    QCPItemText* note = nullptr;
    QHash<int, QCPGraph*> panelGraphs; // by run (kCurrentRun or overlay index)
    QList<QCPAbstractPlottable*> panelPlottables;
    QString message;
};

PlotPanel::~PlotPanel() {
    delete m_comparisonPlots;
}

void PlotPanel::createComparisonPlots() {
    m_comparisonPlots = new ComparisonPlots;
}

const Comparison& PlotPanel::comparison() const {
    return m_comparisonPlots->comparison;
}

QString PlotPanel::comparisonMessage() const {
    return m_comparisonPlots->message;
}

QCPGraph* PlotPanel::overlayGraph(int index) const {
    const auto& overlays = m_comparisonPlots->overlays;
    if (index < 0 || index >= overlays.size() || !overlays[index].w->visible())
        return nullptr;
    return overlays[index].w;
}

QCPGraph* PlotPanel::comparisonGraph(int run) const {
    return m_comparisonPlots->panelGraphs.value(run, nullptr);
}

QCPAxisRect* PlotPanel::comparisonRect() const {
    return m_comparisonPlots->rect;
}

double PlotPanel::thetaScaleOf(const LoadedResult& table) const {
    // The plot's θ unit: the style's, else the result's, else the first overlay's.
    std::optional<AngleUnit> unit;
    if (m_style && m_style->thetaUnit)
        unit = m_style->thetaUnit;
    else if (m_result)
        unit = m_result->bins.unit;
    else
        for (const OverlayRun& run : m_comparisonPlots->comparison.overlays)
            if (run.table && run.table->thetaUnit) {
                unit = run.table->thetaUnit;
                break;
            }
    if (!unit || !table.thetaUnit)
        return 1.0;
    return radiansPer(*table.thetaUnit) / radiansPer(*unit);
}

void PlotPanel::setComparison(const Comparison& comparison) {
    ComparisonPlots& plots = *m_comparisonPlots;
    for (const ComparisonPlots::Overlay& overlay : std::as_const(plots.overlays)) {
        for (QCPAbstractPlottable* plottable :
             {static_cast<QCPAbstractPlottable*>(overlay.bars),
              static_cast<QCPAbstractPlottable*>(overlay.negBars),
              static_cast<QCPAbstractPlottable*>(overlay.w),
              static_cast<QCPAbstractPlottable*>(overlay.wNeg)})
            m_wPlot->removePlottable(plottable);
        for (QCPGraph* graph : overlay.counts)
            m_countsPlot->removePlottable(graph);
    }
    plots.overlays.clear();
    plots.comparison = comparison;
    for (const OverlayRun& run : comparison.overlays) {
        ComparisonPlots::Overlay overlay;
        overlay.w = m_wPlot->addGraph();
        overlay.w->setPen(QPen(run.colour, 1.5));
        overlay.w->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, run.colour,
                                                   run.colour, 6));
        overlay.wNeg = m_wPlot->addGraph();
        overlay.wNeg->setPen(QPen(run.colour, 1.5));
        overlay.wNeg->setLineStyle(QCPGraph::lsNone);
        overlay.wNeg->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(run.colour, 1.5), Qt::white, 7));
        overlay.wNeg->removeFromLegend();
        overlay.bars = new QCPErrorBars(m_wPlot->xAxis, m_wPlot->yAxis);
        overlay.bars->setDataPlottable(overlay.w);
        overlay.bars->setPen(QPen(run.colour, 1));
        overlay.bars->removeFromLegend();
        overlay.negBars = new QCPErrorBars(m_wPlot->xAxis, m_wPlot->yAxis);
        overlay.negBars->setDataPlottable(overlay.wNeg);
        overlay.negBars->setPen(QPen(run.colour, 1));
        overlay.negBars->removeFromLegend();
        for (int series = 0; series < kSeriesCount; ++series) {
            QCPGraph* graph = m_countsPlot->addGraph();
            graph->setPen(QPen(run.colour, 1.2, Qt::DashLine));
            graph->setScatterStyle(
                QCPScatterStyle(kSeriesShapes[series], QPen(run.colour, 1.2), Qt::NoBrush, 6));
            graph->removeFromLegend();
            overlay.counts[series] = graph;
        }
        plots.overlays.append(overlay);
    }
    rebuild();
}

void PlotPanel::rebuildComparison(bool logAxis) {
    if (!m_comparisonPlots)
        return; // the constructor's first rebuild
    ComparisonPlots& plots = *m_comparisonPlots;
    const Comparison& comparison = plots.comparison;
    const double markerPx = m_style ? m_style->markerPt * kPixelsPerPoint : 6.0;
    double low = m_wLow <= m_wHigh ? m_wLow : std::numeric_limits<double>::infinity();
    double high = m_wLow <= m_wHigh ? m_wHigh : -std::numeric_limits<double>::infinity();
    for (int i = 0; i < plots.overlays.size(); ++i) {
        const OverlayRun& run = comparison.overlays.at(i);
        const ComparisonPlots::Overlay& overlay = plots.overlays.at(i);
        const bool shown = run.visible && run.table;
        QVector<double> keys, values, minus, plus, negKeys, negValues, negMinus, negPlus;
        if (shown) {
            const LoadedResult& table = *run.table;
            const double scale = thetaScaleOf(table);
            for (std::size_t k = 0; k < table.binCount() && k < table.w.size(); ++k) {
                const double theta = table.thetaMid[k], w = table.w[k];
                if (!std::isfinite(theta) || !std::isfinite(w))
                    continue;
                double sigma = table.hasErrors() && k < table.wError.size() ? table.wError[k] : 0;
                if (!std::isfinite(sigma) || sigma < 0)
                    sigma = 0;
                const bool negative = logAxis && w < 0;
                const double value = negative ? -w : w;
                if (logAxis && value <= 0)
                    continue;
                const double lower = value - sigma;
                // On log y a bar reaching zero runs off the bottom, as the result's do.
                const double down = logAxis && lower <= 0 ? value * (1 - 1e-9) : sigma;
                low = std::min(low, logAxis && lower <= 0 ? value : lower);
                high = std::max(high, value + sigma);
                (negative ? negKeys : keys).append(theta * scale);
                (negative ? negValues : values).append(value);
                (negative ? negMinus : minus).append(down);
                (negative ? negPlus : plus).append(sigma);
            }
        }
        overlay.w->setData(keys, values, true);
        overlay.wNeg->setData(negKeys, negValues, true);
        overlay.w->setVisible(shown);
        overlay.wNeg->setVisible(shown && logAxis);
        overlay.w->setLineStyle(logAxis ? QCPGraph::lsNone : QCPGraph::lsLine);
        overlay.w->setName(run.label);
        // Re-added each time: the overlays follow the result's own entries in the legend.
        overlay.w->removeFromLegend();
        if (shown)
            overlay.w->addToLegend();
        else
            overlay.w->removeFromLegend();
        const bool errors = shown && run.table->hasErrors();
        overlay.bars->setVisible(errors);
        overlay.negBars->setVisible(errors && logAxis);
        overlay.bars->setData(errors ? minus : QVector<double>(), errors ? plus : QVector<double>());
        overlay.negBars->setData(errors ? negMinus : QVector<double>(),
                                 errors ? negPlus : QVector<double>());
        if (m_style) {
            QCPScatterStyle scatter = overlay.w->scatterStyle();
            scatter.setSize(markerPx);
            overlay.w->setScatterStyle(scatter);
            for (QCPErrorBars* bars : {overlay.bars, overlay.negBars}) {
                QPen pen = bars->pen();
                pen.setWidthF(m_style->errorBarPt * kPixelsPerPoint);
                if (m_style->errorBarPt <= 0)
                    pen.setStyle(Qt::NoPen);
                bars->setPen(pen);
                bars->setWhiskerWidth(m_style->errorCapPt * kPixelsPerPoint);
            }
        }
    }
    if (low <= high) {
        m_wLow = low;
        m_wHigh = high;
    }
    // Without a result of its own the legend lists the overlays alone.
    if (!m_result)
        m_figure->pointsGraph()->removeFromLegend();
    else if (!m_wPlot->legend->hasItemWithPlottable(m_figure->pointsGraph())) {
        // Back in its place, before the |w| < 0 entry.
        const bool negative = m_wPlot->legend->hasItemWithPlottable(m_figure->negativeGraph());
        m_figure->negativeGraph()->removeFromLegend();
        m_figure->pointsGraph()->addToLegend();
        if (negative)
            m_figure->negativeGraph()->addToLegend();
    }
    if (comparison.hasVisibleOverlays())
        m_wPlot->legend->setVisible(true);
    rebuildComparisonPanel();
}

// The panel: every shown run against the reference, on the bins they share.
void PlotPanel::rebuildComparisonPanel() {
    ComparisonPlots& plots = *m_comparisonPlots;
    const Comparison& comparison = plots.comparison;
    const double markerPx = m_style ? m_style->markerPt * kPixelsPerPoint : 6.0;
    for (QCPAbstractPlottable* plottable : std::as_const(plots.panelPlottables))
        m_wPlot->removePlottable(plottable);
    plots.panelPlottables.clear();
    plots.panelGraphs.clear();
    plots.message.clear();
    const bool wantPanel = comparison.panel != Comparison::Panel::None;
    QCPLayoutGrid* layout = m_wPlot->plotLayout();
    if (!wantPanel) {
        if (plots.rect) {
            m_wPlot->removeItem(plots.unity);
            m_wPlot->removeItem(plots.note);
            layout->remove(plots.rect);
            layout->simplify();
            m_wPlot->axisRect(0)->setMarginGroup(QCP::msLeft | QCP::msRight, nullptr);
            plots.rect = nullptr;
            plots.unity = nullptr;
            plots.note = nullptr;
        }
        return;
    }
    if (!plots.rect)
        createComparisonRect();
    QCPAxis* xAxis = plots.rect->axis(QCPAxis::atBottom);
    QCPAxis* yAxis = plots.rect->axis(QCPAxis::atLeft);
    const bool ratio = comparison.panel == Comparison::Panel::Ratio;
    const LoadedResultPtr current =
        m_result && !m_partial ? std::make_shared<LoadedResult>(loadedResultOf(*m_result))
                               : nullptr;
    const ComparisonOutcome outcome = compareAll(comparison, current);
    plots.message = outcome.message;
    double panelLow = std::numeric_limits<double>::infinity(), panelHigh = -panelLow;
    const QColor currentColour = m_figure->pointsGraph()->pen().color();
    QColor referenceColour = currentColour;
    QStringList refused;
    for (const ComparedRun& run : outcome.runs) {
        const QColor colour = run.index == Comparison::kCurrentRun ? currentColour : run.colour;
        if (run.index == outcome.reference) {
            referenceColour = colour;
            continue;
        }
        if (!run.compared) {
            if (!run.problem.isEmpty())
                refused.append(run.label);
            continue;
        }
        const double scale = thetaScaleOf(*run.table);
        QVector<double> keys, values, errors;
        for (std::size_t k = 0; k < run.compared->value.size(); ++k) {
            const double value = run.compared->value[k];
            if (!std::isfinite(value) || !std::isfinite(run.table->thetaMid[k]))
                continue;
            double sigma = k < run.compared->error.size() ? run.compared->error[k] : 0;
            if (!std::isfinite(sigma))
                sigma = 0;
            keys.append(run.table->thetaMid[k] * scale);
            values.append(value);
            errors.append(sigma);
            panelLow = std::min(panelLow, value - sigma);
            panelHigh = std::max(panelHigh, value + sigma);
        }
        auto* graph = new QCPGraph(xAxis, yAxis);
        graph->setData(keys, values, true);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour,
                                               std::max(3.0, markerPx * 0.8)));
        graph->removeFromLegend();
        plots.panelGraphs.insert(run.index, graph);
        plots.panelPlottables.append(graph);
        if (!run.compared->error.empty()) {
            auto* bars = new QCPErrorBars(xAxis, yAxis);
            bars->setDataPlottable(graph);
            bars->setData(errors);
            QPen pen(colour, 1);
            if (m_style) {
                pen.setWidthF(m_style->errorBarPt * kPixelsPerPoint);
                if (m_style->errorBarPt <= 0)
                    pen.setStyle(Qt::NoPen);
                bars->setWhiskerWidth(m_style->errorCapPt * kPixelsPerPoint);
            }
            bars->setPen(pen);
            bars->removeFromLegend();
            plots.panelPlottables.append(bars);
        }
    }
    const double unity = ratio ? 1.0 : 0.0;
    plots.unity->point1->setAxes(xAxis, yAxis);
    plots.unity->point2->setAxes(xAxis, yAxis);
    plots.unity->point1->setCoords(0, unity);
    plots.unity->point2->setCoords(1, unity);
    plots.unity->setPen(QPen(referenceColour, 1.2, Qt::DashLine));
    QString note = outcome.referenceTable ? tr("reference: %1").arg(outcome.referenceLabel)
                                          : tr("no reference");
    if (!refused.isEmpty())
        note += tr("; not shown (other bins): %1").arg(refused.join(QStringLiteral(", ")));
    plots.note->setText(note);
    QFont noteFont = font();
    noteFont.setPointSizeF(noteFont.pointSizeF() * 0.85);
    if (m_style) {
        if (!m_style->fontFamily.isEmpty())
            noteFont.setFamily(m_style->fontFamily);
        noteFont.setPointSizeF(m_style->fontPt * 0.8);
    }
    plots.note->setFont(noteFont);
    plots.note->setColor(refused.isEmpty() ? Qt::darkGray : QColor(0xa0, 0x30, 0x20));
    yAxis->setLabel(ratio ? tr("w / w_ref") : tr("w − w_ref"));
    panelLow = std::min(panelLow, unity);
    panelHigh = std::max(panelHigh, unity);
    // Headroom above the points for the reference note (top left), a margin below.
    if (panelLow < panelHigh) {
        const double span = panelHigh - panelLow;
        yAxis->setRange(panelLow - 0.15 * span, panelHigh + 0.9 * span);
    } else {
        yAxis->setRange(unity - 1, unity + 1);
    }
}

// The panel's axes under w(θ), in the same layout, sharing its left and right margins.
void PlotPanel::createComparisonRect() {
    ComparisonPlots& plots = *m_comparisonPlots;
    QCPLayoutGrid* layout = m_wPlot->plotLayout();
    plots.rect = new QCPAxisRect(m_wPlot);
    const int row = layout->rowCount();
    layout->insertRow(row);
    layout->addElement(row, 0, plots.rect);
    // The main axes take two thirds of the height, the panel the rest.
    for (int r = 0; r < layout->rowCount(); ++r)
        layout->setRowStretchFactor(r, layout->element(r, 0) == m_wPlot->axisRect(0) ? 2.2
                                       : layout->element(r, 0) == plots.rect           ? 1.0
                                                                                       : 0.001);
    if (!plots.margins)
        plots.margins = new QCPMarginGroup(m_wPlot);
    m_wPlot->axisRect(0)->setMarginGroup(QCP::msLeft | QCP::msRight, plots.margins);
    plots.rect->setMarginGroup(QCP::msLeft | QCP::msRight, plots.margins);
    plots.rect->axis(QCPAxis::atTop)->setVisible(true);
    plots.rect->axis(QCPAxis::atRight)->setVisible(true);
    plots.rect->axis(QCPAxis::atTop)->setTickLabels(false);
    plots.rect->axis(QCPAxis::atRight)->setTickLabels(false);
    // θ follows the main axes; the panel's own drag and zoom move its y alone.
    // A short panel: a few ticks, not one per 0.05.
    plots.rect->axis(QCPAxis::atLeft)->ticker()->setTickCount(3);
    plots.rect->axis(QCPAxis::atRight)->ticker()->setTickCount(3);
    plots.rect->setRangeDrag(Qt::Vertical);
    plots.rect->setRangeZoom(Qt::Vertical);
    plots.unity = new QCPItemStraightLine(m_wPlot);
    plots.unity->setClipAxisRect(plots.rect);
    plots.note = new QCPItemText(m_wPlot);
    plots.note->setClipAxisRect(plots.rect);
    plots.note->position->setType(QCPItemPosition::ptAxisRectRatio);
    plots.note->position->setAxisRect(plots.rect);
    plots.note->position->setCoords(0.01, 0.04);
    plots.note->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    plots.note->setTextAlignment(Qt::AlignLeft);
}

void PlotPanel::finishComparisonAxes() {
    ComparisonPlots& plots = *m_comparisonPlots;
    QCPAxis* mainX = m_wPlot->xAxis;
    if (!plots.rect) {
        mainX->setTickLabels(true);
        return;
    }
    // θ is labelled once, under the panel.
    QCPAxis* x = plots.rect->axis(QCPAxis::atBottom);
    QCPAxis* x2 = plots.rect->axis(QCPAxis::atTop);
    for (QCPAxis* axis : {x, x2}) {
        axis->setScaleType(mainX->scaleType());
        axis->setTicker(mainX->ticker());
        axis->setNumberFormat(mainX->numberFormat());
        axis->setNumberPrecision(mainX->numberPrecision());
        axis->setRange(mainX->range());
    }
    plots.rect->axis(QCPAxis::atRight)->setRange(plots.rect->axis(QCPAxis::atLeft)->range());
    x->setLabel(mainX->label());
    mainX->setLabel(QString());
    mainX->setTickLabels(false);
    // The panel follows pan and zoom of the main axes (one connection, made once).
    connect(mainX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x,
            qOverload<const QCPRange&>(&QCPAxis::setRange), Qt::UniqueConnection);
    connect(mainX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x2,
            qOverload<const QCPRange&>(&QCPAxis::setRange), Qt::UniqueConnection);
}

void PlotPanel::rebuildCountOverlays(bool logAxis) {
    if (!m_comparisonPlots)
        return;
    ComparisonPlots& plots = *m_comparisonPlots;
    const double markerPx = m_style ? m_style->markerPt * kPixelsPerPoint : 6.0;
    for (int i = 0; i < plots.overlays.size(); ++i) {
        const OverlayRun& run = plots.comparison.overlays.at(i);
        bool named = false;
        for (int series = 0; series < kSeriesCount; ++series) {
            QCPGraph* graph = plots.overlays[i].counts[series];
            const std::vector<double>* counts =
                run.visible && run.table ? run.table->column(kCountColumns[series]) : nullptr;
            QVector<double> keys, values;
            if (counts) {
                const double scale = thetaScaleOf(*run.table);
                for (std::size_t k = 0; k < counts->size() && k < run.table->binCount(); ++k) {
                    const double theta = run.table->thetaMid[k], value = (*counts)[k];
                    if (std::isfinite(theta) && std::isfinite(value) && (!logAxis || value > 0)) {
                        keys.append(theta * scale);
                        values.append(value);
                    }
                }
            }
            graph->setData(keys, values, true);
            graph->setVisible(counts != nullptr);
            QCPScatterStyle scatter = graph->scatterStyle();
            scatter.setSize(markerPx);
            graph->setScatterStyle(scatter);
            // One legend entry per run: the colour names the run, the marker the count (as the
            // current run's entries show).
            if (counts && !named) {
                graph->setName(run.label);
                graph->addToLegend();
                named = true;
            } else {
                graph->removeFromLegend();
            }
        }
        if (named)
            m_countsPlot->legend->setVisible(true);
    }
}

} // namespace tpacf::ui
