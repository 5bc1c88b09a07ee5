// SPDX-License-Identifier: GPL-3.0-or-later
// BinSpec and Binning: edges and centres against closed forms, presets, every validation
// error, and the c² lookup every backend relies on; custom edges and the edges-file parser.
#include "tpacf/bins.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinScale;
using tpacf::BinSpec;

Q_DECLARE_METATYPE(tpacf::AngleUnit)
Q_DECLARE_METATYPE(tpacf::BinScale)

namespace {

bool closeRel(double a, double b, double rel = 1e-13) {
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

// Independent of chord2OfAngle: 2 − 2 cos θ is well conditioned above ~0.1 rad, and the
// Taylor series θ² − θ⁴/12 + θ⁶/360 is accurate to 1e-16 relative below 1e-3 rad.
double referenceChord2(double theta) {
    if (theta < 1e-3) {
        const double t2 = theta * theta;
        return t2 - t2 * t2 / 12.0 + t2 * t2 * t2 / 360.0;
    }
    const long double c = std::cos(static_cast<long double>(theta));
    return static_cast<double>(2.0L - 2.0L * c);
}

std::vector<double> toVector(const QList<double>& list) {
    return {list.begin(), list.end()};
}

// Bit for bit, so that -0.0 vs 0.0 or a last-digit rounding cannot pass as equal.
bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Degrees per unit, written out here rather than taken from units.h.
double radiansPerUnit(AngleUnit unit) {
    switch (unit) {
    case AngleUnit::Degree:
        return M_PI / 180.0;
    case AngleUnit::Arcminute:
        return M_PI / (180.0 * 60.0);
    case AngleUnit::Arcsecond:
        return M_PI / (180.0 * 3600.0);
    case AngleUnit::Radian:
        return 1.0;
    }
    return 1.0;
}

} // namespace

class TestBins : public QObject {
    Q_OBJECT

private slots:
    void logPerDecade_data();
    void logPerDecade();
    void logCount_data();
    void logCount();
    void linearWidth_data();
    void linearWidth();
    void linearCount_data();
    void linearCount();
    void edgesRadians();
    void presets();
    void unknownPreset();
    void describe_data();
    void describe();
    void validationErrors_data();
    void validationErrors();
    void acceptedLimits_data();
    void acceptedLimits();
    void binOfChord2AtEdges_data();
    void binOfChord2AtEdges();
    void binOfChord2Outside();
    void chord2Closed_data();
    void chord2Closed();
    void chord2MatchesVectors();
    void chord2Monotonic();
    void scaleKeys();
    void fromEdges_data();
    void fromEdges();
    void customIgnoresOtherFields();
    void customDescribe();
    void customRejects_data();
    void customRejects();
    void customAcceptedLimits_data();
    void customAcceptedLimits();
    void parseEdgesText_data();
    void parseEdgesText();
    void parseEdgesTextErrors_data();
    void parseEdgesTextErrors();
    void parseEdgesTextWithUnit();
};

void TestBins::logPerDecade_data() {
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<double>("perDecade");
    QTest::addColumn<int>("expectedCount");
    // Counts by hand: decades × perDecade, rounded up.
    QTest::newRow("parboil 1-10^4, 5/dec") << 1.0 << 10000.0 << 5.0 << 20;
    QTest::newRow("log5 range") << 0.01 << 10000.0 << 5.0 << 30;
    QTest::newRow("3/dec over 6 decades") << 0.01 << 10000.0 << 3.0 << 18;
    QTest::newRow("1/dec 0.1-100") << 0.1 << 100.0 << 1.0 << 3;
    QTest::newRow("non-dividing 1-500, 2/dec") << 1.0 << 500.0 << 2.0 << 6; // 5.398 → 6
    QTest::newRow("fractional 2.5/dec 1-100") << 1.0 << 100.0 << 2.5 << 5;
}

void TestBins::logPerDecade() {
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(double, perDecade);
    QFETCH(int, expectedCount);
    const Binning binning(BinSpec::logPerDecade(min, max, AngleUnit::Arcminute, perDecade));
    QCOMPARE(binning.count(), std::size_t(expectedCount));
    const auto edges = binning.edges();
    QCOMPARE(edges.size(), std::size_t(expectedCount + 1));
    QCOMPARE(edges.front(), min);
    QCOMPARE(edges.back(), max); // exact by contract
    for (int k = 0; k < expectedCount; ++k) {
        const long double expected =
            min * std::exp(static_cast<long double>(k) / perDecade * std::log(10.0L));
        QVERIFY2(closeRel(edges[k], static_cast<double>(expected)), qPrintable(QString::number(k)));
    }
    const auto centres = binning.centres();
    QCOMPARE(centres.size(), std::size_t(expectedCount));
    for (int k = 0; k < expectedCount; ++k) {
        const double expected = std::sqrt(edges[k] * edges[k + 1]);
        QVERIFY(closeRel(centres[k], expected));
        QVERIFY(edges[k] < centres[k] && centres[k] < edges[k + 1]);
    }
    // Full bins have their geometric centre half a step up in log.
    if (expectedCount >= 2)
        QVERIFY(closeRel(centres[0], min * std::pow(10.0, 0.5 / perDecade), 1e-12));
}

void TestBins::logCount_data() {
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<int>("count");
    QTest::newRow("1-100 in 4") << 1.0 << 100.0 << 4;
    QTest::newRow("0.5-50 in 7") << 0.5 << 50.0 << 7;
    QTest::newRow("one bin") << 2.0 << 3.0 << 1;
}

void TestBins::logCount() {
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(int, count);
    const Binning binning(BinSpec::logCount(min, max, AngleUnit::Degree, count));
    QCOMPARE(binning.count(), std::size_t(count));
    const auto edges = binning.edges();
    QCOMPARE(edges.back(), max);
    const double ratio = std::log(max / min) / count;
    for (int k = 0; k <= count; ++k)
        QVERIFY(closeRel(edges[k], min * std::exp(ratio * k), 1e-12));
    for (int k = 0; k < count; ++k)
        QVERIFY(closeRel(binning.centres()[k], min * std::exp(ratio * (k + 0.5)), 1e-12));
}

void TestBins::linearWidth_data() {
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<double>("width");
    QTest::addColumn<int>("expectedCount");
    QTest::newRow("quarter degree") << 0.0 << 90.0 << 0.25 << 360;
    QTest::newRow("1 deg from 10") << 10.0 << 20.0 << 1.0 << 10;
    QTest::newRow("width not dividing") << 0.0 << 1.0 << 0.3 << 4; // 0, .3, .6, .9, 1
    QTest::newRow("0.1 steps") << 0.0 << 1.0 << 0.1 << 10;
}

void TestBins::linearWidth() {
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(double, width);
    QFETCH(int, expectedCount);
    const Binning binning(BinSpec::linearWidth(min, max, AngleUnit::Degree, width));
    QCOMPARE(binning.count(), std::size_t(expectedCount));
    const auto edges = binning.edges();
    QCOMPARE(edges.back(), max);
    for (int k = 0; k < expectedCount; ++k)
        QVERIFY(std::abs(edges[k] - (min + k * width)) <= 1e-12 * max);
    for (int k = 0; k < expectedCount; ++k) {
        QVERIFY(edges[k] < edges[k + 1]);
        QVERIFY(closeRel(binning.centres()[k], 0.5 * (edges[k] + edges[k + 1])));
    }
}

void TestBins::linearCount_data() {
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<int>("count");
    QTest::newRow("0-10 in 4") << 0.0 << 10.0 << 4;
    QTest::newRow("5-180 in 7") << 5.0 << 180.0 << 7;
}

void TestBins::linearCount() {
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(int, count);
    const Binning binning(BinSpec::linearCount(min, max, AngleUnit::Degree, count));
    QCOMPARE(binning.count(), std::size_t(count));
    const double step = (max - min) / count;
    for (int k = 0; k <= count; ++k)
        QVERIFY(std::abs(binning.edges()[k] - (min + k * step)) <= 1e-12 * max);
    QCOMPARE(binning.edges().back(), max);
    for (int k = 0; k < count; ++k)
        QVERIFY(std::abs(binning.centres()[k] - (min + (k + 0.5) * step)) <= 1e-12 * max);
}

void TestBins::edgesRadians() {
    const Binning arcmin(BinSpec::logPerDecade(1.0, 10000.0, AngleUnit::Arcminute, 5.0));
    for (std::size_t k = 0; k < arcmin.edges().size(); ++k)
        QVERIFY(closeRel(arcmin.edgesRadians()[k], arcmin.edges()[k] / 60.0 * M_PI / 180.0));
    const Binning arcsec(BinSpec::linearCount(0.0, 3600.0, AngleUnit::Arcsecond, 4));
    QVERIFY(closeRel(arcsec.edgesRadians().back(), M_PI / 180.0));
    const Binning rad(BinSpec::linearCount(0.0, 1.0, AngleUnit::Radian, 4));
    QCOMPARE(rad.edgesRadians()[2], 0.5);
}

void TestBins::presets() {
    const QStringList names = [] {
        QStringList list;
        for (const std::string& name : BinSpec::presetNames())
            list << QString::fromStdString(name);
        return list;
    }();
    QVERIFY(names.contains(QStringLiteral("quarter-degree")));
    QVERIFY(names.contains(QStringLiteral("log5")));

    const Binning quarter(BinSpec::preset("quarter-degree"));
    QCOMPARE(quarter.spec().scale, BinScale::Linear);
    QCOMPARE(quarter.unit(), AngleUnit::Degree);
    QCOMPARE(quarter.count(), std::size_t(360)); // 90 / 0.25
    QCOMPARE(quarter.edges().front(), 0.0);
    QCOMPARE(quarter.edges().back(), 90.0);

    const Binning log5(BinSpec::preset("log5"));
    QCOMPARE(log5.spec().scale, BinScale::Logarithmic);
    QCOMPARE(log5.unit(), AngleUnit::Arcminute);
    QCOMPARE(log5.count(), std::size_t(30)); // 6 decades × 5
    QCOMPARE(log5.edges().front(), 0.01);
    QCOMPARE(log5.edges().back(), 10000.0);
    QVERIFY(closeRel(log5.edges()[5], 0.1, 1e-14));
    QVERIFY(closeRel(log5.edges()[15], 10.0, 1e-14));

    for (const std::string& name : BinSpec::presetNames())
        QVERIFY(Binning(BinSpec::preset(name)).count() > 0);

    // A default BinSpec is the log5 preset.
    const Binning defaults{BinSpec{}};
    QCOMPARE(defaults.count(), std::size_t(30));
    QCOMPARE(defaults.edges().front(), 0.01);
}

void TestBins::unknownPreset() {
    try {
        (void)BinSpec::preset("quarterdegree");
        QFAIL("expected ConfigError");
    } catch (const tpacf::ConfigError& e) {
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(QStringLiteral("'quarterdegree'")), e.what());
        QVERIFY2(message.contains(QStringLiteral("log5")), e.what());
    }
}

void TestBins::describe_data() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("expected");
    QTest::newRow("log5") << "log5"
                          << "log, 0.01-10000 arcmin, 5 per decade";
    QTest::newRow("quarter-degree") << "quarter-degree"
                                    << "linear, 0-90 deg, width 0.25";
}

void TestBins::describe() {
    QFETCH(QString, preset);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(BinSpec::preset(preset.toStdString()).describe()), expected);
    QCOMPARE(QString::fromStdString(BinSpec::linearCount(0, 2, AngleUnit::Radian, 8).describe()),
             QStringLiteral("linear, 0-2 rad, 8 bins"));
    QCOMPARE(QString::fromStdString(BinSpec::logCount(1, 100, AngleUnit::Arcsecond, 4).describe()),
             QStringLiteral("log, 1-100 arcsec, 4 bins"));
}

void TestBins::validationErrors_data() {
    QTest::addColumn<BinScale>("scale");
    QTest::addColumn<AngleUnit>("unit");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<double>("perDecade");
    QTest::addColumn<int>("count");
    QTest::addColumn<double>("width");
    QTest::addColumn<QString>("mentions"); // the offending value or the reason

    const auto log = BinScale::Logarithmic;
    const auto lin = BinScale::Linear;
    const auto deg = AngleUnit::Degree;
    const auto arcmin = AngleUnit::Arcminute;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("log min 0") << log << arcmin << 0.0 << 10.0 << 5.0 << 0 << 0.0 << "min 0";
    QTest::newRow("log min negative") << log << arcmin << -1.0 << 10.0 << 5.0 << 0 << 0.0 << "-1";
    QTest::newRow("linear min negative") << lin << deg << -0.5 << 10.0 << 0.0 << 4 << 0.0 << "-0.5";
    QTest::newRow("max equals min") << lin << deg << 3.0 << 3.0 << 0.0 << 4 << 0.0 << "max 3";
    QTest::newRow("max below min") << log << deg << 3.0 << 2.0 << 0.0 << 4 << 0.0 << "max 2";
    QTest::newRow("max above 180 deg") << lin << deg << 0.0 << 180.5 << 0.0 << 4 << 0.0 << "180.5";
    QTest::newRow("max above 180 deg in arcmin")
        << log << arcmin << 1.0 << 10801.0 << 5.0 << 0 << 0.0 << "10801";
    QTest::newRow("max above pi rad")
        << lin << AngleUnit::Radian << 0.0 << 3.2 << 0.0 << 4 << 0.0 << "3.2";
    QTest::newRow("max above 180 deg in arcsec")
        << lin << AngleUnit::Arcsecond << 0.0 << 648001.0 << 0.0 << 4 << 0.0 << "648001";
    QTest::newRow("nan min") << log << arcmin << nan << 10.0 << 5.0 << 0 << 0.0 << "not finite";
    QTest::newRow("inf max") << lin << deg << 0.0 << inf << 0.0 << 4 << 0.0 << "not finite";
    QTest::newRow("nan per decade")
        << log << arcmin << 1.0 << 10.0 << nan << 0 << 0.0 << "not finite";
    QTest::newRow("nan width") << lin << deg << 0.0 << 10.0 << 0.0 << 0 << nan << "not finite";
    QTest::newRow("log nothing chosen")
        << log << arcmin << 1.0 << 10.0 << 0.0 << 0 << 0.0 << "count is 0";
    QTest::newRow("linear nothing chosen")
        << lin << deg << 0.0 << 10.0 << 0.0 << 0 << 0.0 << "count is 0";
    QTest::newRow("per decade and count")
        << log << arcmin << 1.0 << 10.0 << 5.0 << 4 << 0.0 << "exactly one";
    QTest::newRow("count and width")
        << lin << deg << 0.0 << 10.0 << 0.0 << 4 << 1.0 << "exactly one";
    QTest::newRow("per decade on linear")
        << lin << deg << 0.0 << 10.0 << 5.0 << 0 << 0.0 << "only applies to log";
    QTest::newRow("width on log") << log << arcmin << 1.0 << 10.0 << 0.0 << 0 << 1.0
                                  << "only applies to linear";
    QTest::newRow("count above limit")
        << lin << deg << 0.0 << 10.0 << 0.0 << 10001 << 0.0 << "10001";
    QTest::newRow("negative count") << lin << deg << 0.0 << 10.0 << 0.0 << -3 << 0.0 << "-3";
    QTest::newRow("negative width") << lin << deg << 0.0 << 10.0 << 0.0 << 0 << -1.0 << "-1";
    QTest::newRow("negative per decade")
        << log << arcmin << 1.0 << 10.0 << -2.0 << 0 << 0.0 << "-2";
    QTest::newRow("width gives too many bins")
        << lin << deg << 0.0 << 90.0 << 0.0 << 0 << 1e-3 << "90000 bins";
    QTest::newRow("per decade gives too many bins")
        << log << arcmin << 0.001 << 10000.0 << 2000.0 << 0 << 0.0 << "14000 bins";
}

void TestBins::validationErrors() {
    QFETCH(BinScale, scale);
    QFETCH(AngleUnit, unit);
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(double, perDecade);
    QFETCH(int, count);
    QFETCH(double, width);
    QFETCH(QString, mentions);
    BinSpec spec;
    spec.scale = scale;
    spec.unit = unit;
    spec.min = min;
    spec.max = max;
    spec.perDecade = perDecade;
    spec.count = count;
    spec.width = width;
    try {
        const Binning binning(spec);
        QFAIL(qPrintable(QStringLiteral("accepted, %1 bins").arg(binning.count())));
    } catch (const tpacf::ConfigError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(mentions), e.what());
    }
}

void TestBins::acceptedLimits_data() {
    QTest::addColumn<AngleUnit>("unit");
    QTest::addColumn<double>("max");
    QTest::addColumn<int>("count");
    QTest::newRow("180 deg") << AngleUnit::Degree << 180.0 << 10;
    QTest::newRow("10800 arcmin") << AngleUnit::Arcminute << 10800.0 << 10;
    QTest::newRow("648000 arcsec") << AngleUnit::Arcsecond << 648000.0 << 10;
    QTest::newRow("pi rad") << AngleUnit::Radian << M_PI << 10;
    QTest::newRow("10000 bins") << AngleUnit::Degree << 90.0 << 10000;
}

void TestBins::acceptedLimits() {
    QFETCH(AngleUnit, unit);
    QFETCH(double, max);
    QFETCH(int, count);
    const Binning binning(BinSpec::linearCount(0.0, max, unit, count));
    QCOMPARE(binning.count(), std::size_t(count));
    QCOMPARE(binning.edges().back(), max);
}

void TestBins::binOfChord2AtEdges_data() {
    QTest::addColumn<QString>("preset");
    QTest::newRow("log5") << "log5";
    QTest::newRow("quarter-degree") << "quarter-degree";
}

void TestBins::binOfChord2AtEdges() {
    QFETCH(QString, preset);
    const Binning binning(BinSpec::preset(preset.toStdString()));
    const auto c2 = binning.chord2Edges();
    const int count = static_cast<int>(binning.count());
    for (int k = 0; k < count; ++k) {
        // Exactly on edge k belongs to bin k; one ulp below belongs to the bin under it.
        QCOMPARE(binning.binOfChord2(c2[k]), k);
        const double below = std::nextafter(c2[k], -1.0);
        QCOMPARE(binning.binOfChord2(below), k - 1);
        const double mid = 0.5 * (c2[k] + c2[k + 1]);
        QCOMPARE(binning.binOfChord2(mid), k);
    }
    QCOMPARE(binning.binOfChord2(std::nextafter(c2[count], 0.0)), count - 1);
    QCOMPARE(binning.binOfChord2(c2[count]), -1); // the last edge is outside
}

void TestBins::binOfChord2Outside() {
    const Binning log5(BinSpec::preset("log5"));
    QCOMPARE(log5.binOfChord2(0.0), -1);
    QCOMPARE(log5.binOfChord2(4.0), -1);
    QCOMPARE(log5.binOfChord2(1e300), -1);
    QCOMPARE(log5.binOfChord2(std::numeric_limits<double>::quiet_NaN()), -1);
    const Binning quarter(BinSpec::preset("quarter-degree"));
    QCOMPARE(quarter.binOfChord2(0.0), 0); // θ = 0 is on the first edge
    QCOMPARE(quarter.binOfChord2(-1e-30), -1);
    QCOMPARE(quarter.binOfChord2(2.0), -1); // 90° is the last edge: c² = 2 exactly
    QCOMPARE(quarter.binOfChord2(3.9), -1);
}

void TestBins::chord2Closed_data() {
    QTest::addColumn<double>("theta");
    QTest::addColumn<double>("expected");
    QTest::newRow("0") << 0.0 << 0.0;
    QTest::newRow("60 deg: chord 1") << M_PI / 3 << 1.0;
    QTest::newRow("90 deg: chord sqrt 2") << M_PI / 2 << 2.0;
    QTest::newRow("180 deg: diameter") << M_PI << 4.0;
    QTest::newRow("0.01 arcmin") << 0.01 / 60 * M_PI / 180
                                 << referenceChord2(0.01 / 60 * M_PI / 180);
    QTest::newRow("1 arcmin") << M_PI / 10800 << referenceChord2(M_PI / 10800);
    QTest::newRow("1 rad") << 1.0 << referenceChord2(1.0);
}

void TestBins::chord2Closed() {
    QFETCH(double, theta);
    QFETCH(double, expected);
    const double c2 = tpacf::chord2OfAngle(theta);
    QVERIFY2(expected == 0 ? c2 == 0 : closeRel(c2, expected, 1e-14),
             qPrintable(QStringLiteral("%1 vs %2").arg(c2, 0, 'g', 17).arg(expected, 0, 'g', 17)));
}

void TestBins::chord2MatchesVectors() {
    // c² of the edges must be what |a−b|² gives for two points that far apart.
    std::mt19937_64 rng(20240611);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (int i = 0; i < 1000; ++i) {
        const double theta = std::pow(10.0, -5.0 + 5.5 * uniform(rng)); // 1e-5 .. 3.16 rad
        const double a[3] = {0, 0, 1};
        const double b[3] = {std::sin(theta), 0, std::cos(theta)};
        const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        const double fromVectors = dx * dx + dy * dy + dz * dz;
        // 1 − cos θ cancels for small θ: tolerance follows from its rounding, ~1e-16 / θ².
        const double tolerance = 1e-12 + 4e-16 / (theta * theta);
        QVERIFY2(closeRel(tpacf::chord2OfAngle(theta), fromVectors, tolerance),
                 qPrintable(QString::number(theta, 'g', 17)));
    }
}

void TestBins::chord2Monotonic() {
    for (const std::string& name : BinSpec::presetNames()) {
        const Binning binning(BinSpec::preset(name));
        const auto c2 = binning.chord2Edges();
        QCOMPARE(c2.size(), binning.count() + 1);
        for (std::size_t k = 0; k + 1 < c2.size(); ++k)
            QVERIFY(c2[k] < c2[k + 1]);
        for (std::size_t k = 0; k < c2.size(); ++k)
            QCOMPARE(c2[k], tpacf::chord2OfAngle(binning.edgesRadians()[k]));
    }
    // Over the whole half turn, on a fine grid.
    double previous = -1;
    for (int i = 0; i <= 100000; ++i) {
        const double c2 = tpacf::chord2OfAngle(M_PI * i / 100000.0);
        QVERIFY(c2 > previous);
        previous = c2;
    }
}

void TestBins::scaleKeys() {
    QCOMPARE(tpacf::binScaleKey(BinScale::Logarithmic), std::string_view("log"));
    QCOMPARE(tpacf::binScaleKey(BinScale::Linear), std::string_view("linear"));
    QCOMPARE(tpacf::binScaleKey(BinScale::Custom), std::string_view("custom"));
    for (const BinScale scale : {BinScale::Logarithmic, BinScale::Linear, BinScale::Custom})
        QCOMPARE(tpacf::parseBinScaleKey(tpacf::binScaleKey(scale)), std::optional(scale));
    QVERIFY(!tpacf::parseBinScaleKey("Log"));
    QVERIFY(!tpacf::parseBinScaleKey(""));
}

void TestBins::fromEdges_data() {
    QTest::addColumn<QList<double>>("edges");
    QTest::addColumn<AngleUnit>("unit");
    QTest::newRow("arcmin, Corrfunc-like") << QList<double>{0.1, 0.3, 1, 3} << AngleUnit::Arcminute;
    QTest::newRow("deg from 0 to 180") << QList<double>{0, 0.5, 2, 10, 180} << AngleUnit::Degree;
    // 0.1 + 0.2 is not 0.3: the edge must stay 0.30000000000000004, not be rounded.
    QTest::newRow("arcsec, irregular")
        << QList<double>{1e-3, 0.1 + 0.2, 7, 648000} << AngleUnit::Arcsecond;
    QTest::newRow("rad to pi") << QList<double>{0.001, 1, M_PI} << AngleUnit::Radian;
    QTest::newRow("one bin") << QList<double>{5, 6} << AngleUnit::Degree;
}

void TestBins::fromEdges() {
    QFETCH(QList<double>, edges);
    QFETCH(AngleUnit, unit);
    const BinSpec spec = BinSpec::fromEdges(toVector(edges), unit);
    QCOMPARE(spec.scale, BinScale::Custom);
    QCOMPARE(spec.unit, unit);
    QVERIFY(sameBits(spec.min, edges.front()));
    QVERIFY(sameBits(spec.max, edges.back()));

    const Binning binning(spec);
    const int count = int(edges.size()) - 1;
    QCOMPARE(binning.count(), std::size_t(count));
    QCOMPARE(binning.edges().size(), std::size_t(edges.size()));
    for (int k = 0; k <= count; ++k) {
        QVERIFY2(sameBits(binning.edges()[k], edges[k]), qPrintable(QString::number(k)));
        QVERIFY(closeRel(binning.edgesRadians()[k], edges[k] * radiansPerUnit(unit), 1e-15));
        const double c2 = binning.chord2Edges()[k];
        // A last edge at exactly 180° closes the last bin (bins.h): its threshold lies above
        // every rounding of 4.
        const double halfTurn = unit == AngleUnit::Degree      ? 180.0
                                : unit == AngleUnit::Arcminute ? 10800.0
                                : unit == AngleUnit::Arcsecond ? 648000.0
                                                               : M_PI;
        if (k == count && edges[k] == halfTurn) {
            QCOMPARE(c2, tpacf::kChord2BeyondHalfTurn);
            continue;
        }
        // The same formula as for log/linear bins, and the closed form of an independent route.
        QVERIFY(sameBits(c2, tpacf::chord2OfAngle(binning.edgesRadians()[k])));
        const double reference = referenceChord2(binning.edgesRadians()[k]);
        QVERIFY2(reference == 0 ? c2 == 0 : closeRel(c2, reference, 1e-13),
                 qPrintable(QStringLiteral("edge %1: %2 vs %3")
                                .arg(k)
                                .arg(c2, 0, 'g', 17)
                                .arg(reference, 0, 'g', 17)));
    }
    QCOMPARE(binning.maxDegrees() > 0, true);
    QVERIFY(
        closeRel(binning.maxDegrees(), edges.back() * radiansPerUnit(unit) * 180.0 / M_PI, 1e-14));

    for (int k = 0; k < count; ++k) {
        const double lo = edges[k], hi = edges[k + 1];
        const double expected = lo > 0 ? std::sqrt(lo * hi) : 0.5 * (lo + hi);
        QVERIFY2(closeRel(binning.centres()[k], expected, 1e-15),
                 qPrintable(QStringLiteral("bin %1: %2").arg(k).arg(binning.centres()[k])));
        QVERIFY(lo < binning.centres()[k] && binning.centres()[k] < hi);
    }

    // Lookup: on an edge is the bin above it, one ulp below is the bin under it, inside is inside.
    const auto c2 = binning.chord2Edges();
    for (int k = 0; k < count; ++k) {
        QCOMPARE(binning.binOfChord2(c2[k]), k);
        QCOMPARE(binning.binOfChord2(std::nextafter(c2[k], -1.0)), k - 1);
        QCOMPARE(binning.binOfChord2(0.5 * (c2[k] + c2[k + 1])), k);
        // The chord² of the bin's centre angle, computed independently, lies inside the bin.
        const double centreRadians = binning.centres()[k] * radiansPerUnit(unit);
        QCOMPARE(binning.binOfChord2(referenceChord2(centreRadians)), k);
    }
    QCOMPARE(binning.binOfChord2(std::nextafter(c2[count], 0.0)), count - 1);
    QCOMPARE(binning.binOfChord2(c2[count]), -1);
}

void TestBins::customIgnoresOtherFields() {
    // The default BinSpec carries perDecade = 5 and log5's range: none of it applies to edges.
    BinSpec spec;
    spec.scale = BinScale::Custom;
    spec.unit = AngleUnit::Degree;
    spec.edges = {1, 2, 4};
    const Binning binning(spec);
    QCOMPARE(binning.count(), std::size_t(2));
    QCOMPARE(binning.spec().min, 1.0);
    QCOMPARE(binning.spec().max, 4.0);
    QCOMPARE(binning.spec().perDecade, 0.0);
    QCOMPARE(binning.edges()[1], 2.0);
    // And edges say nothing to log or linear bins.
    BinSpec log = BinSpec::logCount(1, 100, AngleUnit::Degree, 2);
    log.edges = {7, 8};
    QCOMPARE(Binning(log).edges()[1], 10.0);
}

void TestBins::customDescribe() {
    QCOMPARE(QString::fromStdString(
                 BinSpec::fromEdges({0.1, 0.3, 1, 3}, AngleUnit::Arcminute).describe()),
             QStringLiteral("custom, 4 edges 0.1-3 arcmin"));
    QCOMPARE(QString::fromStdString(BinSpec::fromEdges({0, 90, 180}, AngleUnit::Degree).describe()),
             QStringLiteral("custom, 3 edges 0-180 deg"));
    QCOMPARE(QString::fromStdString(BinSpec::fromEdges({}, AngleUnit::Degree).describe()),
             QStringLiteral("custom, 0 edges"));
}

void TestBins::customRejects_data() {
    QTest::addColumn<QList<double>>("edges");
    QTest::addColumn<AngleUnit>("unit");
    QTest::addColumn<QString>("mentions");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const auto arcmin = AngleUnit::Arcminute;
    const auto deg = AngleUnit::Degree;
    QTest::newRow("unsorted") << QList<double>{0.1, 1, 0.3} << arcmin
                              << "edge 3 (0.3 arcmin) is not greater than edge 2 (1 arcmin)";
    QTest::newRow("duplicate") << QList<double>{0.1, 0.3, 0.3, 1} << arcmin
                               << "edge 3 (0.3 arcmin) is not greater than edge 2 (0.3 arcmin)";
    QTest::newRow("negative") << QList<double>{-0.1, 1} << arcmin
                              << "edge 1 (-0.1 arcmin) is negative";
    QTest::newRow("negative zero then negative")
        << QList<double>{0, -1} << deg << "edge 2 (-1 deg) is negative";
    QTest::newRow("beyond 180 deg")
        << QList<double>{1, 180.5} << deg << "edge 2 (180.5 deg) is beyond 180 deg";
    QTest::newRow("beyond 180 deg in arcmin")
        << QList<double>{1, 10, 10801} << arcmin << "edge 3 (10801 arcmin) is beyond 180 deg";
    QTest::newRow("beyond pi rad")
        << QList<double>{0, 3.2} << AngleUnit::Radian << "edge 2 (3.2 rad) is beyond 180 deg";
    QTest::newRow("beyond 180 deg in arcsec")
        << QList<double>{0, 648000.5} << AngleUnit::Arcsecond << "648000.5 arcsec";
    QTest::newRow("nan") << QList<double>{0.1, nan, 1} << arcmin << "edge 2 (nan) is not finite";
    QTest::newRow("inf") << QList<double>{0.1, inf} << arcmin << "edge 2 (inf) is not finite";
    QTest::newRow("one edge") << QList<double>{1} << arcmin << "at least 2 edges, got 1";
    QTest::newRow("no edges") << QList<double>{} << arcmin << "at least 2 edges, got 0";
    QList<double> many;
    for (int k = 0; k < 10002; ++k)
        many.append(0.001 * (k + 1));
    QTest::newRow("too many") << many << arcmin << "10002 edges give 10001 bins";
    // Near 180° the c² of two distinct edges can be the same double.
    QTest::newRow("indistinguishable near 180")
        << QList<double>{179.99999999999, std::nextafter(179.99999999999, 180.0)} << deg
        << "too close";
}

void TestBins::customRejects() {
    QFETCH(QList<double>, edges);
    QFETCH(AngleUnit, unit);
    QFETCH(QString, mentions);
    try {
        const Binning binning(BinSpec::fromEdges(toVector(edges), unit));
        QFAIL(qPrintable(QStringLiteral("accepted, %1 bins").arg(binning.count())));
    } catch (const tpacf::ConfigError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(mentions), e.what());
        QVERIFY(!QString::fromUtf8(e.what()).contains(QLatin1Char('\n')));
    }
}

void TestBins::customAcceptedLimits_data() {
    QTest::addColumn<QList<double>>("edges");
    QTest::addColumn<AngleUnit>("unit");
    QTest::newRow("0-180 deg") << QList<double>{0, 180} << AngleUnit::Degree;
    QTest::newRow("0-10800 arcmin") << QList<double>{0, 10800} << AngleUnit::Arcminute;
    QTest::newRow("0-648000 arcsec") << QList<double>{0, 648000} << AngleUnit::Arcsecond;
    QTest::newRow("0-pi rad") << QList<double>{0, M_PI} << AngleUnit::Radian;
    QList<double> most;
    for (int k = 0; k < 10001; ++k)
        most.append(0.001 * (k + 1));
    QTest::newRow("10000 bins") << most << AngleUnit::Arcminute;
}

void TestBins::customAcceptedLimits() {
    QFETCH(QList<double>, edges);
    QFETCH(AngleUnit, unit);
    const Binning binning(BinSpec::fromEdges(toVector(edges), unit));
    QCOMPARE(binning.count(), std::size_t(edges.size() - 1));
    QVERIFY(sameBits(binning.edges().back(), edges.back()));
}

void TestBins::parseEdgesText_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<double>>("expected");
    const QList<double> corrfunc{0.1, 0.3, 1, 3};
    QTest::newRow("one per line") << QStringLiteral("0.1\n0.3\n1\n3\n") << corrfunc;
    QTest::newRow("no final newline") << QStringLiteral("0.1\n0.3\n1\n3") << corrfunc;
    QTest::newRow("comments, blanks, CRLF, indent")
        << QStringLiteral(
               "# theta edges, arcmin\r\n\r\n  0.1   # first\r\n0.3\r\n\t1\r\n#\r\n3\r\n")
        << corrfunc;
    QTest::newRow("lo hi rows") << QStringLiteral("0.1 0.3\n0.3 1\n1 3\n") << corrfunc;
    QTest::newRow("lo hi rows, tabs, comments")
        << QStringLiteral("# lo hi\n0.1\t0.3\n\n0.3   1  # middle\n1 3") << corrfunc;
    QTest::newRow("exponents and plus")
        << QStringLiteral("+1e-2\n1E-1\n0.5e1\n") << QList<double>{0.01, 0.1, 5};
    QTest::newRow("byte-order mark") << QStringLiteral("\uFEFF0\n90\n") << QList<double>{0, 90};
    QTest::newRow("one lo hi row") << QStringLiteral("2 4\n") << QList<double>{2, 4};
    QTest::newRow("last digit kept")
        << QStringLiteral("0.30000000000000004\n1") << QList<double>{0.1 + 0.2, 1};
}

void TestBins::parseEdgesText() {
    QFETCH(QString, text);
    QFETCH(QList<double>, expected);
    const QByteArray bytes = text.toUtf8();
    const std::vector<double> edges =
        tpacf::parseBinEdgesText(std::string_view(bytes.constData(), bytes.size()), "edges.txt");
    QCOMPARE(edges.size(), std::size_t(expected.size()));
    for (std::size_t k = 0; k < edges.size(); ++k)
        QVERIFY2(sameBits(edges[k], expected[qsizetype(k)]),
                 qPrintable(QStringLiteral("%1: %2").arg(k).arg(edges[k], 0, 'g', 17)));
}

void TestBins::parseEdgesTextErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line"); // 0: the file as a whole
    QTest::addColumn<QString>("mentions");
    QTest::newRow("non-contiguous rows")
        << QStringLiteral("0.1 0.3\n0.4 1\n") << 2
        << "lo 0.4 is not the previous row's hi 0.3 (rows must be contiguous)";
    QTest::newRow("gap after comment lines")
        << QStringLiteral("# rows\n0.1 0.3\n\n# next\n0.3 1\n1.5 3\n") << 6 << "contiguous";
    QTest::newRow("bad number") << QStringLiteral("0.1\n0.3\nabc\n") << 3
                                << "\"abc\" is not a number";
    QTest::newRow("bad number in a row")
        << QStringLiteral("0.1 0.3\n0.3 1x\n") << 2 << "\"1x\" is not a number";
    // Read as "0 1" a decimal comma would pass as a lo-hi row: commas are not separators.
    QTest::newRow("decimal comma")
        << QStringLiteral("0,1\n0,3\n") << 1 << "\"0,1\" is not a number";
    QTest::newRow("unsorted lines")
        << QStringLiteral("0.1\n1\n0.3\n") << 3 << "strictly increasing";
    QTest::newRow("duplicate line") << QStringLiteral("1\n1\n") << 2 << "strictly increasing";
    QTest::newRow("lo not below hi")
        << QStringLiteral("0.3 0.1\n") << 1 << "lo 0.3 is not below hi 0.1";
    QTest::newRow("three numbers") << QStringLiteral("0.1\n0.3 1 3\n") << 2 << "3 numbers";
    QTest::newRow("mixed forms") << QStringLiteral("0.1\n0.3\n0.3 1\n") << 3 << "but line 1 has 1";
    QTest::newRow("negative") << QStringLiteral("-1\n2\n") << 1 << "negative";
    QTest::newRow("nan") << QStringLiteral("0.1\nnan\n") << 2 << "not a finite number";
    QTest::newRow("overflow") << QStringLiteral("0.1\n1e999\n") << 2 << "not a finite number";
    QTest::newRow("one edge") << QStringLiteral("# only\n3\n") << 0 << "1 edge; at least 2";
    QTest::newRow("empty") << QString() << 0 << "0 edges; at least 2";
    QTest::newRow("comments only") << QStringLiteral("# a\n\n# b\n") << 0 << "0 edges";
    QString many;
    for (int k = 0; k < 10002; ++k)
        many += QString::number(k + 1) + QLatin1Char('\n');
    QTest::newRow("too many") << many << 10002 << "at most 10000 bins";
}

void TestBins::parseEdgesTextErrors() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, mentions);
    const QByteArray bytes = text.toUtf8();
    try {
        const auto edges = tpacf::parseBinEdgesText(
            std::string_view(bytes.constData(), bytes.size()), "dir/my edges.txt");
        QFAIL(qPrintable(QStringLiteral("accepted %1 edges").arg(edges.size())));
    } catch (const tpacf::InputError& e) {
        const QString message = QString::fromUtf8(e.what());
        QCOMPARE(QString::fromStdString(e.file()), QStringLiteral("dir/my edges.txt"));
        QCOMPARE(e.line(), long(line));
        QVERIFY2(message.startsWith(line > 0 ? QStringLiteral("dir/my edges.txt:%1: ").arg(line)
                                             : QStringLiteral("dir/my edges.txt: ")),
                 e.what());
        QVERIFY2(message.contains(mentions), e.what());
        QVERIFY(!message.contains(QLatin1Char('\n')));
    }
}

void TestBins::parseEdgesTextWithUnit() {
    // With a unit the half turn is checked too, in that unit, naming the line.
    try {
        (void)tpacf::parseBinEdgesText("1\n10\n181\n", "e.txt", AngleUnit::Degree);
        QFAIL("accepted 181 deg");
    } catch (const tpacf::InputError& e) {
        QCOMPARE(e.line(), 3L);
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("181 deg is beyond 180 deg")),
                 e.what());
    }
    // The same numbers are fine in arcmin, and without a unit.
    QCOMPARE(tpacf::parseBinEdgesText("1\n10\n181\n", "e.txt", AngleUnit::Arcminute).size(),
             std::size_t(3));
    QCOMPARE(tpacf::parseBinEdgesText("1\n10\n181\n", "e.txt").size(), std::size_t(3));
    QCOMPARE(tpacf::parseBinEdgesText("0 10800\n", "e.txt", AngleUnit::Arcminute).back(), 10800.0);
    // What the parser reads, Binning takes unchanged.
    const auto edges = tpacf::parseBinEdgesText("0.1 0.3\n0.3 1\n1 3\n", "e.txt");
    const Binning binning(BinSpec::fromEdges(edges, AngleUnit::Arcminute));
    QCOMPARE(binning.count(), std::size_t(3));
    QVERIFY(sameBits(binning.edges()[1], 0.3));
}

TPACF_TEST_MAIN(TestBins)
#include "test_bins.moc"
