// SPDX-License-Identifier: GPL-3.0-or-later
// The fit works in whitened coordinates: with the covariance M = L·Lᵀ (Cholesky), residuals
// and Jacobian columns are multiplied by L⁻¹, so χ² is a plain sum of squares and the
// Gauss–Newton step an ordinary 2 × 2 least-squares solve. The model is linear in A, so the
// start is the best γ of a coarse scan of the profile χ²(γ) (A solved exactly at each γ), which
// does not depend on w being positive as a log-log start would.
#include "tpacf/power_law_fit.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace tpacf {

namespace {

constexpr double kNoFit = std::numeric_limits<double>::quiet_NaN();

std::string num(double v) {
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
}

// Lower-triangular Cholesky factor of the n × n row-major matrix; ConfigError naming the first
// fit bin where it fails (a jackknife covariance with fewer regions than bins is singular).
std::vector<double> cholesky(std::vector<double> m, std::size_t n,
                             std::span<const std::size_t> bins,
                             std::span<const double> centres) {
    for (std::size_t j = 0; j < n; ++j) {
        double d = m[j * n + j];
        for (std::size_t k = 0; k < j; ++k)
            d -= m[j * n + k] * m[j * n + k];
        // Relative to the diagonal entry: rounding leaves a tiny positive pivot where the
        // matrix is singular in exact arithmetic.
        const double scale = std::abs(m[j * n + j]);
        if (!(d > 1e-13 * scale) || !std::isfinite(d))
            throw ConfigError("power-law fit: the covariance of the fit bins is not positive "
                              "definite (at bin " + std::to_string(bins[j] + 1) + ", θ = " +
                              num(centres[bins[j]]) +
                              "): use more jackknife regions, fewer bins or a narrower range");
        const double root = std::sqrt(d);
        m[j * n + j] = root;
        for (std::size_t i = j + 1; i < n; ++i) {
            double s = m[i * n + j];
            for (std::size_t k = 0; k < j; ++k)
                s -= m[i * n + k] * m[j * n + k];
            m[i * n + j] = s / root;
        }
        for (std::size_t k = j + 1; k < n; ++k)
            m[j * n + k] = 0;
    }
    return m;
}

// x = L⁻¹·b by forward substitution.
std::vector<double> whiten(const std::vector<double>& lower, std::size_t n,
                           const std::vector<double>& b) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        double s = b[i];
        for (std::size_t k = 0; k < i; ++k)
            s -= lower[i * n + k] * x[k];
        x[i] = s / lower[i * n + i];
    }
    return x;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        s += a[i] * b[i];
    return s;
}

// The model's shape and its γ derivative: g = θ^(1−γ) − C(γ), ∂g/∂γ = −lnθ·θ^(1−γ) − C'(γ).
struct Shape {
    std::vector<double> g, dg;
};

struct Problem {
    std::vector<double> theta; // fit bins
    std::span<const double> allCentres, rr;
    bool constraint = false;
    std::vector<double> lower; // Cholesky factor
    std::size_t n = 0;
    std::vector<double> yWhite;

    Shape shape(double gamma) const {
        double c = 0, dc = 0;
        if (constraint) {
            double sumRr = 0, sum = 0, sumLog = 0;
            for (std::size_t i = 0; i < rr.size(); ++i) {
                if (!(rr[i] > 0))
                    continue;
                const double p = std::pow(allCentres[i], 1 - gamma);
                sumRr += rr[i];
                sum += rr[i] * p;
                sumLog += rr[i] * p * std::log(allCentres[i]);
            }
            c = sum / sumRr;
            dc = -sumLog / sumRr;
        }
        Shape s;
        s.g.resize(n);
        s.dg.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const double p = std::pow(theta[i], 1 - gamma);
            s.g[i] = p - c;
            s.dg[i] = -std::log(theta[i]) * p - dc;
        }
        return s;
    }

    // Whitened residual sum of squares at (A, γ).
    double rss(double amplitude, double gamma) const {
        const Shape s = shape(gamma);
        std::vector<double> f(n);
        for (std::size_t i = 0; i < n; ++i)
            f[i] = amplitude * s.g[i];
        const std::vector<double> fw = whiten(lower, n, f);
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i)
            sum += (yWhite[i] - fw[i]) * (yWhite[i] - fw[i]);
        return sum;
    }

    // The best A at fixed γ and its residual sum of squares (the profile χ²).
    std::pair<double, double> profile(double gamma) const {
        const std::vector<double> gw = whiten(lower, n, shape(gamma).g);
        const double gg = dot(gw, gw);
        if (!(gg > 0) || !std::isfinite(gg))
            return {kNoFit, std::numeric_limits<double>::infinity()};
        const double a = dot(gw, yWhite) / gg;
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i)
            sum += (yWhite[i] - a * gw[i]) * (yWhite[i] - a * gw[i]);
        return {a, sum};
    }
};

void checkRange(const PowerLawFitOptions& options) {
    if (!std::isfinite(options.thetaMin) || !std::isfinite(options.thetaMax) ||
        !(options.thetaMin > 0) || !(options.thetaMax > options.thetaMin))
        throw ConfigError("power-law fit: the θ range " + num(options.thetaMin) + ":" +
                          num(options.thetaMax) +
                          " is invalid (need finite 0 < θmin < θmax, in the bin unit)");
}

} // namespace

std::string_view fitWeightingName(FitWeighting weighting) noexcept {
    switch (weighting) {
    case FitWeighting::Covariance: return "covariance";
    case FitWeighting::Diagonal: return "diagonal";
    case FitWeighting::Unweighted: return "unweighted";
    }
    return "unknown";
}

double integralConstraint(std::span<const double> centres, std::span<const double> rr,
                          double gamma) {
    if (centres.size() != rr.size())
        throw ConfigError("integral constraint: " + std::to_string(rr.size()) +
                          " RR values for " + std::to_string(centres.size()) + " bins");
    double sumRr = 0, sum = 0;
    for (std::size_t i = 0; i < rr.size(); ++i) {
        if (!(rr[i] > 0))
            continue;
        if (!(centres[i] > 0) || !std::isfinite(centres[i]))
            throw ConfigError("integral constraint: bin " + std::to_string(i + 1) +
                              " has random pairs but θ = " + num(centres[i]) + " (need θ > 0)");
        sumRr += rr[i];
        sum += rr[i] * std::pow(centres[i], 1 - gamma);
    }
    if (!(sumRr > 0))
        throw ConfigError("integral constraint: no random pairs (RR) in any bin");
    return sum / sumRr;
}

namespace {

// Sizes of w, σ, the covariance and RR against the bins.
void checkInputSizes(const PowerLawFitInput& input, const PowerLawFitOptions& options) {
    const std::size_t bins = input.centres.size();
    if (input.w.size() != bins)
        throw ConfigError("power-law fit: " + std::to_string(input.w.size()) + " w values for " +
                          std::to_string(bins) + " bins");
    if (!input.sigma.empty() && input.sigma.size() != bins)
        throw ConfigError("power-law fit: " + std::to_string(input.sigma.size()) +
                          " σ values for " + std::to_string(bins) + " bins");
    if (!input.covariance.empty() && input.covariance.size() != bins * bins)
        throw ConfigError("power-law fit: a covariance of " +
                          std::to_string(input.covariance.size()) + " entries for " +
                          std::to_string(bins) + " bins (need bins × bins)");
    if (options.integralConstraint && input.rr.size() != bins)
        throw ConfigError("power-law fit: the integral constraint needs RR counts for every "
                          "bin (" + std::to_string(input.rr.size()) + " for " +
                          std::to_string(bins) + " bins)");
}

// The variance of bin i as the weighting reads it (1 unweighted).
double varianceOf(const PowerLawFitInput& input, FitWeighting weighting, std::size_t i) {
    const std::size_t bins = input.centres.size();
    return weighting == FitWeighting::Covariance ? input.covariance[i * bins + i]
           : weighting == FitWeighting::Diagonal ? input.sigma[i] * input.sigma[i]
                                                 : 1.0;
}

// fit.bins: the bins in the θ range with a finite w and, weighted, an error; at least 3.
void chooseFitBins(PowerLawFit& fit, const PowerLawFitInput& input,
                   const PowerLawFitOptions& options) {
    std::size_t withoutError = 0;
    for (std::size_t i = 0; i < input.centres.size(); ++i) {
        const double t = input.centres[i];
        if (!(t >= options.thetaMin && t <= options.thetaMax) || !std::isfinite(input.w[i]))
            continue;
        // A bin without an error (a leave-one-out sample with no pairs there) would read as
        // exact and pin the fit: leave it out and say so.
        const double variance = varianceOf(input, fit.weighting, i);
        if (fit.weighting != FitWeighting::Unweighted && !(variance > 0 && std::isfinite(variance))) {
            ++withoutError;
            continue;
        }
        fit.bins.push_back(i);
    }
    const std::size_t n = fit.bins.size();
    if (n < 3)
        throw ConfigError("power-law fit: " + std::to_string(n) + " usable bins in θ " +
                          num(options.thetaMin) + ":" + num(options.thetaMax) +
                          " (need at least 3 with a finite w" +
                          (withoutError ? ", " + std::to_string(withoutError) +
                                              " left out for lack of an error"
                                        : std::string()) +
                          ")");
    if (withoutError > 0)
        fit.notes.push_back(std::to_string(withoutError) +
                            " bins in the fit range left out: no jackknife error");
}

// The fit bins' θ and w, and the Cholesky factor of their covariance (or variances).
Problem makeProblem(const PowerLawFit& fit, const PowerLawFitInput& input,
                    const PowerLawFitOptions& options) {
    const std::size_t bins = input.centres.size(), n = fit.bins.size();
    Problem problem;
    problem.n = n;
    problem.allCentres = input.centres;
    problem.rr = input.rr;
    problem.constraint = options.integralConstraint;
    std::vector<double> y(n), m(n * n, 0.0);
    for (std::size_t a = 0; a < n; ++a) {
        const std::size_t i = fit.bins[a];
        if (!(input.centres[i] > 0))
            throw ConfigError("power-law fit: bin " + std::to_string(i + 1) + " has θ = " +
                              num(input.centres[i]) + " (need θ > 0)");
        problem.theta.push_back(input.centres[i]);
        y[a] = input.w[i];
        for (std::size_t b = 0; b < n; ++b) {
            const std::size_t j = fit.bins[b];
            if (fit.weighting == FitWeighting::Covariance)
                m[a * n + b] = input.covariance[i * bins + j];
            else if (a == b)
                m[a * n + b] = varianceOf(input, fit.weighting, i);
        }
    }
    if (options.integralConstraint) // validates RR and the centres behind it
        (void)integralConstraint(input.centres, input.rr, 2.0);
    problem.lower = cholesky(std::move(m), n, fit.bins, input.centres);
    problem.yWhite = whiten(problem.lower, n, y);
    return problem;
}

// The Hartlap factor of a covariance from K jackknife samples, and the notes on the weighting.
void noteWeighting(PowerLawFit& fit, const PowerLawFitInput& input,
                   const PowerLawFitOptions& options) {
    const std::size_t n = fit.bins.size();
    if (fit.weighting == FitWeighting::Covariance && options.hartlap &&
        input.jackknifeSamples > 0) {
        const double k = static_cast<double>(input.jackknifeSamples);
        if (!(k > static_cast<double>(n) + 2))
            throw ConfigError("power-law fit: the Hartlap factor needs more jackknife samples "
                              "than fit bins + 2 (" + std::to_string(input.jackknifeSamples) +
                              " samples, " + std::to_string(n) +
                              " bins): use more regions or fewer bins");
        fit.hartlapFactor = (k - static_cast<double>(n) - 2) / (k - 1);
    }
    if (fit.weighting == FitWeighting::Diagonal)
        fit.notes.push_back("no covariance: fitted with the diagonal errors σ² only");
    if (fit.weighting == FitWeighting::Unweighted)
        fit.notes.push_back("no errors: unweighted fit, χ² undefined; the A and γ errors are "
                            "from the residual scatter");
}

struct FitPoint {
    double amplitude, gamma, rss;
};

// The best γ of a coarse profile scan over the range power laws of w(θ) take.
FitPoint startingPoint(const Problem& problem) {
    double gamma = 1.8, amplitude = kNoFit, best = std::numeric_limits<double>::infinity();
    for (int s = 0; s <= 100; ++s) {
        const double g = -2.0 + 0.06 * s;
        const auto [a, r] = problem.profile(g);
        if (r < best) {
            best = r;
            gamma = g;
            amplitude = a;
        }
    }
    if (!std::isfinite(amplitude))
        throw ConfigError("power-law fit: no start found (the model is degenerate on these bins)");
    return {amplitude, gamma, problem.rss(amplitude, gamma)};
}

// Gauss–Newton with step halving from `at`: exact (quadratic) convergence where the residuals
// vanish. `iterations` gets the iterations taken.
FitPoint minimise(const Problem& problem, FitPoint at, int& iterations) {
    const std::size_t n = problem.n;
    double amplitude = at.amplitude, gamma = at.gamma, rss = at.rss;
    bool converged = false;
    for (iterations = 1; iterations <= 200 && !converged; ++iterations) {
        const Shape s = problem.shape(gamma);
        std::vector<double> f(n), dA = s.g, dG(n);
        for (std::size_t i = 0; i < n; ++i) {
            f[i] = amplitude * s.g[i];
            dG[i] = amplitude * s.dg[i];
        }
        const std::vector<double> fw = whiten(problem.lower, n, f);
        const std::vector<double> ja = whiten(problem.lower, n, dA);
        const std::vector<double> jg = whiten(problem.lower, n, dG);
        std::vector<double> r(n);
        for (std::size_t i = 0; i < n; ++i)
            r[i] = problem.yWhite[i] - fw[i];
        const double faa = dot(ja, ja), fag = dot(ja, jg), fgg = dot(jg, jg);
        const double ba = dot(ja, r), bg = dot(jg, r);
        const double det = faa * fgg - fag * fag;
        if (!(det > 0))
            break;
        double stepA = (fgg * ba - fag * bg) / det;
        double stepG = (faa * bg - fag * ba) / det;
        double trial = kNoFit;
        for (int halving = 0; halving < 40; ++halving) {
            trial = problem.rss(amplitude + stepA, gamma + stepG);
            if (trial <= rss)
                break;
            stepA /= 2;
            stepG /= 2;
        }
        if (!(trial <= rss))
            break; // no step lowers χ²: at the minimum to rounding
        amplitude += stepA;
        gamma += stepG;
        converged = std::abs(stepG) <= 1e-12 * std::max(1.0, std::abs(gamma)) &&
                    std::abs(stepA) <= 1e-12 * std::abs(amplitude);
        rss = trial;
    }
    // A stop for want of a lowering step is the minimum at rounding level; only running out of
    // iterations without one is a failure.
    if (!converged && iterations > 200)
        throw ConfigError("power-law fit: no convergence in 200 iterations (γ = " + num(gamma) +
                          ")");
    return {amplitude, gamma, rss};
}

// A, γ, χ² and the errors from the inverse Fisher matrix F = h·JᵀM⁻¹J at the minimum.
void setEstimates(PowerLawFit& fit, const Problem& problem, const FitPoint& at) {
    const std::size_t n = problem.n;
    const Shape s = problem.shape(at.gamma);
    std::vector<double> dG(n);
    for (std::size_t i = 0; i < n; ++i)
        dG[i] = at.amplitude * s.dg[i];
    const std::vector<double> ja = whiten(problem.lower, n, s.g);
    const std::vector<double> jg = whiten(problem.lower, n, dG);
    double scale = fit.hartlapFactor;
    fit.dof = static_cast<int>(n) - 2;
    if (fit.weighting == FitWeighting::Unweighted) {
        fit.chi2 = kNoFit;
        scale = fit.dof > 0 ? fit.dof / at.rss : 0; // σ² estimated as rss/dof
    } else {
        fit.chi2 = fit.hartlapFactor * at.rss;
    }
    const double faa = scale * dot(ja, ja), fag = scale * dot(ja, jg), fgg = scale * dot(jg, jg);
    const double det = faa * fgg - fag * fag;
    const double varA = fgg / det, varG = faa / det, covAG = -fag / det;
    fit.amplitude = at.amplitude;
    fit.gamma = at.gamma;
    fit.amplitudeError = std::sqrt(varA);
    fit.gammaError = std::sqrt(varG);
    fit.correlation = covAG / std::sqrt(varA * varG);
}

// The model, the power law alone and (with the integral constraint) w + A·C on every bin.
void setCurves(PowerLawFit& fit, const PowerLawFitInput& input, const PowerLawFitOptions& options) {
    const std::size_t bins = input.centres.size();
    if (options.integralConstraint) {
        fit.integralConstraintApplied = true;
        fit.integralConstraint = integralConstraint(input.centres, input.rr, fit.gamma);
    }
    fit.model.resize(bins);
    fit.powerLaw.resize(bins);
    for (std::size_t i = 0; i < bins; ++i) {
        const double t = input.centres[i];
        fit.powerLaw[i] = t > 0 ? fit.amplitude * std::pow(t, 1 - fit.gamma) : kNoFit;
        fit.model[i] = fit.powerLaw[i] - fit.amplitude * fit.integralConstraint;
    }
    if (fit.integralConstraintApplied) {
        fit.correctedW.resize(bins);
        for (std::size_t i = 0; i < bins; ++i)
            fit.correctedW[i] = input.w[i] + fit.amplitude * fit.integralConstraint;
    }
}

} // namespace

PowerLawFit fitPowerLaw(const PowerLawFitInput& input, const PowerLawFitOptions& options) {
    checkRange(options);
    checkInputSizes(input, options);
    PowerLawFit fit;
    fit.weighting = !input.covariance.empty() ? FitWeighting::Covariance
                    : !input.sigma.empty()    ? FitWeighting::Diagonal
                                              : FitWeighting::Unweighted;
    chooseFitBins(fit, input, options);
    const Problem problem = makeProblem(fit, input, options);
    noteWeighting(fit, input, options);
    const FitPoint minimum = minimise(problem, startingPoint(problem), fit.iterations);
    setEstimates(fit, problem, minimum);
    setCurves(fit, input, options);
    return fit;
}

PowerLawFit fitPowerLaw(const CorrelationResult& result, const PowerLawFitOptions& options) {
    std::vector<double> rr;
    if (options.integralConstraint) {
        if (result.isWeighted()) {
            rr = result.rrWeightedSummed();
        } else {
            for (const std::uint64_t c : result.rrSummed())
                rr.push_back(static_cast<double>(c));
        }
    }
    PowerLawFitInput input;
    input.centres = result.centres;
    input.w = result.w;
    input.sigma = result.wError;
    input.covariance = result.covariance;
    input.jackknifeSamples = result.covariance.empty() ? 0 : result.jackknifeSamples.size();
    input.rr = rr;
    return fitPowerLaw(input, options);
}

std::string powerLawFitCsv(const PowerLawFit& fit, const PowerLawFitOptions& options,
                           std::string_view unitName) {
    std::ostringstream out;
    out.precision(17);
    const auto row = [&](std::string_view name, const std::string& value,
                         const std::string& error) {
        out << name << ',' << value << ',' << error << '\n';
    };
    out << "parameter,value,error\n";
    row("A", num(fit.amplitude), num(fit.amplitudeError));
    row("gamma", num(fit.gamma), num(fit.gammaError));
    row("correlation_A_gamma", num(fit.correlation), "");
    row("chi2", num(fit.chi2), "");
    row("dof", std::to_string(fit.dof), "");
    row("theta_min", num(options.thetaMin), "");
    row("theta_max", num(options.thetaMax), "");
    row("theta_unit", std::string(unitName), "");
    row("bins_used", std::to_string(fit.bins.size()), "");
    row("weighting", std::string(fitWeightingName(fit.weighting)), "");
    row("hartlap_factor", num(fit.hartlapFactor), "");
    row("integral_constraint_C",
        fit.integralConstraintApplied ? num(fit.integralConstraint) : std::string(), "");
    return out.str();
}

} // namespace tpacf
