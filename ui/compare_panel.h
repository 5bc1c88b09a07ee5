// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Compare dock: the overlay runs (shown or not, colour, editable label, file), the
// reference run and the panel under w(θ) (none, ratio, difference), with Add, Remove and Export
// CSV. It edits a CompareRuns; the window does the file dialogs.
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace tpacf::ui {

class CompareRuns;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(CompareRuns* runs, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QComboBox* referenceBox() const { return m_reference; }
    QComboBox* panelBox() const { return m_panel; }
    QLabel* messageLabel() const { return m_message; }
    /// The panel's refusal or notice (set by the window from the plots).
    void setMessage(const QString& text);

Q_SIGNALS:
    void addRequested();
    void exportRequested();

private:
    void refresh();
    void onItemChanged(int row, int column);

    CompareRuns* m_runs;
    QTableWidget* m_table = nullptr;
    QComboBox* m_reference = nullptr;
    QComboBox* m_panel = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_export = nullptr;
    QLabel* m_message = nullptr;
    bool m_refreshing = false;
    bool m_editing = false;
};

} // namespace tpacf::ui
