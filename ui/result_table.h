// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Results table: the same columns as the CLI's CSV (RD in cross mode, the weighted sums DD_w…
// of a weighted result, w_err after w when the run had jackknife errors), copyable with Ctrl+C.
// In cross mode the headers name the counts D1D2, D1R2, R1D2, R1R2.
#include "job_worker.h"

#include <QAbstractTableModel>
#include <QTableView>

namespace tpacf::ui {

class ResultTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Column names as the result CSV's header row spells them for an unweighted one-sample
    /// result without jackknife errors.
    static const QStringList& columnNames();
    /// The columns of the current result as the CSV's header row spells them: columnNames(),
    /// with RD (cross), DD_w, DR_w, RD_w, RR_w (weighted) and w_err (jackknife) where they apply.
    QStringList currentColumnNames() const;
    /// The header of a column for people: the CSV name, or in cross mode D1D2, D1R2, R1D2, R1R2
    /// for DD, DR, RD, RR (also in DD_w, DD_norm…).
    QString columnLabel(int column) const;
    /// Index of a column by its CSV name; -1 when the current result has none.
    int columnIndex(const QString& csvName) const;
    /// Index of the w_err column; -1 when the current result has none.
    int wErrorColumn() const;

    explicit ResultTableModel(QObject* parent = nullptr);

    void setResult(ResultPtr result);
    const ResultPtr& result() const { return m_result; }
    /// The number in a cell (DD, DR, RR are exact integers stored in a double up to 2^53).
    double value(int row, int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct ResultColumn {
        QString name;               // as the CSV spells it
        bool integer = false;       // a raw count
        std::vector<double> values; // one per bin (counts exact up to 2^53)
    };

    ResultPtr m_result;
    std::vector<ResultColumn> m_columns;
};

/// A table view whose Ctrl+C copies the selected cells as tab-separated text (with the header
/// row when whole rows are selected), ready to paste into a spreadsheet. Tab and Shift+Tab leave
/// the table (the arrow keys move between cells).
class ResultTableView : public QTableView {
    Q_OBJECT
public:
    explicit ResultTableView(QWidget* parent = nullptr);
    void setModel(QAbstractItemModel* model) override;
    /// The text Ctrl+C puts on the clipboard.
    QString selectionAsText() const;
    void copySelection() const;

    /// The height that shows the header and `rows` rows without scrolling.
    int heightForRows(int rows) const;
    /// Room for 10 rows (kPreferredRows) where the window has it; 3 rows at the least.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    static constexpr int kPreferredRows = 10;
    static constexpr int kMinimumRows = 3;

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    /// Columns as wide as their numbers and headers, the last one taking the rest.
    void fitColumns();
};

} // namespace tpacf::ui
