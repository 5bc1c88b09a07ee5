// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Sky preview: RA/Dec scatter of the data over the randoms (shown by default, so data off
// their randoms' footprint stand out); after a jackknife run, the data coloured by the region the
// core put each point in.
#include <tpacf/catalog.h>

#include <QWidget>

#include <QList>

#include <cstdint>
#include <memory>
#include <vector>

class QCheckBox;
class QCPGraph;
class QCustomPlot;

namespace tpacf::ui {

class SkyPlot : public QWidget {
    Q_OBJECT
  public:
    /// Points drawn per catalog group at most; above it the preview takes an even subsample
    /// (drawing millions of markers would stall the GUI thread and shows nothing more).
    static constexpr std::size_t kMaxPointsPerGroup = 50000;

    explicit SkyPlot(QWidget* parent = nullptr);

    void setCatalogs(std::shared_ptr<const Catalog> data,
                     std::vector<std::shared_ptr<const Catalog>> randoms);
    /// The jackknife region of each data point (as in JackknifeRegionsSummary::dataRegions) and
    /// the region count; null clears. Ignored when its size is not the data's. New data clears it.
    void setRegions(std::shared_ptr<const std::vector<std::int32_t>> regions, int count);
    bool hasRegions() const { return m_regions != nullptr; }
    /// The "Colour by region" toggle (enabled while regions are known).
    QCheckBox* regionsCheck() const { return m_showRegions; }
    /// The "Show randoms" toggle (on by default).
    QCheckBox* randomsCheck() const { return m_showRandoms; }
    /// Regions drawn in their own colour (0 when the map is off).
    int plottedRegions() const;

    QCustomPlot* plot() const { return m_plot; }
    /// Points currently drawn for the data and for all randoms together.
    int plottedDataPoints() const;
    int plottedRandomPoints() const;

  private:
    void rebuild();

    QCustomPlot* m_plot = nullptr;
    QCheckBox* m_showRandoms = nullptr;
    QCheckBox* m_showRegions = nullptr;
    QCPGraph* m_dataGraph = nullptr;
    QCPGraph* m_randomGraph = nullptr;
    QList<QCPGraph*> m_regionGraphs;
    std::shared_ptr<const std::vector<std::int32_t>> m_regions;
    int m_regionCount = 0;
    std::shared_ptr<const Catalog> m_data;
    std::vector<std::shared_ptr<const Catalog>> m_randoms;
};

} // namespace tpacf::ui
