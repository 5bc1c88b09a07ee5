// SPDX-License-Identifier: GPL-3.0-or-later
#include "figure_dialog.h"

#include "catalog_source.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFontComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPixmap>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace tpacf::ui {

namespace {

constexpr FigureStyle::Preset kPresets[] = {
    FigureStyle::Preset::Screen, FigureStyle::Preset::SingleColumn,
    FigureStyle::Preset::DoubleColumn, FigureStyle::Preset::Custom};
// Width / height; 0: free.
constexpr double kAspects[] = {0.0, 4.0 / 3.0, 3.0 / 2.0, 1.618, 16.0 / 9.0, 2.0, 1.0};
constexpr AngleUnit kUnits[] = {AngleUnit::Degree, AngleUnit::Arcminute, AngleUnit::Arcsecond,
                                AngleUnit::Radian};
// The preview's box on screen; the figure is drawn at its own aspect inside it.
constexpr int kPreviewWidth = 460, kPreviewHeight = 340;

QDoubleSpinBox* pointSpin(QWidget* parent, double low, double high, const QString& tip) {
    auto* spin = new QDoubleSpinBox(parent);
    spin->setRange(low, high);
    spin->setDecimals(2);
    spin->setSingleStep(0.25);
    spin->setSuffix(QCoreApplication::translate("tpacf::ui::PlotExportDialog", " pt"));
    spin->setToolTip(tip);
    return spin;
}

/// A number typed in the user's locale or in C form; NaN for an empty field (automatic).
double parseRangeValue(const QString& text, bool* ok) {
    *ok = true;
    if (text.trimmed().isEmpty())
        return std::nan("");
    double value = QLocale().toDouble(text.trimmed(), ok);
    if (!*ok)
        value = QLocale::c().toDouble(text.trimmed(), ok);
    return *ok ? value : std::nan("");
}

QString rangeText(double value) {
    return std::isfinite(value) ? QString::number(value, 'g', 6) : QString();
}

} // namespace

PlotExportDialog::PlotExportDialog(const PlotPanel& panel, PlotPanel::Plot which,
                                   const FigureStyle& initial, FigureFormat format, QWidget* parent)
    : QDialog(parent), m_panel(panel), m_which(which), m_format(format) {
    setWindowTitle(tr("Export Plot"));
    m_preset = new QComboBox(this);
    for (FigureStyle::Preset preset : kPresets)
        m_preset->addItem(presetName(preset), int(preset));
    m_preset->setToolTip(tr("Journal sizes: one column of a two-column page is about 3.5 in "
                            "wide, the full text width about 7.2 in"));
    m_width = new QDoubleSpinBox(this);
    m_height = new QDoubleSpinBox(this);
    for (QDoubleSpinBox* spin : {m_width, m_height}) {
        spin->setRange(FigureStyle::kMinInches, FigureStyle::kMaxInches);
        spin->setDecimals(3);
        spin->setSingleStep(0.1);
        spin->setSuffix(tr(" in"));
    }
    m_aspect = new QComboBox(this);
    m_aspect->addItems(
        {tr("free"), tr("4:3"), tr("3:2"), tr("golden (1.618)"), tr("16:9"), tr("2:1"), tr("1:1")});
    m_aspect->setToolTip(tr("Width to height: the height follows the width"));
    m_fontFamily = new QFontComboBox(this);
    m_appFont = new QCheckBox(tr("Application font"), this);
    m_fontSize = pointSpin(this, FigureStyle::kMinFontPt, FigureStyle::kMaxFontPt,
                           tr("Axis labels and tick labels; the legend is 10 % smaller"));
    m_dpi = new QSpinBox(this);
    m_dpi->setRange(FigureStyle::kMinDpi, FigureStyle::kMaxDpi);
    m_dpi->setSuffix(tr(" dpi"));
    m_dpi->setToolTip(tr("PNG only: pixels = inches × dpi. PDF and SVG are vector figures."));
    m_sizeNote = new QLabel(this);
    m_sizeNote->setObjectName(QStringLiteral("sizeNote"));
    m_legend = new QComboBox(this);
    m_legend->addItem(tr("Auto (in a corner clear of the data, else below)"),
                      int(FigureStyle::Legend::Auto));
    m_legend->addItem(tr("Outside (below the axes)"), int(FigureStyle::Legend::Outside));
    m_legend->addItem(tr("Off"), int(FigureStyle::Legend::Off));
    m_title = new QCheckBox(tr("Title line (inputs and N)"), this);
    m_meanTheta = new QCheckBox(tr("Points at ⟨θ⟩ of DD"), this);
    m_meanTheta->setObjectName(QStringLiteral("meanThetaCheck"));
    m_meanTheta->setToolTip(tr("Place each point at the mean separation of its bin's DD pairs "
                               "instead of the bin centre, where the run summed separations "
                               "(Mean separation per bin); other points stay at the centre"));
    m_marker = new QComboBox(this);
    m_marker->addItems({tr("disc"), tr("circle"), tr("square"), tr("triangle"), tr("diamond"),
                        tr("cross"), tr("plus")});
    m_markerSize = pointSpin(this, 0.5, FigureStyle::kMaxMarkerPt, tr("Marker diameter"));
    m_barWidth = pointSpin(this, 0, FigureStyle::kMaxLinePt, tr("Error-bar line width"));
    m_capWidth = pointSpin(this, 0, FigureStyle::kMaxMarkerPt, tr("Width of the bar ends"));
    m_thetaUnit = new QComboBox(this);
    m_thetaUnit->addItem(tr("the bins' unit"));
    for (AngleUnit unit : kUnits)
        m_thetaUnit->addItem(unitLabel(unit));
    m_thetaUnit->setToolTip(tr("θ on the x axis (and in its label) in this unit"));

    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(tr("×"), this));
    sizeRow->addWidget(m_height);
    auto* fontRow = new QHBoxLayout;
    fontRow->addWidget(m_fontFamily, 1);
    fontRow->addWidget(m_fontSize);
    auto* markerRow = new QHBoxLayout;
    markerRow->addWidget(m_marker);
    markerRow->addWidget(m_markerSize);
    auto* barRow = new QHBoxLayout;
    barRow->addWidget(new QLabel(tr("width"), this));
    barRow->addWidget(m_barWidth);
    barRow->addWidget(new QLabel(tr("caps"), this));
    barRow->addWidget(m_capWidth);

    auto* form = new QFormLayout;
    form->addRow(tr("Preset:"), m_preset);
    form->addRow(tr("Size:"), sizeRow);
    form->addRow(tr("Aspect:"), m_aspect);
    form->addRow(tr("Font:"), fontRow);
    form->addRow(QString(), m_appFont);
    form->addRow(tr("Resolution:"), m_dpi);
    form->addRow(QString(), m_sizeNote);
    form->addRow(tr("Legend:"), m_legend);
    form->addRow(QString(), m_title);
    form->addRow(QString(), m_meanTheta);
    form->addRow(tr("θ axis:"), createAxisRow(m_x));
    form->addRow(which == PlotPanel::Plot::Correlation ? tr("w axis:") : tr("y axis:"),
                 createAxisRow(m_y));
    form->addRow(tr("θ unit:"), m_thetaUnit);
    form->addRow(tr("Markers:"), markerRow);
    form->addRow(tr("Error bars:"), barRow);
    // Only w(θ) has a styled y axis, error bars and one marker shape; the covariance map has
    // none of them.
    const bool correlation = which == PlotPanel::Plot::Correlation;
    const bool hasAxes = which != PlotPanel::Plot::Covariance;
    const QList<QWidget*> wOnly{m_y.scale, m_y.min, m_y.max, m_marker, m_barWidth, m_capWidth};
    for (QWidget* widget : wOnly)
        widget->setEnabled(correlation);
    const QList<QWidget*> axesOnly{m_x.scale,   m_x.min,      m_x.max,
                                   m_thetaUnit, m_markerSize, m_legend};
    for (QWidget* widget : axesOnly)
        widget->setEnabled(hasAxes);
    m_dpi->setEnabled(format == FigureFormat::Png);

    auto* viewButton = new QPushButton(tr("Use Current &View"), this);
    viewButton->setToolTip(tr("The axis ranges and log/linear axes of the plot on screen"));
    viewButton->setEnabled(hasAxes);
    auto* loadButton = new QPushButton(tr("&Load Style…"), this);
    auto* saveButton = new QPushButton(tr("&Save Style…"), this);
    saveButton->setToolTip(tr("The style as JSON, for tpacf run --plot FILE --plot-style "
                              "style.json"));
    auto* styleButtons = new QHBoxLayout;
    styleButtons->addWidget(viewButton);
    styleButtons->addWidget(loadButton);
    styleButtons->addWidget(saveButton);

    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("styleProblem"));
    m_problem->setStyleSheet(QStringLiteral("color: #a40000;"));
    m_problem->setWordWrap(true);
    m_preview = new QLabel(this);
    m_preview->setObjectName(QStringLiteral("figurePreview"));
    m_preview->setFixedSize(kPreviewWidth, kPreviewHeight);
    m_preview->setAlignment(Qt::AlignCenter);
    m_preview->setStyleSheet(QStringLiteral("QLabel { background: #8a8a8a; }"));
    m_preview->setToolTip(tr("The figure as it will be written, at its printed proportions"));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Export"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* left = new QVBoxLayout;
    left->addLayout(form);
    left->addLayout(styleButtons);
    left->addWidget(m_problem);
    left->addStretch();
    auto* right = new QVBoxLayout;
    right->addWidget(new QLabel(tr("Preview:"), this));
    right->addWidget(m_preview);
    right->addStretch();
    auto* columns = new QHBoxLayout;
    columns->addLayout(left, 1);
    columns->addLayout(right);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(columns);
    layout->addWidget(buttons);

    m_previewTimer = new QTimer(this);
    m_previewTimer->setSingleShot(true);
    m_previewTimer->setInterval(150);
    connect(m_previewTimer, &QTimer::timeout, this, &PlotExportDialog::updatePreview);

    setStyle(initial);

    connect(m_preset, &QComboBox::currentIndexChanged, this, &PlotExportDialog::onPresetChosen);
    connect(m_aspect, &QComboBox::currentIndexChanged, this, &PlotExportDialog::onAspectChosen);
    for (QDoubleSpinBox* spin : {m_width, m_height, m_fontSize})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &PlotExportDialog::onSizeOrFontEdited);
    connect(m_fontFamily, &QFontComboBox::currentFontChanged, this,
            &PlotExportDialog::onSizeOrFontEdited);
    connect(m_appFont, &QCheckBox::toggled, this, &PlotExportDialog::onSizeOrFontEdited);
    connect(m_dpi, &QSpinBox::valueChanged, this, &PlotExportDialog::controlsChanged);
    for (QComboBox* combo : {m_legend, m_marker, m_thetaUnit, m_x.scale, m_y.scale})
        connect(combo, &QComboBox::currentIndexChanged, this, &PlotExportDialog::controlsChanged);
    connect(m_title, &QCheckBox::toggled, this, &PlotExportDialog::controlsChanged);
    connect(m_meanTheta, &QCheckBox::toggled, this, &PlotExportDialog::controlsChanged);
    for (QDoubleSpinBox* spin : {m_markerSize, m_barWidth, m_capWidth})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &PlotExportDialog::controlsChanged);
    for (QLineEdit* edit : {m_x.min, m_x.max, m_y.min, m_y.max})
        connect(edit, &QLineEdit::textChanged, this, &PlotExportDialog::controlsChanged);
    connect(viewButton, &QPushButton::clicked, this, &PlotExportDialog::useCurrentView);
    connect(loadButton, &QPushButton::clicked, this, &PlotExportDialog::loadStyleDialog);
    connect(saveButton, &QPushButton::clicked, this, &PlotExportDialog::saveStyleDialog);
    updatePreview();
}

QWidget* PlotExportDialog::createAxisRow(AxisControls& axis) {
    auto* row = new QWidget(this);
    axis.scale = new QComboBox(row);
    axis.scale->addItems({tr("auto"), tr("linear"), tr("log")});
    axis.scale->setToolTip(tr("auto: log θ for log bins; w as on screen"));
    axis.min = new QLineEdit(row);
    axis.max = new QLineEdit(row);
    for (QLineEdit* edit : {axis.min, axis.max}) {
        edit->setPlaceholderText(tr("auto"));
        edit->setMaximumWidth(80);
    }
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(axis.scale);
    layout->addWidget(new QLabel(tr("from"), row));
    layout->addWidget(axis.min);
    layout->addWidget(new QLabel(tr("to"), row));
    layout->addWidget(axis.max);
    return row;
}

FigureStyle PlotExportDialog::style() const {
    FigureStyle style;
    style.preset = m_presetValue;
    style.widthIn = m_width->value();
    style.heightIn = m_height->value();
    // The text, not currentFont(): a family this machine lacks (a style file from elsewhere)
    // survives the dialog.
    style.fontFamily = m_appFont->isChecked() ? QString() : m_fontFamily->currentText();
    style.fontPt = m_fontSize->value();
    style.dpi = m_dpi->value();
    style.legend = FigureStyle::Legend(m_legend->currentData().toInt());
    style.title = m_title->isChecked();
    style.pointsAtMeanTheta = m_meanTheta->isChecked();
    const auto readAxis = [](const AxisControls& controls, FigureStyle::Axis& axis) {
        axis.scale = FigureStyle::Scale(controls.scale->currentIndex());
        bool ok = true;
        axis.min = parseRangeValue(controls.min->text(), &ok);
        axis.max = parseRangeValue(controls.max->text(), &ok);
    };
    readAxis(m_x, style.x);
    readAxis(m_y, style.y);
    style.marker = FigureStyle::Marker(m_marker->currentIndex());
    style.markerPt = m_markerSize->value();
    style.errorBarPt = m_barWidth->value();
    style.errorCapPt = m_capWidth->value();
    if (m_thetaUnit->currentIndex() > 0)
        style.thetaUnit = kUnits[m_thetaUnit->currentIndex() - 1];
    return style;
}

void PlotExportDialog::setStyle(const FigureStyle& style) {
    m_updating = true;
    m_presetValue = style.preset;
    m_preset->setCurrentIndex(m_preset->findData(int(style.preset)));
    m_width->setValue(style.widthIn);
    m_height->setValue(style.heightIn);
    m_aspect->setCurrentIndex(0);
    m_appFont->setChecked(style.fontFamily.isEmpty());
    m_fontFamily->setEnabled(!style.fontFamily.isEmpty());
    if (!style.fontFamily.isEmpty()) {
        m_fontFamily->setCurrentFont(QFont(style.fontFamily));
        m_fontFamily->setEditText(style.fontFamily);
    }
    m_fontSize->setValue(style.fontPt);
    m_dpi->setValue(style.dpi);
    m_legend->setCurrentIndex(m_legend->findData(int(style.legend)));
    m_title->setChecked(style.title);
    m_meanTheta->setChecked(style.pointsAtMeanTheta);
    const auto writeAxis = [](AxisControls& controls, const FigureStyle::Axis& axis) {
        controls.scale->setCurrentIndex(int(axis.scale));
        controls.min->setText(rangeText(axis.min));
        controls.max->setText(rangeText(axis.max));
    };
    writeAxis(m_x, style.x);
    writeAxis(m_y, style.y);
    m_marker->setCurrentIndex(int(style.marker));
    m_markerSize->setValue(style.markerPt);
    m_barWidth->setValue(style.errorBarPt);
    m_capWidth->setValue(style.errorCapPt);
    int unitIndex = 0;
    for (int i = 0; i < int(std::size(kUnits)); ++i)
        if (style.thetaUnit == kUnits[i])
            unitIndex = i + 1;
    m_thetaUnit->setCurrentIndex(unitIndex);
    m_updating = false;
    controlsChanged();
}

void PlotExportDialog::onPresetChosen() {
    if (m_updating)
        return;
    const auto preset = FigureStyle::Preset(m_preset->currentData().toInt());
    FigureStyle next = style();
    next.applyPreset(preset);
    setStyle(next);
}

void PlotExportDialog::onSizeOrFontEdited() {
    if (m_updating)
        return;
    m_fontFamily->setEnabled(!m_appFont->isChecked());
    // The height follows the width while an aspect is chosen.
    if (const double aspect = kAspects[m_aspect->currentIndex()]; aspect > 0) {
        const QSignalBlocker blocker(m_height);
        m_height->setValue(m_width->value() / aspect);
    }
    // A size or font of one's own is no longer the preset's.
    const FigureStyle preset = FigureStyle::fromPreset(m_presetValue);
    const FigureStyle now = style();
    if (m_presetValue != FigureStyle::Preset::Custom &&
        (now.widthIn != preset.widthIn || now.heightIn != preset.heightIn ||
         now.fontPt != preset.fontPt)) {
        m_presetValue = FigureStyle::Preset::Custom;
        const QSignalBlocker blocker(m_preset);
        m_preset->setCurrentIndex(m_preset->findData(int(m_presetValue)));
    }
    controlsChanged();
}

void PlotExportDialog::onAspectChosen() {
    if (m_updating)
        return;
    onSizeOrFontEdited();
}

void PlotExportDialog::controlsChanged() {
    if (m_updating)
        return;
    QString problem = this->problem();
    bool ok = true;
    for (QLineEdit* edit : {m_x.min, m_x.max, m_y.min, m_y.max}) {
        parseRangeValue(edit->text(), &ok);
        if (!ok) {
            problem = tr("%1 is not a number (leave the field empty for auto)").arg(edit->text());
            break;
        }
    }
    m_problem->setText(problem);
    m_ok->setEnabled(problem.isEmpty());
    updateSizeNote();
    m_previewTimer->start();
}

void PlotExportDialog::updateSizeNote() {
    const FigureStyle now = style();
    QString text = tr("%1 × %2 in (%3 × %4 mm)")
                       .arg(now.widthIn, 0, 'f', 2)
                       .arg(now.heightIn, 0, 'f', 2)
                       .arg(now.widthIn * 25.4, 0, 'f', 0)
                       .arg(now.heightIn * 25.4, 0, 'f', 0);
    if (m_format == FigureFormat::Png)
        text += tr(", %1 × %2 pixels").arg(now.widthPx()).arg(now.heightPx());
    m_sizeNote->setText(text);
}

void PlotExportDialog::updatePreview() {
    m_previewTimer->stop();
    const FigureStyle now = style();
    if (!now.problem().isEmpty())
        return;
    const double scale =
        std::min(kPreviewWidth / (now.widthIn * 96.0), kPreviewHeight / (now.heightIn * 96.0));
    const QSize pixels(qMax(1, int(now.widthIn * 96.0 * scale)),
                       qMax(1, int(now.heightIn * 96.0 * scale)));
    const std::unique_ptr<PlotPanel> copy = m_panel.figureCopy(now);
    QCustomPlot* plot = copy->plot(m_which);
    styleFigure(plot, now);
    m_previewImage = renderFigure(plot, now, pixels);
    m_preview->setPixmap(QPixmap::fromImage(m_previewImage));
}

bool PlotExportDialog::saveStyle(const QString& path, QString* error) const {
    const FigureStyle now = style();
    if (const QString problem = now.problem(); !problem.isEmpty()) {
        *error = tr("The style is not valid: %1").arg(problem);
        return false;
    }
    return saveFigureStyleFile(path, now, error);
}

bool PlotExportDialog::loadStyle(const QString& path, QString* error) {
    const std::optional<FigureStyle> loaded = loadFigureStyleFile(path, error);
    if (!loaded)
        return false;
    setStyle(*loaded);
    return true;
}

void PlotExportDialog::useCurrentView() {
    QCustomPlot* plot = m_panel.plot(m_which);
    FigureStyle next = style();
    double scale = 1.0;
    if (m_panel.result() && next.thetaUnit)
        scale = radiansPer(m_panel.result()->bins.unit) / radiansPer(*next.thetaUnit);
    const auto take = [](QCPAxis* axis, FigureStyle::Axis& out, double factor) {
        out.scale = axis->scaleType() == QCPAxis::stLogarithmic ? FigureStyle::Scale::Log
                                                                : FigureStyle::Scale::Linear;
        out.min = axis->range().lower * factor;
        out.max = axis->range().upper * factor;
    };
    take(plot->xAxis, next.x, scale);
    if (m_which == PlotPanel::Plot::Correlation)
        take(plot->yAxis, next.y, 1.0);
    setStyle(next);
}

void PlotExportDialog::saveStyleDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Figure Style"), QStringLiteral("figure-style.json"), tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveStyle(path, &error))
        QMessageBox::warning(this, tr("Save Figure Style"), error);
}

void PlotExportDialog::loadStyleDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load Figure Style"), QString(),
                                                      tr("JSON (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!loadStyle(path, &error))
        QMessageBox::warning(this, tr("Load Figure Style"), error);
}

} // namespace tpacf::ui
