// SPDX-License-Identifier: GPL-3.0-or-later
// The Sky preview as a projected map: a full-sky catalog gets Mollweide and a small field the
// plain RA/Dec plane (the user can override); dense groups are density rasters whose cells add
// up to the points in view (checked against core's projected positions counted one by one,
// also after a zoom); a point at a known RA/Dec lands in the cell computed from the raster's
// geometry; jackknife regions are drawn as markers or as a raster; RA grows to the left (on the
// map's x for Mollweide, on a reversed RA axis in the plain view).
#include "sky_plot.h"
#include "tpacf_test_main.h"

#include <tpacf/mock.h>
#include <tpacf/units.h>

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QTest>

#include <cmath>

using namespace tpacf;
using namespace tpacf::ui;

namespace {

constexpr double kDeg = kPi / 180.0;

std::shared_ptr<const Catalog> uniform(std::size_t count, const Footprint& footprint,
                                       std::uint64_t seed) {
    return std::make_shared<const Catalog>(generateUniformRandoms(count, footprint, seed));
}

// A uniform catalog over `footprint` with `copies` extra points at one direction (degrees).
std::shared_ptr<const Catalog> withSpike(std::size_t count, const Footprint& footprint,
                                         double raDeg, double decDeg, std::size_t copies) {
    const Catalog sky = generateUniformRandoms(count, footprint, 11);
    std::vector<double> ra(sky.ra().begin(), sky.ra().end());
    std::vector<double> dec(sky.dec().begin(), sky.dec().end());
    ra.insert(ra.end(), copies, raDeg * kDeg);
    dec.insert(dec.end(), copies, decDeg * kDeg);
    return std::make_shared<const Catalog>(
        Catalog::fromRadians("spike", std::move(ra), std::move(dec)));
}

// Points of `catalog` whose projected position (as core stores it) lies in the plot's view,
// within the projection's domain: what the raster in view must hold, counted one by one.
std::uint64_t pointsInView(const SkyPlot& sky, const Catalog& catalog) {
    const ProjectedPoints points = projectPoints(sky.projection(), catalog.ra(), catalog.dec());
    const auto& info = sky.projection().info();
    const QCPRange x = sky.plot()->xAxis->range(), y = sky.plot()->yAxis->range();
    const double x0 = std::max(x.lower, -info.xMax), x1 = std::min(x.upper, info.xMax);
    const double y0 = std::max(y.lower, -info.yMax), y1 = std::min(y.upper, info.yMax);
    std::uint64_t inside = 0;
    for (std::size_t i = 0; i < points.size(); ++i)
        inside += points.x[i] >= x0 && points.x[i] <= x1 && points.y[i] >= y0 && points.y[i] <= y1;
    return inside;
}

} // namespace

class TestSkyPlot : public QObject {
    Q_OBJECT
private slots:
    void fullSkySelectsMollweide();
    void smallPatchSelectsPlainView();
    void densityCellsSumToThePointsInView();
    void knownPointLandsInItsCell_data();
    void knownPointLandsInItsCell();
    void regionsDrawnOnTop_data();
    void regionsDrawnOnTop();
    void raIncreasesToTheLeft_data();
    void raIncreasesToTheLeft();
    void secondSampleDrawnApart_data();
    void secondSampleDrawnApart();
    void bigCatalogsAreProjectedAside();
};

void TestSkyPlot::fullSkySelectsMollweide() {
    SkyPlot sky;
    const auto data = uniform(60000, Footprint::fullSky(), 1);
    const auto randoms = uniform(120000, Footprint::fullSky(), 2);
    sky.setCatalogs(data, {randoms});
    QCOMPARE(sky.projection().kind(), SkyProjectionKind::Mollweide);
    QVERIFY(sky.projectionCombo()->itemText(0).contains(QStringLiteral("Mollweide")));
    // Both groups above the marker threshold: shaded rasters, every point in a cell.
    QVERIFY(data->size() > SkyPlot::kMaxPointsPerGroup);
    QVERIFY(sky.dataDensity() && sky.randomDensity());
    QCOMPARE(sky.plottedDataPoints(), 60000);
    QCOMPARE(sky.plottedRandomPoints(), 120000);
    sky.randomsCheck()->setChecked(false);
    QCOMPARE(sky.plottedRandomPoints(), 0);
    QVERIFY(!sky.randomDensity());
    // The user's choice wins over the automatic one, and Auto gives it back.
    sky.projectionCombo()->setCurrentIndex(2); // Hammer–Aitoff
    QCOMPARE(sky.projection().kind(), SkyProjectionKind::HammerAitoff);
    QCOMPARE(sky.plottedDataPoints(), 60000);
    sky.projectionCombo()->setCurrentIndex(0);
    QCOMPARE(sky.projection().kind(), SkyProjectionKind::Mollweide);
}

void TestSkyPlot::smallPatchSelectsPlainView() {
    SkyPlot sky;
    const auto data = uniform(500, Footprint::box(10, 30, 0, 10), 1);
    const auto randoms = uniform(2000, Footprint::box(10, 30, 0, 10), 2);
    sky.setCatalogs(data, {randoms});
    QCOMPARE(sky.projection().kind(), SkyProjectionKind::PlateCarree);
    QVERIFY(std::abs(sky.projection().centralRa() / kDeg - 20) < 0.5);
    // Few points: markers, not rasters.
    QVERIFY(!sky.dataDensity() && !sky.randomDensity());
    QCOMPARE(sky.plottedDataPoints(), 500);
    QCOMPARE(sky.plottedRandomPoints(), 2000);
    // The whole sky on request.
    sky.projectionCombo()->setCurrentIndex(1);
    QCOMPARE(sky.projection().kind(), SkyProjectionKind::Mollweide);
    QCOMPARE(sky.plottedDataPoints(), 500);
}

void TestSkyPlot::densityCellsSumToThePointsInView() {
    SkyPlot sky;
    sky.resize(900, 560);
    const auto data = uniform(200000, Footprint::fullSky(), 3);
    sky.setCatalogs(data, {});
    sky.plot()->replot(QCustomPlot::rpImmediateRefresh); // lays out, fits the view
    QTest::qWait(300);                                   // the re-bin after the fit
    QCOMPARE(sky.plottedDataPoints(), 200000);
    QCOMPARE(std::uint64_t(sky.plottedDataPoints()), pointsInView(sky, *data));
    // Zoomed in on part of the sky: the raster is re-binned for the view.
    sky.plot()->xAxis->setRange(-1.3, 0.4);
    sky.plot()->yAxis->setRange(-0.2, 0.65);
    QTest::qWait(400);
    const std::uint64_t inView = pointsInView(sky, *data);
    QVERIFY(inView > 1000 && inView < 100000);
    QCOMPARE(std::uint64_t(sky.plottedDataPoints()), inView);
    const QCPRange keys = sky.dataDensity()->data()->keyRange();
    QVERIFY(keys.lower > -1.3 && keys.upper < 0.4);
    // Reset view: the whole sky again.
    sky.resetView();
    QTest::qWait(400);
    QCOMPARE(sky.plottedDataPoints(), 200000);
}

void TestSkyPlot::knownPointLandsInItsCell_data() {
    QTest::addColumn<bool>("fullSky");
    QTest::addColumn<double>("raDeg");
    QTest::addColumn<double>("decDeg");
    QTest::newRow("mollweide") << true << 100.0 << 20.0;
    // The plain view over RA 0, where its RA axis runs 340°…380° and its columns right to left.
    QTest::newRow("plain over RA 0") << false << 3.7 << -6.2;
}

void TestSkyPlot::knownPointLandsInItsCell() {
    // 3000 points at one direction among 60000 uniform ones: their cell must be the fullest,
    // and it is the cell the raster's geometry puts that direction in.
    QFETCH(bool, fullSky);
    QFETCH(double, raDeg);
    QFETCH(double, decDeg);
    SkyPlot sky;
    const Footprint footprint = fullSky ? Footprint::fullSky() : Footprint::box(340, 20, -10, 10);
    sky.setCatalogs(withSpike(60000, footprint, raDeg, decDeg, 3000), {});
    QCPColorMap* map = sky.dataDensity();
    QVERIFY(map);
    double x = 0, y = 0;
    if (fullSky) {
        QCOMPARE(sky.projection().kind(), SkyProjectionKind::Mollweide);
        // Mollweide by hand: θ from 2θ + sin 2θ = π sin δ, x = −(2√2/π)Δλ cos θ, y = √2 sin θ.
        const double theta = SkyProjection::mollweideTheta(decDeg * kDeg);
        const double offset = std::remainder(raDeg * kDeg - sky.projection().centralRa(), 2 * kPi);
        x = -(2 * std::sqrt(2.0) / kPi) * offset * std::cos(theta);
        y = std::sqrt(2.0) * std::sin(theta);
    } else {
        QCOMPARE(sky.projection().kind(), SkyProjectionKind::PlateCarree);
        // RA unwrapped around the field's middle (0°), Dec as it is.
        x = raDeg + 360.0 * std::round((sky.projection().centralRa() / kDeg - raDeg) / 360.0);
        y = decDeg;
    }
    QVERIFY(std::abs(sky.mapPosition(raDeg * kDeg, decDeg * kDeg).x() - x) < 1e-9);
    QVERIFY(std::abs(sky.mapPosition(raDeg * kDeg, decDeg * kDeg).y() - y) < 1e-9);
    // Cell centres span the data's key/value ranges: cell i holds [centre_i ± width/2].
    QCPColorMapData* cells = map->data();
    const double width = cells->keyRange().size() / (cells->keySize() - 1);
    const double height = cells->valueRange().size() / (cells->valueSize() - 1);
    const int column = int(std::floor((x - cells->keyRange().lower) / width + 0.5));
    const int row = int(std::floor((y - cells->valueRange().lower) / height + 0.5));
    double fullest = 0;
    for (int i = 0; i < cells->keySize(); ++i)
        for (int j = 0; j < cells->valueSize(); ++j)
            if (std::isfinite(cells->cell(i, j)))
                fullest = std::max(fullest, cells->cell(i, j));
    QVERIFY2(cells->cell(column, row) >= 3000, qPrintable(QStringLiteral("cell (%1, %2) holds %3")
                                                              .arg(column)
                                                              .arg(row)
                                                              .arg(cells->cell(column, row))));
    QCOMPARE(cells->cell(column, row), fullest);
    QCOMPARE(sky.plottedDataPoints(), 63000);
}

void TestSkyPlot::regionsDrawnOnTop_data() {
    QTest::addColumn<int>("points");
    QTest::addColumn<bool>("raster");
    QTest::newRow("markers") << 4000 << false;
    QTest::newRow("raster") << 80000 << true;
}

void TestSkyPlot::regionsDrawnOnTop() {
    QFETCH(int, points);
    QFETCH(bool, raster);
    constexpr int kRegions = 4;
    SkyPlot sky;
    const auto data = uniform(std::size_t(points), Footprint::fullSky(), 5);
    sky.setCatalogs(data, {});
    QVERIFY(!sky.hasRegions());
    QCOMPARE(sky.plottedRegions(), 0);
    // Quadrants of RA as regions.
    auto labels = std::make_shared<std::vector<std::int32_t>>(data->size());
    for (std::size_t i = 0; i < data->size(); ++i)
        (*labels)[i] = std::int32_t(data->ra()[i] / (kPi / 2)) % kRegions;
    sky.setRegions(labels, kRegions);
    QVERIFY(sky.hasRegions());
    QVERIFY(sky.regionsCheck()->isEnabled());
    QCOMPARE(sky.regionsAsRaster(), raster);
    QCOMPARE(sky.plottedRegions(), kRegions);
    QVERIFY(sky.plot()->legend->item(sky.plot()->legend->itemCount() - 1));
    // For looking at it: TPACF_UI_GRAB_DIR=/some/dir keeps the map, whole and zoomed.
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        sky.resize(800, 480);
        sky.show();
        QVERIFY(QTest::qWaitForWindowExposed(&sky));
        QTest::qWait(300);
        const QString name =
            QStringLiteral("sky-regions-%1").arg(QString::fromUtf8(QTest::currentDataTag()));
        sky.grab().save(QDir(grabDir).filePath(name + QStringLiteral(".png")));
        sky.plot()->xAxis->scaleRange(0.3);
        sky.plot()->yAxis->scaleRange(0.3);
        QTest::qWait(400);
        sky.grab().save(QDir(grabDir).filePath(name + QStringLiteral("-zoomed.png")));
        sky.resetView();
        QTest::qWait(300);
    }
    sky.regionsCheck()->setChecked(false);
    QCOMPARE(sky.plottedRegions(), 0);
    sky.regionsCheck()->setChecked(true);
    QCOMPARE(sky.plottedRegions(), kRegions);
    // A region list of the wrong size is refused; new data drop the regions.
    sky.setRegions(std::make_shared<std::vector<std::int32_t>>(3, 0), kRegions);
    QVERIFY(!sky.hasRegions());
    QCOMPARE(sky.plottedRegions(), 0);
}

void TestSkyPlot::raIncreasesToTheLeft_data() {
    QTest::addColumn<bool>("fullSky");
    QTest::addColumn<double>("stepDeg");
    QTest::newRow("mollweide +30") << true << 30.0;
    QTest::newRow("plain +5") << false << 5.0;
}

void TestSkyPlot::raIncreasesToTheLeft() {
    QFETCH(bool, fullSky);
    QFETCH(double, stepDeg);
    SkyPlot sky;
    sky.resize(800, 500);
    sky.setCatalogs(
        uniform(3000, fullSky ? Footprint::fullSky() : Footprint::box(100, 130, -10, 10), 7), {});
    sky.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const double central = sky.projection().centralRa();
    const QPointF centre = sky.mapPosition(central, 0);
    const QPointF east = sky.mapPosition(central + stepDeg * kDeg, 0);
    if (fullSky) {
        // The map's x itself carries −ΔRA, on an axis that is not reversed.
        QCOMPARE(centre.x(), 0.0);
        QVERIFY(east.x() < 0);
        QVERIFY(!sky.plot()->xAxis->rangeReversed());
    } else {
        // The plain view's x is RA in degrees, on a reversed axis.
        QVERIFY(std::abs(east.x() - centre.x() - stepDeg) < 1e-9);
        QVERIFY(sky.plot()->xAxis->rangeReversed());
    }
    // Either way, on the screen: east of the centre is left of it.
    QVERIFY(sky.plot()->xAxis->coordToPixel(east.x()) <
            sky.plot()->xAxis->coordToPixel(centre.x()));
}

// Issue 35, item 15: a cross-correlation's second data catalog has its own layer (its own
// colour and legend entry, every point drawn), and its randoms go with the randoms; the view
// takes in both samples. As markers and, above the marker threshold, as a density raster.
void TestSkyPlot::secondSampleDrawnApart_data() {
    QTest::addColumn<int>("count");
    QTest::newRow("markers") << 3000;
    QTest::newRow("raster") << int(SkyPlot::kMaxPointsPerGroup) + 5000;
}

void TestSkyPlot::secondSampleDrawnApart() {
    QFETCH(int, count);
    SkyPlot sky;
    sky.resize(800, 480);
    // D1 and D2 in two fields 40 degrees apart; each sample's randoms over its own field.
    const auto data = uniform(std::size_t(count), Footprint::box(150, 170, 0, 20), 1);
    const auto data2 = uniform(std::size_t(count) / 2, Footprint::box(200, 220, 10, 30), 2);
    const auto randoms = uniform(4000, Footprint::box(150, 170, 0, 20), 3);
    const auto randoms2 = uniform(3000, Footprint::box(200, 220, 10, 30), 4);
    sky.setCatalogs(data, {randoms}, data2, {randoms2});
    QCOMPARE(sky.plottedDataPoints(), count);
    QCOMPARE(sky.plottedData2Points(), count / 2);
    QCOMPARE(sky.plottedRandomPoints(), 7000);
    // Every D2 point in view, so the fitted view covers the second field too.
    std::size_t inView = 0;
    for (std::size_t i = 0; i < data2->size(); ++i) {
        const QPointF at = sky.mapPosition(data2->ra()[i], data2->dec()[i]);
        inView += sky.plot()->xAxis->range().contains(at.x()) &&
                  sky.plot()->yAxis->range().contains(at.y());
    }
    QCOMPARE(inView, data2->size());
    QStringList names;
    for (int i = 0; i < sky.plot()->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(sky.plot()->legend->item(i)))
            names.append(item->plottable()->name());
    QVERIFY2(names.filter(QStringLiteral("data D1")).size() == 1, qPrintable(names.join(QLatin1Char('|'))));
    QVERIFY2(names.filter(QStringLiteral("data D2")).size() == 1, qPrintable(names.join(QLatin1Char('|'))));
    // Its own colour: the D2 legend key is not D1's.
    QCPGraph* first = nullptr;
    QCPGraph* second = nullptr;
    for (int i = 0; i < sky.plot()->graphCount(); ++i) {
        QCPGraph* graph = sky.plot()->graph(i);
        if (graph->name().startsWith(QStringLiteral("data D1")))
            first = graph;
        if (graph->name().startsWith(QStringLiteral("data D2")))
            second = graph;
    }
    QVERIFY(first && second);
    QVERIFY(first->scatterStyle().pen().color() != second->scatterStyle().pen().color() ||
            first->scatterStyle().brush().color() != second->scatterStyle().brush().color());
    // Back to one sample: the layer goes.
    sky.setCatalogs(data, {randoms});
    QCOMPARE(sky.plottedData2Points(), 0);
    QCOMPARE(sky.plottedRandomPoints(), 4000);
    if (const QString grabDir = qEnvironmentVariable("TPACF_UI_GRAB_DIR"); !grabDir.isEmpty()) {
        sky.setCatalogs(data, {randoms}, data2, {randoms2});
        sky.show();
        QVERIFY(QTest::qWaitForWindowExposed(&sky));
        QTest::qWait(300);
        sky.grab().save(QDir(grabDir).filePath(
            QStringLiteral("sky-d2-%1.png").arg(QString::fromUtf8(QTest::currentDataTag()))));
    }
}

// Issue 35, big catalogs: above kProjectAtOnce points the projection runs on a worker thread
// (setCatalogs returns with the old drawing kept), the result is drawn when it comes, and a
// request replaced meanwhile is never drawn.
void TestSkyPlot::bigCatalogsAreProjectedAside() {
    SkyPlot sky;
    const std::size_t half = SkyPlot::kProjectAtOnce / 2 + 1000;
    const auto small = uniform(2000, Footprint::box(150, 170, 0, 20), 1);
    sky.setCatalogs(small, {});
    QVERIFY(!sky.isProjecting());
    QCOMPARE(sky.plottedDataPoints(), 2000);

    const auto first = uniform(half, Footprint::box(150, 170, 0, 20), 2);
    const auto firstRandoms = uniform(half, Footprint::box(150, 170, 0, 20), 3);
    const auto second = uniform(half + 7, Footprint::fullSky(), 4);
    const auto secondRandoms = uniform(half, Footprint::fullSky(), 5);
    QSignalSpy done(&sky, &SkyPlot::projectionDone);
    sky.setCatalogs(first, {firstRandoms});
    QVERIFY(sky.isProjecting());
    QCOMPARE(sky.plottedDataPoints(), 2000); // the old drawing, until the new one is ready
    sky.setCatalogs(second, {secondRandoms}); // replaces the request under way
    QVERIFY(sky.isProjecting());
    QVERIFY(done.wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(!sky.isProjecting(), 60000);
    QTest::qWait(100); // a late result of the first request would arrive by now
    QCOMPARE(done.count(), 1);
    // The second request's points: the whole sky in a Mollweide map, every point of the even
    // subsample (every k-th point, at most kMaxDensityPoints a group) binned.
    const auto binned = [](std::size_t total) {
        const std::size_t cap = SkyPlot::kMaxDensityPoints;
        const std::size_t stride = (total + cap - 1) / cap;
        return int((total + stride - 1) / stride);
    };
    QCOMPARE(sky.projection().kind(), SkyProjectionKind::Mollweide);
    QCOMPARE(sky.plottedDataPoints(), binned(half + 7));
    QCOMPARE(sky.plottedRandomPoints(), binned(half));
}

TPACF_TEST_MAIN(TestSkyPlot)
#include "test_sky_plot.moc"
