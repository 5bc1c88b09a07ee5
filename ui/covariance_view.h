// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The jackknife covariance of w(θ) as a colour map over (θ_i, θ_j), with a colour scale, shown as
// the covariance itself or as the correlation matrix C_ij / (σ_i σ_j). The matrix and σ come
// from the core's result; this view only draws them.
#include "job_worker.h"

#include <QWidget>

#include <vector>

class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QCustomPlot;
class QComboBox;
class QLabel;

namespace tpacf::ui {

class FittedTitle;

class CovarianceView : public QWidget {
    Q_OBJECT
  public:
    enum class Mode { Correlation = 0, Covariance = 1 };

    explicit CovarianceView(QWidget* parent = nullptr);

    /// Shows the result's covariance; a result without jackknife clears the map and says how to
    /// get one.
    void setResult(const ResultPtr& result);
    void clear() { setResult(nullptr); }

    Mode mode() const { return m_mode; }
    void setMode(Mode mode);

    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap() const { return m_map; }
    QString title() const;
    /// Off in a hidden copy drawn as a figure: the title is shown whole (fitted_title.h).
    void setTitleFitting(bool on);
    /// Bins shown per side (0 when no matrix is shown).
    int matrixSize() const { return m_size; }
    /// The value drawn in cell (i, j): the covariance, or the correlation in that mode.
    double cellValue(int i, int j) const;

  Q_SIGNALS:
    void readout(const QString& text);

  private:
    void rebuild();
    void onMouseMove(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QCPTextElement* m_title = nullptr;
    FittedTitle* m_titleFit = nullptr; // the title elided to the plot's width on screen
    QComboBox* m_modeCombo = nullptr;
    QLabel* m_note = nullptr;
    ResultPtr m_result;
    std::vector<double> m_correlation; // the core's correlation matrix of m_result
    Mode m_mode = Mode::Correlation;
    int m_size = 0;
};

} // namespace tpacf::ui
