// SPDX-License-Identifier: GPL-3.0-or-later
// The Catalogs and Run docks on their own: what the catalog list shows (groups, compact N,
// extents, tooltips, selection), buttons driving the window's actions, and the Run panel's
// enabled states, reason colours, progress text and outcomes; the catalog dialogs' filter; the
// Binning panel's custom edges (typed, loaded from a file, kept by a session).
#include "binning_panel.h"
#include "catalog_stats.h"
#include "catalogs_panel.h"
#include "event_loop_watch.h"
#include "main_window.h"
#include "run_panel.h"
#include "session.h"
#include "tpacf_test_main.h"

#include <tpacf/catalog_formats.h>

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QTest>
#include <QTreeWidget>

#include <cstring>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

LoadedCatalog loaded(const QString& path, std::vector<double> raDeg, std::vector<double> decDeg) {
    return {CatalogSource{path}, std::make_shared<const Catalog>(Catalog::fromDegrees(
                                     path.toStdString(), std::move(raDeg), std::move(decDeg)))};
}

bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

bool sameEdges(const std::vector<double>& a, const QList<double>& b) {
    if (a.size() != std::size_t(b.size()))
        return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (!sameBits(a[k], b[qsizetype(k)]))
            return false;
    return true;
}

void selectScale(BinningPanel& panel, BinScale scale) {
    panel.scaleCombo()->setCurrentIndex(panel.scaleCombo()->findData(int(scale)));
}

} // namespace

Q_DECLARE_METATYPE(tpacf::AngleUnit)

class TestPanels : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void countIsCompactAboveAMillion_data();
    void countIsCompactAboveAMillion();
    void catalogListShowsGroupsAndExtents();
    void tooltipStatesHowACatalogWasRead();
    void selectionGivesTheRandomIndex();
    void catalogButtonsTriggerTheActions();
    void catalogButtonsStayInANarrowDock();
    void catalogStatsAreTheCatalogsOwn();
    void eventLoopWatchSeesAStall();
    void runStateEnablesAndExplains();
    void progressShowsRateEtaAndElapsed();
    void durationAndRateFormats_data();
    void durationAndRateFormats();
    void outcomesAndStaleLine();
    void fileDialogFilterListsEveryFormat();
    void binningCustomEdges_data();
    void binningCustomEdges();
    void binningCustomStartsFromShownBins();
    void binningLoadsEdgesFiles();
    void binningCustomEdgesRoundTrip();
};

void TestPanels::initTestCase() {
    // Numbers as US English writes them ("999,999", "1.23"), whatever the machine's locale.
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestPanels::countIsCompactAboveAMillion_data() {
    QTest::addColumn<qulonglong>("count");
    QTest::addColumn<QString>("shown");
    QTest::newRow("small") << 42ull << QStringLiteral("42");
    QTest::newRow("largest exact") << 999999ull << QStringLiteral("999,999");
    QTest::newRow("one million") << 1000000ull << QStringLiteral("1.00 M");
    QTest::newRow("1.23 M") << 1234567ull << QStringLiteral("1.23 M");
    QTest::newRow("12.3 M") << 12345678ull << QStringLiteral("12.3 M");
    QTest::newRow("123 M") << 123456789ull << QStringLiteral("123 M");
    QTest::newRow("giga") << 4500000000ull << QStringLiteral("4.50 G");
}

void TestPanels::countIsCompactAboveAMillion() {
    QFETCH(qulonglong, count);
    QFETCH(QString, shown);
    QCOMPARE(CatalogsPanel::formatCount(std::size_t(count)), shown);
}

void TestPanels::catalogListShowsGroupsAndExtents() {
    CatalogsPanel panel;
    QTreeWidget* tree = panel.tree();
    // Empty: the two groups, nothing in them.
    QCOMPARE(tree->topLevelItemCount(), 2);
    QCOMPARE(tree->topLevelItem(0)->text(0), QStringLiteral("Data"));
    QCOMPARE(tree->topLevelItem(0)->childCount(), 0);
    QCOMPARE(tree->topLevelItem(1)->text(0), QStringLiteral("Randoms (0)"));

    const LoadedCatalog data =
        loaded(QStringLiteral("/survey/galaxies.txt"), {10.0, 20.0, 15.0}, {-5.0, 5.0, 0.0});
    const LoadedCatalog random1 = loaded(QStringLiteral("/survey/random_1.txt"), {11.0}, {1.0});
    const LoadedCatalog random2 = {CatalogSource{QStringLiteral(":/samples/random_2.txt")},
                                   random1.catalog};
    panel.setCatalogs(data, {random1, random2});
    QCOMPARE(tree->topLevelItemCount(), 2);
    const QTreeWidgetItem* dataRow = tree->topLevelItem(0)->child(0);
    QVERIFY(dataRow);
    QCOMPARE(dataRow->text(0), QStringLiteral("galaxies.txt"));
    QCOMPARE(dataRow->text(1), QStringLiteral("3"));
    QCOMPARE(dataRow->text(2), QStringLiteral("10.0 – 20.0"));
    QCOMPARE(dataRow->text(3), QStringLiteral("-5.0 – 5.0"));
    // Issue 35, item 12: a field across RA 0 shows its arc (350° to 10°), not 0 – 360.
    {
        CatalogsPanel across;
        across.setCatalogs(loaded(QStringLiteral("/survey/stripe82.txt"), {350.0, 359.5, 0.5, 10.0},
                                  {-1.0, 0.0, 1.0, 0.5}),
                           {});
        QCOMPARE(across.tree()->topLevelItem(0)->child(0)->text(2),
                 QStringLiteral("350.0 – 10.0"));
    }
    QCOMPARE(dataRow->toolTip(0), QStringLiteral("/survey/galaxies.txt\n3 points"));
    QCOMPARE(tree->topLevelItem(1)->text(0), QStringLiteral("Randoms (2)"));
    QCOMPARE(tree->topLevelItem(1)->childCount(), 2);
    QCOMPARE(tree->topLevelItem(1)->child(0)->text(0), QStringLiteral("random_1.txt"));
    // The bundled sample says so instead of showing a resource path.
    QCOMPARE(tree->topLevelItem(1)->child(1)->toolTip(2),
             QStringLiteral("Bundled sample\n1 points"));

    // Shown again without data: the data group is empty, nothing left over.
    panel.setCatalogs(std::nullopt, {random1});
    QCOMPARE(tree->topLevelItem(0)->childCount(), 0);
    QCOMPARE(tree->topLevelItem(1)->text(0), QStringLiteral("Randoms (1)"));
}

void TestPanels::tooltipStatesHowACatalogWasRead() {
    // A weighted text catalog: the tooltip names the columns read, the unit and the rows.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("weighted.csv"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id,dec,ra,wfkp\n1,-5,150,0.5\n2,-4,151,1.5\n3,-3,152,2\n4,-2,153,1\n");
    }
    CatalogSource source{path};
    source.weightColumn = 4;
    source.unit = AngleUnit::Degree;
    const LoadedCatalog weighted{source, loadCatalog(source)};
    CatalogsPanel panel;
    panel.setCatalogs(weighted, {});
    const QStringList lines =
        panel.tree()->topLevelItem(0)->child(0)->toolTip(0).split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], path);
    QVERIFY2(lines[1].startsWith(QStringLiteral("ascii, columns ra, dec, weight wfkp (")) &&
                 lines[1].endsWith(QStringLiteral(", deg, 4 rows")),
             qPrintable(lines[1]));
    QCOMPARE(lines[1], QString::fromStdString(weighted.catalog->origin().describe()));
    QCOMPARE(lines[2], QStringLiteral("Weighted (wfkp): Σw = 5.0"));
    QCOMPARE(CatalogsPanel::describeOrigin(*weighted.catalog), lines[1]);
}

void TestPanels::selectionGivesTheRandomIndex() {
    CatalogsPanel panel;
    const LoadedCatalog data = loaded(QStringLiteral("d.txt"), {1.0}, {1.0});
    const LoadedCatalog random = loaded(QStringLiteral("r.txt"), {2.0}, {2.0});
    panel.setCatalogs(data, {random, random, random});
    QCOMPARE(panel.selectedRandomIndex(), -1); // nothing selected
    panel.tree()->setCurrentItem(panel.tree()->topLevelItem(1)->child(2));
    QCOMPARE(panel.selectedRandomIndex(), 2);
    panel.tree()->setCurrentItem(panel.tree()->topLevelItem(0)->child(0));
    QCOMPARE(panel.selectedRandomIndex(), -1); // the data is not a random
    panel.tree()->setCurrentItem(panel.tree()->topLevelItem(1));
    QCOMPARE(panel.selectedRandomIndex(), -1); // a group header
}

void TestPanels::catalogButtonsTriggerTheActions() {
    CatalogsPanel panel;
    QAction open(QStringLiteral("&Open Data Catalog…"));
    QAction add(QStringLiteral("Add"));
    QAction remove(QStringLiteral("Remove"));
    panel.setActions(&open, &add, &remove);
    QSignalSpy opened(&open, &QAction::triggered);
    QSignalSpy added(&add, &QAction::triggered);
    QSignalSpy removed(&remove, &QAction::triggered);
    QTest::mouseClick(panel.openDataButton(), Qt::LeftButton);
    QTest::mouseClick(panel.addRandomButton(), Qt::LeftButton);
    QTest::mouseClick(panel.addRandomButton(), Qt::LeftButton);
    QTest::mouseClick(panel.removeRandomButton(), Qt::LeftButton);
    QCOMPARE(opened.count(), 1);
    QCOMPARE(added.count(), 2);
    QCOMPARE(removed.count(), 1);
    QVERIFY(panel.tree()->actions().contains(&remove)); // Delete in the list
    QCOMPARE(panel.openDataButton()->toolTip(), open.text());
    // While loading, the buttons wait.
    panel.setButtonsEnabled(false);
    QTest::mouseClick(panel.openDataButton(), Qt::LeftButton);
    QCOMPARE(opened.count(), 1);
    QVERIFY(!panel.addRandomButton()->isEnabled() && !panel.removeRandomButton()->isEnabled());
    panel.setButtonsEnabled(true);
    QVERIFY(panel.openDataButton()->isEnabled());
}

void TestPanels::runStateEnablesAndExplains() {
    RunPanel panel;
    QSignalSpy runs(&panel, &RunPanel::runRequested);
    QSignalSpy cancels(&panel, &RunPanel::cancelRequested);
    const QString red = QStringLiteral("#b00020");
    const QString grey = QStringLiteral("#555555");

    // Something to fix: Run disabled, the reason in red, also as the button's tooltip.
    panel.setRunState(QStringLiteral("Add at least one random catalog."), false, false);
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(!panel.cancelButton()->isEnabled());
    QVERIFY(!panel.reasonLabel()->isHidden());
    QCOMPARE(panel.reasonLabel()->text(), QStringLiteral("Add at least one random catalog."));
    QCOMPARE(panel.runButton()->toolTip(), panel.reasonLabel()->text());
    QVERIFY(panel.reasonLabel()->styleSheet().contains(red));
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QCOMPARE(runs.count(), 0);

    // Catalogs being read: nothing is wrong, the reason in grey.
    panel.setRunState(QStringLiteral("Reading the catalogs."), false, true);
    QVERIFY(panel.reasonLabel()->styleSheet().contains(grey));

    // Runnable.
    panel.setRunState({}, false, false);
    QVERIFY(panel.runButton()->isEnabled());
    QVERIFY(panel.reasonLabel()->isHidden());
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QCOMPARE(runs.count(), 1);

    // Running: Cancel enabled, no reason shown (the progress says enough).
    panel.setRunState(QStringLiteral("A run is in progress."), true, false);
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(panel.cancelButton()->isEnabled());
    QVERIFY(panel.reasonLabel()->isHidden());
    QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
    QCOMPARE(cancels.count(), 1);
    panel.showCancelling();
    QVERIFY(!panel.cancelButton()->isEnabled());
    QCOMPARE(panel.statusLabel()->text(), QStringLiteral("Cancelling…"));
}

void TestPanels::progressShowsRateEtaAndElapsed() {
    RunPanel panel;
    panel.showStarting(QStringLiteral("Starting…"));
    QCOMPARE(panel.progressBar()->value(), 0);
    QCOMPARE(panel.statusLabel()->text(), QStringLiteral("Starting…"));
    JobProgressUpdate update;
    update.fraction = 0.25;
    update.pairsPerSecond = 1.5e6;
    update.elapsedSeconds = 3725;
    update.etaSeconds = 65;
    panel.showProgress(update);
    QCOMPARE(panel.progressBar()->value(), RunPanel::kProgressSteps / 4);
    QCOMPARE(panel.statusLabel()->text(),
             QStringLiteral("1.50 Mpairs/s · ETA 1:05 · elapsed 1:02:05"));
    // Not known yet; fractions outside 0..1 are clamped.
    update.etaSeconds = -1;
    update.fraction = 1.7;
    panel.showProgress(update);
    QCOMPARE(panel.progressBar()->value(), RunPanel::kProgressSteps);
    QVERIFY(panel.statusLabel()->text().contains(QStringLiteral("ETA –")));    // The pass of Mean separation per bin after the counts says what it is.
    update.meanSeparation = true;
    update.fraction = 0.5;
    panel.showProgress(update);
    QVERIFY2(panel.statusLabel()->text().startsWith(QStringLiteral("Mean separation per bin: ")),
             qPrintable(panel.statusLabel()->text()));
}

void TestPanels::durationAndRateFormats_data() {
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("duration");
    QTest::addColumn<double>("rate");
    QTest::addColumn<QString>("rateText");
    QTest::newRow("zero") << 0.0 << QStringLiteral("0:00") << 0.0 << QStringLiteral("0.00 pairs/s");
    QTest::newRow("rounding") << 59.6 << QStringLiteral("1:00") << 999.0
                              << QStringLiteral("999.0 pairs/s");
    QTest::newRow("hour") << 3600.0 << QStringLiteral("1:00:00") << 2.5e9
                          << QStringLiteral("2.50 Gpairs/s");
    QTest::newRow("unknown") << -1.0 << QStringLiteral("–") << 4.2e13
                             << QStringLiteral("42.0 Tpairs/s");
}

void TestPanels::durationAndRateFormats() {
    QFETCH(double, seconds);
    QFETCH(QString, duration);
    QFETCH(double, rate);
    QFETCH(QString, rateText);
    QCOMPARE(RunPanel::formatDuration(seconds), duration);
    QCOMPARE(RunPanel::formatRate(rate), rateText);
}

void TestPanels::outcomesAndStaleLine() {
    RunPanel panel;
    CorrelationResult result;
    result.elapsedSeconds = 1.234;
    result.deviceDescription = "CPU, 2 threads";
    result.culled = true;
    panel.showFinished(result);
    QCOMPARE(panel.progressBar()->value(), RunPanel::kProgressSteps);
    QCOMPARE(panel.statusLabel()->text(),
             QStringLiteral("Done in 1.23 s on CPU, 2 threads · culling on"));
    panel.showFailed();
    QCOMPARE(panel.progressBar()->value(), 0);
    QCOMPARE(panel.statusLabel()->text(), QStringLiteral("Failed"));
    panel.showCancelled();
    QCOMPARE(panel.statusLabel()->text(), QStringLiteral("Cancelled"));

    QVERIFY(panel.staleLabel()->isHidden());
    panel.setStale(true);
    QVERIFY(!panel.staleLabel()->isHidden());
    QVERIFY(panel.staleLabel()->text().contains(QStringLiteral("previous inputs")));
    panel.setStale(false);
    QVERIFY(panel.staleLabel()->isHidden());
}

// The open dialogs' filter comes from the core's format table: every pattern of every format
// this build reads is in the "Catalogs" entry, each format has its own entry, and nothing else.
void TestPanels::fileDialogFilterListsEveryFormat() {
    const QStringList filters = catalogFileFilter().split(QStringLiteral(";;"));
    const auto formats = tpacf::catalogFormats();
    QCOMPARE(filters.size(), qsizetype(formats.size()) + 2);
    QVERIFY(filters.front().startsWith(QStringLiteral("Catalogs (")));
    QCOMPARE(filters.back(), QStringLiteral("All files (*)"));
    const auto inParentheses = [](const QString& filter) {
        const qsizetype open = filter.indexOf(u'(');
        return filter.mid(open + 1, filter.size() - open - 2).split(u' ');
    };
    QStringList all;
    for (std::size_t i = 0; i < formats.size(); ++i) {
        QStringList patterns;
        for (const std::string_view pattern : formats[i].patterns)
            patterns.append(QString::fromUtf8(pattern.data(), qsizetype(pattern.size())));
        const QString filter = filters[qsizetype(i) + 1];
        QVERIFY2(filter.startsWith(
                     QString::fromUtf8(formats[i].name.data(), qsizetype(formats[i].name.size()))),
                 qPrintable(filter));
        QCOMPARE(inParentheses(filter), patterns);
        all += patterns;
    }
    QCOMPARE(inParentheses(filters.front()), all);
    QCOMPARE(all.contains(QStringLiteral("*.fits")), tpacf::fitsSupported());
}

void TestPanels::binningCustomEdges_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<AngleUnit>("unit");
    QTest::addColumn<QList<double>>("edges"); // empty: invalid
    QTest::addColumn<QString>("problem");
    const auto arcmin = AngleUnit::Arcminute;
    const QList<double> corrfunc{0.1, 0.3, 1, 3};
    QTest::newRow("commas") << QStringLiteral("0.1, 0.3, 1, 3") << arcmin << corrfunc << QString();
    QTest::newRow("spaces, tabs, newlines")
        << QStringLiteral(" 0.1 0.3\t1\n3 ") << arcmin << corrfunc << QString();
    QTest::newRow("commas without spaces, comment")
        << QStringLiteral("0.1,0.3,1,3 # Corrfunc") << arcmin << corrfunc << QString();
    QTest::newRow("from 0 in deg") << QStringLiteral("0, 90, 180") << AngleUnit::Degree
                                   << QList<double>{0, 90, 180} << QString();
    QTest::newRow("last digit kept") << QStringLiteral("0.1, 0.30000000000000004") << arcmin
                                     << QList<double>{0.1, 0.1 + 0.2} << QString();
    QTest::newRow("unsorted") << QStringLiteral("0.1, 1, 0.3") << arcmin << QList<double>{}
                              << QStringLiteral("edge 3 (0.3 arcmin) is not greater than edge 2");
    QTest::newRow("duplicate") << QStringLiteral("1, 1") << arcmin << QList<double>{}
                               << QStringLiteral("edge 2 (1 arcmin) is not greater");
    QTest::newRow("not a number") << QStringLiteral("0.1, abc, 3") << arcmin << QList<double>{}
                                  << QStringLiteral("\"abc\" (item 2) is not a number");
    QTest::newRow("decimal comma reads as two numbers")
        << QStringLiteral("0,5; 1") << arcmin << QList<double>{}
        << QStringLiteral("\"5;\" (item 2) is not a number");
    QTest::newRow("nan") << QStringLiteral("0.1, nan") << arcmin << QList<double>{}
                         << QStringLiteral("\"nan\" (item 2) is not a finite number");
    QTest::newRow("beyond 180 deg")
        << QStringLiteral("1, 181") << AngleUnit::Degree << QList<double>{}
        << QStringLiteral("edge 2 (181 deg) is beyond 180 deg");
    QTest::newRow("negative") << QStringLiteral("-1, 2") << arcmin << QList<double>{}
                              << QStringLiteral("edge 1 (-1 arcmin) is negative");
    QTest::newRow("one edge") << QStringLiteral("5") << arcmin << QList<double>{}
                              << QStringLiteral("at least 2 edges, got 1");
    QTest::newRow("empty") << QString() << arcmin << QList<double>{}
                           << QStringLiteral("at least 2 edges, got 0");
}

void TestPanels::binningCustomEdges() {
    QFETCH(QString, text);
    QFETCH(AngleUnit, unit);
    QFETCH(QList<double>, edges);
    QFETCH(QString, problem);
    BinningPanel panel;
    panel.setSpec(BinSpec::linearCount(0, 10, unit, 5));
    QVERIFY(panel.isValid());
    QVERIFY(!panel.edgesEdit()->isVisibleTo(&panel));
    QSignalSpy changed(&panel, &BinningPanel::changed);
    selectScale(panel, BinScale::Custom);
    QVERIFY(panel.edgesEdit()->isVisibleTo(&panel));
    QVERIFY(panel.loadEdgesButton()->isVisibleTo(&panel));
    QVERIFY(!panel.minSpin()->isVisibleTo(&panel) && !panel.sizeSpin()->isVisibleTo(&panel));
    panel.edgesEdit()->setText(text);
    QVERIFY(changed.count() >= 2);

    auto* inlineError = panel.findChild<QLabel*>(QStringLiteral("binningError"));
    QVERIFY(inlineError);
    QCOMPARE(panel.spec().scale, BinScale::Custom);
    QCOMPARE(panel.spec().unit, unit);
    if (edges.isEmpty()) {
        QVERIFY(!panel.isValid());
        QVERIFY2(panel.problem().contains(problem), qPrintable(panel.problem()));
        QVERIFY(!inlineError->isHidden());
        QCOMPARE(inlineError->text(), panel.problem());
        // The field is tinted like the spin boxes are for their values.
        QCOMPARE(panel.edgesEdit()->palette().color(QPalette::Base), QColor(0xff, 0xdd, 0xdd));
        return;
    }
    QVERIFY2(panel.isValid(), qPrintable(panel.problem()));
    QVERIFY(panel.problem().isEmpty());
    QVERIFY(inlineError->isHidden());
    QVERIFY(sameEdges(panel.spec().edges, edges));
    const auto binningEdges = panel.binning()->edges();
    QVERIFY(sameEdges({binningEdges.begin(), binningEdges.end()}, edges));
    QCOMPARE(panel.binning()->count(), std::size_t(edges.size() - 1));
    QVERIFY(panel.edgesEdit()->palette().color(QPalette::Base) != QColor(0xff, 0xdd, 0xdd));

    // Back to linear: the range and size fields come back as they were.
    selectScale(panel, BinScale::Linear);
    QVERIFY(panel.isValid());
    QCOMPARE(panel.binning()->count(), std::size_t(5));
    QCOMPARE(panel.spec().max, 10.0);
}

void TestPanels::binningCustomStartsFromShownBins() {
    BinningPanel panel;
    panel.setSpec(BinSpec::logCount(1, 100, AngleUnit::Degree, 4));
    const auto shown = panel.binning()->edges();
    const std::vector<double> before(shown.begin(), shown.end());
    selectScale(panel, BinScale::Custom);
    QVERIFY2(panel.isValid(), qPrintable(panel.problem()));
    // Bit for bit: the field holds each edge in its shortest exact form.
    QCOMPARE(panel.spec().edges.size(), before.size());
    for (std::size_t k = 0; k < before.size(); ++k)
        QVERIFY(sameBits(panel.spec().edges[k], before[k]));
    QVERIFY(!panel.edgesEdit()->text().isEmpty());
}

void TestPanels::binningLoadsEdgesFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const QString& name, const QByteArray& bytes) {
        QFile file(dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(bytes), bytes.size());
    };
    write(QStringLiteral("lines.txt"), "# edges\n0.1\n0.3\n\n1\n3\n");
    write(QStringLiteral("rows.txt"), "0.1 0.3\n0.3 1  # middle\n1 3\n");
    write(QStringLiteral("gap.txt"), "0.1 0.3\n0.4 1\n");
    const QList<double> expected{0.1, 0.3, 1, 3};

    for (const QString& name : {QStringLiteral("lines.txt"), QStringLiteral("rows.txt")}) {
        BinningPanel panel;
        panel.setSpec(BinSpec::linearCount(0, 10, AngleUnit::Degree, 5));
        QString error;
        QVERIFY2(panel.loadEdgesFile(dir.filePath(name), &error), qPrintable(error));
        QVERIFY(error.isEmpty());
        QCOMPARE(panel.scaleCombo()->currentData().toInt(), int(BinScale::Custom));
        QVERIFY(panel.edgesEdit()->isVisibleTo(&panel));
        QVERIFY(panel.isValid());
        QCOMPARE(panel.spec().unit, AngleUnit::Degree); // the unit selected stays
        QVERIFY(sameEdges(panel.spec().edges, expected));
    }

    // A bad file: the error names the file and line; the panel keeps what it had.
    BinningPanel panel;
    panel.setSpec(BinSpec::linearCount(0, 10, AngleUnit::Degree, 5));
    QString error;
    QVERIFY(!panel.loadEdgesFile(dir.filePath(QStringLiteral("gap.txt")), &error));
    QVERIFY2(error.contains(dir.filePath(QStringLiteral("gap.txt")) + QStringLiteral(":2:")),
             qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("contiguous")), qPrintable(error));
    QCOMPARE(panel.scaleCombo()->currentData().toInt(), int(BinScale::Linear));
    QVERIFY(panel.isValid());
    QCOMPARE(panel.binning()->count(), std::size_t(5));
    error.clear();
    QVERIFY(!panel.loadEdgesFile(dir.filePath(QStringLiteral("missing.txt")), &error));
    QVERIFY2(error.contains(QStringLiteral("missing.txt")), qPrintable(error));
}

void TestPanels::binningCustomEdgesRoundTrip() {
    // Edges whose shortest text has 17 digits: a lossy step anywhere would change them.
    const std::vector<double> edges{0, 0.1 + 0.2, 1.0 / 3.0, 2.718281828459045, 7};
    BinningPanel panel;
    panel.setSpec(BinSpec::fromEdges(edges, AngleUnit::Arcsecond));
    QVERIFY2(panel.isValid(), qPrintable(panel.problem()));
    QCOMPARE(panel.scaleCombo()->currentData().toInt(), int(BinScale::Custom));
    const BinSpec shown = panel.spec();
    QCOMPARE(shown.unit, AngleUnit::Arcsecond);
    QCOMPARE(shown.edges.size(), edges.size());
    for (std::size_t k = 0; k < edges.size(); ++k)
        QVERIFY(sameBits(shown.edges[k], edges[k]));

    // Through a session file and back into a fresh panel.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Session session;
    session.settings.bins = shown;
    const QJsonObject bins = session.toJson().value(QStringLiteral("bins")).toObject();
    QCOMPARE(bins.value(QStringLiteral("scale")).toString(), QStringLiteral("custom"));
    QCOMPARE(bins.value(QStringLiteral("edges")).toArray().size(), qsizetype(edges.size()));
    const QString path = dir.filePath(QStringLiteral("custom.json"));
    QString error;
    QVERIFY2(saveSessionFile(path, session, &error), qPrintable(error));
    const std::optional<Session> loaded = loadSessionFile(path, &error);
    QVERIFY2(loaded, qPrintable(error));
    const BinSpec& restored = loaded->settings.bins;
    QCOMPARE(restored.scale, BinScale::Custom);
    QCOMPARE(restored.unit, AngleUnit::Arcsecond);
    QCOMPARE(restored.edges.size(), edges.size());
    for (std::size_t k = 0; k < edges.size(); ++k)
        QVERIFY2(sameBits(restored.edges[k], edges[k]), qPrintable(QString::number(k)));
    QCOMPARE(restored.min, 0.0);
    QCOMPARE(restored.max, 7.0);
    BinningPanel reopened;
    reopened.setSpec(restored);
    QVERIFY(reopened.isValid());
    QCOMPARE(reopened.edgesEdit()->text(), panel.edgesEdit()->text());

    // Log and linear sessions carry no edges; a bad entry comes back as NaN, flagged, not 0.
    Session plain;
    QVERIFY(
        !plain.toJson().value(QStringLiteral("bins")).toObject().contains(QStringLiteral("edges")));
    QJsonObject broken = session.toJson();
    QJsonObject brokenBins = broken.value(QStringLiteral("bins")).toObject();
    brokenBins[QStringLiteral("edges")] = QJsonArray{1.0, QStringLiteral("two"), 3.0};
    broken[QStringLiteral("bins")] = brokenBins;
    const BinSpec brokenSpec = Session::fromJson(broken).settings.bins;
    QCOMPARE(brokenSpec.edges.size(), std::size_t(3));
    QVERIFY(std::isnan(brokenSpec.edges[1]));
    reopened.setSpec(brokenSpec);
    QVERIFY(!reopened.isValid());
}

// Issue 35, item 12: a long file name and the footprint banner (which names the files) never
// widen the Catalogs panel past its dock at 1280 x 720, and every button stays inside it.
void TestPanels::catalogButtonsStayInANarrowDock() {
    constexpr int kDockWidth = 330; // narrower than the dock at 1280 x 720 (about 370)
    const QString longName = QStringLiteral("/data/surveys/") +
                             QStringLiteral("boss_dr12_cmass_north_galaxies_with_weights_v5_")
                                 .repeated(2) +
                             QStringLiteral("final.txt");
    // Data and randoms on opposite sides of the sky: the footprint banner shows, naming them.
    const LoadedCatalog data = loaded(longName, {10.0, 20.0, 15.0}, {-5.0, 5.0, 0.0});
    const LoadedCatalog random = loaded(QString(longName).replace(QStringLiteral("galaxies"),
                                                                  QStringLiteral("randoms")),
                                        {200.0, 210.0, 205.0}, {40.0, 45.0, 42.0});
    CatalogsPanel panel;
    panel.setCatalogs(data, {random});
    QVERIFY2(!panel.warningText().isEmpty(), "the footprint banner is shown");
    QVERIFY2(panel.minimumSizeHint().width() <= kDockWidth,
             qPrintable(QStringLiteral("minimum width %1").arg(panel.minimumSizeHint().width())));
    panel.resize(kDockWidth, 420);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QList<QAbstractButton*> buttons = panel.findChildren<QAbstractButton*>();
    QVERIFY(buttons.size() >= 5);
    for (const QAbstractButton* button : buttons) {
        if (!button->isVisibleTo(&panel) || button->parentWidget() != &panel)
            continue;
        const QRect shown(button->mapTo(&panel, QPoint(0, 0)), button->size());
        QVERIFY2(panel.rect().contains(shown),
                 qPrintable(QStringLiteral("%1 at %2,%3 %4x%5 outside %6 px")
                                .arg(button->text())
                                .arg(shown.x())
                                .arg(shown.y())
                                .arg(shown.width())
                                .arg(shown.height())
                                .arg(kDockWidth)));
        // Not squeezed below its text either.
        QVERIFY2(button->width() >= button->minimumSizeHint().width(),
                 qPrintable(button->text()));
    }
}

// The passes over every point that the loader's thread makes for the window: the same values as
// computing them directly, kept per catalog and units (the second look-up finds them).
void TestPanels::catalogStatsAreTheCatalogsOwn() {
    std::vector<double> ra{350.0, 359.5, 0.5, 10.0}, dec{-1.0, 0.0, 1.0, 0.5};
    std::vector<double> w{1.5, -0.5, 2.0, 0.25};
    auto catalog = std::make_shared<const Catalog>(
        Catalog::fromDegrees("stats", ra, dec, w));
    const CoordinateUnits degrees{AngleUnit::Degree, false};
    const CatalogStats stats = catalogStats(catalog, degrees);
    const SkyExtent extent = catalog->extent();
    QCOMPARE(stats.extent.raFrom, extent.raFrom);
    QCOMPARE(stats.extent.raTo, extent.raTo);
    QCOMPARE(stats.extent.decMin, extent.decMin);
    QCOMPARE(stats.extent.decMax, extent.decMax);
    const CoordinateRanges ranges = CoordinateRanges::of(*catalog, degrees);
    QCOMPARE(stats.ranges.raMax, ranges.raMax);
    QCOMPARE(stats.ranges.decAbsMax, ranges.decAbsMax);
    QCOMPARE(stats.weights.sum, 1.5 - 0.5 + 2.0 + 0.25);
    QCOMPARE(stats.weights, WeightSums::of(*catalog));
    QCOMPARE(stats.negativeWeights, std::uint64_t(1));
    // Kept: the same values again; other units are other ranges (in arcmin: 60 times larger).
    QCOMPARE(catalogStats(catalog, degrees).ranges.raMax, ranges.raMax);
    const CoordinateUnits arcmin{AngleUnit::Arcminute, false};
    QCOMPARE(catalogStats(catalog, arcmin).ranges.decAbsMax,
             CoordinateRanges::of(*catalog, arcmin).decAbsMax);
    QVERIFY(catalogStats(catalog, arcmin).ranges.decAbsMax > 59 * stats.ranges.decAbsMax);
    QCOMPARE(catalogStats(nullptr, degrees).negativeWeights, std::uint64_t(0));
}

// The watch behind tpacf-studio --stall-log: the window's thread kept busy for 200 ms is a
// stall of about that length, with the state described at the time.
void TestPanels::eventLoopWatchSeesAStall() {
    int asked = 0;
    EventLoopWatch watch([&asked] { return QStringLiteral("state %1").arg(++asked); }, 5, 50);
    QTimer::singleShot(30, [] { QThread::msleep(200); });
    QTest::qWait(400);
    const auto& stalls = watch.stalls();
    const auto found = std::find_if(stalls.begin(), stalls.end(),
                                    [](const EventLoopWatch::Stall& s) { return s.lengthMs >= 150; });
    QVERIFY2(found != stalls.end(), qPrintable(watch.report()));
    QVERIFY(found->state.startsWith(QStringLiteral("state ")));
    QVERIFY(watch.longestGapMs() >= found->lengthMs);
    QVERIFY(watch.report().contains(QStringLiteral("stall ")));
}

TPACF_TEST_MAIN(TestPanels)
#include "test_panels.moc"
