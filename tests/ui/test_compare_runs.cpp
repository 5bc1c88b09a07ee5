// SPDX-License-Identifier: GPL-3.0-or-later
// Compare runs and run history: result files (CSV, ECSV, FITS) drawn as overlays with
// their values, the ratio and difference panels against a reference equal to a direct
// computation, other bins refused with a message naming the run and the bin, the long CSV, and
// a saved session that reopens showing its result with no job started (an older session without
// results still opens).
#include "tpacf_test_main.h"

#include "backend_panel.h"
#include "binning_panel.h"
#include "compare_panel.h"
#include "compare_runs.h"
#include "main_window.h"
#include "plot_panel.h"
#include "result_table.h"
#include "run_controller.h"
#include "run_history.h"

#include <tpacf/result_io.h>
#include <tpacf/result_reader.h>

#include <qcustomplot.h>

#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

const QString kSamples = QStringLiteral(TPACF_SOURCE_DIR "/resources/samples/");

bool sameDouble(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Six log bins, two random sets; w scaled by `wScale` so runs differ; bin 4 has no RR (w NaN).
ResultPtr sampleResult(double wScale, bool jackknife, double firstEdge = 0.1) {
    auto result = std::make_shared<CorrelationResult>();
    result->bins = BinSpec::logCount(firstEdge, 100, AngleUnit::Arcminute, 6);
    const Binning binning(result->bins);
    result->edges.assign(binning.edges().begin(), binning.edges().end());
    result->centres.assign(binning.centres().begin(), binning.centres().end());
    result->raw.dataSize = 1000;
    result->raw.randomSizes = {1500, 2000};
    result->raw.dd = {120, 31, 77, 7, 400, 900};
    result->raw.dr = {{300, 40, 50, 3, 900, 2000}, {410, 60, 70, 2, 1200, 2500}};
    result->raw.rr = {{500, 30, 10, 0, 1000, 3000}, {900, 50, 20, 0, 2000, 4000}};
    result->normalised = normalise(result->raw);
    result->w = estimate(result->estimator, result->normalised);
    for (double& w : result->w)
        w *= wScale;
    result->data = {"galaxies.txt", 1000};
    result->randoms = {{"r1.txt", 1500}, {"r2.txt", 2000}};
    result->backendName = "cpu";
    if (jackknife) {
        result->wError = {0.01 * wScale, 0.02, 0.03, std::nan(""), 0.05, 0.004};
        result->covariance.assign(36, 0.0);
        result->jackknifeRegions.count = 8;
    }
    return result;
}

MainWindow::Options testOptions() {
    MainWindow::Options options;
    options.loadSample = false;
    options.useSettings = false;
    options.interactive = false;
    return options;
}

bool loadAndWait(MainWindow& window, const std::function<bool()>& start) {
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    if (!start())
        return false;
    if (!QTest::qWaitFor([&] { return !window.isLoading(); }, 60000) || finished.isEmpty())
        return false;
    return finished.last().front().toBool();
}

// The plain CSV of earlier versions: '#' "key: value" lines, then the table.
void writePlainCsv(const std::string& path, const CorrelationResult& result) {
    std::ostringstream ecsv;
    writeResultCsv(ecsv, result);
    std::istringstream lines(ecsv.str());
    std::ofstream out(path);
    out << "# data: galaxies.txt N=1000\n# theta_lo, theta_hi, theta_mid in arcmin; old file\n";
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line.front() != '#')
            out << line << '\n';
}

QVector<QPointF> graphPoints(const QCPGraph* graph) {
    QVector<QPointF> points;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        points.append(QPointF(it->key, it->value));
    return points;
}

} // namespace

class TestCompareRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void overlaysFromFiles_data();
    void overlaysFromFiles();
    void comparisonPanelMatchesDirect_data();
    void comparisonPanelMatchesDirect();
    void differingBinsAreRefused();
    void peerCountsAreChecked();
    void comparisonCsv();
    void exportedFigureHoldsThePanel();
    void sessionReopensWithItsResultWithoutRunning();
    void olderSessionWithoutResultsOpens();

private:
    QString writeResult(const QString& format, const CorrelationResult& result, const QString& name);
    QTemporaryDir m_dir;
};

QString TestCompareRuns::writeResult(const QString& format, const CorrelationResult& result,
                                     const QString& name) {
    const QString path = m_dir.filePath(name + QLatin1Char('.') +
                                        (format == QLatin1String("plain") ? QStringLiteral("csv")
                                                                          : format));
    if (format == QLatin1String("fits"))
        writeResultFitsFile(path.toStdString(), result);
    else if (format == QLatin1String("plain"))
        writePlainCsv(path.toStdString(), result);
    else
        writeResultCsvFile(path.toStdString(), result);
    return path;
}

void TestCompareRuns::overlaysFromFiles_data() {
    QTest::addColumn<QString>("format");
    QTest::newRow("csv (ECSV)") << QStringLiteral("csv");
    QTest::newRow("ecsv") << QStringLiteral("ecsv");
    QTest::newRow("plain csv") << QStringLiteral("plain");
    if (fitsOutputSupported())
        QTest::newRow("fits") << QStringLiteral("fits");
}

void TestCompareRuns::overlaysFromFiles() {
    QFETCH(QString, format);
    const ResultPtr other = sampleResult(1.5, true);
    const QString path = writeResult(format, *other, QStringLiteral("other_run"));
    MainWindow window(BackendRegistry{}, testOptions());
    PlotPanel* plots = window.plotPanel();
    plots->setLogY(PlotPanel::Plot::Correlation, false); // every finite w is drawn
    plots->setLogY(PlotPanel::Plot::PairCounts, false);
    QVERIFY(window.addComparisonRun(path));
    QCOMPARE(window.compareRuns()->count(), 1);
    QCOMPARE(window.compareRuns()->overlay(0).label, QStringLiteral("other_run"));
    const QCPGraph* graph = plots->overlayGraph(0);
    QVERIFY(graph);
    QCOMPARE(graph->name(), QStringLiteral("other_run"));
    QVector<QPointF> expected;
    for (std::size_t k = 0; k < other->w.size(); ++k)
        if (std::isfinite(other->w[k]))
            expected.append(QPointF(other->centres[k], other->w[k]));
    QCOMPARE(graphPoints(graph), expected);
    // Its normalised counts on the counts plot, one legend entry named after the run.
    QCustomPlot* counts = plots->plot(PlotPanel::Plot::PairCounts);
    bool foundDd = false;
    for (int i = 0; i < counts->graphCount(); ++i) {
        QCPGraph* candidate = counts->graph(i);
        if (candidate->name() != QLatin1String("other_run"))
            continue;
        QVector<QPointF> dd;
        for (std::size_t k = 0; k < other->normalised.dd.size(); ++k)
            dd.append(QPointF(other->centres[k], other->normalised.dd[k]));
        QCOMPARE(graphPoints(candidate), dd);
        QVERIFY(counts->legend->hasItemWithPlottable(candidate));
        foundDd = true;
    }
    QVERIFY(foundDd);
    // Hidden: no graph; a new label is the legend's.
    window.compareRuns()->setVisible(0, false);
    QVERIFY(!plots->overlayGraph(0));
    window.compareRuns()->setVisible(0, true);
    window.compareRuns()->setLabel(0, QStringLiteral("renamed"));
    QCOMPARE(plots->overlayGraph(0)->name(), QStringLiteral("renamed"));
    window.compareRuns()->remove(0);
    QVERIFY(!plots->overlayGraph(0));
}

void TestCompareRuns::comparisonPanelMatchesDirect_data() {
    QTest::addColumn<bool>("ratio");
    QTest::addColumn<bool>("overlayIsReference");
    QTest::newRow("ratio to an overlay") << true << true;
    QTest::newRow("ratio to the current run") << true << false;
    QTest::newRow("difference to an overlay") << false << true;
}

void TestCompareRuns::comparisonPanelMatchesDirect() {
    QFETCH(bool, ratio);
    QFETCH(bool, overlayIsReference);
    const ResultPtr current = sampleResult(1.0, true);
    const ResultPtr other = sampleResult(1.7, true);
    const QString path = writeResult(QStringLiteral("csv"), *other, QStringLiteral("reference"));
    CompareRuns runs;
    QString error;
    QVERIFY2(runs.addFile(path, &error), qPrintable(error));
    runs.setReference(overlayIsReference ? 0 : Comparison::kCurrentRun);
    runs.setPanel(ratio ? Comparison::Panel::Ratio : Comparison::Panel::Difference);
    PlotPanel plots;
    plots.setResult(current, false);
    plots.setComparison(runs.comparison());
    QVERIFY(plots.comparisonRect());
    // Nothing refused; the only note is the raw counts' check (both runs have the sample's DD).
    const QString message = plots.comparisonMessage();
    QVERIFY2(message.startsWith(QStringLiteral("Pair counts: '")) &&
                 message.endsWith(QStringLiteral("': DD equal in all 6 bins.")) &&
                 !message.contains(QStringLiteral("not shown")),
             qPrintable(message));
    const int shownRun = overlayIsReference ? Comparison::kCurrentRun : 0;
    const int referenceRun = overlayIsReference ? 0 : Comparison::kCurrentRun;
    QVERIFY(!plots.comparisonGraph(referenceRun)); // the reference is the line at 1 (or 0)
    const QCPGraph* graph = plots.comparisonGraph(shownRun);
    QVERIFY(graph);
    const CorrelationResult& run = overlayIsReference ? *current : *other;
    const CorrelationResult& reference = overlayIsReference ? *other : *current;
    QVector<QPointF> expected;
    QVector<double> sigmas;
    for (std::size_t k = 0; k < run.w.size(); ++k) {
        const double w = run.w[k], ref = reference.w[k];
        const double value = ratio ? w / ref : w - ref;
        if (!std::isfinite(value))
            continue;
        expected.append(QPointF(run.centres[k], value));
        const double s = run.wError[k], sRef = reference.wError[k];
        sigmas.append(ratio ? std::abs(value) * std::sqrt((s / w) * (s / w) + (sRef / ref) * (sRef / ref))
                            : std::sqrt(s * s + sRef * sRef));
    }
    const QVector<QPointF> drawn = graphPoints(graph);
    QCOMPARE(drawn.size(), expected.size());
    for (int i = 0; i < drawn.size(); ++i) {
        QCOMPARE(drawn[i].x(), expected[i].x());
        QVERIFY(std::abs(drawn[i].y() - expected[i].y()) <= 1e-14 * std::abs(expected[i].y()));
    }
    // The error bars: both runs have σ.
    QCustomPlot* plot = plots.plot(PlotPanel::Plot::Correlation);
    QCPErrorBars* bars = nullptr;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto* candidate = qobject_cast<QCPErrorBars*>(plot->plottable(i)))
            if (candidate->dataPlottable() == graph)
                bars = candidate;
    QVERIFY(bars);
    QCOMPARE(bars->dataCount(), sigmas.size());
    for (int i = 0; i < sigmas.size(); ++i)
        QVERIFY(std::abs(bars->data()->at(i).errorPlus - sigmas[i]) <= 1e-12 * sigmas[i]);
    // No panel: the axes go.
    runs.setPanel(Comparison::Panel::None);
    plots.setComparison(runs.comparison());
    QVERIFY(!plots.comparisonRect());
}

void TestCompareRuns::differingBinsAreRefused() {
    MainWindow window(BackendRegistry{}, testOptions());
    const ResultPtr same = sampleResult(1.2, false);
    const ResultPtr shifted = sampleResult(1.2, false, 0.2); // other edges from bin 1 on
    QVERIFY(window.addComparisonRun(writeResult(QStringLiteral("csv"), *same, QStringLiteral("same"))));
    QVERIFY(window.addComparisonRun(
        writeResult(QStringLiteral("csv"), *shifted, QStringLiteral("shifted"))));
    window.compareRuns()->setReference(0);
    window.compareRuns()->setPanel(Comparison::Panel::Ratio);
    PlotPanel* plots = window.plotPanel();
    QVERIFY(plots->comparisonGraph(1) == nullptr);
    const QString message = plots->comparisonMessage();
    QVERIFY2(message.contains(QStringLiteral("'shifted'")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("bin 1 differs")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("the reference 'same'")), qPrintable(message));
    // The Compare dock says it too.
    QCOMPARE(window.comparePanel()->messageLabel()->text(), message);
}

// A Corrfunc DDtheta_mocks output (the C program's columns, θ in degrees) beside this tool's
// result on the same bins: no w to draw, and the dock says whether DD agrees bin for bin.
void TestCompareRuns::peerCountsAreChecked() {
    MainWindow window(BackendRegistry{}, testOptions());
    const ResultPtr own = sampleResult(1.0, false);
    QVERIFY(window.addComparisonRun(writeResult(QStringLiteral("csv"), *own, QStringLiteral("own"))));
    const auto corrfunc = [&](const QString& name, std::uint64_t bump) {
        const QString path = m_dir.filePath(name + QStringLiteral(".dat"));
        std::ofstream out(path.toStdString());
        for (std::size_t k = 0; k < own->raw.dd.size(); ++k) {
            char line[160];
            std::snprintf(line, sizeof line, "%20.8lf %20.8lf %20.8lf %10llu %20.8lf\n",
                          own->edges[k] / 60, own->edges[k + 1] / 60, 0.0,
                          static_cast<unsigned long long>(own->raw.dd[k] + (k == 2 ? bump : 0)),
                          0.0);
            out << line;
        }
        return path;
    };
    QVERIFY(window.addComparisonRun(corrfunc(QStringLiteral("corrfunc"), 0)));
    QVERIFY(window.addComparisonRun(corrfunc(QStringLiteral("corrfunc-off"), 1)));
    window.compareRuns()->setReference(0);
    window.compareRuns()->setPanel(Comparison::Panel::Ratio);
    const QString message = window.plotPanel()->comparisonMessage();
    QVERIFY2(message.contains(QStringLiteral("'corrfunc': DD equal in all 6 bins")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("'corrfunc-off': DD differs in 1 of 6 bins (first: "
                                             "bin 3, 78 in 'corrfunc-off', 77 in the reference "
                                             "'own')")),
             qPrintable(message));
    QCOMPARE(window.comparePanel()->messageLabel()->text(), message);
}

void TestCompareRuns::comparisonCsv() {
    MainWindow window(BackendRegistry{}, testOptions());
    const ResultPtr first = sampleResult(1.0, true);
    const ResultPtr second = sampleResult(2.0, true);
    QVERIFY(window.addComparisonRun(writeResult(QStringLiteral("csv"), *first, QStringLiteral("a"))));
    QVERIFY(window.addComparisonRun(writeResult(QStringLiteral("csv"), *second, QStringLiteral("b"))));
    window.compareRuns()->setReference(0);
    window.compareRuns()->setPanel(Comparison::Panel::Ratio);
    const QString path = m_dir.filePath(QStringLiteral("compared.csv"));
    QVERIFY(window.exportComparisonCsv(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QStringList rows;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.isEmpty() && !line.startsWith('#'))
            rows.append(QString::fromUtf8(line));
    QCOMPARE(rows.front(), QStringLiteral("run,label,source,theta_lo,theta_hi,theta_mid,theta_unit,"
                                          "w,w_err,ratio,ratio_err,DD_norm,DR_norm,RD_norm,RR_norm"));
    QCOMPARE(rows.size(), 1 + 2 * 6);
    // Run b's first bin: its ratio to a is 2.
    const QStringList b0 = rows.at(7).split(QLatin1Char(','));
    QCOMPARE(b0.at(0), QStringLiteral("overlay2"));
    QCOMPARE(b0.at(6), QStringLiteral("arcmin"));
    QCOMPARE(b0.at(9).toDouble(), second->w[0] / first->w[0]);
}

void TestCompareRuns::exportedFigureHoldsThePanel() {
    const ResultPtr current = sampleResult(1.0, true);
    CompareRuns runs;
    QString error;
    QVERIFY(runs.addFile(writeResult(QStringLiteral("csv"), *sampleResult(1.3, true),
                                     QStringLiteral("overlay")),
                         &error));
    runs.setPanel(Comparison::Panel::Ratio);
    PlotPanel plots;
    plots.setResult(current, false);
    plots.setComparison(runs.comparison());
    const std::unique_ptr<PlotPanel> copy = plots.figureCopy(FigureStyle());
    QVERIFY(copy->comparisonRect());
    QVERIFY(copy->overlayGraph(0));
    QVERIFY(copy->comparisonGraph(0));
    QCOMPARE(graphPoints(copy->comparisonGraph(0)), graphPoints(plots.comparisonGraph(0)));
}

void TestCompareRuns::sessionReopensWithItsResultWithoutRunning() {
    MainWindow window(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(window, [&] {
        return window.setDataCatalog(CatalogSource{kSamples + QStringLiteral("sample_data.txt")});
    }));
    QVERIFY(loadAndWait(window, [&] {
        return window.addRandomCatalog(
            CatalogSource{kSamples + QStringLiteral("sample_random_1.txt")});
    }));
    window.binningPanel()->setSpec(BinSpec::logCount(1, 60, AngleUnit::Arcminute, 6));
    BackendOptions cpu;
    cpu.name = "cpu";
    window.backendPanel()->setBackendOptions(cpu);
    QSignalSpy finished(&window, &MainWindow::runFinished);
    QVERIFY(window.startRun());
    QVERIFY(finished.wait(60000));
    const ResultPtr original = window.currentResult();
    QVERIFY(original);
    QCOMPARE(window.runHistory()->records().size(), 1);
    const QString path = m_dir.filePath(QStringLiteral("with_result.json"));
    QVERIFY(window.saveSession(path));

    MainWindow reopened(BackendRegistry{}, testOptions());
    QSignalSpy jobStarted(reopened.runController(), &RunController::jobStarted);
    QSignalSpy runStarted(&reopened, &MainWindow::runStarted);
    QVERIFY(loadAndWait(reopened, [&] { return reopened.loadSession(path); }));
    QTest::qWait(50); // anything queued would have started by now
    QCOMPARE(jobStarted.count(), 0);
    QCOMPARE(runStarted.count(), 0);
    QVERIFY(!reopened.isRunning());
    QCOMPARE(reopened.runController()->lastOutcome(), RunController::Outcome::None);
    const ResultPtr shown = reopened.currentResult();
    QVERIFY(shown);
    QCOMPARE(shown->w.size(), original->w.size());
    for (std::size_t k = 0; k < original->w.size(); ++k)
        QVERIFY(sameDouble(shown->w[k], original->w[k]));
    QVERIFY(shown->raw.dd == original->raw.dd);
    QVERIFY(shown->raw.rr == original->raw.rr);
    QVERIFY(shown->edges == original->edges);
    QCOMPARE(reopened.plotPanel()->plottedW(), window.plotPanel()->plottedW());
    QCOMPARE(reopened.resultModel()->rowCount(), int(original->binCount()));
    QCOMPARE(reopened.runHistory()->records().size(), 1);
    QVERIFY(!reopened.isResultStale());
    // The history run as an overlay, with the same values.
    QVERIFY(reopened.addHistoryOverlay(0));
    QCOMPARE(reopened.compareRuns()->count(), 1);
    // Issue 35, item 15: the overlay says what run it is (data, estimator, number and time).
    const QString label = reopened.compareRuns()->overlay(0).label;
    QVERIFY2(label.startsWith(QStringLiteral("sample_data.txt, Landy-Szalay")) &&
                 label.contains(QStringLiteral(" (run 1, ")),
             qPrintable(label));
    QVERIFY(reopened.compareRuns()->overlay(0).table->w.size() == original->w.size());
    // The reopened result is tracked against the inputs: other bins mark it stale, the
    // session's bins again unmark it, and still nothing was counted.
    reopened.binningPanel()->setSpec(BinSpec::logCount(1, 60, AngleUnit::Arcminute, 7));
    QTRY_VERIFY(reopened.isResultStale());
    reopened.binningPanel()->setSpec(BinSpec::logCount(1, 60, AngleUnit::Arcminute, 6));
    QTRY_VERIFY(!reopened.isResultStale());
    QCOMPARE(jobStarted.count(), 0);
}

void TestCompareRuns::olderSessionWithoutResultsOpens() {
    // A session as written before results were kept: no "history" member.
    Session old;
    old.data = CatalogSource{kSamples + QStringLiteral("sample_data.txt")};
    old.randoms.append(CatalogSource{kSamples + QStringLiteral("sample_random_1.txt")});
    QJsonObject object = old.toJson();
    QVERIFY(!object.contains(QStringLiteral("history")));
    const QString path = m_dir.filePath(QStringLiteral("old.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(object).toJson());
    file.close();
    MainWindow window(BackendRegistry{}, testOptions());
    QVERIFY(loadAndWait(window, [&] { return window.loadSession(path); }));
    QVERIFY(!window.currentResult());
    QVERIFY(window.runHistory()->records().isEmpty());
    QVERIFY(window.canRun());
}

TPACF_TEST_MAIN(TestCompareRuns)
#include "test_compare_runs.moc"
