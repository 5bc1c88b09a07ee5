// SPDX-License-Identifier: GPL-3.0-or-later
// Jackknife regions on several threads: nearest centres against a brute-force scan (ties to the
// lowest index), region-ordered copies against a stable sort of indices, region shares against
// the sequential sums, and every result the same for 1 and several threads. Catalogs span
// several of the fixed 2^16-point pieces the counting sort cuts them into.
#include "tpacf/errors.h"
#include "tpacf/jackknife.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace tpacf;

namespace {

// Uniform over the sphere; weights in (0.5, 1.5] when `weighted`.
Catalog sphere(std::size_t n, std::uint64_t seed, bool weighted, const std::string& name) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n), weight;
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 2 * M_PI * unit(rng);
        dec[i] = std::asin(2 * unit(rng) - 1);
        if (weighted)
            weight.push_back(1.5 - unit(rng));
    }
    return Catalog::fromRadians(name, std::move(ra), std::move(dec), std::move(weight));
}

std::vector<std::int32_t> bruteNearest(const Catalog& c, const std::vector<RegionCentre>& centres) {
    std::vector<std::int32_t> regions(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
        double best = -std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < centres.size(); ++k) {
            const double d =
                c.x()[i] * centres[k].x + c.y()[i] * centres[k].y + c.z()[i] * centres[k].z;
            if (d > best) {
                best = d;
                regions[i] = static_cast<std::int32_t>(k);
            }
        }
    }
    return regions;
}

} // namespace

class TestJackknifeRegions : public QObject {
    Q_OBJECT
private slots:
    void nearestMatchesBruteForce_data();
    void nearestMatchesBruteForce();
    void nearestTiesTakeLowestIndex();
    void nearestOnGridEdgesMatchesBruteForce();
    void kMeansSameForAnyThreads();
    void orderedCopiesMatchStableSort_data();
    void orderedCopiesMatchStableSort();
    void orderedCopiesRejectBadRegions();
    void sharesMatchSequentialSums_data();
    void sharesMatchSequentialSums();
};

void TestJackknifeRegions::nearestMatchesBruteForce_data() {
    QTest::addColumn<int>("threads");
    QTest::newRow("1 thread") << 1;
    QTest::newRow("3 threads") << 3;
    QTest::newRow("all threads") << 0;
}

// K = 8: 500 000 points a worker at least, so 1.2 million points over three catalogs (one
// tiny) are cut across catalog boundaries.
void TestJackknifeRegions::nearestMatchesBruteForce() {
    QFETCH(int, threads);
    const Catalog a = sphere(700000, 1, false, "a"), b = sphere(3, 2, false, "b"),
                  c = sphere(500000, 3, false, "c");
    const Catalog sample = sphere(20000, 4, false, "sample");
    const std::vector<RegionCentre> centres = kMeansRegionCentres(sample, 8, 1, threads);
    const Catalog* all[] = {&a, &b, &c};
    const auto regions = nearestCentreRegionsOf(all, centres, threads);
    QCOMPARE(regions.size(), std::size_t{3});
    QVERIFY(regions[0] == bruteNearest(a, centres));
    QVERIFY(regions[1] == bruteNearest(b, centres));
    QVERIFY(regions[2] == bruteNearest(c, centres));
    QVERIFY(nearestCentreRegions(c, centres, threads) == regions[2]);
}

void TestJackknifeRegions::nearestTiesTakeLowestIndex() {
    const Catalog c = Catalog::fromDegrees("ties", {0, 90, 45}, {0, 0, 0});
    // Centres 1 and 2 are the same; the point at RA 45° is as near to centre 0 as to 1.
    const RegionCentre east{0, 1, 0}, origin{1, 0, 0};
    const std::vector<RegionCentre> centres{origin, east, east};
    const auto regions = nearestCentreRegions(c, centres, 2);
    QCOMPARE(regions[0], 0);
    QCOMPARE(regions[1], 1);
    QCOMPARE(regions[2], bruteNearest(c, centres)[2]);
}

// Enough points for the 2° cell grid: points on cell edges (multiples of 2°), at the poles and
// at RA 0, against K = 300 random centres with duplicates (exact ties) and centres at the poles.
void TestJackknifeRegions::nearestOnGridEdgesMatchesBruteForce() {
    std::vector<double> raDeg, decDeg;
    for (int dec = -90; dec <= 90; ++dec)
        for (int ra = 0; ra < 360; ra += 1) {
            raDeg.push_back(ra);
            decDeg.push_back(dec);
        }
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    while (raDeg.size() < 200000) {
        raDeg.push_back(360 * unit(rng));
        decDeg.push_back(std::asin(2 * unit(rng) - 1) * 180 / M_PI);
    }
    const Catalog edges = Catalog::fromDegrees("edges", raDeg, decDeg);
    const Catalog some = sphere(300, 42, false, "centres");
    std::vector<RegionCentre> centres;
    for (std::size_t i = 0; i < some.size(); ++i)
        centres.push_back({some.x()[i], some.y()[i], some.z()[i]});
    centres.push_back(centres[17]);
    centres.push_back(centres[5]);
    centres.push_back({0, 0, 1});
    centres.push_back({0, 0, -1});
    QVERIFY(nearestCentreRegions(edges, centres, 3) == bruteNearest(edges, centres));
}

// K = 450: a subsample of 18 000 points, so a Lloyd step's labels go to two workers.
void TestJackknifeRegions::kMeansSameForAnyThreads() {
    const Catalog data = sphere(30000, 7, false, "data");
    const auto one = kMeansRegionCentres(data, 450, 3, 1);
    const auto many = kMeansRegionCentres(data, 450, 3, 4);
    QCOMPARE(many.size(), one.size());
    for (std::size_t c = 0; c < one.size(); ++c) {
        QCOMPARE(many[c].x, one[c].x);
        QCOMPARE(many[c].y, one[c].y);
        QCOMPARE(many[c].z, one[c].z);
    }
}

void TestJackknifeRegions::orderedCopiesMatchStableSort_data() {
    QTest::addColumn<int>("threads");
    QTest::addColumn<bool>("weighted");
    QTest::newRow("1 thread") << 1 << false;
    QTest::newRow("3 threads") << 3 << false;
    QTest::newRow("3 threads, weighted") << 3 << true;
}

void TestJackknifeRegions::orderedCopiesMatchStableSort() {
    QFETCH(int, threads);
    QFETCH(bool, weighted);
    const Catalog a = sphere(200000, 11, weighted, "a"), b = sphere(1000, 12, weighted, "b"),
                  empty = sphere(0, 13, weighted, "empty");
    // Labels that revisit regions across pieces; b's largest label is smaller than a's.
    std::vector<std::int32_t> ra(a.size()), rb(b.size()), none;
    for (std::size_t i = 0; i < ra.size(); ++i)
        ra[i] = static_cast<std::int32_t>((i * 7919 + i / 70000) % 37);
    for (std::size_t i = 0; i < rb.size(); ++i)
        rb[i] = static_cast<std::int32_t>((i * 31) % 5);
    const Catalog* catalogs[] = {&a, &b, &empty};
    const std::vector<std::int32_t>* regions[] = {&ra, &rb, &none};
    const std::vector<Catalog> copies = regionOrderedCopies(catalogs, regions, threads);
    QCOMPARE(copies.size(), std::size_t{3});
    QCOMPARE(copies[2].size(), std::size_t{0});
    for (std::size_t c = 0; c < 2; ++c) {
        const Catalog& in = *catalogs[c];
        const Catalog& out = copies[c];
        const std::vector<std::int32_t>& labels = *regions[c];
        std::vector<std::size_t> order(in.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t p, std::size_t q) { return labels[p] < labels[q]; });
        QCOMPARE(out.size(), in.size());
        QCOMPARE(out.name(), in.name());
        QCOMPARE(out.hasWeights(), weighted);
        for (std::size_t at = 0; at < order.size(); ++at) {
            const std::size_t i = order[at];
            if (out.region()[at] != labels[i] || out.ra()[at] != in.ra()[i] ||
                out.dec()[at] != in.dec()[i] || out.x()[at] != in.x()[i] ||
                out.y()[at] != in.y()[i] || out.z()[at] != in.z()[i] ||
                (weighted && out.weight()[at] != in.weight()[i]))
                QFAIL(qPrintable(QStringLiteral("catalog %1: point %2 of the copy is not point "
                                                "%3 of the original")
                                     .arg(c)
                                     .arg(at)
                                     .arg(i)));
        }
    }
    const Catalog single = regionOrderedCopy(a, ra, threads);
    QVERIFY(std::equal(single.x().begin(), single.x().end(), copies[0].x().begin()));
}

void TestJackknifeRegions::orderedCopiesRejectBadRegions() {
    const Catalog a = sphere(150000, 21, false, "negative.txt");
    std::vector<std::int32_t> labels(a.size(), 1);
    labels[140000] = -4; // in the third piece
    labels[141000] = -9;
    try {
        (void)regionOrderedCopy(a, labels, 3);
        QFAIL("a negative region was accepted");
    } catch (const ConfigError& error) {
        const std::string text = error.what();
        QVERIFY2(text.find("'negative.txt'") != std::string::npos, error.what());
        QVERIFY2(text.find("negative region -4") != std::string::npos, error.what());
    }
    const Catalog* catalogs[] = {&a};
    const std::vector<std::int32_t> shorter(10, 0);
    const std::vector<std::int32_t>* wrongSize[] = {&shorter};
    QVERIFY_THROWS_EXCEPTION(ConfigError, regionOrderedCopies(catalogs, wrongSize, 2));
}

void TestJackknifeRegions::sharesMatchSequentialSums_data() {
    QTest::addColumn<bool>("weighted");
    QTest::addColumn<bool>("ordered");
    QTest::addColumn<int>("threads");
    QTest::newRow("unweighted, 1 thread") << false << false << 1;
    QTest::newRow("unweighted, ordered, 3 threads") << false << true << 3;
    QTest::newRow("weighted, unordered, 3 threads") << true << false << 3;
    QTest::newRow("weighted, ordered, 1 thread") << true << true << 1;
    QTest::newRow("weighted, ordered, 3 threads") << true << true << 3;
}

// The shares against the one loop in point order they were computed by before, bit for bit.
void TestJackknifeRegions::sharesMatchSequentialSums() {
    QFETCH(bool, weighted);
    QFETCH(bool, ordered);
    QFETCH(int, threads);
    constexpr std::size_t kRegions = 40;
    const Catalog base = sphere(180000, 31, weighted, "shares");
    std::vector<std::int32_t> labels(base.size());
    for (std::size_t i = 0; i < labels.size(); ++i)
        labels[i] = static_cast<std::int32_t>((i * 104729) % (kRegions - 1)); // region 39 empty
    const Catalog unordered = Catalog::fromRadians(
        "shares", std::vector<double>(base.ra().begin(), base.ra().end()),
        std::vector<double>(base.dec().begin(), base.dec().end()),
        std::vector<double>(base.weight().begin(), base.weight().end()), labels);
    const Catalog c = ordered ? regionOrderedCopy(base, labels, threads) : unordered;

    std::vector<std::uint64_t> points(kRegions, 0);
    std::vector<WeightSums> sums(kRegions);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const auto r = static_cast<std::size_t>(c.region()[i]);
        const double w = weighted ? c.weight()[i] : 1.0;
        ++points[r];
        sums[r].sum += w;
        sums[r].sumSquares += w * w;
    }
    const RegionShares shares = RegionShares::of(c, kRegions, threads);
    QVERIFY(shares.points == points);
    for (std::size_t r = 0; r < kRegions; ++r) {
        QCOMPARE(shares.weights[r].sum, sums[r].sum);
        QCOMPARE(shares.weights[r].sumSquares, sums[r].sumSquares);
    }
    QVERIFY_THROWS_EXCEPTION(ConfigError, RegionShares::of(c, kRegions - 5, threads));
}

TPACF_TEST_MAIN(TestJackknifeRegions)
#include "test_jackknife_regions.moc"
