#pragma once
// Column mapping for catalog files with a header or more than two columns: a preview of the
// first rows (tpacf::previewCatalogFile), RA/Dec column choice, an optional weight column,
// coordinate unit, RA in hours; for FITS files the table's HDU (where there is more than one)
// and an optional cfitsio row filter.
#include "catalog_source.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
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
    /// FITS with more than one table HDU: every extension ("2: RANDOMS (300 rows, 7 columns)";
    /// images and ASCII tables listed but not selectable), data the extension number. Hidden
    /// otherwise.
    QComboBox* hduCombo() const { return m_hdu; }
    /// FITS only (hidden otherwise): a cfitsio row filter, "Z>0.4 && Z<0.8".
    QLineEdit* rowFilterEdit() const { return m_rowFilter; }
    /// The line above the preview (it also says why an HDU could not be previewed).
    QLabel* noteLabel() const { return m_note; }

    /// True when a file needs the dialog: a header naming columns, or more than two columns.
    static bool needsMapping(const TablePreview& preview);

private:
    /// Fills the table and the column combos from `preview`, keeping chosen columns by name
    /// where the new columns have them, else guessing RA/Dec from the names.
    void setPreview(const TablePreview& preview);
    /// Previews the HDU chosen in the combo (on the GUI thread: headers and 20 rows only).
    void previewChosenHdu();
    void updateHighlight();

    CatalogSource m_source;
    bool m_fits = false;
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
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace tpacf::ui
