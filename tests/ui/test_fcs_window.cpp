// SPDX-License-Identifier: GPL-3.0-or-later
// Tools > FCS / time correlation: a small simulated stream run to the end, whose plotted mean G
// must equal MultiTauCounts::meanG of a CPU correlator fed the same frames in one pass (the
// window streams them in chunks on its worker); Stop ends a long stream early with the counts so
// far; a raw file whose size is not a multiple of the channels is reported, not a crash; the
// exports write files; the Tools menu opens the window.
#include "fcs/fcs_window.h"
#include "main_window.h"
#include "tpacf_test_main.h"

#include <tpacf/fcs_simulation.h>
#include <tpacf/multitau.h>

#include <qcustomplot.h>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

fcs::FcsSimulationParams smallStream() {
    fcs::FcsSimulationParams params;
    params.channels = 4;
    params.particles = 2.0;
    params.tauDFrames = 50.0;
    return params;
}

bool runToEnd(FcsWindow& window, int ms = 60000) {
    QSignalSpy ended(&window, &FcsWindow::runEnded);
    if (!window.run())
        return false;
    return ended.wait(ms);
}

} // namespace

class TestFcsWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plottedMeanGIsTheCpuCorrelators_data();
    void plottedMeanGIsTheCpuCorrelators();
    void stopCancelsALongStream();
    void badRawFileIsReported();
    void menuOpensTheWindow();
    void mapNoteAndTicksMatchTheArray();

private:
    QTemporaryDir m_dir;
};

void TestFcsWindow::plottedMeanGIsTheCpuCorrelators_data() {
    QTest::addColumn<int>("chunk");
    QTest::newRow("chunks of 2^14") << (1 << 14);
    QTest::newRow("chunks of 1000") << 1000;
}

void TestFcsWindow::plottedMeanGIsTheCpuCorrelators() {
    QFETCH(int, chunk);
    constexpr std::uint64_t kFrames = 1u << 15;
    const auto params = smallStream();
    FcsWindow window(fcs::CorrelatorRegistry{});
    window.setSimulation(params, kFrames);
    window.setChunkFrames(std::size_t(chunk));
    QVERIFY(runToEnd(window));
    QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
    QVERIFY(window.counts());
    QCOMPARE(window.counts()->frames, kFrames);

    // The reference: the same frames (the simulator's are independent of the pieces asked for)
    // through the CPU correlator in one feed.
    fcs::MultiTauSettings settings; // the window's defaults: P = 32, L = 12
    fcs::FcsSimulator simulator(params);
    std::vector<std::uint8_t> frames;
    simulator.generate(kFrames, frames);
    auto correlator = fcs::makeCpuCorrelator(settings, params.channels);
    correlator->feed(frames);
    const fcs::MultiTauCounts reference = correlator->counts();
    QVERIFY(*window.counts() == reference);

    QVector<double> expectedTau, expectedG;
    for (const auto& lag : fcs::lagsOf(settings)) {
        const double g = reference.meanG(lag.level, lag.j);
        if (lag.tauFrames == 0 || !std::isfinite(g))
            continue;
        expectedTau.push_back(double(lag.tauFrames) * 1.6e-6);
        expectedG.push_back(g);
    }
    const QVector<double> tau = window.plottedTau();
    const QVector<double> g = window.plottedG();
    QVERIFY(expectedG.size() > 100);
    QCOMPARE(g.size(), expectedG.size());
    for (qsizetype i = 0; i < g.size(); ++i) {
        QCOMPARE(g[i], expectedG[i]);
        QVERIFY(std::abs(tau[i] - expectedTau[i]) <= 1e-12 * expectedTau[i]);
    }
    // 4 channels are a 2 x 2 array: the map is shown, with square cells at any window shape.
    QVERIFY(window.hasMap());
    for (const QSize size : {QSize(1200, 500), QSize(700, 900)}) {
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(std::abs(window.mapCellAspect() - 1.0) < 0.01);
    }

    // A channel on its own.
    window.setChannel(2);
    const QVector<double> g2 = window.plottedG();
    QVERIFY(!g2.isEmpty());
    QCOMPARE(g2.first(), reference.g(2, 0, 1));

    const QString csv = m_dir.filePath(QStringLiteral("g.csv"));
    QVERIFY(window.exportCsv(csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("channel,level,j,tau_frames,tau_s,A,G"));
    QVERIFY(text.contains("\nmean,"));
    const QString png = m_dir.filePath(QStringLiteral("g.png"));
    const QString pdf = m_dir.filePath(QStringLiteral("g.pdf"));
    QVERIFY(window.exportPlot(png));
    QVERIFY(window.exportPlot(pdf));
    QVERIFY(QFile(png).size() > 1000);
    QVERIFY(QFile(pdf).size() > 1000);
    // The figure writer's default style: 6 × 4 in, 300 dpi.
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1800, 1200));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const QRegularExpression mediaBox(QStringLiteral(
        R"(/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\])"));
    const auto box = mediaBox.match(QString::fromLatin1(pdfFile.readAll()));
    QVERIFY2(box.hasMatch(), "the PDF has a MediaBox");
    QCOMPARE(qRound(box.captured(3).toDouble() - box.captured(1).toDouble()), 432); // 6 in
    QCOMPARE(qRound(box.captured(4).toDouble() - box.captured(2).toDouble()), 288); // 4 in
    QVERIFY(!window.exportPlot(m_dir.filePath(QStringLiteral("g.txt")))); // not a figure format
    QVERIFY(window.lastError().contains(QStringLiteral("g.txt")));
}

void TestFcsWindow::stopCancelsALongStream() {
    auto params = smallStream();
    params.channels = 64;
    constexpr std::uint64_t kFrames = 1u << 28; // hours on this machine: only Stop ends it
    FcsWindow window(fcs::CorrelatorRegistry{});
    window.setSimulation(params, kFrames);
    QSignalSpy ended(&window, &FcsWindow::runEnded);
    QVERIFY(window.run());
    QVERIFY(window.isRunning());
    QTest::qWait(300);
    window.stop();
    QVERIFY(ended.wait(30000));
    QVERIFY(!window.isRunning());
    QVERIFY(window.lastError().isEmpty());
    QVERIFY2(window.statusText().startsWith(QStringLiteral("Stopped")),
             qPrintable(window.statusText()));
    if (window.counts())
        QVERIFY(window.counts()->frames < kFrames);
    // And it runs again afterwards.
    window.setSimulation(smallStream(), 1u << 12);
    QVERIFY(runToEnd(window));
    QCOMPARE(window.counts()->frames, std::uint64_t(1u << 12));
}

void TestFcsWindow::badRawFileIsReported() {
    const QString path = m_dir.filePath(QStringLiteral("bad.u8"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(10, '\1')); // 10 bytes: not a multiple of 4 channels
    file.close();
    FcsWindow window(fcs::CorrelatorRegistry{});
    window.setFile(path, 4);
    QVERIFY(runToEnd(window));
    QVERIFY2(window.lastError().contains(QStringLiteral("not a multiple of 4")),
             qPrintable(window.lastError()));
    QVERIFY(window.lastError().contains(path));
    auto* box = window.findChild<QMessageBox*>(QStringLiteral("fcsError"));
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY(!window.counts());
    box->close();

    window.setFile(m_dir.filePath(QStringLiteral("missing.u8")), 4);
    QVERIFY(runToEnd(window));
    QVERIFY(!window.lastError().isEmpty());
}

void TestFcsWindow::menuOpensTheWindow() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false;
    MainWindow main(BackendRegistry{}, options);
    QAction* action = main.findChild<QAction*>(QStringLiteral("fcsAction"));
    QVERIFY(action);
    action->trigger();
    auto* window = main.findChild<FcsWindow*>();
    QVERIFY(window);
    QVERIFY(window->isVisible());
    action->trigger();
    QCOMPARE(main.findChildren<FcsWindow*>().size(), 1);
}

// Issue 35, item 15: before a run the note says the map comes after it (not that 16 channels
// are no square); 16 channels draw a 4 x 4 map whose ticks name only its columns and rows
// (0 to 3, not -5 to 8); 12 channels say that 12 is no square.
void TestFcsWindow::mapNoteAndTicksMatchTheArray() {
    FcsWindow window(fcs::CorrelatorRegistry{});
    window.resize(1200, 500); // wide: the square cells leave room beside the array
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!window.hasMap());
    QVERIFY2(window.mapNote().contains(QStringLiteral("after a run")), qPrintable(window.mapNote()));
    QVERIFY(!window.mapNote().contains(QStringLiteral("needs")));

    fcs::FcsSimulationParams params = smallStream();
    params.channels = 16;
    window.setSimulation(params, 1u << 12);
    QVERIFY(runToEnd(window));
    QVERIFY(window.hasMap());
    QVERIFY(window.mapNote().isEmpty());
    QCustomPlot* map = window.mapPlot();
    map->replot(QCustomPlot::rpImmediateRefresh);
    for (QCPAxis* axis : {map->xAxis, map->yAxis}) {
        const QVector<double> ticks = axis->tickVector();
        QVERIFY(!ticks.isEmpty());
        for (double tick : ticks)
            QVERIFY2(tick >= 0 && tick <= 3, qPrintable(QString::number(tick)));
        QCOMPARE(axis->tickVectorLabels(),
                 (QVector<QString>{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"),
                                   QStringLiteral("3")}));
    }
    QTRY_VERIFY(std::abs(window.mapCellAspect() - 1.0) < 0.01); // cells still square
    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir saves the window as a PNG.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty())
        window.grab().save(QDir(grabDir).filePath(QStringLiteral("fcs-map-4x4.png")));

    params.channels = 12;
    window.setSimulation(params, 1u << 12);
    QVERIFY(runToEnd(window));
    QVERIFY(!window.hasMap());
    QVERIFY2(window.mapNote().contains(QStringLiteral("12 is not")), qPrintable(window.mapNote()));
}

TPACF_TEST_MAIN(TestFcsWindow)
#include "test_fcs_window.moc"
