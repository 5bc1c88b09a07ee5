#include "result_table.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>

#include <cmath>
#include <map>

namespace tpacf::ui {

namespace {
enum Column {
    ThetaLo,
    ThetaHi,
    ThetaMid,
    DD,
    DR,
    RR,
    DDNorm,
    DRNorm,
    RRNorm,
    W,
    WErr,
    ColumnCount
};
const QString kWErrName = QStringLiteral("w_err");
} // namespace

const QStringList& ResultTableModel::columnNames() {
    static const QStringList names = {QStringLiteral("theta_lo"),  QStringLiteral("theta_hi"),
                                      QStringLiteral("theta_mid"), QStringLiteral("DD"),
                                      QStringLiteral("DR"),        QStringLiteral("RR"),
                                      QStringLiteral("DD_norm"),   QStringLiteral("DR_norm"),
                                      QStringLiteral("RR_norm"),   QStringLiteral("w")};
    return names;
}

QStringList ResultTableModel::currentColumnNames() const {
    QStringList names = columnNames();
    if (wErrorColumn() >= 0)
        names.append(kWErrName);
    return names;
}

int ResultTableModel::wErrorColumn() const {
    return m_result && m_result->hasJackknife() ? int(WErr) : -1;
}

ResultTableModel::ResultTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ResultTableModel::setResult(ResultPtr result) {
    beginResetModel();
    m_result = std::move(result);
    m_drSummed = m_result ? m_result->drSummed() : std::vector<std::uint64_t>{};
    m_rrSummed = m_result ? m_result->rrSummed() : std::vector<std::uint64_t>{};
    endResetModel();
}

int ResultTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_result ? 0 : int(m_result->binCount());
}

int ResultTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : (wErrorColumn() >= 0 ? ColumnCount : int(WErr));
}

double ResultTableModel::value(int row, int column) const {
    if (!m_result || row < 0 || std::size_t(row) >= m_result->binCount())
        return std::nan("");
    const auto k = std::size_t(row);
    auto at = [k](const auto& values) {
        return k < values.size() ? double(values[k]) : std::nan("");
    };
    switch (column) {
    case ThetaLo:
        return at(m_result->edges);
    case ThetaHi:
        return k + 1 < m_result->edges.size() ? m_result->edges[k + 1] : std::nan("");
    case ThetaMid:
        return at(m_result->centres);
    case DD:
        return at(m_result->raw.dd);
    case DR:
        return at(m_drSummed);
    case RR:
        return at(m_rrSummed);
    case DDNorm:
        return at(m_result->normalised.dd);
    case DRNorm:
        return at(m_result->normalised.dr);
    case RRNorm:
        return at(m_result->normalised.rr);
    case W:
        return at(m_result->w);
    case WErr:
        return m_result->hasJackknife() ? at(m_result->wError) : std::nan("");
    default:
        return std::nan("");
    }
}

QVariant ResultTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const double number = value(index.row(), index.column());
    const bool integerColumn = index.column() == DD || index.column() == DR || index.column() == RR;
    switch (role) {
    case Qt::DisplayRole:
        if (std::isnan(number))
            return QStringLiteral("nan");
        if (integerColumn)
            return QString::number(qulonglong(number));
        return QString::number(number, 'g', 6);
    case Qt::EditRole: // full precision, what Ctrl+C copies
        if (std::isnan(number))
            return QStringLiteral("nan");
        if (integerColumn)
            return QString::number(qulonglong(number));
        return QString::number(number, 'g', 17);
    case Qt::UserRole:
        return number;
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == W && number < 0)
            return QColor(0xc0, 0x39, 0x2b);
        return {};
    default:
        return {};
    }
}

QVariant ResultTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    const QStringList names = currentColumnNames();
    if (section < 0 || section >= names.size())
        return {};
    if (m_result && section <= ThetaMid) // θ columns carry the bins' unit
        return tr("%1\n(%2)")
            .arg(names[section], QString::fromLatin1(angleUnitName(m_result->bins.unit)));
    return names[section];
}

ResultTableView::ResultTableView(QWidget* parent) : QTableView(parent) {
    setSelectionBehavior(QAbstractItemView::SelectItems);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setAlternatingRowColors(true);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    horizontalHeader()->setStretchLastSection(true);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copyAction = new QAction(tr("&Copy"), this);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setShortcutContext(Qt::WidgetShortcut);
    connect(copyAction, &QAction::triggered, this, &ResultTableView::copySelection);
    addAction(copyAction);
    auto* selectAllAction = new QAction(tr("Select &All"), this);
    connect(selectAllAction, &QAction::triggered, this, &QTableView::selectAll);
    addAction(selectAllAction);
}

void ResultTableView::setModel(QAbstractItemModel* model) {
    QTableView::setModel(model);
    // Fit the columns to the numbers each time a new result arrives.
    if (model)
        connect(model, &QAbstractItemModel::modelReset, this, &QTableView::resizeColumnsToContents);
}

QString ResultTableView::selectionAsText() const {
    if (!model() || !selectionModel())
        return {};
    const QModelIndexList indexes = selectionModel()->selectedIndexes();
    if (indexes.isEmpty())
        return {};
    // Cells by row, then column, so a rectangular block copies as a rectangle.
    std::map<int, std::map<int, QString>> cells;
    int minColumn = model()->columnCount(), maxColumn = -1;
    for (const QModelIndex& index : indexes) {
        cells[index.row()][index.column()] = index.data(Qt::EditRole).toString();
        minColumn = qMin(minColumn, index.column());
        maxColumn = qMax(maxColumn, index.column());
    }
    QStringList lines;
    bool wholeRows = true;
    for (const auto& [row, columns] : cells)
        wholeRows = wholeRows && int(columns.size()) == model()->columnCount();
    if (wholeRows) {
        const auto* results = qobject_cast<const ResultTableModel*>(model());
        lines.append((results ? results->currentColumnNames() : ResultTableModel::columnNames())
                         .join(QLatin1Char('\t')));
    }
    for (const auto& [row, columns] : cells) {
        QStringList fields;
        for (int column = minColumn; column <= maxColumn; ++column) {
            const auto it = columns.find(column);
            fields.append(it == columns.end() ? QString() : it->second);
        }
        lines.append(fields.join(QLatin1Char('\t')));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void ResultTableView::copySelection() const {
    const QString text = selectionAsText();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

void ResultTableView::keyPressEvent(QKeyEvent* event) {
    if (event->matches(QKeySequence::Copy)) {
        copySelection();
        event->accept();
        return;
    }
    QTableView::keyPressEvent(event);
}

} // namespace tpacf::ui
