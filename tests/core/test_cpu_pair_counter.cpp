// SPDX-License-Identifier: GPL-3.0-or-later
// CpuPairCounter, the exact reference: counts against a naive double loop written here, closed
// forms (known separations, pairs exactly on an edge, uniform points on the sphere), the
// scheduling over batches and threads, progress, cancellation and errors; weighted counts
// (Σ w_i·w_j per bin) against a double loop, plain, in shares and by region.
#include "tpacf_test_main.h"
#include "cancel_latency.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

using tpacf::AngleUnit;
using tpacf::Binning;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::CountControl;
using tpacf::CountProgress;
using tpacf::CountTask;
using tpacf::CpuKernel;
using tpacf::CpuPairCounter;
using tpacf::CullingMode;
using tpacf::PairCounts;
using tpacf::RegionPairCounts;
using tpacf::TaskCounts;
using tpacf::WeightedCounts;
using tpacf::WorkShare;

namespace {

constexpr double kPi = 3.14159265358979323846;

BinSpec logBins() {
    return BinSpec::logPerDecade(0.01, 10000.0, AngleUnit::Arcminute, 5.0);
}
BinSpec linearBins() {
    return BinSpec::linearWidth(0.0, 90.0, AngleUnit::Degree, 2.5);
}
// "dense": so many bins that the backend's lookup cells hold several edges each.
BinSpec binsNamed(const QString& name) {
    if (name == QLatin1String("log"))
        return logBins();
    if (name == QLatin1String("dense-log"))
        return BinSpec::logCount(0.01, 10000.0, AngleUnit::Arcminute, 10000);
    if (name == QLatin1String("dense-linear"))
        return BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 10000);
    return linearBins();
}

CpuKernel kernelNamed(const QString& name) {
    return name == QLatin1String("portable") ? CpuKernel::Portable : CpuKernel::Best;
}

// Points on several scales around one centre, plus some over the whole sphere, so that every
// bin from 0.01′ to 90° sees pairs.
Catalog mixedCatalog(std::size_t n, std::uint64_t seed, const std::string& name = "mixed") {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double scales[] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.3};
    std::vector<double> ra(n), dec(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t pick = rng() % 8;
        if (pick >= 6) {
            ra[i] = 2 * kPi * unit(rng);
            dec[i] = std::asin(2 * unit(rng) - 1);
        } else {
            ra[i] = 1.0 + scales[pick] * (2 * unit(rng) - 1);
            dec[i] = 0.4 + scales[pick] * (2 * unit(rng) - 1);
        }
    }
    return Catalog::fromRadians(name, std::move(ra), std::move(dec));
}

Catalog uniformSphere(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n);
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 2 * kPi * unit(rng);
        dec[i] = std::asin(2 * unit(rng) - 1);
    }
    return Catalog::fromRadians("uniform", std::move(ra), std::move(dec));
}

// The contract's squared chord, written out here on its own: (dx² + dy²) + dz², each operation
// rounded separately (plain x86-64 has no FMA for the compiler to contract into).
double contractChord2(const Catalog& a, std::size_t i, const Catalog& b, std::size_t j) {
    const double dx = a.x()[i] - b.x()[j];
    const double dy = a.y()[i] - b.y()[j];
    const double dz = a.z()[i] - b.z()[j];
    return dx * dx + dy * dy + dz * dz;
}

// Reference counts: every pair, binned by a binary search over the thresholds.
PairCounts naiveCounts(const Catalog& a, const Catalog* b, const Binning& binning) {
    const auto t = binning.chord2Edges();
    PairCounts counts(binning.count(), 0);
    const Catalog& second = b ? *b : a;
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = b ? 0 : i + 1; j < second.size(); ++j) {
            const double c2 = contractChord2(a, i, second, j);
            // The first threshold above c2; the pair's bin is the one below it.
            const auto above = std::upper_bound(t.begin(), t.end(), c2);
            if (above == t.begin() || above == t.end())
                continue;
            ++counts[std::size_t(above - t.begin()) - 1];
        }
    }
    return counts;
}

// naiveCounts computed once per key (the catalogs and bins it names): rows that differ only in
// threads, kernel or culling share one reference, which under the sanitizers is most of a row's
// time.
const PairCounts& cachedNaive(const QString& key, const Catalog& a, const Catalog* b,
                              const Binning& binning) {
    static std::map<QString, PairCounts> cache;
    const auto known = cache.find(key);
    if (known != cache.end())
        return known->second;
    return cache.emplace(key, naiveCounts(a, b, binning)).first->second;
}

std::uint64_t sum(const PairCounts& counts) {
    return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

QByteArray describe(const PairCounts& got, const PairCounts& want) {
    QByteArray text;
    for (std::size_t k = 0; k < got.size() && k < want.size(); ++k)
        if (got[k] != want[k])
            text += "bin " + QByteArray::number(qulonglong(k)) + ": got " +
                    QByteArray::number(qulonglong(got[k])) + ", want " +
                    QByteArray::number(qulonglong(want[k])) + "; ";
    return text;
}

#define COMPARE_COUNTS(got, want)                                                                  \
    do {                                                                                           \
        const PairCounts& got_ = (got);                                                            \
        const PairCounts& want_ = (want);                                                          \
        QCOMPARE(got_.size(), want_.size());                                                       \
        QVERIFY2(got_ == want_, describe(got_, want_).constData());                                \
    } while (false)

// A pair of points whose contract c² equals `target` exactly. The first point is fixed at
// (ra0, dec0); the second sits half the separation away in Dec (so that dx, dy and dz all differ
// from zero and the order of the additions matters) and its RA is solved for: a few secant
// steps on the exact c², then a walk of one ulp at a time in both directions. Returns false
// when no step lands exactly on the target (the caller then tries another first point).
bool findPairAt(double target, double ra0, double dec0, Catalog& pair) {
    const double angle = 2 * std::asin(std::sqrt(target) / 2);
    const double dec1 = dec0 > 0 ? dec0 - angle / 2 : dec0 + angle / 2;
    const auto chord2At = [&](double ra) {
        Catalog c = Catalog::fromRadians("pair", {ra0, ra}, {dec0, dec1});
        const double c2 = contractChord2(c, 0, c, 1);
        if (c2 == target)
            pair = std::move(c);
        return c2;
    };
    // cos θ = sin d0 sin d1 + cos d0 cos d1 cos ΔRA, with cos θ = 1 − c²/2.
    const double cosDelta =
        (1 - target / 2 - std::sin(dec0) * std::sin(dec1)) / (std::cos(dec0) * std::cos(dec1));
    double ra = ra0 + std::acos(std::clamp(cosDelta, -1.0, 1.0));
    double previousRa = ra * (1 + 1e-9) + 1e-12, previousC2 = chord2At(previousRa);
    for (int step = 0; step < 30; ++step) {
        const double c2 = chord2At(ra);
        if (c2 == target)
            return true;
        if (c2 == previousC2)
            break;
        const double next = ra + (target - c2) * (ra - previousRa) / (c2 - previousC2);
        if (!std::isfinite(next) || next == ra)
            break;
        previousRa = ra;
        previousC2 = c2;
        ra = next;
    }
    double up = ra, down = ra;
    for (int steps = 0; steps < 3000; ++steps) {
        up = std::nextafter(up, 100.0);
        down = std::nextafter(down, -100.0);
        if (chord2At(up) == target || chord2At(down) == target)
            return true;
    }
    return false;
}

// A mixedCatalog with weights ("positive": in [0.1, 3); "signed": in [−1, 2), some negative;
// "none": no weights) and, where regionCount > 0, regions by RA sector, not in catalog order.
Catalog weightedCatalog(std::size_t n, std::uint64_t seed, const QString& weights,
                        int regionCount = 0) {
    const Catalog base = mixedCatalog(n, seed);
    std::mt19937_64 rng(seed * 7919 + 1);
    std::uniform_real_distribution<double> positive(0.1, 3.0), mixed(-1.0, 2.0);
    std::vector<double> weight;
    if (weights != QLatin1String("none"))
        for (std::size_t i = 0; i < n; ++i)
            weight.push_back(weights == QLatin1String("signed") ? mixed(rng) : positive(rng));
    std::vector<std::int32_t> region;
    if (regionCount > 0)
        for (std::size_t i = 0; i < n; ++i) {
            // Sectors of RA around the clustered centre (RA ≈ 1 rad), and a scatter of points
            // whose region ignores position, so regions interleave in the catalog.
            const double ra = base.ra()[i];
            const auto sector =
                static_cast<std::int32_t>(std::floor((ra - 1.0 + 0.3) / 0.6 * regionCount * 4)) %
                regionCount;
            region.push_back(i % 11 == 0 ? std::int32_t(rng() % std::uint64_t(regionCount))
                                         : (sector + regionCount) % regionCount);
        }
    return Catalog::fromRadians(base.name(), {base.ra().begin(), base.ra().end()},
                                {base.dec().begin(), base.dec().end()}, std::move(weight),
                                std::move(region));
}

// The reference for weighted counts, written out here: every pair, binned by
// Binning::binOfChord2 on the contract's c², its weight product w_i·w_j (pointWeight) summed in
// long double, and Σ|w_i·w_j| beside it for tolerances; optionally keyed by region.
struct WeightedReference {
    PairCounts raw;
    std::vector<long double> weighted, magnitude;
    // By region (regionCount × bins, row-major): pairs touching the region, and within it.
    std::vector<long double> touching, within, touchingMagnitude, withinMagnitude;
};

WeightedReference bruteWeighted(const Catalog& a, const Catalog* b, const Binning& binning,
                                std::size_t regionCount = 0) {
    const std::size_t bins = binning.count();
    WeightedReference ref;
    ref.raw.assign(bins, 0);
    ref.weighted.assign(bins, 0);
    ref.magnitude.assign(bins, 0);
    ref.touching.assign(regionCount * bins, 0);
    ref.within.assign(regionCount * bins, 0);
    ref.touchingMagnitude.assign(regionCount * bins, 0);
    ref.withinMagnitude.assign(regionCount * bins, 0);
    const Catalog& second = b ? *b : a;
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = b ? 0 : i + 1; j < second.size(); ++j) {
            const int bin = binning.binOfChord2(contractChord2(a, i, second, j));
            if (bin < 0)
                continue;
            const auto k = std::size_t(bin);
            const double product = tpacf::pointWeight(a, i) * tpacf::pointWeight(second, j);
            ++ref.raw[k];
            ref.weighted[k] += product;
            ref.magnitude[k] += std::abs(product);
            if (regionCount == 0)
                continue;
            const auto ra = std::size_t(a.region()[i]), rb = std::size_t(second.region()[j]);
            ref.touching[ra * bins + k] += product;
            ref.touchingMagnitude[ra * bins + k] += std::abs(product);
            if (rb != ra) {
                ref.touching[rb * bins + k] += product;
                ref.touchingMagnitude[rb * bins + k] += std::abs(product);
            } else {
                ref.within[ra * bins + k] += product;
                ref.withinMagnitude[ra * bins + k] += std::abs(product);
            }
        }
    }
    return ref;
}

// bruteWeighted of a weighted row's catalogs, computed once per catalogs and bins (the rows
// differ in threads and culling only).
const WeightedReference& cachedReference(const QString& key, const Catalog& a, const Catalog* b,
                                         const Binning& binning, std::size_t regionCount = 0) {
    static std::map<QString, WeightedReference> cache;
    const auto known = cache.find(key);
    if (known != cache.end())
        return known->second;
    return cache.emplace(key, bruteWeighted(a, b, binning, regionCount)).first->second;
}

// got within 1e-12 of want relative to Σ|w_i·w_j| of the bin (for positive weights that is the
// bin's sum itself); an empty bin must be exactly 0.
QByteArray compareWeighted(const std::vector<double>& got, const std::vector<long double>& want,
                           const std::vector<long double>& magnitude, const char* what) {
    if (got.size() != want.size())
        return QByteArray(what) + ": " + QByteArray::number(qulonglong(got.size())) +
               " values, want " + QByteArray::number(qulonglong(want.size()));
    QByteArray text;
    for (std::size_t k = 0; k < got.size(); ++k) {
        const long double error = std::abs(static_cast<long double>(got[k]) - want[k]);
        if (error > 1e-12L * magnitude[k] || (magnitude[k] == 0 && got[k] != 0))
            text += QByteArray(what) + " " + QByteArray::number(qulonglong(k)) + ": got " +
                    QByteArray::number(got[k], 'g', 17) + ", want " +
                    QByteArray::number(double(want[k]), 'g', 17) + "; ";
    }
    return text;
}

#define COMPARE_WEIGHTED(got, want, magnitude, what)                                               \
    do {                                                                                           \
        const QByteArray problems_ = compareWeighted((got), (want), (magnitude), (what));          \
        QVERIFY2(problems_.isEmpty(), problems_.constData());                                      \
    } while (false)

// Small log bins (the culled path counts runs and adds cell pairs whole) or linear 2.5° bins
// from 0 (a cell smaller than 2.5° then lies whole in bin 0 with itself: ((Σw)² − Σw²)/2).
Binning weightedBinning(const QString& bins) {
    return bins == QLatin1String("small")
               ? Binning(BinSpec::logCount(0.01, 60.0, AngleUnit::Arcminute, 12))
               : Binning(linearBins());
}

void addWeightedRows() {
    QTest::addColumn<QString>("kind");    // auto, cross, unweighted-first, unweighted-second
    QTest::addColumn<QString>("weights"); // positive, signed
    QTest::addColumn<QString>("bins");
    QTest::addColumn<bool>("culled");
    QTest::addColumn<int>("threads");
    for (const char* kind : {"auto", "cross", "unweighted-first", "unweighted-second"})
        for (const char* weights : {"positive", "signed"})
            for (const char* bins : {"linear", "small"})
                for (bool culled : {false, true})
                    for (int threads : {1, 2, 3})
                        QTest::addRow("%s %s %s %s threads=%d", kind, weights, bins,
                                      culled ? "culled" : "brute", threads)
                            << QString::fromLatin1(kind) << QString::fromLatin1(weights)
                            << QString::fromLatin1(bins) << culled << threads;
}

// The catalogs of a weighted row: `first` and (cross) `second`, one of them without weights
// where the kind says so.
struct WeightedPair {
    Catalog first, second;
    bool cross = false;
    CountTask task() const { return {&first, cross ? &second : nullptr}; }
};

WeightedPair weightedPair(const QString& kind, const QString& weights, int regionCount = 0) {
    WeightedPair p;
    p.cross = kind != QLatin1String("auto");
    const QString none = QStringLiteral("none");
    p.first = weightedCatalog(1600, 41, kind == QLatin1String("unweighted-first") ? none : weights,
                              regionCount);
    p.second = weightedCatalog(
        1200, 42, kind == QLatin1String("unweighted-second") ? none : weights, regionCount);
    return p;
}

} // namespace

class TestCpuPairCounter : public QObject {
    Q_OBJECT

private slots:
    void pairTotal_data();
    void pairTotal();
    void deviceDescription();
    void autoMatchesNaive_data();
    void autoMatchesNaive();
    void crossMatchesNaive_data();
    void crossMatchesNaive();
    void batchMatchesNaive_data();
    void batchMatchesNaive();
    void kernelsAgree();
    void duplicatePoints_data();
    void duplicatePoints();
    void knownSeparations_data();
    void knownSeparations();
    void pairExactlyOnEdge_data();
    void pairExactlyOnEdge();
    void edgePairsAmongNeighbours_data();
    void edgePairsAmongNeighbours();
    void uniformSphereFractions_data();
    void uniformSphereFractions();
    void emptyCatalogs();
    void taskWithoutCatalog();
    void progressReachesTotal();
    void cancelBeforeStart();
    void cancelWhileCounting_data();
    void cancelWhileCounting();
    void callbackExceptionPropagates();
    void weightedMatchesBruteForce_data();
    void weightedMatchesBruteForce();
    void weightedSharesAddUp_data();
    void weightedSharesAddUp();
    void weightedByRegion_data();
    void weightedByRegion();
    void weightedProgress_data();
    void weightedProgress();
};

void TestCpuPairCounter::pairTotal_data() {
    QTest::addColumn<qulonglong>("first");
    QTest::addColumn<qlonglong>("second"); // -1: auto
    QTest::addColumn<qulonglong>("expected");
    QTest::newRow("auto 0") << 0ull << -1ll << 0ull;
    QTest::newRow("auto 1") << 1ull << -1ll << 0ull;
    QTest::newRow("auto 2") << 2ull << -1ll << 1ull;
    QTest::newRow("auto 1000") << 1000ull << -1ll << 499500ull;
    QTest::newRow("cross 0x5") << 0ull << 5ll << 0ull;
    QTest::newRow("cross 7x3") << 7ull << 3ll << 21ull;
}

void TestCpuPairCounter::pairTotal() {
    QFETCH(qulonglong, first);
    QFETCH(qlonglong, second);
    QFETCH(qulonglong, expected);
    const Catalog a = mixedCatalog(first, 1);
    const Catalog b = mixedCatalog(second < 0 ? 0 : std::size_t(second), 2);
    const CountTask task{&a, second < 0 ? nullptr : &b};
    QCOMPARE(task.pairTotal(), std::uint64_t(expected));
    QCOMPARE(CountTask{}.pairTotal(), std::uint64_t{0});
}

void TestCpuPairCounter::deviceDescription() {
    QCOMPARE(CpuPairCounter(1).deviceDescription(), std::string("CPU, 1 thread"));
    QCOMPARE(CpuPairCounter(3).deviceDescription(), std::string("CPU, 3 threads"));
    QVERIFY(CpuPairCounter().threadCount() >= 1);
    QCOMPARE(CpuPairCounter().backendName(), std::string("cpu"));
    QCOMPARE(CpuPairCounter(1, CpuKernel::Portable).kernelName(), std::string("portable"));
    QVERIFY(CpuPairCounter().precision() == tpacf::Precision::Double);
}

void TestCpuPairCounter::autoMatchesNaive_data() {
    QTest::addColumn<int>("size");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<int>("threads");
    QTest::addColumn<QString>("kernel");
    const int sizes[] = {0, 1, 2, 3, 31, 33, 257, 1000, 1025, 2600};
    for (int size : sizes)
        for (const char* bins : {"log", "linear"})
            for (int threads : {1, 2, 3})
                for (const char* kernel : {"best", "portable"})
                    QTest::addRow("N=%d %s threads=%d %s", size, bins, threads, kernel)
                        << size << QString::fromLatin1(bins) << threads
                        << QString::fromLatin1(kernel);
    for (int size : {33, 1000, 2600})
        for (const char* bins : {"dense-log", "dense-linear"})
            for (const char* kernel : {"best", "portable"})
                QTest::addRow("N=%d %s threads=2 %s", size, bins, kernel)
                    << size << QString::fromLatin1(bins) << 2 << QString::fromLatin1(kernel);
}

void TestCpuPairCounter::autoMatchesNaive() {
    QFETCH(int, size);
    QFETCH(QString, bins);
    QFETCH(int, threads);
    QFETCH(QString, kernel);
    const Catalog catalog = mixedCatalog(std::size_t(size), 1000 + std::uint64_t(size));
    const Binning binning(binsNamed(bins));
    CpuPairCounter counter(threads, kernelNamed(kernel));
    const PairCounts counts = counter.countAuto(catalog, binning);
    COMPARE_COUNTS(counts, cachedNaive(QStringLiteral("auto %1 ").arg(size) + bins, catalog,
                                       nullptr, binning));
    if (size >= 1000) // the catalogs are built so that most bins are populated
        QVERIFY(sum(counts) > 0);
}

void TestCpuPairCounter::crossMatchesNaive_data() {
    QTest::addColumn<int>("sizeA");
    QTest::addColumn<int>("sizeB");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<int>("threads");
    QTest::addColumn<QString>("kernel");
    const std::pair<int, int> sizes[] = {{1, 1},   {0, 5},    {5, 0},    {31, 33},
                                         {257, 3}, {3, 1000}, {1025, 7}, {1500, 2100}};
    for (const auto& [a, b] : sizes)
        for (const char* bins : {"log", "linear", "dense-log"})
            for (int threads : {1, 2, 3})
                for (const char* kernel : {"best", "portable"})
                    QTest::addRow("%dx%d %s threads=%d %s", a, b, bins, threads, kernel)
                        << a << b << QString::fromLatin1(bins) << threads
                        << QString::fromLatin1(kernel);
}

void TestCpuPairCounter::crossMatchesNaive() {
    QFETCH(int, sizeA);
    QFETCH(int, sizeB);
    QFETCH(QString, bins);
    QFETCH(int, threads);
    QFETCH(QString, kernel);
    const Catalog a = mixedCatalog(std::size_t(sizeA), 7 + std::uint64_t(sizeA));
    const Catalog b = mixedCatalog(std::size_t(sizeB), 99 + std::uint64_t(sizeB));
    const Binning binning(binsNamed(bins));
    CpuPairCounter counter(threads, kernelNamed(kernel));
    COMPARE_COUNTS(counter.countCross(a, b, binning),
                   cachedNaive(QStringLiteral("cross %1x%2 ").arg(sizeA).arg(sizeB) + bins, a, &b,
                               binning));
}

void TestCpuPairCounter::batchMatchesNaive_data() {
    QTest::addColumn<int>("threads");
    QTest::addColumn<QString>("kernel");
    for (int threads : {1, 2, 3})
        for (const char* kernel : {"best", "portable"})
            QTest::addRow("threads=%d %s", threads, kernel)
                << threads << QString::fromLatin1(kernel);
}

void TestCpuPairCounter::batchMatchesNaive() {
    QFETCH(int, threads);
    QFETCH(QString, kernel);
    // Tasks of very different tile counts (and none at all) share one schedule.
    const Catalog d = mixedCatalog(2100, 11);
    const Catalog r1 = mixedCatalog(1100, 12);
    const Catalog r2 = mixedCatalog(10, 13);
    const Catalog empty;
    const std::vector<CountTask> tasks = {{&d, nullptr},     {&d, &r1},      {&d, &r2},
                                          {&d, &empty},      {&r1, nullptr}, {&r2, nullptr},
                                          {&empty, nullptr}, {&r2, &d}};
    const Binning binning(logBins());
    CpuPairCounter counter(threads, kernelNamed(kernel));
    const std::vector<TaskCounts> counts = counter.countBatch(tasks, binning);
    QCOMPARE(counts.size(), tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const PairCounts& want = cachedNaive(QStringLiteral("batch task %1").arg(t),
                                             *tasks[t].first, tasks[t].second, binning);
        const PairCounts& got = counts[t].raw;
        QVERIFY2(
            got == want,
            ("task " + QByteArray::number(qulonglong(t)) + ": " + describe(got, want)).constData());
    }
}

void TestCpuPairCounter::kernelsAgree() {
    // The vectorised kernel (where this CPU has one) against the portable one on a larger set.
    const Catalog catalog = mixedCatalog(6000, 5);
    const Binning binning(BinSpec::logCount(0.01, 10000.0, AngleUnit::Arcminute, 30));
    CpuPairCounter best(2, CpuKernel::Best), portable(2, CpuKernel::Portable);
    qInfo("best kernel here: %s", best.kernelName().c_str());
    COMPARE_COUNTS(best.countAuto(catalog, binning), portable.countAuto(catalog, binning));
}

void TestCpuPairCounter::duplicatePoints_data() {
    QTest::addColumn<QString>("bins");
    QTest::addColumn<QString>("kernel");
    for (const char* bins : {"log", "linear", "dense-linear"})
        for (const char* kernel : {"best", "portable"})
            QTest::addRow("%s %s", bins, kernel)
                << QString::fromLatin1(bins) << QString::fromLatin1(kernel);
}

void TestCpuPairCounter::duplicatePoints() {
    QFETCH(QString, bins);
    QFETCH(QString, kernel);
    // Every point three times: c² = 0 exactly for 3 pairs per point. Bins that start at θ = 0
    // count them in bin 0 (edge_0 ≤ θ); log bins do not count them at all.
    const Catalog base = mixedCatalog(40, 31);
    std::vector<double> ra, dec;
    for (int copy = 0; copy < 3; ++copy)
        for (std::size_t i = 0; i < base.size(); ++i) {
            ra.push_back(base.ra()[i]);
            dec.push_back(base.dec()[i]);
        }
    const Catalog tripled = Catalog::fromRadians("tripled", ra, dec);
    const Binning binning(binsNamed(bins));
    const PairCounts counts = CpuPairCounter(2, kernelNamed(kernel)).countAuto(tripled, binning);
    COMPARE_COUNTS(counts, naiveCounts(tripled, nullptr, binning));
    if (binning.edges()[0] == 0)
        QVERIFY(counts[0] >= 3 * base.size());
}

void TestCpuPairCounter::knownSeparations_data() {
    QTest::addColumn<double>("separationDeg");
    QTest::addColumn<double>("decDeg");      // both points on this parallel (0: the equator)
    QTest::addColumn<bool>("alongMeridian"); // separated in Dec instead of RA
    QTest::addColumn<QString>("bins");
    // Log bins 0.01′–10⁴′ (5 per decade) and linear 2.5° bins to 90°, plus the far end.
    QTest::newRow("just above 0.01' on equator")
        << (0.01 / 60) * (1 + 1e-7) << 0.0 << false << "log";
    QTest::newRow("0.015' on equator") << 0.015 / 60 << 0.0 << false << "log";
    QTest::newRow("0.02' along meridian") << 0.02 / 60 << 10.0 << true << "log";
    QTest::newRow("1.3' at dec 60") << 1.3 / 60 << 60.0 << true << "log";
    QTest::newRow("7.5' on equator") << 7.5 / 60 << 0.0 << false << "log";
    QTest::newRow("1 deg on equator") << 1.0 << 0.0 << false << "log";
    QTest::newRow("100 deg along meridian") << 100.0 << -50.0 << true << "log";
    QTest::newRow("166 deg on equator") << 166.0 << 0.0 << false << "log";
    QTest::newRow("above 10^4' on equator") << 170.0 << 0.0 << false << "log";
    QTest::newRow("below 0.01' on equator") << 0.009 / 60 << 0.0 << false << "log";
    QTest::newRow("3.7 deg linear") << 3.7 << 0.0 << false << "linear";
    QTest::newRow("89.9 deg linear") << 89.9 << 0.0 << false << "linear";
    QTest::newRow("90.1 deg linear") << 90.1 << 0.0 << false << "linear";
    QTest::newRow("179.9 deg on equator") << 179.9 << 0.0 << false << "far";
    QTest::newRow("179.9 deg along meridian") << 179.9 << -89.95 << true << "far";
}

void TestCpuPairCounter::knownSeparations() {
    QFETCH(double, separationDeg);
    QFETCH(double, decDeg);
    QFETCH(bool, alongMeridian);
    QFETCH(QString, bins);
    const BinSpec spec = bins == QLatin1String("far")
                             ? BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 180)
                             : binsNamed(bins);
    const Binning binning(spec);
    // Several pairs at the same separation in different places of the sky.
    std::vector<double> raA, decA, raB, decB;
    for (double ra0 : {0.0, 17.0, 123.4, 271.0, 359.99}) {
        raA.push_back(ra0);
        decA.push_back(decDeg);
        raB.push_back(alongMeridian ? ra0 : ra0 + separationDeg);
        decB.push_back(alongMeridian ? decDeg + separationDeg : decDeg);
    }
    const Catalog a = Catalog::fromDegrees("a", raA, decA);
    const Catalog b = Catalog::fromDegrees("b", raB, decB);

    // The closed form: the bin whose angular edges hold the separation.
    const double theta = separationDeg * kPi / 180;
    const auto edges = binning.edgesRadians();
    int expected = -1;
    for (std::size_t k = 0; k + 1 < edges.size(); ++k)
        if (edges[k] <= theta && theta < edges[k + 1])
            expected = int(k);
    for (double edge : edges) // a separation this near an edge would not test the closed form
        QVERIFY(std::abs(theta - edge) > 1e-8 * edge);

    // Cross: the 5 same-index pairs are at the separation; the others are far apart and
    // excluded by counting only a x b with a one-point b at a time.
    PairCounts total(binning.count(), 0);
    CpuPairCounter counter(2);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Catalog one = Catalog::fromDegrees("a1", {raA[i]}, {decA[i]});
        const Catalog other = Catalog::fromDegrees("b1", {raB[i]}, {decB[i]});
        const PairCounts counts = counter.countCross(one, other, binning);
        for (std::size_t k = 0; k < counts.size(); ++k)
            total[k] += counts[k];
        // The same pair as an auto count of a two-point catalog.
        const Catalog both = Catalog::fromDegrees("ab", {raA[i], raB[i]}, {decA[i], decB[i]});
        COMPARE_COUNTS(counter.countAuto(both, binning), counts);
    }
    PairCounts want(binning.count(), 0);
    if (expected >= 0)
        want[std::size_t(expected)] = a.size();
    COMPARE_COUNTS(total, want);
}

namespace {

// Rows (edge, bins, kernel) for the tests that put pairs on a bin edge: the given edges of the
// log and of the linear bins, on each kernel.
void addEdgeRows(std::initializer_list<int> logEdges, std::initializer_list<int> linearEdges) {
    QTest::addColumn<int>("edge");
    QTest::addColumn<QString>("bins");
    QTest::addColumn<QString>("kernel");
    for (const char* kernel : {"best", "portable"}) {
        for (int edge : logEdges)
            QTest::addRow("log edge %d %s", edge, kernel)
                << edge << "log" << QString::fromLatin1(kernel);
        for (int edge : linearEdges)
            QTest::addRow("linear edge %d %s", edge, kernel)
                << edge << "linear" << QString::fromLatin1(kernel);
    }
}

} // namespace

void TestCpuPairCounter::pairExactlyOnEdge_data() {
    addEdgeRows({1, 3, 5, 8, 12, 17, 23, 26, 29}, {0, 1, 5, 10, 20, 35});
}

void TestCpuPairCounter::pairExactlyOnEdge() {
    QFETCH(int, edge);
    QFETCH(QString, bins);
    QFETCH(QString, kernel);
    const Binning binning(binsNamed(bins));
    const double threshold = binning.chord2Edges()[std::size_t(edge)];
    CpuPairCounter counter(1, kernelNamed(kernel));

    // On the threshold: the upper bin. One ulp below: the lower one.
    const struct {
        double c2;
        int bin;
    } cases[] = {{threshold, edge}, {std::nextafter(threshold, 0.0), edge - 1}};
    for (const auto& c : cases) {
        if (c.bin < 0) // edge 0 at c² = 0 (two identical points) has nothing below it
            continue;
        Catalog pair;
        bool found = false;
        for (double dec0 : {0.1, -0.3, 0.25, 0.5, -0.05, 0.4, -0.6, 0.02}) {
            for (double ra0 : {0.0, 0.5, 2.0, 4.0}) {
                if ((found = findPairAt(c.c2, ra0, dec0, pair)))
                    break;
            }
            if (found)
                break;
        }
        QVERIFY2(found,
                 qPrintable(QStringLiteral("no pair found with c2 = %1").arg(c.c2, 0, 'g', 17)));
        QCOMPARE(contractChord2(pair, 0, pair, 1), c.c2);
        PairCounts want(binning.count(), 0);
        want[std::size_t(c.bin)] = 1;
        COMPARE_COUNTS(counter.countAuto(pair, binning), want);
    }
}

void TestCpuPairCounter::edgePairsAmongNeighbours_data() {
    addEdgeRows({2, 9, 12, 17, 23, 26, 29}, {5, 12, 20, 30});
}

void TestCpuPairCounter::edgePairsAmongNeighbours() {
    QFETCH(int, edge);
    QFETCH(QString, bins);
    QFETCH(QString, kernel);
    // One point p with partners exactly on a threshold and one ulp below it, among points on
    // the same great circle a little nearer and farther: p's chords straddle a few thresholds
    // with pairs on them, as a kernel that counts a run by comparing it with the thresholds it
    // straddles (instead of looking each pair's bin up) must still place exactly.
    const Binning binning(binsNamed(bins));
    const double threshold = binning.chord2Edges()[std::size_t(edge)];
    Catalog onEdge, belowEdge;
    double ra0 = 0, dec0 = 0;
    bool found = false;
    for (double dec : {0.1, -0.3, 0.25, 0.5, -0.05, 0.4, -0.6, 0.02}) {
        for (double ra : {0.0, 0.5, 2.0, 4.0}) {
            ra0 = ra;
            dec0 = dec;
            found = findPairAt(threshold, ra0, dec0, onEdge) &&
                    findPairAt(std::nextafter(threshold, 0.0), ra0, dec0, belowEdge);
            if (found)
                break;
        }
        if (found)
            break;
    }
    QVERIFY2(found, "no p with partners on the threshold and one ulp below it");
    QCOMPARE(onEdge.ra()[0], belowEdge.ra()[0]); // the same p
    std::vector<double> ra = {onEdge.ra()[0], onEdge.ra()[1], belowEdge.ra()[1]};
    std::vector<double> dec = {onEdge.dec()[0], onEdge.dec()[1], belowEdge.dec()[1]};
    // Neighbours: q moved along the circle through p by a share of the separation.
    const double dRa = onEdge.ra()[1] - ra0, dDec = onEdge.dec()[1] - dec0;
    for (double share : {-0.45, -0.2, -0.05, -1e-9, 1e-9, 0.05, 0.2, 0.45}) {
        ra.push_back(onEdge.ra()[1] + share * dRa);
        dec.push_back(onEdge.dec()[1] + share * dDec);
    }
    const Catalog points = Catalog::fromRadians("edge neighbours", ra, dec);
    const PairCounts want = naiveCounts(points, nullptr, binning);
    QVERIFY(std::accumulate(want.begin(), want.end(), std::uint64_t{0}) > 0);
    CpuPairCounter counter(1, kernelNamed(kernel));
    COMPARE_COUNTS(counter.countAuto(points, binning), want);
    // The same pairs as a cross count of p against the rest; p five times over, so that a
    // kernel counting several rows of a rectangle at once meets them in a block and alone.
    const Catalog p =
        Catalog::fromRadians("p", std::vector<double>(5, ra[0]), std::vector<double>(5, dec[0]));
    const Catalog rest = Catalog::fromRadians("rest", std::vector<double>(ra.begin() + 1, ra.end()),
                                              std::vector<double>(dec.begin() + 1, dec.end()));
    COMPARE_COUNTS(counter.countCross(p, rest, binning), naiveCounts(p, &rest, binning));
}

void TestCpuPairCounter::uniformSphereFractions_data() {
    QTest::addColumn<QString>("bins");
    QTest::newRow("linear 2.5 deg") << "linear";
    QTest::newRow("log 5 per decade") << "log";
    QTest::newRow("linear 0-180 deg") << "far";
}

void TestCpuPairCounter::uniformSphereFractions() {
    QFETCH(QString, bins);
    const BinSpec spec = bins == QLatin1String("far")
                             ? BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 36)
                             : binsNamed(bins);
    const Binning binning(spec);
    const std::size_t n = 3000;
    const Catalog catalog = uniformSphere(n, 2024);
    const PairCounts counts = CpuPairCounter(2).countAuto(catalog, binning);
    const double pairs = double(n) * double(n - 1) / 2;
    const auto edges = binning.edgesRadians();
    for (std::size_t k = 0; k < counts.size(); ++k) {
        // Fraction of the sphere between two separations, seen from any point.
        const double p = (std::cos(edges[k]) - std::cos(edges[k + 1])) / 2;
        // By symmetry a pair's chance to fall in a bin does not depend on where one point is,
        // so pairs sharing a point are uncorrelated and the binomial variance is exact.
        const double sigma = std::sqrt(pairs * p * (1 - p));
        const double expected = pairs * p;
        QVERIFY2(std::abs(double(counts[k]) - expected) <= 5 * sigma + 1,
                 qPrintable(QStringLiteral("bin %1: %2 pairs, expected %3 +- %4")
                                .arg(k)
                                .arg(counts[k])
                                .arg(expected)
                                .arg(sigma)));
    }
    if (bins == QLatin1String("far"))
        QCOMPARE(sum(counts), std::uint64_t(pairs)); // 0–180° takes every pair
}

void TestCpuPairCounter::emptyCatalogs() {
    const Binning binning(logBins());
    const Catalog empty;
    const Catalog one = mixedCatalog(1, 3);
    const Catalog some = mixedCatalog(50, 4);
    CpuPairCounter counter(2);
    const PairCounts zeros(binning.count(), 0);
    int calls = 0;
    CountControl control;
    control.onProgress = [&](const CountProgress& p) {
        ++calls;
        QCOMPARE(p.pairsDone, std::uint64_t{0});
        QCOMPARE(p.pairsTotal, std::uint64_t{0});
    };
    COMPARE_COUNTS(counter.countAuto(empty, binning, control), zeros);
    COMPARE_COUNTS(counter.countAuto(one, binning), zeros);
    COMPARE_COUNTS(counter.countCross(empty, some, binning), zeros);
    COMPARE_COUNTS(counter.countCross(some, empty, binning), zeros);
    QVERIFY(calls >= 1);
    QVERIFY(counter.countBatch({}, binning).empty());
}

void TestCpuPairCounter::taskWithoutCatalog() {
    const Binning binning(logBins());
    const CountTask task{};
    QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError,
                             CpuPairCounter(1).countBatch(std::span(&task, 1), binning));
}

void TestCpuPairCounter::progressReachesTotal() {
    const Catalog d = mixedCatalog(20000, 21);
    const Catalog r = mixedCatalog(15000, 22);
    const std::vector<CountTask> tasks = {{&d, nullptr}, {&d, &r}, {&r, nullptr}};
    const Binning binning(logBins());
    std::vector<CountProgress> reports;
    std::vector<std::chrono::steady_clock::time_point> times;
    CountControl control;
    control.onProgress = [&](const CountProgress& p) {
        reports.push_back(p);
        times.push_back(std::chrono::steady_clock::now());
    };
    const auto start = std::chrono::steady_clock::now();
    const std::vector<TaskCounts> counts = CpuPairCounter(2).countBatch(tasks, binning, control);

    std::uint64_t total = 0;
    for (const CountTask& t : tasks)
        total += t.pairTotal();
    QVERIFY(reports.size() >= 2);
    std::uint64_t previous = 0;
    bool sawPartial = false;
    for (const CountProgress& p : reports) {
        QCOMPARE(p.pairsTotal, total);
        QVERIFY(p.pairsDone >= previous);
        previous = p.pairsDone;
        QCOMPARE(p.pairsDonePerTask.size(), tasks.size());
        QCOMPARE(
            std::accumulate(p.pairsDonePerTask.begin(), p.pairsDonePerTask.end(), std::uint64_t{0}),
            p.pairsDone);
        if (!p.partialCounts.empty()) {
            sawPartial = sawPartial || p.pairsDone < total;
            QCOMPARE(p.partialCounts.size(), tasks.size());
            for (std::size_t t = 0; t < tasks.size(); ++t) {
                QCOMPARE(p.partialCounts[t].size(), binning.count());
                QVERIFY(sum(p.partialCounts[t]) <= p.pairsDonePerTask[t]);
                QVERIFY(p.pairsDonePerTask[t] <= tasks[t].pairTotal());
            }
        }
    }
    QCOMPARE(reports.back().pairsDone, total);
    QCOMPARE(reports.back().partialCounts.size(), counts.size());
    for (std::size_t t = 0; t < counts.size(); ++t)
        QVERIFY(reports.back().partialCounts[t] == counts[t].raw);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    qInfo("%zu progress reports in %.2f s", reports.size(), seconds);
    if (seconds > 0.5)
        QVERIFY(sawPartial);
    // Reports come at least every ~100 ms; a generous bound for a loaded machine.
    for (std::size_t i = 1; i < times.size(); ++i)
        QVERIFY(times[i] - times[i - 1] < std::chrono::milliseconds(1000));
    QVERIFY(times.front() - start < std::chrono::milliseconds(1000));
}

void TestCpuPairCounter::cancelBeforeStart() {
    const Catalog catalog = mixedCatalog(1000, 8);
    std::atomic<bool> cancel{true};
    CountControl control;
    control.cancelRequested = &cancel;
    QVERIFY_THROWS_EXCEPTION(tpacf::Cancelled,
                             CpuPairCounter(2).countAuto(catalog, Binning(logBins()), control));
}

void TestCpuPairCounter::cancelWhileCounting_data() {
    QTest::addColumn<int>("threads");
    QTest::newRow("1 thread") << 1;
    QTest::newRow("2 threads") << 2;
    QTest::newRow("3 threads") << 3;
}

void TestCpuPairCounter::cancelWhileCounting() {
    QFETCH(int, threads);
    // 4.5e10 pairs: far longer than the test waits.
    const Catalog catalog = uniformSphere(300000, 77);
    const Binning binning(logBins());
    const double latency = tpacf::test::secondsToCancel(
        std::chrono::milliseconds(50), [&](const CountControl& control) {
            CpuPairCounter(threads).countAuto(catalog, binning, control);
        });
    QVERIFY2(latency >= 0, "the count did not end in tpacf::Cancelled");
    qInfo("cancel took %.3f s", latency);
    QVERIFY2(latency < 0.3, qPrintable(QStringLiteral("cancel took %1 s").arg(latency)));
}

void TestCpuPairCounter::callbackExceptionPropagates() {
    const Catalog catalog = uniformSphere(100000, 78);
    CountControl control;
    control.onProgress = [](const CountProgress&) { throw std::runtime_error("sink failed"); };
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             CpuPairCounter(2).countAuto(catalog, Binning(logBins()), control));
}

void TestCpuPairCounter::weightedMatchesBruteForce_data() {
    addWeightedRows();
}

void TestCpuPairCounter::weightedMatchesBruteForce() {
    QFETCH(QString, kind);
    QFETCH(QString, weights);
    QFETCH(QString, bins);
    QFETCH(bool, culled);
    QFETCH(int, threads);
    const WeightedPair p = weightedPair(kind, weights);
    const Binning binning = weightedBinning(bins);
    // The weighted task beside unweighted ones of the same catalogs, in one batch.
    const Catalog plainFirst = weightedCatalog(1600, 41, QStringLiteral("none"));
    const std::vector<CountTask> tasks = {
        p.task(), {&plainFirst, nullptr}, {&plainFirst, &p.second}};
    QVERIFY(tasks[0].weighted());
    // 3 threads take the portable kernel, so both weighted kernels meet the reference here.
    CpuPairCounter counter(threads, threads == 3 ? CpuKernel::Portable : CpuKernel::Best);
    counter.setCulling(culled ? CullingMode::On : CullingMode::Off);
    const std::vector<TaskCounts> counts = counter.countBatch(tasks, binning);
    QCOMPARE(counter.lastBatchCulled(), culled);
    QCOMPARE(counts.size(), tasks.size());

    const WeightedReference& want =
        cachedReference(kind + weights + bins, p.first, p.cross ? &p.second : nullptr, binning);
    COMPARE_COUNTS(counts[0].raw, want.raw);
    QVERIFY(counts[0].isWeighted());
    COMPARE_WEIGHTED(counts[0].weighted, want.weighted, want.magnitude, "bin");
    // Raw counts of a weighted task are the unweighted counts of the same points.
    if (!p.cross)
        COMPARE_COUNTS(counts[0].raw, counts[1].raw);
    QVERIFY(std::accumulate(want.raw.begin(), want.raw.end(), std::uint64_t{0}) > 0);
    // Unweighted tasks of the batch keep their weighted sums empty (plainFirst × second is
    // weighted where second has weights).
    QVERIFY(!counts[1].isWeighted());
    QCOMPARE(counts[2].isWeighted(), p.second.hasWeights());
    COMPARE_COUNTS(counts[1].raw,
                   cachedNaive(QStringLiteral("plain first ") + bins, plainFirst, nullptr, binning));
}

void TestCpuPairCounter::weightedSharesAddUp_data() {
    QTest::addColumn<QString>("weights");
    QTest::addColumn<bool>("culled");
    QTest::addColumn<int>("parts");
    for (const char* weights : {"positive", "signed"})
        for (bool culled : {false, true})
            for (int parts : {2, 3, 5})
                QTest::addRow("%s %s parts=%d", weights, culled ? "culled" : "brute", parts)
                    << QString::fromLatin1(weights) << culled << parts;
}

void TestCpuPairCounter::weightedSharesAddUp() {
    QFETCH(QString, weights);
    QFETCH(bool, culled);
    QFETCH(int, parts);
    // Enough tiles (3000 points: 3 × 3 blocks) for every share to hold some.
    const Catalog d = weightedCatalog(3000, 51, weights);
    const Catalog r = weightedCatalog(2500, 52, QStringLiteral("none"));
    const std::vector<CountTask> tasks = {{&d, nullptr}, {&d, &r}, {&r, nullptr}};
    const Binning binning = weightedBinning(QStringLiteral("small"));
    CpuPairCounter counter(2);
    counter.setCulling(culled ? CullingMode::On : CullingMode::Off);
    const std::vector<TaskCounts> whole = counter.countBatch(tasks, binning);

    std::vector<TaskCounts> sum(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        sum[t].raw.assign(binning.count(), 0);
        if (tasks[t].weighted())
            sum[t].weighted.assign(binning.count(), 0.0);
    }
    for (int part = 0; part < parts; ++part) {
        CountControl control;
        control.share = WorkShare{std::uint32_t(part), std::uint32_t(parts)};
        const std::vector<TaskCounts> share = counter.countBatch(tasks, binning, control);
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            QCOMPARE(share[t].isWeighted(), tasks[t].weighted());
            for (std::size_t k = 0; k < binning.count(); ++k) {
                sum[t].raw[k] += share[t].raw[k];
                if (share[t].isWeighted())
                    sum[t].weighted[k] += share[t].weighted[k];
            }
        }
    }
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        COMPARE_COUNTS(sum[t].raw, whole[t].raw);
        if (!tasks[t].weighted()) {
            QVERIFY(!whole[t].isWeighted());
            continue;
        }
        const WeightedReference want = bruteWeighted(*tasks[t].first, tasks[t].second, binning);
        COMPARE_WEIGHTED(whole[t].weighted, want.weighted, want.magnitude, "whole, bin");
        COMPARE_WEIGHTED(sum[t].weighted, want.weighted, want.magnitude, "shares, bin");
    }
}

void TestCpuPairCounter::weightedByRegion_data() {
    addWeightedRows();
}

void TestCpuPairCounter::weightedByRegion() {
    QFETCH(QString, kind);
    QFETCH(QString, weights);
    QFETCH(QString, bins);
    QFETCH(bool, culled);
    QFETCH(int, threads);
    const std::size_t regions = 5;
    const WeightedPair p = weightedPair(kind, weights, int(regions));
    const Binning binning = weightedBinning(bins);
    const std::size_t nBins = binning.count();
    const Catalog plain = weightedCatalog(900, 43, QStringLiteral("none"), int(regions));
    const std::vector<CountTask> tasks = {p.task(), {&plain, nullptr}};
    CpuPairCounter counter(threads);
    counter.setCulling(culled ? CullingMode::On : CullingMode::Off);
    const std::vector<RegionPairCounts> counts =
        counter.countBatchByRegion(tasks, binning, regions);
    QCOMPARE(counter.lastBatchCulled(), culled);
    QCOMPARE(counts.size(), tasks.size());

    // The unweighted task: no weighted tallies.
    QVERIFY(!counts[1].isWeighted());
    QVERIFY(counts[1].weightedTouching.empty() && counts[1].weightedWithin.empty());

    const RegionPairCounts& got = counts[0];
    const WeightedReference& want =
        cachedReference(QStringLiteral("regions ") + kind + weights + bins, p.first,
                        p.cross ? &p.second : nullptr, binning, regions);
    COMPARE_COUNTS(got.total, want.raw);
    QVERIFY(got.isWeighted());
    COMPARE_WEIGHTED(got.weightedTotal, want.weighted, want.magnitude, "total bin");
    COMPARE_WEIGHTED(got.weightedTouching, want.touching, want.touchingMagnitude,
                     "touching (region*bins+bin)");
    COMPARE_WEIGHTED(got.weightedWithin, want.within, want.withinMagnitude,
                     "within (region*bins+bin)");
    // Leave-one-out: the pairs not touching the region; its tolerance is that of the total and
    // the touching sum it is the difference of.
    std::vector<double> leaveOneOut(regions * nBins);
    std::vector<long double> wantLeaveOneOut(regions * nBins), magnitude(regions * nBins);
    for (std::size_t r = 0; r < regions; ++r)
        for (std::size_t k = 0; k < nBins; ++k) {
            leaveOneOut[r * nBins + k] = got.weightedLeaveOneOut(r, k);
            wantLeaveOneOut[r * nBins + k] = want.weighted[k] - want.touching[r * nBins + k];
            magnitude[r * nBins + k] = want.magnitude[k] + want.touchingMagnitude[r * nBins + k];
        }
    COMPARE_WEIGHTED(leaveOneOut, wantLeaveOneOut, magnitude, "leave-one-out (region*bins+bin)");
    // Every region holds weighted pairs somewhere, so the per-region check is not empty.
    for (std::size_t r = 0; r < regions; ++r) {
        long double touched = 0;
        for (std::size_t k = 0; k < nBins; ++k)
            touched += want.touchingMagnitude[r * nBins + k];
        QVERIFY(touched > 0);
    }
}

void TestCpuPairCounter::weightedProgress_data() {
    QTest::addColumn<bool>("culled");
    QTest::addColumn<bool>("byRegion");
    for (bool culled : {false, true})
        for (bool byRegion : {false, true})
            QTest::addRow("%s %s", culled ? "culled" : "brute", byRegion ? "by region" : "plain")
                << culled << byRegion;
}

void TestCpuPairCounter::weightedProgress() {
    QFETCH(bool, culled);
    QFETCH(bool, byRegion);
    const Catalog d = weightedCatalog(4000, 61, QStringLiteral("positive"), 4);
    const Catalog r = weightedCatalog(3000, 62, QStringLiteral("none"), 4);
    const std::vector<CountTask> tasks = {{&d, nullptr}, {&d, &r}, {&r, nullptr}};
    const Binning binning = weightedBinning(QStringLiteral("linear"));
    std::vector<CountProgress> reports;
    CountControl control;
    control.onProgress = [&](const CountProgress& progress) { reports.push_back(progress); };
    CpuPairCounter counter(2);
    counter.setCulling(culled ? CullingMode::On : CullingMode::Off);
    std::vector<WeightedCounts> result(tasks.size());
    if (byRegion) {
        const auto counts = counter.countBatchByRegion(tasks, binning, 4, control);
        for (std::size_t t = 0; t < tasks.size(); ++t)
            result[t] = counts[t].weightedTotal;
    } else {
        const auto counts = counter.countBatch(tasks, binning, control);
        for (std::size_t t = 0; t < tasks.size(); ++t)
            result[t] = counts[t].weighted;
    }
    QVERIFY(!reports.empty());
    for (const CountProgress& p : reports) {
        if (p.partialWeighted.empty())
            continue;
        QCOMPARE(p.partialWeighted.size(), tasks.size());
        for (std::size_t t = 0; t < tasks.size(); ++t)
            QCOMPARE(p.partialWeighted[t].size(), tasks[t].weighted() ? binning.count() : 0);
    }
    // The final snapshot is the result, bit for bit.
    QCOMPARE(reports.back().partialWeighted.size(), tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
        QVERIFY(reports.back().partialWeighted[t] == result[t]);
    QVERIFY(result[2].empty());
}

TPACF_TEST_MAIN(TestCpuPairCounter)
#include "test_cpu_pair_counter.moc"
