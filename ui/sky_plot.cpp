// SPDX-License-Identifier: GPL-3.0-or-later
#include "sky_plot.h"

#include <tpacf/units.h>

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

namespace tpacf::ui {

namespace {

// Appends every stride-th point of `catalog` in degrees; stride ≥ 1 keeps the footprint's shape.
void appendSubsample(const Catalog& catalog, std::size_t stride, QVector<double>& ra,
                     QVector<double>& dec) {
    const auto raValues = catalog.ra();
    const auto decValues = catalog.dec();
    for (std::size_t i = 0; i < catalog.size(); i += stride) {
        ra.append(fromRadians(raValues[i], AngleUnit::Degree));
        dec.append(fromRadians(decValues[i], AngleUnit::Degree));
    }
}

// After rescaleAxes: a margin of 5 % of the span on each side, so points on the footprint's edge
// (a disc several pixels wide) stay clear of the frame; a single point or a line of equal values
// (no span) gets half a degree each side.
void padRange(QCPAxis* axis) {
    const QCPRange range = axis->range();
    const double margin = range.size() > 0 ? 0.05 * range.size() : 0.5;
    axis->setRange(range.lower - margin, range.upper + margin);
}

std::size_t strideFor(std::size_t total) {
    return total <= SkyPlot::kMaxPointsPerGroup
               ? 1
               : (total + SkyPlot::kMaxPointsPerGroup - 1) / SkyPlot::kMaxPointsPerGroup;
}

// Well-separated colours for region labels: hues a golden-ratio step apart, so neighbouring labels
// (which k-means tends to place side by side) never look alike.
QColor regionColor(int region) {
    const double hue = std::fmod(0.07 + region * 0.6180339887498949, 1.0);
    const double value = region % 2 == 0 ? 0.85 : 0.65;
    return QColor::fromHsvF(float(hue), 0.8f, float(value), 0.85f);
}

} // namespace

SkyPlot::SkyPlot(QWidget* parent) : QWidget(parent) {
    m_plot = new QCustomPlot(this);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    // Astronomical convention: RA grows to the left, as on the sky seen from inside.
    m_plot->xAxis->setRangeReversed(true);
    m_plot->xAxis->setLabel(tr("RA (deg)"));
    m_plot->yAxis->setLabel(tr("Dec (deg)"));
    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(QColor(255, 255, 255, 200));
    // The legend in a row under the plot: inside the frame it would hide a corner of the
    // footprint, which is all data.
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->plotLayout()->setRowSpacing(2);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setMargins(QMargins(4, 0, 4, 2));
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    m_plot->legend->setFont(legendFont);
    m_plot->setMinimumHeight(180);

    m_randomGraph = m_plot->addGraph();
    m_randomGraph->setLineStyle(QCPGraph::lsNone);
    m_randomGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(150, 150, 150, 120), 2));
    m_randomGraph->setName(tr("randoms"));
    m_dataGraph = m_plot->addGraph();
    m_dataGraph->setLineStyle(QCPGraph::lsNone);
    m_dataGraph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x1f, 0x4e, 0x9c, 200), 2.5));
    m_dataGraph->setName(tr("data"));

    // Randoms shown from the start: data off their randoms' footprint must be seen at a glance.
    m_showRandoms = new QCheckBox(tr("Show randoms"), this);
    m_showRandoms->setChecked(true);
    m_showRandoms->setToolTip(tr("The random catalogs in grey behind the data: both should cover "
                                 "the same footprint"));
    m_showRegions = new QCheckBox(tr("Colour by jackknife region"), this);
    m_showRegions->setToolTip(tr("After a jackknife run: each data point in the colour of the "
                                 "region it was assigned to"));
    m_showRegions->setChecked(true);
    m_showRegions->setEnabled(false);
    auto* toggles = new QHBoxLayout;
    toggles->addWidget(m_showRandoms);
    toggles->addWidget(m_showRegions);
    toggles->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_plot, 1);
    layout->addLayout(toggles);
    connect(m_showRandoms, &QCheckBox::toggled, this, &SkyPlot::rebuild);
    connect(m_showRegions, &QCheckBox::toggled, this, &SkyPlot::rebuild);
}

void SkyPlot::setCatalogs(std::shared_ptr<const Catalog> data,
                          std::vector<std::shared_ptr<const Catalog>> randoms) {
    if (data != m_data) { // regions belong to the data they were computed for
        m_regions.reset();
        m_regionCount = 0;
    }
    m_data = std::move(data);
    m_randoms = std::move(randoms);
    rebuild();
}

void SkyPlot::setRegions(std::shared_ptr<const std::vector<std::int32_t>> regions, int count) {
    if (regions && (!m_data || regions->size() != m_data->size() || count <= 0))
        regions.reset();
    m_regions = std::move(regions);
    m_regionCount = m_regions ? count : 0;
    rebuild();
}

int SkyPlot::plottedRegions() const {
    int drawn = 0;
    for (const QCPGraph* graph : m_regionGraphs)
        drawn += graph->dataCount() > 0 ? 1 : 0;
    return drawn;
}

int SkyPlot::plottedDataPoints() const {
    return m_dataGraph->dataCount();
}
int SkyPlot::plottedRandomPoints() const {
    return m_randomGraph->visible() ? m_randomGraph->dataCount() : 0;
}

void SkyPlot::rebuild() {
    QVector<double> ra, dec;
    if (m_data)
        appendSubsample(*m_data, strideFor(m_data->size()), ra, dec);
    m_dataGraph->setData(ra, dec);
    m_dataGraph->setName(
        m_data ? tr("data (%1)").arg(QLocale().toString(qulonglong(m_data->size()))) : tr("data"));

    // The region map: one graph per region over the same subsample as the plain data graph.
    for (QCPGraph* graph : std::as_const(m_regionGraphs))
        m_plot->removeGraph(graph);
    m_regionGraphs.clear();
    m_showRegions->setEnabled(m_regions != nullptr);
    const bool regionMap = m_regions && m_data && m_showRegions->isChecked();
    if (regionMap) {
        QVector<QVector<double>> regionRa(m_regionCount), regionDec(m_regionCount);
        const auto raValues = m_data->ra();
        const auto decValues = m_data->dec();
        const std::size_t stride = strideFor(m_data->size());
        for (std::size_t i = 0; i < m_data->size(); i += stride) {
            const int region = (*m_regions)[i];
            if (region < 0 || region >= m_regionCount)
                continue;
            regionRa[region].append(fromRadians(raValues[i], AngleUnit::Degree));
            regionDec[region].append(fromRadians(decValues[i], AngleUnit::Degree));
        }
        for (int region = 0; region < m_regionCount; ++region) {
            QCPGraph* graph = m_plot->addGraph();
            graph->setLineStyle(QCPGraph::lsNone);
            graph->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssDisc, regionColor(region), 3));
            graph->setData(regionRa[region], regionDec[region], true);
            graph->removeFromLegend();
            m_regionGraphs.append(graph);
        }
        m_dataGraph->setName(tr("data (%1), coloured by region (%2)")
                                 .arg(QLocale().toString(qulonglong(m_data->size())))
                                 .arg(m_regionCount));
    }
    // The plain data graph keeps its legend entry (with the region count in its name); its
    // points give way to the coloured ones.
    m_dataGraph->setVisible(!regionMap);

    QVector<double> randomRa, randomDec;
    std::size_t randomTotal = 0;
    for (const auto& random : m_randoms)
        randomTotal += random->size();
    if (m_showRandoms->isChecked()) {
        const std::size_t stride = strideFor(randomTotal);
        for (const auto& random : m_randoms)
            appendSubsample(*random, stride, randomRa, randomDec);
    }
    m_randomGraph->setData(randomRa, randomDec);
    m_randomGraph->setVisible(m_showRandoms->isChecked());
    m_randomGraph->setName(tr("randoms (%1)").arg(QLocale().toString(qulonglong(randomTotal))));
    if (m_showRandoms->isChecked() && !m_randoms.empty())
        m_randomGraph->addToLegend();
    else
        m_randomGraph->removeFromLegend();

    m_plot->rescaleAxes(true);
    padRange(m_plot->xAxis);
    padRange(m_plot->yAxis);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace tpacf::ui
