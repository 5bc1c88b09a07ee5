// SPDX-License-Identifier: GPL-3.0-or-later
// The expected multi-tau G of the simulated stream (docs/fcs-multitau.md, "The simulated
// stream"). Particles are independent and uniform over the periodic box, so for lags tau >= 0
//   G_I(tau) = (1/N_box) sum_{modes q != 0} c_q exp(-r tau e_q),
// a sum over the box's Fourier modes q = (kx, ky, kz) with c_q = prod_a |w^_a(k_a)|^2 / w^_a(0)^2
// (the focus profile's power spectrum on the lattice) and e_q = sum_a (1 - cos(2 pi k_a / N_a))
// (the walk's decay rate over r). A level's coalesced samples average G over the offsets of two
// blocks of 2^k frames, a geometric sum per mode in closed form.
#include "tpacf/fcs_simulation.h"

#include "fcs_lattice.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace tpacf::fcs {

namespace {

// Modes below this weight change no G by a part in 10^15.
constexpr double kNegligibleWeight = 1e-18;

struct Mode {
    double weight; // c_q
    double decay;  // e_q
};

std::vector<Mode> axisModes(const std::vector<double>& profile) {
    const std::size_t n = profile.size();
    std::vector<double> cosines(n), sines(n);
    for (std::size_t m = 0; m < n; ++m) {
        const double angle = 2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
        cosines[m] = std::cos(angle);
        sines[m] = std::sin(angle);
    }
    double total = 0;
    for (const double w : profile)
        total += w;
    std::vector<Mode> modes;
    for (std::size_t k = 0; k < n; ++k) {
        double re = 0, im = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t m = (k * i) % n;
            re += profile[i] * cosines[m];
            im += profile[i] * sines[m];
        }
        const double weight = (re * re + im * im) / (total * total);
        if (k == 0 || weight > kNegligibleWeight)
            modes.push_back({k == 0 ? 1.0 : weight, 1.0 - cosines[k]});
    }
    return modes;
}

// Every mode of the box but the uniform one (which cancels against the mean).
std::vector<Mode> boxModes(const detail::LatticeModel& model) {
    const std::vector<Mode> x = axisModes(model.profile[0]);
    const std::vector<Mode> y = axisModes(model.profile[1]);
    const std::vector<Mode> z = axisModes(model.profile[2]);
    std::vector<Mode> modes;
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t j = 0; j < y.size(); ++j)
            for (std::size_t k = 0; k < z.size(); ++k) {
                if (i == 0 && j == 0 && k == 0)
                    continue;
                const double weight = x[i].weight * y[j].weight * z[k].weight;
                if (weight > kNegligibleWeight)
                    modes.push_back({weight, x[i].decay + y[j].decay + z[k].decay});
            }
    return modes;
}

// sum_{a,b < w} rho^(tau0 + a + b') with rho = e^L <= 1 (b' = w - 1 - b): the offsets between
// a block of w frames and the one j blocks before it, tau0 = j w - (w - 1) the smallest.
double blockPairSum(double logRho, double tau0, double w) {
    if (logRho == 0)
        return w * w;
    const double first = std::exp(tau0 * logRho);
    if (w == 1)
        return first;
    const double run = std::expm1(w * logRho) / std::expm1(logRho);
    return first * run * run;
}

// sum_{a,b < F} exp(-x |a - b|): the pairs of a stream of F frames.
double streamPairSum(double x, double frames) {
    const double f = frames;
    if (f * x < 1e-3) // the closed form cancels here; its series does not
        return f * f - x * (f * f * f - f) / 3.0 + x * x * f * f * (f * f - 1.0) / 12.0;
    const double rho = std::exp(-x);
    const double oneMinusRho = -std::expm1(-x);
    const double rhoF = std::exp(-f * x);
    return 2.0 * (f * oneMinusRho - rho * (1.0 - rhoF)) / (oneMinusRho * oneMinusRho) - f;
}

} // namespace

std::vector<double> expectedMultiTauG(const FcsSimulationParams& params,
                                      const MultiTauSettings& settings, std::uint64_t frames) {
    params.validate();
    settings.validate();
    const detail::LatticeModel model = detail::latticeModelOf(params);
    const std::vector<Mode> modes = boxModes(model);
    const double particles = static_cast<double>(model.boxParticles);
    const double signal2 = model.signalFraction * model.signalFraction;
    const double rate = model.stepRate;

    // beta = Var(S/M) / mean^2 over the F frames a level's sum covers: shot noise plus the
    // intensity's correlations over every pair of frames.
    const auto beta = [&](double f) {
        double pairs = 0;
        for (const Mode& mode : modes)
            pairs += mode.weight * streamPairSum(rate * mode.decay, f);
        return 1.0 / (f * model.meanCounts) + signal2 * pairs / (particles * f * f);
    };

    std::vector<double> expected;
    int betaLevel = -1;
    double levelBeta = 0;
    for (const Lag& lag : lagsOf(settings)) {
        const double w = std::ldexp(1.0, lag.level);
        const double tau0 = static_cast<double>(lag.j) * w - (w - 1.0);
        double sum = 0;
        for (const Mode& mode : modes)
            sum += mode.weight * blockPairSum(-rate * mode.decay, tau0, w);
        double g = signal2 * sum / (w * w * particles);
        if (lag.level == 0 && lag.j == 0)
            g += 1.0 / model.meanCounts; // shot noise: Var(n) = <n> + Var(lambda)
        if (frames > 0) {
            const std::uint64_t samples = frames >> lag.level;
            if (samples <= static_cast<std::uint64_t>(lag.j)) {
                expected.push_back(std::numeric_limits<double>::quiet_NaN());
                continue;
            }
            if (betaLevel != lag.level) {
                betaLevel = lag.level;
                levelBeta = beta(std::ldexp(static_cast<double>(samples), lag.level));
            }
            // Leading order in 1/M of E[A/(M-j) / (S/M)^2] - 1 (docs/fcs-multitau.md).
            g += (3.0 * g - 1.0) * levelBeta;
        }
        expected.push_back(g);
    }
    return expected;
}

} // namespace tpacf::fcs
