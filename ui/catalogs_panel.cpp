#include "catalogs_panel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tpacf::ui {

namespace {

QString formatDegrees(double radians) {
    return QString::number(fromRadians(radians, AngleUnit::Degree), 'f', 1);
}

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

CatalogsPanel::CatalogsPanel(QWidget* parent) : QWidget(parent) {
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(4);
    m_tree->setHeaderLabels({tr("Catalog"), tr("N"), tr("RA (°)"), tr("Dec (°)")});
    m_tree->setRootIsDecorated(false);
    m_tree->setIndentation(12);
    m_tree->setUniformRowHeights(true);
    // The name takes the room the numbers leave; N stays narrow (compact above a million, see
    // formatCount) and long names lose their middle, not the end that tells sets apart
    // ("…_random_1.txt" vs "…_random_2.txt"); the tooltip has the whole path.
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_tree->setTextElideMode(Qt::ElideMiddle);
    m_tree->setMinimumHeight(110);
    m_openButton = new QPushButton(tr("Data…"), this);
    m_addButton = new QPushButton(tr("Add random…"), this);
    m_removeButton = new QPushButton(tr("Remove"), this);
    m_openButton->setObjectName(QStringLiteral("openDataButton"));
    m_addButton->setObjectName(QStringLiteral("addRandomButton"));
    m_removeButton->setObjectName(QStringLiteral("removeRandomButton"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_openButton);
    buttons->addWidget(m_addButton);
    buttons->addWidget(m_removeButton);
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

void CatalogsPanel::setButtonsEnabled(bool enabled) {
    for (QPushButton* button : {m_openButton, m_addButton, m_removeButton})
        button->setEnabled(enabled);
}

int CatalogsPanel::selectedRandomIndex() const {
    const QTreeWidgetItem* item = m_tree->currentItem();
    return item ? item->data(0, Qt::UserRole).toInt() : -1;
}

void CatalogsPanel::setCatalogs(const std::optional<LoadedCatalog>& data,
                                const QList<LoadedCatalog>& randoms) {
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
        return group;
    };
    auto addRow = [](QTreeWidgetItem* group, const LoadedCatalog& loaded, int randomIndex) {
        const SkyExtent extent = loaded.catalog->extent();
        auto* item = new QTreeWidgetItem(group);
        item->setText(0, loaded.source.displayName());
        item->setText(1, formatCount(loaded.catalog->size()));
        item->setText(2, QStringLiteral("%1 – %2").arg(formatDegrees(extent.raMin),
                                                       formatDegrees(extent.raMax)));
        item->setText(3, QStringLiteral("%1 – %2").arg(formatDegrees(extent.decMin),
                                                       formatDegrees(extent.decMax)));
        const QString origin =
            (loaded.source.isResource() ? tr("Bundled sample") : loaded.source.path) +
            tr("\n%1 points").arg(QLocale().toString(qulonglong(loaded.catalog->size())));
        for (int c = 0; c < 4; ++c)
            item->setToolTip(c, origin);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(0, Qt::UserRole, randomIndex);
    };
    QTreeWidgetItem* dataGroup = addGroup(tr("Data"));
    if (data)
        addRow(dataGroup, *data, -1);
    QTreeWidgetItem* randomGroup = addGroup(tr("Randoms (%1)").arg(randoms.size()));
    for (int i = 0; i < randoms.size(); ++i)
        addRow(randomGroup, randoms[i], i);
    m_tree->expandAll();
}

} // namespace tpacf::ui
