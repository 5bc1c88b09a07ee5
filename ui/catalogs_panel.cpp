// SPDX-License-Identifier: GPL-3.0-or-later
#include "catalogs_panel.h"
#include "catalog_stats.h"

#include "column_mapping_dialog.h"

#include <tpacf/estimator.h>

#include <QAction>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QGridLayout>
#include <QPushButton>
#include <QTextDocument>
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

std::optional<CatalogRole> roleOf(RowKind kind) {
    switch (kind) {
    case RowKind::Data:
        return CatalogRole::Data;
    case RowKind::Random:
        return CatalogRole::Random;
    case RowKind::Data2:
        return CatalogRole::Data2;
    case RowKind::Random2:
        return CatalogRole::Random2;
    case RowKind::Group:
        break;
    }
    return std::nullopt;
}

// A line of the warning label: escaped text, then an optional link.
// A zero-width space: where a long path or name may break in the banner.
constexpr QChar kBreakHere(0x200B);

QString warningLine(const QString& text, const QString& link = {}, const QString& linkText = {}) {
    // File names and paths have no spaces: without break points one of them sets the banner's
    // (and the dock's) minimum width. They may break after / _ - and . instead.
    QString breakable;
    for (const QChar c : text) {
        breakable += c;
        if (c == QLatin1Char('/') || c == QLatin1Char('_') || c == QLatin1Char('-') ||
            c == QLatin1Char('.'))
            breakable += kBreakHere;
    }
    QString line = QStringLiteral("⚠ ") + breakable.toHtmlEscaped();
    if (!link.isEmpty())
        line += QStringLiteral(" <a href=\"%1\">%2</a>").arg(link, linkText.toHtmlEscaped());
    return line;
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
    // The core names columns given by hand as the CLI takes them; here they came from the
    // column dialog.
    QString text = QString::fromStdString(catalog.origin().describe());
    text.replace(QStringLiteral("named by --ra-col/--dec-col"),
                 tr("chosen in the column dialog"));
    text.replace(QStringLiteral("named by --ra-col"), tr("chosen in the column dialog"));
    text.replace(QStringLiteral("named by --dec-col"), tr("chosen in the column dialog"));
    return text;
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
    // Any listed file can be read again with other columns or another unit.
    m_columnsButton = new QPushButton(tr("Columns…"), this);
    m_columnsButton->setObjectName(QStringLiteral("columnsButton"));
    m_columnsButton->setToolTip(tr("Read the selected catalog again with other columns or "
                                   "another coordinate unit (deg, arcmin, arcsec, rad, RA in "
                                   "hours)"));
    connect(m_columnsButton, &QPushButton::clicked, this, [this] {
        CatalogRole role;
        int index = 0;
        if (selectedCatalog(role, index))
            editCatalog(role, index);
    });
    connect(m_tree, &QTreeWidget::currentItemChanged, this, &CatalogsPanel::updateColumnsButton);
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        const auto role = roleOf(RowKind(item->data(0, kKindRole).toInt()));
        if (role && m_buttonsEnabled)
            editCatalog(*role, item->data(0, kIndexRole).toInt());
    });
    m_warnings = new QLabel(this);
    m_warnings->setObjectName(QStringLiteral("catalogWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::RichText);
    m_warnings->setTextInteractionFlags(Qt::LinksAccessibleByMouse |
                                        Qt::LinksAccessibleByKeyboard);
    m_warnings->setStyleSheet(
        QStringLiteral("QLabel { color: #8a4b00; background: #fff4e0; border: 1px solid #f0c36d; "
                       "border-radius: 3px; padding: 3px; }"));
    m_warnings->hide();
    connect(m_warnings, &QLabel::linkActivated, this, &CatalogsPanel::onWarningLink);
    // Two rows: five buttons in one would not fit the dock on a laptop screen (about 370 px).
    auto* buttons = new QGridLayout;
    buttons->addWidget(m_openButton, 0, 0);
    buttons->addWidget(m_addButton, 0, 1);
    buttons->addWidget(m_removeButton, 0, 2);
    buttons->addWidget(m_columnsButton, 1, 0);
    buttons->addWidget(m_secondButton, 1, 1, 1, 2);
    m_secondButton->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    auto* hint = new QLabel(tr("Drop catalog files here to open them."), this);
    hint->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); }"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_warnings);
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
    m_buttonsEnabled = enabled;
    updateColumnsButton();
    // A retry link would queue a load behind the one running: it waits too.
    m_warnings->setTextInteractionFlags(enabled ? Qt::LinksAccessibleByMouse |
                                                      Qt::LinksAccessibleByKeyboard
                                                : Qt::NoTextInteraction);
}

void CatalogsPanel::setCatalogSet(const CatalogSet* set) {
    if (m_set)
        disconnect(m_set, nullptr, this, nullptr);
    m_set = set;
    if (m_set)
        connect(m_set, &CatalogSet::unitFailureChanged, this, &CatalogsPanel::updateWarnings);
    updateWarnings();
}

bool CatalogsPanel::selectedCatalog(CatalogRole& role, int& index) const {
    const QTreeWidgetItem* item = m_tree->currentItem();
    const auto kind = item ? roleOf(RowKind(item->data(0, kKindRole).toInt())) : std::nullopt;
    if (!kind)
        return false;
    role = *kind;
    index = item->data(0, kIndexRole).toInt();
    return true;
}

const CatalogsPanel::ListedCatalog* CatalogsPanel::listed(CatalogRole role, int index) const {
    for (const ListedCatalog& entry : m_listed)
        if (entry.role == role && entry.index == index)
            return &entry;
    return nullptr;
}

void CatalogsPanel::updateColumnsButton() {
    CatalogRole role;
    int index = 0;
    const ListedCatalog* entry = selectedCatalog(role, index) ? listed(role, index) : nullptr;
    const bool editable = entry && !entry->loaded.source.isResource();
    m_columnsButton->setEnabled(m_buttonsEnabled && editable);
    m_columnsButton->setToolTip(
        entry && entry->loaded.source.isResource()
            ? tr("The bundled sample is in degrees: there is nothing to map")
            : tr("Read the selected catalog again with other columns or another coordinate unit "
                 "(deg, arcmin, arcsec, rad, RA in hours)"));
}

std::optional<CatalogSource> CatalogsPanel::askForSource(const CatalogSource& source) {
    TablePreview preview;
    // A binary file is refused by the dialog itself, before any preview.
    if (binaryFileMessage(source.path).isEmpty()) {
        try {
            preview = previewCatalogFile(QFile::encodeName(source.path).toStdString());
        } catch (const std::exception& error) {
            m_previewProblem = tr("Cannot preview %1: %2")
                                   .arg(source.displayName(), describeReadError(error));
            updateWarnings();
            return std::nullopt;
        }
    }
    m_previewProblem.clear();
    updateWarnings();
    ColumnMappingDialog dialog(source, preview, this);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.source();
}

void CatalogsPanel::editCatalog(CatalogRole role, int index) {
    const ListedCatalog* entry = listed(role, index);
    if (!entry || entry->loaded.source.isResource())
        return;
    const CatalogSource before = entry->loaded.source;
    const std::optional<CatalogSource> chosen = askForSource(before);
    if (chosen && *chosen != before)
        Q_EMIT changeRequested(CatalogChange::reread(role, index, *chosen));
}

void CatalogsPanel::onWarningLink(const QString& link) {
    // "edit:<role>:<index>" rereads a listed catalog; "retry" the set's failed load.
    const QStringList parts = link.split(QLatin1Char(':'));
    if (parts.size() == 3 && parts[0] == QLatin1String("edit")) {
        editCatalog(CatalogRole(parts[1].toInt()), parts[2].toInt());
        return;
    }
    if (link == QLatin1String("retry") && m_set && m_set->unitFailure()) {
        const UnitFailure failure = *m_set->unitFailure();
        if (const std::optional<CatalogSource> chosen = askForSource(failure.suggested))
            Q_EMIT changeRequested(failure.retriedWith(*chosen));
    }
}

QString CatalogsPanel::warningText() const {
    if (m_warnings->isHidden())
        return {};
    QTextDocument document;
    document.setHtml(m_warnings->text());
    return document.toPlainText().remove(kBreakHere);
}

void CatalogsPanel::updateWarnings() {
    QStringList lines;
    if (m_set && m_set->unitFailure()) {
        const UnitFailure& failure = *m_set->unitFailure();
        lines.append(warningLine(tr("%1 could not be read in %2; its values fit %3 (%4).")
                                     .arg(failure.source.displayName(),
                                          describeUnits(failure.source.units()),
                                          describeUnits(failure.suggested.units()), failure.reason),
                                 QStringLiteral("retry"), tr("Choose the unit…")));
    }
    if (!m_previewProblem.isEmpty())
        lines.append(warningLine(m_previewProblem));
    lines += m_catalogWarnings;
    m_warnings->setText(lines.join(QStringLiteral("<br>")));
    m_warnings->setVisible(!lines.isEmpty());
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
    m_listed.clear();
    m_catalogWarnings.clear();
    m_previewProblem.clear();
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
        const CatalogStats stats = catalogStats(loaded.catalog, loaded.source.units());
        const SkyExtent& extent = stats.extent;
        auto* item = new QTreeWidgetItem(group);
        item->setText(NameColumn, loaded.source.displayName());
        item->setText(CountColumn, formatCount(catalog.size()));
        // The arc that holds the points: "350.0 – 10.0" for a field across RA 0.
        item->setText(RaColumn, QStringLiteral("%1 – %2").arg(formatDegrees(extent.raFrom),
                                                              formatDegrees(extent.raTo)));
        item->setText(DecColumn, QStringLiteral("%1 – %2").arg(formatDegrees(extent.decMin),
                                                               formatDegrees(extent.decMax)));
        // The tooltip states how the file was read: the columns, unit, HDU and filter, rows.
        QString origin = (loaded.source.isResource() ? tr("Bundled sample") : loaded.source.path) +
                         QLatin1Char('\n') + describeOrigin(catalog);
        if (catalog.hasWeights()) {
            anyWeighted = true;
            // Σw from the core (the sum the job normalises with); the list only counts signs.
            const WeightSums& sums = stats.weights;
            const std::uint64_t negative = stats.negativeWeights;
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
        const CatalogRole role = *roleOf(kind);
        m_listed.append({role, index, loaded});
        // A catalog read in a unit its values do not fit: said under the list, with the way out.
        if (const QString warning = unitWarningFor(loaded); !warning.isEmpty()) {
            item->setForeground(NameColumn, QColor(0xb3, 0x59, 0x00));
            for (int c = 0; c < ColumnCount; ++c)
                item->setToolTip(c, origin + QLatin1Char('\n') + warning);
            m_catalogWarnings.append(
                loaded.source.isResource()
                    ? warningLine(warning)
                    : warningLine(warning, QStringLiteral("edit:%1:%2").arg(int(role)).arg(index),
                                  tr("Change the unit…")));
        }
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
    const QString footprint = footprintWarningFor(data, randoms, data2, randoms2);
    for (const QString& line : footprint.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        m_catalogWarnings.append(warningLine(line));
    updateWarnings();
    updateColumnsButton();
}

} // namespace tpacf::ui
