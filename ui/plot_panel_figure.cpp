// SPDX-License-Identifier: GPL-3.0-or-later
// PlotPanel, part two: the power-law fit curve on w(θ), and drawing with a FigureStyle (the
// hidden copies exports are made from). (plot_panel.cpp builds the panel and draws the data.)
#include "plot_panel.h"

#include "catalog_source.h"
#include "covariance_view.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace tpacf::ui {

namespace {

// Layout pixels (96 per inch, what QCustomPlot's sizes are in) per typographic point.
constexpr double kPixelsPerPoint = 96.0 / 72.0;
const QColor kFitColor(0xd9, 0x5f, 0x02);
const QColor kCorrectedColor(0x1b, 0x9e, 0x77);
// Samples of the fitted curve between the first and last fitted bin: enough that a model with
// an integral constraint bends smoothly on a log axis.
constexpr int kCurveSamples = 96;

QCPScatterStyle::ScatterShape shapeOf(FigureStyle::Marker marker) {
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

/// "1.23e-02 ± 4.5e-04" with as many digits as the error warrants (two significant in σ).
QString valueWithError(double value, double error) {
    if (!(error > 0) || !std::isfinite(error))
        return QString::number(value, 'g', 4);
    const int digits = std::clamp(int(std::floor(std::log10(std::abs(value) / error))) + 2, 1, 8);
    return QStringLiteral("%1 ± %2").arg(value, 0, 'g', digits).arg(error, 0, 'g', 2);
}

} // namespace

void PlotPanel::createFitGraphs() {
    m_fitGraph = m_wPlot->addGraph();
    m_fitGraph->setPen(QPen(kFitColor, 1.5));
    m_fitGraph->setLineStyle(QCPGraph::lsLine);
    m_powerLawGraph = m_wPlot->addGraph();
    m_powerLawGraph->setPen(QPen(kFitColor, 1.2, Qt::DashLine));
    m_powerLawGraph->setLineStyle(QCPGraph::lsLine);
    m_correctedGraph = m_wPlot->addGraph();
    m_correctedGraph->setLineStyle(QCPGraph::lsNone);
    m_correctedGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(kCorrectedColor, 1.2), Qt::NoBrush, 6));
    for (QCPGraph* graph : {m_fitGraph, m_powerLawGraph, m_correctedGraph}) {
        graph->setVisible(false);
        graph->removeFromLegend();
    }
}

void PlotPanel::setFitCurve(std::optional<FitCurve> fit) {
    m_fit = std::move(fit);
    rebuildCorrelation();
}

QVector<QPointF> PlotPanel::plottedFit() const {
    QVector<QPointF> points;
    if (!m_fitGraph->visible())
        return points;
    for (auto it = m_fitGraph->data()->constBegin(); it != m_fitGraph->data()->constEnd(); ++it)
        points.append(QPointF(it->key, it->value));
    return points;
}

void PlotPanel::rebuildFit(bool logAxis) {
    const bool show = m_fit && m_result && !m_partial && !m_fit->fit.bins.empty() &&
                      m_fit->fit.model.size() == m_result->centres.size();
    for (QCPGraph* graph : {m_fitGraph, m_powerLawGraph, m_correctedGraph}) {
        graph->setVisible(false);
        graph->removeFromLegend();
        graph->data()->clear();
    }
    if (!show)
        return;
    const PowerLawFit& fit = m_fit->fit;
    const double scale = thetaScale();
    const std::vector<double>& centres = m_result->centres;
    const double low = centres[fit.bins.front()];
    const double high = centres[fit.bins.back()];
    const double c = fit.integralConstraintApplied ? fit.integralConstraint : 0.0;
    // The fitted formula between the bins, and the bin centres themselves, where it equals the
    // core's fit.model: a log axis shows a straight power law, and a constraint's bend, smoothly.
    QVector<double> thetas;
    for (int i = 0; i < kCurveSamples; ++i)
        thetas.append(low * std::pow(high / low, double(i) / (kCurveSamples - 1)));
    for (std::size_t k : fit.bins)
        thetas.append(centres[k]);
    std::sort(thetas.begin(), thetas.end());
    QVector<double> keys, model, powerLaw;
    for (double theta : std::as_const(thetas)) {
        const double law = fit.amplitude * std::pow(theta, 1.0 - fit.gamma);
        const double value = law - fit.amplitude * c;
        if (!std::isfinite(value) || (logAxis && value <= 0))
            continue;
        keys.append(theta * scale);
        model.append(value);
        powerLaw.append(law);
    }
    // At the bin centres the curve takes the core's values exactly, not a re-evaluation.
    for (std::size_t k : fit.bins)
        for (int i = 0; i < keys.size(); ++i)
            if (keys[i] == centres[k] * scale)
                model[i] = fit.model[k];
    const QString unit = unitLabel(m_result->bins.unit);
    m_fitGraph->setData(keys, model, true);
    m_fitGraph->setName(tr("fit: A = %1, γ = %2 (θ in %3)")
                            .arg(valueWithError(fit.amplitude, fit.amplitudeError),
                                 valueWithError(fit.gamma, fit.gammaError), unit));
    m_fitGraph->setVisible(true);
    m_fitGraph->addToLegend();
    if (!fit.integralConstraintApplied)
        return;
    m_powerLawGraph->setData(keys, powerLaw, true);
    m_powerLawGraph->setName(tr("A·θ^(1−γ), integral constraint C = %1").arg(c, 0, 'g', 3));
    m_powerLawGraph->setVisible(true);
    m_powerLawGraph->addToLegend();
    QVector<double> correctedKeys, corrected;
    for (std::size_t k = 0; k < fit.correctedW.size() && k < centres.size(); ++k) {
        const double value = fit.correctedW[k];
        if (std::isfinite(value) && std::isfinite(centres[k]) && (!logAxis || value > 0)) {
            correctedKeys.append(centres[k] * scale);
            corrected.append(value);
        }
    }
    m_correctedGraph->setData(correctedKeys, corrected, true);
    m_correctedGraph->setName(tr("w + A·C"));
    m_correctedGraph->setVisible(true);
    m_correctedGraph->addToLegend();
}

bool PlotPanel::drawnLogX() const {
    if (m_style && m_style->x.scale != FigureStyle::Scale::Auto)
        return m_style->x.scale == FigureStyle::Scale::Log;
    return !m_result || m_result->bins.scale == BinScale::Logarithmic;
}

bool PlotPanel::drawnLogY(Plot which) const {
    if (which == Plot::Covariance)
        return false;
    // The style's y axis is w's: the counts keep their own.
    if (m_style && which == Plot::Correlation && m_style->y.scale != FigureStyle::Scale::Auto)
        return m_style->y.scale == FigureStyle::Scale::Log;
    return logY(which);
}

double PlotPanel::thetaScale() const {
    if (!m_style || !m_style->thetaUnit || !m_result)
        return 1.0;
    return radiansPer(m_result->bins.unit) / radiansPer(*m_style->thetaUnit);
}

QString PlotPanel::thetaAxisLabel() const {
    if (!m_result)
        return tr("θ");
    const AngleUnit unit =
        m_style && m_style->thetaUnit ? *m_style->thetaUnit : m_result->bins.unit;
    return tr("θ (%1)").arg(unitLabel(unit));
}

void PlotPanel::applyStyleToGraphs() {
    if (!m_style)
        return;
    const FigureStyle& style = *m_style;
    const double size = style.markerPt * kPixelsPerPoint;
    const QColor wColor = m_wGraph->pen().color();
    const QColor negativeColor = m_wNegGraph->pen().color();
    const QCPScatterStyle::ScatterShape shape = shapeOf(style.marker);
    const bool open = shape == QCPScatterStyle::ssCircle || shape == QCPScatterStyle::ssCross ||
                      shape == QCPScatterStyle::ssPlus;
    m_wGraph->setScatterStyle(QCPScatterStyle(shape, QPen(wColor, 1.0),
                                              open ? QBrush(Qt::NoBrush) : QBrush(wColor), size));
    m_wNegGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(negativeColor, 1.0), Qt::white, size));
    for (QCPErrorBars* bars : {m_wErrors, m_wNegErrors}) {
        QPen pen = bars->pen();
        pen.setWidthF(style.errorBarPt * kPixelsPerPoint);
        // A zero width would be QPainter's cosmetic one-pixel line: no bars means none.
        if (style.errorBarPt <= 0)
            pen.setStyle(Qt::NoPen);
        bars->setPen(pen);
        bars->setWhiskerWidth(style.errorCapPt * kPixelsPerPoint);
    }
    m_correctedGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(kCorrectedColor, 1.0), Qt::NoBrush, size));
    for (QCPGraph* graph : m_countGraphs) {
        QCPScatterStyle scatter = graph->scatterStyle();
        scatter.setSize(size);
        graph->setScatterStyle(scatter);
    }
}

void PlotPanel::applyStyleRanges(Plot which) {
    if (!m_style || which == Plot::Covariance)
        return;
    QCustomPlot* target = plot(which);
    const auto apply = [](QCPAxis* axis, const FigureStyle::Axis& given) {
        if (std::isfinite(given.min))
            axis->setRangeLower(given.min);
        if (std::isfinite(given.max))
            axis->setRangeUpper(given.max);
    };
    apply(target->xAxis, m_style->x);
    if (which == Plot::Correlation)
        apply(target->yAxis, m_style->y);
}

std::unique_ptr<PlotPanel> PlotPanel::figureCopy(const FigureStyle& style) const {
    auto copy = std::make_unique<PlotPanel>();
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

} // namespace tpacf::ui
