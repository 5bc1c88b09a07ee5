// SPDX-License-Identifier: GPL-3.0-or-later
// The unit suggested from coordinate ranges: one row per kind of file (degrees, radians with
// either RA convention, arcmin and arcsec with Dec beyond 90 or RA beyond 360, RA in hours, no
// unit at all), the exact edges of each range, rows with NaN left out; and the ranges of a
// catalog read back through the readers, so that a file in radians read as degrees is told.
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"
#include "tpacf/unit_guess.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

using tpacf::AngleUnit;
using tpacf::CoordinateRanges;
using tpacf::CoordinateUnits;
using tpacf::guessCoordinateUnits;
using tpacf::kPi;
using tpacf::UnitConfidence;

Q_DECLARE_METATYPE(tpacf::AngleUnit)
Q_DECLARE_METATYPE(tpacf::UnitConfidence)

namespace {

using Values = std::vector<double>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void writeText(const QString& path, const std::string& text) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << text;
}

} // namespace

class TestUnitGuess : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void guessFromRanges_data();
    void guessFromRanges();
    void rangesLeaveOutNonFinite();
    void differsOnlyFromAStrongSuggestion();
    void catalogRangesAreTheFileValues_data();
    void catalogRangesAreTheFileValues();
    void arcminFileFailsAsDegreesAndIsGuessed();
    void radianFileReadAsDegreesIsTold();
};

void TestUnitGuess::guessFromRanges_data() {
    QTest::addColumn<Values>("ra");
    QTest::addColumn<Values>("dec");
    QTest::addColumn<AngleUnit>("unit");
    QTest::addColumn<bool>("raInHours");
    QTest::addColumn<UnitConfidence>("confidence");
    QTest::addColumn<QString>("reasonPart"); // "" : the reason must be empty

    const auto row = [](const char* name, Values ra, Values dec, AngleUnit unit, bool hours,
                        UnitConfidence confidence, const char* reason) {
        QTest::newRow(name) << ra << dec << unit << hours << confidence
                            << QString::fromUtf8(reason);
    };
    using C = UnitConfidence;
    // Degrees: the bundled sample's box, a full sky, a field beyond RA 24 near the pole.
    row("degrees box", {150, 170, 190}, {0, 20, 40}, AngleUnit::Degree, false, C::None, "");
    row("degrees full sky", {0, 359.9}, {-90, 90}, AngleUnit::Degree, false, C::None, "");
    row("degrees negative RA", {-179, 179}, {-30, 30}, AngleUnit::Degree, false, C::None, "");
    row("degrees Dec beyond pi/2", {25, 30}, {1, 1.6}, AngleUnit::Degree, false, C::None, "");
    // Radians: RA in [0, 2π] or [−π, π], every |Dec| ≤ π/2; the edges themselves included.
    row("radians", {0.1, 3.0, 6.2}, {-1.2, 0.4, 1.5}, AngleUnit::Radian, false, C::Suggested,
        "all |Dec| ≤ π/2 and RA within [0, 2π]: radians?");
    row("radians signed RA", {-3.1, 3.1}, {-0.5, 0.5}, AngleUnit::Radian, false, C::Suggested,
        "RA within [−π, 2π]");
    row("radians at the edges", {0, 2 * kPi}, {-0.5 * kPi, 0.5 * kPi}, AngleUnit::Radian, false,
        C::Suggested, "radians?");
    row("just beyond 2 pi", {0, 2 * kPi * (1 + 1e-12)}, {0, 1}, AngleUnit::Degree, true,
        C::Possible, "hours?");
    // Arcmin: |Dec| beyond 90 (the headerless file), or RA beyond 360 near the equator.
    row("arcmin Dec beyond 90", {9000, 11400}, {0, 960.6}, AngleUnit::Arcminute, false, C::Required,
        "|Dec| up to 960.6 is beyond 90 but within 5400: arcmin?");
    row("arcmin just beyond 90", {10, 20}, {-90.0001, 3}, AngleUnit::Arcminute, false, C::Required,
        "arcmin?");
    row("arcmin Dec at 5400", {0, 21600}, {-5400, 5400}, AngleUnit::Arcminute, false, C::Required,
        "arcmin?");
    row("arcmin RA beyond 360", {600, 1200}, {-60, 60}, AngleUnit::Arcminute, false, C::Required,
        "RA up to 1200 is beyond 360 but within 21600: arcmin?");
    // Arcsec: beyond the arcmin limits, within 324000 (Dec) and 1296000 (RA).
    row("arcsec", {540000, 600000}, {36000, 72000}, AngleUnit::Arcsecond, false, C::Required,
        "|Dec| up to 72000 is beyond 5400 but within 324000: arcsec?");
    row("arcsec Dec just beyond 5400", {100, 200}, {5400.5, 0}, AngleUnit::Arcsecond, false,
        C::Required, "arcsec?");
    row("arcsec RA beyond 21600", {30000, 40000}, {-10, 10}, AngleUnit::Arcsecond, false,
        C::Required, "RA up to 40000 is beyond 21600 but within 1296000: arcsec?");
    // RA in hours: only possible, as a field in degrees at RA < 24 looks the same.
    row("hours", {8, 12.5, 16}, {-30, 60}, AngleUnit::Degree, true, C::Possible,
        "all RA within [0, 24]: RA in hours?");
    row("hours at 24", {6.5, 24}, {2, 3}, AngleUnit::Degree, true, C::Possible, "hours?");
    row("RA just beyond 24", {6.5, 24.001}, {2, 3}, AngleUnit::Degree, false, C::None, "");
    // No unit fits: the caller keeps what it has and says why.
    row("no unit fits Dec", {0, 10}, {4e7, 0}, AngleUnit::Degree, false, C::None,
        "|Dec| up to 4e+07 fits no angle unit");
    row("no unit fits RA", {0, 2e6}, {0, 10}, AngleUnit::Degree, false, C::None,
        "RA up to 2e+06 fits no angle unit");
    row("no values", {}, {}, AngleUnit::Degree, false, C::None, "");
}

void TestUnitGuess::guessFromRanges() {
    QFETCH(Values, ra);
    QFETCH(Values, dec);
    QFETCH(AngleUnit, unit);
    QFETCH(bool, raInHours);
    QFETCH(UnitConfidence, confidence);
    QFETCH(QString, reasonPart);
    const auto guess = guessCoordinateUnits(CoordinateRanges::of(ra, dec));
    QCOMPARE(guess.units.unit, unit);
    QCOMPARE(guess.units.raInHours, raInHours);
    QCOMPARE(guess.confidence, confidence);
    const QString reason = QString::fromStdString(guess.reason);
    if (reasonPart.isEmpty())
        QVERIFY2(reason.isEmpty(), qPrintable(reason));
    else
        QVERIFY2(reason.contains(reasonPart), qPrintable(reason));
}

void TestUnitGuess::rangesLeaveOutNonFinite() {
    const Values ra{kNaN, 10, 20, std::numeric_limits<double>::infinity(), 30};
    const Values dec{5, -70, kNaN, 1, 40};
    const CoordinateRanges ranges = CoordinateRanges::of(ra, dec);
    QCOMPARE(ranges.count, std::size_t(2)); // rows 2 and 5
    QCOMPARE(ranges.raMin, 10.0);
    QCOMPARE(ranges.raMax, 30.0);
    QCOMPARE(ranges.decAbsMax, 70.0);
    // Only NaN: nothing to go by.
    const CoordinateRanges none = CoordinateRanges::of(Values{kNaN}, Values{kNaN});
    QCOMPARE(none.count, std::size_t(0));
    QCOMPARE(guessCoordinateUnits(none).confidence, UnitConfidence::None);
}

void TestUnitGuess::differsOnlyFromAStrongSuggestion() {
    const CoordinateUnits degrees{};
    const CoordinateUnits radians{AngleUnit::Radian, false};
    const CoordinateUnits hours{AngleUnit::Degree, true};
    const auto radianGuess = guessCoordinateUnits(CoordinateRanges::of(Values{1, 2}, Values{0, 1}));
    QVERIFY(radianGuess.differsFrom(degrees));
    QVERIFY(!radianGuess.differsFrom(radians));
    // A possible "hours?" never overrides what was chosen.
    const auto hoursGuess =
        guessCoordinateUnits(CoordinateRanges::of(Values{8, 16}, Values{0, 60}));
    QCOMPARE(hoursGuess.confidence, UnitConfidence::Possible);
    QVERIFY(!hoursGuess.differsFrom(degrees));
    QVERIFY(!hoursGuess.differsFrom(hours));
    const auto arcminGuess =
        guessCoordinateUnits(CoordinateRanges::of(Values{100, 200}, Values{0, 960.6}));
    QVERIFY(arcminGuess.differsFrom(degrees));
    QVERIFY(arcminGuess.differsFrom(radians));
    QVERIFY(!arcminGuess.differsFrom({AngleUnit::Arcminute, false}));
    QCOMPARE(hours.describe(), std::string("RA in hours, Dec in deg"));
    QCOMPARE(radians.describe(), std::string("rad"));
}

void TestUnitGuess::catalogRangesAreTheFileValues_data() {
    QTest::addColumn<AngleUnit>("unit");
    QTest::addColumn<bool>("raInHours");
    QTest::newRow("deg") << AngleUnit::Degree << false;
    QTest::newRow("arcmin") << AngleUnit::Arcminute << false;
    QTest::newRow("arcsec") << AngleUnit::Arcsecond << false;
    QTest::newRow("rad") << AngleUnit::Radian << false;
    QTest::newRow("hours") << AngleUnit::Degree << true;
}

void TestUnitGuess::catalogRangesAreTheFileValues() {
    QFETCH(AngleUnit, unit);
    QFETCH(bool, raInHours);
    // A box of 10°–40° × −20°–35° written in the unit, then read in it: the ranges of the
    // catalog, converted back, are the written extremes (to rounding).
    const double degree = kPi / 180.0;
    const double decPer = tpacf::radiansPer(unit);
    const double raPer = raInHours ? 15 * degree : decPer;
    const Values raDeg{10, 25, 40};
    const Values decDeg{-20, 5, 35};
    std::string text;
    for (std::size_t i = 0; i < raDeg.size(); ++i) {
        char line[96];
        std::snprintf(line, sizeof line, "%.17g %.17g\n", raDeg[i] * degree / raPer,
                      decDeg[i] * degree / decPer);
        text += line;
    }
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("box.txt"));
    writeText(path, text);
    tpacf::ReadOptions options;
    options.coordUnit = unit;
    options.raInHours = raInHours;
    const tpacf::Catalog catalog = tpacf::readCatalog(path.toStdString(), options);
    const CoordinateRanges ranges = CoordinateRanges::of(catalog, {unit, raInHours});
    QCOMPARE(ranges.count, std::size_t(3));
    const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
    QVERIFY2(close(ranges.raMin, 10 * degree / raPer), qPrintable(QString::number(ranges.raMin)));
    QVERIFY2(close(ranges.raMax, 40 * degree / raPer), qPrintable(QString::number(ranges.raMax)));
    QVERIFY(close(ranges.decAbsMax, 35 * degree / decPer));
    // Every such box read in its own unit is consistent with the guess.
    QVERIFY(!guessCoordinateUnits(ranges).differsFrom({unit, raInHours}));
}

void TestUnitGuess::arcminFileFailsAsDegreesAndIsGuessed() {
    // The file: headerless, two columns, in arcminutes.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("arcmin.txt"));
    writeText(path, "9000.0 0.5\n9600.25 480.0\n10800 960.6\n");
    bool refused = false;
    try {
        (void)tpacf::readCatalog(path.toStdString());
    } catch (const tpacf::InputError& error) {
        refused = QString::fromStdString(error.problem())
                      .contains(QStringLiteral("480.0 deg is outside [-90, 90]"));
    }
    QVERIFY(refused);
    const tpacf::TablePreview preview = tpacf::previewCatalogFile(path.toStdString());
    Values ra, dec;
    for (const auto& fields : preview.rows) {
        ra.push_back(std::stod(fields.at(0)));
        dec.push_back(std::stod(fields.at(1)));
    }
    const auto guess = guessCoordinateUnits(CoordinateRanges::of(ra, dec));
    QCOMPARE(guess.units.unit, AngleUnit::Arcminute);
    QCOMPARE(guess.confidence, UnitConfidence::Required);
    // Read in the suggested unit, the file loads and is consistent with the suggestion.
    tpacf::ReadOptions options;
    options.coordUnit = guess.units.unit;
    const tpacf::Catalog catalog = tpacf::readCatalog(path.toStdString(), options);
    QCOMPARE(catalog.size(), std::size_t(3));
    QVERIFY(
        !guessCoordinateUnits(CoordinateRanges::of(catalog, guess.units)).differsFrom(guess.units));
}

void TestUnitGuess::radianFileReadAsDegreesIsTold() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("radians.txt"));
    writeText(path, "0.5 -0.3\n2.6 0.7\n5.9 1.2\n");
    // The reader takes it as degrees without a word (a 5.4° × 1.5° field)...
    const tpacf::Catalog catalog = tpacf::readCatalog(path.toStdString());
    const CoordinateUnits used{};
    // ...and the catalog's ranges, read back in degrees, say radians.
    const auto guess = guessCoordinateUnits(CoordinateRanges::of(catalog, used));
    QCOMPARE(guess.units.unit, AngleUnit::Radian);
    QVERIFY(guess.differsFrom(used));
}

TPACF_TEST_MAIN(TestUnitGuess)
#include "test_unit_guess.moc"
