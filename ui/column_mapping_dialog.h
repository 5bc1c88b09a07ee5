// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Column mapping for catalog files: a preview of the first rows (tpacf::previewCatalogFile),
// RA/Dec column choice, an optional weight column, the coordinate unit (deg, arcmin, arcsec, rad;
// RA in hours) with the unit the previewed values suggest (tpacf::guessCoordinateUnits); for FITS
// files the table's HDU (where there is more than one) and an optional cfitsio row filter. A file
// that holds no text is refused before any preview, and the dialog never grows wider than the
// screen (long fields are elided; the table scrolls).
#include "catalog_source.h"
#include "column_names.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace tpacf::ui {

class ColumnMappingDialog : public QDialog {
    Q_OBJECT
public:
    /// `preview` is the file's (for FITS: the HDU `source.hdu` names, or the first table);
    /// choosing another HDU previews that one.
    ColumnMappingDialog(const CatalogSource& source, const TablePreview& preview,
                        QWidget* parent = nullptr);

    /// The source with the chosen columns, unit, HDU and row filter.
    CatalogSource source() const;

    QComboBox* raCombo() const { return m_ra; }
    QComboBox* decCombo() const { return m_dec; }
    QComboBox* weightCombo() const { return m_weight; }
    /// deg, arcmin, arcsec, rad (data: the AngleUnit); with raInHoursCheck(), the units.
    QComboBox* unitCombo() const { return m_unit; }
    QCheckBox* raInHoursCheck() const { return m_raInHours; }
    /// Under the unit: what the previewed values suggest and whether the choice agrees; hidden
    /// where the values fit degrees and degrees are chosen.
    QLabel* unitNoteLabel() const { return m_unitNote; }
    /// Non-empty when the file was refused (it holds no text): the message, which names the file.
    /// The preview and the choices are then hidden and OK is off.
    QString refusal() const { return m_refusal; }
    /// FITS with more than one table HDU: every extension ("2: RANDOMS (300 rows, 7 columns)";
    /// images and ASCII tables listed but not selectable), data the extension number. Hidden
    /// otherwise.
    QComboBox* hduCombo() const { return m_hdu; }
    /// FITS only (hidden otherwise): a cfitsio row filter, "Z>0.4 && Z<0.8".
    QLineEdit* rowFilterEdit() const { return m_rowFilter; }
    /// The line above the preview (it also says why an HDU could not be previewed).
    QLabel* noteLabel() const { return m_note; }
    /// Under the columns: where a chosen RA or Dec column's name does not read as a sky
    /// coordinate (x, y, mag), says that the columns were taken by position. Hidden otherwise.
    QLabel* columnNoteLabel() const { return m_columnNote; }
    /// FITS: checks the row filter now (Check button), and OK checks it before closing.
    QPushButton* checkFilterButton() const { return m_checkFilter; }
    /// Under the row filter: how many rows pass it ("1,234 of 84,383 rows"), or cfitsio's
    /// objection to it. Hidden until a filter is checked.
    QLabel* filterNoteLabel() const { return m_filterNote; }
    /// Evaluates the row filter on the chosen HDU and says what it keeps; false (the reason shown
    /// under the filter, the text kept) when it cannot be applied or keeps no row. An empty
    /// filter is fine.
    bool checkRowFilter();
    /// OK: closes only with a row filter that applies and keeps rows (checked here if the
    /// Check button was not pressed for this text).
    void accept() override;

    /// True when a file needs the dialog: a header naming columns, more than two columns, or
    /// values in the default columns that suggest another unit than degrees (a headerless file
    /// in arcmin or radians). Any file can be mapped; only these must be.
    static bool needsMapping(const TablePreview& preview);
    /// What the preview's values in these columns (1-based) suggest; fields that are no number
    /// are left out.
    static UnitGuess guessUnits(const TablePreview& preview, int raColumn, int decColumn);
    /// Longest field shown in a preview cell or column title; longer ones are elided (their
    /// tooltip has them whole), so a file of long lines keeps the dialog on the screen.
    static constexpr int kMaxFieldChars = columns::kMaxFieldChars;

private:
    /// Fills the table and the column combos from `preview`, keeping chosen columns by name
    /// where the new columns have them, else guessing RA/Dec from the names.
    void setPreview(const TablePreview& preview);
    /// Previews the HDU chosen in the combo (on the GUI thread: headers and 20 rows only).
    void previewChosenHdu();
    void updateHighlight();
    /// The note under the unit; while the user has not picked a unit, picks the suggested one.
    void updateUnitNote();
    /// The note under the columns (see columnNoteLabel()).
    void updateColumnNote();
    CoordinateUnits chosenUnits() const;
    void refuse(const QString& message);
    /// Keeps the dialog within the available screen geometry.
    void fitToScreen();

    CatalogSource m_source;
    TablePreview m_preview; // the one shown
    bool m_fits = false;
    // The units were given (a session, a recent file, a reread) or picked here: not overridden.
    bool m_unitsChosen = false;
    QString m_refusal;
    QString m_shownHdu; // the extension number the preview shows; "" for ASCII
    QLabel* m_note = nullptr;
    QTableWidget* m_table = nullptr;
    QComboBox* m_hdu = nullptr;
    QLineEdit* m_rowFilter = nullptr;
    QComboBox* m_ra = nullptr;
    QComboBox* m_dec = nullptr;
    QComboBox* m_weight = nullptr; // "(none)" (data 0), then every column
    QComboBox* m_unit = nullptr;
    QCheckBox* m_raInHours = nullptr;
    QLabel* m_unitNote = nullptr;
    QLabel* m_columnNote = nullptr;
    QPushButton* m_checkFilter = nullptr;
    QLabel* m_filterNote = nullptr;
    // The filter and HDU last checked, and whether that check passed.
    QString m_checkedFilter, m_checkedHdu;
    bool m_checkedFilterPassed = false;
    QWidget* m_selectionBox = nullptr; // HDU and row filter
    QWidget* m_choicesBox = nullptr;   // columns and unit
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace tpacf::ui
