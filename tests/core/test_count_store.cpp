// SPDX-License-Identifier: GPL-3.0-or-later
// Count stores and count files: content fingerprints tell catalogs apart, count files read back
// bit for bit, a job that reuses counts gives the result of one that counts them all, a mismatch
// is an error that says which, and the shares of one batch add up to the whole.
#include "count_store_fixtures.h"
#include "tpacf/correlation_job.h"
#include "tpacf/count_store.h"
#include "tpacf/errors.h"
#include "tpacf_test_main.h"

#include <QtTest/QtTest>

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

namespace {

CountStore roundTrip(const CountStore& store) {
    std::ostringstream text;
    tpacf::writeCountStoreJson(text, store);
    return tpacf::parseCountStoreJson(text.str(), "memory.json");
}

template <typename Call> QString configErrorOf(Call call) {
    try {
        call();
    } catch (const tpacf::ConfigError& error) {
        return QString::fromStdString(error.what());
    }
    return QStringLiteral("<no ConfigError>");
}

} // namespace

class TestCountStore : public QObject {
    Q_OBJECT

private slots:

    void fingerprintFollowsContent() {
        const Catalog base = makeCatalog(1000, 7, true, "a.txt");
        const auto fingerprint = [](const Catalog& c) { return tpacf::contentFingerprint(c); };
        // The same content under another name.
        QVERIFY(fingerprint(base) == fingerprint(makeCatalog(1000, 7, true, "elsewhere/b.fits")));
        const auto changed = [&](auto edit) {
            std::vector<double> ra(base.ra().begin(), base.ra().end());
            std::vector<double> dec(base.dec().begin(), base.dec().end());
            std::vector<double> weight(base.weight().begin(), base.weight().end());
            edit(ra, dec, weight);
            return Catalog::fromRadians("a.txt", ra, dec, weight);
        };
        using V = std::vector<double>;
        const Catalog moved =
            changed([](V& ra, V&, V&) { ra[500] = std::nextafter(ra[500], 9.0); });
        const Catalog reweighted = changed([](V&, V&, V& w) { w[999] *= 1.0000001; });
        const Catalog reordered = changed([](V& ra, V& dec, V& w) {
            std::swap(ra[3], ra[4]);
            std::swap(dec[3], dec[4]);
            std::swap(w[3], w[4]);
        });
        const Catalog unweighted = changed([](V&, V&, V& w) { w.clear(); });
        const Catalog shorter = changed([](V& ra, V& dec, V& w) {
            ra.pop_back();
            dec.pop_back();
            w.pop_back();
        });
        for (const Catalog* other : {&moved, &reweighted, &reordered, &unweighted, &shorter})
            QVERIFY(!(fingerprint(*other) == fingerprint(base)));
        // Weights of 1 are content too: a catalog with them is not one without.
        const Catalog ones = changed([](V&, V&, V& w) { std::fill(w.begin(), w.end(), 1.0); });
        QVERIFY(!(fingerprint(ones) == fingerprint(unweighted)));
        // Regions: the labels and K.
        const std::vector<std::int32_t> labels{0, 1, 2, 1, 0};
        std::vector<std::int32_t> other = labels;
        other[2] = 0;
        QVERIFY(tpacf::regionFingerprint(labels, 3) == tpacf::regionFingerprint(labels, 3));
        QVERIFY(!(tpacf::regionFingerprint(labels, 3) == tpacf::regionFingerprint(other, 3)));
        QVERIFY(!(tpacf::regionFingerprint(labels, 3) == tpacf::regionFingerprint(labels, 4)));
        // Hex round trip.
        const auto fp = fingerprint(base);
        QVERIFY(tpacf::Fingerprint::parseHex(fp.hex()) == fp);
        QVERIFY(!tpacf::Fingerprint::parseHex("xyz"));
    }

    // ~1 ms per 10^5 points is the budget (0.45 ms measured on an idle machine); the best of
    // five, so that a loaded machine does not fail it, and a bound with room for slow ones.
    void jsonRoundTripIsExact_data() { addModeRows(); }
    void jsonRoundTripIsExact() {
        QFETCH(int, mode);
        const CorrelationResult result = run(params(Mode(mode)));
        QVERIFY(result.counts);
        const CountStore& store = *result.counts;
        QCOMPARE(store.counts.size(), result.raw.dr.size() * (result.isCross() ? 3 : 2) + 1);
        compareStores(roundTrip(store), store);
        // A file of the same text reads back alike and names its source.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("run.counts.json")).toStdString();
        tpacf::writeCountFile(path, store);
        const CountStore read = tpacf::readCountFile(path);
        QCOMPARE(read.source, path);
        compareStores(read, store);
        QCOMPARE(read.culled, store.culled);
    }

    void reuseOfRandomPairsIsExact_data() { addModeRows(); }
    void reuseOfRandomPairsIsExact() {
        QFETCH(int, mode);
        const CorrelationResult fresh = run(params(Mode(mode)));
        CorrelationParams p = params(Mode(mode));
        p.reuse = only(*fresh.counts, "RR");
        const CorrelationResult reused = run(p);
        compareResults(reused, fresh);
        QCOMPARE(reused.reusedCounts.size(), std::size_t(1));
        QVERIFY(reused.reusedCounts[0].starts_with("RR_1"));
        // Its own store holds every count again, equal to the fresh one.
        compareStores(*reused.counts, *fresh.counts, false);
        // All counts reused: no counting at all, the same result.
        CorrelationParams all = params(Mode(mode));
        all.reuse = fresh.counts;
        compareResults(run(all), fresh);
    }

    // Studio's policy: what matches is reused, the rest counted, never an error. Other randoms
    // (and other data) leave only what still matches; other bins leave nothing.
    void reuseWhereMatchingCountsTheRest_data() { addModeRows(); }
    void reuseWhereMatchingCountsTheRest() {
        QFETCH(int, mode);
        const CorrelationResult first = run(params(Mode(mode)));
        // Other data: DD and DR (RD) counted, RR reused.
        CorrelationParams otherData = params(Mode(mode), 7);
        const CorrelationResult fresh = run(otherData);
        otherData.reuse = first.counts;
        otherData.reusePolicy = CorrelationParams::ReusePolicy::WhereMatching;
        const CorrelationResult reused = run(otherData);
        compareResults(reused, fresh);
        const bool jackknife = Mode(mode) == Mode::Jackknife || Mode(mode) == Mode::WeightedJackknife;
        if (jackknife) {
            // The k-means regions are grown on the data: other data, other regions of every
            // random point, so no count fits.
            QVERIFY(reused.reusedCounts.empty());
        } else {
            QCOMPARE(reused.reusedCounts.size(), std::size_t(1));
            QVERIFY(reused.reusedCounts[0].find("RR_1") != std::string::npos);
        }
        // Other randoms under the strict policy are an error; here they are counted.
        CorrelationParams otherRandoms = params(Mode(mode));
        otherRandoms.randoms.front() = shared(
            makeCatalog(900, 555, Mode(mode) == Mode::Weighted ||
                                      Mode(mode) == Mode::WeightedJackknife,
                        "random1.txt"));
        otherRandoms.reuse = first.counts;
        QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, run(otherRandoms));
        otherRandoms.reusePolicy = CorrelationParams::ReusePolicy::WhereMatching;
        const CorrelationResult partly = run(otherRandoms);
        otherRandoms.reuse.reset();
        compareResults(partly, run(otherRandoms));
        // Other bins: nothing reused, no error.
        CorrelationParams otherBins = params(Mode(mode));
        otherBins.bins.max *= 0.5;
        otherBins.reuse = first.counts;
        otherBins.reusePolicy = CorrelationParams::ReusePolicy::WhereMatching;
        const CorrelationResult rebinned = run(otherBins);
        QVERIFY(rebinned.reusedCounts.empty());
        otherBins.reuse.reset();
        compareResults(rebinned, run(otherBins));
    }

    void reuseWithOtherDataRecountsDataPairs_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("plain") << int(Mode::Plain);
        QTest::newRow("weighted") << int(Mode::Weighted);
        QTest::newRow("two random sets") << int(Mode::TwoRandomSets);
    }
    void reuseWithOtherDataRecountsDataPairs() {
        QFETCH(int, mode);
        const CorrelationResult first = run(params(Mode(mode), 1));
        CorrelationParams p = params(Mode(mode), 2);
        p.reuse = first.counts;
        const CorrelationResult reused = run(p);
        const CorrelationResult fresh = run(params(Mode(mode), 2));
        compareResults(reused, fresh);
        QVERIFY(reused.raw.dd != first.raw.dd);
        QCOMPARE(reused.reusedCounts.size(), std::size_t(1));
        QVERIFY(reused.reusedCounts[0].starts_with("RR_1"));
        QVERIFY(reused.reusedCounts[0].find("DD") == std::string::npos);
        bool noted = false;
        for (const auto& note : reused.notes)
            noted = noted || (note.starts_with("counted afresh: DD, DR_1"));
        QVERIFY(noted);
    }

    // A × B counts the pairs of B × A: the two samples swapped reuse every count.
    void crossCountsMatchEitherOrder() {
        const CorrelationResult forward = run(params(Mode::Cross));
        CorrelationParams swapped = params(Mode::Cross);
        std::swap(swapped.data, swapped.data2);
        const CorrelationResult fresh = run(swapped, false);
        swapped.reuse = forward.counts;
        const CorrelationResult reused = run(swapped);
        QCOMPARE(reused.reusedCounts.size(), std::size_t(1));
        QVERIFY(reused.reusedCounts[0].starts_with("DD, DR_1, RD_1, RR_1"));
        QCOMPARE(reused.raw.dd, fresh.raw.dd);
        QCOMPARE(reused.raw.dr, fresh.raw.dr);
        QCOMPARE(reused.raw.rd, fresh.raw.rd);
        QCOMPARE(reused.raw.rr, fresh.raw.rr);
    }

    void mismatchesAreErrors() {
        const CorrelationResult first = run(params(Mode::Plain));
        // Bins.
        CorrelationParams otherBins = params(Mode::Plain);
        otherBins.bins = BinSpec::logCount(0.5, 601.0, AngleUnit::Arcminute, 9);
        otherBins.reuse = first.counts;
        QString message = configErrorOf([&] { run(otherBins); });
        QVERIFY2(message.contains(QStringLiteral("bins differ")) &&
                     message.contains(QStringLiteral("0.5-601")) &&
                     message.contains(QStringLiteral("0.5-600")),
                 qPrintable(message));
        // A random catalog of other content (the same name).
        CorrelationParams otherRandom = params(Mode::Plain);
        otherRandom.randoms[0] = shared(makeCatalog(900, 999, false, "random1.txt"));
        otherRandom.reuse = first.counts;
        message = configErrorOf([&] { run(otherRandom); });
        QVERIFY2(message.contains(QStringLiteral("random catalog 1 'random1.txt'")) &&
                     message.contains(QStringLiteral("differs from every catalog")),
                 qPrintable(message));
        // Jackknife regions: counts without regions, then regions grown on other data.
        CorrelationParams jackknife = params(Mode::Jackknife);
        jackknife.reuse = first.counts;
        message = configErrorOf([&] { run(jackknife); });
        QVERIFY2(message.contains(QStringLiteral("regions differ")), qPrintable(message));
        const CorrelationResult withRegions = run(params(Mode::Jackknife));
        CorrelationParams otherSeed = params(Mode::Jackknife);
        otherSeed.jackknife.seed = 77;
        otherSeed.reuse = withRegions.counts;
        message = configErrorOf([&] { run(otherSeed); });
        QVERIFY2(message.contains(QStringLiteral("regions differ")) &&
                     message.startsWith(QStringLiteral("DD")),
                 qPrintable(message));
        // A share cannot reuse.
        CorrelationParams share = params(Mode::Plain);
        share.share = {0, 2};
        share.reuse = first.counts;
        QVERIFY(configErrorOf([&] { run(share); }).contains(QStringLiteral("share")));
    }

    void malformedFilesAreInputErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << QStringLiteral("# a CSV\n1,2,3\n")
                                  << QStringLiteral("memory.json:1: not a valid count file");
        QTest::newRow("foreign json") << QStringLiteral("{\n \"tool\": \"other\"\n}\n")
                                      << QStringLiteral("not a tpacf count file");
        QTest::newRow("newer version")
            << QStringLiteral("{\"format\": \"tpacf-counts\",\n\"version\": 9}")
            << QStringLiteral("memory.json:2: count file: version 9");
        QTest::newRow("truncated") << QStringLiteral("{\"format\": \"tpacf-counts\", \"ver")
                                   << QStringLiteral("not a valid count file");
    }
    void malformedFilesAreInputErrors() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QString message;
        try {
            tpacf::parseCountStoreJson(text.toStdString(), "memory.json");
        } catch (const tpacf::InputError& error) {
            message = QString::fromStdString(error.what());
        }
        QVERIFY2(message.contains(expected), qPrintable(message));
        // A counts file with a wrong-sized count.
        std::ostringstream good;
        tpacf::writeCountStoreJson(good, *run(params(Mode::Plain)).counts);
        std::string broken = good.str();
        broken.replace(broken.find("\"raw\": ["), 8, "\"raw\": [1, ");
        message.clear();
        try {
            tpacf::parseCountStoreJson(broken, "memory.json");
        } catch (const tpacf::InputError& error) {
            message = QString::fromStdString(error.what());
        }
        QVERIFY2(message.contains(QStringLiteral("counts.raw holds 10 values where 9 belong")),
                 qPrintable(message));
    }

    // Every prefix and seeded byte changes of a valid file: read, or an InputError; never a
    // crash, another exception or a store that breaks its own sizes.
    void brokenFilesAreInputErrors() {
        std::ostringstream good;
        tpacf::writeCountStoreJson(good, *run(params(Mode::WeightedJackknife)).counts);
        const std::string text = good.str();
        const auto check = [](const std::string& variant) {
            try {
                const CountStore store = tpacf::parseCountStoreJson(variant, "broken.json");
                const std::size_t bins = store.edges.size() - 1;
                for (const StoredCount& count : store.counts) {
                    QCOMPARE(count.counts.raw.size(), bins);
                    if (count.regions)
                        QCOMPARE(count.regions->touching.size(), store.regionCount * bins);
                }
            } catch (const tpacf::InputError&) {
            }
        };
        for (std::size_t length = 0; length < text.size(); length += 7) {
            bool threw = false;
            try {
                tpacf::parseCountStoreJson(text.substr(0, length), "broken.json");
            } catch (const tpacf::InputError&) {
                threw = true;
            }
            QVERIFY2(threw, qPrintable(QStringLiteral("prefix of %1 bytes was read").arg(length)));
        }
        std::mt19937_64 rng(5);
        const std::string replacements = "{}[],:\"0123456789-e.x ";
        for (int round = 0; round < 2000; ++round) {
            std::string variant = text;
            for (int edit = 0; edit < 3; ++edit)
                variant[rng() % variant.size()] = replacements[rng() % replacements.size()];
            check(variant);
        }
    }

    void sharesAddUpToTheWhole_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("parts");
        QTest::newRow("plain, 3 parts") << int(Mode::Plain) << 3;
        QTest::newRow("weighted, 4 parts") << int(Mode::Weighted) << 4;
        QTest::newRow("jackknife, 2 parts") << int(Mode::WeightedJackknife) << 2;
        QTest::newRow("cross, 3 parts") << int(Mode::Cross) << 3;
    }
    void sharesAddUpToTheWhole() {
        QFETCH(int, mode);
        QFETCH(int, parts);
        const CorrelationResult whole = run(params(Mode(mode)));
        std::vector<CountStore> shares;
        for (int part = 0; part < parts; ++part) {
            CorrelationParams p = params(Mode(mode));
            p.share = {std::uint32_t(part), std::uint32_t(parts)};
            CountStore store = *run(p).counts;
            store.source = "part" + std::to_string(part + 1) + ".json";
            shares.push_back(roundTrip(store));
        }
        const CountStore total = tpacf::combineCountStores(shares);
        QVERIFY(total.whole());
        QCOMPARE(total.counts.size(), whole.counts->counts.size());
        for (std::size_t c = 0; c < total.counts.size(); ++c) {
            const StoredCount& sum = total.counts[c];
            const StoredCount& one = whole.counts->counts[c];
            QCOMPARE(sum.counts.raw, one.counts.raw);
            QCOMPARE(sum.counts.weighted.size(), one.counts.weighted.size());
            for (std::size_t k = 0; k < sum.counts.weighted.size(); ++k)
                QVERIFY(std::abs(sum.counts.weighted[k] - one.counts.weighted[k]) <=
                        1e-12 * std::abs(one.counts.weighted[k]));
            if (one.regions) {
                QCOMPARE(sum.regions->touching, one.regions->touching);
                QCOMPARE(sum.regions->within, one.regions->within);
            }
        }
        // The combined store is reused like the whole: raw counts exactly.
        CorrelationParams p = params(Mode(mode));
        p.reuse = std::make_shared<const CountStore>(total);
        const CorrelationResult reused = run(p);
        QCOMPARE(reused.raw.dd, whole.raw.dd);
        QCOMPARE(reused.raw.rr, whole.raw.rr);
        QCOMPARE(reused.raw.dr, whole.raw.dr);

        // A share twice; a share missing.
        std::vector<CountStore> twice{shares[0], shares[0]};
        QVERIFY(configErrorOf([&] { tpacf::combineCountStores(twice); })
                    .contains(QStringLiteral("part 1 of ") + QString::number(parts) +
                              QStringLiteral(" is in both")));
        const CountStore partial = tpacf::combineCountStores(
            std::span<const CountStore>(shares.data(), shares.size() - 1));
        QVERIFY(!partial.whole());
        QCOMPARE(partial.missingShares(), std::vector<std::uint32_t>{std::uint32_t(parts - 1)});
        CorrelationParams q = params(Mode(mode));
        q.reuse = std::make_shared<const CountStore>(partial);
        const QString message = configErrorOf([&] { run(q); });
        QVERIFY2(message.contains(QStringLiteral("missing: ") + QString::number(parts)),
                 qPrintable(message));
        // Shares of other bins do not add.
        CorrelationParams otherBins = params(Mode(mode));
        otherBins.bins = BinSpec::logCount(0.5, 601.0, AngleUnit::Arcminute, 9);
        otherBins.share = {std::uint32_t(parts - 1), std::uint32_t(parts)};
        std::vector<CountStore> mixed(shares.begin(), shares.end() - 1);
        mixed.push_back(*run(otherBins).counts);
        QVERIFY(configErrorOf([&] {
                    tpacf::combineCountStores(mixed);
                }).contains(QStringLiteral("bins differ")));
    }

    // Live estimates of a job that reuses counts see the reused ones complete.
    void progressCoversCountedTasksOnly() {
        const CorrelationResult fresh = run(params(Mode::Plain));
        CorrelationParams p = params(Mode::Plain);
        p.reuse = only(*fresh.counts, "RR");
        std::uint64_t total = 0;
        std::shared_ptr<const CorrelationResult> lastPartial;
        CorrelationJob(p).run([&](const tpacf::JobProgress& progress) {
            total = progress.pairsTotal;
            if (progress.partial)
                lastPartial = progress.partial;
        });
        const std::uint64_t nd = 700, nr = 900;
        QCOMPARE(total, nd * (nd - 1) / 2 + nd * nr); // DD + DR only
        if (lastPartial)
            QCOMPARE(lastPartial->raw.rr, fresh.raw.rr);
    }
};

TPACF_TEST_MAIN(TestCountStore)
#include "test_count_store.moc"
