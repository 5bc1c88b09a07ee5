// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_lab_demos.h"

#include "kernel_lab_results.h"

#include <tpacf/units.h>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

namespace tpacf::ui {

namespace {

QTableWidgetItem* cell(const QString& text, const QVariant& raw = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (raw.isValid())
        item->setData(Qt::UserRole, raw);
    return item;
}

QString groupedCount(std::uint64_t value) {
    return QStringLiteral("%L1").arg(value);
}

} // namespace

LabDemoResultPtr runLabDemo(const LabDemoRequest& request, const std::atomic<bool>* cancel) {
    auto result = std::make_shared<LabDemoResult>();
    result->kind = request.kind;
    const bool dot = request.kind == LabDemoKind::FloatDotVersusChord2;
    const std::size_t points =
        request.points ? request.points
                       : (dot ? lab::kDefaultLabPoints : lab::kOverflowDemoPoints);
    const Binning binning(dot ? lab::precisionDemoBins() : lab::overflowDemoBins());
    result->edges.assign(binning.edges().begin(), binning.edges().end());
    result->unit = QString::fromLatin1(angleUnitName(binning.unit()));
    result->points = points;
    if (dot) {
        const Catalog catalog = lab::precisionDemoCatalog(points, request.seed);
        result->precision = lab::dotVersusChord2(catalog, nullptr, binning, cancel);
    } else {
        const Catalog catalog = lab::overflowDemoCatalog(points, request.seed);
        result->overflow = lab::counterOverflow(catalog, nullptr, binning, 0, cancel);
    }
    return result;
}

KernelLabDemos::KernelLabDemos(QWidget* parent) : QWidget(parent) {
    qRegisterMetaType<LabDemoRequest>();
    qRegisterMetaType<LabDemoResultPtr>();
    m_dotButton = new QPushButton(tr("Float dot product vs chord² (0.01′–1′)"));
    m_dotButton->setToolTip(
        tr("Counts %L1 points in a 0.5° cap, binned on the float dot product against float "
           "cos(edge) (as a float port does) and on chord² thresholds: below ~0.84′ every float "
           "cos θ rounds to 1, and those bins are lost")
            .arg(lab::kDefaultLabPoints));
    m_overflowButton = new QPushButton(tr("32-bit counter overflow"));
    m_overflowButton->setToolTip(
        tr("Counts all %L1 pairs of %L2 points in one bin with 32-bit counters: the count "
           "exceeds 2^32 = 4,294,967,296 and the counter wraps round (takes a while)")
            .arg(std::uint64_t(lab::kOverflowDemoPoints) * (lab::kOverflowDemoPoints - 1) / 2)
            .arg(lab::kOverflowDemoPoints));
    connect(m_dotButton, &QPushButton::clicked, this, [this] {
        Q_EMIT runRequested({LabDemoKind::FloatDotVersusChord2, 0, 1});
    });
    connect(m_overflowButton, &QPushButton::clicked, this,
            [this] { Q_EMIT runRequested({LabDemoKind::CounterOverflow, 0, 1}); });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_dotButton);
    buttons->addWidget(m_overflowButton);
    buttons->addStretch();

    m_summary = new QLabel(tr("Two demonstrations of why the product counts as it does: pick "
                              "one (Cancel in the lab stops it)."));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableWidget;
    m_table->verticalHeader()->setVisible(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_plot = new QCustomPlot;
    m_plot->setMinimumSize(260, 180);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_table);
    split->addWidget(m_plot);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
}

void KernelLabDemos::setRunning(bool running) {
    m_dotButton->setEnabled(!running);
    m_overflowButton->setEnabled(!running);
}

void KernelLabDemos::showResult(const LabDemoResult& result) {
    m_plot->clearPlottables();
    m_plot->clearItems();
    if (result.kind == LabDemoKind::FloatDotVersusChord2)
        showPrecision(result);
    else
        showOverflow(result);
    m_table->resizeColumnsToContents();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void KernelLabDemos::showPrecision(const LabDemoResult& result) {
    const lab::PrecisionDemo& demo = result.precision;
    m_table->clear();
    m_table->setColumnCount(6);
    m_table->setHorizontalHeaderLabels({tr("θ from (%1)").arg(result.unit), tr("θ to"),
                                        tr("float cos(θ from)"), tr("float dot"), tr("chord²"),
                                        tr("reference")});
    const int bins = int(demo.reference.size());
    m_table->setRowCount(bins);
    int lost = 0;
    QVector<double> x, dotCounts, chordCounts, referenceCounts;
    for (int k = 0; k < bins; ++k) {
        const std::size_t b = std::size_t(k);
        m_table->setItem(k, 0, cell(QString::number(result.edges[b], 'g', 4), result.edges[b]));
        m_table->setItem(k, 1, cell(QString::number(result.edges[b + 1], 'g', 4), result.edges[b + 1]));
        const float cosEdge = b < demo.cosEdges.size() ? demo.cosEdges[b] : 1.0f;
        m_table->setItem(k, 2, cell(QString::number(double(cosEdge), 'f', 9), double(cosEdge)));
        m_table->setItem(k, 3, cell(groupedCount(demo.floatDot[b]), quint64(demo.floatDot[b])));
        m_table->setItem(k, 4, cell(groupedCount(demo.chord2[b]), quint64(demo.chord2[b])));
        m_table->setItem(k, 5, cell(groupedCount(demo.reference[b]), quint64(demo.reference[b])));
        if (demo.floatDot[b] != demo.reference[b]) {
            m_table->item(k, 3)->setForeground(QColor(190, 0, 0));
            ++lost;
        }
        x.append(std::sqrt(result.edges[b] * result.edges[b + 1]));
        dotCounts.append(double(demo.floatDot[b]));
        chordCounts.append(double(demo.chord2[b]));
        referenceCounts.append(double(demo.reference[b]));
    }
    m_summary->setText(
        tr("%L1 pairs of %L2 points in a 0.5° cap. The float dot product gets %3 of %4 bins "
           "wrong (red): below %5′ cos θ rounds to exactly 1 in float, so the edges' cosines "
           "coincide and their bins cannot be told apart; chord² thresholds get every bin.")
            .arg(demo.pairs)
            .arg(result.points)
            .arg(lost)
            .arg(bins)
            .arg(fromRadians(lab::floatDotUnresolvedRadians(), AngleUnit::Arcminute), 0, 'f', 2));
    const auto addCurve = [this, &x](const QVector<double>& y, const QString& name,
                                     const QColor& colour, QCPScatterStyle::ScatterShape shape) {
        QCPGraph* graph = m_plot->addGraph();
        graph->setName(name);
        graph->setPen(QPen(colour, 1.5));
        graph->setScatterStyle(QCPScatterStyle(shape, colour, 7));
        graph->setData(x, y, true);
    };
    addCurve(referenceCounts, tr("reference"), Qt::black, QCPScatterStyle::ssNone);
    addCurve(chordCounts, tr("chord²"), labBackendColor(QStringLiteral("cpu")),
             QCPScatterStyle::ssCircle);
    addCurve(dotCounts, tr("float dot"), QColor(214, 39, 40), QCPScatterStyle::ssCross);
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    m_plot->xAxis->setLabel(tr("θ (%1)").arg(result.unit));
    m_plot->yAxis->setScaleType(QCPAxis::stLinear);
    m_plot->yAxis->setLabel(tr("pairs in the bin"));
    m_plot->rescaleAxes();
    m_plot->xAxis->setRange(result.edges.front(), result.edges.back());
    m_plot->yAxis->setRangeLower(0);
    m_plot->yAxis->scaleRange(1.1, m_plot->yAxis->range().center());
    m_plot->legend->setVisible(true);
}

void KernelLabDemos::showOverflow(const LabDemoResult& result) {
    const lab::OverflowDemo& demo = result.overflow;
    m_table->clear();
    m_table->setColumnCount(4);
    m_table->setHorizontalHeaderLabels(
        {tr("bin"), tr("64-bit count"), tr("32-bit counter held"), tr("times it wrapped")});
    const int bins = int(demo.counts64.size());
    m_table->setRowCount(bins);
    for (int k = 0; k < bins; ++k) {
        const std::size_t b = std::size_t(k);
        m_table->setItem(k, 0, cell(QStringLiteral("%1–%2 %3")
                                        .arg(result.edges[b])
                                        .arg(result.edges[b + 1])
                                        .arg(result.unit)));
        m_table->setItem(k, 1, cell(groupedCount(demo.counts64[b]), quint64(demo.counts64[b])));
        m_table->setItem(k, 2, cell(groupedCount(demo.counts32[b]), quint64(demo.counts32[b])));
        m_table->setItem(k, 3, cell(groupedCount(demo.wraps[b]), quint64(demo.wraps[b])));
        if (demo.wraps[b] > 0)
            m_table->item(k, 2)->setForeground(QColor(190, 0, 0));
    }
    const std::uint64_t wraps = demo.wraps.empty() ? 0 : demo.wraps.front();
    m_summary->setText(
        tr("%L1 pairs of %L2 points over the whole sky, all in one bin. A 32-bit counter holds "
           "at most 4,294,967,295: it went round %3 time(s) and ends holding the count mod 2^32 "
           "— no error, just a wrong number. The product counts in 64 bits.")
            .arg(demo.pairs)
            .arg(result.points)
            .arg(wraps));
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setBaseValue(1);
    bars->setBrush(labBackendColor(QStringLiteral("cpu")));
    bars->setWidth(0.6);
    if (!demo.counts64.empty()) {
        bars->addData(1, double(demo.counts64.front()));
        bars->addData(2, double(demo.counts32.front()));
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTick(1, tr("64-bit count"));
    ticker->addTick(2, tr("32-bit counter"));
    m_plot->xAxis->setScaleType(QCPAxis::stLinear);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setLabel(QString());
    m_plot->xAxis->setRange(0.4, 2.6);
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    m_plot->yAxis->setNumberFormat(QStringLiteral("eb"));
    m_plot->yAxis->setNumberPrecision(0);
    m_plot->yAxis->setLabel(tr("pairs"));
    m_plot->yAxis->setRange(1e6, 1e11);
    m_plot->legend->setVisible(false);
}

} // namespace tpacf::ui
