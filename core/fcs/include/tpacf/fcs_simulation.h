// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A synthetic fluorescence correlation spectroscopy stream with a known G(tau): particles
// diffusing through a 3D Gaussian focus, photon counts Poisson in every frame, C independent
// channels. Also the G(tau) it must give: the textbook form and the exact expectation of the
// simulated model at every multi-tau lag (docs/fcs-multitau.md, "The simulated stream").
#include "tpacf/multitau.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tpacf::fcs {

/// Lengths in units of the focus's lateral 1/e^2 radius w0, times in frames.
struct FcsSimulationParams {
    std::size_t channels = 4;
    /// N_eff: mean particles in the effective volume V_eff = pi^(3/2) w0^2 z0 (G(0) ~ 1/N_eff).
    double particles = 2.0;
    /// tau_D = w0^2 / (4 D), in frames.
    double tauDFrames = 50.0;
    /// kappa = z0 / w0, the focus's axial over lateral radius.
    double kappa = 5.0;
    /// Photons per frame of a particle at the centre of the focus.
    double brightness = 0.5;
    /// Photons per frame from elsewhere (dark counts, scattered light).
    double background = 0.05;
    std::uint64_t seed = 1;

    /// Throws ConfigError naming the bad value.
    void validate() const;
    /// "N_eff = 2, tau_D = 50 frames, kappa = 5, brightness 0.5, background 0.05 photons/frame,
    /// seed 1", for metadata.
    std::string describe() const;
};

/// The simulated model's own numbers (the box holds a whole number of particles, so N_eff is
/// what that number gives).
struct FcsModel {
    std::size_t boxParticles = 0;   ///< particles per channel in the periodic box
    double effectiveParticles = 0;  ///< boxParticles x V_eff / V_box
    double meanCounts = 0;          ///< photons per frame, on average
    double signalFraction = 0;      ///< the particles' share of meanCounts
};
FcsModel fcsModelOf(const FcsSimulationParams& params);

/// The textbook G of free 3D diffusion through a Gaussian focus, with the background factor:
/// (1/N_eff) (1 + tau/tau_D)^-1 (1 + tau/(kappa^2 tau_D))^-1/2 x signalFraction^2, N_eff of
/// fcsModelOf. Without the shot noise at tau = 0.
double textbookG(const FcsSimulationParams& params, double tauFrames);

/// The expected G of the simulated stream at every lag of lagsOf(settings), in that order: the
/// exact expectation for the simulated model (diffusion as a random walk on a fine lattice in a
/// periodic box, Poisson counts: their shot noise at lag 0), averaged over each level's coalesced
/// samples. `frames` > 0 adds the leading-order bias of the normalisation over a stream of that
/// many frames; 0 gives the limit of an infinite stream.
std::vector<double> expectedMultiTauG(const FcsSimulationParams& params,
                                      const MultiTauSettings& settings, std::uint64_t frames = 0);

/// Generates the stream frame by frame; the same seed gives the same frames whatever the pieces
/// they are asked for in and whatever the threads (each channel has its own generator).
class FcsSimulator {
public:
    /// `threads` <= 0: every hardware thread (channels are split across them). Validates.
    explicit FcsSimulator(const FcsSimulationParams& params, int threads = 0);
    ~FcsSimulator();
    FcsSimulator(const FcsSimulator&) = delete;
    FcsSimulator& operator=(const FcsSimulator&) = delete;

    const FcsSimulationParams& params() const noexcept;
    std::size_t channels() const noexcept;
    std::uint64_t framesGenerated() const noexcept;
    /// Replaces `frames` with the next `count` frames (frame-major, channels() bytes each).
    /// Throws Cancelled once `cancel` is set.
    void generate(std::size_t count, std::vector<std::uint8_t>& frames,
                  const std::atomic<bool>* cancel = nullptr);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tpacf::fcs
