// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Power-law fit w(θ) = A·θ^(1−γ) over a θ range by generalised least squares with the
// jackknife covariance, and the integral constraint of a finite field (Roche & Eales 1999).
#include "tpacf/correlation_result.h"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace tpacf {

/// How the residuals were weighted: the full covariance of the fit bins, its diagonal (σ² only),
/// or not at all (no errors; A and γ errors then come from the residual scatter).
enum class FitWeighting { Covariance, Diagonal, Unweighted };
std::string_view fitWeightingName(FitWeighting weighting) noexcept;

struct PowerLawFitOptions {
    /// Bins whose centre lies in [thetaMin, thetaMax] (the result's bin unit; 0 < min < max).
    double thetaMin = 0;
    double thetaMax = 0;
    /// Multiply the inverse covariance by the Hartlap factor (n − p − 2)/(n − 1) (Hartlap et al.
    /// 2007; n jackknife samples, p fit bins) where the covariance is a jackknife estimate: the
    /// inverse of a noisy covariance overestimates the precision. Only with the full covariance.
    bool hartlap = true;
    /// Fit w_obs = A·(θ^(1−γ) − C(γ)) with C from the RR counts (integralConstraint), the
    /// finite-field bias of the estimators (Roche & Eales 1999); the fit's correctedW is w + A·C.
    bool integralConstraint = false;
};

/// The data a fit needs, all per bin (centres.size() bins). sigma: empty without errors;
/// covariance: empty, or bins × bins row-major; jackknifeSamples: n behind the covariance
/// (0: not a jackknife estimate, no Hartlap factor); rr: the random pair counts (only for the
/// integral constraint).
struct PowerLawFitInput {
    std::span<const double> centres;
    std::span<const double> w;
    std::span<const double> sigma;
    std::span<const double> covariance;
    std::size_t jackknifeSamples = 0;
    std::span<const double> rr;
};

struct PowerLawFit {
    double amplitude = 0, gamma = 0;           // A (w at θ = 1 bin unit) and γ
    double amplitudeError = 0, gammaError = 0; // √ of the inverse Fisher matrix's diagonal
    double correlation = 0;                    // of A and γ, from the inverse Fisher matrix
    double chi2 = 0;                           // NaN when unweighted (no errors to scale by)
    int dof = 0;                               // bins used − 2
    FitWeighting weighting = FitWeighting::Covariance;
    double hartlapFactor = 1; // applied to the inverse covariance (1: none)
    /// C at the fitted γ; 0 without the integral constraint.
    bool integralConstraintApplied = false;
    double integralConstraint = 0;
    std::vector<std::size_t> bins; // indices of the bins fitted, ascending
    /// Per bin of the input (all of them, not only the fitted ones): the model of the observed
    /// w, A·(θ^(1−γ) − C); the power law A·θ^(1−γ); and w + A·C (empty without the constraint).
    std::vector<double> model;
    std::vector<double> powerLaw;
    std::vector<double> correctedW;
    int iterations = 0;
    std::vector<std::string> notes; // lines a reader must see (weighting, excluded bins)

    double reducedChi2() const noexcept { return dof > 0 ? chi2 / dof : chi2; }
};

/// Fits the input. Throws ConfigError for a bad range (non-finite, θmin ≤ 0, θmax ≤ θmin),
/// fewer than 3 usable bins in it, a non-positive θ centre among them, a covariance of the
/// wrong size or not positive definite on the fit bins, too few jackknife samples for the
/// Hartlap factor, an integral constraint without RR counts, or a fit that does not converge.
PowerLawFit fitPowerLaw(const PowerLawFitInput& input, const PowerLawFitOptions& options);

/// The same on a correlation result: its centres, w, jackknife σ and covariance (with its K
/// samples for the Hartlap factor), and RR summed over random sets (weighted sums if weighted).
PowerLawFit fitPowerLaw(const CorrelationResult& result, const PowerLawFitOptions& options);

/// C = Σ_i RR_i·θ_i^(1−γ) / Σ_i RR_i over the bins with RR_i > 0 (Roche & Eales 1999, eq. 11
/// form): the mean of the unit-amplitude power law over the field's random pairs, so that
/// w_obs(θ) = A·(θ^(1−γ) − C). Throws ConfigError for unequal sizes, a non-positive θ with
/// RR > 0, or no random pairs.
double integralConstraint(std::span<const double> centres, std::span<const double> rr,
                          double gamma);

/// One CSV of the fit's parameters (parameter,value,error rows): what `--fit-output` writes and
/// what a user needs to redo the figure elsewhere. unitName: the θ unit A is given in.
std::string powerLawFitCsv(const PowerLawFit& fit, const PowerLawFitOptions& options,
                           std::string_view unitName);

} // namespace tpacf
