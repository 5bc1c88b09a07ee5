// SPDX-License-Identifier: GPL-3.0-or-later
// PlotPanel, part two: the power-law fit curve on w(θ), drawing with a FigureStyle (the hidden
// copies exports are made from) and the export itself. The figure's pieces are tpacf_figure's
// (correlation_figure.h, figure_plot.h, plot_export.h); plot_panel.cpp builds the panel.
#include "plot_panel.h"
#include "fitted_title.h"

#include "covariance_view.h"
#include "figure_plot.h"
#include "plot_export.h"

#include <qcustomplot.h>

#include <algorithm>

namespace tpacf::ui {

void PlotPanel::setFitCurve(std::optional<FitCurve> fit) {
    m_fit = std::move(fit);
    rebuildCorrelation();
}

QVector<QPointF> PlotPanel::plottedFit() const {
    return m_figure->plottedFit();
}

bool PlotPanel::drawnLogX() const {
    return figureLogX(m_style ? &*m_style : nullptr, m_result.get());
}

bool PlotPanel::drawnLogY(Plot which) const {
    if (which == Plot::Covariance)
        return false;
    // The style's y axis is w's: the counts keep their own.
    if (which == Plot::Correlation)
        return figureLogY(m_style ? &*m_style : nullptr, logY(which));
    return logY(which);
}

double PlotPanel::thetaScale() const {
    return figureThetaScale(m_style ? &*m_style : nullptr, m_result.get());
}

QString PlotPanel::thetaAxisLabel() const {
    if (!m_result && m_pendingUnit) { // the unit of the bins to be counted
        CorrelationResult pending;
        pending.bins.unit = *m_pendingUnit;
        return ui::thetaAxisLabel(m_style ? &*m_style : nullptr, &pending);
    }
    return ui::thetaAxisLabel(m_style ? &*m_style : nullptr, m_result.get());
}

void PlotPanel::applyStyleToGraphs() {
    if (!m_style)
        return;
    m_figure->applyStyle(*m_style);
    const double size = m_style->markerPt * kPixelsPerPoint;
    for (QCPGraph* graph : m_countGraphs) {
        QCPScatterStyle scatter = graph->scatterStyle();
        scatter.setSize(size);
        graph->setScatterStyle(scatter);
    }
}

void PlotPanel::applyStyleRanges(Plot which) {
    if (!m_style || which == Plot::Covariance)
        return;
    ui::applyStyleRanges(plot(which), *m_style, which == Plot::Correlation);
}

std::unique_ptr<PlotPanel> PlotPanel::figureCopy(const FigureStyle& style) const {
    auto copy = std::make_unique<PlotPanel>();
    // A figure holds its titles whole (drawn at the figure's size, not the window's).
    copy->m_wTitleFit->setFitting(false);
    copy->m_countsTitleFit->setFitting(false);
    copy->m_covariance->setTitleFitting(false);
    copy->m_result = m_result;
    copy->m_partial = m_partial;
    copy->m_stale = m_stale;
    copy->m_running = m_running;
    copy->m_liveCoverage = m_liveCoverage;
    copy->m_sigma = m_sigma;
    std::copy(std::begin(m_logY), std::end(m_logY), std::begin(copy->m_logY));
    copy->m_fit = m_fit;
    copy->m_exportStyle = m_exportStyle;
    copy->m_style = style;
    copy->setComparison(comparison());
    copy->m_covariance->setMode(m_covariance->mode());
    copy->m_covariance->setResult(m_partial ? nullptr : m_result);
    copy->setCurrentPlot(currentPlot());
    copy->rebuild();
    return copy;
}

bool exportFigure(const PlotPanel& panel, PlotPanel::Plot which, const FigureStyle& style,
                  const QString& path, QString* error) {
    if (const QString problem = style.problem(); !problem.isEmpty()) {
        *error = QCoreApplication::translate("tpacf::ui::PlotExport", "Cannot write %1: %2")
                     .arg(path, problem);
        return false;
    }
    // A hidden copy: the on-screen plot keeps its layout, pan and zoom.
    const std::unique_ptr<PlotPanel> copy = panel.figureCopy(style);
    QCustomPlot* plot = copy->plot(which);
    const QString title = copy->plotTitle(which);
    styleFigure(plot, style);
    return writeFigure(plot, path, style, title, error);
}

} // namespace tpacf::ui
