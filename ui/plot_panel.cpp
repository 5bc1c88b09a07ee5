// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_panel.h"
#include "fitted_title.h"

#include "catalog_source.h"
#include "covariance_view.h"
#include "figure_plot.h"
#include "plot_export.h"
#include "fit_panel.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>

namespace tpacf::ui {

namespace {

const QColor kSeriesColors[PlotPanel::kSeriesCount] = {
    QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
    QColor(0x94, 0x67, 0xbd)};

} // namespace

PlotPanel::PlotPanel(QWidget* parent) : QWidget(parent) {
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_wPlot = createPlot();
    m_countsPlot = createPlot();
    m_tabs->addTab(m_wPlot, tr("w(θ)"));
    m_tabs->addTab(m_countsPlot, tr("Pair counts"));
    m_covariance = new CovarianceView(this);
    m_tabs->addTab(m_covariance, tr("Covariance"));
    connect(m_covariance, &CovarianceView::readout, this, &PlotPanel::readout);

    // w(θ): the figure's points, error bars, zero line and fit (tpacf_figure), as exported.
    m_figure = std::make_unique<CorrelationFigure>(m_wPlot, font());
    createComparisonPlots();

    m_countsTitle = new QCPTextElement(m_countsPlot, tr("Normalised pair counts"),
                                       QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    m_countsPlot->plotLayout()->insertRow(0);
    m_countsPlot->plotLayout()->addElement(0, 0, m_countsTitle);
    m_wTitleFit = new FittedTitle(m_wPlot, m_figure->title());
    m_countsTitleFit = new FittedTitle(m_countsPlot, m_countsTitle);
    const QCPScatterStyle::ScatterShape shapes[kSeriesCount] = {
        QCPScatterStyle::ssDisc, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
        QCPScatterStyle::ssDiamond};
    for (int i = 0; i < kSeriesCount; ++i) {
        m_countGraphs[i] = m_countsPlot->addGraph();
        m_countGraphs[i]->setName(seriesName(Series(i)));
        m_countGraphs[i]->setPen(QPen(kSeriesColors[i], 1.5));
        m_countGraphs[i]->setScatterStyle(
            QCPScatterStyle(shapes[i], kSeriesColors[i], kSeriesColors[i], 6));
    }
    m_countsPlot->yAxis->setLabel(tr("pairs / total pairs"));
    // Normalised counts grow with θ: the top-left corner is where they leave room.
    m_countsPlot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);

    m_logYCheck = new QCheckBox(tr("Log &y"), this);
    m_logYCheck->setToolTip(
        tr("Logarithmic y axis. For w(θ) it plots |w|; negative values get open red markers, and "
           "error bars that reach zero run off the bottom of the plot."));
    auto* resetButton = new QPushButton(tr("Reset &view"), this);
    resetButton->setToolTip(tr("Fit the axes to the data (drag to pan, wheel to zoom)"));
    m_fitButton = new QPushButton(tr("F&it…"), this);
    m_fitButton->setObjectName(QStringLiteral("fitButton"));
    m_fitButton->setCheckable(true);
    m_fitButton->setToolTip(tr("Show the power-law fit w = A·θ^(1−γ) under the w(θ) plot"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addStretch();
    bar->addWidget(m_logYCheck);
    bar->addWidget(resetButton);
    bar->addWidget(m_fitButton);
    // The controls sit on the tab bar's row to save vertical space.
    auto* corner = new QWidget(this);
    corner->setLayout(bar);
    m_tabs->setCornerWidget(corner, Qt::TopRightCorner);

    m_staleBanner = new QLabel(
        tr("Result of previous inputs: the catalogs or settings have changed since. Press Run "
           "(Ctrl+R) to update it."),
        this);
    m_staleBanner->setObjectName(QStringLiteral("staleBanner"));
    m_staleBanner->setWordWrap(true);
    m_staleBanner->setContentsMargins(8, 4, 8, 4);
    m_staleBanner->setStyleSheet(QStringLiteral(
        "QLabel { background: #fff4d6; color: #5c4100; border-bottom: 1px solid #e0c270; }"));
    m_staleBanner->hide();

    m_fitPanel = new FitPanel(this);
    m_fitPanel->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_staleBanner);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_fitPanel);

    connect(m_fitPanel, &FitPanel::fitChanged, this, [this] {
        std::optional<FitCurve> curve;
        if (const std::optional<PowerLawFit>& fit = m_fitPanel->currentFit())
            curve = FitCurve{*fit, m_fitPanel->options()};
        setFitCurve(std::move(curve));
    });
    const auto showFitBar = [this] {
        m_fitPanel->setVisible(m_fitButton->isChecked() && currentPlot() == Plot::Correlation);
    };
    connect(m_fitButton, &QPushButton::toggled, this, showFitBar);

    connect(m_logYCheck, &QCheckBox::toggled, this,
            [this](bool on) { setLogY(currentPlot(), on); });
    connect(resetButton, &QPushButton::clicked, this, &PlotPanel::resetView);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        const QSignalBlocker blocker(m_logYCheck);
        m_logYCheck->setChecked(logY(currentPlot()));
        m_logYCheck->setEnabled(currentPlot() != Plot::Covariance);
        m_fitButton->setEnabled(currentPlot() == Plot::Correlation);
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, showFitBar);
    for (Plot which : {Plot::Correlation, Plot::PairCounts}) {
        QCustomPlot* target = plot(which);
        connect(target, &QCustomPlot::mouseMove, this,
                [this, which](QMouseEvent* event) { onMouseMove(which, event); });
        // Once the user pans or zooms, live updates stop re-fitting the axes.
        connect(target, &QCustomPlot::mousePress, this,
                [this, which] { m_userMovedView[int(which)] = true; });
        connect(target, &QCustomPlot::mouseWheel, this,
                [this, which] { m_userMovedView[int(which)] = true; });
    }
    m_logYCheck->setChecked(logY(currentPlot()));
    clear();
}

QCustomPlot* PlotPanel::createPlot() {
    auto* plot = new QCustomPlot(this);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->setNoAntialiasingOnDrag(true);
    setupFigurePlot(plot);
    plot->setMouseTracking(true);
    return plot;
}

QCustomPlot* PlotPanel::plot(Plot which) const {
    switch (which) {
    case Plot::Correlation:
        return m_wPlot;
    case Plot::PairCounts:
        return m_countsPlot;
    case Plot::Covariance:
        return m_covariance->plot();
    }
    return m_wPlot;
}

PlotPanel::Plot PlotPanel::currentPlot() const {
    return Plot(m_tabs->currentIndex());
}

void PlotPanel::setCurrentPlot(Plot which) {
    m_tabs->setCurrentIndex(int(which));
}

QString PlotPanel::plotTitle(Plot which) const {
    switch (which) {
    case Plot::Correlation:
        return m_wTitleFit->text();
    case Plot::PairCounts:
        return m_countsTitleFit->text();
    case Plot::Covariance:
        return m_covariance->title();
    }
    return {};
}

void PlotPanel::setLogY(Plot which, bool on) {
    if (which == Plot::Covariance)
        return;
    m_logY[int(which)] = on;
    if (which == currentPlot() && m_logYCheck->isChecked() != on) {
        const QSignalBlocker blocker(m_logYCheck);
        m_logYCheck->setChecked(on);
    }
    m_userMovedView[int(which)] = false;
    rebuild();
}

void PlotPanel::setPendingBins(std::vector<double> edges, std::optional<AngleUnit> unit) {
    m_pendingEdges = std::move(edges);
    m_pendingUnit = unit;
    if (!m_result)
        rebuild();
}

void PlotPanel::setExportStyle(const FigureStyle& style) {
    const bool moved = style.pointsAtMeanTheta != m_exportStyle.pointsAtMeanTheta;
    m_exportStyle = style;
    if (!moved)
        return;
    rebuild();
    Q_EMIT pointsAtMeanThetaChanged(style.pointsAtMeanTheta);
}

void PlotPanel::setPointsAtMeanTheta(bool on) {
    FigureStyle style = m_exportStyle;
    style.pointsAtMeanTheta = on;
    setExportStyle(style);
}

void PlotPanel::resetView() {
    m_userMovedView[0] = m_userMovedView[1] = false;
    rebuild();
    m_covariance->setResult(m_partial ? nullptr : m_result);
}

void PlotPanel::clear() {
    m_result.reset();
    m_partial = false;
    m_sigma.clear();
    m_userMovedView[0] = m_userMovedView[1] = false;
    m_covariance->clear();
    m_fitPanel->setResult(nullptr, false);
    rebuild();
}

void PlotPanel::setResult(const ResultPtr& result, bool partial) {
    const bool newBins = !m_result || !result || m_result->edges != result->edges;
    m_result = result;
    m_partial = partial;
    // The error bars travel with the result: a partial result has none, so stale bars of an
    // earlier run never sit on new points.
    m_sigma = result ? result->wError : std::vector<double>{};
    m_covariance->setResult(partial ? nullptr : result);
    // Refits a final result over the same range; a partial one drops the curve until then.
    m_fitPanel->setResult(result, partial);
    if (newBins) {
        // New bins: default to log y where the bins are logarithmic (the usual w(θ) figure).
        const bool logBins = result && result->bins.scale == BinScale::Logarithmic;
        m_logY[int(Plot::Correlation)] = logBins;
        m_logY[int(Plot::PairCounts)] = logBins;
        const QSignalBlocker blocker(m_logYCheck);
        m_logYCheck->setChecked(logY(currentPlot()));
        m_userMovedView[0] = m_userMovedView[1] = false;
    }
    rebuild();
}

void PlotPanel::setRunning(bool running) {
    if (running == m_running)
        return;
    m_running = running;
    m_liveCoverage = 0;
    rebuild();
}

void PlotPanel::setLiveCoverage(double fraction) {
    m_liveCoverage = fraction;
}

// What a title says while a run is in progress.
QString PlotPanel::runningNote() const {
    if (m_partial)
        return tr(" (running: live estimate from %1 % of the pairs)")
            .arg(100.0 * m_liveCoverage, 0, 'f', m_liveCoverage < 0.1 ? 1 : 0);
    return m_result ? tr(" (previous result: a run is in progress)") : QString();
}

void PlotPanel::setStale(bool stale) {
    if (stale == m_stale)
        return;
    m_stale = stale;
    m_staleBanner->setVisible(stale);
    rebuild();
}

void PlotPanel::setWErrors(std::vector<double> sigma) {
    m_sigma = std::move(sigma);
    rebuild();
}

void PlotPanel::rebuild() {
    rebuildCorrelation();
    rebuildCounts();
}

void PlotPanel::applyAxes(Plot which) {
    QCustomPlot* target = plot(which);
    const bool logX = drawnLogX();
    setAxisScales(target, logX, drawnLogY(which), thetaAxisLabel());
    if (m_userMovedView[int(which)])
        return;
    // w(θ) frames its points and error bars (and the overlays'); the counts fit their graphs.
    std::optional<QCPRange> yExtent;
    if (which == Plot::Correlation && m_wLow < m_wHigh)
        yExtent = QCPRange(m_wLow, m_wHigh);
    // Without a result the axes frame the bins the panel will count (setPendingBins).
    const std::vector<double>* edges =
        m_result ? &m_result->edges : (m_pendingEdges.empty() ? nullptr : &m_pendingEdges);
    fitAxesToData(target, logX, yExtent, edges, thetaScale());
    applyStyleRanges(which);
}

void PlotPanel::rebuildCorrelation() {
    const bool logAxis = drawnLogY(Plot::Correlation);
    m_figure->drawPoints(m_result.get(), m_sigma, logAxis, thetaScale(),
                         m_exportStyle.pointsAtMeanTheta);
    const auto extent = m_figure->yExtent();
    m_wLow = extent ? extent->first : 1.0; // low > high: none
    m_wHigh = extent ? extent->second : 0.0;
    // A partial result drops the curve until the final one is refitted.
    m_figure->drawFit(m_fit && !m_partial ? &*m_fit : nullptr, m_result.get(), logAxis,
                      thetaScale());
    rebuildComparison(logAxis);
    applyStyleToGraphs();

    QString title = m_running ? tr("w(θ): running; a live estimate appears once enough pairs "
                                   "are counted (the CPU backend makes them)")
                              : tr("w(θ): press Run (Ctrl+R) to compute it");
    if (m_result) {
        title = CorrelationFigure::resultTitle(*m_result);
        if (m_running || m_partial)
            title += runningNote();
        else if (m_stale)
            title += tr(" (previous inputs: press Run)");
    }
    m_wTitleFit->setText(title);
    applyAxes(Plot::Correlation);
    finishComparisonAxes();
    // As exports place it: in a corner where it hides no point or curve, where there is one.
    if (m_result && m_wPlot->legend->visible())
        placeLegendInClearCorner(m_wPlot);
    m_wPlot->replot(QCustomPlot::rpQueuedReplot);
}

QString PlotPanel::seriesName(Series series) const {
    const bool cross = m_result && m_result->isCross();
    switch (series) {
    case Series::DD:
        return cross ? tr("D1D2") : tr("DD");
    case Series::DR:
        return cross ? tr("D1R2") : tr("DR");
    case Series::RR:
        return cross ? tr("R1R2") : tr("RR");
    case Series::RD:
        return cross ? tr("R1D2") : tr("RD");
    }
    return {};
}

bool PlotPanel::isSeriesShown(Series series) const {
    return series != Series::RD || (m_result && m_result->isCross());
}

void PlotPanel::rebuildCounts() {
    const bool logAxis = drawnLogY(Plot::PairCounts);
    const double scale = thetaScale();
    static const std::vector<double> kNone;
    for (int series = 0; series < kSeriesCount; ++series) {
        m_countPoints[series].clear();
        QVector<double> keys, values;
        const bool shown = isSeriesShown(Series(series));
        m_countGraphs[series]->setName(seriesName(Series(series)));
        m_countGraphs[series]->setVisible(shown);
        if (m_result && shown) {
            const NormalisedCounts& normalised = m_result->normalised;
            const std::vector<double>& counts = series == int(Series::DD)   ? normalised.dd
                                                : series == int(Series::DR) ? normalised.dr
                                                : series == int(Series::RR) ? normalised.rr
                                                : m_result->isCross()       ? normalised.rd
                                                                            : kNone;
            const std::size_t bins = qMin(m_result->centres.size(), counts.size());
            for (std::size_t k = 0; k < bins; ++k) {
                const double theta = m_result->centres[k];
                const double value = counts[k];
                if (!std::isfinite(theta) || !std::isfinite(value))
                    continue;
                m_countPoints[series].append(QPointF(theta, value));
                if (!logAxis || value > 0) {
                    keys.append(theta * scale);
                    values.append(value);
                }
            }
        }
        m_countGraphs[series]->setData(keys, values, true);
    }
    // The legend in reading order, D1D2, D1R2, R1D2, R1R2 (RD only where drawn).
    for (const Series series : {Series::DD, Series::DR, Series::RD, Series::RR})
        m_countGraphs[int(series)]->removeFromLegend();
    for (const Series series : {Series::DD, Series::DR, Series::RD, Series::RR})
        if (isSeriesShown(series))
            m_countGraphs[int(series)]->addToLegend();
    m_countsPlot->legend->setVisible(m_result != nullptr);
    rebuildCountOverlays(logAxis);
    const bool weighted = m_result && m_result->isWeighted();
    // A weighted result normalises the weighted sums Σ w_i·w_j by their weighted totals.
    m_countsPlot->yAxis->setLabel(weighted ? tr("weighted pairs / weighted total")
                                           : tr("pairs / total pairs"));
    QString title = m_result && m_result->isCross() ? tr("Normalised pair counts, D1 × D2")
                                                    : tr("Normalised pair counts");
    if (weighted)
        title += tr(" (weighted)");
    if (m_running || m_partial)
        title += m_result || m_partial ? runningNote() : tr(" (running)");
    else if (m_stale && m_result)
        title += tr(" (previous inputs: press Run)");
    m_countsTitleFit->setText(title);
    applyAxes(Plot::PairCounts);
    m_countsPlot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::onMouseMove(Plot which, QMouseEvent* event) {
    QCustomPlot* target = plot(which);
    if (!target->axisRect()->rect().contains(event->pos())) {
        Q_EMIT readout(QString());
        return;
    }
    const double x = target->xAxis->pixelToCoord(event->position().x()) / thetaScale();
    const double y = target->yAxis->pixelToCoord(event->position().y());
    QString text = tr("θ = %1, y = %2").arg(x, 0, 'g', 4).arg(y, 0, 'g', 4);
    if (m_result && !m_result->edges.empty()) {
        const auto& edges = m_result->edges;
        const auto upper = std::upper_bound(edges.begin(), edges.end(), x);
        if (upper != edges.begin() && upper != edges.end()) {
            const auto k = std::size_t(upper - edges.begin() - 1);
            const QString unit = unitLabel(m_result->bins.unit);
            text += tr("   |   bin %1 [%2, %3) %4: ")
                        .arg(k + 1)
                        .arg(edges[k], 0, 'g', 4)
                        .arg(edges[k + 1], 0, 'g', 4)
                        .arg(unit);
            auto valueAt = [k](const std::vector<double>& values) {
                return k < values.size() ? values[k] : std::nan("");
            };
            if (which == Plot::Correlation) {
                text += tr("w = %1").arg(valueAt(m_result->w), 0, 'g', 5);
                if (k < m_sigma.size())
                    text += std::isfinite(m_sigma[k]) ? tr(" ± %1").arg(m_sigma[k], 0, 'g', 3)
                                                      : tr(" (no jackknife σ)");
            } else {
                text += tr("%1 = %2, %3 = %4")
                            .arg(seriesName(Series::DD))
                            .arg(valueAt(m_result->normalised.dd), 0, 'g', 4)
                            .arg(seriesName(Series::DR))
                            .arg(valueAt(m_result->normalised.dr), 0, 'g', 4);
                if (m_result->isCross())
                    text += tr(", %1 = %2")
                                .arg(seriesName(Series::RD))
                                .arg(valueAt(m_result->normalised.rd), 0, 'g', 4);
                text += tr(", %1 = %2")
                            .arg(seriesName(Series::RR))
                            .arg(valueAt(m_result->normalised.rr), 0, 'g', 4);
            }
        }
    }
    Q_EMIT readout(text);
}

} // namespace tpacf::ui
