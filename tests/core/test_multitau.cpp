// SPDX-License-Identifier: GPL-3.0-or-later
// The multi-tau correlator's CPU reference: every A_k(j) and S_k against a brute force (a direct
// sum over the frames at level 0, over explicitly coalesced series above) for several P, L, C
// and lengths that are no multiples of 2^k; any chunking of the stream and any thread count give
// the counts of one pass; the 16- and 32-bit sums at their limits (all-255 streams) and the
// 64-bit levels (wrapping modulo 2^64); the settings' checks; G and its mean from the counts.
#include "tpacf_test_main.h"
#include "tpacf/errors.h"
#include "tpacf/multitau.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <span>
#include <vector>

using tpacf::fcs::MultiTauCounts;
using tpacf::fcs::MultiTauSettings;

namespace {

enum class Content { Binary, Small, FullRange, Saturated };

std::vector<std::uint8_t> makeFrames(std::size_t frames, std::size_t channels, Content content,
                                     std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::uint8_t> data(frames * channels);
    for (auto& byte : data) {
        switch (content) {
        case Content::Binary: byte = static_cast<std::uint8_t>(random() & 1); break;
        case Content::Small: byte = static_cast<std::uint8_t>(random() % 5); break;
        case Content::FullRange: byte = static_cast<std::uint8_t>(random()); break;
        case Content::Saturated: byte = 255; break;
        }
    }
    return data;
}

// The definition, literally: coalesce, then sum the products of every pair j apart.
MultiTauCounts bruteForce(std::span<const std::uint8_t> data, std::size_t channels,
                          const MultiTauSettings& settings) {
    MultiTauCounts counts = tpacf::fcs::emptyCounts(settings, channels);
    const std::size_t frames = data.size() / channels;
    counts.frames = frames;
    const auto lags = static_cast<std::size_t>(settings.lagsPerLevel);
    const auto levels = static_cast<std::size_t>(settings.levels);
    for (int k = 0; k < settings.levels; ++k)
        counts.samples[static_cast<std::size_t>(k)] = frames >> k;
    for (std::size_t c = 0; c < channels; ++c) {
        for (int k = 0; k < settings.levels; ++k) {
            const std::size_t m = frames >> k;
            std::vector<std::uint64_t> series(m);
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t f = i << k; f < (i + 1) << k; ++f)
                    series[i] += data[f * channels + c];
            std::uint64_t sum = 0;
            for (const std::uint64_t y : series)
                sum += y;
            counts.sums[c * levels + static_cast<std::size_t>(k)] = sum;
            for (int j = settings.firstLag(k); j < settings.lagsPerLevel; ++j) {
                std::uint64_t a = 0;
                for (std::size_t i = static_cast<std::size_t>(j); i < m; ++i)
                    a += series[i] * series[i - static_cast<std::size_t>(j)];
                counts.products[(c * levels + static_cast<std::size_t>(k)) * lags +
                                static_cast<std::size_t>(j)] = a;
            }
        }
    }
    return counts;
}

MultiTauCounts correlate(std::span<const std::uint8_t> data, std::size_t channels,
                         const MultiTauSettings& settings, std::size_t chunkFrames,
                         int threads = 0) {
    auto correlator = tpacf::fcs::makeCpuCorrelator(settings, channels, threads);
    const std::size_t frames = data.size() / channels;
    for (std::size_t f = 0; f < frames; f += chunkFrames) {
        const std::size_t n = std::min(chunkFrames, frames - f);
        correlator->feed(data.subspan(f * channels, n * channels));
    }
    return correlator->counts();
}

// Where two count sets first differ, for the failure message.
QString firstDifference(const MultiTauCounts& got, const MultiTauCounts& want) {
    if (got.frames != want.frames || got.samples != want.samples)
        return QStringLiteral("frames or samples differ: %1 vs %2").arg(got.frames).arg(want.frames);
    const auto lags = static_cast<std::size_t>(want.settings.lagsPerLevel);
    const auto levels = static_cast<std::size_t>(want.settings.levels);
    for (std::size_t c = 0; c < want.channels; ++c)
        for (std::size_t k = 0; k < levels; ++k) {
            if (got.sums[c * levels + k] != want.sums[c * levels + k])
                return QStringLiteral("S of channel %1 level %2: %3 vs %4")
                    .arg(c).arg(k).arg(got.sums[c * levels + k]).arg(want.sums[c * levels + k]);
            for (std::size_t j = 0; j < lags; ++j) {
                const std::size_t i = (c * levels + k) * lags + j;
                if (got.products[i] != want.products[i])
                    return QStringLiteral("A of channel %1 level %2 lag %3: %4 vs %5")
                        .arg(c).arg(k).arg(j).arg(got.products[i]).arg(want.products[i]);
            }
        }
    return got == want ? QString() : QStringLiteral("settings or shape differ");
}

} // namespace

Q_DECLARE_METATYPE(Content)

class TestMultiTau : public QObject {
    Q_OBJECT

private slots:
    void settingsChecks_data() {
        QTest::addColumn<int>("lags");
        QTest::addColumn<int>("levels");
        QTest::addColumn<QString>("problem"); // empty: valid
        QTest::newRow("default") << 32 << 12 << QString();
        QTest::newRow("smallest") << 2 << 1 << QString();
        QTest::newRow("largest") << 1024 << 40 << QString();
        QTest::newRow("P odd") << 31 << 12 << QStringLiteral("P = 31 is odd");
        QTest::newRow("P zero") << 0 << 12 << QStringLiteral("P = 0 is too small");
        QTest::newRow("P negative") << -4 << 12 << QStringLiteral("P = -4 is too small");
        QTest::newRow("P huge") << 2048 << 12 << QStringLiteral("more than 1024");
        QTest::newRow("L zero") << 32 << 0 << QStringLiteral("L = 0 is too small");
        QTest::newRow("L huge") << 32 << 41 << QStringLiteral("L = 41 is more than 40");
    }
    void settingsChecks() {
        QFETCH(int, lags);
        QFETCH(int, levels);
        QFETCH(QString, problem);
        const MultiTauSettings settings{lags, levels};
        if (problem.isEmpty()) {
            settings.validate();
            QVERIFY(tpacf::fcs::makeCpuCorrelator(settings, 1) != nullptr);
            return;
        }
        try {
            settings.validate();
            QFAIL("no error");
        } catch (const tpacf::ConfigError& error) {
            QVERIFY2(QString::fromStdString(error.what()).contains(problem), error.what());
        }
        QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::fcs::makeCpuCorrelator(settings, 1));
    }

    void badChannelsAndPartialFrames() {
        QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, tpacf::fcs::makeCpuCorrelator({}, 0));
        auto correlator = tpacf::fcs::makeCpuCorrelator({}, 3);
        const std::vector<std::uint8_t> bytes(10);
        QVERIFY_THROWS_EXCEPTION(tpacf::ConfigError, correlator->feed(bytes));
        correlator->feed(std::span<const std::uint8_t>(bytes).first(9));
        QCOMPARE(correlator->counts().frames, std::uint64_t{3});
        QCOMPARE(correlator->backendName(), std::string("cpu"));
        QVERIFY(correlator->deviceDescription().starts_with("CPU, "));
    }

    void lagsInOrderOfTau_data() {
        QTest::addColumn<int>("lags");
        QTest::addColumn<int>("levels");
        QTest::newRow("32 x 12") << 32 << 12;
        QTest::newRow("2 x 1") << 2 << 1;
        QTest::newRow("8 x 5") << 8 << 5;
    }
    void lagsInOrderOfTau() {
        QFETCH(int, lags);
        QFETCH(int, levels);
        const MultiTauSettings settings{lags, levels};
        const auto list = tpacf::fcs::lagsOf(settings);
        QCOMPARE(list.size(), static_cast<std::size_t>(lags + (levels - 1) * lags / 2));
        for (std::size_t i = 0; i < list.size(); ++i) {
            QCOMPARE(list[i].tauFrames, static_cast<std::uint64_t>(list[i].j) << list[i].level);
            QVERIFY(list[i].j >= settings.firstLag(list[i].level) && list[i].j < lags);
            if (i > 0)
                QVERIFY(list[i].tauFrames > list[i - 1].tauFrames);
        }
        QCOMPARE(list.front().tauFrames, std::uint64_t{0});
        QCOMPARE(list.back().tauFrames, static_cast<std::uint64_t>(lags - 1) << (levels - 1));
    }

    void countsEqualBruteForce_data() {
        QTest::addColumn<int>("lags");
        QTest::addColumn<int>("levels");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("frames");
        QTest::addColumn<Content>("content");
        QTest::addColumn<int>("chunk");
        QTest::newRow("P32 L12 C3 small") << 32 << 12 << 3 << 5003 << Content::Small << 4096;
        QTest::newRow("P2 L1 C1 binary") << 2 << 1 << 1 << 777 << Content::Binary << 100;
        QTest::newRow("P2 L9 C2 full") << 2 << 9 << 2 << 1531 << Content::FullRange << 1531;
        QTest::newRow("P8 L7 C5 full") << 8 << 7 << 5 << 3001 << Content::FullRange << 333;
        QTest::newRow("P16 L4 C70 small") << 16 << 4 << 70 << 2049 << Content::Small << 4096;
        QTest::newRow("P64 L6 C2 full") << 64 << 6 << 2 << 4999 << Content::FullRange << 2047;
        QTest::newRow("P6 L13 C1 binary") << 6 << 13 << 1 << 9001 << Content::Binary << 4096;
        QTest::newRow("shorter than a lag") << 32 << 3 << 2 << 17 << Content::FullRange << 5;
        QTest::newRow("one frame") << 4 << 3 << 3 << 1 << Content::FullRange << 1;
        // All 255: the 16-bit lanes and 32-bit block sums of levels 0-3 at their largest, and
        // the change to 32-bit samples at level 4.
        QTest::newRow("saturated P32 L8 C2") << 32 << 8 << 2 << 8197 << Content::Saturated << 8197;
        QTest::newRow("saturated P4 L6 C1") << 4 << 6 << 1 << 6143 << Content::Saturated << 2049;
        QTest::newRow("zeros and channels") << 10 << 5 << 65 << 300 << Content::Binary << 64;
    }
    void countsEqualBruteForce() {
        QFETCH(int, lags);
        QFETCH(int, levels);
        QFETCH(int, channels);
        QFETCH(int, frames);
        QFETCH(Content, content);
        QFETCH(int, chunk);
        const MultiTauSettings settings{lags, levels};
        const auto c = static_cast<std::size_t>(channels);
        const auto data = makeFrames(static_cast<std::size_t>(frames), c, content, 7 + frames);
        const MultiTauCounts want = bruteForce(data, c, settings);
        const MultiTauCounts got = correlate(data, c, settings, static_cast<std::size_t>(chunk));
        QVERIFY2(got == want, qPrintable(firstDifference(got, want)));
    }

    void chunkingGivesOnePass_data() {
        QTest::addColumn<int>("chunk");
        for (const int chunk : {1, 7, 2048, 2049, 4096})
            QTest::newRow(qPrintable(QStringLiteral("chunks of %1").arg(chunk))) << chunk;
    }
    void chunkingGivesOnePass() {
        QFETCH(int, chunk);
        const MultiTauSettings settings{16, 10};
        const std::size_t channels = 6, frames = 9000;
        const auto data = makeFrames(frames, channels, Content::FullRange, 3);
        const MultiTauCounts whole = correlate(data, channels, settings, frames);
        const MultiTauCounts pieces =
            correlate(data, channels, settings, static_cast<std::size_t>(chunk));
        QVERIFY2(pieces == whole, qPrintable(firstDifference(pieces, whole)));
        // Every level above 0 had a pending half-sample at some chunk boundary when chunks are
        // odd: the one-pass counts are also the definition's.
        QVERIFY(whole == bruteForce(data, channels, settings));
    }

    void unevenPiecesGiveOnePass() {
        const MultiTauSettings settings{8, 9};
        const std::size_t channels = 3, frames = 7000;
        const auto data = makeFrames(frames, channels, Content::Small, 11);
        auto correlator = tpacf::fcs::makeCpuCorrelator(settings, channels);
        std::mt19937 random(5);
        for (std::size_t f = 0; f < frames;) {
            const std::size_t n = std::min<std::size_t>(frames - f, random() % 700);
            correlator->feed(std::span<const std::uint8_t>(data).subspan(f * channels, n * channels));
            f += n;
        }
        const MultiTauCounts want = bruteForce(data, channels, settings);
        QVERIFY2(correlator->counts() == want, qPrintable(firstDifference(correlator->counts(), want)));
    }

    void threadsAgree_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("1") << 1;
        QTest::newRow("2") << 2;
        QTest::newRow("3") << 3;
    }
    void threadsAgree() {
        QFETCH(int, threads);
        const MultiTauSettings settings{32, 8};
        // 131 channels: uneven shares, blocks of 64 channels cut short.
        const std::size_t channels = 131, frames = 3000;
        const auto data = makeFrames(frames, channels, Content::Small, 17);
        const MultiTauCounts one = correlate(data, channels, settings, 1000, 1);
        const MultiTauCounts many = correlate(data, channels, settings, 1000, threads);
        QVERIFY2(many == one, qPrintable(firstDifference(many, one)));
        QVERIFY(one == bruteForce(data, channels, settings));
    }

    // Levels 25 and up keep 64-bit samples; their products pass 2^64 for all-255 frames and, as
    // the definition says, wrap. A constant stream has every sum in closed form.
    void wideLevelsWrapModulo64Bits() {
        const MultiTauSettings settings{2, 27};
        const std::uint64_t frames = (std::uint64_t{1} << 26) + 12345;
        auto correlator = tpacf::fcs::makeCpuCorrelator(settings, 1);
        const std::vector<std::uint8_t> chunk(std::size_t{1} << 22, 255);
        for (std::uint64_t f = 0; f < frames;) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), frames - f));
            correlator->feed(std::span<const std::uint8_t>(chunk).first(n));
            f += n;
        }
        const MultiTauCounts counts = correlator->counts();
        for (int k = 0; k < settings.levels; ++k) {
            const std::uint64_t m = frames >> k;
            const std::uint64_t value = std::uint64_t{255} << k;
            QCOMPARE(counts.samples[static_cast<std::size_t>(k)], m);
            QCOMPARE(counts.sum(0, k), m * value);
            for (int j = settings.firstLag(k); j < settings.lagsPerLevel; ++j) {
                const std::uint64_t pairs = m > static_cast<std::uint64_t>(j) ? m - j : 0;
                QCOMPARE(counts.product(0, k, j), pairs * (value * value)); // modulo 2^64
            }
        }
        QVERIFY(counts.product(0, 25, 1) != 0); // level 25 has two samples: one pair
    }

    void gFromCounts() {
        // Channel 0: y = 1 2 3 4 5 6; channel 1: all 0; channel 2: y = 2 0 2 0 2 0.
        const MultiTauSettings settings{4, 2};
        const std::vector<std::uint8_t> data = {1, 0, 2, 2, 0, 0, 3, 0, 2, 4, 0, 0, 5, 0, 2, 6, 0, 0};
        const MultiTauCounts counts = correlate(data, 3, settings, 6);
        // Level 0, j = 1: A = 1*2 + 2*3 + 3*4 + 4*5 + 5*6 = 70 over 5 pairs; mean 21/6.
        QCOMPARE(counts.product(0, 0, 1), std::uint64_t{70});
        QCOMPARE(counts.g(0, 0, 1), (70.0 / 5.0) / ((21.0 / 6.0) * (21.0 / 6.0)) - 1.0);
        // Level 1: y_1 = 3 7 11, j = 2: A = 11 * 3 = 33 over one pair; mean 21/3.
        QCOMPARE(counts.product(0, 1, 2), std::uint64_t{33});
        QCOMPARE(counts.g(0, 1, 2), 33.0 / (7.0 * 7.0) - 1.0);
        QVERIFY(std::isnan(counts.g(0, 1, 3))); // M_1 = 3 <= j
        QVERIFY(std::isnan(counts.g(1, 0, 1))); // no photons
        // Channel 2, j = 1: no pair of neighbours both lit: G = -1.
        QCOMPARE(counts.g(2, 0, 1), -1.0);
        QCOMPARE(counts.meanG(0, 1), 0.5 * (counts.g(0, 0, 1) + counts.g(2, 0, 1)));
        QVERIFY(std::isnan(counts.meanG(1, 3)));
    }

    void emptyCountsShape() {
        const MultiTauSettings settings{6, 4};
        const MultiTauCounts counts = tpacf::fcs::emptyCounts(settings, 5);
        QCOMPARE(counts.samples.size(), std::size_t{4});
        QCOMPARE(counts.sums.size(), std::size_t{20});
        QCOMPARE(counts.products.size(), std::size_t{120});
        QCOMPARE(counts.frames, std::uint64_t{0});
        QVERIFY(counts == tpacf::fcs::makeCpuCorrelator(settings, 5)->counts());
    }
};

TPACF_TEST_MAIN(TestMultiTau)
#include "test_multitau.moc"
