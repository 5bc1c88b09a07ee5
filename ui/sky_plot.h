#pragma once
// The Sky preview: RA/Dec scatter of the data and, optionally, the randoms.
#include <tpacf/catalog.h>

#include <QWidget>

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
    QCustomPlot* plot() const { return m_plot; }
    /// Points currently drawn for the data and for all randoms together.
    int plottedDataPoints() const;
    int plottedRandomPoints() const;

  private:
    void rebuild();

    QCustomPlot* m_plot = nullptr;
    QCheckBox* m_showRandoms = nullptr;
    QCPGraph* m_dataGraph = nullptr;
    QCPGraph* m_randomGraph = nullptr;
    std::shared_ptr<const Catalog> m_data;
    std::vector<std::shared_ptr<const Catalog>> m_randoms;
};

} // namespace tpacf::ui
