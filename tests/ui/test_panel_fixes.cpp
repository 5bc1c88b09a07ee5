// SPDX-License-Identifier: GPL-3.0-or-later
// The panel fixes of issue 16 (items 8 and 9), each panel on its own and in a 1280 x 720
// window arranged like the studio's right column: the bin unit converts the numbers (against
// the closed-form factors) and survives any round trip of units exactly; the jackknife region
// column offers the catalog's columns and still takes a typed name; no control is squashed and
// no message clipped; the results table shows ten rows where it has room and Tab leaves it.
#include "backend_panel.h"
#include "binning_panel.h"
#include "catalog_set.h"
#include "errors_panel.h"
#include "result_table.h"
#include "run_panel.h"
#include "tpacf_test_main.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

#include <cmath>
#include <cstring>
#include <numbers>

using namespace tpacf;
using namespace tpacf::ui;

Q_DECLARE_METATYPE(tpacf::AngleUnit)
Q_DECLARE_METATYPE(tpacf::BinSpec)

namespace {

constexpr double kPiTest = std::numbers::pi;

// Closed form, written out independently of the panel: the size of one unit in degrees.
double degreesPer(AngleUnit unit) {
    switch (unit) {
    case AngleUnit::Degree:
        return 1.0;
    case AngleUnit::Arcminute:
        return 1.0 / 60.0;
    case AngleUnit::Arcsecond:
        return 1.0 / 3600.0;
    case AngleUnit::Radian:
        return 180.0 / kPiTest;
    }
    return 0;
}

double closedForm(double value, AngleUnit from, AngleUnit to) {
    return value * degreesPer(from) / degreesPer(to);
}

bool near(double actual, double expected, double relative) {
    return std::abs(actual - expected) <= relative * std::abs(expected);
}

bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

void selectUnit(BinningPanel& panel, AngleUnit unit) {
    panel.unitCombo()->setCurrentIndex(panel.unitCombo()->findData(int(unit)));
}

// The fields of a non-custom spec, or the custom edges, as numbers in the panel's unit.
std::vector<double> angleFields(const BinSpec& spec) {
    if (spec.scale == BinScale::Custom)
        return spec.edges;
    std::vector<double> fields{spec.min, spec.max};
    if (spec.scale == BinScale::Linear && spec.width > 0)
        fields.push_back(spec.width);
    return fields;
}

QString describe(const QWidget* widget) {
    return QStringLiteral("%1 '%2' %3x%4")
        .arg(QString::fromLatin1(widget->metaObject()->className()), widget->objectName())
        .arg(widget->width())
        .arg(widget->height());
}

// Every visible control under `root` at least as tall as it needs: its minimum size hint, or for
// a wrapped label the height of its text at its width. The first one squashed, or empty.
QString firstSquashed(const QWidget* root) {
    for (const QWidget* widget : root->findChildren<QWidget*>()) {
        if (!widget->isVisibleTo(root) || widget->inherits("QScrollBar") ||
            !(widget->inherits("QAbstractSpinBox") || widget->inherits("QComboBox") ||
              widget->inherits("QLabel") || widget->inherits("QPushButton") ||
              widget->inherits("QProgressBar")))
            continue;
        if (widget->parentWidget() && widget->parentWidget()->inherits("QAbstractSpinBox"))
            continue;
        int needed = widget->minimumSizeHint().height();
        if (const auto* label = qobject_cast<const QLabel*>(widget);
            label && label->wordWrap() && !label->text().isEmpty())
            needed = label->heightForWidth(label->width());
        if (widget->height() < needed)
            return describe(widget) + QStringLiteral(" needs height %1").arg(needed);
    }
    return {};
}

// The studio's right column: binning, the settings and the Run panel in docks, either as the
// docks' widgets (the studio's default size before issue 16, 1500 x 940) or in scroll areas
// around them (the way the main window holds them now, down to 1280 x 720), a central plot and
// a results dock below.
struct RightColumn {
    QMainWindow window;
    BackendPanel* backend = nullptr;
    ErrorsPanel* errors = nullptr;
    RunPanel* run = nullptr;
    QWidget* settings = nullptr;

    RightColumn(bool scrolled, bool runScrolled, QSize size) {
        auto* central = new QLabel(QStringLiteral("w(θ)"));
        central->setMinimumSize(300, 200);
        window.setCentralWidget(central);
        backend = new BackendPanel(BackendRegistry{});
        errors = new ErrorsPanel;
        settings = new QWidget;
        auto* group = new QGroupBox(QStringLiteral("Error bars"), settings);
        auto* groupLayout = new QVBoxLayout(group);
        groupLayout->addWidget(errors);
        auto* layout = new QVBoxLayout(settings);
        layout->setContentsMargins(0, 0, 0, 0);
        // As the window has them: the error bars between the estimator and the backend.
        backend->insertSection(group);
        layout->addWidget(backend);
        layout->addStretch();
        run = new RunPanel;
        auto* binningDock = dock(QStringLiteral("binning"), new BinningPanel, scrolled);
        auto* settingsDock = dock(QStringLiteral("settings"), settings, scrolled);
        auto* runDock = dock(QStringLiteral("run"), run, runScrolled);
        auto* results = dock(QStringLiteral("results"), new ResultTableView, false);
        window.addDockWidget(Qt::RightDockWidgetArea, binningDock);
        window.addDockWidget(Qt::RightDockWidgetArea, settingsDock);
        window.addDockWidget(Qt::RightDockWidgetArea, runDock);
        window.addDockWidget(Qt::BottomDockWidgetArea, results);
        // The studio's sizes before its docks scrolled (issue 16: squashed at the default size),
        // the settings taller by the rows the panel has gained since (Mean separation, 20 px;
        // the jackknife's Cross pairs, 30 px).
        window.resizeDocks({binningDock}, {360}, Qt::Horizontal);
        window.resizeDocks({binningDock, settingsDock, runDock}, {210, 420, 150}, Qt::Vertical);
        window.resize(size);
    }

    QDockWidget* dock(const QString& name, QWidget* content, bool scrolled) {
        auto* dock = new QDockWidget(name, &window);
        dock->setObjectName(name);
        if (scrolled) {
            auto* scroll = new QScrollArea;
            scroll->setWidget(content);
            scroll->setWidgetResizable(true);
            scroll->setFrameShape(QFrame::NoFrame);
            dock->setWidget(scroll);
        } else {
            dock->setWidget(content);
        }
        return dock;
    }

    void layOut() {
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
    }
};

} // namespace

class TestPanelFixes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void convertAngleMatchesClosedForm_data();
    void convertAngleMatchesClosedForm();
    void unitChangeConvertsTheFields_data();
    void unitChangeConvertsTheFields();
    void unitRoundTripsAreExact_data();
    void unitRoundTripsAreExact();
    void editAfterUnitChangeConvertsFromThere();
    void regionColumnOffersTheCatalogColumns_data();
    void regionColumnOffersTheCatalogColumns();
    void regionChoicesKeepWhatWasTyped();
    void dataColumnNamesOfferTheOtherColumns_data();
    void dataColumnNamesOfferTheOtherColumns();
    void nothingSquashedInTheRightColumn_data();
    void nothingSquashedInTheRightColumn();
    void runMessagesWrapAndNeverClip_data();
    void runMessagesWrapAndNeverClip();
    void resultTableShowsTenRowsWithRoom();
    void resultColumnsFitTheirContents();
    void tabLeavesTheResultTable_data();
    void tabLeavesTheResultTable();
};

void TestPanelFixes::initTestCase() {
    // Number texts and label widths as the checks expect them, whatever the machine's locale.
    QLocale::setDefault(QLocale::c());
}

void TestPanelFixes::convertAngleMatchesClosedForm_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<AngleUnit>("from");
    QTest::addColumn<AngleUnit>("to");
    QTest::addColumn<double>("expected");
    QTest::addColumn<bool>("exact"); // an integer factor: the result is the exact product
    const auto deg = AngleUnit::Degree, arcmin = AngleUnit::Arcminute,
               arcsec = AngleUnit::Arcsecond, rad = AngleUnit::Radian;
    QTest::newRow("90 deg = 5400 arcmin") << 90.0 << deg << arcmin << 5400.0 << true;
    QTest::newRow("90 deg = 324000 arcsec") << 90.0 << deg << arcsec << 324000.0 << true;
    QTest::newRow("5400 arcmin = 90 deg") << 5400.0 << arcmin << deg << 90.0 << true;
    QTest::newRow("0.5 arcmin = 30 arcsec") << 0.5 << arcmin << arcsec << 30.0 << true;
    QTest::newRow("30 arcsec = 0.5 arcmin") << 30.0 << arcsec << arcmin << 0.5 << true;
    QTest::newRow("0.01 arcmin in deg") << 0.01 << arcmin << deg << 0.01 / 60.0 << true;
    QTest::newRow("180 deg = pi rad") << 180.0 << deg << rad << kPiTest << false;
    QTest::newRow("1 deg in rad") << 1.0 << deg << rad << kPiTest / 180.0 << false;
    QTest::newRow("1 rad in deg") << 1.0 << rad << deg << 180.0 / kPiTest << false;
    QTest::newRow("1 arcsec in rad") << 1.0 << arcsec << rad << kPiTest / 648000.0 << false;
    QTest::newRow("10000 arcmin in rad")
        << 1e4 << arcmin << rad << 1e4 * kPiTest / 10800.0 << false;
    QTest::newRow("pi/2 rad = 5400 arcmin") << kPiTest / 2 << rad << arcmin << 5400.0 << false;
    QTest::newRow("0 stays 0") << 0.0 << rad << arcsec << 0.0 << true;
    QTest::newRow("same unit") << 0.3 << arcmin << arcmin << 0.3 << true;
}

void TestPanelFixes::convertAngleMatchesClosedForm() {
    QFETCH(double, value);
    QFETCH(AngleUnit, from);
    QFETCH(AngleUnit, to);
    QFETCH(double, expected);
    QFETCH(bool, exact);
    const double converted = convertAngle(value, from, to);
    if (exact)
        QCOMPARE(converted, expected);
    else // one rounded factor and one product: a few units of the last place
        QVERIFY2(
            near(converted, expected, 1e-15),
            qPrintable(
                QStringLiteral("%1 vs %2").arg(converted, 0, 'g', 17).arg(expected, 0, 'g', 17)));
    QVERIFY(near(expected, closedForm(value, from, to), 1e-15));
}

void TestPanelFixes::unitChangeConvertsTheFields_data() {
    QTest::addColumn<BinSpec>("spec");
    QTest::addColumn<AngleUnit>("to");
    const auto deg = AngleUnit::Degree, arcmin = AngleUnit::Arcminute,
               arcsec = AngleUnit::Arcsecond, rad = AngleUnit::Radian;
    QTest::newRow("linear count 0-90 deg to arcmin")
        << BinSpec::linearCount(0, 90, deg, 9) << arcmin;
    QTest::newRow("linear width 0-90 deg to arcmin")
        << BinSpec::linearWidth(0, 90, deg, 5) << arcmin;
    QTest::newRow("linear width 0-90 deg to rad") << BinSpec::linearWidth(0, 90, deg, 5) << rad;
    QTest::newRow("log5 arcmin to deg") << BinSpec::preset("log5") << deg;
    QTest::newRow("log5 arcmin to rad") << BinSpec::preset("log5") << rad;
    QTest::newRow("log count arcsec to arcmin") << BinSpec::logCount(1, 3600, arcsec, 12) << arcmin;
    QTest::newRow("custom deg to arcsec") << BinSpec::fromEdges({0.1, 0.3, 1, 3}, deg) << arcsec;
    QTest::newRow("custom rad to deg")
        << BinSpec::fromEdges({0.001, 0.01, 0.1, kPiTest / 4}, rad) << deg;
}

void TestPanelFixes::unitChangeConvertsTheFields() {
    QFETCH(BinSpec, spec);
    QFETCH(AngleUnit, to);
    BinningPanel panel;
    panel.setSpec(spec);
    QVERIFY2(panel.isValid(), qPrintable(panel.problem()));
    const auto radiansBefore = panel.binning()->edgesRadians();
    const std::vector<double> before(radiansBefore.begin(), radiansBefore.end());
    QSignalSpy changed(&panel, &BinningPanel::changed);

    selectUnit(panel, to);
    QCOMPARE(changed.count(), 1);
    QVERIFY2(panel.isValid(), qPrintable(panel.problem()));
    const BinSpec shown = panel.spec();
    QCOMPARE(shown.unit, to);
    QCOMPARE(shown.scale, spec.scale);
    // Every angle field holds the same angle in the new unit; counts and bins per decade stay.
    const std::vector<double> original = angleFields(spec), converted = angleFields(shown);
    QCOMPARE(converted.size(), original.size());
    for (std::size_t k = 0; k < original.size(); ++k)
        QVERIFY2(near(converted[k], closedForm(original[k], spec.unit, to), 1e-14),
                 qPrintable(QStringLiteral("field %1: %2").arg(k).arg(converted[k], 0, 'g', 17)));
    QCOMPARE(shown.count, spec.count);
    QCOMPARE(shown.perDecade, spec.perDecade);
    // And so the bins themselves are the same angles on the sky.
    const auto radiansAfter = panel.binning()->edgesRadians();
    QCOMPARE(radiansAfter.size(), before.size());
    for (std::size_t k = 0; k < before.size(); ++k)
        QVERIFY(near(radiansAfter[k], before[k], 1e-14) ||
                (before[k] == 0 && radiansAfter[k] == 0));
    if (spec.scale != BinScale::Custom && to == AngleUnit::Radian) {
        // The spin boxes hold the converted value itself, not one rounded to 8 decimals (1e-6 rad
        // would keep two digits).
        QVERIFY(near(panel.minSpin()->value(), convertAngle(spec.min, spec.unit, to), 1e-15) ||
                spec.min == 0);
    }
}

void TestPanelFixes::unitRoundTripsAreExact_data() {
    QTest::addColumn<BinSpec>("spec");
    QTest::addColumn<QList<AngleUnit>>("path"); // units chosen in turn; back to the first at last
    const auto deg = AngleUnit::Degree, arcmin = AngleUnit::Arcminute,
               arcsec = AngleUnit::Arcsecond, rad = AngleUnit::Radian;
    const QList<AngleUnit> degArcminRad{arcmin, rad, deg};
    QTest::newRow("linear width deg: arcmin, rad, deg")
        << BinSpec::linearWidth(0, 90, deg, 2.5) << degArcminRad;
    QTest::newRow("log per decade deg: arcmin, rad, deg")
        << BinSpec::logPerDecade(0.01, 10, deg, 7) << degArcminRad;
    QTest::newRow("log5 arcmin: arcsec, deg, rad, arcmin")
        << BinSpec::preset("log5") << QList<AngleUnit>{arcsec, deg, rad, arcmin};
    QTest::newRow("custom 17-digit edges deg: arcmin, rad, deg")
        << BinSpec::fromEdges({1.0 / 3.0, 0.1 + 0.2, 2.718281828459045, 7}, deg) << degArcminRad;
    QTest::newRow("custom rad: deg, arcsec, rad")
        << BinSpec::fromEdges({1e-6, 1e-4, 0.01, 1}, rad) << QList<AngleUnit>{deg, arcsec, rad};
}

void TestPanelFixes::unitRoundTripsAreExact() {
    QFETCH(BinSpec, spec);
    QFETCH(QList<AngleUnit>, path);
    BinningPanel panel;
    panel.setSpec(spec);
    const QString presetBefore = panel.findChild<QComboBox*>()->currentText();
    const QString edgesTextBefore = panel.edgesEdit()->text();
    const QString minTextBefore = panel.minSpin()->text();
    for (AngleUnit unit : path) {
        selectUnit(panel, unit);
        // On the way, each unit shows the original angles, to 1e-12 at worst.
        const std::vector<double> original = angleFields(spec), shown = angleFields(panel.spec());
        QCOMPARE(shown.size(), original.size());
        for (std::size_t k = 0; k < original.size(); ++k)
            QVERIFY(near(shown[k], closedForm(original[k], spec.unit, unit), 1e-12));
    }
    QCOMPARE(path.last(), spec.unit);
    // Back in the first unit: the very same numbers and texts, so the preset name comes back.
    const BinSpec back = panel.spec();
    const std::vector<double> original = angleFields(spec), restored = angleFields(back);
    QCOMPARE(restored.size(), original.size());
    for (std::size_t k = 0; k < original.size(); ++k)
        QVERIFY2(sameBits(restored[k], original[k]), qPrintable(QStringLiteral("%1 came back as %2")
                                                                    .arg(original[k], 0, 'g', 17)
                                                                    .arg(restored[k], 0, 'g', 17)));
    QCOMPARE(panel.edgesEdit()->text(), edgesTextBefore);
    QCOMPARE(panel.minSpin()->text(), minTextBefore);
    QCOMPARE(panel.findChild<QComboBox*>()->currentText(), presetBefore);
}

void TestPanelFixes::editAfterUnitChangeConvertsFromThere() {
    BinningPanel panel;
    panel.setSpec(BinSpec::linearCount(0, 90, AngleUnit::Degree, 9));
    selectUnit(panel, AngleUnit::Arcminute);
    QCOMPARE(panel.maxSpin()->value(), 5400.0);
    // A value typed in arcmin is what the next conversion starts from.
    panel.maxSpin()->setValue(600);
    selectUnit(panel, AngleUnit::Degree);
    QCOMPARE(panel.spec().min, 0.0);
    QCOMPARE(panel.spec().max, 10.0);
    QCOMPARE(panel.spec().count, 9);
    selectUnit(panel, AngleUnit::Arcsecond);
    QCOMPARE(panel.spec().max, 36000.0);
    QVERIFY(panel.isValid());
}

void TestPanelFixes::regionColumnOffersTheCatalogColumns_data() {
    QTest::addColumn<QStringList>("choices");
    QTest::addColumn<int>("pick");      // ≥ 0: the list entry chosen
    QTest::addColumn<QString>("typed"); // else typed into the field
    QTest::addColumn<QString>("column");
    const QStringList columns{QStringLiteral("patch"), QStringLiteral("Z"),
                              QStringLiteral("FIELD_ID")};
    QTest::newRow("pick the first") << columns << 0 << QString() << QStringLiteral("patch");
    QTest::newRow("pick the last") << columns << 2 << QString() << QStringLiteral("FIELD_ID");
    QTest::newRow("type one not listed")
        << columns << -1 << QStringLiteral("REGION") << QStringLiteral("REGION");
    QTest::newRow("type a column number")
        << columns << -1 << QStringLiteral("4") << QStringLiteral("4");
    QTest::newRow("no list, typed")
        << QStringList{} << -1 << QStringLiteral("jk") << QStringLiteral("jk");
}

void TestPanelFixes::regionColumnOffersTheCatalogColumns() {
    QFETCH(QStringList, choices);
    QFETCH(int, pick);
    QFETCH(QString, typed);
    QFETCH(QString, column);
    ErrorsPanel panel;
    panel.methodCombo()->setCurrentIndex(
        panel.methodCombo()->findData(int(ErrorSettings::Method::Column)));
    panel.setRegionColumnChoices(choices);
    QComboBox* combo = panel.columnCombo();
    QVERIFY(combo->isEditable());
    QVERIFY(combo->isVisibleTo(&panel));
    QCOMPARE(panel.columnEdit(), combo->lineEdit());
    QCOMPARE(panel.regionColumnChoices(), choices);
    QCOMPARE(combo->count(), choices.size());
    QVERIFY(!panel.isValid()); // nothing chosen yet
    QSignalSpy changed(&panel, &ErrorsPanel::changed);
    if (pick >= 0) {
        combo->setCurrentIndex(pick);
    } else {
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        combo->setFocus();
        QTest::keyClicks(combo, typed);
        QTest::keyClick(combo, Qt::Key_Return);
    }
    QVERIFY(changed.count() >= 1);
    QCOMPARE(panel.settings().regionColumn, column);
    QVERIFY2(panel.isValid(), qPrintable(panel.problem()));
    QCOMPARE(combo->count(), choices.size()); // a typed name is not added to the list
    // A session brings its column back, listed or not.
    ErrorsPanel restored;
    restored.setRegionColumnChoices(choices);
    restored.setSettings(panel.settings());
    QCOMPARE(restored.settings().regionColumn, column);
}

void TestPanelFixes::regionChoicesKeepWhatWasTyped() {
    ErrorsPanel panel;
    panel.methodCombo()->setCurrentIndex(
        panel.methodCombo()->findData(int(ErrorSettings::Method::Column)));
    panel.setRegionColumnChoices({QStringLiteral("a"), QStringLiteral("b")});
    panel.columnEdit()->setText(QStringLiteral("later_fits_column"));
    QSignalSpy changed(&panel, &ErrorsPanel::changed);
    // New catalogs: another list; the name typed stays, and nothing changed for the window.
    panel.setRegionColumnChoices({QStringLiteral("patch"), QStringLiteral("z")});
    QCOMPARE(panel.settings().regionColumn, QStringLiteral("later_fits_column"));
    QCOMPARE(panel.regionColumnChoices(),
             (QStringList{QStringLiteral("patch"), QStringLiteral("z")}));
    panel.setRegionColumnChoices({});
    QCOMPARE(panel.settings().regionColumn, QStringLiteral("later_fits_column"));
    QCOMPARE(changed.count(), 0);
}

void TestPanelFixes::dataColumnNamesOfferTheOtherColumns_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("weightColumn"); // 1-based; 0: none
    QTest::addColumn<QStringList>("names");
    QTest::newRow("header: all but RA and Dec")
        << QByteArray("ra dec patch z\n10 20 1 0.5\n11 21 2 0.6\n") << 0
        << QStringList{QStringLiteral("patch"), QStringLiteral("z")};
    QTest::newRow("weights are no labels either")
        << QByteArray("RA_J2000 DEC_J2000 w FIELD\n10 20 1 3\n11 21 2 4\n") << 3
        << QStringList{QStringLiteral("FIELD")};
    QTest::newRow("no header: nothing to offer")
        << QByteArray("10 20 1\n11 21 2\n") << 0 << QStringList{};
}

void TestPanelFixes::dataColumnNamesOfferTheOtherColumns() {
    QFETCH(QByteArray, text);
    QFETCH(int, weightColumn);
    QFETCH(QStringList, names);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("data.txt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(text), text.size());
    file.close();
    CatalogSet set;
    QCOMPARE(set.dataColumnNames(), QStringList{}); // no data yet
    CatalogSource source{path};
    source.weightColumn = weightColumn;
    CatalogChange change;
    change.data = source;
    QSignalSpy applied(&set, &CatalogSet::changeApplied);
    QSignalSpy failed(&set, &CatalogSet::changeFailed);
    set.queueChange(change);
    QVERIFY(applied.wait(10000));
    QCOMPARE(failed.count(), 0);
    QCOMPARE(set.dataColumnNames(), names);
    // What the main window hands the Errors panel, the way it will.
    ErrorsPanel errors;
    errors.setRegionColumnChoices(set.dataColumnNames());
    QCOMPARE(errors.regionColumnChoices(), names);
    // The file gone: nothing to offer, and no error.
    QVERIFY(QFile::remove(path));
    QCOMPARE(set.dataColumnNames(), QStringList{});
}

void TestPanelFixes::nothingSquashedInTheRightColumn_data() {
    QTest::addColumn<bool>("scrolled");
    QTest::addColumn<bool>("runScrolled");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("method");
    const struct {
        const char* name;
        bool scrolled, runScrolled;
        QSize size;
    } holders[] = {{"plain docks, 1500x940", false, false, {1500, 940}},
                   {"scroll areas, 1500x940", true, true, {1500, 940}},
                   {"scroll areas, 1280x720", true, true, {1280, 720}},
                   {"settings scrolled, Run plain, 1280x720", true, false, {1280, 720}}};
    for (const auto& holder : holders) {
        QTest::addRow("%s, no errors", holder.name)
            << holder.scrolled << holder.runScrolled << holder.size
            << int(ErrorSettings::Method::None);
        QTest::addRow("%s, jackknife K", holder.name)
            << holder.scrolled << holder.runScrolled << holder.size
            << int(ErrorSettings::Method::Regions);
        QTest::addRow("%s, jackknife column", holder.name)
            << holder.scrolled << holder.runScrolled << holder.size
            << int(ErrorSettings::Method::Column);
    }
}

void TestPanelFixes::nothingSquashedInTheRightColumn() {
    QFETCH(bool, scrolled);
    QFETCH(bool, runScrolled);
    QFETCH(QSize, size);
    QFETCH(int, method);
    RightColumn column(scrolled, runScrolled, size);
    column.layOut();
    // The jackknife options appear while the window is shown, as when the user picks them.
    column.errors->methodCombo()->setCurrentIndex(column.errors->methodCombo()->findData(method));
    column.run->setRunState(QStringLiteral("Jackknife: enter the name of the region column, "
                                           "or choose K regions on the sky instead."),
                            false, false);
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QVERIFY2(
        column.window.width() <= size.width() && column.window.height() <= size.height(),
        qPrintable(QStringLiteral("%1x%2").arg(column.window.width()).arg(column.window.height())));
    QSpinBox* threads = column.backend->threadsSpin();
    QVERIFY2(threads->height() >= threads->minimumSizeHint().height(),
             qPrintable(describe(threads)));
    const QString squashed = firstSquashed(column.settings);
    QVERIFY2(squashed.isEmpty(), qPrintable(squashed));
    const QString clipped = firstSquashed(column.run);
    QVERIFY2(clipped.isEmpty(), qPrintable(clipped));
    if (!runScrolled) // the dock itself grew: the whole panel shows, the reason included
        QVERIFY2(column.run->height() >= column.run->contentHeightForWidth(column.run->width()),
                 qPrintable(describe(column.run)));
    // Narrower than the column: nothing hides past its right edge behind a horizontal scroll bar.
    for (const QScrollArea* scroll : column.window.findChildren<QScrollArea*>())
        QVERIFY2(!scroll->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("%1: %2 wide in %3")
                                .arg(describe(scroll->widget()))
                                .arg(scroll->widget()->minimumSizeHint().width())
                                .arg(scroll->viewport()->width())));
}

void TestPanelFixes::runMessagesWrapAndNeverClip_data() {
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("stale");
    QTest::addColumn<bool>("preparing");
    const QString longReason = QStringLiteral(
        "Bins: edge 3 (0.3 arcmin) is not greater than edge 2 (1 arcmin); fix the custom edges "
        "in the Binning panel, or choose a preset, before running.");
    QTest::newRow("short reason") << QStringLiteral("Load a data catalog.") << false << false;
    QTest::newRow("long reason") << longReason << false << false;
    QTest::newRow("long reason and stale") << longReason << true << false;
    QTest::newRow("preparing, stale") << QString() << true << true;
}

void TestPanelFixes::runMessagesWrapAndNeverClip() {
    QFETCH(QString, reason);
    QFETCH(bool, stale);
    QFETCH(bool, preparing);
    for (int width : {240, 320, 420}) {
        RunPanel panel;
        panel.resize(width, 10); // the minimum height decides
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setRunState(reason, false, false);
        panel.setStale(stale);
        if (preparing) {
            JobProgressUpdate update;
            update.preparing = true;
            update.elapsedSeconds = 3;
            panel.showProgress(update);
        }
        QCoreApplication::processEvents();
        panel.resize(width, panel.minimumHeight());
        QCoreApplication::processEvents();
        for (QLabel* label : {panel.statusLabel(), panel.reasonLabel(), panel.staleLabel()})
            QVERIFY2(label->wordWrap(), qPrintable(label->objectName()));
        QCOMPARE(panel.reasonLabel()->isVisible(), !reason.isEmpty());
        QCOMPARE(panel.staleLabel()->isVisible(), stale);
        // Each message has the lines it needs, inside the panel.
        const QString clipped = firstSquashed(&panel);
        QVERIFY2(clipped.isEmpty(), qPrintable(QStringLiteral("width %1: ").arg(width) + clipped));
        for (QLabel* label : {panel.statusLabel(), panel.reasonLabel(), panel.staleLabel()})
            if (label->isVisible())
                QVERIFY(panel.rect().contains(label->geometry()));
        QVERIFY(panel.minimumHeight() >= panel.contentHeightForWidth(width));
    }
}

void TestPanelFixes::resultTableShowsTenRowsWithRoom() {
    QStandardItemModel model(30, 10);
    for (int row = 0; row < 30; ++row)
        for (int column = 0; column < 10; ++column)
            model.setItem(row, column, new QStandardItem(QString::number(0.001 * row * column)));
    model.setHorizontalHeaderLabels(
        {QStringLiteral("theta_lo\n(arcmin)"), QStringLiteral("theta_hi\n(arcmin)")});
    ResultTableView view;
    view.setModel(&model);
    QVERIFY(view.sizeHint().height() >= view.heightForRows(ResultTableView::kPreferredRows));
    QVERIFY(view.minimumSizeHint().height() < view.sizeHint().height());
    view.resize(900, view.sizeHint().height());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // With its preferred height, ten whole rows show below the two-line header.
    const int lastRow = view.rowAt(view.viewport()->height() - 1);
    QVERIFY2(lastRow >= ResultTableView::kPreferredRows - 1, qPrintable(QString::number(lastRow)));
    QVERIFY(view.rowViewportPosition(9) + view.rowHeight(9) <= view.viewport()->height());
}

void TestPanelFixes::resultColumnsFitTheirContents() {
    QStandardItemModel model(5, 4);
    const QStringList texts{QStringLiteral("0.01"), QStringLiteral("123456789012"),
                            QStringLiteral("-0.000123456789"), QStringLiteral("0.5")};
    for (int row = 0; row < 5; ++row)
        for (int column = 0; column < 4; ++column)
            model.setItem(row, column, new QStandardItem(texts[column]));
    ResultTableView view;
    view.setModel(&model);
    view.resize(1200, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QHeaderView* header = view.horizontalHeader();
    QVERIFY(header->stretchLastSection());
    const int floor = view.fontMetrics().horizontalAdvance(QStringLiteral("-0.000123457"));
    for (int column = 0; column < 3; ++column) {
        // Wide enough for its numbers and its header; a short one ("0.01") as wide as a full
        // number, so that the columns look even.
        const QFontMetrics metrics(view.font());
        const int text = metrics.horizontalAdvance(model.item(0, column)->text());
        QVERIFY(view.columnWidth(column) > text);
        QVERIFY(view.columnWidth(column) >= header->sectionSizeHint(column));
        QVERIFY(view.columnWidth(column) >= floor);
    }
    QVERIFY(view.columnWidth(2) > view.columnWidth(0)); // a wider number still gets its width
    // The last column takes the rest of the row.
    int total = 0;
    for (int column = 0; column < 4; ++column)
        total += view.columnWidth(column);
    QCOMPARE(total, view.viewport()->width());
}

void TestPanelFixes::tabLeavesTheResultTable_data() {
    QTest::addColumn<int>("key");
    QTest::addColumn<QString>("focused"); // the widget with focus after the key
    QTest::addColumn<int>("row");         // and the current cell then
    QTest::addColumn<int>("column");
    QTest::newRow("Tab: the next control") << int(Qt::Key_Tab) << QStringLiteral("after") << 1 << 1;
    QTest::newRow("Shift+Tab: the one before")
        << int(Qt::Key_Backtab) << QStringLiteral("before") << 1 << 1;
    QTest::newRow("Right: the next cell")
        << int(Qt::Key_Right) << QStringLiteral("table") << 1 << 2;
    QTest::newRow("Down: the cell below") << int(Qt::Key_Down) << QStringLiteral("table") << 2 << 1;
    QTest::newRow("Left: the cell before")
        << int(Qt::Key_Left) << QStringLiteral("table") << 1 << 0;
}

void TestPanelFixes::tabLeavesTheResultTable() {
    QFETCH(int, key);
    QFETCH(QString, focused);
    QFETCH(int, row);
    QFETCH(int, column);
    QWidget window;
    auto* before = new QLineEdit(&window);
    before->setObjectName(QStringLiteral("before"));
    auto* table = new ResultTableView(&window);
    table->setObjectName(QStringLiteral("table"));
    auto* after = new QPushButton(QStringLiteral("Export"), &window);
    after->setObjectName(QStringLiteral("after"));
    auto* layout = new QVBoxLayout(&window);
    layout->addWidget(before);
    layout->addWidget(table);
    layout->addWidget(after);
    QStandardItemModel model(4, 4);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            model.setItem(r, c, new QStandardItem(QString::number(r * 4 + c)));
    table->setModel(&model);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    table->setFocus();
    table->setCurrentIndex(model.index(1, 1));
    QCOMPARE(QApplication::focusWidget(), table);
    QTest::keyClick(table, Qt::Key(key),
                    key == Qt::Key_Backtab ? Qt::ShiftModifier : Qt::NoModifier);
    QVERIFY(QApplication::focusWidget());
    QCOMPARE(QApplication::focusWidget()->objectName(), focused);
    QCOMPARE(table->currentIndex().row(), row);
    QCOMPARE(table->currentIndex().column(), column);
    QVERIFY(!table->tabKeyNavigation());
}

TPACF_TEST_MAIN(TestPanelFixes)
#include "test_panel_fixes.moc"
