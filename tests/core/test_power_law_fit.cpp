// SPDX-License-Identifier: GPL-3.0-or-later
// Power-law fit: synthetic w(θ) = A·θ^(1−γ) with Gaussian noise drawn from a known covariance
// (diagonal and correlated; the noise is made with the test's own Cholesky factor). Fixed seeds,
// so every row is deterministic. Checks: recovery within 2σ, exact recovery without noise, the
// reported errors against the scatter of 200 realisations, ⟨χ²/dof⟩ ≈ 1, the integral
// constraint against a closed form, and bad inputs.
#include "tpacf_test_main.h"
#include "tpacf/errors.h"
#include "tpacf/power_law_fit.h"

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <vector>

using tpacf::FitWeighting;
using tpacf::PowerLawFit;
using tpacf::PowerLawFitInput;
using tpacf::PowerLawFitOptions;

namespace {

constexpr double kA = 0.05, kGamma = 1.8;
constexpr std::size_t kBins = 15;

std::vector<double> centres() {
    std::vector<double> t(kBins);
    for (std::size_t i = 0; i < kBins; ++i)
        t[i] = 0.1 * std::pow(10.0, 3.0 * (static_cast<double>(i) + 0.5) / kBins);
    return t;
}

std::vector<double> truth(const std::vector<double>& theta, double a, double gamma) {
    std::vector<double> w;
    for (const double t : theta)
        w.push_back(a * std::pow(t, 1 - gamma));
    return w;
}

// σ_i = 10 % of w plus a floor; correlated: C_ij = σ_i σ_j ρ^|i−j|, as neighbouring jackknife
// bins are.
std::vector<double> covarianceOf(const std::vector<double>& w, double rho) {
    std::vector<double> c(kBins * kBins);
    for (std::size_t i = 0; i < kBins; ++i)
        for (std::size_t j = 0; j < kBins; ++j) {
            const double si = 0.1 * w[i] + 1e-4, sj = 0.1 * w[j] + 1e-4;
            c[i * kBins + j] = si * sj * std::pow(rho, std::abs(int(i) - int(j)));
        }
    return c;
}

std::vector<double> sigmaOf(const std::vector<double>& c) {
    std::vector<double> s;
    for (std::size_t i = 0; i < kBins; ++i)
        s.push_back(std::sqrt(c[i * kBins + i]));
    return s;
}

// w + L·z, z standard normal, L the Cholesky factor of C (computed here, not by the fit).
std::vector<double> noisy(const std::vector<double>& w, const std::vector<double>& c,
                          std::mt19937_64& rng) {
    std::vector<double> l(kBins * kBins, 0.0);
    for (std::size_t j = 0; j < kBins; ++j) {
        double d = c[j * kBins + j];
        for (std::size_t k = 0; k < j; ++k)
            d -= l[j * kBins + k] * l[j * kBins + k];
        l[j * kBins + j] = std::sqrt(d);
        for (std::size_t i = j + 1; i < kBins; ++i) {
            double s = c[i * kBins + j];
            for (std::size_t k = 0; k < j; ++k)
                s -= l[i * kBins + k] * l[j * kBins + k];
            l[i * kBins + j] = s / l[j * kBins + j];
        }
    }
    std::normal_distribution<double> normal;
    std::vector<double> z(kBins), out = w;
    for (double& v : z)
        v = normal(rng);
    for (std::size_t i = 0; i < kBins; ++i)
        for (std::size_t k = 0; k <= i; ++k)
            out[i] += l[i * kBins + k] * z[k];
    return out;
}

PowerLawFitOptions fullRange() {
    PowerLawFitOptions o;
    o.thetaMin = 0.05;
    o.thetaMax = 200;
    return o;
}

// Fits with the covariance (correlated) or σ only (diagonal): w noisy with that covariance.
PowerLawFit fitOnce(const std::vector<double>& theta, const std::vector<double>& w,
                    const std::vector<double>& c, bool correlated) {
    const std::vector<double> sigma = sigmaOf(c);
    PowerLawFitInput in;
    in.centres = theta;
    in.w = w;
    in.sigma = sigma;
    if (correlated)
        in.covariance = c;
    return tpacf::fitPowerLaw(in, fullRange());
}

} // namespace

class TestPowerLawFit : public QObject {
    Q_OBJECT
private slots:
    void recoversWithinTwoSigma_data();
    void recoversWithinTwoSigma();
    void exactWithoutNoise_data();
    void exactWithoutNoise();
    void errorsMatchScatter_data();
    void errorsMatchScatter();
    void rangeSelectsBins();
    void hartlapFactor();
    void integralConstraintClosedForm_data();
    void integralConstraintClosedForm();
    void badInputs_data();
    void badInputs();
};

void TestPowerLawFit::recoversWithinTwoSigma_data() {
    QTest::addColumn<bool>("correlated");
    QTest::addColumn<int>("seed");
    for (const bool correlated : {false, true})
        for (int seed = 1; seed <= 5; ++seed)
            QTest::addRow("%s seed %d", correlated ? "correlated" : "diagonal", seed)
                << correlated << seed;
}

void TestPowerLawFit::recoversWithinTwoSigma() {
    QFETCH(bool, correlated);
    QFETCH(int, seed);
    const std::vector<double> theta = centres(), w0 = truth(theta, kA, kGamma);
    const std::vector<double> c = covarianceOf(w0, correlated ? 0.6 : 0.0);
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
    const PowerLawFit fit = fitOnce(theta, noisy(w0, c, rng), c, correlated);
    QCOMPARE(fit.weighting, correlated ? FitWeighting::Covariance : FitWeighting::Diagonal);
    QCOMPARE(fit.bins.size(), kBins);
    QCOMPARE(fit.dof, int(kBins) - 2);
    QVERIFY2(std::abs(fit.amplitude - kA) < 2 * fit.amplitudeError,
             qPrintable(QStringLiteral("A = %1 ± %2").arg(fit.amplitude).arg(fit.amplitudeError)));
    QVERIFY2(std::abs(fit.gamma - kGamma) < 2 * fit.gammaError,
             qPrintable(QStringLiteral("γ = %1 ± %2").arg(fit.gamma).arg(fit.gammaError)));
    QVERIFY(std::abs(fit.correlation) < 1);
}

void TestPowerLawFit::exactWithoutNoise_data() {
    QTest::addColumn<int>("weighting"); // 0 covariance, 1 diagonal, 2 unweighted
    QTest::addColumn<double>("amplitude");
    QTest::addColumn<double>("gamma");
    QTest::addColumn<bool>("constraint");
    QTest::addRow("covariance") << 0 << kA << kGamma << false;
    QTest::addRow("diagonal") << 1 << 0.3 << 1.6 << false;
    QTest::addRow("unweighted") << 2 << 2.0 << 2.2 << false;
    QTest::addRow("negative amplitude") << 1 << -0.01 << 1.5 << false;
    QTest::addRow("covariance, integral constraint") << 0 << kA << kGamma << true;
    QTest::addRow("diagonal, integral constraint") << 1 << 0.2 << 1.7 << true;
}

void TestPowerLawFit::exactWithoutNoise() {
    QFETCH(int, weighting);
    QFETCH(double, amplitude);
    QFETCH(double, gamma);
    QFETCH(bool, constraint);
    const std::vector<double> theta = centres();
    std::vector<double> rr; // made up: RR ∝ θ (a small field's pair counts grow then fall)
    for (std::size_t i = 0; i < kBins; ++i)
        rr.push_back(theta[i] * (kBins - i));
    const double c = constraint ? tpacf::integralConstraint(theta, rr, gamma) : 0.0;
    std::vector<double> w = truth(theta, amplitude, gamma);
    for (double& v : w)
        v -= amplitude * c;
    const std::vector<double> cov = covarianceOf(truth(theta, 0.05, 1.8), 0.6);
    const std::vector<double> sigma = sigmaOf(cov);
    PowerLawFitInput in;
    in.centres = theta;
    in.w = w;
    if (weighting <= 1)
        in.sigma = sigma;
    if (weighting == 0)
        in.covariance = cov;
    in.rr = rr;
    PowerLawFitOptions options = fullRange();
    options.integralConstraint = constraint;
    const PowerLawFit fit = tpacf::fitPowerLaw(in, options);
    QVERIFY2(std::abs(fit.amplitude / amplitude - 1) < 1e-10,
             qPrintable(QString::number(fit.amplitude, 'g', 17)));
    QVERIFY2(std::abs(fit.gamma - gamma) < 1e-10, qPrintable(QString::number(fit.gamma, 'g', 17)));
    for (std::size_t i = 0; i < kBins; ++i)
        QVERIFY(std::abs(fit.model[i] - w[i]) < 1e-10 * std::abs(amplitude));
    QCOMPARE(fit.integralConstraintApplied, constraint);
    if (constraint) {
        QVERIFY(std::abs(fit.integralConstraint - c) < 1e-9 * c);
        for (std::size_t i = 0; i < kBins; ++i) // w + A·C is the power law itself
            QVERIFY(std::abs(fit.correctedW[i] - fit.powerLaw[i]) < 1e-10 * std::abs(amplitude));
    } else {
        QVERIFY(fit.correctedW.empty());
    }
    if (weighting == 2) {
        QVERIFY(std::isnan(fit.chi2));
        QVERIFY(!fit.notes.empty());
    } else {
        QVERIFY(fit.chi2 < 1e-16);
    }
}

void TestPowerLawFit::errorsMatchScatter_data() {
    QTest::addColumn<bool>("correlated");
    QTest::addRow("diagonal") << false;
    QTest::addRow("correlated") << true;
}

// Over 200 realisations the standard deviation of  and γ̂ agrees with the mean reported error
// within 20 % (the sample σ of 200 draws is itself uncertain by ~5 %), and ⟨χ²/dof⟩ lies
// within 0.9–1.1 (its own scatter is √(2/13)/√200 ≈ 0.03).
void TestPowerLawFit::errorsMatchScatter() {
    QFETCH(bool, correlated);
    const std::vector<double> theta = centres(), w0 = truth(theta, kA, kGamma);
    const std::vector<double> c = covarianceOf(w0, correlated ? 0.6 : 0.0);
    std::mt19937_64 rng(correlated ? 2024 : 1999);
    constexpr int kRealisations = 200;
    double sumA = 0, sumA2 = 0, sumG = 0, sumG2 = 0, sumErrA = 0, sumErrG = 0, sumChi = 0;
    for (int r = 0; r < kRealisations; ++r) {
        const PowerLawFit fit = fitOnce(theta, noisy(w0, c, rng), c, correlated);
        sumA += fit.amplitude;
        sumA2 += fit.amplitude * fit.amplitude;
        sumG += fit.gamma;
        sumG2 += fit.gamma * fit.gamma;
        sumErrA += fit.amplitudeError;
        sumErrG += fit.gammaError;
        sumChi += fit.reducedChi2();
    }
    const double n = kRealisations;
    const double sdA = std::sqrt((sumA2 - sumA * sumA / n) / (n - 1));
    const double sdG = std::sqrt((sumG2 - sumG * sumG / n) / (n - 1));
    const double errA = sumErrA / n, errG = sumErrG / n, chi = sumChi / n;
    const QString what = QStringLiteral("sd(A) %1 err(A) %2 sd(γ) %3 err(γ) %4 <χ²/dof> %5")
                             .arg(sdA).arg(errA).arg(sdG).arg(errG).arg(chi);
    qInfo("%s", qPrintable(what));
    QVERIFY2(std::abs(sdA / errA - 1) < 0.2, qPrintable(what));
    QVERIFY2(std::abs(sdG / errG - 1) < 0.2, qPrintable(what));
    QVERIFY2(chi > 0.9 && chi < 1.1, qPrintable(what));
}

void TestPowerLawFit::rangeSelectsBins() {
    const std::vector<double> theta = centres(), w0 = truth(theta, kA, kGamma);
    std::vector<double> w = w0;
    w[0] = std::nan(""); // a bin without w is skipped, not fitted
    PowerLawFitInput in;
    in.centres = theta;
    in.w = w;
    PowerLawFitOptions options;
    options.thetaMin = theta[0] * 0.99;
    options.thetaMax = theta[5] * 1.01;
    const PowerLawFit fit = tpacf::fitPowerLaw(in, options);
    QCOMPARE(fit.bins, (std::vector<std::size_t>{1, 2, 3, 4, 5}));
    QCOMPARE(fit.dof, 3);
    QCOMPARE(fit.weighting, FitWeighting::Unweighted);
}

void TestPowerLawFit::hartlapFactor() {
    const std::vector<double> theta = centres(), w0 = truth(theta, kA, kGamma);
    const std::vector<double> c = covarianceOf(w0, 0.6);
    std::mt19937_64 rng(7);
    const std::vector<double> w = noisy(w0, c, rng);
    PowerLawFitInput in;
    in.centres = theta;
    in.w = w;
    in.covariance = c;
    const PowerLawFit plain = tpacf::fitPowerLaw(in, fullRange());
    in.jackknifeSamples = 50;
    const PowerLawFit scaled = tpacf::fitPowerLaw(in, fullRange());
    const double h = (50.0 - 15 - 2) / (50 - 1);
    QCOMPARE(scaled.hartlapFactor, h);
    QVERIFY(std::abs(scaled.chi2 - h * plain.chi2) < 1e-12 * plain.chi2);
    QVERIFY(std::abs(scaled.gammaError - plain.gammaError / std::sqrt(h)) <
            1e-9 * plain.gammaError);
    QVERIFY(std::abs(scaled.gamma - plain.gamma) < 1e-12);
    PowerLawFitOptions off = fullRange();
    off.hartlap = false;
    QCOMPARE(tpacf::fitPowerLaw(in, off).hartlapFactor, 1.0);
}

void TestPowerLawFit::integralConstraintClosedForm_data() {
    QTest::addColumn<double>("gamma");
    QTest::addColumn<double>("expected");
    // θ = 1, 2, 4 with RR = 1, 2, 3 (and a bin of no pairs at θ = 8):
    // C = (1·1^(1−γ) + 2·2^(1−γ) + 3·4^(1−γ)) / 6.
    QTest::addRow("gamma 1 (flat: C = 1)") << 1.0 << 1.0;
    QTest::addRow("gamma 2") << 2.0 << (1 + 2 * 0.5 + 3 * 0.25) / 6;
    QTest::addRow("gamma 3") << 3.0 << (1 + 2 * 0.25 + 3 * 0.0625) / 6;
    QTest::addRow("gamma 0") << 0.0 << (1 + 2 * 2 + 3 * 4) / 6.0;
}

void TestPowerLawFit::integralConstraintClosedForm() {
    QFETCH(double, gamma);
    QFETCH(double, expected);
    const std::vector<double> theta{1, 2, 4, 8}, rr{1, 2, 3, 0};
    QVERIFY(std::abs(tpacf::integralConstraint(theta, rr, gamma) - expected) < 1e-15 * expected);
}

void TestPowerLawFit::badInputs_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");
    QTest::addRow("theta min zero") << 0 << QStringLiteral("θ range");
    QTest::addRow("theta max below min") << 1 << QStringLiteral("θ range");
    QTest::addRow("theta max NaN") << 2 << QStringLiteral("θ range");
    QTest::addRow("two bins in range") << 3 << QStringLiteral("2 usable bins");
    QTest::addRow("singular covariance") << 4 << QStringLiteral("not positive definite");
    QTest::addRow("covariance of wrong size") << 5 << QStringLiteral("bins × bins");
    QTest::addRow("too few jackknife samples") << 6 << QStringLiteral("Hartlap");
    QTest::addRow("constraint without RR") << 7 << QStringLiteral("RR counts");
    QTest::addRow("no random pairs") << 8 << QStringLiteral("no random pairs");
    QTest::addRow("non-positive theta") << 9 << QStringLiteral("need θ > 0");
    QTest::addRow("zero sigma leaves too few") << 10 << QStringLiteral("lack of an error");
}

void TestPowerLawFit::badInputs() {
    QFETCH(int, kind);
    QFETCH(QString, message);
    std::vector<double> theta = centres(), w = truth(theta, kA, kGamma);
    std::vector<double> c = covarianceOf(w, 0.3), sigma = sigmaOf(c);
    std::vector<double> rr(kBins, 1.0);
    PowerLawFitInput in;
    in.centres = theta;
    in.w = w;
    PowerLawFitOptions options = fullRange();
    switch (kind) {
    case 0: options.thetaMin = 0; break;
    case 1: options.thetaMax = 0.01; break;
    case 2: options.thetaMax = std::nan(""); break;
    case 3: options.thetaMax = theta[1] * 1.01; options.thetaMin = theta[0] * 0.99; break;
    case 4: // a jackknife of 2 samples: rank 1
        for (std::size_t i = 0; i < kBins; ++i)
            for (std::size_t j = 0; j < kBins; ++j)
                c[i * kBins + j] = sigma[i] * sigma[j];
        in.covariance = c;
        break;
    case 5: c.pop_back(); in.covariance = c; break;
    case 6: in.covariance = c; in.jackknifeSamples = 10; break;
    case 7: options.integralConstraint = true; break;
    case 8:
        std::fill(rr.begin(), rr.end(), 0.0);
        in.rr = rr;
        options.integralConstraint = true;
        break;
    case 9: // outside any positive range, so only the constraint's RR sum meets it
        theta[0] = -1;
        in.rr = rr;
        options.integralConstraint = true;
        break;
    case 10:
        sigma[3] = 0;
        in.sigma = sigma;
        options.thetaMin = theta[2] * 0.99;
        options.thetaMax = theta[4] * 1.01;
        break;
    }
    try {
        (void)tpacf::fitPowerLaw(in, options);
        QFAIL("no ConfigError");
    } catch (const tpacf::ConfigError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

TPACF_TEST_MAIN(TestPowerLawFit)
#include "test_power_law_fit.moc"
