// SPDX-License-Identifier: GPL-3.0-or-later
#include "sky_plot.h"

#include "sky_map_layers.h"

#include <tpacf/units.h>

#include <qcustomplot.h>

#include <QCheckBox>
#include <QFuture>
#include <QFutureWatcher>
#include <QPromise>
#include <QThreadPool>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace tpacf::ui {

namespace {

std::size_t strideFor(std::size_t total, std::size_t cap) {
    return total <= cap ? 1 : (total + cap - 1) / cap;
}

// Several random catalogs in one group: their source indices mean nothing (randoms carry no
// regions), only the positions are kept.
void appendPoints(ProjectedPoints& into, const ProjectedPoints& more) {
    into.x.insert(into.x.end(), more.x.begin(), more.x.end());
    into.y.insert(into.y.end(), more.y.begin(), more.y.end());
}

QString groupedCount(std::size_t value) {
    return QLocale().toString(qulonglong(value));
}

// The raster area [x0, x1] × [y0, y1] as a core spec.
SkyRasterSpec specFor(const QRectF& area, QSize size) {
    return SkyRasterSpec{size.width(), size.height(), area.left(),
                         area.right(), area.top(),    area.bottom()};
}

} // namespace

SkyPlot::SkyPlot(QWidget* parent) : QWidget(parent) {
    m_plot = new QCustomPlot(this);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(QColor(255, 255, 255, 200));
    // The legend in a row under the plot: inside the frame it would hide part of the sky.
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

    // Randoms shown from the start: data off their randoms' footprint must be seen at a glance.
    m_showRandoms = new QCheckBox(tr("Show randoms"), this);
    m_showRandoms->setChecked(true);
    m_showRandoms->setToolTip(tr("The random catalogs in grey behind the data: both should cover "
                                 "the same footprint"));
    m_showRegions = new QCheckBox(tr("Colour by jackknife region"), this);
    m_showRegions->setToolTip(tr("After a jackknife run: the data in the colour of the region "
                                 "each point was assigned to"));
    m_showRegions->setChecked(true);
    m_showRegions->setEnabled(false);
    m_projectionCombo = new QComboBox(this);
    m_projectionCombo->addItem(tr("Auto"));
    for (const SkyProjectionInfo& info : skyProjections())
        m_projectionCombo->addItem(
            QString::fromUtf8(info.name.data(), qsizetype(info.name.size())));
    m_projectionCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_projectionCombo->setToolTip(
        tr("Auto: the plain RA/Dec plane for a field of up to 180° of RA and 60° of Dec, clear "
           "of the poles; an equal-area Mollweide map of the whole sky otherwise"));
    m_resetView = new QPushButton(tr("Reset view"), this);
    m_resetView->setToolTip(tr("Show the whole footprint again (wheel: zoom, drag: pan)"));
    auto* toggles = new QHBoxLayout;
    toggles->addWidget(m_projectionCombo);
    toggles->addWidget(m_showRandoms);
    toggles->addWidget(m_showRegions);
    toggles->addStretch();
    toggles->addWidget(m_resetView);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_plot, 1);
    layout->addLayout(toggles);

    // A re-bin per wheel step would queue up behind itself on 10⁶ points; one after the
    // view has settled keeps zooming smooth.
    m_rebinTimer = new QTimer(this);
    m_rebinTimer->setSingleShot(true);
    m_rebinTimer->setInterval(120);
    connect(m_rebinTimer, &QTimer::timeout, this, [this] {
        rebin();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    auto viewMoved = [this] {
        if (!m_fitting)
            m_viewIsReset = false;
        m_rebinTimer->start();
    };
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, viewMoved);
    connect(m_plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, viewMoved);
    // The axis rect's size is known only once laid out: fit (or keep the aspect) there, before
    // anything is drawn.
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        const QSize size = m_plot->axisRect()->size();
        if (size == m_lastRectSize)
            return;
        m_lastRectSize = size;
        if (m_viewIsReset)
            fitView();
        else
            keepAspect();
    });
    connect(m_showRandoms, &QCheckBox::toggled, this, &SkyPlot::rebuild);
    connect(m_showRegions, &QCheckBox::toggled, this, &SkyPlot::rebuild);
    connect(m_projectionCombo, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &SkyPlot::reproject);
    connect(m_resetView, &QPushButton::clicked, this, &SkyPlot::resetView);
    reproject();
}

void SkyPlot::setCatalogs(std::shared_ptr<const Catalog> data,
                          std::vector<std::shared_ptr<const Catalog>> randoms,
                          std::shared_ptr<const Catalog> data2,
                          std::vector<std::shared_ptr<const Catalog>> randoms2) {
    randoms.insert(randoms.end(), randoms2.begin(), randoms2.end());
    if (data == m_data && randoms == m_randoms && data2 == m_data2)
        return;           // the window tells about every catalog change, not only these
    m_data2 = std::move(data2);
    if (data != m_data) { // regions belong to the data they were computed for
        m_regions.reset();
        m_regionCount = 0;
    }
    m_data = std::move(data);
    m_randoms = std::move(randoms);
    reproject();
}

void SkyPlot::setRegions(std::shared_ptr<const std::vector<std::int32_t>> regions, int count) {
    if (regions && (!m_data || regions->size() != m_data->size() || count <= 0))
        regions.reset();
    m_regions = std::move(regions);
    m_regionCount = m_regions ? count : 0;
    rebuild();
}

int SkyPlot::plottedRegions() const {
    if (m_regionMap)
        return m_regionMap->visible() ? m_regionsInRaster : 0;
    int drawn = 0;
    for (const QCPGraph* graph : m_regionGraphs)
        drawn += graph->dataCount() > 0 ? 1 : 0;
    return drawn;
}

int SkyPlot::plottedDataPoints() const {
    if (m_dataMap)
        return int(densityCellSum(m_dataMap));
    return m_dataGraph ? m_dataGraph->dataCount() : 0;
}

int SkyPlot::plottedData2Points() const {
    if (m_data2Map)
        return int(densityCellSum(m_data2Map));
    return m_data2Graph ? m_data2Graph->dataCount() : 0;
}

int SkyPlot::plottedRandomPoints() const {
    if (!m_showRandoms->isChecked())
        return 0;
    if (m_randomMap)
        return int(densityCellSum(m_randomMap));
    return m_randomGraph ? m_randomGraph->dataCount() : 0;
}

QPointF SkyPlot::mapPosition(double ra, double dec) const {
    const ProjectedPoint p = m_projection.forward(ra, dec);
    return SkyPlotFrame::of(m_projection).toPlot(p.x, p.y);
}

void SkyPlot::resetView() {
    fitView();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

SkyPlot::Projected SkyPlot::project(const ProjectionInputs& inputs) {
    Projected out;
    std::vector<std::span<const double>> ras, decs;
    for (const auto& catalog : {inputs.data, inputs.data2})
        if (catalog) {
            ras.push_back(catalog->ra());
            decs.push_back(catalog->dec());
        }
    for (const auto& random : inputs.randoms) {
        ras.push_back(random->ra());
        decs.push_back(random->dec());
    }
    out.extent = skyExtent(ras, decs);
    out.suggested = suggestedProjection(out.extent);
    const SkyProjectionKind kind =
        inputs.choice <= 0 ? out.suggested : skyProjections()[inputs.choice - 1].kind;
    double central = out.extent.centralRa;
    // A whole-sky map centred on a round meridian keeps the graticule symmetric.
    if (kind != SkyProjectionKind::PlateCarree)
        central = std::fmod(std::round(central / (15 * kDegree)) * 15 * kDegree, 2 * kPi);
    out.projection = SkyProjection(kind, central);

    const auto projectOne = [&out](const std::shared_ptr<const Catalog>& catalog, Group& group) {
        if (!catalog)
            return;
        group.source = catalog;
        group.total = catalog->size();
        group.stride = strideFor(group.total, kMaxDensityPoints);
        group.points = projectPoints(out.projection, catalog->ra(), catalog->dec(), group.stride);
    };
    projectOne(inputs.data, out.data);
    projectOne(inputs.data2, out.data2);
    for (const auto& random : inputs.randoms)
        out.randoms.total += random->size();
    out.randoms.stride = strideFor(out.randoms.total, kMaxDensityPoints);
    for (const auto& random : inputs.randoms)
        appendPoints(out.randoms.points, projectPoints(out.projection, random->ra(), random->dec(),
                                                       out.randoms.stride));

    const SkyProjectionInfo& info = out.projection.info();
    if (info.equalArea) {
        // Room on the left for the Dec labels outside the rim.
        out.contentBounds =
            QRectF(-1.16 * info.xMax, -1.04 * info.yMax, 2.19 * info.xMax, 2.08 * info.yMax);
        return out;
    }
    double x0 = info.xMax, x1 = -info.xMax, y0 = info.yMax, y1 = -info.yMax;
    for (const Group* group : {&out.data, &out.data2, &out.randoms})
        for (std::size_t i = 0; i < group->points.size(); ++i) {
            x0 = std::min<double>(x0, group->points.x[i]);
            x1 = std::max<double>(x1, group->points.x[i]);
            y0 = std::min<double>(y0, group->points.y[i]);
            y1 = std::max<double>(y1, group->points.y[i]);
        }
    if (x0 > x1) { // nothing loaded: the whole plane
        x0 = -info.xMax, x1 = info.xMax, y0 = -info.yMax, y1 = info.yMax;
    }
    // 5 % each side keeps points on the edge clear of the frame; half a degree for a point.
    const double padX = x1 > x0 ? 0.05 * (x1 - x0) : 0.5 * kDegree;
    const double padY = y1 > y0 ? 0.05 * (y1 - y0) : 0.5 * kDegree;
    out.contentBounds = QRectF(x0 - padX, y0 - padY, x1 - x0 + 2 * padX, y1 - y0 + 2 * padY);
    return out;
}

void SkyPlot::applyProjected(Projected projected) {
    m_extent = projected.extent;
    m_projection = projected.projection;
    // Short, so that the row of controls fits a narrow dock.
    m_projectionCombo->setItemText(
        0, projected.suggested == SkyProjectionKind::PlateCarree
               ? tr("Auto (RA/Dec)")
               : tr("Auto (%1)").arg(
                     QString::fromUtf8(skyProjectionInfo(projected.suggested).name.data())));
    m_dataGroup = std::move(projected.data);
    m_data2Group = std::move(projected.data2);
    m_randomGroup = std::move(projected.randoms);
    m_contentBounds = projected.contentBounds;
    m_viewIsReset = true;
    rebuild();
}

void SkyPlot::reproject() {
    ProjectionInputs inputs{m_data, m_data2, m_randoms, m_projectionCombo->currentIndex()};
    std::size_t points = (m_data ? m_data->size() : 0) + (m_data2 ? m_data2->size() : 0);
    for (const auto& random : m_randoms)
        points += random->size();
    const quint64 generation = ++m_projectionGeneration;
    if (points <= kProjectAtOnce) {
        m_projecting = false;
        applyProjected(project(inputs));
        Q_EMIT projectionDone();
        return;
    }
    // Big catalogs: on a worker thread; the catalogs are shared, so they outlive a replaced
    // request. Only the last request's result is drawn.
    m_projecting = true;
    auto promise = std::make_shared<QPromise<Projected>>();
    QFuture<Projected> future = promise->future();
    promise->start();
    QThreadPool::globalInstance()->start([promise, inputs = std::move(inputs)] {
        promise->addResult(project(inputs));
        promise->finish();
    });
    auto* watcher = new QFutureWatcher<Projected>(this);
    connect(watcher, &QFutureWatcher<Projected>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_projectionGeneration || watcher->future().resultCount() == 0)
            return;
        m_projecting = false;
        applyProjected(watcher->future().takeResult());
        Q_EMIT projectionDone();
    });
    watcher->setFuture(future);
}

void SkyPlot::rebuild() {
    m_rebinTimer->stop();
    m_plot->clearItems();
    m_plot->clearPlottables();
    m_dataGraph = m_randomGraph = m_data2Graph = nullptr;
    m_dataMap = m_randomMap = m_data2Map = m_regionMap = m_maskMap = nullptr;
    m_regionGraphs.clear();
    m_regionsInRaster = 0;
    m_showRegions->setEnabled(m_regions != nullptr);

    // Drawn in this order: the sky's disc, randoms, data, regions, the graticule on top.
    if (m_projection.info().equalArea)
        addSkyOutline(m_plot, m_projection);
    if (m_mask) {
        m_maskMap = addMaskMap(m_plot);
        // A legend entry for the raster: a green square and what the mask is.
        QCPGraph* key = m_plot->addGraph();
        key->setLineStyle(QCPGraph::lsNone);
        key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, QColor(120, 200, 120),
                                             QColor(200, 235, 200), 8));
        key->setName(tr("mask (%1 % of the sky)").arg(100.0 * m_mask->skyFraction(), 0, 'g', 3));
        key->setSelectable(QCP::stNone);
    }
    addGroupLayer(m_randomGroup, Layer::Random);
    addGroupLayer(m_dataGroup, Layer::Data);
    if (m_data2)
        addGroupLayer(m_data2Group, Layer::Data2);
    addRegionLayers();
    if (m_projection.info().equalArea)
        addGraticule(m_plot, m_projection);
    configureAxes();
    updateLegend();
    if (m_viewIsReset)
        fitView();
    rebin();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

namespace {

// How each kind of point is drawn: markers, and the colours of its density raster.
struct LayerStyle {
    QColor marker;
    double size;
    DensityColours density;
};

} // namespace

void SkyPlot::addGroupLayer(const Group& group, Layer layer) {
    static const std::map<Layer, LayerStyle> styles{
        {Layer::Random, {QColor(150, 150, 150, 120), 2.0, randomDensityColours()}},
        {Layer::Data, {QColor(0x1f, 0x4e, 0x9c, 200), 2.5, dataDensityColours()}},
        {Layer::Data2, {QColor(0xd9, 0x5f, 0x02, 210), 2.5, data2DensityColours()}}};
    const LayerStyle& style = styles.at(layer);
    QCPGraph* graph = m_plot->addGraph();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setSelectable(QCP::stNone);
    QCPGraph*& graphSlot = layer == Layer::Data    ? m_dataGraph
                           : layer == Layer::Data2 ? m_data2Graph
                                                   : m_randomGraph;
    QCPColorMap*& mapSlot = layer == Layer::Data    ? m_dataMap
                            : layer == Layer::Data2 ? m_data2Map
                                                    : m_randomMap;
    graphSlot = graph;
    const bool shown = layer != Layer::Random || m_showRandoms->isChecked();
    const bool dense = group.total > kMaxPointsPerGroup;
    const DensityColours& colours = style.density;
    if (dense) {
        // The graph stays empty: its square is the legend's key for the raster.
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, colours.high,
                                               QColor(colours.high).lighter(170), 8));
        if (shown)
            mapSlot = addDensityMap(m_plot, colours);
    } else {
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, style.marker, style.size));
        if (shown) {
            const SkyPlotFrame frame = SkyPlotFrame::of(m_projection);
            QVector<double> x(qsizetype(group.points.size())), y(qsizetype(group.points.size()));
            for (std::size_t i = 0; i < group.points.size(); ++i) {
                const QPointF p = frame.toPlot(group.points.x[i], group.points.y[i]);
                x[qsizetype(i)] = p.x();
                y[qsizetype(i)] = p.y();
            }
            graph->setData(x, y);
        }
    }
    graph->setVisible(shown);
}

void SkyPlot::addRegionLayers() {
    // While new data are projected on the worker thread the drawn points are the old data's:
    // no region of the new data applies to them.
    if (!m_regions || !m_data || !m_showRegions->isChecked() || m_dataGroup.source != m_data)
        return;
    if (m_dataMap) {
        // Dense data: a raster of the region of the first point in each pixel, in place of the
        // data's own shading.
        m_regionMap = addRegionMap(m_plot, m_regionCount);
        m_dataMap->setVisible(false);
        return;
    }
    QVector<QVector<double>> regionX(m_regionCount), regionY(m_regionCount);
    const ProjectedPoints& points = m_dataGroup.points;
    const SkyPlotFrame frame = SkyPlotFrame::of(m_projection);
    for (std::size_t k = 0; k < points.size(); ++k) {
        const int region = (*m_regions)[points.sourceIndex(k)];
        if (region < 0 || region >= m_regionCount)
            continue;
        const QPointF p = frame.toPlot(points.x[k], points.y[k]);
        regionX[region].append(p.x());
        regionY[region].append(p.y());
    }
    for (int region = 0; region < m_regionCount; ++region) {
        QCPGraph* graph = m_plot->addGraph();
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, skyRegionColor(region), 3));
        graph->setData(regionX[region], regionY[region]);
        graph->removeFromLegend();
        graph->setSelectable(QCP::stNone);
        m_regionGraphs.append(graph);
    }
    // The plain data graph keeps its legend entry; its points give way to the coloured ones.
    m_dataGraph->setVisible(false);
}

void SkyPlot::updateLegend() {
    auto describe = [this](const Group& group, const QString& what) {
        QString name = tr("%1 (%2)").arg(what, groupedCount(group.total));
        if (group.total > kMaxPointsPerGroup)
            name += group.stride > 1 ? tr(", density of every %1th").arg(group.stride)
                                     : tr(", density");
        return name;
    };
    QString dataName = describe(m_dataGroup, m_data2 ? tr("data D1") : tr("data"));
    if (m_regionMap || !m_regionGraphs.isEmpty())
        dataName += tr(", coloured by region (%1)").arg(m_regionCount);
    m_dataGraph->setName(m_data ? dataName : tr("data"));
    if (m_data2Graph)
        m_data2Graph->setName(describe(m_data2Group, tr("data D2")));
    m_randomGraph->setName(describe(m_randomGroup, tr("randoms")));
    if (!m_showRandoms->isChecked() || m_randoms.empty())
        m_randomGraph->removeFromLegend();
    m_plot->legend->setVisible(m_data || m_data2 || !m_randoms.empty());
}

void SkyPlot::configureAxes() {
    const bool plain = !m_projection.info().equalArea;
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setVisible(plain);
        axis->grid()->setVisible(plain);
    }
    // The all-sky maps carry −ΔRA in x already; the plain view draws RA itself, growing to the
    // left on a reversed axis (astronomical convention: the sky seen from inside).
    m_plot->xAxis->setRangeReversed(plain);
    if (plain) {
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new SkyRaTicker));
        m_plot->xAxis->setLabel(tr("RA (deg)"));
        m_plot->yAxis->setLabel(tr("Dec (deg)"));
    }
}

double SkyPlot::aspect() const {
    if (m_projection.info().equalArea)
        return 1.0;
    // The plain plane at the field's middle Dec: a degree of RA is cos δ of a degree on the sky.
    const double middle = 0.5 * (m_extent.decMin + m_extent.decMax);
    return std::max(0.1, std::cos(middle));
}

void SkyPlot::fitView() {
    m_fitting = true;
    const QRectF bounds = SkyPlotFrame::of(m_projection).toPlot(m_contentBounds);
    const double width = m_plot->axisRect()->width(), height = m_plot->axisRect()->height();
    if (width < 20 || height < 20) {
        m_plot->xAxis->setRange(bounds.left(), bounds.right());
        m_plot->yAxis->setRange(bounds.top(), bounds.bottom());
    } else {
        // The largest scale at which the bounds fit, the same on both axes (times the aspect).
        const double c = aspect();
        const double pixelsPerY = std::min(width / (bounds.width() * c), height / bounds.height());
        m_plot->xAxis->setRange(bounds.center().x(), width / (pixelsPerY * c), Qt::AlignCenter);
        m_plot->yAxis->setRange(bounds.center().y(), height / pixelsPerY, Qt::AlignCenter);
    }
    m_viewIsReset = true;
    m_fitting = false;
}

void SkyPlot::keepAspect() {
    const double width = m_plot->axisRect()->width(), height = m_plot->axisRect()->height();
    if (width < 20 || height < 20)
        return;
    const double pixelsPerY = width / (m_plot->xAxis->range().size() * aspect());
    m_plot->yAxis->setRange(m_plot->yAxis->range().center(), height / pixelsPerY, Qt::AlignCenter);
}

QRectF SkyPlot::visibleBounds() const {
    // The rasters cover what is in view, within the sky (or the field): pixels are spent only
    // where points can be.
    QRectF limit = m_contentBounds;
    if (m_projection.info().equalArea) {
        const SkyProjectionInfo& info = m_projection.info();
        limit = QRectF(-info.xMax, -info.yMax, 2 * info.xMax, 2 * info.yMax);
    }
    const QRectF view =
        SkyPlotFrame::of(m_projection).toPlane(m_plot->xAxis->range(), m_plot->yAxis->range());
    return view.intersected(limit);
}

QSize SkyPlot::rasterSize(const QRectF& area, const Group& group) const {
    std::size_t inView = 0;
    for (std::size_t i = 0; i < group.points.size(); ++i)
        inView += area.contains(group.points.x[i], group.points.y[i]);
    // About four points per pixel of the area, a pixel at least 1.5 screen pixels wide.
    double screenWidth = m_plot->axisRect()->width(), screenHeight = m_plot->axisRect()->height();
    if (screenWidth < 100 || screenHeight < 50) { // not laid out yet
        screenWidth = 800;
        screenHeight = 400;
    }
    const QRectF view =
        SkyPlotFrame::of(m_projection).toPlane(m_plot->xAxis->range(), m_plot->yAxis->range());
    const double areaWidth = screenWidth * area.width() / view.width();
    const double areaHeight = screenHeight * area.height() / view.height();
    const double cells = std::max(64.0, double(inView) / 4);
    const double shape = std::max(areaWidth, 1.0) / std::max(areaHeight, 1.0);
    const int columns = int(std::clamp(std::sqrt(cells * shape), 2.0,
                                       std::max(2.0, std::min(areaWidth / 1.5, 1000.0))));
    const int rows =
        int(std::clamp(columns / shape, 2.0, std::max(2.0, std::min(areaHeight / 1.5, 1000.0))));
    return {columns, rows};
}

void SkyPlot::setMask(std::shared_ptr<const SkyMask> mask) {
    m_mask = std::move(mask);
    rebuild();
}

void SkyPlot::rebin() {
    const QRectF area = visibleBounds();
    const SkyPlotFrame frame = SkyPlotFrame::of(m_projection);
    const bool empty = area.width() <= 0 || area.height() <= 0;
    if (m_maskMap) {
        // A cell every three screen pixels of the view: the mask's edges as sharp as the points.
        const QRectF view = frame.toPlane(m_plot->xAxis->range(), m_plot->yAxis->range());
        const double width = std::max(100, m_plot->axisRect()->width());
        const double height = std::max(50, m_plot->axisRect()->height());
        const QSize size(int(std::clamp(width * area.width() / view.width() / 3.0, 2.0, 600.0)),
                         int(std::clamp(height * area.height() / view.height() / 3.0, 2.0, 400.0)));
        const SkyRasterSpec spec = specFor(area, size);
        if (empty)
            m_maskMap->data()->clear();
        else
            fillMaskMap(m_maskMap, skyMaskRaster(*m_mask, m_projection, spec), spec, frame);
    }
    const std::pair<QCPColorMap*, const Group*> layers[] = {{m_dataMap, &m_dataGroup},
                                                            {m_data2Map, &m_data2Group},
                                                            {m_randomMap, &m_randomGroup}};
    for (const auto& [map, group] : layers) {
        if (!map)
            continue;
        if (empty) {
            map->data()->clear();
            continue;
        }
        const SkyRasterSpec spec = specFor(area, rasterSize(area, *group));
        fillDensityMap(map, binProjected(group->points, spec, m_projection), frame);
        if (map == m_dataMap && m_regionMap)
            m_regionsInRaster =
                fillRegionMap(m_regionMap, labelRaster(group->points, *m_regions, spec), spec,
                              frame, m_regionCount);
    }
}

} // namespace tpacf::ui
