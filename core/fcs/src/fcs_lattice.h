// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the FCS simulation: the model the simulator runs and the expectation computes G
// from, so both use the very same numbers. Diffusion is a continuous-time random walk on a cubic
// lattice of spacing a = w0 / 8 in a periodic box of +-2.5 w0 laterally and +-2.5 z0 axially:
// each axis takes +-1 steps at rate r = 2 D / a^2 per frame (variance 2 D t, as free diffusion),
// so the displacement's characteristic function is exp(-r t (1 - cos theta)) and the expected G
// is a finite sum over the box's Fourier modes (fcs_expectation.cpp).
#include "tpacf/fcs_simulation.h"

#include <array>
#include <cstddef>
#include <vector>

namespace tpacf::fcs::detail {

inline constexpr int kSitesPerWaist = 8;   // lattice sites per w0
inline constexpr double kBoxHalfWidth = 2.5; // in w0 laterally, z0 axially

struct LatticeModel {
    /// Sites along x, y, z.
    std::array<std::size_t, 3> sites{};
    /// The focus profile per axis at each site: exp(-2 x^2 / w0^2), exp(-2 z^2 / z0^2).
    std::array<std::vector<double>, 3> profile;
    /// Steps per axis per frame (each +1 or -1 with equal odds).
    double stepRate = 0;
    std::size_t boxParticles = 0;
    double boxVolume = 0;       // in w0^3
    double effectiveVolume = 0; // pi^(3/2) w0^2 z0, in w0^3
    /// Mean of the summed profile over the box's particles: <sum_i W(r_i)>.
    double meanIntensity = 0;
    double meanCounts = 0;      // background + brightness x meanIntensity
    double signalFraction = 0;  // brightness x meanIntensity / meanCounts
};

/// The model of validated parameters.
LatticeModel latticeModelOf(const FcsSimulationParams& params);

} // namespace tpacf::fcs::detail
