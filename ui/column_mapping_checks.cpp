// SPDX-License-Identifier: GPL-3.0-or-later
// ColumnMappingDialog, part two: the notes under its choices (the unit the values suggest,
// columns not named as sky coordinates) and the row filter's check. (column_mapping_dialog.cpp
// builds the dialog and fills its preview.)
#include "column_mapping_dialog.h"
#include "column_names.h"

#include <tpacf/catalog_reader.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>

#include <algorithm>

namespace tpacf::ui {

using namespace columns;

void ColumnMappingDialog::updateUnitNote() {
    const UnitGuess guess =
        guessUnits(m_preview, m_ra->currentData().toInt(), m_dec->currentData().toInt());
    if (!m_unitsChosen) {
        // The values decide until the user does: degrees where they suggest nothing firmer.
        const CoordinateUnits suggested = guess.confidence >= UnitConfidence::Suggested
                                              ? guess.units
                                              : CoordinateUnits{};
        const QSignalBlocker blockUnit(m_unit), blockHours(m_raInHours);
        m_unit->setCurrentIndex(qMax(0, m_unit->findData(int(suggested.unit))));
        m_raInHours->setChecked(suggested.raInHours);
    }
    const CoordinateUnits chosen = chosenUnits();
    const QString reason = QString::fromStdString(guess.reason);
    QString text;
    QString colour;
    if (guess.confidence == UnitConfidence::None && !reason.isEmpty()) {
        text = tr("The values fit no unit: %1.").arg(reason);
        colour = QStringLiteral("#c0392b");
    } else if (guess.confidence == UnitConfidence::Possible && guess.units != chosen) {
        text = tr("The values would also fit: %1").arg(reason);
        colour = QStringLiteral("#6b6b6b");
    } else if (guess.confidence >= UnitConfidence::Suggested && guess.units == chosen) {
        text = tr("Unit suggested by the values: %1").arg(reason);
        colour = QStringLiteral("#1e7b34");
    } else if (guess.confidence >= UnitConfidence::Suggested) {
        text = guess.confidence == UnitConfidence::Required
                   ? tr("The values cannot be %1: %2").arg(describeUnits(chosen), reason)
                   : tr("Read as %1? The values suggest otherwise: %2")
                         .arg(describeUnits(chosen), reason);
        colour = QStringLiteral("#b35900");
    }
    m_unitNote->setText(text);
    m_unitNote->setStyleSheet(colour.isEmpty() ? QString()
                                               : QStringLiteral("QLabel { color: %1; }").arg(colour));
    m_unitNote->setVisible(!text.isEmpty());
}

void ColumnMappingDialog::updateColumnNote() {
    // Only a table that names its columns can be judged; a headerless file takes columns 1 and 2
    // by the documented convention.
    const QString ra = columnName(m_preview, m_ra->currentData().toInt());
    const QString dec = columnName(m_preview, m_dec->currentData().toInt());
    if (m_preview.columnNames.empty() || ra.isEmpty() || dec.isEmpty() ||
        (namesRa(ra) && namesDec(dec))) {
        m_columnNote->hide();
        return;
    }
    QStringList odd;
    if (!namesRa(ra))
        odd.append(tr("RA from “%1”").arg(shownField(ra)));
    if (!namesDec(dec))
        odd.append(tr("Dec from “%1”").arg(shownField(dec)));
    const bool anyNamed = std::any_of(
        m_preview.columnNames.cbegin(), m_preview.columnNames.cend(), [](const std::string& name) {
            const QString text = QString::fromStdString(name);
            return namesRa(text) || namesDec(text);
        });
    m_columnNote->setText(
        (anyNamed ? tr("%1: not named as a sky coordinate.").arg(odd.join(tr(", ")))
                  : tr("No column is named as a sky coordinate (ra, dec, alpha, delta, …): %1, "
                       "taken by position.")
                        .arg(odd.join(tr(", ")))) +
        QLatin1Char(' ') +
        tr("Check that these columns hold RA and Dec: pixel positions or magnitudes would be "
           "read as angles."));
    m_columnNote->show();
}

bool ColumnMappingDialog::checkRowFilter() {
    const QString filter = m_rowFilter->text().trimmed();
    m_checkedFilter = filter;
    m_checkedHdu = m_shownHdu;
    m_checkedFilterPassed = true;
    if (!m_fits || filter.isEmpty()) {
        m_filterNote->hide();
        return true;
    }
    CatalogSource probe = m_source;
    probe.hdu = m_shownHdu;
    probe.rowFilter = filter;
    QString text;
    try {
        const FitsRowCount count =
            countFitsRows(QFile::encodeName(probe.readPath()).toStdString());
        const QLocale locale;
        m_checkedFilterPassed = count.passing > 0;
        text = count.passing > 0
                   ? tr("%1 of %2 rows pass the filter.")
                         .arg(locale.toString(qulonglong(count.passing)),
                              locale.toString(qulonglong(count.total)))
                   : tr("No row of the %1 in HDU %2 passes the filter: the catalog would be "
                        "empty.")
                         .arg(locale.toString(qulonglong(count.total)), m_shownHdu);
    } catch (const std::exception& error) {
        m_checkedFilterPassed = false;
        text = tr("The filter cannot be applied: %1").arg(describeReadError(error));
    }
    m_filterNote->setText(text);
    m_filterNote->setStyleSheet(m_checkedFilterPassed ? QStringLiteral("QLabel { color: #1e7b34; }")
                                                      : QStringLiteral("QLabel { color: #c0392b; }"));
    m_filterNote->show();
    return m_checkedFilterPassed;
}

void ColumnMappingDialog::accept() {
    if (!m_fits || m_rowFilter->text().trimmed().isEmpty()) {
        QDialog::accept();
        return;
    }
    const bool checked = m_checkedFilter == m_rowFilter->text().trimmed() &&
                         m_checkedHdu == m_shownHdu;
    if (!(checked ? m_checkedFilterPassed : checkRowFilter())) {
        // The dialog stays, the text as typed, the reason under it.
        m_rowFilter->setFocus();
        return;
    }
    QDialog::accept();
}

} // namespace tpacf::ui
