// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File > Export Plot's dialog: the figure style (journal preset, size, fonts, PNG resolution,
// legend, title, axes, markers, error bars, θ unit) beside a live preview of the figure as it
// will be written, and the style saved to or loaded from the JSON `tpacf run --plot-style` reads.
#include "figure_style.h"
#include "plot_export.h"
#include "plot_panel.h"

#include <QDialog>
#include <QImage>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFontComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace tpacf::ui {

class PlotExportDialog : public QDialog {
    Q_OBJECT
public:
    /// `panel` and `which`: the plot the preview draws; `format`: the file's (PNG shows the DPI).
    PlotExportDialog(const PlotPanel& panel, PlotPanel::Plot which, const FigureStyle& initial,
                     FigureFormat format = FigureFormat::Png, QWidget* parent = nullptr);

    /// The style the controls give (valid when problem() is empty).
    FigureStyle style() const;
    void setStyle(const FigureStyle& style);
    /// What is wrong with the controls' style ("" when it can be written).
    QString problem() const { return style().problem(); }

    /// Redraws the preview now (it otherwise follows the controls after a short pause).
    void updatePreview();
    /// The last preview drawn, at the figure's aspect.
    QImage previewImage() const { return m_previewImage; }

    bool saveStyle(const QString& path, QString* error) const;
    bool loadStyle(const QString& path, QString* error);
    /// The axis ranges of the plot on screen (its pan and zoom), as the style's x and y ranges.
    void useCurrentView();

    QComboBox* presetCombo() const { return m_preset; }
    QComboBox* legendCombo() const { return m_legend; }
    QCheckBox* titleCheck() const { return m_title; }
    QCheckBox* meanThetaCheck() const { return m_meanTheta; }
    QDoubleSpinBox* widthSpin() const { return m_width; }
    QDoubleSpinBox* heightSpin() const { return m_height; }

private:
    struct AxisControls {
        QComboBox* scale = nullptr;
        QLineEdit* min = nullptr;
        QLineEdit* max = nullptr;
    };
    QWidget* createAxisRow(AxisControls& axis);
    void onPresetChosen();
    void onSizeOrFontEdited();
    void onAspectChosen();
    void controlsChanged();
    void updateSizeNote();
    void saveStyleDialog();
    void loadStyleDialog();

    const PlotPanel& m_panel;
    const PlotPanel::Plot m_which;
    const FigureFormat m_format;
    bool m_updating = false; // setStyle() is filling the controls
    FigureStyle::Preset m_presetValue = FigureStyle::Preset::Screen;

    QComboBox* m_preset = nullptr;
    QDoubleSpinBox* m_width = nullptr;
    QDoubleSpinBox* m_height = nullptr;
    QComboBox* m_aspect = nullptr;
    QFontComboBox* m_fontFamily = nullptr;
    QCheckBox* m_appFont = nullptr;
    QDoubleSpinBox* m_fontSize = nullptr;
    QSpinBox* m_dpi = nullptr;
    QLabel* m_sizeNote = nullptr;
    QComboBox* m_legend = nullptr;
    QCheckBox* m_title = nullptr;
    QCheckBox* m_meanTheta = nullptr;
    AxisControls m_x, m_y;
    QComboBox* m_marker = nullptr;
    QDoubleSpinBox* m_markerSize = nullptr;
    QDoubleSpinBox* m_barWidth = nullptr;
    QDoubleSpinBox* m_capWidth = nullptr;
    QComboBox* m_thetaUnit = nullptr;
    QLabel* m_problem = nullptr;
    QLabel* m_preview = nullptr;
    QPushButton* m_ok = nullptr;
    QTimer* m_previewTimer = nullptr;
    QImage m_previewImage;
};

} // namespace tpacf::ui
