#include "column_mapping_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tpacf::ui {

namespace {
// Guesses a column from common header names, so "ra"/"dec" headers need no clicks.
int guessColumn(const TablePreview& preview, const QStringList& names, int fallback) {
    for (std::size_t i = 0; i < preview.columnNames.size(); ++i) {
        const QString name = QString::fromStdString(preview.columnNames[i]).trimmed().toLower();
        if (names.contains(name))
            return int(i) + 1;
    }
    return fallback;
}
} // namespace

bool ColumnMappingDialog::needsMapping(const TablePreview& preview) {
    return preview.hasHeader || preview.columnCount > 2;
}

ColumnMappingDialog::ColumnMappingDialog(const CatalogSource& source, const TablePreview& preview,
                                         QWidget* parent)
    : QDialog(parent), m_source(source) {
    setWindowTitle(tr("Columns of %1").arg(source.displayName()));

    const int columns = int(preview.columnCount);
    QStringList headers;
    for (int c = 0; c < columns; ++c) {
        const QString name = std::size_t(c) < preview.columnNames.size()
                                 ? QString::fromStdString(preview.columnNames[std::size_t(c)])
                                 : QString();
        headers.append(name.isEmpty() ? tr("column %1").arg(c + 1)
                                      : tr("%1: %2").arg(c + 1).arg(name));
    }

    m_table = new QTableWidget(int(preview.rows.size()), columns, this);
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (std::size_t r = 0; r < preview.rows.size(); ++r)
        for (std::size_t c = 0; c < preview.rows[r].size() && int(c) < columns; ++c)
            m_table->setItem(int(r), int(c),
                             new QTableWidgetItem(QString::fromStdString(preview.rows[r][c])));

    m_ra = new QComboBox(this);
    m_dec = new QComboBox(this);
    for (int c = 0; c < columns; ++c) {
        m_ra->addItem(headers[c], c + 1);
        m_dec->addItem(headers[c], c + 1);
    }
    const int raGuess = source.raColumn > 0
                            ? source.raColumn
                            : guessColumn(preview,
                                          {QStringLiteral("ra"), QStringLiteral("alpha"),
                                           QStringLiteral("ra_deg"), QStringLiteral("raj2000")},
                                          1);
    const int decGuess = source.decColumn > 0
                             ? source.decColumn
                             : guessColumn(preview,
                                           {QStringLiteral("dec"), QStringLiteral("delta"),
                                            QStringLiteral("dec_deg"), QStringLiteral("dej2000"),
                                            QStringLiteral("decj2000")},
                                           qMin(2, columns));
    m_ra->setCurrentIndex(qMax(0, m_ra->findData(raGuess)));
    m_dec->setCurrentIndex(qMax(0, m_dec->findData(decGuess)));

    // Weights are never guessed: a column named "w" may be anything. "(none)" unless the source
    // already has one (a session, a recent file).
    m_weight = new QComboBox(this);
    m_weight->addItem(tr("(none)"), 0);
    for (int c = 0; c < columns; ++c)
        m_weight->addItem(headers[c], c + 1);
    m_weight->setCurrentIndex(qMax(0, m_weight->findData(source.weightColumn)));
    m_weight->setToolTip(tr("Per-object weights: each pair counts w_i·w_j. Negative weights are "
                            "allowed (the result says how many); NaN, inf or text is an error."));

    m_unit = new QComboBox(this);
    for (AngleUnit unit : {AngleUnit::Degree, AngleUnit::Arcminute, AngleUnit::Radian})
        m_unit->addItem(unitLabel(unit), int(unit));
    m_unit->setCurrentIndex(qMax(0, m_unit->findData(int(source.unit))));
    m_raInHours = new QCheckBox(tr("RA in hours (Dec in the unit above)"), this);
    m_raInHours->setChecked(source.raInHours);

    auto* form = new QFormLayout;
    form->addRow(tr("RA column:"), m_ra);
    form->addRow(tr("Dec column:"), m_dec);
    form->addRow(tr("Weight column:"), m_weight);
    form->addRow(tr("Coordinate unit:"), m_unit);
    form->addRow(QString(), m_raInHours);

    auto* note = new QLabel(preview.rows.empty() ? tr("No data rows found.")
                                                 : tr("The first data rows of the file:"),
                            this);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(m_table, 1);
    layout->addLayout(form);
    layout->addWidget(buttons);
    resize(640, 480);

    connect(m_ra, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateHighlight);
    connect(m_dec, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateHighlight);
    connect(m_weight, &QComboBox::currentIndexChanged, this, &ColumnMappingDialog::updateHighlight);
    updateHighlight();
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
    source.unit = AngleUnit(m_unit->currentData().toInt());
    source.raInHours = m_raInHours->isChecked();
    return source;
}

} // namespace tpacf::ui
