// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the count store and FITS count file suites: seeded catalogs, the jobs of each mode
// and field-by-field comparisons of results and stores (bit for bit, or to 1e-12 for weighted
// sums of two runs).
#include "tpacf/correlation_job.h"
#include "tpacf/count_store.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>

using tpacf::AngleUnit;
using tpacf::BinSpec;
using tpacf::Catalog;
using tpacf::CorrelationJob;
using tpacf::CorrelationParams;
using tpacf::CorrelationResult;
using tpacf::CountStore;
using tpacf::StoredCount;

namespace {

// Points in a box of the sky, some gathered in clumps; weights in [0.5, 1.5) when asked.
inline Catalog makeCatalog(std::size_t n, std::uint64_t seed, bool weighted,
                           const std::string& name) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n), weight;
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 0.5 + 0.3 * unit(rng);
        dec[i] = 0.2 + 0.3 * unit(rng);
        if (weighted)
            weight.push_back(0.5 + unit(rng));
    }
    return Catalog::fromRadians(name, std::move(ra), std::move(dec), std::move(weight));
}

inline std::shared_ptr<const Catalog> shared(Catalog catalog) {
    return std::make_shared<const Catalog>(std::move(catalog));
}

inline BinSpec bins() {
    return BinSpec::logCount(0.5, 600.0, AngleUnit::Arcminute, 9);
}

enum class Mode { Plain, Weighted, Jackknife, WeightedJackknife, Cross, TwoRandomSets };

/// The data rows of a suite run once per mode of run.
inline void addModeRows() {
    QTest::addColumn<int>("mode");
    QTest::newRow("plain") << int(Mode::Plain);
    QTest::newRow("weighted") << int(Mode::Weighted);
    QTest::newRow("jackknife") << int(Mode::Jackknife);
    QTest::newRow("weighted jackknife") << int(Mode::WeightedJackknife);
    QTest::newRow("cross") << int(Mode::Cross);
    QTest::newRow("two random sets") << int(Mode::TwoRandomSets);
}

inline CorrelationParams params(Mode mode, std::uint64_t dataSeed = 1) {
    const bool weighted = mode == Mode::Weighted || mode == Mode::WeightedJackknife;
    CorrelationParams p;
    p.data = shared(makeCatalog(700, dataSeed, weighted, "data.txt"));
    p.randoms.push_back(shared(makeCatalog(900, 101, weighted, "random1.txt")));
    if (mode == Mode::TwoRandomSets)
        p.randoms.push_back(shared(makeCatalog(800, 102, false, "random2.txt")));
    if (mode == Mode::Cross)
        p.data2 = shared(makeCatalog(500, 55, false, "data2.txt"));
    if (mode == Mode::Jackknife || mode == Mode::WeightedJackknife)
        p.jackknife.regions = 4;
    p.bins = bins();
    p.backend.name = "cpu";
    p.backend.cpuThreads = 2;
    return p;
}

inline CorrelationResult run(CorrelationParams p, bool collect = true) {
    p.collectCounts = collect;
    return CorrelationJob(std::move(p)).run();
}

// Bit for bit, NaN included.
inline bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

inline bool sameBits(const std::vector<std::vector<double>>& a,
                     const std::vector<std::vector<double>>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!sameBits(a[i], b[i]))
            return false;
    return true;
}

// Within `relative` of each other, absolute below 1 (w near 0), NaN where both are NaN.
inline bool near(const std::vector<double>& a, const std::vector<double>& b, double relative) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::isnan(a[i]) && std::isnan(b[i])) &&
            !(std::abs(a[i] - b[i]) <= relative * std::max({1.0, std::abs(a[i]), std::abs(b[i])})))
            return false;
    return true;
}

// The CPU backend's weighted sums are added unit by unit into per-worker tallies, and which
// worker takes which unit follows the schedule (cpu_tile_kernels.h): their last bits can differ
// between two runs of one job. Weighted sums, and what they give (w, sigma, covariance,
// samples), are compared to 1e-12 relative; raw counts and unweighted results bit for bit.
// Bit for bit for an unweighted result, to 1e-12 relative for a weighted one.
inline bool sameFor(bool weighted, const std::vector<double>& a, const std::vector<double>& b) {
    return weighted ? near(a, b, 1e-12) : sameBits(a, b);
}

inline bool sameFor(bool weighted, const std::vector<std::vector<double>>& a,
                    const std::vector<std::vector<double>>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!sameFor(weighted, a[i], b[i]))
            return false;
    return true;
}

inline void compareResults(const CorrelationResult& a, const CorrelationResult& b) {
    QCOMPARE(a.raw.dd, b.raw.dd);
    QCOMPARE(a.raw.dr, b.raw.dr);
    QCOMPARE(a.raw.rd, b.raw.rd);
    QCOMPARE(a.raw.rr, b.raw.rr);
    const bool weighted = a.isWeighted() || b.isWeighted();
    QCOMPARE(a.isWeighted(), b.isWeighted());
    QVERIFY(sameFor(weighted, a.raw.ddWeighted, b.raw.ddWeighted));
    QVERIFY(sameFor(weighted, a.raw.drWeighted, b.raw.drWeighted));
    QVERIFY(sameFor(weighted, a.raw.rdWeighted, b.raw.rdWeighted));
    QVERIFY(sameFor(weighted, a.raw.rrWeighted, b.raw.rrWeighted));
    QVERIFY(sameFor(weighted, a.w, b.w));
    QVERIFY(sameFor(weighted, a.wError, b.wError));
    QVERIFY(sameFor(weighted, a.covariance, b.covariance));
    QVERIFY(sameFor(weighted, a.jackknifeSamples, b.jackknifeSamples));
}

// Only the counts whose label starts with `prefix`.
inline std::shared_ptr<const CountStore> only(const CountStore& store, const std::string& prefix) {
    auto result = std::make_shared<CountStore>(store);
    std::erase_if(result->counts,
                  [&](const StoredCount& count) { return !count.label.starts_with(prefix); });
    return result;
}

// `exact`: one store and its copy (bit for bit); otherwise the stores of two runs, whose weighted
// sums agree to 1e-12 (see sameFor).
inline void compareStores(const CountStore& a, const CountStore& b, bool exact = true) {
    const auto same = [&](const std::vector<double>& x, const std::vector<double>& y) {
        return exact ? sameBits(x, y) : near(x, y, 1e-12);
    };
    QVERIFY(sameBits(a.edges, b.edges));
    QVERIFY(sameBits(a.chord2Edges, b.chord2Edges));
    QCOMPARE(a.binsDescription, b.binsDescription);
    QCOMPARE(a.regionCount, b.regionCount);
    QCOMPARE(a.shareParts, b.shareParts);
    QCOMPARE(a.sharesHeld, b.sharesHeld);
    QCOMPARE(a.backend, b.backend);
    QCOMPARE(a.catalogs.size(), b.catalogs.size());
    for (std::size_t i = 0; i < a.catalogs.size(); ++i) {
        QCOMPARE(a.catalogs[i].name, b.catalogs[i].name);
        QVERIFY(a.catalogs[i].content == b.catalogs[i].content);
        QVERIFY(a.catalogs[i].regions == b.catalogs[i].regions);
        QCOMPARE(a.catalogs[i].size, b.catalogs[i].size);
        QVERIFY(std::memcmp(&a.catalogs[i].weights, &b.catalogs[i].weights,
                            sizeof a.catalogs[i].weights) == 0);
    }
    QCOMPARE(a.counts.size(), b.counts.size());
    for (std::size_t i = 0; i < a.counts.size(); ++i) {
        const StoredCount& x = a.counts[i];
        const StoredCount& y = b.counts[i];
        QCOMPARE(x.label, y.label);
        QCOMPARE(x.first, y.first);
        QCOMPARE(x.second, y.second);
        QCOMPARE(x.counts.raw, y.counts.raw);
        QVERIFY(same(x.counts.weighted, y.counts.weighted));
        QCOMPARE(x.regions.has_value(), y.regions.has_value());
        if (x.regions) {
            QCOMPARE(x.regions->total, y.regions->total);
            QCOMPARE(x.regions->touching, y.regions->touching);
            QCOMPARE(x.regions->within, y.regions->within);
            QVERIFY(same(x.regions->weightedTotal, y.regions->weightedTotal));
            QVERIFY(same(x.regions->weightedTouching, y.regions->weightedTouching));
            QVERIFY(same(x.regions->weightedWithin, y.regions->weightedWithin));
        }
    }
}

} // namespace
