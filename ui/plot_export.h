// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Plot export at publication size: PNG (pixel size and DPI chosen by the user) and vector PDF.
#include <QDialog>
#include <QSize>
#include <QString>

class QComboBox;
class QCustomPlot;
class QSpinBox;

namespace tpacf::ui {

struct PlotExportSettings {
    int widthPx = 1800; // a 6 × 4 inch figure at 300 dpi
    int heightPx = 1200;
    int dpi = 300;
};

/// The size, in screen pixels, the figure is laid out at before savePlotPng/savePlotPdf scale it
/// to the paper: (widthPx/dpi) × (heightPx/dpi) inches at 96 px per inch.
QSize plotLayoutSize(const PlotExportSettings& settings);

/// Writes exactly widthPx × heightPx pixels, tagged with `dpi`. Fonts and lines are scaled as
/// for a (widthPx/dpi) × (heightPx/dpi) inch figure, so text keeps its size in a paper.
bool savePlotPng(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 QString* error);
/// Vector PDF of the same figure size (widthPx/dpi × heightPx/dpi inches).
bool savePlotPdf(QCustomPlot* plot, const QString& path, const PlotExportSettings& settings,
                 const QString& title, QString* error);

/// Asks for the PNG size and DPI.
class PlotExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit PlotExportDialog(const PlotExportSettings& initial, QWidget* parent = nullptr);
    PlotExportSettings settings() const;

private:
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QSpinBox* m_dpi = nullptr;
};

} // namespace tpacf::ui
