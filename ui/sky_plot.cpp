#include "sky_plot.h"

#include <tpacf/units.h>

#include <qcustomplot.h>

#include <QCheckBox>
#include <QVBoxLayout>

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

std::size_t strideFor(std::size_t total) {
    return total <= SkyPlot::kMaxPointsPerGroup
               ? 1
               : (total + SkyPlot::kMaxPointsPerGroup - 1) / SkyPlot::kMaxPointsPerGroup;
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

    m_showRandoms = new QCheckBox(tr("Show randoms"), this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_showRandoms);
    connect(m_showRandoms, &QCheckBox::toggled, this, &SkyPlot::rebuild);
}

void SkyPlot::setCatalogs(std::shared_ptr<const Catalog> data,
                          std::vector<std::shared_ptr<const Catalog>> randoms) {
    m_data = std::move(data);
    m_randoms = std::move(randoms);
    rebuild();
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
    m_dataGraph->setName(m_data ? tr("data (%1)").arg(m_data->size()) : tr("data"));

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
    m_randomGraph->setName(tr("randoms (%1)").arg(randomTotal));
    if (m_showRandoms->isChecked() && !m_randoms.empty())
        m_randomGraph->addToLegend();
    else
        m_randomGraph->removeFromLegend();

    m_plot->rescaleAxes(true);
    m_plot->xAxis->scaleRange(1.05, m_plot->xAxis->range().center());
    m_plot->yAxis->scaleRange(1.08, m_plot->yAxis->range().center());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace tpacf::ui
