// SPDX-License-Identifier: GPL-3.0-or-later
#include "result_table.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QScrollBar>

#include <cmath>
#include <map>

namespace tpacf::ui {

namespace {
const QString kWErrName = QStringLiteral("w_err");

std::vector<double> toDoubles(const std::vector<std::uint64_t>& counts) {
    return {counts.begin(), counts.end()};
}
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
    if (!m_result)
        return columnNames();
    QStringList names;
    for (const ResultColumn& column : m_columns)
        names.append(column.name);
    return names;
}

QString ResultTableModel::columnLabel(int column) const {
    const QStringList names = currentColumnNames();
    if (column < 0 || column >= names.size())
        return {};
    QString name = names[column];
    if (!m_result || !m_result->isCross())
        return name;
    // Cross mode: the counts by the samples they pair (the CSV keeps DD, DR, RD, RR and says so
    // in its header).
    static const std::pair<QString, QString> kCross[] = {
        {QStringLiteral("DD"), QStringLiteral("D1D2")},
        {QStringLiteral("DR"), QStringLiteral("D1R2")},
        {QStringLiteral("RD"), QStringLiteral("R1D2")},
        {QStringLiteral("RR"), QStringLiteral("R1R2")}};
    for (const auto& [plain, cross] : kCross)
        if (name == plain || name.startsWith(plain + QLatin1Char('_')))
            return cross + name.mid(plain.size());
    return name;
}

int ResultTableModel::columnIndex(const QString& csvName) const {
    return int(currentColumnNames().indexOf(csvName));
}

int ResultTableModel::wErrorColumn() const {
    return m_result && m_result->hasJackknife() ? columnIndex(kWErrName) : -1;
}

ResultTableModel::ResultTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ResultTableModel::setResult(ResultPtr result) {
    beginResetModel();
    m_result = std::move(result);
    m_columns.clear();
    if (m_result) {
        // In the order of the core's CSV writer (writeResultCsv), so a copied table and the
        // exported file line up.
        const CorrelationResult& r = *m_result;
        const bool cross = r.isCross();
        const std::size_t bins = r.binCount();
        std::vector<double> lower, upper;
        for (std::size_t k = 0; k < bins && k + 1 < r.edges.size(); ++k) {
            lower.push_back(r.edges[k]);
            upper.push_back(r.edges[k + 1]);
        }
        auto add = [this](const QString& name, bool integer, std::vector<double> values) {
            m_columns.push_back({name, integer, std::move(values)});
        };
        add(QStringLiteral("theta_lo"), false, std::move(lower));
        add(QStringLiteral("theta_hi"), false, std::move(upper));
        add(QStringLiteral("theta_mid"), false, r.centres);
        add(QStringLiteral("DD"), true, toDoubles(r.raw.dd));
        add(QStringLiteral("DR"), true, toDoubles(r.drSummed()));
        if (cross)
            add(QStringLiteral("RD"), true, toDoubles(r.rdSummed()));
        add(QStringLiteral("RR"), true, toDoubles(r.rrSummed()));
        if (r.isWeighted()) {
            add(QStringLiteral("DD_w"), false, r.raw.ddWeighted);
            add(QStringLiteral("DR_w"), false, r.drWeightedSummed());
            if (cross)
                add(QStringLiteral("RD_w"), false, r.rdWeightedSummed());
            add(QStringLiteral("RR_w"), false, r.rrWeightedSummed());
        }
        add(QStringLiteral("DD_norm"), false, r.normalised.dd);
        add(QStringLiteral("DR_norm"), false, r.normalised.dr);
        if (cross)
            add(QStringLiteral("RD_norm"), false, r.normalised.rd);
        add(QStringLiteral("RR_norm"), false, r.normalised.rr);
        add(QStringLiteral("w"), false, r.w);
        if (r.hasJackknife())
            add(kWErrName, false, r.wError);
        for (const MeanSeparation& mean : r.meanSeparations) {
            const QString label = QString::fromStdString(mean.label);
            add(QStringLiteral("mean_theta_") + label, false, mean.theta);
            add(QStringLiteral("mean_log_theta_") + label, false, mean.logTheta);
        }
    }
    endResetModel();
}

int ResultTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_result ? 0 : int(m_result->binCount());
}

int ResultTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : (m_result ? int(m_columns.size()) : int(columnNames().size()));
}

double ResultTableModel::value(int row, int column) const {
    if (!m_result || row < 0 || std::size_t(row) >= m_result->binCount() || column < 0 ||
        std::size_t(column) >= m_columns.size())
        return std::nan("");
    const std::vector<double>& values = m_columns[std::size_t(column)].values;
    return std::size_t(row) < values.size() ? values[std::size_t(row)] : std::nan("");
}

QVariant ResultTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const double number = value(index.row(), index.column());
    const bool integerColumn = m_result && std::size_t(index.column()) < m_columns.size() &&
                               m_columns[std::size_t(index.column())].integer;
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
        if (index.column() == columnIndex(QStringLiteral("w")) && number < 0)
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
    const QString label = columnLabel(section);
    if (label.isEmpty())
        return {};
    if (m_result && label.startsWith(QStringLiteral("theta_"))) // θ columns carry the bins' unit
        return tr("%1\n(%2)").arg(label, QString::fromLatin1(angleUnitName(m_result->bins.unit)));
    return label;
}

ResultTableView::ResultTableView(QWidget* parent) : QTableView(parent) {
    setSelectionBehavior(QAbstractItemView::SelectItems);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setAlternatingRowColors(true);
    // Tab moves on to the next control, as everywhere else in the window; cells have the
    // arrow keys (and nothing here is edited, so Tab has no cell to go to).
    setTabKeyNavigation(false);
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
        connect(model, &QAbstractItemModel::modelReset, this, &ResultTableView::fitColumns);
    fitColumns();
}

void ResultTableView::fitColumns() {
    if (!model())
        return;
    // Each column as wide as its numbers and its header, with one common floor (the width of
    // a full "-0.000123457"), so the counts and ratios read as columns of one table rather than
    // a mix of narrow and wide ones.
    resizeColumnsToContents();
    const int floor = fontMetrics().horizontalAdvance(QStringLiteral("-0.000123457")) + 12;
    for (int column = 0; column < model()->columnCount(); ++column)
        if (columnWidth(column) < floor)
            setColumnWidth(column, floor);
}

int ResultTableView::heightForRows(int rows) const {
    const QHeaderView* header = horizontalHeader();
    const int headerHeight = header->isHidden() ? 0 : header->sizeHint().height();
    const int scrollBar = horizontalScrollBar()->sizeHint().height(); // many columns scroll
    return 2 * frameWidth() + headerHeight + rows * verticalHeader()->defaultSectionSize() +
           scrollBar;
}

QSize ResultTableView::sizeHint() const {
    return {QTableView::sizeHint().width(), heightForRows(kPreferredRows)};
}

QSize ResultTableView::minimumSizeHint() const {
    return {QTableView::minimumSizeHint().width(), heightForRows(kMinimumRows)};
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
