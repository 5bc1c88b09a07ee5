// SPDX-License-Identifier: GPL-3.0-or-later
#include "sky_map_layers.h"

#include <tpacf/units.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpacf::ui {

namespace {

constexpr double kGraticuleStep = 30.0; // degrees, both ways
constexpr double kRaLabelStep = 60.0;   // every second meridian: 12 labels crowd a dock
// Just inside the far meridian, so a line along it does not jump to the other rim.
constexpr double kRimInset = 1e-9;

QPen graticulePen() {
    // Mid grey: lighter than the densest shading, darker than the empty sky.
    QPen pen(QColor(150, 150, 150, 190));
    pen.setWidthF(0.8);
    return pen;
}

QCPCurve* addPolyline(QCustomPlot* plot, const QVector<double>& x, const QVector<double>& y,
                      const QPen& pen) {
    auto* curve = new QCPCurve(plot->xAxis, plot->yAxis);
    curve->setData(x, y);
    curve->setPen(pen);
    curve->removeFromLegend();
    curve->setSelectable(QCP::stNone);
    return curve;
}

QCPItemText* addLabel(QCustomPlot* plot, double x, double y, const QString& text,
                      Qt::Alignment alignment) {
    auto* label = new QCPItemText(plot);
    label->position->setCoords(x, y);
    label->setPositionAlignment(alignment);
    label->setText(text);
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() * 0.8);
    label->setFont(font);
    label->setColor(QColor(50, 50, 50));
    // Readable over dense shading too.
    label->setBrush(QColor(255, 255, 255, 170));
    label->setPadding(QMargins(2, 0, 2, 0));
    label->setSelectable(false);
    return label;
}

QString degrees(double value) {
    const QString text = QStringLiteral("%1°").arg(std::abs(value), 0, 'f', 0);
    return value < 0 ? QStringLiteral("−") + text : text;
}

} // namespace

QColor skyRegionColor(int region, double alpha) {
    // Hues a golden-ratio step apart: k-means puts consecutive labels side by side.
    const double hue = std::fmod(0.07 + region * 0.6180339887498949, 1.0);
    const double value = region % 2 == 0 ? 0.85 : 0.65;
    return QColor::fromHsvF(float(hue), 0.8f, float(value), float(alpha));
}

SkyPlotFrame SkyPlotFrame::of(const SkyProjection& projection) {
    SkyPlotFrame frame;
    frame.degrees = !projection.info().equalArea;
    frame.centralDeg = projection.centralRa() / kDegree;
    return frame;
}

QPointF SkyPlotFrame::toPlot(double x, double y) const {
    return degrees ? QPointF(centralDeg - x / kDegree, y / kDegree) : QPointF(x, y);
}

QRectF SkyPlotFrame::toPlot(const QRectF& plane) const {
    if (!degrees)
        return plane;
    return QRectF(centralDeg - plane.right() / kDegree, plane.top() / kDegree,
                  plane.width() / kDegree, plane.height() / kDegree);
}

QRectF SkyPlotFrame::toPlane(const QCPRange& keys, const QCPRange& values) const {
    if (!degrees)
        return QRectF(keys.lower, values.lower, keys.size(), values.size());
    return QRectF((centralDeg - keys.upper) * kDegree, values.lower * kDegree,
                  keys.size() * kDegree, values.size() * kDegree);
}

QString SkyRaTicker::getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                                  int precision) {
    double ra = std::fmod(tick, 360.0);
    if (ra < 0)
        ra += 360.0;
    if (std::abs(ra) < 1e-9 || std::abs(ra - 360.0) < 1e-9)
        ra = 0;
    return QCPAxisTicker::getTickLabel(ra, locale, formatChar, precision);
}

namespace {

QCPCurve* addEllipse(QCustomPlot* plot, const SkyProjection& projection, const QPen& pen) {
    const SkyProjectionInfo& info = projection.info();
    QVector<double> x, y;
    for (int i = 0; i <= 360; ++i) {
        const double t = i * kDegree;
        x.append(info.xMax * std::cos(t));
        y.append(info.yMax * std::sin(t));
    }
    return addPolyline(plot, x, y, pen);
}

} // namespace

QCPCurve* addSkyOutline(QCustomPlot* plot, const SkyProjection& projection) {
    QCPCurve* disc = addEllipse(plot, projection, Qt::NoPen);
    disc->setBrush(QColor(246, 248, 251));
    return disc;
}

void addGraticule(QCustomPlot* plot, const SkyProjection& projection) {
    const QPen pen = graticulePen();
    // The rim over the shading, whose square pixels overhang it.
    QPen rimPen(QColor(70, 70, 70));
    rimPen.setWidthF(1.2);
    addEllipse(plot, projection, rimPen);
    const double central = projection.centralRa();
    // Meridians, except the far one (the rim); each from pole to pole.
    for (double ra = 0; ra < 360; ra += kGraticuleStep) {
        const double offset = std::remainder(ra * kDegree - central, 2 * kPi);
        if (std::abs(std::abs(offset) - kPi) < 1e-9)
            continue;
        QVector<double> x, y;
        for (int step = -90; step <= 90; ++step) {
            const ProjectedPoint p = projection.forward(ra * kDegree, step * kDegree);
            x.append(p.x);
            y.append(p.y);
        }
        addPolyline(plot, x, y, pen);
        if (std::fmod(ra, kRaLabelStep) == 0) {
            const ProjectedPoint atEquator = projection.forward(ra * kDegree, 0);
            addLabel(plot, atEquator.x, atEquator.y, degrees(ra), Qt::AlignHCenter | Qt::AlignTop);
        }
    }
    // Parallels, rim to rim, labelled outside the left (eastern) rim.
    for (double dec = -90 + kGraticuleStep; dec < 90; dec += kGraticuleStep) {
        QVector<double> x, y;
        for (int step = 0; step <= 180; ++step) {
            const double offset = -kPi + kRimInset + step * (2 * kPi - 2 * kRimInset) / 180;
            const ProjectedPoint p = projection.forward(central + offset, dec * kDegree);
            x.append(p.x);
            y.append(p.y);
        }
        addPolyline(plot, x, y, pen);
        const ProjectedPoint east = projection.forward(central + kPi - kRimInset, dec * kDegree);
        addLabel(plot, east.x, east.y, (dec > 0 ? QStringLiteral("+") : QString()) + degrees(dec),
                 Qt::AlignRight | Qt::AlignVCenter);
    }
}

DensityColours dataDensityColours() {
    return {QColor(120, 175, 230, 170), QColor(8, 38, 110, 255)};
}

DensityColours data2DensityColours() {
    return {QColor(250, 190, 140, 170), QColor(150, 60, 0, 255)};
}

DensityColours randomDensityColours() {
    return {QColor(215, 215, 215, 200), QColor(110, 110, 110, 220)};
}

QCPColorMap* addDensityMap(QCustomPlot* plot, const DensityColours& colours) {
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    QCPColorGradient gradient;
    gradient.setColorStopAt(0, colours.low);
    gradient.setColorStopAt(1, colours.high);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    gradient.setLevelCount(200);
    map->setGradient(gradient);
    // Clustered data span decades per pixel: on a linear scale all but the peaks look empty.
    map->setDataScaleType(QCPAxis::stLogarithmic);
    map->setInterpolate(false);
    map->setTightBoundary(false);
    map->removeFromLegend();
    map->setSelectable(QCP::stNone);
    return map;
}

namespace {

// Cells centred on the pixels: QCPColorMapData's range spans the first to the last centre.
// In the plain view RA grows as x falls, so the map's columns run the other way.
void shapeLike(QCPColorMap* map, const SkyRasterSpec& spec, const SkyPlotFrame& frame) {
    const double halfWidth = 0.5 * (spec.xMax - spec.xMin) / spec.width;
    const double halfHeight = 0.5 * (spec.yMax - spec.yMin) / spec.height;
    const QRectF centres = frame.toPlot(QRectF(spec.xMin + halfWidth, spec.yMin + halfHeight,
                                               spec.xMax - spec.xMin - 2 * halfWidth,
                                               spec.yMax - spec.yMin - 2 * halfHeight));
    map->data()->setSize(spec.width, spec.height);
    map->data()->setRange(QCPRange(centres.left(), centres.right()),
                          QCPRange(centres.top(), centres.bottom()));
}

// The map's column showing the raster's `column`.
int mapColumn(int column, const SkyRasterSpec& spec, const SkyPlotFrame& frame) {
    return frame.degrees ? spec.width - 1 - column : column;
}

} // namespace

void fillDensityMap(QCPColorMap* map, const SkyDensityGrid& grid, const SkyPlotFrame& frame) {
    const SkyRasterSpec& spec = grid.spec;
    if (spec.width < 2 || spec.height < 2) {
        map->data()->clear();
        return;
    }
    shapeLike(map, spec, frame);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int row = 0; row < spec.height; ++row)
        for (int column = 0; column < spec.width; ++column) {
            const std::uint64_t count = grid.at(column, row);
            map->data()->setCell(mapColumn(column, spec, frame), row,
                                 count > 0 ? double(count) : nan);
        }
    // The tones span the 2nd to the 99.5th percentile of the filled pixels: over a footprint
    // that is filled everywhere, 1…max would leave the clustering in a sliver of the scale.
    std::vector<std::uint64_t> filled;
    for (const std::uint64_t count : grid.counts)
        if (count > 0)
            filled.push_back(count);
    double low = 1, high = 10;
    if (!filled.empty()) {
        auto quantile = [&filled](double q) {
            auto nth = filled.begin() + std::ptrdiff_t(q * double(filled.size() - 1));
            std::nth_element(filled.begin(), nth, filled.end());
            return double(*nth);
        };
        low = std::max(1.0, quantile(0.02));
        high = std::max(quantile(0.995), 4 * low);
    }
    map->setDataRange(QCPRange(low, high));
}

QCPColorMap* addMaskMap(QCustomPlot* plot) {
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    QCPColorGradient gradient;
    gradient.setColorStopAt(0, QColor(200, 235, 200, 90));
    gradient.setColorStopAt(1, QColor(120, 200, 120, 150));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    gradient.setLevelCount(50);
    map->setGradient(gradient);
    map->setDataRange(QCPRange(0, 1));
    map->setInterpolate(false);
    map->setTightBoundary(false);
    map->removeFromLegend();
    map->setSelectable(QCP::stNone);
    return map;
}

void fillMaskMap(QCPColorMap* map, const std::vector<double>& raster, const SkyRasterSpec& spec,
                 const SkyPlotFrame& frame) {
    if (spec.width < 2 || spec.height < 2 ||
        raster.size() != std::size_t(spec.width) * std::size_t(spec.height)) {
        map->data()->clear();
        return;
    }
    shapeLike(map, spec, frame);
    for (int row = 0; row < spec.height; ++row)
        for (int column = 0; column < spec.width; ++column)
            map->data()->setCell(mapColumn(column, spec, frame), row,
                                 raster[std::size_t(row) * std::size_t(spec.width) + column]);
}

QCPColorMap* addRegionMap(QCustomPlot* plot, int regionCount) {
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    // One stop per region at its own level, so each label keeps its exact colour.
    QCPColorGradient gradient;
    const int levels = std::clamp(regionCount, 2, 350);
    for (int region = 0; region < levels; ++region)
        gradient.setColorStopAt(double(region) / (levels - 1), skyRegionColor(region, 0.8));
    gradient.setLevelCount(levels);
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    map->setGradient(gradient);
    map->setDataRange(QCPRange(0, levels - 1));
    map->setInterpolate(false);
    map->setTightBoundary(false);
    map->removeFromLegend();
    map->setSelectable(QCP::stNone);
    return map;
}

int fillRegionMap(QCPColorMap* map, const std::vector<std::int32_t>& raster,
                  const SkyRasterSpec& spec, const SkyPlotFrame& frame, int regionCount) {
    if (spec.width < 2 || spec.height < 2 ||
        raster.size() != std::size_t(spec.width) * spec.height) {
        map->data()->clear();
        return 0;
    }
    shapeLike(map, spec, frame);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<bool> shown(std::size_t(std::max(regionCount, 0)), false);
    for (int row = 0; row < spec.height; ++row)
        for (int column = 0; column < spec.width; ++column) {
            const std::int32_t label = raster[std::size_t(row) * spec.width + column];
            const bool valid = label >= 0 && label < regionCount;
            map->data()->setCell(mapColumn(column, spec, frame), row, valid ? double(label) : nan);
            if (valid)
                shown[std::size_t(label)] = true;
        }
    return int(std::count(shown.begin(), shown.end(), true));
}

std::uint64_t densityCellSum(const QCPColorMap* map) {
    QCPColorMapData* data = map->data();
    std::uint64_t sum = 0;
    for (int column = 0; column < data->keySize(); ++column)
        for (int row = 0; row < data->valueSize(); ++row) {
            const double value = data->cell(column, row);
            if (std::isfinite(value))
                sum += std::uint64_t(std::llround(value));
        }
    return sum;
}

} // namespace tpacf::ui
