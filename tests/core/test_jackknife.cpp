// SPDX-License-Identifier: GPL-3.0-or-later
// Jackknife error bars: per-region pair counts against a naive loop, every leave-one-out count
// against a direct count on the catalog without that region, closed-form σ on constructed
// catalogs, covariance properties, regions (k-means, columns, readers), output, and errors.
#include "tpacf_test_main.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/correlation_job.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/errors.h"
#include "tpacf/jackknife.h"
#include "tpacf/result_io.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

using namespace tpacf;

namespace {

// Points in a box of the sky with a clumped fraction, so w(θ) is not flat; `labelSpread`
// random region labels in [0, labelSpread) when > 0.
Catalog boxCatalog(std::size_t n, std::uint64_t seed, double clumped, int regions,
                   const std::string& name = "points") {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n);
    std::vector<std::int32_t> region;
    double clumpRa = 0, clumpDec = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (unit(rng) < clumped) {
            if (i % 10 == 0) {
                clumpRa = 0.5 + 0.5 * unit(rng);
                clumpDec = 0.2 + 0.5 * unit(rng);
            }
            ra[i] = clumpRa + 5e-3 * unit(rng);
            dec[i] = clumpDec + 5e-3 * unit(rng);
        } else {
            ra[i] = 0.5 + 0.5 * unit(rng);
            dec[i] = 0.2 + 0.5 * unit(rng);
        }
    }
    if (regions > 0) {
        std::uniform_int_distribution<int> pick(0, regions - 1);
        for (std::size_t i = 0; i < n; ++i)
            region.push_back(pick(rng));
    }
    return Catalog::fromRadians(name, std::move(ra), std::move(dec), {}, std::move(region));
}

// The contract's arithmetic, written out independently of the backend.
double chord2(const Catalog& a, std::size_t i, const Catalog& b, std::size_t j) {
    const double dx = a.x()[i] - b.x()[j];
    const double dy = a.y()[i] - b.y()[j];
    const double dz = a.z()[i] - b.z()[j];
    return dx * dx + dy * dy + dz * dz;
}

// Naive per-region counts: total, touching and within, straight from the definitions.
RegionPairCounts naiveRegionCounts(const Catalog& a, const Catalog* b, const Binning& binning,
                                   std::size_t regions) {
    RegionPairCounts c;
    c.regionCount = regions;
    c.binCount = binning.count();
    c.total.assign(c.binCount, 0);
    c.touching.assign(regions * c.binCount, 0);
    c.within.assign(regions * c.binCount, 0);
    const Catalog& other = b ? *b : a;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = b ? 0 : i + 1; j < other.size(); ++j) {
            const int bin = binning.binOfChord2(chord2(a, i, other, j));
            if (bin < 0)
                continue;
            const auto ra = static_cast<std::size_t>(a.region()[i]);
            const auto rb = static_cast<std::size_t>(other.region()[j]);
            const auto k = static_cast<std::size_t>(bin);
            ++c.total[k];
            ++c.touching[ra * c.binCount + k];
            if (rb != ra)
                ++c.touching[rb * c.binCount + k];
            else
                ++c.within[ra * c.binCount + k];
        }
    return c;
}

// The catalog without the points of `region` (plain, no regions attached).
Catalog without(const Catalog& catalog, std::int32_t region) {
    std::vector<double> ra, dec;
    for (std::size_t i = 0; i < catalog.size(); ++i)
        if (catalog.region()[i] != region) {
            ra.push_back(catalog.ra()[i]);
            dec.push_back(catalog.dec()[i]);
        }
    return Catalog::fromRadians(catalog.name(), std::move(ra), std::move(dec));
}

// A counter that cannot count by region, standing in for a GPU backend without it.
class NoRegionCounter final : public PairCounter {
public:
    std::string backendName() const override { return "fake-gpu"; }
    std::string deviceDescription() const override { return "fake"; }
    Precision precision() const override { return Precision::Double; }
    std::vector<TaskCounts> countBatch(std::span<const CountTask> tasks, const Binning& binning,
                                       const CountControl& control) override {
        return m_cpu.countBatch(tasks, binning, control);
    }

private:
    CpuPairCounter m_cpu{1};
};

class NoRegionProvider final : public BackendModule {
public:
    std::string name() const override { return "cuda"; }
    bool compiledIn() const override { return true; }
    std::vector<GpuDeviceInfo> devices() const override { return {GpuDeviceInfo{}}; }
    std::string unavailableReason() const override { return {}; }
    std::string versionDescription() const override { return {}; }
    std::unique_ptr<PairCounter> create(Precision, const std::vector<int>&) const override {
        return std::make_unique<NoRegionCounter>();
    }
};

CorrelationParams jobParams(std::shared_ptr<const Catalog> data,
                            std::vector<std::shared_ptr<const Catalog>> randoms) {
    CorrelationParams params;
    params.data = std::move(data);
    params.randoms = std::move(randoms);
    params.bins = BinSpec::logPerDecade(1.0, 3000.0, AngleUnit::Arcminute, 3.0);
    params.backend.name = "cpu";
    params.backend.cpuThreads = 2;
    return params;
}

void compareCounts(const RegionPairCounts& got, const RegionPairCounts& want) {
    QCOMPARE(got.regionCount, want.regionCount);
    QCOMPARE(got.binCount, want.binCount);
    QCOMPARE(got.total, want.total);
    QCOMPARE(got.touching, want.touching);
    QCOMPARE(got.within, want.within);
}

} // namespace

class TestJackknife : public QObject {
    Q_OBJECT

private slots:
    void regionCountsMatchNaiveLoop_data();
    void regionCountsMatchNaiveLoop();
    void progressAndCancellation();
    void leaveOneOutEqualsDirectCount_data();
    void leaveOneOutEqualsDirectCount();
    void congruentRegionsGiveZeroSigma_data();
    void congruentRegionsGiveZeroSigma();
    void clumpsGiveClosedFormSigma();
    void covarianceProperties();
    void covarianceMatchesBruteForce_data();
    void covarianceMatchesBruteForce();
    void memoryEstimate_data();
    void memoryEstimate();
    void memoryLimit();
    void jobRefusesWhatCannotFit_data();
    void jobRefusesWhatCannotFit();
    void jobKeepsFullSampleResult();
    void kMeansRegions();
    void regionOrderedCopyKeepsPoints();
    void regionColumnRemapsLabels();
    void readersTakeRegionColumn();
    void output();
    void errors_data();
    void errors();
    void backendWithoutRegions();
};

void TestJackknife::regionCountsMatchNaiveLoop_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("regions");
    QTest::addColumn<int>("threads");
    QTest::addColumn<bool>("portable");
    QTest::addColumn<bool>("culled");
    // Sizes around the 1024-point tile, regions from 1 to more than some tiles hold, a region
    // count above the labels in use (empty regions), one and several threads, both kernels.
    // Above kRegionRowsPerThread regions a unit touches more regions than a thread keeps rows
    // for, so it adds them to the tallies part way; culled, the plan's whole cells start them.
    const bool off = false, on = true;
    QTest::newRow("small auto K=3") << 300 << 0 << 3 << 1 << true << off;
    QTest::newRow("two tiles auto K=7") << 1500 << 0 << 7 << 2 << false << off;
    QTest::newRow("cross K=5") << 700 << 1100 << 5 << 2 << false << off;
    QTest::newRow("cross K=1") << 400 << 500 << 1 << 2 << true << off;
    QTest::newRow("many tiny regions K=200") << 1200 << 0 << 200 << 2 << false << off;
    QTest::newRow("cross K=40 portable") << 1100 << 300 << 40 << 2 << true << off;
    QTest::newRow("more regions than rows K=700") << 1500 << 900 << 700 << 2 << false << off;
    QTest::newRow("culled K=7") << 1500 << 900 << 7 << 2 << false << on;
    QTest::newRow("culled, more regions than rows K=700") << 1500 << 900 << 700 << 2 << false << on;
}

void TestJackknife::regionCountsMatchNaiveLoop() {
    QFETCH(int, n);
    QFETCH(int, m);
    QFETCH(int, regions);
    QFETCH(int, threads);
    QFETCH(bool, portable);
    QFETCH(bool, culled);
    // Labels drawn below `regions` minus one where possible, so the last region stays empty.
    const int used = regions > 2 ? regions - 1 : regions;
    const Catalog a = boxCatalog(static_cast<std::size_t>(n), 11 + n, 0.3, used, "a");
    const Catalog b = boxCatalog(static_cast<std::size_t>(std::max(m, 1)), 23 + m, 0.2, used, "b");
    const Binning binning(BinSpec::logPerDecade(0.5, 3000.0, AngleUnit::Arcminute, 4.0));
    CpuPairCounter counter(threads, portable ? CpuKernel::Portable : CpuKernel::Best);
    counter.setCulling(culled ? CullingMode::On : CullingMode::Off);
    QVERIFY(counter.supportsRegions());

    std::vector<CountTask> tasks{{&a, nullptr}};
    if (m > 0)
        tasks.push_back({&a, &b});
    const auto counts =
        counter.countBatchByRegion(tasks, binning, static_cast<std::size_t>(regions));
    QCOMPARE(counter.lastBatchCulled(), culled);
    const auto plain = counter.countBatch(tasks, binning);
    QCOMPARE(counts.size(), tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        compareCounts(counts[t], naiveRegionCounts(a, tasks[t].second, binning,
                                                   static_cast<std::size_t>(regions)));
        QCOMPARE(counts[t].total, plain[t].raw);
    }
}

// The region count reports progress like countBatch (final snapshot = the totals) and stops on
// the cancel token, before the start and while counting.
void TestJackknife::progressAndCancellation() {
    const Catalog a = boxCatalog(8000, 101, 0.2, 16, "a");
    const Binning binning(BinSpec::logPerDecade(1.0, 3000.0, AngleUnit::Arcminute, 3.0));
    CpuPairCounter counter(2);
    const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &a}};
    std::vector<CountProgress> seen;
    CountControl control;
    control.onProgress = [&](const CountProgress& p) { seen.push_back(p); };
    const auto counts = counter.countBatchByRegion(tasks, binning, 16, control);
    QVERIFY(!seen.empty());
    for (std::size_t i = 1; i < seen.size(); ++i)
        QVERIFY(seen[i].pairsDone >= seen[i - 1].pairsDone);
    const CountProgress& last = seen.back();
    QCOMPARE(last.pairsTotal, tasks[0].pairTotal() + tasks[1].pairTotal());
    QCOMPARE(last.pairsDone, last.pairsTotal);
    QCOMPARE(last.partialCounts.size(), tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
        QCOMPARE(last.partialCounts[t], counts[t].total);

    std::atomic<bool> cancel{true};
    CountControl cancelled;
    cancelled.cancelRequested = &cancel;
    QVERIFY_THROWS_EXCEPTION(Cancelled, counter.countBatchByRegion(tasks, binning, 16, cancelled));
    // ~10^9 pairs on one thread: seconds anywhere, so the first report comes mid-count.
    const Catalog big = boxCatalog(30000, 102, 0.0, 16, "big");
    const std::vector<CountTask> bigTasks{{&big, &big}};
    CpuPairCounter oneThread(1);
    cancel = false;
    bool sawPartialWork = false;
    cancelled.onProgress = [&](const CountProgress& p) {
        sawPartialWork = sawPartialWork || p.pairsDone < p.pairsTotal;
        cancel = true;
    };
    QVERIFY_THROWS_EXCEPTION(Cancelled,
                             oneThread.countBatchByRegion(bigTasks, binning, 16, cancelled));
    QVERIFY(sawPartialWork);
}

void TestJackknife::leaveOneOutEqualsDirectCount_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("regions");
    QTest::newRow("K=2") << 400 << 2;
    QTest::newRow("K=5") << 600 << 5;
    QTest::newRow("K=13") << 1100 << 13;
}

void TestJackknife::leaveOneOutEqualsDirectCount() {
    QFETCH(int, n);
    QFETCH(int, regions);
    const Catalog d = boxCatalog(static_cast<std::size_t>(n), 5 + n, 0.4, regions, "d");
    const Catalog r = boxCatalog(static_cast<std::size_t>(n) + 77, 9 + n, 0.0, regions, "r");
    const Binning binning(BinSpec::logPerDecade(1.0, 3000.0, AngleUnit::Arcminute, 3.0));
    CpuPairCounter counter(2);
    const std::vector<CountTask> tasks{{&d, nullptr}, {&d, &r}, {&r, nullptr}};
    const auto counts =
        counter.countBatchByRegion(tasks, binning, static_cast<std::size_t>(regions));
    for (int k = 0; k < regions; ++k) {
        const Catalog dk = without(d, k), rk = without(r, k);
        const PairCounts dd = counter.countAuto(dk, binning);
        const PairCounts dr = counter.countCross(dk, rk, binning);
        const PairCounts rr = counter.countAuto(rk, binning);
        for (std::size_t bin = 0; bin < binning.count(); ++bin) {
            QCOMPARE(counts[0].leaveOneOut(static_cast<std::size_t>(k), bin), dd[bin]);
            QCOMPARE(counts[1].leaveOneOut(static_cast<std::size_t>(k), bin), dr[bin]);
            QCOMPARE(counts[2].leaveOneOut(static_cast<std::size_t>(k), bin), rr[bin]);
        }
    }
}

void TestJackknife::congruentRegionsGiveZeroSigma_data() {
    QTest::addColumn<int>("regions");
    QTest::addColumn<bool>("mirror");
    QTest::newRow("north/south mirror, K=2") << 2 << true;
    QTest::newRow("coincident copies, K=2") << 2 << false;
    QTest::newRow("coincident copies, K=5") << 5 << false;
}

// Regions congruent by construction, so every leave-one-out sample is the same and σ and the
// covariance are exactly 0. Mirror: a clustered pattern and its reflection through the equator
// (Dec → −Dec flips z exactly: sin is odd, cos even), one region each. Copies: K coincident
// copies of the pattern, copy k in region k (relabelling the copies maps the point set onto
// itself, so every chord is reproduced bit for bit; the 0-separation pairs fall below the bins).
void TestJackknife::congruentRegionsGiveZeroSigma() {
    QFETCH(int, regions);
    QFETCH(bool, mirror);
    const auto congruent = [&](const Catalog& pattern, const std::string& name) {
        std::vector<double> ra, dec;
        std::vector<std::int32_t> label;
        for (int k = 0; k < regions; ++k)
            for (std::size_t i = 0; i < pattern.size(); ++i) {
                ra.push_back(pattern.ra()[i]);
                dec.push_back(mirror && k == 1 ? -pattern.dec()[i] : pattern.dec()[i]);
                label.push_back(100 - 10 * k); // arbitrary labels, remapped by the job
            }
        return std::make_shared<const Catalog>(
            Catalog::fromRadians(name, std::move(ra), std::move(dec), {}, std::move(label)));
    };
    const auto data = congruent(boxCatalog(400, 3, 0.5, 0, "pattern"), "data");
    const auto random = congruent(boxCatalog(500, 4, 0.0, 0, "pattern randoms"), "random");
    if (mirror) { // the premise: the reflected vectors are exact
        const std::size_t n = data->size() / 2;
        for (std::size_t i = 0; i < n; ++i) {
            QCOMPARE(data->z()[n + i], -data->z()[i]);
            QCOMPARE(data->x()[n + i], data->x()[i]);
        }
    }
    CorrelationParams params = jobParams(data, {random});
    params.jackknife.regionColumn = "patch";
    const CorrelationResult result = CorrelationJob(params).run();
    QVERIFY(result.hasJackknife());
    QCOMPARE(result.jackknifeRegions.count, regions);
    QCOMPARE(result.jackknifeSamples.size(), static_cast<std::size_t>(regions));
    bool anyFinite = false;
    for (std::size_t bin = 0; bin < result.binCount(); ++bin) {
        const double first = result.jackknifeSamples[0][bin];
        if (std::isnan(first))
            continue;
        anyFinite = true;
        for (const auto& sample : result.jackknifeSamples)
            QCOMPARE(sample[bin], first);
        QCOMPARE(result.wError[bin], 0.0);
        for (std::size_t j = 0; j < result.binCount(); ++j)
            if (!std::isnan(result.jackknifeSamples[0][j]))
                QCOMPARE(result.covariance[bin * result.binCount() + j], 0.0);
    }
    QVERIFY(anyFinite);
}

// K clumps of data far apart, each its own region, with a random clump at each. With one bin
// holding exactly the within-clump pairs, every leave-one-out count is closed form:
// DD^(k) = Σ_{j≠k} n_j(n_j−1)/2, DR^(k) = Σ_{j≠k} n_j m, RR^(k) = (K−1) m(m−1)/2, with
// N_D^(k) = N_D − n_k and N_R^(k) = (K−1) m. σ follows from the Landy–Szalay formula.
void TestJackknife::clumpsGiveClosedFormSigma() {
    const std::vector<int> clumpSize{20, 35, 50, 28, 61, 44};
    const int k = static_cast<int>(clumpSize.size());
    const int m = 40;
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> jitter(-2e-4, 2e-4); // radians; pairs < 0.05°
    std::vector<double> ra, dec, rra, rdec;
    std::vector<std::int32_t> label, rlabel;
    for (int c = 0; c < k; ++c) {
        // Clump centres 30° apart on the equator band: cross-clump pairs are far outside the bin.
        const double cra = 0.5 * c, cdec = 0.1 * (c % 2);
        for (int i = 0; i < clumpSize[static_cast<std::size_t>(c)]; ++i) {
            ra.push_back(cra + jitter(rng));
            dec.push_back(cdec + jitter(rng));
            label.push_back(7 * c + 3);
        }
        for (int i = 0; i < m; ++i) {
            rra.push_back(cra + jitter(rng));
            rdec.push_back(cdec + jitter(rng));
            rlabel.push_back(7 * c + 3);
        }
    }
    auto data = std::make_shared<const Catalog>(Catalog::fromRadians("clumps", ra, dec, {}, label));
    auto random = std::make_shared<const Catalog>(
        Catalog::fromRadians("random clumps", rra, rdec, {}, rlabel));
    CorrelationParams params = jobParams(data, {random});
    params.bins = BinSpec::linearCount(0.0, 1.0, AngleUnit::Degree, 1);
    params.jackknife.regionColumn = "clump";
    const CorrelationResult result = CorrelationJob(params).run();
    QVERIFY(result.hasJackknife());
    QCOMPARE(result.binCount(), std::size_t{1});

    double nTotal = 0;
    for (int n : clumpSize)
        nTotal += n;
    std::vector<double> samples;
    for (int left = 0; left < k; ++left) {
        double dd = 0, dr = 0;
        for (int j = 0; j < k; ++j)
            if (j != left) {
                const double n = clumpSize[static_cast<std::size_t>(j)];
                dd += n * (n - 1) / 2;
                dr += n * m;
            }
        const double nd = nTotal - clumpSize[static_cast<std::size_t>(left)];
        const double nr = (k - 1.0) * m;
        const double rr = (k - 1.0) * m * (m - 1.0) / 2;
        const double ddN = dd / (nd * (nd - 1) / 2), drN = dr / (nd * nr),
                     rrN = rr / (nr * (nr - 1) / 2);
        samples.push_back((ddN - 2 * drN + rrN) / rrN);
    }
    double mean = 0;
    for (double w : samples)
        mean += w / k;
    double var = 0;
    for (double w : samples)
        var += (w - mean) * (w - mean);
    const double sigma = std::sqrt((k - 1.0) / k * var);
    QVERIFY(sigma > 0.01); // the construction is not degenerate
    for (int left = 0; left < k; ++left)
        QVERIFY(std::abs(result.jackknifeSamples[static_cast<std::size_t>(left)][0] -
                         samples[static_cast<std::size_t>(left)]) <=
                1e-12 * std::abs(samples[static_cast<std::size_t>(left)]));
    // Different operation orders only: a few ulps of relative difference.
    QVERIFY2(std::abs(result.wError[0] - sigma) <= 1e-10 * sigma,
             qPrintable(QStringLiteral("sigma %1, expected %2").arg(result.wError[0]).arg(sigma)));
    QCOMPARE(result.jackknifeRegions.dataPerRegion,
             std::vector<std::uint64_t>({20, 35, 50, 28, 61, 44}));
}

void TestJackknife::covarianceProperties() {
    auto data = std::make_shared<const Catalog>(boxCatalog(1500, 41, 0.4, 0, "data"));
    auto random = std::make_shared<const Catalog>(boxCatalog(2000, 42, 0.0, 0, "random"));
    CorrelationParams params = jobParams(data, {random});
    params.jackknife.regions = 8;
    const CorrelationResult result = CorrelationJob(params).run();
    const std::size_t bins = result.binCount();
    QCOMPARE(result.covariance.size(), bins * bins);
    QCOMPARE(result.wError.size(), bins);
    bool anyPositive = false;
    for (std::size_t i = 0; i < bins; ++i) {
        const double c = result.covariance[i * bins + i];
        // σ = √C_ii, so σ² returns C_ii to within the two roundings of sqrt and the product.
        QVERIFY(std::abs(result.wError[i] * result.wError[i] - c) <=
                4 * std::numeric_limits<double>::epsilon() * c);
        anyPositive = anyPositive || c > 0;
        for (std::size_t j = 0; j < bins; ++j)
            QCOMPARE(result.covariance[i * bins + j], result.covariance[j * bins + i]);
    }
    QVERIFY(anyPositive);
    const std::vector<double> correlation = correlationMatrix(result.covariance, bins);
    for (std::size_t i = 0; i < bins; ++i) {
        if (!(result.covariance[i * bins + i] > 0))
            continue;
        QCOMPARE(correlation[i * bins + i], 1.0);
        for (std::size_t j = 0; j < bins; ++j)
            if (result.covariance[j * bins + j] > 0) { // Cauchy–Schwarz, plus rounding
                QVERIFY(std::abs(correlation[i * bins + j]) <= 1.0 + 1e-12);
                const double expected =
                    result.covariance[i * bins + j] /
                    std::sqrt(result.covariance[i * bins + i] * result.covariance[j * bins + j]);
                QVERIFY(std::abs(correlation[i * bins + j] - expected) <= 1e-12);
            }
    }
    // The statistics alone: two samples a, b give C = (1/2)·((a−b)/2)²·2 = (a−b)²/4.
    const JackknifeStatistics two = jackknifeStatistics({{1.0, 4.0}, {3.0, 0.0}});
    QCOMPARE(two.covariance, std::vector<double>({1.0, -2.0, -2.0, 4.0}));
    QCOMPARE(two.sigma, std::vector<double>({1.0, 2.0}));
    // Two samples move in opposite directions in the two bins: correlation −1 off the diagonal.
    QCOMPARE(correlationMatrix(two.covariance, 2), std::vector<double>({1.0, -1.0, -1.0, 1.0}));
}

void TestJackknife::covarianceMatchesBruteForce_data() {
    QTest::addColumn<int>("samples");
    QTest::addColumn<int>("bins");
    QTest::addColumn<int>("nanBin"); // a bin where one sample is NaN; -1: none
    // Sizes below, at and across the covariance blocks (64 rows, 256 columns) and the four
    // samples summed per pass, odd ones included.
    QTest::newRow("K=2, 1 bin") << 2 << 1 << -1;
    QTest::newRow("K=3, 5 bins") << 3 << 5 << -1;
    QTest::newRow("K=7, 13 bins") << 7 << 13 << -1;
    QTest::newRow("K=64, 64 bins") << 64 << 64 << -1;
    QTest::newRow("K=65, 257 bins") << 65 << 257 << -1;
    QTest::newRow("K=130, 301 bins") << 130 << 301 << -1;
    QTest::newRow("K=5, 513 bins") << 5 << 513 << -1;
    QTest::newRow("K=301, 70 bins") << 301 << 70 << -1;
    QTest::newRow("K=9, 40 bins, a NaN") << 9 << 40 << 17;
}

// The statistics against the formula evaluated entry by entry, in long double, on seeded
// samples of a few scales (w spans decades across bins).
void TestJackknife::covarianceMatchesBruteForce() {
    QFETCH(int, samples);
    QFETCH(int, bins);
    QFETCH(int, nanBin);
    const auto k = static_cast<std::size_t>(samples);
    const auto n = static_cast<std::size_t>(bins);
    std::mt19937_64 rng(1000 * k + n);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::vector<std::vector<double>> w(k, std::vector<double>(n));
    for (std::size_t b = 0; b < n; ++b) {
        const double level = std::pow(10.0, -3.0 * static_cast<double>(b) / static_cast<double>(n));
        for (std::size_t s = 0; s < k; ++s)
            w[s][b] = level * (1.0 + 0.05 * noise(rng));
    }
    if (nanBin >= 0)
        w[k / 2][static_cast<std::size_t>(nanBin)] = std::numeric_limits<double>::quiet_NaN();

    const JackknifeStatistics got = jackknifeStatistics(w);
    QCOMPARE(got.mean.size(), n);
    QCOMPARE(got.sigma.size(), n);
    QCOMPARE(got.covariance.size(), n * n);

    std::vector<long double> mean(n, 0.0L);
    for (std::size_t b = 0; b < n; ++b) {
        for (std::size_t s = 0; s < k; ++s)
            mean[b] += w[s][b];
        mean[b] /= static_cast<long double>(k);
    }
    const long double factor = static_cast<long double>(k - 1) / static_cast<long double>(k);
    std::vector<long double> want(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            long double sum = 0;
            for (std::size_t s = 0; s < k; ++s)
                sum += (w[s][i] - mean[i]) * (w[s][j] - mean[j]);
            want[i * n + j] = factor * sum;
        }
    const auto isNan = [&](std::size_t b) { return static_cast<int>(b) == nanBin; };
    for (std::size_t i = 0; i < n; ++i) {
        if (isNan(i)) {
            QVERIFY(std::isnan(got.mean[i]));
            QVERIFY(std::isnan(got.sigma[i]));
        } else {
            QVERIFY(std::abs(got.mean[i] - mean[i]) <= 1e-14L * std::abs(mean[i]));
            QVERIFY(std::abs(got.sigma[i] - std::sqrt(want[i * n + i])) <=
                    1e-12L * std::sqrt(want[i * n + i]));
        }
        for (std::size_t j = 0; j < n; ++j) {
            const double c = got.covariance[i * n + j];
            const double mirror = got.covariance[j * n + i];
            // Exactly symmetric: NaN with NaN, every other entry bit for bit.
            QVERIFY(c == mirror || (std::isnan(c) && std::isnan(mirror)));
            if (isNan(i) || isNan(j)) {
                QVERIFY(std::isnan(c));
                continue;
            }
            // Relative to the entry's natural scale σ_i σ_j (off-diagonal entries may be ~0).
            const long double scale = std::sqrt(want[i * n + i] * want[j * n + j]);
            QVERIFY2(std::abs(c - want[i * n + j]) <= 1e-12L * scale,
                     qPrintable(QStringLiteral("C[%1][%2] = %3, brute force %4")
                                    .arg(i)
                                    .arg(j)
                                    .arg(c, 0, 'g', 17)
                                    .arg(static_cast<double>(want[i * n + j]), 0, 'g', 17)));
        }
    }
}

void TestJackknife::memoryEstimate_data() {
    QTest::addColumn<int>("regions");
    QTest::addColumn<int>("bins");
    QTest::addColumn<int>("randomSets");
    QTest::addColumn<int>("threads");
    QTest::newRow("small") << 8 << 15 << 1 << 2;
    QTest::newRow("K=3000, 3000 bins") << 3000 << 3000 << 1 << 2;
    QTest::newRow("K=100, 10000 bins") << 100 << 10000 << 1 << 2;
    QTest::newRow("K=10000, 30 bins, 16 threads") << 10000 << 30 << 1 << 16;
    QTest::newRow("K=500, 200 bins, 10 sets") << 500 << 200 << 10 << 4;
}

// The estimate holds at least what the job cannot do without (for every count the touching and
// within counts of every region and bin, and the covariance), grows as K · bins with the
// per-region counts and as bins² with the covariance, and never falls when anything grows.
void TestJackknife::memoryEstimate() {
    QFETCH(int, regions);
    QFETCH(int, bins);
    QFETCH(int, randomSets);
    QFETCH(int, threads);
    const auto k = static_cast<std::size_t>(regions);
    const auto b = static_cast<std::size_t>(bins);
    const auto sets = static_cast<std::size_t>(randomSets);
    const JackknifeMemory memory = estimateJackknifeMemory(k, b, sets, threads);
    QCOMPARE(memory.regions, k);
    QCOMPARE(memory.bins, b);
    QCOMPARE(memory.randomSets, sets);
    QCOMPARE(memory.threads, static_cast<std::size_t>(threads));
    QCOMPARE(memory.peak(), std::max({memory.counting, memory.statistics, memory.result}));

    const double counts = 1.0 + 2.0 * static_cast<double>(sets);
    const double perRegionArray = 8.0 * static_cast<double>(k) * static_cast<double>(b);
    const double covariance = 8.0 * static_cast<double>(b) * static_cast<double>(b);
    QVERIFY(static_cast<double>(memory.counting) >= 3 * counts * perRegionArray);
    QVERIFY(static_cast<double>(memory.statistics) >=
            2 * counts * perRegionArray + perRegionArray + covariance);
    QVERIFY(static_cast<double>(memory.result) >= perRegionArray + covariance);
    // Not wildly more either: the model's parts are these arrays and a few more like them.
    QVERIFY(static_cast<double>(memory.peak()) <=
            8 * counts * perRegionArray + 4 * covariance + 1e8);

    const auto peak = [&](std::size_t k2, std::size_t b2, std::size_t s2, int t2) {
        return estimateJackknifeMemory(k2, b2, s2, t2).peak();
    };
    QVERIFY(peak(k + 1, b, sets, threads) >= memory.peak());
    QVERIFY(peak(k, b + 1, sets, threads) >= memory.peak());
    QVERIFY(peak(k, b, sets + 1, threads) >= memory.peak());
    QVERIFY(estimateJackknifeMemory(k, b, sets + 1, threads).counting > memory.counting);
    QVERIFY(peak(k, b, sets, threads + 1) >= memory.peak());
    // Doubling K and the bins quadruples an estimate of K · bins and bins² arrays, up to the
    // per-thread rows (fixed once K exceeds them) and the totals (linear in the bins).
    const double ratio =
        static_cast<double>(peak(2 * k, 2 * b, sets, threads)) / static_cast<double>(memory.peak());
    if (perRegionArray > 1e8)
        QVERIFY2(ratio > 3.5 && ratio <= 4.0, qPrintable(QString::number(ratio)));
    // No wrap-around for absurd inputs: the estimate saturates.
    QCOMPARE(estimateJackknifeMemory(std::size_t{1} << 40, std::size_t{1} << 40, 1, 1).peak(),
             std::numeric_limits<std::uint64_t>::max());
}

// The refusal names the estimate and the limit; formatBytes as its message shows them.
void TestJackknife::memoryLimit() {
    QCOMPARE(formatBytes(0), std::string("0 bytes"));
    QCOMPARE(formatBytes(1023), std::string("1023 bytes"));
    QCOMPARE(formatBytes(1024), std::string("1.0 KiB"));
    QCOMPARE(formatBytes(648ull << 20), std::string("648 MiB"));
    QCOMPARE(formatBytes((91ull << 30) / 10), std::string("9.1 GiB"));
    QCOMPARE(formatBytes(3ull << 40), std::string("3.0 TiB"));

    const JackknifeMemory memory = estimateJackknifeMemory(3000, 3000, 1, 2);
    checkJackknifeMemory(memory, memory.peak()); // at the limit: accepted
    try {
        checkJackknifeMemory(memory, memory.peak() - 1);
        QFAIL("no ConfigError above the limit");
    } catch (const ConfigError& error) {
        const std::string message = error.what();
        QVERIFY2(message.find("K = 3000 regions, 3000 bins and 1 random set") != std::string::npos,
                 message.c_str());
        QVERIFY2(message.find(formatBytes(memory.peak())) != std::string::npos, message.c_str());
        QVERIFY2(message.find(formatBytes(memory.peak() - 1)) != std::string::npos,
                 message.c_str());
    }
    if (physicalMemoryBytes() == 0)
        QSKIP("the system does not report its physical memory");
    // The machine's limit: a share of what it has, so the job's own check refuses no small job.
    checkJackknifeMemory(estimateJackknifeMemory(32, 30, 1, 2));
}

void TestJackknife::jobRefusesWhatCannotFit_data() {
    QTest::addColumn<bool>("fromColumn");
    QTest::newRow("K regions grown on the sky") << false;
    QTest::newRow("K regions from a column") << true;
}

// K = 10000 and 10000 bins with enough random sets to exceed the machine's limit: the job says
// so with the numbers before it grows regions or counts a pair (the k-means regions would fail
// otherwise: 10000 regions for 50 points; the column's 10000 regions would take minutes).
void TestJackknife::jobRefusesWhatCannotFit() {
    QFETCH(bool, fromColumn);
    const std::uint64_t physical = physicalMemoryBytes();
    if (physical == 0)
        QSKIP("the system does not report its physical memory");
    constexpr int kRegions = kMaxJackknifeRegions;
    constexpr int kBins = 10000;
    const std::size_t points = fromColumn ? kRegions : 50;
    auto data = std::make_shared<const Catalog>(boxCatalog(points, 111, 0.0, 0, "d"));
    auto random = std::make_shared<const Catalog>(boxCatalog(points, 112, 0.0, 0, "r"));
    if (fromColumn) { // every label once in each catalog: K = 10000 distinct labels
        const auto labelled = [](const Catalog& c) {
            std::vector<std::int32_t> label(c.size());
            std::iota(label.begin(), label.end(), 0);
            return std::make_shared<const Catalog>(Catalog::fromRadians(
                c.name(), std::vector<double>(c.ra().begin(), c.ra().end()),
                std::vector<double>(c.dec().begin(), c.dec().end()), {}, std::move(label)));
        };
        data = labelled(*data);
        random = labelled(*random);
    }
    CorrelationParams params = jobParams(data, {random});
    params.bins = BinSpec::logCount(1.0, 3000.0, AngleUnit::Arcminute, kBins);
    if (fromColumn)
        params.jackknife.regionColumn = "patch";
    else
        params.jackknife.regions = kRegions;
    // The same small random catalog as many sets as it takes: they cost nothing until counted.
    const auto limit = static_cast<std::uint64_t>(kJackknifeMemoryShare * double(physical));
    while (estimateJackknifeMemory(kRegions, kBins, params.randoms.size(), 2).peak() <= limit)
        params.randoms.push_back(random);
    const std::uint64_t needed =
        estimateJackknifeMemory(kRegions, kBins, params.randoms.size(), 2).peak();

    int reports = 0;
    try {
        CorrelationJob(params).run([&](const JobProgress&) { ++reports; });
        QFAIL("the job ran");
    } catch (const ConfigError& error) {
        const std::string message = error.what();
        QVERIFY2(message.find("K = 10000 regions, 10000 bins and " +
                              std::to_string(params.randoms.size()) + " random sets") !=
                     std::string::npos,
                 message.c_str());
        QVERIFY2(message.find("needs about " + formatBytes(needed)) != std::string::npos,
                 message.c_str());
        QVERIFY2(message.find(formatBytes(physical)) != std::string::npos, message.c_str());
    }
    QCOMPARE(reports, 0);
}

void TestJackknife::jobKeepsFullSampleResult() {
    auto data = std::make_shared<const Catalog>(boxCatalog(1200, 51, 0.3, 0, "data"));
    auto r1 = std::make_shared<const Catalog>(boxCatalog(1300, 52, 0.0, 0, "r1"));
    auto r2 = std::make_shared<const Catalog>(boxCatalog(900, 53, 0.0, 0, "r2"));
    CorrelationParams params = jobParams(data, {r1, r2});
    const CorrelationResult plain = CorrelationJob(params).run();
    params.jackknife.regions = 6;
    params.jackknife.seed = 9;
    int reports = 0, partials = 0;
    const CorrelationResult jack = CorrelationJob(params).run([&](const JobProgress& p) {
        ++reports;
        if (p.partial)
            ++partials;
    });
    QVERIFY(!plain.hasJackknife());
    QVERIFY(jack.hasJackknife());
    QCOMPARE(jack.raw.dd, plain.raw.dd);
    QCOMPARE(jack.raw.dr, plain.raw.dr);
    QCOMPARE(jack.raw.rr, plain.raw.rr);
    QCOMPARE(jack.w.size(), plain.w.size());
    for (std::size_t b = 0; b < plain.w.size(); ++b)
        QVERIFY(jack.w[b] == plain.w[b] || (std::isnan(jack.w[b]) && std::isnan(plain.w[b])));
    QCOMPARE(jack.jackknifeSamples.size(), std::size_t{6});
    QCOMPARE(jack.jackknifeRegions.method, std::string("k-means (seed 9)"));
    QVERIFY(jack.jackknifeRegions.dataRegions);
    QCOMPARE(jack.jackknifeRegions.dataRegions->size(), data->size());
    std::uint64_t dataSum = 0, randomSum = 0;
    for (auto n : jack.jackknifeRegions.dataPerRegion)
        dataSum += n;
    for (auto n : jack.jackknifeRegions.randomPerRegion)
        randomSum += n;
    QCOMPARE(dataSum, std::uint64_t{1200});
    QCOMPARE(randomSum, std::uint64_t{1300 + 900});
    // Progress is reported; a count of a few thousand points is too few work units for an even
    // sample, so no live estimate is drawn from it (test_live_estimate has the ones that are).
    QVERIFY(reports >= 1);
    QCOMPARE(partials, 0);
}

void TestJackknife::kMeansRegions() {
    const Catalog data = boxCatalog(5000, 61, 0.2, 0, "data");
    const auto centres = kMeansRegionCentres(data, 12, 5);
    QCOMPARE(centres.size(), std::size_t{12});
    const auto again = kMeansRegionCentres(data, 12, 5);
    for (std::size_t c = 0; c < centres.size(); ++c) {
        QCOMPARE(again[c].x, centres[c].x);
        QCOMPARE(again[c].z, centres[c].z);
        QVERIFY(std::abs(centres[c].x * centres[c].x + centres[c].y * centres[c].y +
                         centres[c].z * centres[c].z - 1.0) < 1e-12);
    }
    const auto regions = nearestCentreRegions(data, centres, 2);
    std::vector<int> perRegion(12, 0);
    for (std::size_t i = 0; i < data.size(); i += 7) {
        double best = -2;
        int bestRegion = -1;
        for (std::size_t c = 0; c < centres.size(); ++c) {
            const double d = data.x()[i] * centres[c].x + data.y()[i] * centres[c].y +
                             data.z()[i] * centres[c].z;
            if (d > best) {
                best = d;
                bestRegion = static_cast<int>(c);
            }
        }
        QCOMPARE(regions[i], bestRegion);
    }
    for (std::int32_t r : regions)
        ++perRegion[static_cast<std::size_t>(r)];
    for (int n : perRegion)
        QVERIFY(n > 0); // k-means on the data: every centre owns points

    // Above the subsample size: the sample is drawn by seed, reproducibly.
    const Catalog large = boxCatalog(15000, 62, 0.2, 0, "large");
    const auto first = kMeansRegionCentres(large, 12, 5);
    const auto second = kMeansRegionCentres(large, 12, 5);
    const auto otherSeed = kMeansRegionCentres(large, 12, 6);
    bool differs = false;
    for (std::size_t c = 0; c < first.size(); ++c) {
        QCOMPARE(second[c].x, first[c].x);
        QCOMPARE(second[c].y, first[c].y);
        differs = differs || otherSeed[c].x != first[c].x;
    }
    QVERIFY(differs);
}

// The copy the job counts: points grouped by region, stable within a region, coordinates and
// unit vectors bit-identical to the original's.
void TestJackknife::regionOrderedCopyKeepsPoints() {
    const Catalog c = boxCatalog(500, 63, 0.3, 0, "c");
    std::vector<std::int32_t> regions(c.size());
    for (std::size_t i = 0; i < regions.size(); ++i)
        regions[i] = static_cast<std::int32_t>((i * 7919) % 6);
    const Catalog o = regionOrderedCopy(c, regions);
    QCOMPARE(o.size(), c.size());
    std::size_t at = 0;
    for (std::int32_t r = 0; r < 6; ++r)
        for (std::size_t i = 0; i < c.size(); ++i)
            if (regions[i] == r) {
                QCOMPARE(o.region()[at], r);
                QCOMPARE(o.ra()[at], c.ra()[i]);
                QCOMPARE(o.dec()[at], c.dec()[i]);
                QCOMPARE(o.x()[at], c.x()[i]);
                QCOMPARE(o.y()[at], c.y()[i]);
                QCOMPARE(o.z()[at], c.z()[i]);
                ++at;
            }
    QCOMPARE(at, c.size());
    QVERIFY_THROWS_EXCEPTION(ConfigError, regionOrderedCopy(c, {1, 2}));
}

void TestJackknife::regionColumnRemapsLabels() {
    const Catalog d = Catalog::fromDegrees("d", {1, 2, 3, 4}, {0, 0, 0, 0}, {}, {50, -3, 50, 9});
    const Catalog r = Catalog::fromDegrees("r", {1, 2, 3}, {1, 1, 1}, {}, {9, 1000, -3});
    const Catalog* randoms[] = {&r};
    const RegionAssignment a = remapRegionLabels(d, randoms, "patch");
    QCOMPARE(a.count, 4); // -3, 9, 50, 1000
    QCOMPARE(a.data, std::vector<std::int32_t>({2, 0, 2, 1}));
    QCOMPARE(a.randoms.front(), std::vector<std::int32_t>({1, 3, 0}));
    QCOMPARE(a.columnLabels, std::vector<std::int32_t>({-3, 9, 50, 1000}));
    const JackknifeRegionsSummary s = summariseRegions(a);
    QCOMPARE(s.dataPerRegion, std::vector<std::uint64_t>({1, 1, 2, 0}));
    QCOMPARE(s.randomPerRegion, std::vector<std::uint64_t>({1, 1, 0, 1}));
    // Region 3 has no data, region 2 no randoms: both reported.
    QCOMPARE(s.warnings.size(), std::size_t{2});
    QVERIFY(s.warnings[0].find("no data") != std::string::npos);
    QVERIFY(s.warnings[1].find("no random") != std::string::npos);
}

void TestJackknife::readersTakeRegionColumn() {
    ReadOptions options;
    options.regionColumn = ColumnRef::parse("patch");
    const Catalog c =
        parseAsciiCatalog("ra dec patch\n10 5 7\n11 6 -2\n12 7 7\n", "mem.txt", options);
    QCOMPARE(std::vector<std::int32_t>(c.region().begin(), c.region().end()),
             std::vector<std::int32_t>({7, -2, 7}));
    options.regionColumn = ColumnRef::parse("3");
    const Catalog byIndex = parseAsciiCatalog("10 5 4\n11 6 1e1\n", "mem.txt", options);
    QCOMPARE(byIndex.region()[1], 10);
    try {
        parseAsciiCatalog("ra dec patch\n10 5 7\n11 6 2.5\n", "mem.txt", options);
        QFAIL("a fractional label was accepted");
    } catch (const InputError& e) {
        QCOMPARE(e.line(), 3L);
        QCOMPARE(e.column(), 3);
        QVERIFY(std::string(e.what()).find("2.5") != std::string::npos);
    }
    options.regionColumn = ColumnRef::parse("patch");
    QVERIFY_THROWS_EXCEPTION(InputError, parseAsciiCatalog("ra dec\n10 5\n", "mem.txt", options));
    QVERIFY_THROWS_EXCEPTION(InputError,
                             parseAsciiCatalog("ra dec patch\n10 5 x\n", "mem.txt", options));
}

void TestJackknife::output() {
    auto data = std::make_shared<const Catalog>(boxCatalog(800, 71, 0.3, 0, "data"));
    auto random = std::make_shared<const Catalog>(boxCatalog(900, 72, 0.0, 0, "random"));
    CorrelationParams params = jobParams(data, {random});
    const CorrelationResult plain = CorrelationJob(params).run();
    params.jackknife.regions = 4;
    const CorrelationResult jack = CorrelationJob(params).run();

    std::ostringstream plainCsv, jackCsv;
    writeResultCsv(plainCsv, plain);
    writeResultCsv(jackCsv, jack);
    QVERIFY(plainCsv.str().find(",w\n") != std::string::npos);
    QVERIFY(plainCsv.str().find("w_err") == std::string::npos);
    QVERIFY(jackCsv.str().find(",w,w_err\n") != std::string::npos);
    QVERIFY(jackCsv.str().find("#   jackknife: '4 regions") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(ConfigError, [&] {
        std::ostringstream out;
        writeCovarianceCsv(out, plain);
    }());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string resultPath = dir.filePath(QStringLiteral("w.csv")).toStdString();
    const std::string covPath = dir.filePath(QStringLiteral("cov.csv")).toStdString();
    writeResultCsvFile(resultPath, jack);
    writeCovarianceCsv(covPath, jack);
    const ResultTable table = readResultCsv(resultPath);
    QCOMPARE(table.columns.back(), std::string("w_err"));
    const ResultTable cov = readResultCsv(covPath);
    const std::size_t bins = jack.binCount();
    QCOMPARE(cov.columns.size(), bins + 2);
    QCOMPARE(cov.columns[0], std::string("bin"));
    QCOMPARE(cov.rows.size(), bins);
    for (std::size_t i = 0; i < bins; ++i) {
        const double w = table.rows[i].back(), expected = jack.wError[i];
        QVERIFY(w == expected || (std::isnan(w) && std::isnan(expected)));
        for (std::size_t j = 0; j < bins; ++j) {
            const double c = cov.rows[i][j + 2], e = jack.covariance[i * bins + j];
            QVERIFY(c == e || (std::isnan(c) && std::isnan(e)));
        }
    }

    std::ostringstream plainJson, jackJson;
    writeResultJson(plainJson, plain);
    writeResultJson(jackJson, jack);
    QVERIFY(plainJson.str().find("\"jackknife\": null") != std::string::npos);
    QVERIFY(jackJson.str().find("\"samples\": [") != std::string::npos);
    QVERIFY(jackJson.str().find("\"data_per_region\": [") != std::string::npos);
    QVERIFY(jackJson.str().find("\"w_err\": [") != std::string::npos);
}

void TestJackknife::errors_data() {
    QTest::addColumn<int>("regions");
    QTest::addColumn<QString>("column");
    QTest::addColumn<bool>("labelled");
    QTest::newRow("K=1") << 1 << QString() << false;
    QTest::newRow("K negative") << -2 << QString() << false;
    QTest::newRow("K above the data") << 60 << QString() << false;
    QTest::newRow("K above the limit") << kMaxJackknifeRegions + 1 << QString() << false;
    QTest::newRow("column missing from catalogs") << 0 << QStringLiteral("patch") << false;
    QTest::newRow("column contradicts K") << 5 << QStringLiteral("patch") << true;
}

void TestJackknife::errors() {
    QFETCH(int, regions);
    QFETCH(QString, column);
    QFETCH(bool, labelled);
    auto data = std::make_shared<const Catalog>(boxCatalog(50, 81, 0.0, labelled ? 3 : 0, "d"));
    auto random = std::make_shared<const Catalog>(boxCatalog(60, 82, 0.0, labelled ? 3 : 0, "r"));
    CorrelationParams params = jobParams(data, {random});
    params.jackknife.regions = regions;
    params.jackknife.regionColumn = column.toStdString();
    QVERIFY_THROWS_EXCEPTION(ConfigError, CorrelationJob(params).run());
}

void TestJackknife::backendWithoutRegions() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, validateJackknifeRegionCount(0));
    QVERIFY_THROWS_EXCEPTION(ConfigError, validateJackknifeRegionCount(1));
    validateJackknifeRegionCount(2);
    BackendRegistry gpu;
    gpu.add(std::make_shared<NoRegionProvider>());
    NoRegionCounter direct;
    QVERIFY(!direct.supportsRegions());
    QVERIFY_THROWS_EXCEPTION(ConfigError, direct.countBatchByRegion({}, Binning(BinSpec{}), 2));

    auto data = std::make_shared<const Catalog>(boxCatalog(300, 91, 0.3, 0, "d"));
    auto random = std::make_shared<const Catalog>(boxCatalog(300, 92, 0.0, 0, "r"));
    CorrelationParams params = jobParams(data, {random});
    params.jackknife.regions = 3;
    params.backend.name = "cuda";
    QVERIFY_THROWS_EXCEPTION(ConfigError, CorrelationJob(params, gpu).run());
    params.backend.name = "auto";
    const CorrelationResult result = CorrelationJob(params, gpu).run();
    QCOMPARE(result.backendName, std::string("cpu"));
    QVERIFY(result.backendNotice.find("jackknife") != std::string::npos);
    QVERIFY(result.hasJackknife());
    // Without jackknife the GPU stand-in is used as before.
    params.jackknife.regions = 0;
    QCOMPARE(CorrelationJob(params, gpu).run().backendName, std::string("fake-gpu"));
}

TPACF_TEST_MAIN(TestJackknife)
#include "test_jackknife.moc"
