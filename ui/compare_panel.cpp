// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare_panel.h"

#include "compare_runs.h"

#include <QColorDialog>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tpacf::ui {

namespace {

enum Column { Shown = 0, Label = 1, Source = 2 };

QIcon swatch(const QColor& colour) {
    QPixmap pixmap(14, 14);
    pixmap.fill(colour);
    return QIcon(pixmap);
}

} // namespace

ComparePanel::ComparePanel(CompareRuns* runs, QWidget* parent) : QWidget(parent), m_runs(runs) {
    m_table = new QTableWidget(0, 3, this);
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setHorizontalHeaderLabels({tr("Shown"), tr("Label"), tr("File")});
    m_table->horizontalHeader()->setSectionResizeMode(Shown, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(Label, QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(Label, 200);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setToolTip(tr("Runs drawn beside the current one. Untick to hide; double-click a "
                           "label to rename it, the colour square to recolour it."));

    auto* add = new QPushButton(tr("&Add Run…"), this);
    add->setToolTip(tr("Load a result file of this tool (CSV, ECSV or FITS) as an overlay"));
    m_remove = new QPushButton(tr("Remove"), this);
    m_export = new QPushButton(tr("Export CSV…"), this);
    m_export->setToolTip(tr("One long table of every shown run (and the ratio or difference) to "
                            "redo the figure elsewhere"));
    m_reference = new QComboBox(this);
    m_reference->setObjectName(QStringLiteral("compareReference"));
    m_reference->setToolTip(tr("The run the others are divided by (ratio) or subtracted from"));
    m_panel = new QComboBox(this);
    m_panel->setObjectName(QStringLiteral("comparePanelKind"));
    m_panel->addItem(tr("No panel"), int(Comparison::Panel::None));
    m_panel->addItem(tr("Ratio w / w_ref"), int(Comparison::Panel::Ratio));
    m_panel->addItem(tr("Difference w − w_ref"), int(Comparison::Panel::Difference));
    m_panel->setToolTip(tr("A panel under w(θ) comparing every shown run with the reference, "
                           "on the bins they share; error bars where both runs have jackknife σ"));
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("QLabel { color: #a03020; }"));
    m_message->hide();

    auto* controls = new QHBoxLayout;
    controls->addWidget(add);
    controls->addWidget(m_remove);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Panel:"), this));
    controls->addWidget(m_panel);
    controls->addWidget(new QLabel(tr("Reference:"), this));
    controls->addWidget(m_reference, 1);
    controls->addWidget(m_export);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(m_message);
    layout->addWidget(m_table, 1);

    connect(add, &QPushButton::clicked, this, &ComparePanel::addRequested);
    connect(m_export, &QPushButton::clicked, this, &ComparePanel::exportRequested);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row >= 0)
            m_runs->remove(row);
    });
    connect(m_table, &QTableWidget::cellChanged, this, &ComparePanel::onItemChanged);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int column) {
        if (column != Shown || row < 0 || row >= m_runs->count())
            return;
        const QColor colour =
            QColorDialog::getColor(m_runs->overlay(row).colour, this, tr("Colour of the run"));
        if (colour.isValid())
            m_runs->setColour(row, colour);
    });
    connect(m_reference, &QComboBox::activated, this,
            [this] { m_runs->setReference(m_reference->currentData().toInt()); });
    connect(m_panel, &QComboBox::activated, this, [this] {
        m_runs->setPanel(Comparison::Panel(m_panel->currentData().toInt()));
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_remove->setEnabled(m_table->currentRow() >= 0); });
    connect(m_runs, &CompareRuns::changed, this, [this] {
        // An edit in the table changes the runs: its items are replaced once the edit is over.
        if (m_editing)
            QMetaObject::invokeMethod(this, &ComparePanel::refresh, Qt::QueuedConnection);
        else
            refresh();
    });
    refresh();
}

void ComparePanel::setMessage(const QString& text) {
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

void ComparePanel::refresh() {
    m_refreshing = true;
    const Comparison& comparison = m_runs->comparison();
    m_table->setRowCount(m_runs->count());
    for (int row = 0; row < m_runs->count(); ++row) {
        const OverlayRun& run = m_runs->overlay(row);
        auto* shown = new QTableWidgetItem(swatch(run.colour), QString());
        shown->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        shown->setCheckState(run.visible ? Qt::Checked : Qt::Unchecked);
        m_table->setItem(row, Shown, shown);
        auto* label = new QTableWidgetItem(run.label);
        label->setFlags(Qt::ItemIsEditable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        m_table->setItem(row, Label, label);
        QString source = run.path.isEmpty() ? tr("(run of this session)") : run.path;
        if (run.table) {
            const QString summary = QString::fromStdString(run.table->summary());
            if (!summary.isEmpty())
                source += QStringLiteral("  —  ") + summary;
        }
        auto* file = new QTableWidgetItem(source);
        file->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        file->setToolTip(source);
        m_table->setItem(row, Source, file);
    }
    m_reference->clear();
    m_reference->addItem(currentRunLabel(), Comparison::kCurrentRun);
    for (int row = 0; row < m_runs->count(); ++row)
        m_reference->addItem(swatch(m_runs->overlay(row).colour), m_runs->overlay(row).label, row);
    m_reference->setCurrentIndex(m_reference->findData(comparison.reference));
    m_panel->setCurrentIndex(m_panel->findData(int(comparison.panel)));
    m_remove->setEnabled(m_table->currentRow() >= 0);
    m_refreshing = false;
}

void ComparePanel::onItemChanged(int row, int column) {
    if (m_refreshing || row < 0 || row >= m_runs->count())
        return;
    m_editing = true;
    if (column == Shown)
        m_runs->setVisible(row, m_table->item(row, Shown)->checkState() == Qt::Checked);
    else if (column == Label)
        m_runs->setLabel(row, m_table->item(row, Label)->text());
    m_editing = false;
}

} // namespace tpacf::ui
