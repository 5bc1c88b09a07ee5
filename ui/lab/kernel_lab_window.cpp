// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_lab_window.h"

#include "kernel_lab_demos.h"
#include "kernel_lab_excerpt.h"
#include "plot_export.h"

#include <tpacf/units.h>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScreen>
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

#include <algorithm>
#include <map>

namespace tpacf::ui {

namespace {

std::uint64_t pairsOf(std::uint64_t first, std::uint64_t second, bool cross) {
    return cross ? first * second : first * (first - (first > 0)) / 2;
}

} // namespace

namespace {
// The registry's backends that offer rungs but have no device here (a build with CUDA on a
// machine without a GPU): their rungs could only fail.
std::map<QString, QString> unavailableLabBackends(const lab::LabRegistry& registry) {
    std::map<QString, QString> unavailable;
    for (const auto& provider : registry.providers())
        if (const std::string reason = provider->unavailableReason(); !reason.empty())
            unavailable[QString::fromStdString(provider->name())] =
                QString::fromStdString(reason);
    return unavailable;
}

KernelLabWindow::Options optionsFor(const lab::LabRegistry& registry) {
    KernelLabWindow::Options options;
    options.unavailable = unavailableLabBackends(registry);
    return options;
}
} // namespace

KernelLabWindow::KernelLabWindow(const lab::LabRegistry& registry, QWidget* parent)
    : KernelLabWindow(lab::allLabVariants(registry), optionsFor(registry), parent) {}

KernelLabWindow::KernelLabWindow(lab::LabVariantList variants, Options options, QWidget* parent)
    : QMainWindow(parent, Qt::Window), m_options(std::move(options)) {
    if (m_options.sourceRoot.isEmpty())
        m_options.sourceRoot = bundledLabSourceRoot();
    // Grouped by backend in the order they came (the CPU first), each backend's rungs ascending.
    std::vector<std::string> backends;
    for (auto& variant : variants) {
        if (std::find(backends.begin(), backends.end(), variant->backend()) == backends.end())
            backends.push_back(variant->backend());
        VariantInfo info;
        info.key = QString::fromStdString(variant->key());
        info.name = QString::fromStdString(variant->name());
        info.backend = QString::fromStdString(variant->backend());
        info.explanation = QString::fromStdString(variant->explanation());
        info.sourceFile = QString::fromStdString(variant->sourceFile());
        info.rung = variant->rung();
        info.exact = variant->exact();
        info.variant = SharedLabVariant(std::move(variant));
        m_variants.push_back(std::move(info));
    }
    const auto backendIndex = [&backends](const VariantInfo& info) {
        return std::find(backends.begin(), backends.end(), info.backend.toStdString()) -
               backends.begin();
    };
    std::stable_sort(m_variants.begin(), m_variants.end(),
                     [&](const VariantInfo& a, const VariantInfo& b) {
                         return std::pair(backendIndex(a), a.rung) <
                                std::pair(backendIndex(b), b.rung);
                     });

    setWindowTitle(tr("Kernel Lab — TPACF Studio"));
    m_worker = new KernelLabWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &KernelLabWorker::progress, this, &KernelLabWindow::onProgress);
    connect(m_worker, &KernelLabWorker::finished, this, &KernelLabWindow::onFinished);
    connect(m_worker, &KernelLabWorker::cancelled, this, &KernelLabWindow::onCancelled);
    connect(m_worker, &KernelLabWorker::failed, this, &KernelLabWindow::onFailed);
    connect(m_worker, &KernelLabWorker::demoFinished, this, [this](const LabDemoResultPtr& result) {
        m_progress->setRange(0, 1);
        m_progress->setValue(1);
        m_status->setText(tr("Demonstration done."));
        m_demos->showResult(*result);
        updateRunState();
        Q_EMIT demoFinished(result);
    });
    m_thread.setObjectName(QStringLiteral("kernel-lab"));
    m_thread.start();

    buildUi();
    buildActions();
    fillVariantTree();
    updateSummary();
    updateRunState();
    if (!m_variants.empty())
        showVariant(m_variants.front().key);
    QSize size(1240, 680);
    if (const QScreen* screen = this->screen())
        size = size.boundedTo(screen->availableSize() - QSize(20, 40));
    resize(size);
}

KernelLabWindow::~KernelLabWindow() {
    m_worker->requestCancel();
    m_thread.quit();
    m_thread.wait();
}

BinSpec KernelLabWindow::defaultBinSpec() {
    return BinSpec::logPerDecade(0.01, 600, AngleUnit::Arcminute, 5);
}

// ----------------------------------------------------------------------------------------------
// Settings

void KernelLabWindow::setInputs(const KernelLabInputs& inputs) {
    m_inputs = inputs;
    const bool useMain = m_bins->currentIndex() == 1;
    while (m_bins->count() > 1)
        m_bins->removeItem(1);
    // The entry stays short (the box is as wide as the settings panel); the summary under it
    // and the tooltip describe the bins in full.
    if (m_inputs.bins) {
        m_bins->addItem(tr("The main window's bins"));
        m_bins->setItemData(1, QString::fromStdString(m_inputs.bins->describe()),
                            Qt::ToolTipRole);
    }
    m_bins->setItemData(0, m_bins->itemText(0), Qt::ToolTipRole);
    m_bins->setCurrentIndex(useMain && m_inputs.bins ? 1 : 0);
    // A loaded data catalog is what the user came with: count it unless they chose otherwise.
    if (m_inputs.data && source() == Source::Generated && !m_sourceChosen)
        m_source->setCurrentIndex(m_source->findData(int(Source::Data)));
    updateSummary();
    updateRunState();
}

void KernelLabWindow::setSource(Source source) {
    m_sourceChosen = true;
    m_source->setCurrentIndex(m_source->findData(int(source)));
}

KernelLabWindow::Source KernelLabWindow::source() const {
    return Source(m_source->currentData().toInt());
}

void KernelLabWindow::setPointCount(int points) {
    m_points->setValue(points);
}

void KernelLabWindow::setRepeats(int repeats) {
    m_repeats->setValue(repeats);
}

void KernelLabWindow::setUseMainWindowBins(bool use) {
    m_bins->setCurrentIndex(use && m_bins->count() > 1 ? 1 : 0);
}

BinSpec KernelLabWindow::binSpec() const {
    return m_bins->currentIndex() == 1 && m_inputs.bins ? *m_inputs.bins : defaultBinSpec();
}

QStringList KernelLabWindow::variantKeys() const {
    QStringList keys;
    for (const VariantInfo& info : m_variants)
        keys.append(info.key);
    return keys;
}

QStringList KernelLabWindow::checkedVariantKeys() const {
    QStringList keys;
    for (QTreeWidgetItemIterator it(m_variantTree, QTreeWidgetItemIterator::Checked); *it; ++it)
        if (const QString key = (*it)->data(0, kKeyRole).toString(); !key.isEmpty())
            keys.append(key);
    return keys;
}

void KernelLabWindow::setVariantChecked(const QString& key, bool checked) {
    for (QTreeWidgetItemIterator it(m_variantTree); *it; ++it)
        if ((*it)->data(0, kKeyRole).toString() == key)
            (*it)->setCheckState(0, checked ? Qt::Checked : Qt::Unchecked);
}

void KernelLabWindow::updateSummary() {
    const auto points = std::uint64_t(m_points->value());
    const bool cross = source() == Source::DataCrossRandom;
    std::uint64_t first = points, second = 0;
    QString what = tr("A uniform full-sky catalog of %L1 points").arg(points);
    if (source() != Source::Generated) {
        if (!m_inputs.data) {
            m_summary->setText(tr("No data catalog is loaded in the main window."));
            return;
        }
        if (cross && !m_inputs.random) {
            m_summary->setText(tr("The main window has no random catalog to cross with."));
            return;
        }
        first = std::min<std::uint64_t>(points, m_inputs.data->size());
        what = tr("%L1 of the data catalog's %L2 points").arg(first).arg(m_inputs.data->size());
        if (cross) {
            second = std::min<std::uint64_t>(points, m_inputs.random->size());
            what += tr(" × %L1 of the random catalog's %L2").arg(second).arg(m_inputs.random->size());
        }
    }
    QString text = tr("%1: %L2 pairs per count.").arg(what).arg(pairsOf(first, second, cross));
    if (m_bins->currentIndex() == 1 && m_inputs.bins)
        text += QLatin1Char(' ') + tr("Bins: %1.").arg(QString::fromStdString(m_inputs.bins->describe()));
    m_summary->setText(text);
}

void KernelLabWindow::updateRunState() {
    const bool running = isRunning();
    const bool any = !checkedVariantKeys().isEmpty();
    m_runButton->setEnabled(!running && any);
    m_runAction->setEnabled(!running && any);
    m_cancelButton->setEnabled(running);
    m_cancelAction->setEnabled(running);
    for (QWidget* widget : std::initializer_list<QWidget*>{m_source, m_points, m_seed, m_bins,
                                                           m_repeats, m_variantTree})
        widget->setEnabled(!running);
    m_demos->setRunning(running);
    const bool haveReport = m_report != nullptr;
    m_exportChartAction->setEnabled(!running);
    m_exportTableAction->setEnabled(haveReport);
}

// ----------------------------------------------------------------------------------------------
// Running

bool KernelLabWindow::isRunning() const {
    return m_worker->isBusy();
}

bool KernelLabWindow::startRun() {
    if (isRunning())
        return false;
    LabRunRequest request;
    request.maxPoints = std::size_t(m_points->value());
    request.seed = std::uint64_t(m_seed->value());
    request.repeats = m_repeats->value();
    request.bins = binSpec();
    if (source() != Source::Generated) {
        if (!m_inputs.data) {
            m_status->setText(tr("No data catalog: load one in the main window, or count a "
                                 "generated one."));
            return false;
        }
        request.first = m_inputs.data;
        if (source() == Source::DataCrossRandom) {
            if (!m_inputs.random) {
                m_status->setText(tr("No random catalog to cross the data with."));
                return false;
            }
            request.second = m_inputs.random;
        }
    }
    const QStringList keys = checkedVariantKeys();
    m_runningKeys = keys;
    for (const QString& key : keys)
        if (const VariantInfo* info = variantInfo(key))
            request.variants.push_back(info->variant);
    if (request.variants.empty()) {
        m_status->setText(tr("Check at least one variant."));
        return false;
    }
    const int total = int(request.variants.size());
    if (!m_worker->start(std::move(request)))
        return false;
    m_progress->setRange(0, total);
    m_progress->setValue(0);
    m_status->setText(tr("Counting the double-precision reference…"));
    updateRunState();
    Q_EMIT runStarted();
    return true;
}

bool KernelLabWindow::startDemo(const LabDemoRequest& request) {
    if (!m_worker->startDemo(request))
        return false;
    m_progress->setRange(0, 0); // no steps to count: busy
    m_status->setText(request.kind == LabDemoKind::CounterOverflow
                          ? tr("Counting every pair with 32-bit and 64-bit counters…")
                          : tr("Counting the small bins on the float dot product and on chord²…"));
    m_plotTabs->setCurrentWidget(m_demos);
    updateRunState();
    return true;
}

void KernelLabWindow::cancelRun() {
    if (!isRunning())
        return;
    m_worker->requestCancel();
    m_status->setText(tr("Cancelling…"));
}

void KernelLabWindow::onProgress(int done, int total) {
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(done);
    m_status->setText(done < total ? tr("%1 of %2 variants counted; counting %3…")
                                         .arg(done)
                                         .arg(total)
                                         .arg(m_runningKeys.value(done))
                                   : tr("%1 of %2 variants counted").arg(done).arg(total));
}

void KernelLabWindow::onFinished(const LabReportPtr& report) {
    m_report = report;
    m_reportUnit = QString::fromLatin1(angleUnitName(binSpec().unit));
    m_progress->setValue(m_progress->maximum());
    int failed = 0, unexpected = 0;
    for (const lab::LabRow& row : report->rows) {
        failed += !row.error.empty();
        unexpected += row.error.empty() && row.expectedExact && row.wrongBins > 0;
    }
    QString text = tr("Done: %L1 pairs per variant.").arg(report->pairs);
    if (failed)
        text += tr(" %1 variant(s) could not run (see Notes).").arg(failed);
    if (unexpected)
        text += tr(" %1 variant(s) promised to be exact are not!").arg(unexpected);
    m_status->setText(text);
    fillLabTable(m_table, *report);
    m_table->resizeColumnsToContents();
    plotLabSpeeds(m_speedChart, *report);
    showErrors();
    updateRunState();
    showVariantDetails();
    Q_EMIT runFinished(report);
}

void KernelLabWindow::onCancelled() {
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status->setText(tr("Cancelled."));
    updateRunState();
    Q_EMIT runCancelled();
}

void KernelLabWindow::onFailed(const QString& message) {
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status->setText(tr("The lab run failed: %1").arg(message));
    updateRunState();
    reportProblem(tr("The lab run failed: %1").arg(message));
    Q_EMIT runFailed(message);
}

void KernelLabWindow::showErrors() {
    if (m_report)
        plotLabErrors(m_errorPlot, *m_report, LabErrorMode(m_errorMode->currentData().toInt()),
                      m_reportUnit);
}

// ----------------------------------------------------------------------------------------------
// The selected variant

const KernelLabWindow::VariantInfo* KernelLabWindow::variantInfo(const QString& key) const {
    for (const VariantInfo& info : m_variants)
        if (info.key == key)
            return &info;
    return nullptr;
}

const lab::LabRow* KernelLabWindow::reportRow(const QString& key) const {
    if (m_report)
        for (const lab::LabRow& row : m_report->rows)
            if (QString::fromStdString(row.key) == key)
                return &row;
    return nullptr;
}

void KernelLabWindow::showVariant(const QString& key) {
    if (!variantInfo(key) || key == m_shownKey)
        return;
    m_shownKey = key;
    showVariantDetails();
}

void KernelLabWindow::showVariantDetails() {
    const VariantInfo* info = variantInfo(m_shownKey);
    if (!info)
        return;
    QString html = QStringLiteral("<h3>%1</h3>").arg(info->name.toHtmlEscaped());
    html += tr("<p><b>%1</b> · %2 · rung %3 · %4</p>")
                .arg(info->key.toHtmlEscaped(), info->backend.toHtmlEscaped())
                .arg(info->rung)
                .arg(info->exact ? tr("exact: equals the double reference in every bin")
                                 : tr("not exact, on purpose: its error is the lesson"));
    for (const QString& paragraph : info->explanation.split(QStringLiteral("\n\n")))
        html += QStringLiteral("<p>%1</p>").arg(paragraph.toHtmlEscaped());
    if (const lab::LabRow* row = reportRow(info->key)) {
        const QStringList cells = labRowCells(*row);
        html += tr("<p><b>Last run:</b> %1, %2 pairs/s, %3.</p>")
                    .arg(cells[int(LabTableColumn::Time)], cells[int(LabTableColumn::PairsPerSecond)],
                         cells[int(LabTableColumn::Bins)].toHtmlEscaped());
        if (!row->error.empty())
            html += tr("<p><b>Did not run:</b> %1</p>")
                        .arg(QString::fromStdString(row->error).toHtmlEscaped());
        if (!row->notes.empty()) {
            html += QStringLiteral("<ul>");
            for (const std::string& note : row->notes)
                html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(note).toHtmlEscaped());
            html += QStringLiteral("</ul>");
        }
    }
    m_explanation->setHtml(html);

    const QString excerpt = readLabExcerpt(m_options.sourceRoot, info->sourceFile, info->key);
    m_excerptTitle->setText(tr("<b>%1</b> — the code between [lab:excerpt %2] and [lab:end]")
                                .arg(info->sourceFile.toHtmlEscaped(), info->key.toHtmlEscaped()));
    m_excerpt->setPlainText(excerpt.isEmpty()
                                ? tr("(No excerpt marked for %1 in %2.)").arg(info->key, info->sourceFile)
                                : excerpt);
}

// ----------------------------------------------------------------------------------------------
// Export

bool KernelLabWindow::exportChart(const QString& path, QCustomPlot* plot, QString* error) {
    if (!plot)
        plot = m_speedChart;
    // 16:9 at 200 dpi: a slide's full width without rescaling text.
    const PlotExportSettings settings{1920, 1080, 200};
    QString problem;
    const bool pdf = QFileInfo(path).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0;
    const bool ok = pdf ? savePlotPdf(plot, path, settings, windowTitle(), &problem)
                        : savePlotPng(plot, path, settings, &problem);
    if (!ok && error)
        *error = problem;
    return ok;
}

bool KernelLabWindow::exportTableCsv(const QString& path, QString* error) {
    return writeLabTableCsv(m_table, path, error);
}

void KernelLabWindow::exportChartDialog() {
    const int tab = m_plotTabs->currentIndex();
    QCustomPlot* plot = tab == 0 ? m_speedChart : tab == 1 ? m_errorPlot : m_demos->plot();
    const QString base = tab == 0   ? tr("kernel_lab_speed")
                         : tab == 1 ? tr("kernel_lab_errors")
                                    : tr("kernel_lab_demo");
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Chart"), QDir(m_lastDirectory).filePath(base + QStringLiteral(".png")),
        tr("PNG image (*.png);;PDF vector (*.pdf)"), &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter.contains(QLatin1String("pdf")) ? QStringLiteral(".pdf") : QStringLiteral(".png");
    m_lastDirectory = QFileInfo(path).absolutePath();
    QString error;
    if (!exportChart(path, plot, &error))
        reportProblem(error);
    else
        statusBar()->showMessage(tr("Chart written to %1").arg(path), 5000);
}

void KernelLabWindow::exportTableDialog() {
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Table"), QDir(m_lastDirectory).filePath(tr("kernel_lab.csv")),
        tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".csv");
    m_lastDirectory = QFileInfo(path).absolutePath();
    QString error;
    if (!exportTableCsv(path, &error))
        reportProblem(error);
    else
        statusBar()->showMessage(tr("Table written to %1").arg(path), 5000);
}

void KernelLabWindow::reportProblem(const QString& text) {
    statusBar()->showMessage(text, 10000);
    if (m_options.interactive)
        QMessageBox::warning(this, tr("Kernel Lab"), text);
}

} // namespace tpacf::ui
