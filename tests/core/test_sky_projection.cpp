// SPDX-License-Identifier: GPL-3.0-or-later
// Sky projections and density rasters against closed forms and brute force: forward then inverse
// returns the direction (a grid over the sphere with the poles and the RA wrap, for each
// projection and central RA); known points (equator, poles, RA to the left); the equal-area
// property (a band's share of the sphere, (sin δ2 − sin δ1)/2, is its share of the ellipse, and
// uniform points fall in it in that share); density rasters whose counts add up to N and equal a
// plain loop over the same points, whatever the worker count; the footprint's extent and the
// projection it suggests.
#include "tpacf/mock.h"
#include "tpacf/sky_projection.h"
#include "tpacf/units.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>

using tpacf::kPi;
using tpacf::ProjectedPoints;
using tpacf::SkyProjection;
using tpacf::SkyProjectionKind;
using tpacf::SkyRasterSpec;

Q_DECLARE_METATYPE(SkyProjectionKind)

namespace {

constexpr double kDeg = kPi / 180.0;
const double kSqrt2 = std::sqrt(2.0);

// Great-circle separation (radians) of two directions, from the chord: stable at all angles.
double separation(double ra1, double dec1, double ra2, double dec2) {
    const double dx = std::cos(dec1) * std::cos(ra1) - std::cos(dec2) * std::cos(ra2);
    const double dy = std::cos(dec1) * std::sin(ra1) - std::cos(dec2) * std::sin(ra2);
    const double dz = std::sin(dec1) - std::sin(dec2);
    return 2 * std::asin(std::min(1.0, 0.5 * std::sqrt(dx * dx + dy * dy + dz * dz)));
}

// Uniform on the sphere (RA uniform, sin Dec uniform), seeded.
void uniformSphere(std::size_t count, std::uint64_t seed, std::vector<double>& ra,
                   std::vector<double>& dec) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    ra.resize(count);
    dec.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        ra[i] = 2 * kPi * unit(engine);
        dec[i] = std::asin(2 * unit(engine) - 1);
    }
}

// As projectPoints stores a coordinate: float, rounded toward the origin.
double storedAsFloat(double value) {
    const float rounded = float(value);
    return std::abs(double(rounded)) > std::abs(value) ? std::nextafter(rounded, 0.0f) : rounded;
}

void addKinds() {
    QTest::addColumn<SkyProjectionKind>("kind");
    QTest::addColumn<double>("centralDeg");
}

} // namespace

class TestSkyProjection : public QObject {
    Q_OBJECT
private slots:
    void table();
    void roundTrip_data();
    void roundTrip();
    void knownPoints_data();
    void knownPoints();
    void mollweideThetaSolvesItsEquation();
    void equalAreaBands_data();
    void equalAreaBands();
    void equalAreaBoxes_data();
    void equalAreaBoxes();
    void densityGrid_data();
    void densityGrid();
    void labelRasterTakesTheFirstPoint();
    void extentSuggestsProjection_data();
    void extentSuggestsProjection();
};

void TestSkyProjection::table() {
    QCOMPARE(tpacf::skyProjections().size(), std::size_t(3));
    for (const auto& info : tpacf::skyProjections()) {
        QCOMPARE(tpacf::skyProjectionInfo(info.kind).key, info.key);
        QVERIFY(!info.name.empty());
    }
}

void TestSkyProjection::roundTrip_data() {
    addKinds();
    for (const auto& info : tpacf::skyProjections())
        for (const double centralDeg : {0.0, 180.0, 37.5, 359.0})
            QTest::addRow("%s λ0=%g", info.key.data(), centralDeg) << info.kind << centralDeg;
}

void TestSkyProjection::roundTrip() {
    QFETCH(SkyProjectionKind, kind);
    QFETCH(double, centralDeg);
    const SkyProjection projection(kind, centralDeg * kDeg);
    std::vector<double> decs{-90, -89.99999, -89.9, -75,  -45,      -10, 0,
                             10,  45,        75,    89.9, 89.99999, 90};
    std::vector<double> ras;
    for (double ra = 0; ra < 360; ra += 15)
        ras.push_back(ra);
    // The far meridian (the ellipse's rim, both sides of the wrap) and just beside it.
    for (const double offset : {180.0, 179.999, -179.999, 0.001})
        ras.push_back(std::fmod(centralDeg + offset + 360.0, 360.0));
    ras.push_back(359.9999999);
    for (const double decDeg : decs)
        for (const double raDeg : ras) {
            const auto p = projection.forward(raDeg * kDeg, decDeg * kDeg);
            QVERIFY2(projection.contains(p.x, p.y), qPrintable(QString::number(raDeg)));
            const auto back = projection.inverse(p.x, p.y);
            QVERIFY(back);
            QVERIFY(back->ra >= 0 && back->ra < 2 * kPi);
            // asin near ±1 (Dec from sin δ, θ from y) keeps √ε ≈ 1e-8 rad at the poles.
            const double error = separation(raDeg * kDeg, decDeg * kDeg, back->ra, back->dec);
            QVERIFY2(error < 1e-7, qPrintable(QStringLiteral("RA %1 Dec %2: off by %3 rad")
                                                  .arg(raDeg)
                                                  .arg(decDeg)
                                                  .arg(error)));
        }
    // Beyond the domain there is no sky.
    const auto& info = projection.info();
    QVERIFY(!projection.inverse(info.xMax * 1.01, 0));
    QVERIFY(!projection.inverse(0, info.yMax * 1.01));
    if (info.equalArea)
        QVERIFY(!projection.inverse(0.8 * info.xMax, 0.8 * info.yMax)); // a corner of the box
}

void TestSkyProjection::knownPoints_data() {
    QTest::addColumn<SkyProjectionKind>("kind");
    QTest::addColumn<double>("centralDeg");
    QTest::addColumn<double>("raDeg");
    QTest::addColumn<double>("decDeg");
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("y");
    using K = SkyProjectionKind;
    QTest::newRow("moll centre") << K::Mollweide << 180.0 << 180.0 << 0.0 << 0.0 << 0.0;
    QTest::newRow("moll north pole") << K::Mollweide << 180.0 << 12.0 << 90.0 << 0.0 << kSqrt2;
    QTest::newRow("moll south pole") << K::Mollweide << 0.0 << 250.0 << -90.0 << 0.0 << -kSqrt2;
    // δ = 0 → θ = 0: x = −(2√2/π)Δλ, RA east of λ0 to the left.
    QTest::newRow("moll +90 equator") << K::Mollweide << 0.0 << 90.0 << 0.0 << -kSqrt2 << 0.0;
    QTest::newRow("moll -90 equator") << K::Mollweide << 0.0 << 270.0 << 0.0 << kSqrt2 << 0.0;
    QTest::newRow("moll +30 equator")
        << K::Mollweide << 100.0 << 130.0 << 0.0 << -(2 * kSqrt2 / kPi) * (kPi / 6) << 0.0;
    QTest::newRow("moll far meridian") << K::Mollweide << 180.0 << 0.0 << 0.0 << -2 * kSqrt2 << 0.0;
    QTest::newRow("hammer centre") << K::HammerAitoff << 30.0 << 30.0 << 0.0 << 0.0 << 0.0;
    QTest::newRow("hammer north pole") << K::HammerAitoff << 30.0 << 99.0 << 90.0 << 0.0 << kSqrt2;
    QTest::newRow("hammer +90 equator")
        << K::HammerAitoff << 0.0 << 90.0 << 0.0
        << -2 * kSqrt2 * std::sin(kPi / 4) / std::sqrt(1 + std::cos(kPi / 4)) << 0.0;
    QTest::newRow("hammer far meridian")
        << K::HammerAitoff << 0.0 << 180.0 << 45.0 << -2 * std::cos(kPi / 4) * kSqrt2 << 1.0;
    QTest::newRow("plain +30") << K::PlateCarree << 350.0 << 20.0 << -12.0 << -30 * kDeg
                               << -12 * kDeg;
}

void TestSkyProjection::knownPoints() {
    QFETCH(SkyProjectionKind, kind);
    QFETCH(double, centralDeg);
    QFETCH(double, raDeg);
    QFETCH(double, decDeg);
    QFETCH(double, x);
    QFETCH(double, y);
    const auto p = SkyProjection(kind, centralDeg * kDeg).forward(raDeg * kDeg, decDeg * kDeg);
    QVERIFY2(std::abs(p.x - x) < 1e-12 && std::abs(p.y - y) < 1e-12,
             qPrintable(QStringLiteral("(%1, %2) != (%3, %4)").arg(p.x).arg(p.y).arg(x).arg(y)));
    if (kind == SkyProjectionKind::Mollweide && decDeg == 0)
        QCOMPARE(SkyProjection::mollweideTheta(0.0), 0.0);
}

void TestSkyProjection::mollweideThetaSolvesItsEquation() {
    // 2θ + sin 2θ = π sin δ to rounding, θ odd in δ and monotonic, all the way to the poles.
    double previous = -kPi / 2 - 1;
    for (int i = -100000; i <= 100000; i += 7) {
        const double dec = i * 1e-5 * (kPi / 2);
        const double theta = SkyProjection::mollweideTheta(dec);
        QVERIFY(std::abs(2 * theta + std::sin(2 * theta) - kPi * std::sin(dec)) < 1e-14);
        QCOMPARE(SkyProjection::mollweideTheta(-dec), -theta);
        QVERIFY(theta >= previous);
        previous = theta;
    }
    QCOMPARE(SkyProjection::mollweideTheta(kPi / 2), kPi / 2);
    QCOMPARE(SkyProjection::mollweideTheta(-kPi / 2), -kPi / 2);
}

void TestSkyProjection::equalAreaBands_data() {
    QTest::addColumn<int>("firstRow");
    QTest::addColumn<int>("endRow");
    // Rows of a 64-row Mollweide raster (parallels are rows): equator, mid latitudes, a polar cap.
    QTest::newRow("equator") << 28 << 36;
    QTest::newRow("north mid") << 40 << 52;
    QTest::newRow("south cap") << 0 << 4;
    QTest::newRow("all") << 0 << 64;
}

void TestSkyProjection::equalAreaBands() {
    QFETCH(int, firstRow);
    QFETCH(int, endRow);
    const SkyProjection projection(SkyProjectionKind::Mollweide, kPi);
    const SkyRasterSpec spec = SkyRasterSpec::wholeDomain(projection, 128, 64);
    const double y1 = spec.yMin + firstRow * (spec.yMax - spec.yMin) / spec.height;
    const double y2 = spec.yMin + endRow * (spec.yMax - spec.yMin) / spec.height;
    // Share of the ellipse (semi-axes 2√2, √2, area 4π) between y1 and y2: ab[u√(1−u²) + asin u].
    auto segment = [](double y) {
        const double u = std::clamp(y / std::sqrt(2.0), -1.0, 1.0);
        return 4 * (u * std::sqrt(1 - u * u) + std::asin(u));
    };
    const double areaShare = (segment(y2) - segment(y1)) / (4 * kPi);
    // Share of the sphere between the parallels those rows show.
    const double dec1 = projection.inverse(0, y1)->dec;
    const double dec2 = projection.inverse(0, y2)->dec;
    const double sphereShare = (std::sin(dec2) - std::sin(dec1)) / 2;
    QVERIFY2(std::abs(areaShare - sphereShare) < 1e-7,
             qPrintable(QStringLiteral("%1 vs %2").arg(areaShare).arg(sphereShare)));
    // Uniform points fall in the band in that share, within 4σ of the binomial.
    constexpr std::size_t kPoints = 400000;
    std::vector<double> ra, dec;
    uniformSphere(kPoints, 19, ra, dec);
    const auto grid = tpacf::skyDensity(projection, ra, dec, spec, 2);
    QCOMPARE(grid.total(), std::uint64_t(kPoints));
    std::uint64_t inBand = 0;
    for (int row = firstRow; row < endRow; ++row)
        for (int column = 0; column < spec.width; ++column)
            inBand += grid.at(column, row);
    const double sigma = std::sqrt(kPoints * sphereShare * (1 - sphereShare));
    QVERIFY2(std::abs(double(inBand) - kPoints * sphereShare) <= 4 * sigma + 1e-9,
             qPrintable(
                 QStringLiteral("%1 in band, %2 expected").arg(inBand).arg(kPoints * sphereShare)));
}

void TestSkyProjection::equalAreaBoxes_data() {
    QTest::addColumn<SkyProjectionKind>("kind");
    QTest::addColumn<double>("raMin");
    QTest::addColumn<double>("raMax");
    QTest::addColumn<double>("decMin");
    QTest::addColumn<double>("decMax");
    for (const auto kind : {SkyProjectionKind::Mollweide, SkyProjectionKind::HammerAitoff}) {
        const char* key = tpacf::skyProjectionInfo(kind).key.data();
        QTest::addRow("%s central box", key) << kind << 150.0 << 210.0 << -20.0 << 30.0;
        QTest::addRow("%s edge box", key) << kind << 300.0 << 359.0 << 40.0 << 80.0;
        QTest::addRow("%s polar cap", key) << kind << 0.0 << 360.0 << 60.0 << 90.0;
    }
}

void TestSkyProjection::equalAreaBoxes() {
    // The projected area of an RA/Dec box, counted in pixels whose centre maps into it, is its
    // share of the sphere Δλ/2π·(sin δ2 − sin δ1)/2, to the pixels its boundary cuts.
    QFETCH(SkyProjectionKind, kind);
    QFETCH(double, raMin);
    QFETCH(double, raMax);
    QFETCH(double, decMin);
    QFETCH(double, decMax);
    const SkyProjection projection(kind, kPi);
    const SkyRasterSpec spec = SkyRasterSpec::wholeDomain(projection, 2400, 1200);
    const double pixelArea =
        (spec.xMax - spec.xMin) * (spec.yMax - spec.yMin) / (double(spec.width) * spec.height);
    std::uint64_t inside = 0;
    for (int row = 0; row < spec.height; ++row)
        for (int column = 0; column < spec.width; ++column) {
            const double x = spec.xMin + (column + 0.5) * (spec.xMax - spec.xMin) / spec.width;
            const double y = spec.yMin + (row + 0.5) * (spec.yMax - spec.yMin) / spec.height;
            const auto direction = projection.inverse(x, y);
            if (!direction)
                continue;
            const double raDeg = direction->ra / kDeg, decDeg = direction->dec / kDeg;
            inside += raDeg >= raMin && raDeg < raMax && decDeg >= decMin && decDeg < decMax;
        }
    const double projectedShare = inside * pixelArea / (4 * kPi);
    const double sphereShare =
        (raMax - raMin) / 360.0 * (std::sin(decMax * kDeg) - std::sin(decMin * kDeg)) / 2;
    // Half the boundary pixels may go either way: ≲ perimeter (< 4·2√2) × pixel / 2 / 4π.
    const double tolerance = 4 * 2 * kSqrt2 * (spec.xMax - spec.xMin) / spec.width / 2 / (4 * kPi);
    QVERIFY2(
        std::abs(projectedShare - sphereShare) < tolerance,
        qPrintable(QStringLiteral("projected %1, sphere %2").arg(projectedShare).arg(sphereShare)));
}

void TestSkyProjection::densityGrid_data() {
    QTest::addColumn<SkyProjectionKind>("kind");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("points");
    QTest::addColumn<bool>("zoomed");
    using K = SkyProjectionKind;
    QTest::newRow("moll small") << K::Mollweide << 36 << 18 << 1000 << false;
    QTest::newRow("moll parallel") << K::Mollweide << 360 << 180 << 300000 << false;
    QTest::newRow("hammer odd") << K::HammerAitoff << 97 << 41 << 200001 << false;
    QTest::newRow("plain") << K::PlateCarree << 200 << 100 << 150000 << false;
    QTest::newRow("moll zoomed") << K::Mollweide << 50 << 30 << 250000 << true;
}

void TestSkyProjection::densityGrid() {
    QFETCH(SkyProjectionKind, kind);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, points);
    QFETCH(bool, zoomed);
    std::vector<double> ra, dec;
    uniformSphere(std::size_t(points), 7, ra, dec);
    // Points on the poles and on the wrap, where rounding could push them off the raster.
    const double central = 1.0;
    for (const double edgeRa : {central + kPi, central - kPi + 1e-15, 0.0})
        for (const double edgeDec : {-kPi / 2, 0.0, kPi / 2}) {
            ra.push_back(std::fmod(edgeRa + 2 * kPi, 2 * kPi));
            dec.push_back(edgeDec);
        }
    const SkyProjection projection(kind, central);
    SkyRasterSpec spec = SkyRasterSpec::wholeDomain(projection, width, height);
    if (zoomed) { // a window of the plane: points beyond it are missed, not clamped
        spec.xMin = -0.4;
        spec.xMax = 0.9;
        spec.yMin = -0.2;
        spec.yMax = 0.5;
    }
    const ProjectedPoints projected = tpacf::projectPoints(projection, ra, dec, 1, 4);
    QCOMPARE(projected.size(), ra.size());
    const auto grid = tpacf::binProjected(projected, spec, projection, 4);
    const auto single = tpacf::binProjected(projected, spec, projection, 1);
    QCOMPARE(grid.counts, single.counts);
    QCOMPARE(grid.total() + grid.missed, std::uint64_t(ra.size()));
    if (!zoomed)
        QCOMPARE(grid.missed, std::uint64_t(0));
    else
        QVERIFY(grid.missed > 0 && grid.total() > 0);

    // The plain loop, one point after another: projected in double, stored as float, placed by
    // its position over the raster's size.
    std::vector<std::uint64_t> expected(std::size_t(width) * height, 0);
    for (std::size_t i = 0; i < ra.size(); ++i) {
        const auto p = projection.forward(ra[i], dec[i]);
        const double x = storedAsFloat(p.x), y = storedAsFloat(p.y);
        if (x < spec.xMin || x > spec.xMax || y < spec.yMin || y > spec.yMax)
            continue;
        // (the same arithmetic as pixelOf: a point on an edge must go the same way)
        const int column =
            std::min(width - 1, int((x - spec.xMin) / (spec.xMax - spec.xMin) * width));
        const int row =
            std::min(height - 1, int((y - spec.yMin) / (spec.yMax - spec.yMin) * height));
        ++expected[std::size_t(row) * width + column];
    }
    QCOMPARE(grid.counts, expected);

    // Pixels outside the domain hold no point, and only those are flagged.
    std::size_t flagged = 0;
    for (std::size_t i = 0; i < grid.counts.size(); ++i) {
        const int column = int(i % width), row = int(i / width);
        const double x = spec.xMin + (column + 0.5) * (spec.xMax - spec.xMin) / width;
        const double y = spec.yMin + (row + 0.5) * (spec.yMax - spec.yMin) / height;
        QCOMPARE(bool(grid.outside[i]), !projection.contains(x, y));
        flagged += grid.outside[i];
    }
    if (!zoomed && kind != SkyProjectionKind::PlateCarree)
        QVERIFY(flagged > grid.counts.size() / 10); // the corners of the box around the ellipse
}

void TestSkyProjection::labelRasterTakesTheFirstPoint() {
    std::vector<double> ra, dec;
    uniformSphere(200000, 3, ra, dec);
    std::vector<std::int32_t> labels(ra.size());
    for (std::size_t i = 0; i < labels.size(); ++i)
        labels[i] = std::int32_t(i % 11) - 1; // −1 is "no region"
    const SkyProjection projection(SkyProjectionKind::HammerAitoff, 0.3);
    const SkyRasterSpec spec = SkyRasterSpec::wholeDomain(projection, 64, 32);
    // Every second point, so the label goes through the source index.
    const ProjectedPoints projected = tpacf::projectPoints(projection, ra, dec, 2, 1);
    const auto raster = tpacf::labelRaster(projected, labels, spec, 4);
    std::vector<std::int32_t> expected(std::size_t(spec.width) * spec.height, -1);
    std::vector<bool> seen(expected.size(), false);
    for (std::size_t k = 0; k < projected.size(); ++k) {
        const auto pixel = spec.pixelOf(projected.x[k], projected.y[k]);
        QVERIFY(pixel);
        const std::size_t index = std::size_t(pixel->second) * spec.width + pixel->first;
        if (!seen[index]) {
            seen[index] = true;
            expected[index] = labels[2 * k];
        }
    }
    QCOMPARE(raster, expected);
}

void TestSkyProjection::extentSuggestsProjection_data() {
    QTest::addColumn<double>("raMin");
    QTest::addColumn<double>("raMax");
    QTest::addColumn<double>("decMin");
    QTest::addColumn<double>("decMax");
    QTest::addColumn<double>("centralDeg");
    QTest::addColumn<double>("spanDeg");
    QTest::addColumn<SkyProjectionKind>("kind");
    using K = SkyProjectionKind;
    QTest::newRow("full sky") << 0.0 << 360.0 << -90.0 << 90.0 << 180.0 << 360.0 << K::Mollweide;
    QTest::newRow("small patch") << 160.0 << 190.0 << 0.0 << 30.0 << 175.0 << 30.0
                                 << K::PlateCarree;
    QTest::newRow("patch over RA 0")
        << 350.0 << 370.0 << -5.0 << 5.0 << 0.0 << 20.0 << K::PlateCarree;
    // A survey stripe along the equator: a strip in the plane, a line on a whole-sky map.
    QTest::newRow("equatorial stripe")
        << 310.0 << 420.0 << -1.25 << 1.25 << 5.0 << 110.0 << K::PlateCarree;
    QTest::newRow("wide strip") << 100.0 << 250.0 << -5.0 << 5.0 << 175.0 << 150.0
                                << K::PlateCarree;
    QTest::newRow("over half the RA circle")
        << 0.0 << 200.0 << -5.0 << 5.0 << 100.0 << 200.0 << K::Mollweide;
    QTest::newRow("near the pole") << 0.0 << 40.0 << 70.0 << 85.0 << 20.0 << 40.0 << K::Mollweide;
    // cos 40° / cos 70° = 2.2: a degree of RA more than twice as long at the bottom as at the top.
    QTest::newRow("high latitude band")
        << 0.0 << 90.0 << 40.0 << 70.0 << 45.0 << 90.0 << K::Mollweide;
    QTest::newRow("tall") << 10.0 << 20.0 << -50.0 << 30.0 << 15.0 << 10.0 << K::Mollweide;
}

void TestSkyProjection::extentSuggestsProjection() {
    QFETCH(double, raMin);
    QFETCH(double, raMax);
    QFETCH(double, decMin);
    QFETCH(double, decMax);
    QFETCH(double, centralDeg);
    QFETCH(double, spanDeg);
    QFETCH(SkyProjectionKind, kind);
    const tpacf::Catalog catalog = tpacf::generateUniformRandoms(
        20000, tpacf::Footprint::box(raMin, std::min(raMax, 360.0), decMin, decMax), 5);
    std::vector<double> ras(catalog.ra().begin(), catalog.ra().end());
    std::vector<double> decs(catalog.dec().begin(), catalog.dec().end());
    if (raMax > 360) { // a box over RA 0 from two pieces
        const tpacf::Catalog more = tpacf::generateUniformRandoms(
            20000, tpacf::Footprint::box(0, raMax - 360, decMin, decMax), 6);
        ras.insert(ras.end(), more.ra().begin(), more.ra().end());
        decs.insert(decs.end(), more.dec().begin(), more.dec().end());
    }
    const std::span<const double> raSpans[] = {ras};
    const std::span<const double> decSpans[] = {decs};
    const tpacf::SkyFootprintExtent extent = tpacf::skyExtent(raSpans, decSpans);
    QCOMPARE(extent.points, ras.size());
    // Uniform points reach within ~0.1° of their box's edges.
    const double centralError =
        std::abs(std::remainder(extent.centralRa / kDeg - centralDeg, 360.0));
    QVERIFY2(spanDeg >= 360 || centralError < 0.5,
             qPrintable(QString::number(extent.centralRa / kDeg)));
    QVERIFY2(std::abs(extent.raSpan / kDeg - spanDeg) < 0.5,
             qPrintable(QString::number(extent.raSpan / kDeg)));
    // Dec ends: uniform in sin δ, so a band of 20/N of the box's sin-range at each edge holds
    // 20 points on average and is empty with probability e^−20.
    const double sinLow = std::sin(decMin * kDeg), sinHigh = std::sin(decMax * kDeg);
    const double band = 20 * (sinHigh - sinLow) / double(ras.size());
    QVERIFY(extent.decMin >= decMin * kDeg - 1e-12 && std::sin(extent.decMin) < sinLow + band);
    QVERIFY(extent.decMax <= decMax * kDeg + 1e-12 && std::sin(extent.decMax) > sinHigh - band);
    QCOMPARE(tpacf::suggestedProjection(extent), kind);
}

TPACF_TEST_MAIN(TestSkyProjection)
#include "test_sky_projection.moc"
