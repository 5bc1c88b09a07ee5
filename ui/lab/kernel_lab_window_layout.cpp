// SPDX-License-Identifier: GPL-3.0-or-later
// KernelLabWindow, part two: its widgets, actions and the list of variants.
// (kernel_lab_window.cpp holds the settings, the run and what the window shows of it.)
#include "kernel_lab_window.h"

#include "kernel_lab_demos.h"

#include <QAction>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <map>

namespace tpacf::ui {

namespace {

QCustomPlot* createPlot(QWidget* parent) {
    auto* plot = new QCustomPlot(parent);
    plot->setMinimumSize(320, 220);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->legend->setFont(QFont(plot->font().family(), plot->font().pointSize() - 1));
    return plot;
}

// A teaching run should not take minutes: the naive rungs visit N²/2 pairs one by one.
constexpr int kDefaultPoints = 5000;

} // namespace

// ----------------------------------------------------------------------------------------------
// Layout

void KernelLabWindow::buildUi() {
    auto* settings = new QScrollArea;
    settings->setWidget(buildSettingsPanel());
    settings->setWidgetResizable(true);
    settings->setFrameShape(QFrame::NoFrame);
    settings->setMinimumWidth(270);
    settings->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    m_plotTabs = new QTabWidget;
    m_plotTabs->setDocumentMode(true);
    m_speedChart = createPlot(this);
    m_plotTabs->addTab(m_speedChart, tr("Speed (pairs/s)"));
    auto* errorPage = new QWidget;
    auto* errorLayout = new QVBoxLayout(errorPage);
    errorLayout->setContentsMargins(0, 4, 0, 0);
    m_errorMode = new QComboBox;
    m_errorMode->addItem(tr("Counts − reference (pairs)"), int(LabErrorMode::Difference));
    m_errorMode->addItem(tr("Relative error (count / reference − 1)"), int(LabErrorMode::Relative));
    connect(m_errorMode, &QComboBox::currentIndexChanged, this, &KernelLabWindow::showErrors);
    auto* modeRow = new QHBoxLayout;
    modeRow->addWidget(new QLabel(tr("Show:")));
    modeRow->addWidget(m_errorMode);
    modeRow->addStretch();
    errorLayout->addLayout(modeRow);
    m_errorPlot = createPlot(errorPage);
    errorLayout->addWidget(m_errorPlot, 1);
    m_plotTabs->addTab(errorPage, tr("Per-bin error"));
    m_demos = new KernelLabDemos;
    connect(m_demos, &KernelLabDemos::runRequested, this, &KernelLabWindow::startDemo);
    m_plotTabs->addTab(m_demos, tr("Precision demos"));

    auto* details = new QWidget;
    auto* detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    m_explanation = new QTextBrowser;
    m_explanation->setOpenLinks(false);
    m_excerptTitle = new QLabel;
    m_excerptTitle->setWordWrap(true);
    m_excerptTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_excerpt = new QPlainTextEdit;
    m_excerpt->setReadOnly(true);
    m_excerpt->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_excerpt->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* detailSplit = new QSplitter(Qt::Vertical);
    detailSplit->addWidget(m_explanation);
    auto* excerptBox = new QWidget;
    auto* excerptLayout = new QVBoxLayout(excerptBox);
    excerptLayout->setContentsMargins(0, 0, 0, 0);
    excerptLayout->addWidget(m_excerptTitle);
    excerptLayout->addWidget(m_excerpt, 1);
    detailSplit->addWidget(excerptBox);
    detailSplit->setStretchFactor(0, 2);
    detailSplit->setStretchFactor(1, 3);
    detailsLayout->addWidget(detailSplit);

    m_table = new QTableWidget(0, int(LabTableColumn::Count));
    m_table->setHorizontalHeaderLabels(labTableHeaders());
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const int row = m_table->currentRow();
        if (const QTableWidgetItem* item = m_table->item(row, int(LabTableColumn::Key)))
            showVariant(item->data(kKeyRole).toString());
    });

    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(m_plotTabs);
    top->addWidget(details);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(top);
    right->addWidget(m_table);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    auto* main = new QSplitter(Qt::Horizontal);
    main->addWidget(settings);
    main->addWidget(right);
    main->setStretchFactor(1, 1);
    main->setSizes({280, 960});
    setCentralWidget(main);
    statusBar();
}

QWidget* KernelLabWindow::buildSettingsPanel() {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);

    auto* input = new QGroupBox(tr("Catalog"));
    auto* form = new QFormLayout(input);
    m_source = new QComboBox;
    m_source->addItem(tr("Generated uniform sky"), int(Source::Generated));
    m_source->addItem(tr("Data catalog (auto pairs)"), int(Source::Data));
    m_source->addItem(tr("Data × first random (cross)"), int(Source::DataCrossRandom));
    m_source->setToolTip(tr("The catalogs of the main window, or a uniform full-sky catalog"));
    m_source->setObjectName(QStringLiteral("labSourceCombo"));
    // The combo boxes on rows of their own, under their label: in a panel 270 px wide they get
    // its whole width, so their entries show whole ("Data × first random (cross)").
    form->addRow(new QLabel(tr("Source:")));
    form->addRow(m_source);
    m_points = new QSpinBox;
    m_points->setRange(2, 100'000'000);
    m_points->setGroupSeparatorShown(true);
    m_points->setValue(kDefaultPoints);
    m_points->setToolTip(tr("Points generated; of a loaded catalog, its first N points are "
                            "counted (the naive rungs visit every pair one by one)"));
    form->addRow(tr("Points (at most):"), m_points);
    m_seed = new QSpinBox;
    m_seed->setRange(1, 1'000'000);
    m_seed->setValue(1);
    form->addRow(tr("Seed:"), m_seed);
    m_bins = new QComboBox;
    m_bins->setObjectName(QStringLiteral("labBinsCombo"));
    m_bins->addItem(tr("0.01′–600′ log, 5 per decade"));
    form->addRow(new QLabel(tr("Bins:")));
    form->addRow(m_bins);
    // The boxes never widen the panel past a 1280 x 720 screen: a small minimum, the whole text
    // in the tooltip (the main window's bins are described in the summary).
    for (QComboBox* box : {m_source, m_bins}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(12);
    }
    m_repeats = new QSpinBox;
    m_repeats->setRange(1, 50);
    m_repeats->setValue(3);
    m_repeats->setToolTip(tr("Each variant counts this many times; the table shows the best"));
    form->addRow(tr("Repeats:"), m_repeats);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    form->addRow(m_summary);
    layout->addWidget(input);
    for (QSpinBox* box : {m_points, m_seed})
        connect(box, &QSpinBox::valueChanged, this, &KernelLabWindow::updateSummary);
    connect(m_source, &QComboBox::currentIndexChanged, this, &KernelLabWindow::updateSummary);
    connect(m_bins, &QComboBox::currentIndexChanged, this, &KernelLabWindow::updateSummary);
    connect(m_source, &QComboBox::activated, this, [this] { m_sourceChosen = true; });

    auto* variants = new QGroupBox(tr("Variants"));
    auto* variantsLayout = new QVBoxLayout(variants);
    m_variantTree = new QTreeWidget;
    m_variantTree->setHeaderHidden(true);
    m_variantTree->setMinimumHeight(160);
    connect(m_variantTree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item && !item->data(0, kKeyRole).toString().isEmpty())
            showVariant(item->data(0, kKeyRole).toString());
    });
    connect(m_variantTree, &QTreeWidget::itemChanged, this, [this] {
        if (!m_updatingTree)
            updateRunState();
    });
    variantsLayout->addWidget(m_variantTree);
    layout->addWidget(variants, 1);

    m_runButton = new QPushButton(tr("Run"));
    m_runButton->setDefault(true);
    m_cancelButton = new QPushButton(tr("Cancel"));
    connect(m_runButton, &QPushButton::clicked, this, &KernelLabWindow::startRun);
    connect(m_cancelButton, &QPushButton::clicked, this, &KernelLabWindow::cancelRun);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton);
    buttons->addWidget(m_cancelButton);
    layout->addLayout(buttons);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    layout->addWidget(m_progress);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    return panel;
}

void KernelLabWindow::buildActions() {
    m_runAction = new QAction(tr("&Run"), this);
    m_runAction->setShortcut(QKeySequence(tr("Ctrl+R")));
    connect(m_runAction, &QAction::triggered, this, &KernelLabWindow::startRun);
    m_cancelAction = new QAction(tr("&Cancel"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    connect(m_cancelAction, &QAction::triggered, this, &KernelLabWindow::cancelRun);
    m_exportChartAction = new QAction(tr("Export &Chart (PNG/PDF)…"), this);
    m_exportChartAction->setToolTip(tr("The chart on show (speed or per-bin error), for slides"));
    connect(m_exportChartAction, &QAction::triggered, this, &KernelLabWindow::exportChartDialog);
    m_exportTableAction = new QAction(tr("Export &Table (CSV)…"), this);
    connect(m_exportTableAction, &QAction::triggered, this, &KernelLabWindow::exportTableDialog);

    QMenu* lab = menuBar()->addMenu(tr("&Lab"));
    lab->addAction(m_runAction);
    lab->addAction(m_cancelAction);
    lab->addSeparator();
    lab->addAction(m_exportChartAction);
    lab->addAction(m_exportTableAction);
    lab->addSeparator();
    lab->addAction(tr("C&lose"), QKeySequence::Close, this, &QWidget::close);
    QToolBar* bar = addToolBar(tr("Lab"));
    bar->setObjectName(QStringLiteral("labToolBar"));
    bar->addAction(m_runAction);
    bar->addAction(m_cancelAction);
    bar->addSeparator();
    bar->addAction(m_exportChartAction);
    bar->addAction(m_exportTableAction);
}

void KernelLabWindow::fillVariantTree() {
    m_updatingTree = true;
    m_variantTree->clear();
    std::map<QString, QTreeWidgetItem*> groups;
    for (const VariantInfo& info : m_variants) {
        QTreeWidgetItem*& group = groups[info.backend];
        const auto missing = m_options.unavailable.find(info.backend);
        const bool available = missing == m_options.unavailable.end();
        if (!group) {
            group = new QTreeWidgetItem(
                m_variantTree, {available ? info.backend.toUpper()
                                          : tr("%1 (no device here)").arg(info.backend.toUpper())});
            group->setFlags(group->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsAutoTristate);
            group->setForeground(0, labBackendColor(info.backend).darker(120));
            if (!available)
                group->setToolTip(0, missing->second);
        }
        auto* item = new QTreeWidgetItem(group, {QStringLiteral("%1 · %2").arg(info.rung).arg(info.key)});
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        // Rungs of a backend without a device here could only fail: listed, not ticked.
        item->setCheckState(0, available ? Qt::Checked : Qt::Unchecked);
        item->setData(0, kKeyRole, info.key);
        item->setToolTip(0, info.name + (info.exact ? QString() : tr(" (not exact: on purpose)")));
    }
    m_variantTree->expandAll();
    m_updatingTree = false;
}

} // namespace tpacf::ui
