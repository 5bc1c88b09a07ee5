// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Sky preview: the data over their randoms (shown by default, so data off their randoms'
// footprint stand out), as astronomers draw the sky: RA growing to the left, a Mollweide (or
// Hammer–Aitoff) map with a graticule for wide footprints, the plain RA/Dec plane for small
// fields (chosen from the footprint's extent; the user can override). Up to kMaxPointsPerGroup
// points a group is drawn as markers, above it as a density raster binned by core; after a
// jackknife run the data are coloured by the region the core put each point in. Zoom with the
// wheel, pan by dragging; the rasters are re-binned for what is in view.
#include <tpacf/catalog.h>
#include <tpacf/sky_mask.h>
#include <tpacf/sky_projection.h>

#include <QWidget>

#include <QList>
#include <QPointF>
#include <QRectF>
#include <QSize>

#include <cstdint>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPGraph;
class QCustomPlot;
class QPushButton;
class QTimer;

namespace tpacf::ui {

class SkyPlot : public QWidget {
    Q_OBJECT
public:
    /// Points drawn as markers per catalog group at most; a larger group is shaded as a density
    /// raster (10⁶ markers would stall the GUI thread and show nothing more).
    static constexpr std::size_t kMaxPointsPerGroup = 50000;
    /// Points binned per group at most; above it an even subsample (every k-th point), which
    /// keeps the projected positions in memory small and a re-bin on zoom quick (binning three
    /// groups of 5 × 10⁵ points keeps the window's thread under ~100 ms on a laptop core).
    static constexpr std::size_t kMaxDensityPoints = 500000;
    /// Catalogs of up to this many points in all are projected at once; more are projected on a
    /// worker thread (about 70 ms per 10⁶ points), the previous drawing kept meanwhile, so that
    /// loading 10⁷ points never freezes the window.
    static constexpr std::size_t kProjectAtOnce = 1000000;

    explicit SkyPlot(QWidget* parent = nullptr);

    /// A cross-correlation's second sample: `data2` drawn apart from the first data (orange,
    /// its own legend entry), `randoms2` with the randoms.
    void setCatalogs(std::shared_ptr<const Catalog> data,
                     std::vector<std::shared_ptr<const Catalog>> randoms,
                     std::shared_ptr<const Catalog> data2 = nullptr,
                     std::vector<std::shared_ptr<const Catalog>> randoms2 = {});
    /// The jackknife region of each data point (as in JackknifeRegionsSummary::dataRegions) and
    /// the region count; null clears. Ignored when its size is not the data's. New data clears it.
    void setRegions(std::shared_ptr<const std::vector<std::int32_t>> regions, int count);
    /// A footprint mask drawn under the points (its completeness in green); null: none.
    void setMask(std::shared_ptr<const SkyMask> mask);
    bool hasMask() const { return m_mask != nullptr; }
    QCPColorMap* maskMap() const { return m_maskMap; }
    bool hasRegions() const { return m_regions != nullptr; }
    const std::shared_ptr<const std::vector<std::int32_t>>& regions() const { return m_regions; }
    /// The "Colour by region" toggle (enabled while regions are known).
    QCheckBox* regionsCheck() const { return m_showRegions; }
    /// The "Show randoms" toggle (on by default).
    QCheckBox* randomsCheck() const { return m_showRandoms; }
    /// The projection choice: "Auto" first, then core's projection table in its order.
    QComboBox* projectionCombo() const { return m_projectionCombo; }
    QPushButton* resetViewButton() const { return m_resetView; }
    /// Regions drawn in their own colour (0 when the map is off).
    int plottedRegions() const;

    QCustomPlot* plot() const { return m_plot; }
    /// Points currently drawn for the data and for all randoms together (markers, or the sum
    /// of the density raster's cells: the points binned in view).
    int plottedDataPoints() const;
    int plottedRandomPoints() const;
    /// The second data catalog's points drawn (0 without one).
    int plottedData2Points() const;

    /// The projection in use (the automatic choice or the user's) and its central RA.
    const SkyProjection& projection() const { return m_projection; }
    /// Where a direction (radians) is drawn, in plot coordinates.
    QPointF mapPosition(double ra, double dec) const;
    /// The density rasters; null while that group is drawn as markers (or absent).
    QCPColorMap* dataDensity() const { return m_dataMap; }
    QCPColorMap* randomDensity() const { return m_randomMap; }
    /// Whether the region colouring is drawn as a raster (dense data) rather than markers.
    bool regionsAsRaster() const { return m_regionMap != nullptr; }

    /// Whether catalogs given last are still being projected on the worker thread (their
    /// drawing follows; projectionDone() is emitted then).
    bool isProjecting() const { return m_projecting; }

Q_SIGNALS:
    /// The catalogs given last are drawn (after a projection on the worker thread).
    void projectionDone();

public slots:
    /// Back to the whole footprint (the whole sky for Mollweide and Hammer–Aitoff).
    void resetView();

private:
    struct Group {
        ProjectedPoints points;
        std::size_t total = 0;  ///< points in the catalogs, before any subsample
        std::size_t stride = 1; ///< every stride-th point taken
        std::shared_ptr<const Catalog> source; ///< the catalog projected (one-catalog groups)
    };
    /// What the catalogs and the projection chosen (0: Auto, else 1 + its index in core's
    /// table) give: a pure function of its inputs, so that it can run on a worker thread.
    struct ProjectionInputs {
        std::shared_ptr<const Catalog> data, data2;
        std::vector<std::shared_ptr<const Catalog>> randoms;
        int choice = 0;
    };
    struct Projected {
        SkyFootprintExtent extent;
        SkyProjectionKind suggested = SkyProjectionKind::PlateCarree;
        SkyProjection projection;
        Group data, data2, randoms;
        QRectF contentBounds;
    };
    static Projected project(const ProjectionInputs& inputs);
    /// Takes a projection's result and draws it (the view fitted to it).
    void applyProjected(Projected projected);

    /// Projects the catalogs (at once, or on the worker thread for big ones) and draws them.
    void reproject();
    void rebuild();
    void rebin();
    void fitView();
    void keepAspect();
    void configureAxes();
    /// What a group of points is, for its colours and its place in the drawing order.
    enum class Layer { Random, Data, Data2 };
    void addGroupLayer(const Group& group, Layer layer);
    void addRegionLayers();
    void updateLegend();
    QRectF visibleBounds() const;
    double aspect() const; ///< screen width of one x unit over that of one y unit
    QSize rasterSize(const QRectF& area, const Group& group) const;

    QCustomPlot* m_plot = nullptr;
    QCheckBox* m_showRandoms = nullptr;
    QCheckBox* m_showRegions = nullptr;
    QComboBox* m_projectionCombo = nullptr;
    QPushButton* m_resetView = nullptr;
    QTimer* m_rebinTimer = nullptr;

    QCPGraph* m_dataGraph = nullptr;
    QCPGraph* m_randomGraph = nullptr;
    QCPGraph* m_data2Graph = nullptr;
    QCPColorMap* m_dataMap = nullptr;
    QCPColorMap* m_data2Map = nullptr;
    QCPColorMap* m_randomMap = nullptr;
    QCPColorMap* m_regionMap = nullptr;
    QCPColorMap* m_maskMap = nullptr;
    std::shared_ptr<const SkyMask> m_mask;
    QList<QCPGraph*> m_regionGraphs;
    int m_regionsInRaster = 0;

    std::shared_ptr<const std::vector<std::int32_t>> m_regions;
    int m_regionCount = 0;
    std::shared_ptr<const Catalog> m_data;
    std::vector<std::shared_ptr<const Catalog>> m_randoms; // both samples' randoms
    std::shared_ptr<const Catalog> m_data2;

    SkyFootprintExtent m_extent;
    SkyProjection m_projection;
    Group m_dataGroup;
    Group m_randomGroup;
    Group m_data2Group;
    QRectF m_contentBounds; ///< what Reset view shows, in the projection's plane
    bool m_viewIsReset = true;
    bool m_projecting = false;
    quint64 m_projectionGeneration = 0; ///< a worker's result older than the last request is dropped
    bool m_fitting = false;
    QSize m_lastRectSize;
};

} // namespace tpacf::ui
