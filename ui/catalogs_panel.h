// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Catalogs dock: the data and random catalogs, and the second sample of a cross-correlation
// where one is loaded, with N (and Σw for a weighted catalog) and RA/Dec extent (the tooltip says
// which columns, unit, HDU and rows were read), and the buttons
// that open, add and remove them (they trigger the window's actions, so menu, toolbar, shortcut
// and button share one enabled state and one code path). Under the list, a warning line says what
// would make w(θ) wrong without an error: data outside their randoms (or randoms over a very
// different area), a catalog read in a unit its values do not fit, a file that failed in a unit
// its values do not fit; "Columns…" (or a double click) reads a catalog again through the
// column-mapping dialog, with other columns or another unit.
#include "catalog_set.h"

#include <QList>
#include <QWidget>

class QAction;
class QLabel;
class QPushButton;
class QToolButton;
class QTreeWidget;

namespace tpacf::ui {

class CatalogsPanel : public QWidget {
    Q_OBJECT
public:
    /// Columns of the list. Σw is shown (next to N) only while a weighted catalog is listed.
    enum Column { NameColumn = 0, CountColumn, RaColumn, DecColumn, WeightColumn, ColumnCount };

    explicit CatalogsPanel(QWidget* parent = nullptr);

    /// The buttons trigger these actions; `removeRandom` also answers Delete in the list.
    void setActions(QAction* openData, QAction* addRandom, QAction* removeRandom);
    /// The "Second sample" button's menu: open its data catalog, add its randoms, remove it.
    void setSecondSampleActions(QAction* openData2, QAction* addRandom2, QAction* removeSecond);
    /// Shows `data` (may be empty) and `randoms`, in two groups; with a second sample (data2 or
    /// randoms2) two more groups follow.
    void setCatalogs(const std::optional<LoadedCatalog>& data, const QList<LoadedCatalog>& randoms,
                     const std::optional<LoadedCatalog>& data2 = std::nullopt,
                     const QList<LoadedCatalog>& randoms2 = {});
    /// The index of the random catalog selected in the list; -1 when none (or the data) is.
    int selectedRandomIndex() const;
    /// The same for the randoms of the second sample.
    int selectedRandom2Index() const;
    /// The buttons wait while catalogs are read (the list stays readable).
    void setButtonsEnabled(bool enabled);
    /// The set whose failed loads the warning line offers to retry in another unit
    /// (CatalogSet::unitFailure); without it the line shows the loaded catalogs' warnings only.
    void setCatalogSet(const CatalogSet* set);

    /// Reads the catalog at `role` / `index` again through the column-mapping dialog (modal);
    /// emits changeRequested when the user chose other columns, unit or HDU. Nothing for the
    /// bundled sample (a resource) or a catalog that is not listed.
    void editCatalog(CatalogRole role, int index);
    /// The selected catalog's place; false when no catalog row is selected.
    bool selectedCatalog(CatalogRole& role, int& index) const;
    /// The warning line's text without markup (lines joined by '\n'); empty when hidden.
    QString warningText() const;

    QTreeWidget* tree() const { return m_tree; }
    QPushButton* openDataButton() const { return m_openButton; }
    QPushButton* addRandomButton() const { return m_addButton; }
    QPushButton* removeRandomButton() const { return m_removeButton; }
    QToolButton* secondSampleButton() const { return m_secondButton; }
    QPushButton* columnsButton() const { return m_columnsButton; }
    QLabel* warningLabel() const { return m_warnings; }

    /// N as the list shows it: exact up to 999,999, then three significant digits ("1.23 M").
    static QString formatCount(std::size_t count);
    /// Σw as the list shows it: one decimal up to 999,999.9, then three significant digits.
    static QString formatWeightSum(double sum);
    /// How a catalog was read, for tooltips and the log: "ascii, columns ra, dec (header names),
    /// deg, 5000 rows" (tpacf::CatalogOrigin::describe); "N points" for one built in memory.
    static QString describeOrigin(const Catalog& catalog);

Q_SIGNALS:
    /// The user asked for `change` (a catalog read again with other columns or unit, or a failed
    /// load retried in another unit); the window queues it as it queues picked files.
    void changeRequested(const tpacf::ui::CatalogChange& change);

private:
    struct ListedCatalog {
        CatalogRole role;
        int index;
        LoadedCatalog loaded;
    };
    const ListedCatalog* listed(CatalogRole role, int index) const;
    /// Runs the dialog on `source`; nullopt when cancelled or the file cannot be previewed.
    std::optional<CatalogSource> askForSource(const CatalogSource& source);
    void updateWarnings();
    void updateColumnsButton();
    void onWarningLink(const QString& link);

    const CatalogSet* m_set = nullptr;
    QList<ListedCatalog> m_listed;
    QStringList m_catalogWarnings; // HTML, one per line: units, footprints
    QString m_previewProblem;      // the last dialog that could not open, until the next change
    bool m_buttonsEnabled = true;
    QPushButton* m_columnsButton = nullptr;
    QLabel* m_warnings = nullptr;
    QTreeWidget* m_tree = nullptr;
    QPushButton* m_openButton = nullptr;
    QPushButton* m_addButton = nullptr;
    QPushButton* m_removeButton = nullptr;
    QToolButton* m_secondButton = nullptr;
};

} // namespace tpacf::ui
