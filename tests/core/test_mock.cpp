// SPDX-License-Identifier: GPL-3.0-or-later
// Footprints and mock catalogs: closed-form solid angles, containment (including boxes that wrap
// through RA = 0 and caps), validation errors, reproducibility per seed, exact counts, uniformity
// of the randoms against binomial errors, and the ASCII writer.
#include "tpacf_test_main.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"
#include "tpacf/mock.h"
#include "tpacf/units.h"

#include <QtTest/QtTest>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

using tpacf::Footprint;
using tpacf::kPi;

Q_DECLARE_METATYPE(tpacf::Footprint)

namespace {

constexpr double kDeg = kPi / 180.0;

bool sameCatalog(const tpacf::Catalog& a, const tpacf::Catalog& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a.ra()[i] != b.ra()[i] || a.dec()[i] != b.dec()[i])
            return false;
    return true;
}

// Checks every point with the footprint's own test and, independently, with plain geometry.
QString firstOutside(const tpacf::Catalog& catalog, const Footprint& footprint) {
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        const double ra = catalog.ra()[i] / kDeg;
        const double dec = catalog.dec()[i] / kDeg;
        bool inside = footprint.contains(ra, dec);
        if (footprint.shape == Footprint::Shape::Box) {
            const bool raInside = footprint.raMin <= footprint.raMax
                                      ? ra >= footprint.raMin && ra <= footprint.raMax
                                      : ra >= footprint.raMin || ra <= footprint.raMax;
            inside = inside && raInside && dec >= footprint.decMin && dec <= footprint.decMax;
        } else if (footprint.shape == Footprint::Shape::Cap) {
            const double cosDistance = std::sin(dec * kDeg) * std::sin(footprint.capDec * kDeg) +
                                       std::cos(dec * kDeg) * std::cos(footprint.capDec * kDeg) *
                                           std::cos((ra - footprint.capRa) * kDeg);
            // acos is coarse near 0 but decisive away from the rim; 1e-9 deg of slack.
            inside = inside && std::acos(std::clamp(cosDistance, -1.0, 1.0)) / kDeg <=
                                   footprint.capRadius + 1e-9;
        }
        if (!inside)
            return QStringLiteral("point %1 at (%2, %3) deg is outside %4")
                .arg(i)
                .arg(ra, 0, 'g', 17)
                .arg(dec, 0, 'g', 17)
                .arg(QString::fromStdString(footprint.describe()));
    }
    return {};
}

void addFootprintRows() {
    QTest::addColumn<Footprint>("footprint");
    QTest::newRow("full sky") << Footprint::fullSky();
    QTest::newRow("box") << Footprint::box(30, 60, -10, 25);
    QTest::newRow("box wrapping RA 0") << Footprint::box(340, 15, -5, 5);
    QTest::newRow("box at the pole") << Footprint::box(100, 200, 80, 90);
    QTest::newRow("full RA band") << Footprint::box(0, 360, -30, -20);
    QTest::newRow("cap at the pole") << Footprint::cap(0, 90, 12);
    QTest::newRow("cap across RA 0") << Footprint::cap(358, -3, 5);
    QTest::newRow("tiny cap") << Footprint::cap(123.4, 45.6, 1.0 / 3600.0);
    QTest::newRow("cap larger than a hemisphere") << Footprint::cap(200, -40, 120);
}

} // namespace

class TestMock : public QObject {
    Q_OBJECT

  private slots:
    void solidAngle_data();
    void solidAngle();
    void containsByHand_data();
    void containsByHand();
    void validateRejects_data();
    void validateRejects();
    void validateAccepts();
    void describe();
    void expectedSlope();
    void mockParamsRejected_data();
    void mockParamsRejected();
    void sameSeedSameCatalog();
    void differentSeedDifferentCatalog();
    void randomsFollowDocumentedGenerator();
    void exactCount_data();
    void exactCount();
    void randomsInsideFootprint_data();
    void randomsInsideFootprint();
    void mockInsideFootprint_data();
    void mockInsideFootprint();
    void randomsUniform_data();
    void randomsUniform();
    void writeCatalogAscii();
    void writeCatalogAsciiUnwritable();
    void writtenCatalogReadsBack();
};

void TestMock::solidAngle_data() {
    QTest::addColumn<Footprint>("footprint");
    QTest::addColumn<double>("expected");
    QTest::newRow("full sky") << Footprint::fullSky() << 4 * kPi;
    QTest::newRow("box = full sky") << Footprint::box(0, 360, -90, 90) << 4 * kPi;
    QTest::newRow("northern hemisphere") << Footprint::box(0, 360, 0, 90) << 2 * kPi;
    QTest::newRow("octant") << Footprint::box(0, 90, 0, 90) << kPi / 2;
    // 20° of RA × (sin 30° − sin(−30°)) = (π/9)·1.
    QTest::newRow("wrapped box") << Footprint::box(350, 10, -30, 30) << kPi / 9;
    QTest::newRow("hemisphere cap") << Footprint::cap(10, 20, 90) << 2 * kPi;
    QTest::newRow("whole-sky cap") << Footprint::cap(10, 20, 180) << 4 * kPi;
    QTest::newRow("60 degree cap") << Footprint::cap(0, 0, 60) << kPi; // 2π(1 − cos 60°)
    // 1″ cap: π r² (1 − r²/12) to well below 1e-15 relative.
    const double r = kPi / (180.0 * 3600.0);
    QTest::newRow("one arcsecond cap")
        << Footprint::cap(0, 0, 1.0 / 3600.0) << kPi * r * r * (1 - r * r / 12);
}

void TestMock::solidAngle() {
    QFETCH(Footprint, footprint);
    QFETCH(double, expected);
    const double actual = footprint.solidAngle();
    QVERIFY2(
        std::abs(actual - expected) <= 1e-13 * expected,
        qPrintable(QStringLiteral("%1 vs %2").arg(actual, 0, 'g', 17).arg(expected, 0, 'g', 17)));
}

void TestMock::containsByHand_data() {
    QTest::addColumn<Footprint>("footprint");
    QTest::addColumn<double>("ra");
    QTest::addColumn<double>("dec");
    QTest::addColumn<bool>("inside");
    const Footprint box = Footprint::box(30, 60, -10, 25);
    QTest::newRow("box centre") << box << 45.0 << 0.0 << true;
    QTest::newRow("box corner") << box << 30.0 << -10.0 << true;
    QTest::newRow("box RA beyond") << box << 60.001 << 0.0 << false;
    QTest::newRow("box Dec beyond") << box << 45.0 << 25.001 << false;
    QTest::newRow("box RA given +360") << box << 405.0 << 0.0 << true;
    const Footprint wrapped = Footprint::box(340, 15, -5, 5);
    QTest::newRow("wrapped east of 0") << wrapped << 10.0 << 0.0 << true;
    QTest::newRow("wrapped west of 0") << wrapped << 350.0 << 0.0 << true;
    QTest::newRow("wrapped at 0") << wrapped << 0.0 << 0.0 << true;
    QTest::newRow("wrapped negative RA") << wrapped << -5.0 << 0.0 << true;
    QTest::newRow("wrapped outside") << wrapped << 180.0 << 0.0 << false;
    QTest::newRow("wrapped just outside") << wrapped << 16.0 << 0.0 << false;
    const Footprint cap = Footprint::cap(358, -3, 5);
    QTest::newRow("cap centre") << cap << 358.0 << -3.0 << true;
    QTest::newRow("cap across RA 0") << cap << 1.0 << -3.0 << true; // 2.996° away
    QTest::newRow("cap just inside") << cap << 358.0 << 1.999 << true;
    QTest::newRow("cap just outside") << cap << 358.0 << 2.001 << false;
    const Footprint tiny = Footprint::cap(123.4, 45.6, 1.0 / 3600.0);
    QTest::newRow("tiny cap inside") << tiny << 123.4 << 45.6 + 0.99 / 3600.0 << true;
    QTest::newRow("tiny cap outside") << tiny << 123.4 << 45.6 + 1.01 / 3600.0 << false;
    QTest::newRow("full sky") << Footprint::fullSky() << 12.0 << -89.0 << true;
    QTest::newRow("Dec beyond the pole") << Footprint::fullSky() << 12.0 << 91.0 << false;
}

void TestMock::containsByHand() {
    QFETCH(Footprint, footprint);
    QFETCH(double, ra);
    QFETCH(double, dec);
    QFETCH(bool, inside);
    QCOMPARE(footprint.contains(ra, dec), inside);
}

void TestMock::validateRejects_data() {
    QTest::addColumn<Footprint>("footprint");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("Dec min >= max") << Footprint::box(0, 10, 5, 5);
    QTest::newRow("Dec min > max") << Footprint::box(0, 10, 6, 5);
    QTest::newRow("Dec below -90") << Footprint::box(0, 10, -91, 5);
    QTest::newRow("Dec above 90") << Footprint::box(0, 10, 0, 90.5);
    QTest::newRow("negative RA") << Footprint::box(-10, 10, 0, 5);
    QTest::newRow("RA above 360") << Footprint::box(10, 400, 0, 5);
    QTest::newRow("empty RA range") << Footprint::box(10, 10, 0, 5);
    QTest::newRow("NaN RA") << Footprint::box(nan, 10, 0, 5);
    QTest::newRow("cap radius 0") << Footprint::cap(0, 0, 0);
    QTest::newRow("cap radius negative") << Footprint::cap(0, 0, -1);
    QTest::newRow("cap radius above 180") << Footprint::cap(0, 0, 181);
    QTest::newRow("cap Dec above 90") << Footprint::cap(0, 100, 10);
    QTest::newRow("cap NaN radius") << Footprint::cap(0, 0, nan);
}

void TestMock::validateRejects() {
    QFETCH(Footprint, footprint);
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, footprint.validate());
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::generateUniformRandoms(10, footprint, 1));
    tpacf::MockParams params;
    params.footprint = footprint;
    params.count = 10;
    params.levels = 3;
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::generateClusteredMock(params));
}

void TestMock::validateAccepts() {
    Footprint::fullSky().validate();
    Footprint::box(0, 360, -90, 90).validate();
    Footprint::box(350, 10, -90, 90).validate();
    Footprint::cap(-30, -90, 180).validate(); // any finite centre RA, wrapped
    Footprint::cap(400, 0, 0.001).validate();
}

void TestMock::describe() {
    QCOMPARE(Footprint::fullSky().describe(), std::string("full sky"));
    const std::string box = Footprint::box(340, 15, -5, 5).describe();
    QVERIFY2(box.find("340") != std::string::npos && box.find("15") != std::string::npos &&
                 box.find("wrap") != std::string::npos,
             box.c_str());
    const std::string cap = Footprint::cap(10, 20, 2.5).describe();
    QVERIFY2(cap.find("cap") != std::string::npos && cap.find("2.5") != std::string::npos,
             cap.c_str());
}

void TestMock::expectedSlope() {
    tpacf::MockParams params;
    params.eta = 2;
    params.lambda = 2;
    QCOMPARE(tpacf::mockExpectedSlope(params), -1.0);
    params.eta = 4; // D = 2 fills the plane: no power law left
    QCOMPARE(tpacf::mockExpectedSlope(params), 0.0);
    params.eta = 3;
    params.lambda = 3;
    QVERIFY(std::abs(tpacf::mockExpectedSlope(params) + 1.0) < 1e-15);
    params.eta = 2;
    params.lambda = std::pow(2.0, 1.0 / 1.2); // D = 1.2, the galaxy slope −0.8
    QVERIFY(std::abs(tpacf::mockExpectedSlope(params) + 0.8) < 1e-14);
}

void TestMock::mockParamsRejected_data() {
    QTest::addColumn<int>("levels");
    QTest::addColumn<int>("eta");
    QTest::addColumn<double>("lambda");
    QTest::addColumn<double>("radius");
    QTest::newRow("no levels") << 0 << 2 << 2.0 << 1.0;
    QTest::newRow("eta 1") << 3 << 1 << 2.0 << 1.0;
    QTest::newRow("lambda 1") << 3 << 2 << 1.0 << 1.0;
    QTest::newRow("lambda below 1") << 3 << 2 << 0.5 << 1.0;
    QTest::newRow("radius 0") << 3 << 2 << 2.0 << 0.0;
    QTest::newRow("radius above 180") << 3 << 2 << 2.0 << 200.0;
    QTest::newRow("too many points per sphere") << 30 << 2 << 2.0 << 1.0;
}

void TestMock::mockParamsRejected() {
    QFETCH(int, levels);
    QFETCH(int, eta);
    QFETCH(double, lambda);
    QFETCH(double, radius);
    tpacf::MockParams params;
    params.count = 100;
    params.levels = levels;
    params.eta = eta;
    params.lambda = lambda;
    params.outerRadiusDeg = radius;
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::generateClusteredMock(params));
}

void TestMock::sameSeedSameCatalog() {
    const Footprint footprint = Footprint::box(340, 15, -5, 5);
    QVERIFY(sameCatalog(tpacf::generateUniformRandoms(2000, footprint, 42),
                        tpacf::generateUniformRandoms(2000, footprint, 42)));
    tpacf::MockParams params;
    params.count = 2000;
    params.seed = 42;
    params.footprint = footprint;
    params.levels = 5;
    params.eta = 3;
    params.lambda = 2.5;
    params.outerRadiusDeg = 2;
    const tpacf::Catalog first = tpacf::generateClusteredMock(params, "a");
    QVERIFY(sameCatalog(first, tpacf::generateClusteredMock(params, "b")));
    QCOMPARE(first.name(), std::string("a"));
}

void TestMock::randomsFollowDocumentedGenerator() {
    // Full-sky randoms are RA = 360° u₁, sin Dec = 2u₂ − 1 with u = (x >> 11)·2⁻⁵³ from
    // std::mt19937_64 (whose output is fixed by the standard). Pinning that here keeps a seed
    // meaning the same catalog across versions and platforms; 1e-9 allows libm's last bit.
    std::mt19937_64 engine(7);
    const auto next = [&engine] { return double(engine() >> 11) * 0x1.0p-53; };
    const tpacf::Catalog catalog = tpacf::generateUniformRandoms(3, Footprint::fullSky(), 7);
    for (std::size_t i = 0; i < 3; ++i) {
        const double raDeg = 360.0 * next();
        const double sinDec = 2.0 * next() - 1.0;
        QVERIFY(std::abs(catalog.ra()[i] / kDeg - raDeg) < 1e-9);
        QVERIFY(std::abs(std::sin(catalog.dec()[i]) - sinDec) < 1e-9);
    }
}

void TestMock::differentSeedDifferentCatalog() {
    const Footprint footprint = Footprint::cap(10, 10, 10);
    const tpacf::Catalog a = tpacf::generateUniformRandoms(1000, footprint, 1);
    const tpacf::Catalog b = tpacf::generateUniformRandoms(1000, footprint, 2);
    QCOMPARE(a.size(), b.size());
    std::size_t equal = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        equal += a.ra()[i] == b.ra()[i] ? 1 : 0;
    QCOMPARE(equal, std::size_t(0));
    tpacf::MockParams params;
    params.count = 1000;
    params.footprint = footprint;
    params.levels = 4;
    params.seed = 1;
    const tpacf::Catalog mockA = tpacf::generateClusteredMock(params);
    params.seed = 2;
    QVERIFY(!sameCatalog(mockA, tpacf::generateClusteredMock(params)));
}

void TestMock::exactCount_data() {
    QTest::addColumn<int>("count");
    QTest::newRow("0") << 0;
    QTest::newRow("1") << 1;
    QTest::newRow("7") << 7;
    QTest::newRow("1000") << 1000;
    QTest::newRow("12345") << 12345;
}

void TestMock::exactCount() {
    QFETCH(int, count);
    const Footprint footprint = Footprint::box(340, 15, -5, 5);
    QCOMPARE(tpacf::generateUniformRandoms(std::size_t(count), footprint, 3).size(),
             std::size_t(count));
    tpacf::MockParams params;
    params.count = std::size_t(count);
    params.footprint = footprint;
    params.levels = 6; // 4^6 = 4096 points per sphere: the last sphere always overshoots
    params.outerRadiusDeg = 3;
    QCOMPARE(tpacf::generateClusteredMock(params).size(), std::size_t(count));
}

void TestMock::randomsInsideFootprint_data() {
    addFootprintRows();
}

void TestMock::randomsInsideFootprint() {
    QFETCH(Footprint, footprint);
    const tpacf::Catalog catalog = tpacf::generateUniformRandoms(20000, footprint, 5);
    QCOMPARE(catalog.size(), std::size_t(20000));
    const QString outside = firstOutside(catalog, footprint);
    QVERIFY2(outside.isEmpty(), qPrintable(outside));
}

void TestMock::mockInsideFootprint_data() {
    addFootprintRows();
}

void TestMock::mockInsideFootprint() {
    QFETCH(Footprint, footprint);
    tpacf::MockParams params;
    params.count = 5000;
    params.seed = 6;
    params.footprint = footprint;
    params.levels = 5;
    params.eta = 3;
    params.lambda = 2.5;
    // Spheres scaled to the footprint, so even the 1″ cap is reachable in reasonable time.
    params.outerRadiusDeg =
        footprint.shape == Footprint::Shape::Cap ? std::min(5.0, footprint.capRadius) : 5.0;
    const tpacf::Catalog catalog = tpacf::generateClusteredMock(params);
    QCOMPARE(catalog.size(), std::size_t(5000));
    const QString outside = firstOutside(catalog, footprint);
    QVERIFY2(outside.isEmpty(), qPrintable(outside));
}

void TestMock::randomsUniform_data() {
    QTest::addColumn<Footprint>("footprint");
    QTest::addColumn<Footprint>("subregion");
    QTest::addColumn<double>("fraction"); // closed form of subregion / footprint solid angle
    const double s = std::sin(30 * kDeg);
    QTest::newRow("full sky, |Dec| < 30")
        << Footprint::fullSky() << Footprint::box(0, 360, -30, 30) << s;
    QTest::newRow("full sky, polar cap")
        << Footprint::fullSky() << Footprint::cap(0, 90, 60) << (1 - std::cos(60 * kDeg)) / 2;
    QTest::newRow("full sky, RA wedge")
        << Footprint::fullSky() << Footprint::box(300, 30, -90, 90) << 90.0 / 360.0;
    // A box is uniform in RA and in sin(Dec): an upper strip of a 0..60 Dec box.
    QTest::newRow("box, Dec strip")
        << Footprint::box(10, 70, 0, 60) << Footprint::box(10, 70, 45, 60)
        << (std::sin(60 * kDeg) - std::sin(45 * kDeg)) / std::sin(60 * kDeg);
    QTest::newRow("wrapped box, west of 0")
        << Footprint::box(340, 15, -5, 5) << Footprint::box(340, 360, -5, 5) << 20.0 / 35.0;
    QTest::newRow("cap, inner cap") << Footprint::cap(200, -40, 20) << Footprint::cap(200, -40, 10)
                                    << (1 - std::cos(10 * kDeg)) / (1 - std::cos(20 * kDeg));
    // Half of a cap split by the meridian through its centre.
    QTest::newRow("cap, half") << Footprint::cap(0, 0, 10) << Footprint::box(0, 90, -90, 90) << 0.5;
}

void TestMock::randomsUniform() {
    QFETCH(Footprint, footprint);
    QFETCH(Footprint, subregion);
    QFETCH(double, fraction);
    const std::size_t count = 100000;
    const tpacf::Catalog catalog = tpacf::generateUniformRandoms(count, footprint, 8);
    std::size_t inside = 0;
    for (std::size_t i = 0; i < count; ++i)
        inside += subregion.contains(catalog.ra()[i] / kDeg, catalog.dec()[i] / kDeg) ? 1 : 0;
    // Binomial: σ = sqrt(f(1 − f)/N) ≈ 1.6e-3 at f = 1/2; 5σ is never reached by chance.
    const double observed = double(inside) / double(count);
    const double sigma = std::sqrt(fraction * (1 - fraction) / double(count));
    QVERIFY2(std::abs(observed - fraction) < 5 * sigma,
             qPrintable(QStringLiteral("fraction %1, expected %2 +- %3")
                            .arg(observed)
                            .arg(fraction)
                            .arg(sigma)));
}

void TestMock::writeCatalogAscii() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("mock.txt")).toStdString();
    const tpacf::Catalog catalog =
        tpacf::generateUniformRandoms(500, Footprint::box(340, 15, -5, 5), 9, "randoms");
    tpacf::writeCatalogAscii(path, catalog);

    std::ifstream in(path);
    std::string line;
    QVERIFY(std::getline(in, line));
    QCOMPARE(line, std::string("# ra dec"));
    std::size_t row = 0;
    while (std::getline(in, line)) {
        QVERIFY2(row < catalog.size(), "more rows than points");
        std::istringstream fields(line);
        double ra = 0, dec = 0;
        QVERIFY2(static_cast<bool>(fields >> ra >> dec), line.c_str());
        // At least 10 significant digits: 1e-10 relative on degrees.
        const double raExpected = catalog.ra()[row] / kDeg;
        const double decExpected = catalog.dec()[row] / kDeg;
        QVERIFY2(std::abs(ra - raExpected) <= 1e-10 * std::abs(raExpected), line.c_str());
        QVERIFY2(std::abs(dec - decExpected) <= 1e-10 * std::max(1.0, std::abs(decExpected)),
                 line.c_str());
        QVERIFY(ra >= 0 && ra < 360);
        ++row;
    }
    QCOMPARE(row, catalog.size());
}

void TestMock::writeCatalogAsciiUnwritable() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("no/such/dir/mock.txt")).toStdString();
    const tpacf::Catalog catalog = tpacf::generateUniformRandoms(5, Footprint::fullSky(), 1);
    try {
        tpacf::writeCatalogAscii(path, catalog);
        QFAIL("no InputError for an unwritable path");
    } catch (const tpacf::InputError& error) {
        QCOMPARE(error.file(), path);
        QVERIFY2(std::string(error.what()).find(path) != std::string::npos, error.what());
    }
}

void TestMock::writtenCatalogReadsBack() {
    // The project's own reader takes the file: same points, poles and RA = 0 included.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("mock.txt")).toStdString();
    tpacf::MockParams params;
    params.count = 3000;
    params.footprint = Footprint::cap(0, 90, 3); // around the pole, across RA = 0
    params.levels = 4;
    params.outerRadiusDeg = 1;
    const tpacf::Catalog written = tpacf::generateClusteredMock(params);
    tpacf::writeCatalogAscii(path, written);
    const tpacf::Catalog read = tpacf::readAsciiCatalog(path);
    QCOMPARE(read.size(), written.size());
    for (std::size_t i = 0; i < read.size(); ++i) {
        // Degrees → radians may differ from the original in the last bit only.
        QVERIFY(std::abs(read.dec()[i] - written.dec()[i]) < 1e-14);
        const double dRa = std::abs(read.ra()[i] - written.ra()[i]);
        QVERIFY(dRa < 1e-13 || std::abs(dRa - 2 * kPi) < 1e-13);
    }
}

TPACF_TEST_MAIN(TestMock)
#include "test_mock.moc"
