// SPDX-License-Identifier: GPL-3.0-or-later
#include "binning_panel.h"

#include "catalog_source.h"

#include <tpacf/errors.h>

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPalette>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace tpacf::ui {

namespace {
// QDoubleSpinBox rounds every value to its decimals: 30 keep 17 significant digits down to
// 1e-13, so a value converted to radians (1 arcsec is 4.8e-6 rad) is held exactly. The text
// shown stays short (textFromValue).
constexpr int kSpinDecimals = 30;

// Arcseconds per unit among the sexagesimal units (0 for radians).
int arcsecondsPer(AngleUnit unit) {
    switch (unit) {
    case AngleUnit::Degree:
        return 3600;
    case AngleUnit::Arcminute:
        return 60;
    case AngleUnit::Arcsecond:
        return 1;
    case AngleUnit::Radian:
        return 0;
    }
    return 0;
}
} // namespace

double convertAngle(double value, AngleUnit from, AngleUnit to) {
    if (from == to)
        return value;
    const int fromSeconds = arcsecondsPer(from), toSeconds = arcsecondsPer(to);
    if (fromSeconds > 0 && toSeconds > 0)
        return fromSeconds > toSeconds ? value * double(fromSeconds / toSeconds)
                                       : value / double(toSeconds / fromSeconds);
    return fromRadians(toRadians(value, from), to); // one of them is rad: one factor applies
}

CompactDoubleSpinBox::CompactDoubleSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    setDecimals(kSpinDecimals);
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
    if (a.scale == BinScale::Custom || b.scale == BinScale::Custom)
        return a.scale == b.scale && a.unit == b.unit && a.edges == b.edges;
    return a.scale == b.scale && a.unit == b.unit && a.min == b.min && a.max == b.max &&
           sizeOf(a) == sizeOf(b);
}

// Largest edges file the Load button reads: kMaxBinCount + 1 numbers fit many times over.
constexpr qint64 kMaxEdgesFileBytes = 16 << 20;

// An edge as the shortest text that reads back to the same double, so that a spec survives the
// text field (and a session) bit for bit. Locale-independent, like the files it comes from.
QString exactEdgeText(double value) {
    char buffer[64];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    if (error != std::errc())
        return QString::number(value, 'g', 17);
    return QString::fromLatin1(buffer, end - buffer);
}

QString edgeListText(const std::vector<double>& edges) {
    QStringList texts;
    texts.reserve(qsizetype(edges.size()));
    for (double edge : edges)
        texts.append(exactEdgeText(edge));
    return texts.join(QStringLiteral(", "));
}

// The custom edges field: numbers separated by commas or white space ('#' starts a comment to
// the end of its line, as in an edges file). The numbers are read in the C locale, like the
// files; sorting, range and count are the core's to judge. Sets `problem` for a non-number.
std::vector<double> parseEdgeList(const QString& text, QString* problem) {
    std::vector<double> edges;
    problem->clear();
    int item = 0;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const QString content = line.section(QLatin1Char('#'), 0, 0);
        static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
        for (const QString& word : content.split(separators, Qt::SkipEmptyParts)) {
            ++item;
            const std::string bytes = word.toStdString();
            std::string_view digits = bytes;
            if (!digits.empty() && digits.front() == '+')
                digits.remove_prefix(1);
            double value = 0;
            const auto [end, error] =
                std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (digits.empty() || error == std::errc::invalid_argument ||
                end != digits.data() + digits.size()) {
                *problem = BinningPanel::tr("Edges: \"%1\" (item %2) is not a number")
                               .arg(word.left(40))
                               .arg(item);
                return edges;
            }
            if (error == std::errc::result_out_of_range || !std::isfinite(value)) {
                *problem = BinningPanel::tr("Edges: \"%1\" (item %2) is not a finite number")
                               .arg(word.left(40))
                               .arg(item);
                return edges;
            }
            edges.push_back(value);
        }
    }
    return edges;
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
    // The longest preset label is wider than the dock column: elide it there rather than widen
    // the panel past the column (a horizontal scroll bar).
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->setMinimumContentsLength(12);

    m_scale = new QComboBox(this);
    m_scale->addItem(tr("Logarithmic"), int(BinScale::Logarithmic));
    m_scale->addItem(tr("Linear"), int(BinScale::Linear));
    m_scale->addItem(tr("Custom edges"), int(BinScale::Custom));

    m_unit = new QComboBox(this);
    for (AngleUnit unit :
         {AngleUnit::Arcsecond, AngleUnit::Arcminute, AngleUnit::Degree, AngleUnit::Radian})
        m_unit->addItem(unitLabel(unit), int(unit));

    m_min = new CompactDoubleSpinBox(this);
    m_max = new CompactDoubleSpinBox(this);
    m_sizeMode = new QComboBox(this);
    m_sizeValue = new CompactDoubleSpinBox(this);

    m_edgesText = new QLineEdit(this);
    m_edgesText->setObjectName(QStringLiteral("customEdges"));
    m_edgesText->setPlaceholderText(QStringLiteral("0.1, 0.3, 1, 3"));
    m_edgesText->setToolTip(tr("Every bin edge in the chosen unit, increasing, separated by "
                               "commas or spaces"));
    m_loadEdges = new QPushButton(tr("Load…"), this);
    m_loadEdges->setToolTip(tr("Read the edges from a file: one edge per line, or \"lo hi\" per "
                               "line as in Corrfunc's bin file"));

    // Rows in their own widgets so that a whole row can be hidden (QFormLayout::setRowVisible
    // needs Qt 6.4; the project builds with 6.2).
    auto rowWidget = [this](QWidget* left, QWidget* middle, QWidget* right) {
        auto* row = new QWidget(this);
        auto* layout = new QHBoxLayout(row);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(left, 1);
        if (middle)
            layout->addWidget(middle);
        if (right)
            layout->addWidget(right, 1);
        return row;
    };
    QWidget* rangeRow = rowWidget(m_min, new QLabel(tr("to"), this), m_max);
    QWidget* sizeRow = rowWidget(m_sizeMode, nullptr, m_sizeValue);
    QWidget* edgesRow = rowWidget(m_edgesText, m_loadEdges, nullptr);
    auto* scaleRow = new QHBoxLayout;
    scaleRow->addWidget(m_scale, 1);
    scaleRow->addWidget(m_unit);
    auto* rangeLabel = new QLabel(tr("Range:"), this);
    auto* sizeLabel = new QLabel(tr("Size:"), this);
    auto* edgesLabel = new QLabel(tr("Edges:"), this);
    edgesLabel->setBuddy(m_edgesText);
    m_rangeRows = {rangeLabel, rangeRow, sizeLabel, sizeRow};
    m_edgesRows = {edgesLabel, edgesRow};

    auto* form = new QFormLayout;
    form->addRow(tr("Preset:"), m_preset);
    form->addRow(tr("Scale:"), scaleRow);
    form->addRow(rangeLabel, rangeRow);
    form->addRow(sizeLabel, sizeRow);
    form->addRow(edgesLabel, edgesRow);

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
        showScaleRows(scale);
        if (scale == BinScale::Custom) {
            // Start from the bins shown so far, so that custom edges are an edit away.
            if (m_edgesText->text().trimmed().isEmpty() && m_binning) {
                const auto edges = m_binning->edges();
                const QSignalBlocker blocker(m_edgesText);
                m_edgesText->setText(edgeListText({edges.begin(), edges.end()}));
            }
            onFieldEdited();
            return;
        }
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
    connect(m_unit, &QComboBox::currentIndexChanged, this, &BinningPanel::onUnitChanged);
    connect(m_edgesText, &QLineEdit::textChanged, this, &BinningPanel::onFieldEdited);
    connect(m_loadEdges, &QPushButton::clicked, this, &BinningPanel::onLoadEdgesClicked);
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
        m_sizeValue->setDecimals(kSpinDecimals);
        m_sizeValue->setSingleStep(mode == SizeMode::PerDecade ? 1.0 : 0.25);
    }
}

void BinningPanel::showScaleRows(BinScale scale) {
    const bool custom = scale == BinScale::Custom;
    for (QWidget* widget : m_rangeRows)
        widget->setVisible(!custom);
    for (QWidget* widget : m_edgesRows)
        widget->setVisible(custom);
}

BinSpec BinningPanel::spec() const {
    BinSpec spec;
    spec.scale = BinScale(m_scale->currentData().toInt());
    spec.unit = AngleUnit(m_unit->currentData().toInt());
    if (spec.scale == BinScale::Custom) {
        // A text that does not read as numbers gives the numbers before the bad one; validate()
        // reports the problem and the panel is invalid until it is fixed.
        QString problem;
        return BinSpec::fromEdges(parseEdgeList(m_edgesText->text(), &problem), spec.unit);
    }
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
        const QSignalBlocker b1(m_scale), b2(m_unit);
        m_scale->setCurrentIndex(qMax(0, m_scale->findData(int(spec.scale))));
        m_unit->setCurrentIndex(qMax(0, m_unit->findData(int(spec.unit))));
        showScaleRows(spec.scale);
        if (spec.scale == BinScale::Custom) {
            const QSignalBlocker b6(m_edgesText);
            m_edgesText->setText(edgeListText(spec.edges));
        }
    }
    if (spec.scale == BinScale::Custom) {
        // The range and size fields keep what they held: switching back restores them.
        m_updating = false;
        onFieldEdited();
        return;
    }
    {
        const QSignalBlocker b3(m_min), b4(m_max), b5(m_sizeValue);
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
    captureUnitAnchor();
    validate();
    syncPresetCombo();
    Q_EMIT changed();
}

void BinningPanel::captureUnitAnchor() {
    m_anchor.unit = AngleUnit(m_unit->currentData().toInt());
    m_anchor.min = m_min->value();
    m_anchor.max = m_max->value();
    m_anchor.size = m_sizeValue->value();
    m_anchor.edgesText = m_edgesText->text();
}

void BinningPanel::onUnitChanged() {
    if (m_updating)
        return;
    // The same angles in the new unit (0–90 deg becomes 0–5400 arcmin), converted from the
    // anchor rather than from the fields, which may already hold converted values.
    const auto unit = AngleUnit(m_unit->currentData().toInt());
    const auto convert = [&](double value) { return convertAngle(value, m_anchor.unit, unit); };
    {
        const QSignalBlocker b1(m_min), b2(m_max), b3(m_sizeValue), b4(m_edgesText);
        m_min->setValue(convert(m_anchor.min));
        m_max->setValue(convert(m_anchor.max));
        // Per decade and count have no unit.
        m_sizeValue->setValue(sizeMode() == SizeMode::Width ? convert(m_anchor.size)
                                                            : m_anchor.size);
        if (unit == m_anchor.unit) {
            m_edgesText->setText(m_anchor.edgesText);
        } else {
            // Edges that do not read as numbers stay as typed: the message says what to fix.
            QString problem;
            std::vector<double> edges = parseEdgeList(m_anchor.edgesText, &problem);
            if (problem.isEmpty() && !edges.empty()) {
                for (double& edge : edges)
                    edge = convert(edge);
                m_edgesText->setText(edgeListText(edges));
            }
        }
    }
    validate();
    syncPresetCombo();
    Q_EMIT changed();
}

bool BinningPanel::loadEdgesFile(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("Cannot open %1: %2").arg(path, file.errorString());
        return false;
    }
    if (file.size() > kMaxEdgesFileBytes) {
        *error = tr("%1 is %2 bytes, too large for an edges file").arg(path).arg(file.size());
        return false;
    }
    const QByteArray bytes = file.readAll();
    std::vector<double> edges;
    try {
        edges = parseBinEdgesText(std::string_view(bytes.constData(), size_t(bytes.size())),
                                  path.toStdString());
    } catch (const std::exception& problem) {
        *error = QString::fromStdString(problem.what());
        return false;
    }
    // Unit as selected: an edges file carries numbers only. A range problem for that unit
    // shows inline like any other.
    setSpec(BinSpec::fromEdges(std::move(edges), AngleUnit(m_unit->currentData().toInt())));
    return true;
}

void BinningPanel::onLoadEdgesClicked() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load Bin Edges"), QString(), tr("Edge files (*.txt *.dat *.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!loadEdgesFile(path, &error))
        QMessageBox::warning(this, tr("Load Bin Edges"), error);
}

void BinningPanel::validate() {
    const bool custom = BinScale(m_scale->currentData().toInt()) == BinScale::Custom;
    m_edgesTextProblem.clear();
    if (custom)
        parseEdgeList(m_edgesText->text(), &m_edgesTextProblem);
    try {
        if (!m_edgesTextProblem.isEmpty())
            throw std::runtime_error(m_edgesTextProblem.toStdString());
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
    {
        QPalette palette = m_edgesText->parentWidget()->palette();
        if (!m_binning && custom)
            palette.setColor(QPalette::Base, QColor(0xff, 0xdd, 0xdd));
        m_edgesText->setPalette(palette);
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
