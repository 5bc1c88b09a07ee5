// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel Lab window (Tools > Kernel Lab…) with fake variants whose counts and times are known:
// the table's cells are the report's rows, the bar chart has one bar per variant at its pairs/s,
// Cancel stops a run, the excerpt shown is the selected variant's, exports write what the window
// shows. Then the real CPU rungs on 2,000 points (exact rows: "0 wrong bins"), the bundled
// excerpts equal to the source tree's, and the float-dot precision demonstration.
#include "lab/kernel_lab_demos.h"
#include "lab/kernel_lab_excerpt.h"
#include "lab/kernel_lab_results.h"
#include "lab/kernel_lab_window.h"
#include "main_window.h"
#include "tpacf_test_main.h"

#include <tpacf/cpu_pair_counter.h>
#include <tpacf/errors.h>
#include <tpacf/lab_demos.h>
#include <tpacf/mock.h>

#include <QComboBox>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QAction>
#include <QFile>
#include <QImage>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <qcustomplot.h>

#include <thread>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

// Counts like the reference, then adds `skew` to bin 0; reports `seconds` as its time. A
// `blocking` fake waits for the cancel flag (bounded, so a broken cancel fails, not hangs).
class FakeVariant final : public lab::LabVariant {
public:
    FakeVariant(std::string key, std::string backend, int rung, double seconds, int skew = 0,
                bool blocking = false)
        : m_key(std::move(key)), m_backend(std::move(backend)), m_rung(rung),
          m_seconds(seconds), m_skew(skew), m_blocking(blocking) {}
    std::string key() const override { return m_key; }
    std::string name() const override { return "Fake " + m_key; }
    int rung() const override { return m_rung; }
    std::string backend() const override { return m_backend; }
    bool exact() const override { return m_skew == 0; }
    std::string explanation() const override { return "Explains " + m_key + "."; }
    std::string sourceFile() const override { return "kernels/lab/fake_" + m_backend + ".cu"; }
    lab::LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                         int, const std::atomic<bool>* cancel) override {
        if (m_blocking) {
            for (int i = 0; i < 1000 && !(cancel && cancel->load()); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (cancel && cancel->load())
                throw Cancelled();
        }
        CpuPairCounter counter(1);
        const CountTask task{&first, second};
        lab::LabCounts counts;
        counts.counts = counter.countBatch({&task, 1}, binning, CountControl{}).front().raw;
        counts.counts[0] += std::uint64_t(m_skew);
        counts.seconds = m_seconds;
        counts.notes = {"note of " + m_key};
        return counts;
    }

private:
    std::string m_key, m_backend;
    int m_rung;
    double m_seconds;
    int m_skew;
    bool m_blocking;
};

lab::LabVariantList fakes(bool blocking = false) {
    lab::LabVariantList list;
    // Out of order on purpose: the window lists them by backend, then rung.
    list.push_back(std::make_unique<FakeVariant>("gpu-2", "cuda", 2, 0.001));
    list.push_back(std::make_unique<FakeVariant>("cpu-1", "cpu", 1, 0.5, 7, blocking));
    list.push_back(std::make_unique<FakeVariant>("cpu-2", "cpu", 2, 0.05));
    list.push_back(std::make_unique<FakeVariant>("gpu-1", "cuda", 1, 0.01));
    return list;
}

// The fake variants' sources, as a folder standing in for the bundled resources.
void writeFakeSources(const QString& root) {
    QDir(root).mkpath(QStringLiteral("kernels/lab"));
    QFile cpu(root + QStringLiteral("/kernels/lab/fake_cpu.cu"));
    QVERIFY(cpu.open(QIODevice::WriteOnly));
    cpu.write("// header\n    // [lab:excerpt cpu-1]\n    int naive = 1;\n      ++naive;\n"
              "    // [lab:end]\n// [lab:excerpt cpu-2]\nint chord = 2;\n// [lab:end]\n");
}

bool runToEnd(KernelLabWindow& window) {
    QSignalSpy finished(&window, &KernelLabWindow::runFinished);
    QSignalSpy failed(&window, &KernelLabWindow::runFailed);
    if (!window.startRun())
        return false;
    return finished.wait(60000) && failed.isEmpty();
}

QStringList names(std::initializer_list<const char*> list) {
    QStringList result;
    for (const char* name : list)
        result.append(QString::fromLatin1(name));
    return result;
}

QStringList tableRow(const QTableWidget* table, int row) {
    QStringList cells;
    for (int c = 0; c < table->columnCount(); ++c)
        cells.append(table->item(row, c) ? table->item(row, c)->text() : QString());
    return cells;
}

} // namespace

class TestKernelLab : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void listsVariantsByBackendThenRung();
    void tableCellsAreTheReportRows();
    void barChartHasOneBarPerVariant();
    void errorPlotDrawsTheWrongVariant();
    void cancelStopsTheRun();
    void excerptIsTheSelectedVariants();
    void excerptReaderMatchesTheCore_data();
    void excerptReaderMatchesTheCore();
    void exportWritesPngAndCsvOfTheTable();
    void realCpuVariantsExactRowsHaveNoWrongBins();
    void bundledExcerptsAreTheSourceTrees();
    void floatDotDemoShowsItsCounts();
    void mainWindowOpensTheLabWithItsCatalog();
    void settingsCombosShowTheirWholeText();

private:
    QTemporaryDir m_dir;
};

void TestKernelLab::listsVariantsByBackendThenRung() {
    KernelLabWindow window(fakes(), {m_dir.path(), false});
    QCOMPARE(window.variantKeys(),
             names({"gpu-1", "gpu-2", "cpu-1", "cpu-2"}));
    QCOMPARE(window.checkedVariantKeys(), window.variantKeys());
    window.setVariantChecked(QStringLiteral("gpu-2"), false);
    QCOMPARE(window.checkedVariantKeys(), names({"gpu-1", "cpu-1", "cpu-2"}));
}

void TestKernelLab::tableCellsAreTheReportRows() {
    KernelLabWindow window(fakes(), {m_dir.path(), false});
    window.setPointCount(300);
    window.setRepeats(1);
    QVERIFY(runToEnd(window));
    const LabReportPtr report = window.report();
    QVERIFY(report);
    QCOMPARE(report->pairs, std::uint64_t(300 * 299 / 2));
    QTableWidget* table = window.table();
    QCOMPARE(table->rowCount(), int(report->rows.size()));
    QCOMPARE(table->rowCount(), 4);
    for (int r = 0; r < table->rowCount(); ++r) {
        const lab::LabRow& row = report->rows[std::size_t(r)];
        QCOMPARE(tableRow(table, r), labRowCells(row));
        QCOMPARE(table->item(r, int(LabTableColumn::Key))->text(), QString::fromStdString(row.key));
        QCOMPARE(table->item(r, int(LabTableColumn::Rung))->text(), QString::number(row.rung));
        QCOMPARE(table->item(r, int(LabTableColumn::Time))->data(Qt::UserRole).toDouble(),
                 row.seconds);
        QCOMPARE(table->item(r, int(LabTableColumn::PairsPerSecond))->data(Qt::UserRole).toDouble(),
                 row.pairsPerSecond);
    }
    // The fakes' known values, through the formatting a reader sees.
    QCOMPARE(report->rows[2].key, std::string("cpu-1"));
    QCOMPARE(tableRow(table, 2)[int(LabTableColumn::Time)], QStringLiteral("500 ms"));
    QCOMPARE(tableRow(table, 2)[int(LabTableColumn::Bins)], QStringLiteral("1 wrong bin (expected)"));
    QCOMPARE(tableRow(table, 3)[int(LabTableColumn::Bins)], QStringLiteral("0 wrong bins"));
    QCOMPARE(tableRow(table, 3)[int(LabTableColumn::OverPrevious)], QStringLiteral("×10"));
    QCOMPARE(tableRow(table, 3)[int(LabTableColumn::Notes)], QStringLiteral("note of cpu-2"));
    QCOMPARE(formatLabRate(44850.0 / 0.05), QStringLiteral("897 k"));
    QCOMPARE(tableRow(table, 3)[int(LabTableColumn::PairsPerSecond)], QStringLiteral("897 k"));
}

void TestKernelLab::barChartHasOneBarPerVariant() {
    KernelLabWindow window(fakes(), {m_dir.path(), false});
    window.setPointCount(200);
    window.setRepeats(1);
    QVERIFY(runToEnd(window));
    QCustomPlot* chart = window.speedChart();
    QMap<double, double> heights; // x position -> pairs/s
    QStringList backends;
    for (int i = 0; i < chart->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(chart->plottable(i));
        QVERIFY(bars);
        backends.append(bars->name());
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            heights.insert(it->key, it->value);
    }
    QCOMPARE(backends, names({"cuda", "cpu"}));
    const LabReportPtr report = window.report();
    QCOMPARE(heights.size(), int(report->rows.size()));
    for (std::size_t r = 0; r < report->rows.size(); ++r)
        QCOMPARE(heights.value(double(r + 1)), report->rows[r].pairsPerSecond);
    QCOMPARE(chart->yAxis->scaleType(), QCPAxis::stLogarithmic);
}

void TestKernelLab::errorPlotDrawsTheWrongVariant() {
    KernelLabWindow window(fakes(), {m_dir.path(), false});
    window.setPointCount(200);
    window.setRepeats(1);
    QVERIFY(runToEnd(window));
    QCustomPlot* plot = window.errorPlot();
    QCOMPARE(plot->graphCount(), 1);
    QCOMPARE(plot->graph(0)->name(), QStringLiteral("cpu-1"));
    QCOMPARE(plot->graph(0)->data()->size(), int(window.report()->edges.size()) - 1);
    QCOMPARE(plot->graph(0)->data()->at(0)->value, 7.0);
    QCOMPARE(plot->graph(0)->data()->at(1)->value, 0.0);
}

void TestKernelLab::cancelStopsTheRun() {
    KernelLabWindow window(fakes(true), {m_dir.path(), false});
    window.setPointCount(100);
    QSignalSpy cancelled(&window, &KernelLabWindow::runCancelled);
    QSignalSpy finished(&window, &KernelLabWindow::runFinished);
    QVERIFY(window.startRun());
    QVERIFY(window.isRunning());
    QVERIFY(!window.startRun()); // never two at once
    window.cancelRun();
    QVERIFY(cancelled.wait(10000));
    QVERIFY(finished.isEmpty());
    QVERIFY(!window.isRunning());
    QVERIFY(!window.report());
    // And a run after the cancel runs in full.
    window.setVariantChecked(QStringLiteral("cpu-1"), false);
    QVERIFY(runToEnd(window));
    QCOMPARE(window.report()->rows.size(), std::size_t(3));
}

void TestKernelLab::excerptIsTheSelectedVariants() {
    writeFakeSources(m_dir.path());
    KernelLabWindow window(fakes(), {m_dir.path(), false});
    window.showVariant(QStringLiteral("cpu-1"));
    QCOMPARE(window.shownVariant(), QStringLiteral("cpu-1"));
    QCOMPARE(window.excerptView()->toPlainText(), QStringLiteral("int naive = 1;\n  ++naive;\n"));
    QVERIFY(window.explanationView()->toPlainText().contains(QStringLiteral("Explains cpu-1.")));
    QVERIFY(window.excerptTitle()->text().contains(QStringLiteral("kernels/lab/fake_cpu.cu")));
    window.showVariant(QStringLiteral("cpu-2"));
    QCOMPARE(window.excerptView()->toPlainText(), QStringLiteral("int chord = 2;\n"));
    // A variant whose file is missing says so instead of showing stale code.
    window.showVariant(QStringLiteral("gpu-1"));
    QVERIFY(window.excerptView()->toPlainText().contains(QStringLiteral("No excerpt")));
    // Selecting a table row shows its variant.
    window.setPointCount(100);
    window.setRepeats(1);
    QVERIFY(runToEnd(window));
    window.table()->selectRow(2);
    QCOMPARE(window.shownVariant(), QStringLiteral("cpu-1"));
    QVERIFY(window.explanationView()->toPlainText().contains(QStringLiteral("note of cpu-1")));
}

void TestKernelLab::excerptReaderMatchesTheCore_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("key");
    QTest::newRow("indented") << QByteArray("x\n  // [lab:excerpt k]\n    a;\n\n      b;\n  // [lab:end]\n")
                              << QStringLiteral("k");
    QTest::newRow("crlf") << QByteArray("// [lab:excerpt k]\r\n  a;\r\n// [lab:end]\r\n")
                          << QStringLiteral("k");
    QTest::newRow("unclosed") << QByteArray("// [lab:excerpt k]\na;\n") << QStringLiteral("k");
    QTest::newRow("prefix key") << QByteArray("// [lab:excerpt k-2]\na;\n// [lab:end]\n")
                                << QStringLiteral("k");
    QTest::newRow("blank lines with spaces")
        << QByteArray("// [lab:excerpt k]\n    a;\n  \n        b;\n// [lab:end]\n")
        << QStringLiteral("k");
}

void TestKernelLab::excerptReaderMatchesTheCore() {
    QFETCH(QByteArray, text);
    QFETCH(QString, key);
    QFile file(m_dir.filePath(QStringLiteral("excerpt.cu")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
    file.close();
    const std::string core =
        lab::sourceExcerpt(m_dir.path().toStdString(), "excerpt.cu", key.toStdString());
    QCOMPARE(readLabExcerpt(m_dir.path(), QStringLiteral("excerpt.cu"), key),
             QString::fromStdString(core));
}

void TestKernelLab::exportWritesPngAndCsvOfTheTable() {
    KernelLabWindow window(fakes(), {m_dir.path(), false});
    window.setPointCount(200);
    window.setRepeats(1);
    QVERIFY(runToEnd(window));
    const QString png = m_dir.filePath(QStringLiteral("speed.png"));
    QString error;
    QVERIFY2(window.exportChart(png, nullptr, &error), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1920, 1080));
    const QString pdf = m_dir.filePath(QStringLiteral("speed.pdf"));
    QVERIFY2(window.exportChart(pdf, nullptr, &error), qPrintable(error));
    QVERIFY(QFileInfo(pdf).size() > 0);

    const QString csv = m_dir.filePath(QStringLiteral("lab.csv"));
    QVERIFY2(window.exportTableCsv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n', Qt::SkipEmptyParts);
    QTableWidget* table = window.table();
    QCOMPARE(lines.size(), table->rowCount() + 1);
    QCOMPARE(lines[0].split(u','), labTableHeaders());
    // No cell of the fakes holds a comma or quote, so a plain split reads the fields back.
    for (int r = 0; r < table->rowCount(); ++r)
        QCOMPARE(lines[r + 1].split(u','), tableRow(table, r));
}

void TestKernelLab::realCpuVariantsExactRowsHaveNoWrongBins() {
    KernelLabWindow window(lab::cpuLabVariants(2), {m_dir.path(), false});
    QVERIFY(window.variantKeys().size() >= 4);
    window.setSource(KernelLabWindow::Source::Generated);
    window.setPointCount(2000);
    window.setRepeats(1);
    QVERIFY(runToEnd(window));
    const LabReportPtr report = window.report();
    QCOMPARE(window.table()->rowCount(), int(report->rows.size()));
    int exactRows = 0;
    for (int r = 0; r < window.table()->rowCount(); ++r) {
        const lab::LabRow& row = report->rows[std::size_t(r)];
        QVERIFY2(row.error.empty(), row.error.c_str());
        if (!row.expectedExact)
            continue;
        ++exactRows;
        QCOMPARE(window.table()->item(r, int(LabTableColumn::Bins))->text(),
                 QStringLiteral("0 wrong bins"));
    }
    QVERIFY(exactRows >= 3);
}

void TestKernelLab::bundledExcerptsAreTheSourceTrees() {
    // Every variant's excerpt as the Studio ships it (resources) equals the one core reads from
    // the source tree: the GUI shows the code the variant is built from. CUDA rungs come from
    // the registry only in a CUDA build; their files are bundled all the same.
    const auto variants = lab::cpuLabVariants(1);
    QVERIFY(!variants.empty());
    for (const auto& variant : variants) {
        const QString file = QString::fromStdString(variant->sourceFile());
        const QString key = QString::fromStdString(variant->key());
        QVERIFY2(QFile::exists(bundledLabSourceRoot() + u'/' + file), qPrintable(file));
        const std::string tree = lab::sourceExcerpt(TPACF_SOURCE_DIR, variant->sourceFile(),
                                                    variant->key());
        QVERIFY2(!tree.empty(), qPrintable(key));
        QCOMPARE(readLabExcerpt(bundledLabSourceRoot(), file, key), QString::fromStdString(tree));
    }
    for (const char* cuda : {"kernels/lab/lab_naive.cu", "kernels/lab/lab_chord2.cu"})
        QVERIFY2(QFile::exists(bundledLabSourceRoot() + u'/' + QLatin1String(cuda)), cuda);
}

void TestKernelLab::floatDotDemoShowsItsCounts() {
    KernelLabWindow window(fakes(), {m_dir.path(), false});
    QSignalSpy done(&window, &KernelLabWindow::demoFinished);
    QVERIFY(window.startDemo({LabDemoKind::FloatDotVersusChord2, 1500, 3}));
    QVERIFY(done.wait(60000));
    const auto result = done.front().front().value<LabDemoResultPtr>();
    const lab::PrecisionDemo& demo = result->precision;
    QTableWidget* table = window.demos()->table();
    QCOMPARE(table->rowCount(), int(demo.reference.size()));
    for (int k = 0; k < table->rowCount(); ++k) {
        QCOMPARE(table->item(k, 3)->data(Qt::UserRole).toULongLong(), demo.floatDot[std::size_t(k)]);
        QCOMPARE(table->item(k, 4)->data(Qt::UserRole).toULongLong(), demo.chord2[std::size_t(k)]);
        QCOMPARE(table->item(k, 5)->data(Qt::UserRole).toULongLong(), demo.reference[std::size_t(k)]);
    }
    QCOMPARE(window.demos()->plot()->graphCount(), 3);
}

void TestKernelLab::mainWindowOpensTheLabWithItsCatalog() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false;
    MainWindow main(BackendRegistry{}, options);
    QAction* action = main.findChild<QAction*>(QStringLiteral("kernelLabAction"));
    QVERIFY(action);
    auto catalog = generateUniformRandoms(400, Footprint::fullSky(), 5, "data");
    const QString path = m_dir.filePath(QStringLiteral("data.txt"));
    writeCatalogAscii(path.toStdString(), catalog);
    QSignalSpy loaded(&main, &MainWindow::loadFinished);
    QVERIFY(main.setDataCatalog(CatalogSource{path}));
    QVERIFY(loaded.wait(10000));
    action->trigger();
    KernelLabWindow* lab = main.kernelLabWindow();
    QVERIFY(lab);
    QVERIFY(lab->isVisible());
    QCOMPARE(lab->source(), KernelLabWindow::Source::Data);
    for (const QString& key : lab->variantKeys())
        lab->setVariantChecked(key, key == lab->variantKeys().constLast());
    lab->setRepeats(1);
    QVERIFY(runToEnd(*lab));
    QCOMPARE(lab->report()->pairs, std::uint64_t(400 * 399 / 2));
}

// Issue 35, item 15: at 1264 x 672 (a 1280 x 720 screen) no entry of the settings' combo boxes
// is clipped: each one's text fits the box's text field, as the style lays it out.
void TestKernelLab::settingsCombosShowTheirWholeText() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false;
    MainWindow main(BackendRegistry{}, options);
    const QString path = m_dir.filePath(QStringLiteral("combo_data.txt"));
    writeCatalogAscii(path.toStdString(), generateUniformRandoms(300, Footprint::fullSky(), 9, "d"));
    QSignalSpy loaded(&main, &MainWindow::loadFinished);
    QVERIFY(main.setDataCatalog(CatalogSource{path}));
    QVERIFY(loaded.wait(10000));
    main.findChild<QAction*>(QStringLiteral("kernelLabAction"))->trigger();
    KernelLabWindow* lab = main.kernelLabWindow();
    QVERIFY(lab);
    lab->resize(1264, 672);
    QVERIFY(QTest::qWaitForWindowExposed(lab));
    QCoreApplication::processEvents();
    int checked = 0;
    for (QComboBox* combo : lab->findChildren<QComboBox*>()) {
        if (!combo->isVisible() || combo->objectName().isEmpty())
            continue;
        for (int i = 0; i < combo->count(); ++i) {
            combo->setCurrentIndex(i);
            QStyleOptionComboBox option;
            option.initFrom(combo);
            option.rect = combo->rect();
            option.currentText = combo->currentText();
            option.editable = combo->isEditable();
            option.frame = true;
            const QRect field = combo->style()->subControlRect(QStyle::CC_ComboBox, &option,
                                                               QStyle::SC_ComboBoxEditField, combo);
            const int needed = combo->fontMetrics().horizontalAdvance(combo->currentText());
            QVERIFY2(field.width() >= needed,
                     qPrintable(QStringLiteral("%1: \"%2\" needs %3 px, has %4")
                                    .arg(combo->objectName(), combo->currentText())
                                    .arg(needed)
                                    .arg(field.width())));
            ++checked;
        }
    }
    QVERIFY(checked >= 5); // the source's three entries and the bins' two
}

TPACF_TEST_MAIN(TestKernelLab)
#include "test_kernel_lab.moc"
