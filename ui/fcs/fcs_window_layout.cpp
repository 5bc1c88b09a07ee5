// SPDX-License-Identifier: GPL-3.0-or-later
// The FCS window's widgets and their wiring (the behaviour is in fcs_window.cpp).
#include "fcs_window.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace tpacf::ui {

void FcsWindow::buildUi() {
    auto* controls = new QWidget;
    auto* column = new QVBoxLayout(controls);

    auto* input = new QGroupBox(tr("Photon stream"));
    auto* inputLayout = new QVBoxLayout(input);
    m_source = new QComboBox;
    m_source->setObjectName(QStringLiteral("fcsSource"));
    m_source->addItems({tr("Simulate"), tr("Raw uint8 frames (.u8)"), tr("ASCII columns")});
    inputLayout->addWidget(m_source);
    m_sourcePages = new QStackedWidget;
    auto* simPage = new QWidget;
    auto* simForm = new QFormLayout(simPage);
    simForm->setContentsMargins(0, 0, 0, 0);
    m_particles = new QDoubleSpinBox;
    m_particles->setRange(0.01, 1000);
    m_particles->setValue(2);
    m_particles->setToolTip(tr("Mean particles in the focus, N_eff: G(0+) is about 1/N_eff"));
    m_tauD = new QDoubleSpinBox;
    m_tauD->setRange(0.1, 1e7);
    m_tauD->setDecimals(1);
    m_tauD->setValue(50);
    m_tauD->setToolTip(tr("Diffusion time tau_D = w0^2/4D, in frames"));
    m_simChannels = new QSpinBox;
    m_simChannels->setRange(1, 4096);
    m_simChannels->setValue(16);
    m_frames = new QSpinBox;
    m_frames->setRange(1, 1 << 30);
    m_frames->setSingleStep(1 << 16);
    m_frames->setValue(1 << 20);
    simForm->addRow(tr("Particles"), m_particles);
    simForm->addRow(tr("τ_D (frames)"), m_tauD);
    simForm->addRow(tr("Channels"), m_simChannels);
    simForm->addRow(tr("Frames"), m_frames);
    auto* filePage = new QWidget;
    auto* fileForm = new QFormLayout(filePage);
    fileForm->setContentsMargins(0, 0, 0, 0);
    auto* pathRow = new QHBoxLayout;
    m_path = new QLineEdit;
    m_path->setObjectName(QStringLiteral("fcsPath"));
    auto* browseButton = new QPushButton(tr("Open…"));
    pathRow->addWidget(m_path);
    pathRow->addWidget(browseButton);
    m_rawChannels = new QSpinBox;
    m_rawChannels->setRange(1, 1 << 20);
    m_rawChannels->setValue(1024);
    m_rawChannels->setToolTip(tr("Channels per frame of a raw file: its size must be a multiple"));
    fileForm->addRow(tr("File"), pathRow);
    fileForm->addRow(tr("Channels"), m_rawChannels);
    m_sourcePages->addWidget(simPage);
    m_sourcePages->addWidget(filePage);
    inputLayout->addWidget(m_sourcePages);
    column->addWidget(input);

    auto* corr = new QGroupBox(tr("Correlator"));
    auto* corrForm = new QFormLayout(corr);
    m_lagsPerLevel = new QSpinBox;
    m_lagsPerLevel->setRange(2, 1024);
    m_lagsPerLevel->setSingleStep(2);
    m_lagsPerLevel->setValue(32);
    m_lagsPerLevel->setToolTip(tr("P, lags per level (even)"));
    m_levels = new QSpinBox;
    m_levels->setRange(1, 40);
    m_levels->setValue(12);
    m_levels->setToolTip(tr("L, levels: level k sums blocks of 2^k frames"));
    m_frameMicros = new QDoubleSpinBox;
    m_frameMicros->setRange(1e-6, 1e9);
    m_frameMicros->setDecimals(4);
    m_frameMicros->setValue(1.6);
    m_frameMicros->setSuffix(tr(" µs"));
    m_backend = new QComboBox;
    m_backend->setObjectName(QStringLiteral("fcsBackend"));
    m_backend->addItem(tr("CPU"), QString());
    for (const auto& provider : m_correlators.providers())
        if (provider->unavailableReason().empty())
            m_backend->addItem(QString::fromStdString(provider->displayName()),
                               QString::fromStdString(provider->name()));
    corrForm->addRow(tr("P (lags/level)"), m_lagsPerLevel);
    corrForm->addRow(tr("L (levels)"), m_levels);
    corrForm->addRow(tr("Frame time"), m_frameMicros);
    corrForm->addRow(tr("Backend"), m_backend);
    column->addWidget(corr);

    auto* runRow = new QHBoxLayout;
    m_run = new QPushButton(tr("Run"));
    m_run->setObjectName(QStringLiteral("fcsRun"));
    m_stop = new QPushButton(tr("Stop"));
    m_stop->setObjectName(QStringLiteral("fcsStop"));
    m_stop->setEnabled(false);
    runRow->addWidget(m_run);
    runRow->addWidget(m_stop);
    column->addLayout(runRow);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    column->addWidget(m_progress);
    m_status = new QLabel(tr("Simulate or open a stream, then Run."));
    m_status->setWordWrap(true);
    column->addWidget(m_status);

    auto* view = new QGroupBox(tr("View"));
    auto* viewForm = new QFormLayout(view);
    m_channel = new QComboBox;
    m_channel->setObjectName(QStringLiteral("fcsChannel"));
    m_mapLag = new QComboBox;
    m_mapLag->setObjectName(QStringLiteral("fcsMapLag"));
    viewForm->addRow(tr("Channel"), m_channel);
    viewForm->addRow(tr("Map lag"), m_mapLag);
    auto* exportRow = new QHBoxLayout;
    m_exportCsv = new QPushButton(tr("Export CSV…"));
    m_exportPlot = new QPushButton(tr("Export PNG/PDF…"));
    m_exportCsv->setEnabled(false);
    m_exportPlot->setEnabled(false);
    exportRow->addWidget(m_exportCsv);
    exportRow->addWidget(m_exportPlot);
    viewForm->addRow(exportRow);
    column->addWidget(view);
    column->addStretch(1);

    auto* scroll = new QScrollArea;
    scroll->setWidget(controls);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(controls->sizeHint().width() + 24);

    m_plot = new QCustomPlot;
    m_plot->setObjectName(QStringLiteral("fcsPlot"));
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    m_plot->xAxis->setNumberFormat(QStringLiteral("eb"));
    m_plot->xAxis->setNumberPrecision(0);
    m_plot->xAxis->setLabel(tr("τ (s)"));
    m_plot->yAxis->setLabel(tr("G(τ)"));
    QCPGraph* measured = m_plot->addGraph();
    measured->setName(tr("measured"));
    measured->setLineStyle(QCPGraph::lsNone);
    measured->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    measured->setPen(QPen(QColor(31, 119, 180)));
    QCPGraph* expected = m_plot->addGraph();
    expected->setName(tr("expected (simulation)"));
    expected->setPen(QPen(QColor(214, 39, 40), 1.5));
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    auto* mapBox = new QWidget;
    auto* mapLayout = new QVBoxLayout(mapBox);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    m_mapPlot = new QCustomPlot;
    m_mapPlot->setObjectName(QStringLiteral("fcsMap"));
    m_map = new QCPColorMap(m_mapPlot->xAxis, m_mapPlot->yAxis);
    m_map->setGradient(QCPColorGradient::gpThermal);
    m_map->setInterpolate(false);
    auto* scale = new QCPColorScale(m_mapPlot);
    m_mapPlot->plotLayout()->addElement(0, 1, scale);
    m_map->setColorScale(scale);
    scale->axis()->setLabel(tr("G"));
    m_mapPlot->xAxis->setLabel(tr("column"));
    m_mapPlot->yAxis->setLabel(tr("row"));
    m_mapNote = new QLabel(tr("The map of G per channel shows after a run, for a square array "
                              "of channels (16 = 4 × 4, 1024 = 32 × 32)."));
    m_mapNote->setObjectName(QStringLiteral("fcsMapNote"));
    m_mapNote->setWordWrap(true);
    mapLayout->addWidget(m_mapPlot, 1);
    mapLayout->addWidget(m_mapNote);
    m_mapPlot->setVisible(false);
    // Every layout (a resize, the splitter moved) keeps the cells square.
    connect(m_mapPlot, &QCustomPlot::afterLayout, this, &FcsWindow::squareMapCells);

    auto* plots = new QSplitter(Qt::Horizontal);
    plots->addWidget(m_plot);
    plots->addWidget(mapBox);
    plots->setStretchFactor(0, 3);
    plots->setStretchFactor(1, 2);
    plots->setSizes({560, 360}); // the note's word-wrapped hint would otherwise claim half

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(scroll);
    split->addWidget(plots);
    split->setStretchFactor(1, 1);
    setCentralWidget(split);

    connect(m_source, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { updateSourceWidgets(); });
    connect(browseButton, &QPushButton::clicked, this, &FcsWindow::browse);
    connect(m_run, &QPushButton::clicked, this, [this] { run(); });
    connect(m_stop, &QPushButton::clicked, this, &FcsWindow::stop);
    connect(m_channel, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { redrawCurve(); });
    connect(m_mapLag, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this] { redrawMap(); });
    connect(m_exportCsv, &QPushButton::clicked, this, &FcsWindow::exportCsvInteractive);
    connect(m_exportPlot, &QPushButton::clicked, this, &FcsWindow::exportPlotInteractive);
    updateSourceWidgets();
}

} // namespace tpacf::ui
