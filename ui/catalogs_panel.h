#pragma once
// The Catalogs dock: the data and random catalogs with N and RA/Dec extent, and the buttons that
// open, add and remove them (they trigger the window's actions, so menu, toolbar, shortcut and
// button share one enabled state and one code path).
#include "catalog_set.h"

#include <QList>
#include <QWidget>

class QAction;
class QPushButton;
class QTreeWidget;

namespace tpacf::ui {

class CatalogsPanel : public QWidget {
    Q_OBJECT
public:
    explicit CatalogsPanel(QWidget* parent = nullptr);

    /// The buttons trigger these actions; `removeRandom` also answers Delete in the list.
    void setActions(QAction* openData, QAction* addRandom, QAction* removeRandom);
    /// Shows `data` (may be empty) and `randoms`, in two groups.
    void setCatalogs(const std::optional<LoadedCatalog>& data, const QList<LoadedCatalog>& randoms);
    /// The index of the random catalog selected in the list; -1 when none (or the data) is.
    int selectedRandomIndex() const;
    /// The buttons wait while catalogs are read (the list stays readable).
    void setButtonsEnabled(bool enabled);

    QTreeWidget* tree() const { return m_tree; }
    QPushButton* openDataButton() const { return m_openButton; }
    QPushButton* addRandomButton() const { return m_addButton; }
    QPushButton* removeRandomButton() const { return m_removeButton; }

    /// N as the list shows it: exact up to 999,999, then three significant digits ("1.23 M").
    static QString formatCount(std::size_t count);

private:
    QTreeWidget* m_tree = nullptr;
    QPushButton* m_openButton = nullptr;
    QPushButton* m_addButton = nullptr;
    QPushButton* m_removeButton = nullptr;
};

} // namespace tpacf::ui
