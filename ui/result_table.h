#pragma once
// The Results table: the same columns as the CLI's CSV (w_err after w when the run had jackknife
// errors), copyable with Ctrl+C.
#include "job_worker.h"

#include <QAbstractTableModel>
#include <QTableView>

namespace tpacf::ui {

class ResultTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    /// Column names as the result CSV's header row spells them, without jackknife errors.
    static const QStringList& columnNames();
    /// The columns of the current result: columnNames(), plus w_err when it has jackknife errors.
    QStringList currentColumnNames() const;
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
    ResultPtr m_result;
    std::vector<std::uint64_t> m_drSummed, m_rrSummed;
};

/// A table view whose Ctrl+C copies the selected cells as tab-separated text (with the header
/// row when whole rows are selected), ready to paste into a spreadsheet.
class ResultTableView : public QTableView {
    Q_OBJECT
  public:
    explicit ResultTableView(QWidget* parent = nullptr);
    void setModel(QAbstractItemModel* model) override;
    /// The text Ctrl+C puts on the clipboard.
    QString selectionAsText() const;
    void copySelection() const;

  protected:
    void keyPressEvent(QKeyEvent* event) override;
};

} // namespace tpacf::ui
