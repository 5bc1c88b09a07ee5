#pragma once
// Column mapping for catalog files with a header or more than two columns: a preview of the
// first rows (tpacf::previewCatalogFile), RA/Dec column choice, an optional weight column,
// coordinate unit, RA in hours.
#include "catalog_source.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;

namespace tpacf::ui {

class ColumnMappingDialog : public QDialog {
    Q_OBJECT
public:
    ColumnMappingDialog(const CatalogSource& source, const TablePreview& preview,
                        QWidget* parent = nullptr);

    /// The source with the chosen columns and unit.
    CatalogSource source() const;

    QComboBox* weightCombo() const { return m_weight; }

    /// True when a file needs the dialog: a header naming columns, or more than two columns.
    static bool needsMapping(const TablePreview& preview);

private:
    void updateHighlight();

    CatalogSource m_source;
    QTableWidget* m_table = nullptr;
    QComboBox* m_ra = nullptr;
    QComboBox* m_dec = nullptr;
    QComboBox* m_weight = nullptr; // "(none)" (data 0), then every column
    QComboBox* m_unit = nullptr;
    QCheckBox* m_raInHours = nullptr;
};

} // namespace tpacf::ui
