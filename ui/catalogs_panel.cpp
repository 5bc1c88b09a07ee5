#include "catalogs_panel.h"

#include <tpacf/estimator.h>

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tpacf::ui {

namespace {

QString formatDegrees(double radians) {
    return QString::number(fromRadians(radians, AngleUnit::Degree), 'f', 1);
}

// What a row holds (Qt::UserRole keeps the index of a first-sample random, -1 otherwise).
enum class RowKind { Group, Data, Random, Data2, Random2 };
constexpr int kKindRole = Qt::UserRole + 1;
constexpr int kIndexRole = Qt::UserRole + 2;

} // namespace

// Compact above a million so a large catalog does not widen the column at the names' expense;
// the tooltip keeps the exact count.
QString CatalogsPanel::formatCount(std::size_t count) {
    if (count < 1000000)
        return QLocale().toString(qulonglong(count));
    double value = double(count) / 1e6;
    QString suffix = QStringLiteral(" M");
    if (value >= 1000.0) {
        value /= 1000.0;
        suffix = QStringLiteral(" G");
    }
    const int decimals = value < 10 ? 2 : value < 100 ? 1 : 0;
    return QLocale().toString(value, 'f', decimals) + suffix;
}

QString CatalogsPanel::formatWeightSum(double sum) {
    if (!std::isfinite(sum))
        return QString::number(sum);
    if (std::abs(sum) < 999999.95)
        return QLocale().toString(sum, 'f', 1);
    double value = sum / 1e6;
    QString suffix = QStringLiteral(" M");
    if (std::abs(value) >= 1000.0) {
        value /= 1000.0;
        suffix = QStringLiteral(" G");
    }
    const double magnitude = std::abs(value);
    const int decimals = magnitude < 10 ? 2 : magnitude < 100 ? 1 : 0;
    return QLocale().toString(value, 'f', decimals) + suffix;
}

QString CatalogsPanel::describeOrigin(const Catalog& catalog) {
    if (!catalog.origin().known())
        return tr("%1 points").arg(QLocale().toString(qulonglong(catalog.size())));
    return QString::fromStdString(catalog.origin().describe());
}

CatalogsPanel::CatalogsPanel(QWidget* parent) : QWidget(parent) {
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({tr("Catalog"), tr("N"), tr("RA (°)"), tr("Dec (°)"), tr("Σw")});
    // Σw sits next to N (it was added last, so the other columns keep their indices).
    m_tree->header()->moveSection(WeightColumn, CountColumn + 1);
    m_tree->headerItem()->setToolTip(WeightColumn, tr("Sum of the weights of a weighted catalog"));
    m_tree->setRootIsDecorated(false);
    m_tree->setIndentation(12);
    m_tree->setUniformRowHeights(true);
    // The name takes the room the numbers leave; N stays narrow (compact above a million, see
    // formatCount) and long names lose their middle, not the end that tells sets apart
    // ("…_random_1.txt" vs "…_random_2.txt"); the tooltip has the whole path.
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < ColumnCount; ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_tree->setTextElideMode(Qt::ElideMiddle);
    m_tree->setMinimumHeight(110);
    m_openButton = new QPushButton(tr("Data…"), this);
    m_addButton = new QPushButton(tr("Add random…"), this);
    m_removeButton = new QPushButton(tr("Remove"), this);
    m_openButton->setObjectName(QStringLiteral("openDataButton"));
    m_addButton->setObjectName(QStringLiteral("addRandomButton"));
    m_removeButton->setObjectName(QStringLiteral("removeRandomButton"));
    // The second sample is rarer: one button with a menu keeps the row short.
    m_secondButton = new QToolButton(this);
    m_secondButton->setText(tr("Second sample"));
    m_secondButton->setToolTip(
        tr("A second data catalog (and its randoms) for the cross-correlation of two samples"));
    m_secondButton->setPopupMode(QToolButton::InstantPopup);
    m_secondButton->setObjectName(QStringLiteral("secondSampleButton"));
    m_secondButton->setMenu(new QMenu(m_secondButton));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_openButton);
    buttons->addWidget(m_addButton);
    buttons->addWidget(m_removeButton);
    buttons->addWidget(m_secondButton);
    auto* hint = new QLabel(tr("Drop catalog files here to open them."), this);
    hint->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); }"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_tree, 1);
    layout->addLayout(buttons);
    layout->addWidget(hint);
    setCatalogs(std::nullopt, {});
}

void CatalogsPanel::setActions(QAction* openData, QAction* addRandom, QAction* removeRandom) {
    m_openButton->setToolTip(openData->text());
    connect(m_openButton, &QPushButton::clicked, openData, &QAction::trigger);
    connect(m_addButton, &QPushButton::clicked, addRandom, &QAction::trigger);
    connect(m_removeButton, &QPushButton::clicked, removeRandom, &QAction::trigger);
    m_tree->addAction(removeRandom);
}

void CatalogsPanel::setSecondSampleActions(QAction* openData2, QAction* addRandom2,
                                           QAction* removeSecond) {
    QMenu* menu = m_secondButton->menu();
    menu->clear();
    menu->addAction(openData2);
    menu->addAction(addRandom2);
    menu->addSeparator();
    menu->addAction(removeSecond);
}

void CatalogsPanel::setButtonsEnabled(bool enabled) {
    for (QPushButton* button : {m_openButton, m_addButton, m_removeButton})
        button->setEnabled(enabled);
    m_secondButton->setEnabled(enabled);
}

int CatalogsPanel::selectedRandomIndex() const {
    const QTreeWidgetItem* item = m_tree->currentItem();
    return item ? item->data(0, Qt::UserRole).toInt() : -1;
}

int CatalogsPanel::selectedRandom2Index() const {
    const QTreeWidgetItem* item = m_tree->currentItem();
    if (!item || RowKind(item->data(0, kKindRole).toInt()) != RowKind::Random2)
        return -1;
    return item->data(0, kIndexRole).toInt();
}

void CatalogsPanel::setCatalogs(const std::optional<LoadedCatalog>& data,
                                const QList<LoadedCatalog>& randoms,
                                const std::optional<LoadedCatalog>& data2,
                                const QList<LoadedCatalog>& randoms2) {
    m_tree->clear();
    // Two groups, "Data" and "Randoms", so the file names get the full first column.
    auto addGroup = [this](const QString& title) {
        auto* group = new QTreeWidgetItem(m_tree);
        group->setText(0, title);
        QFont bold = group->font(0);
        bold.setBold(true);
        group->setFont(0, bold);
        group->setFlags(Qt::ItemIsEnabled);
        group->setData(0, Qt::UserRole, -1);
        group->setData(0, kKindRole, int(RowKind::Group));
        // A group's title has the whole row: the columns are the catalogs' (and often narrow).
        group->setFirstColumnSpanned(true);
        return group;
    };
    bool anyWeighted = false;
    auto addRow = [this, &anyWeighted](QTreeWidgetItem* group, const LoadedCatalog& loaded,
                                       RowKind kind, int index) {
        const Catalog& catalog = *loaded.catalog;
        const SkyExtent extent = catalog.extent();
        auto* item = new QTreeWidgetItem(group);
        item->setText(NameColumn, loaded.source.displayName());
        item->setText(CountColumn, formatCount(catalog.size()));
        item->setText(RaColumn, QStringLiteral("%1 – %2").arg(formatDegrees(extent.raMin),
                                                              formatDegrees(extent.raMax)));
        item->setText(DecColumn, QStringLiteral("%1 – %2").arg(formatDegrees(extent.decMin),
                                                               formatDegrees(extent.decMax)));
        // The tooltip states how the file was read: the columns, unit, HDU and filter, rows.
        QString origin = (loaded.source.isResource() ? tr("Bundled sample") : loaded.source.path) +
                         QLatin1Char('\n') + describeOrigin(catalog);
        if (catalog.hasWeights()) {
            anyWeighted = true;
            // Σw from the core (the sum the job normalises with); the list only counts signs.
            const WeightSums sums = WeightSums::of(catalog);
            const auto negative = std::count_if(catalog.weight().begin(), catalog.weight().end(),
                                                [](double w) { return w < 0; });
            QString text = formatWeightSum(sums.sum);
            if (negative > 0) {
                text += tr(" (%1 < 0)").arg(QLocale().toString(qlonglong(negative)));
                item->setForeground(WeightColumn, QColor(0xc0, 0x39, 0x2b));
            }
            item->setText(WeightColumn, text);
            item->setTextAlignment(WeightColumn, Qt::AlignRight | Qt::AlignVCenter);
            const std::string& weightColumn = catalog.origin().weightColumn;
            origin +=
                tr("\nWeighted (%1): Σw = %2")
                    .arg(weightColumn.empty() ? tr("column %1").arg(loaded.source.weightColumn)
                                              : QString::fromStdString(weightColumn))
                    .arg(QLocale().toString(sums.sum, 'f', 1));
            if (negative > 0)
                origin += tr(", %1 negative weights").arg(QLocale().toString(qlonglong(negative)));
        }
        for (int c = 0; c < ColumnCount; ++c)
            item->setToolTip(c, origin);
        item->setTextAlignment(CountColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(0, Qt::UserRole, kind == RowKind::Random ? index : -1);
        item->setData(0, kKindRole, int(kind));
        item->setData(0, kIndexRole, index);
    };
    QTreeWidgetItem* dataGroup = addGroup(tr("Data"));
    if (data)
        addRow(dataGroup, *data, RowKind::Data, 0);
    QTreeWidgetItem* randomGroup = addGroup(tr("Randoms (%1)").arg(randoms.size()));
    for (int i = 0; i < randoms.size(); ++i)
        addRow(randomGroup, randoms[i], RowKind::Random, i);
    if (data2 || !randoms2.isEmpty()) {
        // Cross-correlation: D1 above, D2 here.
        QTreeWidgetItem* data2Group = addGroup(tr("Second data (D2)"));
        if (data2)
            addRow(data2Group, *data2, RowKind::Data2, 0);
        QTreeWidgetItem* random2Group =
            addGroup(randoms2.isEmpty() ? tr("Randoms of D2: none (the randoms above serve both)")
                                        : tr("Randoms of D2 (%1)").arg(randoms2.size()));
        for (int i = 0; i < randoms2.size(); ++i)
            addRow(random2Group, randoms2[i], RowKind::Random2, i);
    }
    m_tree->setColumnHidden(WeightColumn, !anyWeighted);
    m_tree->expandAll();
}

} // namespace tpacf::ui
