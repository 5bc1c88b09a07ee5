// SPDX-License-Identifier: GPL-3.0-or-later
#include "covariance_view.h"
#include "fitted_title.h"

#include "catalog_source.h"

#include <tpacf/jackknife.h>

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tpacf::ui {

namespace {

// Blue (negative) through white (zero) to red (positive): the sign of a covariance reads at a
// glance, and zero is neutral (RdBu of ColorBrewer).
QCPColorGradient divergingGradient() {
    QCPColorGradient gradient;
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setColorStopAt(0.0, QColor(0x05, 0x30, 0x61));
    gradient.setColorStopAt(0.15, QColor(0x21, 0x66, 0xac));
    gradient.setColorStopAt(0.3, QColor(0x67, 0xa9, 0xcf));
    gradient.setColorStopAt(0.5, QColor(0xf7, 0xf7, 0xf7));
    gradient.setColorStopAt(0.7, QColor(0xef, 0x8a, 0x62));
    gradient.setColorStopAt(0.85, QColor(0xb2, 0x18, 0x2b));
    gradient.setColorStopAt(1.0, QColor(0x67, 0x00, 0x1f));
    // Bins without a finite value (empty bins) are grey, not a misleading colour.
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(QColor(0xc8, 0xc8, 0xc8));
    return gradient;
}

void setAxisScale(QCPAxis* axis, bool logScale) {
    axis->setScaleType(logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logScale) {
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    } else {
        axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        axis->setNumberFormat(QStringLiteral("g"));
        axis->setNumberPrecision(6);
    }
}

} // namespace

CovarianceView::CovarianceView(QWidget* parent) : QWidget(parent) {
    m_plot = new QCustomPlot(this);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setMouseTracking(true);
    m_title = new QCPTextElement(m_plot, QString(),
                                 QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_titleFit = new FittedTitle(m_plot, m_title);
    m_plot->axisRect()->setupFullAxesBox(true);
    m_plot->xAxis2->setTickLabels(false);
    m_plot->yAxis2->setTickLabels(false);

    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false); // one flat cell per bin pair
    m_map->setTightBoundary(false);
    m_scale = new QCPColorScale(m_plot);
    m_scale->setType(QCPAxis::atRight);
    m_plot->plotLayout()->addElement(1, 1, m_scale);
    m_map->setColorScale(m_scale);
    // After linking: the scale's gradient is the one both use.
    m_scale->setGradient(divergingGradient());
    // Colour scale and plot share top and bottom margins, so the bar is as tall as the map.
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    m_modeCombo = new QComboBox(this);
    m_modeCombo->addItem(tr("Correlation matrix"), int(Mode::Correlation));
    m_modeCombo->addItem(tr("Covariance"), int(Mode::Covariance));
    m_modeCombo->setToolTip(tr("Correlation r_ij = C_ij / (σ_i σ_j) in [−1, 1], or the "
                               "covariance C_ij itself"));
    m_note = new QLabel(this);
    m_note->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); }"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(m_modeCombo);
    bar->addSpacing(12);
    bar->addWidget(m_note, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);

    connect(m_modeCombo, &QComboBox::currentIndexChanged, this,
            [this] { setMode(Mode(m_modeCombo->currentData().toInt())); });
    connect(m_plot, &QCustomPlot::mouseMove, this, &CovarianceView::onMouseMove);
    rebuild();
}

void CovarianceView::setResult(const ResultPtr& result) {
    m_result = result;
    rebuild();
}

void CovarianceView::setMode(Mode mode) {
    m_mode = mode;
    if (m_modeCombo->currentData().toInt() != int(mode)) {
        const QSignalBlocker blocker(m_modeCombo);
        m_modeCombo->setCurrentIndex(m_modeCombo->findData(int(mode)));
    }
    rebuild();
}

QString CovarianceView::title() const {
    return m_titleFit->text();
}

void CovarianceView::setTitleFitting(bool on) {
    m_titleFit->setFitting(on);
}

double CovarianceView::cellValue(int i, int j) const {
    if (i < 0 || j < 0 || i >= m_size || j >= m_size)
        return std::nan("");
    const std::size_t cell = std::size_t(i) * std::size_t(m_size) + std::size_t(j);
    return m_mode == Mode::Covariance ? m_result->covariance[cell] : m_correlation[cell];
}

void CovarianceView::rebuild() {
    const std::size_t bins = m_result ? m_result->binCount() : 0;
    const bool have = m_result && m_result->hasJackknife() && bins > 0 &&
                      m_result->covariance.size() == bins * bins && m_result->wError.size() == bins;
    m_size = have ? int(bins) : 0;
    m_correlation = have ? correlationMatrix(m_result->covariance, bins) : std::vector<double>{};
    m_map->setVisible(have);
    m_scale->setVisible(have);
    const bool logBins = m_result && m_result->bins.scale == BinScale::Logarithmic;
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis, m_plot->xAxis2, m_plot->yAxis2})
        setAxisScale(axis, logBins);
    const QString unit = m_result ? unitLabel(m_result->bins.unit) : QString();
    m_plot->xAxis->setLabel(m_result ? tr("θ_i (%1)").arg(unit) : tr("θ_i"));
    m_plot->yAxis->setLabel(m_result ? tr("θ_j (%1)").arg(unit) : tr("θ_j"));

    if (!have) {
        m_map->data()->clear();
        m_titleFit->setText(m_result ? tr("Covariance: this run has no jackknife errors "
                                          "(Errors: jackknife, then Run)")
                                     : tr("Covariance: run with jackknife errors to see it"));
        m_note->clear();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }

    const auto& centres = m_result->centres;
    const auto& edges = m_result->edges;
    auto* data = new QCPColorMapData(m_size, m_size, QCPRange(centres.front(), centres.back()),
                                     QCPRange(centres.front(), centres.back()));
    double maxAbs = 0;
    for (int i = 0; i < m_size; ++i)
        for (int j = 0; j < m_size; ++j) {
            const double value = cellValue(i, j);
            data->setCell(i, j, value);
            if (std::isfinite(value))
                maxAbs = qMax(maxAbs, std::abs(value));
        }
    m_map->setData(data); // takes ownership
    if (m_mode == Mode::Correlation) {
        m_scale->setDataRange(QCPRange(-1.0, 1.0));
        m_scale->axis()->setLabel(tr("correlation r_ij"));
    } else {
        // Symmetric about zero so white is zero and the sign keeps its colour.
        const double span = maxAbs > 0 ? maxAbs : 1.0;
        m_scale->setDataRange(QCPRange(-span, span));
        m_scale->axis()->setLabel(tr("covariance C_ij"));
    }
    // Frame the bins that have a value: empty bins at the ends (no pairs yet at tiny θ) would
    // otherwise fill most of the map with grey.
    int first = 0, last = m_size - 1;
    while (first < last && !std::isfinite(cellValue(first, first)))
        ++first;
    while (last > first && !std::isfinite(cellValue(last, last)))
        --last;
    const double lower = edges[std::size_t(first)];
    const QCPRange frame(lower > 0 || !logBins ? lower : centres[std::size_t(first)],
                         edges[std::size_t(last) + 1]);
    m_plot->xAxis->setRange(frame);
    m_plot->yAxis->setRange(frame);
    m_plot->xAxis2->setRange(frame);
    m_plot->yAxis2->setRange(frame);

    const QString what =
        m_mode == Mode::Correlation ? tr("Correlation matrix of w(θ)") : tr("Covariance of w(θ)");
    m_titleFit->setText(
        tr("%1: jackknife, %2 regions").arg(what).arg(m_result->jackknifeRegions.count));
    m_note->setText(QString::fromStdString(m_result->jackknifeRegions.method));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CovarianceView::onMouseMove(QMouseEvent* event) {
    if (!m_size || !m_plot->axisRect()->rect().contains(event->pos())) {
        Q_EMIT readout(QString());
        return;
    }
    const double x = m_plot->xAxis->pixelToCoord(event->position().x());
    const double y = m_plot->yAxis->pixelToCoord(event->position().y());
    // The bin under the cursor from the edges (the map's own cell lookup is linear in θ, which a
    // log axis is not).
    const auto& edges = m_result->edges;
    auto binOf = [&edges](double theta) {
        const auto upper = std::upper_bound(edges.begin(), edges.end(), theta);
        return upper == edges.begin() || upper == edges.end() ? -1 : int(upper - edges.begin() - 1);
    };
    const int i = binOf(x), j = binOf(y);
    if (i < 0 || j < 0 || i >= m_size || j >= m_size) {
        Q_EMIT readout(QString());
        return;
    }
    const QString unit = unitLabel(m_result->bins.unit);
    Q_EMIT readout(tr("θ_i = %1 %4 (bin %2), θ_j = %3 %4 (bin %5): %6 = %7")
                       .arg(m_result->centres[std::size_t(i)], 0, 'g', 4)
                       .arg(i + 1)
                       .arg(m_result->centres[std::size_t(j)], 0, 'g', 4)
                       .arg(unit)
                       .arg(j + 1)
                       .arg(m_mode == Mode::Correlation ? tr("r") : tr("C"))
                       .arg(cellValue(i, j), 0, 'g', 4));
}

} // namespace tpacf::ui
