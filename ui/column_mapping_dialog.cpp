// SPDX-License-Identifier: GPL-3.0-or-later
#include "column_mapping_dialog.h"
#include "column_names.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <charconv>
#include <optional>

namespace tpacf::ui {

using namespace columns;

namespace {

// One line of TablePreview::hdus, "2: RANDOMS (300 rows, 7 columns)" or "3: IMG (image)".
struct HduLine {
    QString number; // the extension number, as d.fits[2] and ReadOptions::hdu take it
    QString name;   // EXTNAME, "(unnamed)" where there is none
    QString text;
    bool table = false; // a binary table: the only kind the reader reads
};

std::optional<HduLine> parseHduLine(const std::string& line) {
    HduLine hdu;
    hdu.text = QString::fromStdString(line);
    const qsizetype colon = hdu.text.indexOf(QLatin1Char(':'));
    bool numeric = false;
    if (colon > 0)
        hdu.text.left(colon).toInt(&numeric);
    if (!numeric)
        return std::nullopt; // "... (70 extensions)"
    hdu.number = hdu.text.left(colon);
    const qsizetype paren = hdu.text.lastIndexOf(QStringLiteral(" ("));
    hdu.name = hdu.text.mid(colon + 1, paren > colon ? paren - colon - 1 : -1).trimmed();
    hdu.table = !hdu.text.endsWith(QStringLiteral("(image)")) &&
                !hdu.text.contains(QStringLiteral("(ASCII table"));
    return hdu;
}

} // namespace

UnitGuess ColumnMappingDialog::guessUnits(const TablePreview& preview, int raColumn,
                                          int decColumn) {
    std::vector<double> ra, dec;
    if (raColumn < 1 || decColumn < 1)
        return {};
    for (const std::vector<std::string>& row : preview.rows) {
        if (row.size() < std::size_t(qMax(raColumn, decColumn)))
            continue;
        const std::optional<double> raValue = fieldValue(row[std::size_t(raColumn - 1)]);
        const std::optional<double> decValue = fieldValue(row[std::size_t(decColumn - 1)]);
        if (raValue && decValue) {
            ra.push_back(*raValue);
            dec.push_back(*decValue);
        }
    }
    return guessCoordinateUnits(CoordinateRanges::of(ra, dec));
}

bool ColumnMappingDialog::needsMapping(const TablePreview& preview) {
    if (preview.hasHeader || preview.columnCount > 2)
        return true;
    // A headerless two-column file would be read in degrees: ask where the values say otherwise.
    return guessUnits(preview, defaultRaColumn(preview), defaultDecColumn(preview))
        .differsFrom(CoordinateUnits{});
}

ColumnMappingDialog::ColumnMappingDialog(const CatalogSource& source, const TablePreview& preview,
                                         QWidget* parent)
    : QDialog(parent), m_source(source) {
    setWindowTitle(tr("Columns of %1").arg(QFileInfo(source.path).fileName()));
    m_fits = !preview.hdus.empty();

    // FITS: the HDU (where there is a choice) and the row filter decide which rows are read.
    m_hdu = new QComboBox(this);
    // HDU lines and column titles can be long: the combos take the width they are given.
    m_hdu->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_hdu->setMinimumContentsLength(24);
    int tables = 0;
    int chosen = -1;
    for (const std::string& line : preview.hdus) {
        const std::optional<HduLine> hdu = parseHduLine(line);
        if (!hdu)
            continue;
        m_hdu->addItem(hdu->text, hdu->number);
        const int row = m_hdu->count() - 1;
        if (!hdu->table) {
            // Listed, so the file's layout is plain, but not to be chosen: there is no catalog.
            if (auto* model = qobject_cast<QStandardItemModel*>(m_hdu->model()))
                model->item(row)->setEnabled(false);
            m_hdu->setItemData(row, tr("Not a binary table: holds no catalog to read"),
                               Qt::ToolTipRole);
            continue;
        }
        ++tables;
        if (m_shownHdu.isEmpty())
            m_shownHdu = hdu->number; // what a preview of the plain path shows: the first table
        const bool named =
            !source.hdu.isEmpty() &&
            (source.hdu == hdu->number || source.hdu.compare(hdu->name, Qt::CaseInsensitive) == 0);
        if (chosen < 0 && (named || source.hdu.isEmpty()))
            chosen = row;
    }
    if (chosen < 0)
        chosen = m_hdu->findData(m_shownHdu);
    m_hdu->setCurrentIndex(chosen);
    m_hdu->setToolTip(tr("The extension to read the catalog from (1 is the first after the "
                         "primary HDU)"));
    m_hdu->setObjectName(QStringLiteral("hduCombo"));

    m_rowFilter = new QLineEdit(source.rowFilter, this);
    m_rowFilter->setPlaceholderText(tr("optional, e.g. Z>0.4 && Z<0.8"));
    m_rowFilter->setToolTip(
        tr("A cfitsio row filter on the table's columns: only the rows for which it is true are "
           "read (&&, ||, !, comparisons, arithmetic). Empty: every row."));
    m_rowFilter->setClearButtonEnabled(true);
    m_rowFilter->setObjectName(QStringLiteral("rowFilterEdit"));

    m_checkFilter = new QPushButton(tr("Check"), this);
    m_checkFilter->setToolTip(tr("Apply the filter to the table now and count the rows it keeps "
                                 "(OK checks it too)"));
    m_checkFilter->setObjectName(QStringLiteral("checkFilterButton"));
    m_filterNote = new QLabel(this);
    m_filterNote->setWordWrap(true);
    m_filterNote->setObjectName(QStringLiteral("filterNote"));
    m_filterNote->hide();

    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->setTextElideMode(Qt::ElideRight);

    m_ra = new QComboBox(this);
    m_dec = new QComboBox(this);
    // Weights are never guessed: a column named "w" may be anything. "(none)" unless the source
    // already has one (a session, a recent file).
    m_weight = new QComboBox(this);
    m_weight->setToolTip(tr("Per-object weights: each pair counts w_i·w_j. Negative weights are "
                            "allowed (the result says how many); NaN, inf or text is an error."));

    for (QComboBox* combo : {m_ra, m_dec, m_weight}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(16);
    }

    m_unit = new QComboBox(this);
    for (AngleUnit unit :
         {AngleUnit::Degree, AngleUnit::Arcminute, AngleUnit::Arcsecond, AngleUnit::Radian})
        m_unit->addItem(unitLabel(unit), int(unit));
    m_unit->setCurrentIndex(qMax(0, m_unit->findData(int(source.unit))));
    m_unit->setToolTip(tr("The unit of the RA and Dec columns as the file writes them"));
    m_unit->setObjectName(QStringLiteral("unitCombo"));
    m_raInHours = new QCheckBox(tr("RA in hours (Dec in the unit above)"), this);
    m_raInHours->setChecked(source.raInHours);
    m_raInHours->setObjectName(QStringLiteral("raInHoursCheck"));
    m_unitNote = new QLabel(this);
    m_unitNote->setWordWrap(true);
    m_unitNote->setObjectName(QStringLiteral("unitNote"));
    m_unitNote->hide();
    m_columnNote = new QLabel(this);
    m_columnNote->setWordWrap(true);
    m_columnNote->setObjectName(QStringLiteral("columnNote"));
    m_columnNote->setStyleSheet(QStringLiteral("QLabel { color: #b35900; }"));
    m_columnNote->hide();
    // Units a session or an earlier choice gave are kept; the default follows the values.
    m_unitsChosen = source.units() != CoordinateUnits{};

    // The HDU row only where there is a choice; the filter for every FITS table.
    auto* selection = new QFormLayout;
    if (m_fits && tables > 1)
        selection->addRow(tr("HDU:"), m_hdu);
    else
        m_hdu->hide();
    if (m_fits) {
        auto* filterRow = new QHBoxLayout;
        filterRow->addWidget(m_rowFilter, 1);
        filterRow->addWidget(m_checkFilter);
        selection->addRow(tr("Row filter:"), filterRow);
        selection->addRow(QString(), m_filterNote);
    } else {
        m_rowFilter->hide();
        m_checkFilter->hide();
    }

    auto* form = new QFormLayout;
    form->addRow(tr("RA column:"), m_ra);
    form->addRow(tr("Dec column:"), m_dec);
    form->addRow(QString(), m_columnNote);
    form->addRow(tr("Weight column:"), m_weight);
    form->addRow(tr("Coordinate unit:"), m_unit);
    form->addRow(QString(), m_raInHours);
    form->addRow(QString(), m_unitNote);

    // Two forms, one above the preview and one below it, with their fields in one column.
    QList<QLabel*> labels;
    for (const QFormLayout* layout : {selection, form})
        for (int row = 0; row < layout->rowCount(); ++row) {
            QLayoutItem* item = layout->itemAt(row, QFormLayout::LabelRole);
            if (auto* label = item ? qobject_cast<QLabel*>(item->widget()) : nullptr)
                labels.append(label);
        }
    int labelWidth = 0;
    for (const QLabel* label : labels)
        labelWidth = qMax(labelWidth, label->sizeHint().width());
    for (QLabel* label : labels)
        label->setMinimumWidth(labelWidth);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    // The choices sit in boxes, so that a refused file can hide them all.
    m_selectionBox = new QWidget(this);
    m_selectionBox->setLayout(selection);
    selection->setContentsMargins(0, 0, 0, 0);
    m_choicesBox = new QWidget(this);
    m_choicesBox->setLayout(form);
    form->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_selectionBox);
    layout->addWidget(m_note);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_choicesBox);
    layout->addWidget(m_buttons);
    resize(640, m_fits ? 560 : 500);

    // Binary bytes are refused before they fill a preview (item 6 of issue 16).
    if (const QString problem = binaryFileMessage(source.path); !problem.isEmpty()) {
        refuse(problem);
        return;
    }

    connect(m_ra, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateHighlight);
    connect(m_dec, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateHighlight);
    connect(m_weight, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateHighlight);
    connect(m_ra, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateUnitNote);
    connect(m_dec, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateUnitNote);
    connect(m_ra, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateColumnNote);
    connect(m_dec, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateColumnNote);
    connect(m_checkFilter, &QPushButton::clicked, this, &ColumnMappingDialog::checkRowFilter);
    // A note about another filter text would mislead: it goes until the next check.
    connect(m_rowFilter, &QLineEdit::textChanged, m_filterNote, &QWidget::hide);
    // A unit set from outside (the user, a test) is a choice: the suggestion no longer moves it.
    // The dialog's own suggestion is set with the signals blocked.
    const auto unitsChosen = [this] {
        m_unitsChosen = true;
        updateUnitNote();
    };
    connect(m_unit, &QComboBox::currentIndexChanged, this, unitsChosen);
    connect(m_raInHours, &QCheckBox::toggled, this, unitsChosen);

    // The source's own columns first; guesses from the names where it has none.
    const int raChoice = source.raColumn > 0 ? source.raColumn : guessColumn(preview, raNames(), 1);
    const int decChoice = source.decColumn > 0
                              ? source.decColumn
                              : guessColumn(preview, decNames(), qMin(2, int(preview.columnCount)));
    const QString wanted = m_hdu->currentData().toString();
    if (m_fits && !wanted.isEmpty() && wanted != m_shownHdu) {
        // The source names another HDU than the one previewed: its columns are what count.
        previewChosenHdu();
        if (source.raColumn > 0)
            m_ra->setCurrentIndex(qMax(0, m_ra->findData(source.raColumn)));
        if (source.decColumn > 0)
            m_dec->setCurrentIndex(qMax(0, m_dec->findData(source.decColumn)));
        m_weight->setCurrentIndex(qMax(0, m_weight->findData(source.weightColumn)));
    } else {
        setPreview(preview);
        m_ra->setCurrentIndex(qMax(0, m_ra->findData(raChoice)));
        m_dec->setCurrentIndex(qMax(0, m_dec->findData(decChoice)));
        m_weight->setCurrentIndex(qMax(0, m_weight->findData(source.weightColumn)));
    }
    connect(m_hdu, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::previewChosenHdu);
    updateHighlight();
    updateUnitNote();
    updateColumnNote();
    fitToScreen();
}

void ColumnMappingDialog::refuse(const QString& message) {
    m_refusal = message;
    setWindowTitle(tr("Not a text catalog: %1").arg(QFileInfo(m_source.path).fileName()));
    // A long path has no spaces to wrap at: let it break after its slashes.
    QString wrappable = message;
    wrappable.replace(QLatin1Char('/'), QStringLiteral("/\u200B"));
    m_note->setText(wrappable);
    m_note->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
    // Nothing of the file is shown: its bytes are no fields, and there is nothing to choose.
    m_table->hide();
    m_selectionBox->hide();
    m_choicesBox->hide();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    m_buttons->button(QDialogButtonBox::Cancel)->setText(tr("Close"));
    const int width = 560;
    const int height = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width)
                                                     : layout()->totalSizeHint().height();
    resize(width, qMax(120, height));
    fitToScreen();
}

void ColumnMappingDialog::fitToScreen() {
    const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (!screen)
        return;
    const QSize available = screen->availableGeometry().size();
    // Room for the window frame, which the geometry above does not include.
    const QSize limit(qMax(320, available.width() - 16), qMax(240, available.height() - 48));
    setMaximumSize(limit);
    resize(size().boundedTo(limit));
}

CoordinateUnits ColumnMappingDialog::chosenUnits() const {
    return {AngleUnit(m_unit->currentData().toInt()), m_raInHours->isChecked()};
}

void ColumnMappingDialog::setPreview(const TablePreview& preview) {
    // Columns chosen before (in another HDU) are kept where the new table has the same names.
    const auto chosenName = [this](const QComboBox* combo) {
        return combo->currentIndex() < 0 ? QString()
                                         : combo->currentData(Qt::UserRole + 1).toString();
    };
    const QString raName = chosenName(m_ra);
    const QString decName = chosenName(m_dec);
    const QString weightName = chosenName(m_weight);

    m_preview = preview;
    const int columns = int(preview.columnCount);
    QStringList headers;
    for (int c = 0; c < columns; ++c) {
        const QString name = columnName(preview, c + 1);
        headers.append(name.isEmpty() ? tr("column %1").arg(c + 1)
                                      : tr("%1: %2").arg(c + 1).arg(shownField(name)));
    }
    m_table->clear();
    m_table->setRowCount(int(preview.rows.size()));
    m_table->setColumnCount(columns);
    m_table->setHorizontalHeaderLabels(headers);
    for (int c = 0; c < columns; ++c) {
        const QString name = columnName(preview, c + 1);
        if (name.size() > kMaxFieldChars)
            if (QTableWidgetItem* header = m_table->horizontalHeaderItem(c))
                header->setToolTip(name);
    }
    for (std::size_t r = 0; r < preview.rows.size(); ++r)
        for (std::size_t c = 0; c < preview.rows[r].size() && int(c) < columns; ++c) {
            const QString field = QString::fromStdString(preview.rows[r][c]);
            auto* item = new QTableWidgetItem(shownField(field));
            if (field.size() > kMaxFieldChars)
                item->setToolTip(field);
            m_table->setItem(int(r), int(c), item);
        }

    const QSignalBlocker blockRa(m_ra), blockDec(m_dec), blockWeight(m_weight);
    m_ra->clear();
    m_dec->clear();
    m_weight->clear();
    m_weight->addItem(tr("(none)"), 0);
    for (int c = 0; c < columns; ++c) {
        for (QComboBox* combo : {m_ra, m_dec, m_weight}) {
            combo->addItem(headers[c], c + 1);
            combo->setItemData(combo->count() - 1, columnName(preview, c + 1), Qt::UserRole + 1);
        }
    }
    const auto pick = [](int byName, int guess) { return byName > 0 ? byName : guess; };
    m_ra->setCurrentIndex(qMax(
        0, m_ra->findData(pick(columnNamed(preview, raName), guessColumn(preview, raNames(), 1)))));
    m_dec->setCurrentIndex(
        qMax(0, m_dec->findData(pick(columnNamed(preview, decName),
                                     guessColumn(preview, decNames(), qMin(2, columns))))));
    m_weight->setCurrentIndex(qMax(0, m_weight->findData(columnNamed(preview, weightName))));

    if (!m_fits)
        m_note->setText(preview.rows.empty() ? tr("No data rows found.")
                                             : tr("The first data rows of the file:"));
    else
        m_note->setText(
            preview.rows.empty()
                ? tr("HDU %1 has no rows.").arg(m_shownHdu)
                : tr("The first rows of HDU %1 (before any row filter):").arg(m_shownHdu));
    m_note->setStyleSheet(QString());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(columns > 0);
    updateHighlight();
    updateUnitNote();
    updateColumnNote();
}

void ColumnMappingDialog::previewChosenHdu() {
    const QString hdu = m_hdu->currentData().toString();
    if (hdu.isEmpty())
        return;
    const QString path = m_source.path + QLatin1Char('[') + hdu + QLatin1Char(']');
    try {
        const TablePreview preview = previewCatalogFile(QFile::encodeName(path).toStdString());
        m_shownHdu = hdu;
        setPreview(preview);
    } catch (const std::exception& error) {
        // Say why, and keep OK off: the columns shown are not this HDU's.
        m_shownHdu = hdu;
        m_preview = TablePreview{};
        m_table->clear();
        m_table->setRowCount(0);
        m_table->setColumnCount(0);
        m_note->setText(tr("Cannot preview HDU %1: %2").arg(hdu, describeReadError(error)));
        m_note->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    }
}

void ColumnMappingDialog::updateHighlight() {
    // Tint the chosen columns so the user sees at a glance which numbers become RA, Dec and w.
    const int ra = m_ra->currentData().toInt() - 1;
    const int dec = m_dec->currentData().toInt() - 1;
    const int weight = m_weight->currentData().toInt() - 1; // -1: none
    for (int r = 0; r < m_table->rowCount(); ++r)
        for (int c = 0; c < m_table->columnCount(); ++c)
            if (QTableWidgetItem* item = m_table->item(r, c))
                item->setBackground(c == ra       ? QColor(0xd6, 0xe6, 0xff)
                                    : c == dec    ? QColor(0xd9, 0xf2, 0xd9)
                                    : c == weight ? QColor(0xfb, 0xe8, 0xc8)
                                                  : QBrush());
}

CatalogSource ColumnMappingDialog::source() const {
    CatalogSource source = m_source;
    source.raColumn = m_ra->currentData().toInt();
    source.decColumn = m_dec->currentData().toInt();
    source.weightColumn = m_weight->currentData().toInt();
    source.setUnits(chosenUnits());
    if (m_fits) {
        // The HDU is always stated: the column numbers above count its columns.
        source.hdu = m_shownHdu;
        source.rowFilter = m_rowFilter->text().trimmed();
    }
    return source;
}

} // namespace tpacf::ui
