// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The drawing pieces of the Sky preview: the graticule of an all-sky projection, degree tick
// labels for the plain RA/Dec view, and colour maps of core's density and region rasters. The
// numbers (projections, rasters) all come from core's sky_projection.h.
#include <tpacf/sky_projection.h>

#include <qcustomplot.h>

#include <QColor>
#include <QPointF>
#include <QRectF>

#include <cstdint>
#include <vector>

namespace tpacf::ui {

/// Well-separated colours for region labels: neighbouring labels never look alike.
QColor skyRegionColor(int region, double alpha = 0.85);

/// How the projection's plane is drawn: the all-sky maps as they are (x already carries −ΔRA);
/// the plain view in degrees of RA and Dec on a reversed RA axis, as the Sky preview always
/// drew small fields (x = λ0 − RA offset, so a field across RA 0 stays in one piece: 350°…370°).
struct SkyPlotFrame {
    bool degrees = false;
    double centralDeg = 0;

    static SkyPlotFrame of(const SkyProjection& projection);
    QPointF toPlot(double x, double y) const;
    /// The plane's rectangle (x0, y0, width, height) drawn in the plot's coordinates.
    QRectF toPlot(const QRectF& plane) const;
    /// The plot's key and value ranges as a rectangle of the plane.
    QRectF toPlane(const QCPRange& keys, const QCPRange& values) const;
};

/// RA labels wrapped to [0°, 360°) for the plain view of a field across RA 0.
class SkyRaTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;
};

/// The sky's disc in a pale tone (drawn first, under the densities).
QCPCurve* addSkyOutline(QCustomPlot* plot, const SkyProjection& projection);
/// The rim, meridians every 30° of RA and parallels every 30° of Dec, labelled in degrees (RA
/// every 60° along the equator, Dec beside the left rim), over everything drawn before.
void addGraticule(QCustomPlot* plot, const SkyProjection& projection);

/// The colours a density map fades through, from the emptiest pixel shown to the fullest.
struct DensityColours {
    QColor low;
    QColor high;
};
DensityColours dataDensityColours();
DensityColours randomDensityColours();
/// The second data catalog of a cross-correlation (D2): orange, apart from D1's blue.
DensityColours data2DensityColours();

/// A colour map for a density raster (log scale; empty pixels transparent).
QCPColorMap* addDensityMap(QCustomPlot* plot, const DensityColours& colours);
/// A mask's completeness as a pale green raster (0 transparent, 1 strongest), under the points.
QCPColorMap* addMaskMap(QCustomPlot* plot);
/// Fills it from skyMaskRaster's values (NaN: transparent).
void fillMaskMap(QCPColorMap* map, const std::vector<double>& raster, const SkyRasterSpec& spec,
                 const SkyPlotFrame& frame);
/// Puts `grid` in `map`: one cell per pixel, the cells centred on the pixels' centres.
void fillDensityMap(QCPColorMap* map, const SkyDensityGrid& grid, const SkyPlotFrame& frame);
/// A colour map of a region raster (−1 transparent), one colour per region.
QCPColorMap* addRegionMap(QCustomPlot* plot, int regionCount);
/// Fills it; returns how many distinct regions it shows.
int fillRegionMap(QCPColorMap* map, const std::vector<std::int32_t>& raster,
                  const SkyRasterSpec& spec, const SkyPlotFrame& frame, int regionCount);
/// Sum of a density map's cells (NaN cells count 0).
std::uint64_t densityCellSum(const QCPColorMap* map);

} // namespace tpacf::ui
