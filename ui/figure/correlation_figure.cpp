// SPDX-License-Identifier: GPL-3.0-or-later
#include "correlation_figure.h"

#include "figure_plot.h"
#include "plot_export.h"

#include <tpacf/units.h>

#include <qcustomplot.h>

#include <QApplication>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpacf::ui {

namespace {

const QColor kWColor(0x1f, 0x4e, 0x9c);
const QColor kNegativeColor(0xc0, 0x39, 0x2b);
const QColor kFitColor(0xd9, 0x5f, 0x02);
const QColor kCorrectedColor(0x1b, 0x9e, 0x77);
// Samples of the fitted curve between the first and last fitted bin: enough that a model with
// an integral constraint bends smoothly on a log axis.
constexpr int kCurveSamples = 96;

/// "1.23e-02 ± 4.5e-04" with as many digits as the error warrants (two significant in σ).
QString valueWithError(double value, double error) {
    if (!(error > 0) || !std::isfinite(error))
        return QString::number(value, 'g', 4);
    const int digits = std::clamp(int(std::floor(std::log10(std::abs(value) / error))) + 2, 1, 8);
    return QStringLiteral("%1 ± %2").arg(value, 0, 'g', digits).arg(error, 0, 'g', 2);
}

} // namespace

CorrelationFigure::CorrelationFigure(QCustomPlot* plot, const QFont& font) : m_plot(plot) {
    // One graph for linear y; on log y, the same graph holds w > 0 and a second one |w < 0|.
    m_title = new QCPTextElement(plot, tr("w(θ)"),
                                 QFont(font.family(), font.pointSize() + 1, QFont::Bold));
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, m_title);
    m_wGraph = plot->addGraph();
    m_wGraph->setPen(QPen(kWColor, 1.5));
    m_wGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kWColor, kWColor, 7));
    m_wNegGraph = plot->addGraph();
    m_wNegGraph->setPen(QPen(kNegativeColor, 1.5));
    m_wNegGraph->setLineStyle(QCPGraph::lsNone);
    m_wNegGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kNegativeColor, 1.5), Qt::white, 8));
    m_wNegGraph->setName(tr("|w| where w < 0"));
    m_wErrors = new QCPErrorBars(plot->xAxis, plot->yAxis);
    m_wErrors->setDataPlottable(m_wGraph);
    m_wErrors->setPen(QPen(kWColor, 1));
    m_wErrors->removeFromLegend();
    m_wNegErrors = new QCPErrorBars(plot->xAxis, plot->yAxis);
    m_wNegErrors->setDataPlottable(m_wNegGraph);
    m_wNegErrors->setPen(QPen(kNegativeColor, 1));
    m_wNegErrors->removeFromLegend();
    m_zeroLine = new QCPItemStraightLine(plot);
    m_zeroLine->point1->setCoords(0, 0);
    m_zeroLine->point2->setCoords(1, 0);
    m_zeroLine->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    plot->yAxis->setLabel(tr("w(θ)"));
    // After the w graphs: graph(0) and graph(1) stay the points.
    m_fitGraph = plot->addGraph();
    m_fitGraph->setPen(QPen(kFitColor, 1.5));
    m_fitGraph->setLineStyle(QCPGraph::lsLine);
    m_powerLawGraph = plot->addGraph();
    m_powerLawGraph->setPen(QPen(kFitColor, 1.2, Qt::DashLine));
    m_powerLawGraph->setLineStyle(QCPGraph::lsLine);
    m_correctedGraph = plot->addGraph();
    m_correctedGraph->setLineStyle(QCPGraph::lsNone);
    m_correctedGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(kCorrectedColor, 1.2), Qt::NoBrush, 6));
    for (QCPGraph* graph : {m_fitGraph, m_powerLawGraph, m_correctedGraph}) {
        graph->setVisible(false);
        graph->removeFromLegend();
    }
}

std::optional<std::pair<double, double>> CorrelationFigure::yExtent() const {
    if (!(m_wLow <= m_wHigh))
        return std::nullopt;
    return std::pair{m_wLow, m_wHigh};
}

double pointTheta(const CorrelationResult& result, std::size_t bin, bool atMeanTheta) {
    if (atMeanTheta)
        if (const MeanSeparation* dd = result.meanSeparation("DD");
            dd && bin < dd->theta.size() && std::isfinite(dd->theta[bin]))
            return dd->theta[bin];
    return bin < result.centres.size() ? result.centres[bin]
                                       : std::numeric_limits<double>::quiet_NaN();
}

void CorrelationFigure::drawPoints(const CorrelationResult* result,
                                   const std::vector<double>& sigmas, bool logAxis, double scale,
                                   bool atMeanTheta) {
    m_wPoints.clear();
    m_wErrorValues.clear();
    const bool haveErrors = !sigmas.empty();
    // Per plotted point: value, σ, and which graph (positive or |negative|) it is on.
    struct Point {
        double theta, value, sigma;
        bool negative;
    };
    QVector<Point> points;
    if (result) {
        const std::size_t bins = qMin(result->centres.size(), result->w.size());
        for (std::size_t k = 0; k < bins; ++k) {
            const double theta = pointTheta(*result, k, atMeanTheta);
            const double w = result->w[k];
            if (!std::isfinite(theta) || !std::isfinite(w))
                continue;
            m_wPoints.append(QPointF(theta, w));
            double sigma = k < sigmas.size() ? sigmas[k] : 0.0;
            if (haveErrors)
                m_wErrorValues.append(sigma);
            if (!std::isfinite(sigma) || sigma < 0)
                sigma = 0; // no bar rather than a broken one
            if (logAxis && w < 0)
                points.append({theta, -w, sigma, true});
            else if (!logAxis || w > 0)
                points.append({theta, w, sigma, false});
        }
    }
    // The y extent: every point and bar end a log axis can show. On log y a bar whose lower end
    // is ≤ 0 does not pull the axis down; it is drawn to far below the frame instead.
    double low = std::numeric_limits<double>::infinity();
    double high = -low;
    for (const Point& point : std::as_const(points)) {
        const double lower = point.value - point.sigma;
        low = qMin(low, logAxis && lower <= 0 ? point.value : lower);
        high = qMax(high, point.value + point.sigma);
    }
    m_wLow = low <= high ? low : 1.0; // low > high: none
    m_wHigh = low <= high ? high : 0.0;
    const double offBottom = logAxis && low > 0 ? low * 1e-3 : 0.0;

    QVector<double> keys, values, negKeys, negValues, minus, plus, negMinus, negPlus;
    for (const Point& point : std::as_const(points)) {
        const double lower = point.value - point.sigma;
        const double down = logAxis && lower <= 0 ? point.value - offBottom : point.sigma;
        (point.negative ? negKeys : keys).append(point.theta * scale);
        (point.negative ? negValues : values).append(point.value);
        (point.negative ? negMinus : minus).append(down);
        (point.negative ? negPlus : plus).append(point.sigma);
    }
    m_wGraph->setData(keys, values, true);
    m_wNegGraph->setData(negKeys, negValues, true);
    m_wNegGraph->setVisible(logAxis);
    // On log y the positive points are not joined: the gaps where w < 0 would mislead.
    m_wGraph->setLineStyle(logAxis ? QCPGraph::lsNone : QCPGraph::lsLine);
    m_wErrors->setVisible(haveErrors);
    m_wNegErrors->setVisible(haveErrors && logAxis);
    m_wErrors->setData(haveErrors ? minus : QVector<double>(),
                       haveErrors ? plus : QVector<double>());
    m_wNegErrors->setData(haveErrors ? negMinus : QVector<double>(),
                          haveErrors ? negPlus : QVector<double>());
    m_zeroLine->setVisible(!logAxis);

    const QString estimator =
        result ? QString::fromLatin1(estimatorName(result->estimator)) : QString();
    QString name = logAxis ? tr("w > 0 (%1)").arg(estimator) : tr("w (%1)").arg(estimator);
    if (haveErrors && result && result->hasBootstrap())
        name += tr(" ± σ, bootstrap of %1 regions (%2 samples)")
                    .arg(result->jackknifeRegions.count)
                    .arg(result->bootstrapSelections.size());
    else if (haveErrors && result)
        name += tr(" ± σ, jackknife over %1 regions").arg(result->jackknifeRegions.count);
    m_wGraph->setName(name);
    if (logAxis && !negKeys.isEmpty())
        m_wNegGraph->addToLegend();
    else
        m_wNegGraph->removeFromLegend();
    m_plot->yAxis->setLabel(logAxis ? tr("|w(θ)|") : tr("w(θ)"));
    m_plot->legend->setVisible(result != nullptr);
}

QString CorrelationFigure::resultTitle(const CorrelationResult& result) {
    const QString estimator = QString::fromLatin1(estimatorName(result.estimator));
    // English plurals by hand: the app ships no translations that would resolve %n forms.
    const QString randomSets = result.randoms.size() == 1
                                   ? tr("1 random set")
                                   : tr("%1 random sets").arg(result.randoms.size());
    const auto fileName = [](const InputSummary& input) {
        return QFileInfo(QString::fromStdString(input.name)).fileName();
    };
    QString title;
    if (result.isCross())
        title = tr("w(θ), %1: %2 × %3 (N = %4 × %5), %6")
                    .arg(estimator, fileName(result.data), fileName(result.data2),
                         QLocale().toString(qulonglong(result.data.size)),
                         QLocale().toString(qulonglong(result.data2.size)), randomSets);
    else
        title = tr("w(θ), %1: %2 (N = %3), %4")
                    .arg(estimator, fileName(result.data),
                         QLocale().toString(qulonglong(result.data.size)), randomSets);
    if (result.isWeighted())
        title += tr(", weighted");
    return title;
}

QVector<QPointF> CorrelationFigure::plottedFit() const {
    QVector<QPointF> points;
    if (!m_fitGraph->visible())
        return points;
    for (auto it = m_fitGraph->data()->constBegin(); it != m_fitGraph->data()->constEnd(); ++it)
        points.append(QPointF(it->key, it->value));
    return points;
}

void CorrelationFigure::drawFit(const FitCurve* curve, const CorrelationResult* result,
                                bool logAxis, double scale) {
    const bool show = curve && result && !curve->fit.bins.empty() &&
                      curve->fit.model.size() == result->centres.size();
    for (QCPGraph* graph : {m_fitGraph, m_powerLawGraph, m_correctedGraph}) {
        graph->setVisible(false);
        graph->removeFromLegend();
        graph->data()->clear();
    }
    if (!show)
        return;
    const PowerLawFit& fit = curve->fit;
    const std::vector<double>& centres = result->centres;
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
    const QString unit = QString::fromLatin1(angleUnitName(result->bins.unit));
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

void CorrelationFigure::applyStyle(const FigureStyle& style) {
    const double size = style.markerPt * kPixelsPerPoint;
    const QColor wColor = m_wGraph->pen().color();
    const QColor negativeColor = m_wNegGraph->pen().color();
    const QCPScatterStyle::ScatterShape shape = scatterShapeOf(style.marker);
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
}

bool exportCorrelationPlot(const CorrelationResult& result, const QString& path,
                           const FigureStyle& style, const std::optional<FitCurve>& fit,
                           QString* error) {
    if (const QString problem = style.problem(); !problem.isEmpty()) {
        *error = QCoreApplication::translate("tpacf::ui::PlotExport", "Cannot write %1: %2")
                     .arg(path, problem);
        return false;
    }
    // A plot of its own, never shown, drawn by the same code as the Plots panel's w(θ) tab.
    QCustomPlot plot;
    setupFigurePlot(&plot);
    CorrelationFigure figure(&plot, QApplication::font());
    // The panel's default for new bins: log y where the bins are logarithmic.
    const bool logY = figureLogY(&style, result.bins.scale == BinScale::Logarithmic);
    const bool logX = figureLogX(&style, &result);
    const double scale = figureThetaScale(&style, &result);
    figure.drawPoints(&result, result.wError, logY, scale, style.pointsAtMeanTheta);
    figure.drawFit(fit ? &*fit : nullptr, &result, logY, scale);
    figure.applyStyle(style);
    const QString title = CorrelationFigure::resultTitle(result);
    figure.title()->setText(title);
    setAxisScales(&plot, logX, logY, thetaAxisLabel(&style, &result));
    std::optional<QCPRange> yRange;
    if (const auto extent = figure.yExtent(); extent && extent->first < extent->second)
        yRange = QCPRange(extent->first, extent->second);
    fitAxesToData(&plot, logX, yRange, &result.edges, scale);
    applyStyleRanges(&plot, style, true);
    styleFigure(&plot, style);
    return writeFigure(&plot, path, style, title, error);
}

} // namespace tpacf::ui
