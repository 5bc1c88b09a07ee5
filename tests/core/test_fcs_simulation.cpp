// SPDX-License-Identifier: GPL-3.0-or-later
// The synthetic FCS stream and the G(tau) it must give. The simulator is reproducible whatever
// the pieces and threads; its expectation is checked three independent ways (the real-space
// walk at tau = 0 and 1, the coalescing average against level-0 values, the textbook form where
// the box does not matter); the measured G of a simulated stream agrees with the expectation
// within the spread across channels (and a model with a wrong tau_D or N does not); a Poisson
// stream of constant rate has G = 0 (1/mean at lag 0) within its noise.
#include "tpacf_test_main.h"
#include "fcs_lattice.h"
#include "tpacf/errors.h"
#include "tpacf/fcs_simulation.h"
#include "tpacf/multitau.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <vector>

using tpacf::fcs::FcsSimulationParams;
using tpacf::fcs::MultiTauCounts;
using tpacf::fcs::MultiTauSettings;

namespace {

MultiTauCounts correlate(const std::vector<std::uint8_t>& frames, std::size_t channels,
                         const MultiTauSettings& settings) {
    auto correlator = tpacf::fcs::makeCpuCorrelator(settings, channels);
    correlator->feed(frames);
    return correlator->counts();
}

// The largest |mean over channels - expected| / (its standard error from the spread across
// channels) over the lags with at least `minPairs` pairs, and the lag where it is.
struct Agreement {
    double worstZ = 0;
    std::size_t worstLag = 0;
    std::size_t lagsTested = 0;
};
Agreement agreement(const MultiTauCounts& counts, const std::vector<double>& expected,
                    std::uint64_t minPairs) {
    const auto lags = tpacf::fcs::lagsOf(counts.settings);
    Agreement result;
    for (std::size_t i = 0; i < lags.size(); ++i) {
        if (counts.samples[static_cast<std::size_t>(lags[i].level)] < lags[i].j + minPairs)
            continue;
        double sum = 0, sum2 = 0;
        for (std::size_t c = 0; c < counts.channels; ++c) {
            const double g = counts.g(c, lags[i].level, lags[i].j);
            sum += g;
            sum2 += g * g;
        }
        const auto n = static_cast<double>(counts.channels);
        const double mean = sum / n;
        const double spread = std::sqrt((sum2 - n * mean * mean) / (n - 1));
        const double z = std::fabs(mean - expected[i]) / (spread / std::sqrt(n));
        ++result.lagsTested;
        if (!(z <= result.worstZ)) { // NaN counts as worst
            result.worstZ = z;
            result.worstLag = i;
        }
    }
    return result;
}

// Skellam(r/2, r/2): a continuous-time +-1 walk's displacement after one frame.
double stepOdds(double rate, int d) {
    d = std::abs(d);
    double term = std::pow(rate / 2, d) / std::tgamma(d + 1.0), total = 0;
    for (int m = 0; m < 60; ++m) {
        total += term;
        term *= (rate / 2) * (rate / 2) / ((m + 1.0) * (m + 1.0 + d));
    }
    return std::exp(-rate) * total;
}

} // namespace

class TestFcsSimulation : public QObject {
    Q_OBJECT

private slots:
    void reproducibleInAnyPieces() {
        FcsSimulationParams params;
        params.channels = 5;
        params.seed = 42;
        std::vector<std::uint8_t> whole, piece, joined;
        tpacf::fcs::FcsSimulator(params, 1).generate(5000, whole);
        for (const int threads : {1, 2, 3}) {
            tpacf::fcs::FcsSimulator simulator(params, threads);
            joined.clear();
            for (const std::size_t size : {std::size_t{1}, std::size_t{7}, std::size_t{4000},
                                           std::size_t{992}}) {
                simulator.generate(size, piece);
                QCOMPARE(piece.size(), size * 5);
                joined.insert(joined.end(), piece.begin(), piece.end());
            }
            QCOMPARE(simulator.framesGenerated(), std::uint64_t{5000});
            QVERIFY2(joined == whole, qPrintable(QStringLiteral("threads %1").arg(threads)));
        }
        // Other seeds and other channels give other streams.
        params.seed = 43;
        std::vector<std::uint8_t> other;
        tpacf::fcs::FcsSimulator(params).generate(5000, other);
        QVERIFY(other != whole);
        std::size_t sameAsChannel0 = 0;
        for (std::size_t f = 0; f < 5000; ++f)
            sameAsChannel0 += whole[f * 5] == whole[f * 5 + 1];
        QVERIFY(sameAsChannel0 < 4900);
    }

    void badParameters_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("problem");
        QTest::newRow("no particles") << QStringLiteral("particles") << 0.0 << QStringLiteral("N_eff = 0");
        QTest::newRow("tau_D too short") << QStringLiteral("tau") << 1.0 << QStringLiteral("tau_D = 1");
        QTest::newRow("kappa below 1") << QStringLiteral("kappa") << 0.5 << QStringLiteral("kappa");
        QTest::newRow("no brightness") << QStringLiteral("brightness") << 0.0 << QStringLiteral("brightness 0");
        QTest::newRow("negative background") << QStringLiteral("background") << -1.0 << QStringLiteral("background -1");
        QTest::newRow("too many photons") << QStringLiteral("particles") << 300.0 << QStringLiteral("mean count");
        QTest::newRow("no channels") << QStringLiteral("channels") << 0.0 << QStringLiteral("channels 0");
    }
    void badParameters() {
        QFETCH(QString, field);
        QFETCH(double, value);
        QFETCH(QString, problem);
        FcsSimulationParams params;
        if (field == QStringLiteral("particles"))
            params.particles = value;
        else if (field == QStringLiteral("tau"))
            params.tauDFrames = value;
        else if (field == QStringLiteral("kappa"))
            params.kappa = value;
        else if (field == QStringLiteral("brightness"))
            params.brightness = value;
        else if (field == QStringLiteral("background"))
            params.background = value;
        else
            params.channels = static_cast<std::size_t>(value);
        try {
            tpacf::fcs::FcsSimulator simulator(params);
            QFAIL("no error");
        } catch (const tpacf::ConfigError& error) {
            QVERIFY2(QString::fromStdString(error.what()).contains(problem), error.what());
        }
    }

    // G at tau = 0 and 1 from the lattice in real space: the profile's moments, and one frame's
    // walk (Skellam steps on the periodic lattice), against the Fourier sums of the expectation.
    void expectationInRealSpace() {
        FcsSimulationParams params;
        params.tauDFrames = 20;
        params.kappa = 3;
        const auto model = tpacf::fcs::detail::latticeModelOf(params);
        double ratio0 = 1, ratio1 = 1;
        for (int a = 0; a < 3; ++a) {
            const std::vector<double>& w = model.profile[static_cast<std::size_t>(a)];
            const auto n = static_cast<int>(w.size());
            double mean = 0, square = 0, step = 0;
            for (int x = 0; x < n; ++x) {
                mean += w[x] / n;
                square += w[x] * w[x] / n;
                for (int d = -12; d <= 12; ++d)
                    step += w[x] * w[((x + d) % n + n) % n] * stepOdds(model.stepRate, d) / n;
            }
            ratio0 *= square / (mean * mean);
            ratio1 *= step / (mean * mean);
        }
        const double particles = static_cast<double>(model.boxParticles);
        const double f2 = model.signalFraction * model.signalFraction;
        const auto expected = tpacf::fcs::expectedMultiTauG(params, MultiTauSettings{2, 1});
        QCOMPARE(expected.size(), std::size_t{2});
        // Sums of ~10^4 modes against sums over sites: agreement to ~1e-12 of G.
        QVERIFY(std::fabs(expected[0] - (f2 * (ratio0 - 1) / particles + 1 / model.meanCounts)) <
                1e-10);
        QVERIFY2(std::fabs(expected[1] - f2 * (ratio1 - 1) / particles) < 1e-10,
                 qPrintable(QStringLiteral("%1 vs %2").arg(expected[1], 0, 'g', 17)
                                .arg(f2 * (ratio1 - 1) / particles, 0, 'g', 17)));
    }

    // A level's coalesced samples average G over the offsets between two blocks of 2^k frames,
    // weighted (w - |d|) / w^2: the expectation at level k against level-0 values at tau + d.
    void expectationOfCoalescedLevels() {
        const FcsSimulationParams params;
        const auto level0 = tpacf::fcs::expectedMultiTauG(params, MultiTauSettings{1024, 1});
        const MultiTauSettings settings{32, 6};
        const auto levels = tpacf::fcs::expectedMultiTauG(params, settings);
        const auto lags = tpacf::fcs::lagsOf(settings);
        for (std::size_t i = 0; i < lags.size(); ++i) {
            const auto w = static_cast<long>(1) << lags[i].level;
            double sum = 0;
            for (long d = 1 - w; d < w; ++d)
                sum += static_cast<double>(w - std::labs(d)) *
                       level0[static_cast<std::size_t>(static_cast<long>(lags[i].tauFrames) + d)];
            QVERIFY2(std::fabs(levels[i] - sum / static_cast<double>(w * w)) < 1e-12 * (1 + std::fabs(levels[i])),
                     qPrintable(QStringLiteral("lag %1").arg(i)));
        }
    }

    // Below tau_D the box's edges are far: the expectation is the textbook form less the
    // 1/N_box of a fixed number of particles (docs/fcs-multitau.md), up to the lattice's
    // graininess (a = w0/8: well under 1% of G).
    void expectationAgainstTextbook() {
        FcsSimulationParams params;
        params.tauDFrames = 200;
        const MultiTauSettings settings{32, 4};
        const auto expected = tpacf::fcs::expectedMultiTauG(params, settings);
        const auto model = tpacf::fcs::fcsModelOf(params);
        const double fixedN = model.signalFraction * model.signalFraction /
                              static_cast<double>(model.boxParticles);
        const double scale = tpacf::fcs::textbookG(params, 0);
        const auto lags = tpacf::fcs::lagsOf(settings);
        for (std::size_t i = 1; i < lags.size(); ++i) {
            const auto tau = static_cast<double>(lags[i].tauFrames);
            if (tau > params.tauDFrames)
                break;
            const double textbook = tpacf::fcs::textbookG(params, tau) - fixedN;
            QVERIFY2(std::fabs(expected[i] - textbook) < 0.01 * scale,
                     qPrintable(QStringLiteral("tau %1: %2 vs %3").arg(tau).arg(expected[i]).arg(textbook)));
        }
        QVERIFY(std::fabs(model.effectiveParticles - params.particles) < 0.05 * params.particles);
    }

    void simulatedStreamMatchesExpectation() {
        FcsSimulationParams params;
        params.channels = 16;
        const std::uint64_t frames = std::uint64_t{1} << 16;
        std::vector<std::uint8_t> data;
        tpacf::fcs::FcsSimulator(params).generate(frames, data);
        const MultiTauSettings settings;
        const MultiTauCounts counts = correlate(data, params.channels, settings);
        // 64 pairs at least, so that a lag's G over 16 channels is near normal.
        const Agreement truth =
            agreement(counts, tpacf::fcs::expectedMultiTauG(params, settings, frames), 64);
        QVERIFY(truth.lagsTested > 150);
        QVERIFY2(truth.worstZ < 5, qPrintable(QStringLiteral("lag %1: %2 standard errors")
                                                  .arg(truth.worstLag).arg(truth.worstZ)));
        // The test has teeth: a 50% longer tau_D, or 25% more particles, is seen.
        FcsSimulationParams slower = params;
        slower.tauDFrames *= 1.5;
        QVERIFY(agreement(counts, tpacf::fcs::expectedMultiTauG(slower, settings, frames), 64).worstZ > 5);
        FcsSimulationParams crowded = params;
        crowded.particles *= 1.25;
        QVERIFY(agreement(counts, tpacf::fcs::expectedMultiTauG(crowded, settings, frames), 64).worstZ > 5);
        // And the mean count rate is the model's.
        const double meanCounts = tpacf::fcs::fcsModelOf(params).meanCounts;
        double sum = 0, sum2 = 0;
        for (std::size_t c = 0; c < params.channels; ++c) {
            const double rate = static_cast<double>(counts.sum(c, 0)) / static_cast<double>(frames);
            sum += rate;
            sum2 += rate * rate;
        }
        const double mean = sum / 16, spread = std::sqrt((sum2 - 16 * mean * mean) / 15);
        QVERIFY2(std::fabs(mean - meanCounts) < 5 * spread / 4,
                 qPrintable(QStringLiteral("%1 vs %2").arg(mean).arg(meanCounts)));
    }

    // Constant rate mu: E[G] = 0 up to the normalisation's bias -1/(F mu) (docs/fcs-multitau.md),
    // and 1/mu at lag 0 (shot noise).
    void poissonStreamHasNoCorrelation_data() {
        QTest::addColumn<double>("rate");
        QTest::newRow("dim") << 0.05;
        QTest::newRow("0.4 photons") << 0.4;
        QTest::newRow("bright") << 30.0;
    }
    void poissonStreamHasNoCorrelation() {
        QFETCH(double, rate);
        const std::size_t channels = 16, frames = std::size_t{1} << 16;
        std::mt19937_64 random(9);
        std::poisson_distribution<int> poisson(rate);
        std::vector<std::uint8_t> data(frames * channels);
        for (auto& byte : data)
            byte = static_cast<std::uint8_t>(poisson(random));
        const MultiTauSettings settings;
        const MultiTauCounts counts = correlate(data, channels, settings);
        const auto lags = tpacf::fcs::lagsOf(settings);
        std::vector<double> expected;
        for (const auto& lag : lags) {
            const double g = lag.tauFrames == 0 ? 1 / rate : 0.0;
            const double beta =
                1 / (static_cast<double>((frames >> lag.level) << lag.level) * rate);
            expected.push_back(g + (3 * g - 1) * beta);
        }
        const Agreement result = agreement(counts, expected, 64);
        QVERIFY(result.lagsTested > 150);
        QVERIFY2(result.worstZ < 5, qPrintable(QStringLiteral("lag %1: %2 standard errors")
                                                   .arg(result.worstLag).arg(result.worstZ)));
        // Not a test that cannot fail: correlated counts (each frame repeated) are seen.
        std::vector<std::uint8_t> doubled(data.size());
        for (std::size_t f = 0; f < frames; ++f)
            for (std::size_t c = 0; c < channels; ++c)
                doubled[f * channels + c] = data[(f / 2) * channels + c];
        QVERIFY(agreement(correlate(doubled, channels, settings), expected, 64).worstZ > 5);
    }
};

TPACF_TEST_MAIN(TestFcsSimulation)
#include "test_fcs_simulation.moc"
