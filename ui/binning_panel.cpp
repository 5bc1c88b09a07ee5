#include "binning_panel.h"

#include "catalog_source.h"

#include <tpacf/errors.h>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPalette>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <cmath>

namespace tpacf::ui {

CompactDoubleSpinBox::CompactDoubleSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    setDecimals(8);
    setRange(0.0, 1e7);
    setKeyboardTracking(false);
    setAccelerated(true);
}

QString CompactDoubleSpinBox::textFromValue(double value) const {
    return locale().toString(value, 'g', 8);
}

namespace {
QString formatEdge(double value) {
    return QLocale().toString(value, 'g', 4);
}

// The size field that counts: per decade or count for log bins, width or count for linear.
double sizeOf(const BinSpec& spec) {
    if (spec.scale == BinScale::Logarithmic && spec.perDecade > 0)
        return spec.perDecade;
    if (spec.scale == BinScale::Linear && spec.width > 0)
        return spec.width;
    return -spec.count; // negative: a count, so it never equals a width or per-decade value
}

bool sameSpec(const BinSpec& a, const BinSpec& b) {
    return a.scale == b.scale && a.unit == b.unit && a.min == b.min && a.max == b.max &&
           sizeOf(a) == sizeOf(b);
}
} // namespace

BinningPanel::BinningPanel(QWidget* parent) : QWidget(parent) {
    m_preset = new QComboBox(this);
    m_preset->addItem(tr("Custom"), QString());
    for (const std::string& name : BinSpec::presetNames()) {
        const QString key = QString::fromStdString(name);
        QString label = key;
        try {
            label =
                tr("%1 (%2)").arg(key, QString::fromStdString(BinSpec::preset(name).describe()));
        } catch (const std::exception&) {
            // A preset the core cannot describe is still listed by name.
        }
        m_preset->addItem(label, key);
    }
    m_preset->setToolTip(tr("Fill the fields from a named preset"));

    m_scale = new QComboBox(this);
    m_scale->addItem(tr("Logarithmic"), int(BinScale::Logarithmic));
    m_scale->addItem(tr("Linear"), int(BinScale::Linear));

    m_unit = new QComboBox(this);
    for (AngleUnit unit :
         {AngleUnit::Arcsecond, AngleUnit::Arcminute, AngleUnit::Degree, AngleUnit::Radian})
        m_unit->addItem(unitLabel(unit), int(unit));

    m_min = new CompactDoubleSpinBox(this);
    m_max = new CompactDoubleSpinBox(this);
    m_sizeMode = new QComboBox(this);
    m_sizeValue = new CompactDoubleSpinBox(this);

    auto* rangeRow = new QHBoxLayout;
    rangeRow->addWidget(m_min, 1);
    rangeRow->addWidget(new QLabel(tr("to"), this));
    rangeRow->addWidget(m_max, 1);
    auto* scaleRow = new QHBoxLayout;
    scaleRow->addWidget(m_scale, 1);
    scaleRow->addWidget(m_unit);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_sizeMode, 1);
    sizeRow->addWidget(m_sizeValue, 1);

    auto* form = new QFormLayout;
    form->addRow(tr("Preset:"), m_preset);
    form->addRow(tr("Scale:"), scaleRow);
    form->addRow(tr("Range:"), rangeRow);
    form->addRow(tr("Size:"), sizeRow);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    m_error->setObjectName(QStringLiteral("binningError"));
    m_error->hide();
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("binningSummary"));
    m_edges = new QPlainTextEdit(this);
    m_edges->setReadOnly(true);
    m_edges->setMaximumHeight(fontMetrics().lineSpacing() * 4);
    m_edges->setToolTip(tr("Bin edges in the chosen unit"));

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(m_summary);
    layout->addWidget(m_edges);
    layout->addStretch();

    connect(m_preset, &QComboBox::activated, this, [this](int index) {
        const QString key = m_preset->itemData(index).toString();
        if (!key.isEmpty())
            applyPreset(key);
    });
    connect(m_scale, &QComboBox::currentIndexChanged, this, [this] {
        if (m_updating)
            return;
        const auto scale = BinScale(m_scale->currentData().toInt());
        // Keep "count" across a scale change; per-decade and width only exist for one scale each.
        const SizeMode mode =
            sizeMode() == SizeMode::Count
                ? SizeMode::Count
                : (scale == BinScale::Logarithmic ? SizeMode::PerDecade : SizeMode::Width);
        fillSizeModes(scale, mode);
        onFieldEdited();
    });
    connect(m_sizeMode, &QComboBox::currentIndexChanged, this, [this] {
        if (m_updating)
            return;
        configureSizeSpin(sizeMode());
        onFieldEdited();
    });
    connect(m_unit, &QComboBox::currentIndexChanged, this, &BinningPanel::onFieldEdited);
    for (QDoubleSpinBox* spin :
         {static_cast<QDoubleSpinBox*>(m_min), static_cast<QDoubleSpinBox*>(m_max),
          static_cast<QDoubleSpinBox*>(m_sizeValue)})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &BinningPanel::onFieldEdited);

    setSpec(BinSpec::preset("log5"));
}

BinningPanel::SizeMode BinningPanel::sizeMode() const {
    return SizeMode(m_sizeMode->currentData().toInt());
}

void BinningPanel::fillSizeModes(BinScale scale, SizeMode mode) {
    const QSignalBlocker blocker(m_sizeMode);
    m_sizeMode->clear();
    if (scale == BinScale::Logarithmic)
        m_sizeMode->addItem(tr("Bins per decade"), int(SizeMode::PerDecade));
    else
        m_sizeMode->addItem(tr("Bin width"), int(SizeMode::Width));
    m_sizeMode->addItem(tr("Bin count"), int(SizeMode::Count));
    m_sizeMode->setCurrentIndex(qMax(0, m_sizeMode->findData(int(mode))));
    configureSizeSpin(sizeMode());
}

void BinningPanel::configureSizeSpin(SizeMode mode) {
    const QSignalBlocker blocker(m_sizeValue);
    if (mode == SizeMode::Count) {
        m_sizeValue->setDecimals(0);
        m_sizeValue->setSingleStep(1);
        m_sizeValue->setValue(std::round(m_sizeValue->value()));
    } else {
        m_sizeValue->setDecimals(8);
        m_sizeValue->setSingleStep(mode == SizeMode::PerDecade ? 1.0 : 0.25);
    }
}

BinSpec BinningPanel::spec() const {
    BinSpec spec;
    spec.scale = BinScale(m_scale->currentData().toInt());
    spec.unit = AngleUnit(m_unit->currentData().toInt());
    spec.min = m_min->value();
    spec.max = m_max->value();
    spec.perDecade = 0;
    spec.count = 0;
    spec.width = 0;
    switch (sizeMode()) {
    case SizeMode::PerDecade:
        spec.perDecade = m_sizeValue->value();
        break;
    case SizeMode::Count:
        spec.count = int(std::lround(m_sizeValue->value()));
        break;
    case SizeMode::Width:
        spec.width = m_sizeValue->value();
        break;
    }
    return spec;
}

void BinningPanel::setSpec(const BinSpec& spec) {
    m_updating = true;
    {
        const QSignalBlocker b1(m_scale), b2(m_unit), b3(m_min), b4(m_max), b5(m_sizeValue);
        m_scale->setCurrentIndex(qMax(0, m_scale->findData(int(spec.scale))));
        m_unit->setCurrentIndex(qMax(0, m_unit->findData(int(spec.unit))));
        m_min->setValue(spec.min);
        m_max->setValue(spec.max);
        SizeMode mode = SizeMode::Count;
        double value = spec.count;
        if (spec.scale == BinScale::Logarithmic && spec.perDecade > 0) {
            mode = SizeMode::PerDecade;
            value = spec.perDecade;
        } else if (spec.scale == BinScale::Linear && spec.width > 0) {
            mode = SizeMode::Width;
            value = spec.width;
        }
        fillSizeModes(spec.scale, mode);
        m_sizeValue->setValue(value);
    }
    m_updating = false;
    onFieldEdited();
}

void BinningPanel::applyPreset(const QString& name) {
    try {
        setSpec(BinSpec::preset(name.toStdString()));
    } catch (const std::exception& error) {
        m_problem = QString::fromStdString(error.what());
    }
}

void BinningPanel::onFieldEdited() {
    if (m_updating)
        return;
    validate();
    syncPresetCombo();
    Q_EMIT changed();
}

void BinningPanel::validate() {
    try {
        m_binning.emplace(spec());
        m_problem.clear();
    } catch (const std::exception& error) {
        m_binning.reset();
        m_problem = QString::fromStdString(error.what());
    }

    // Flag the fields inline: a tinted background (a palette change keeps the style's native
    // spin box look, a style sheet would not) and the core's message below them.
    for (QDoubleSpinBox* spin :
         {static_cast<QDoubleSpinBox*>(m_min), static_cast<QDoubleSpinBox*>(m_max),
          static_cast<QDoubleSpinBox*>(m_sizeValue)}) {
        QPalette palette = spin->parentWidget()->palette();
        if (!m_binning)
            palette.setColor(QPalette::Base, QColor(0xff, 0xdd, 0xdd));
        spin->setPalette(palette);
    }
    m_error->setVisible(!m_binning);
    m_error->setText(m_problem);
    if (!m_binning) {
        m_summary->setText(tr("No bins"));
        m_edges->clear();
        return;
    }
    const auto edges = m_binning->edges();
    const QString unit = unitLabel(m_binning->unit());
    m_summary->setText(m_binning->count() == 1
                           ? tr("1 bin, edges in %1:").arg(unit)
                           : tr("%1 bins, edges in %2:").arg(m_binning->count()).arg(unit));
    QStringList edgeTexts;
    edgeTexts.reserve(qsizetype(edges.size()));
    for (double edge : edges)
        edgeTexts.append(formatEdge(edge));
    m_edges->setPlainText(edgeTexts.join(QStringLiteral(", ")));
}

void BinningPanel::syncPresetCombo() {
    // Show the preset name while the fields equal it; "Custom" as soon as they differ.
    const BinSpec current = spec();
    int match = 0;
    for (int i = 1; i < m_preset->count(); ++i) {
        try {
            const BinSpec preset = BinSpec::preset(m_preset->itemData(i).toString().toStdString());
            if (sameSpec(preset, current)) {
                match = i;
                break;
            }
        } catch (const std::exception&) {
        }
    }
    const QSignalBlocker blocker(m_preset);
    m_preset->setCurrentIndex(match);
}

} // namespace tpacf::ui
