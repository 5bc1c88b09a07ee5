// SPDX-License-Identifier: GPL-3.0-or-later
// The synthetic FCS stream: per channel, particles walking on the lattice of fcs_lattice.h
// through a 3D Gaussian focus, and in every frame a Poisson count of rate background +
// brightness x sum_i W(r_i).
#include "tpacf/fcs_simulation.h"
#include "base/number_text.h"
#include "base/random_streams.h"

#include "fcs_lattice.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace tpacf::fcs {

namespace {

constexpr double kMaxMeanCounts = 50;

// xoshiro256**: small, fast, and good enough for Poisson photons and random walks; each
// (seed, stream) its own stream.
class Generator {
public:
    Generator(std::uint64_t seed, std::uint64_t stream)
        : m_words(tpacf::detail::SplitMix64( // channels of one seed start far apart
              tpacf::detail::SplitMix64(seed * 0x9E3779B97F4A7C15ull + stream + 1).next() ^ stream)) {}
    std::uint64_t next() { return m_words.next(); }
    // 32-bit draws, two per 64-bit one.
    std::uint32_t next32() {
        if (m_halfLeft) {
            m_halfLeft = false;
            return static_cast<std::uint32_t>(m_half);
        }
        m_half = next();
        m_halfLeft = true;
        return static_cast<std::uint32_t>(m_half >> 32);
    }
    double uniform() { return m_words.unit(); }

private:
    tpacf::detail::Xoshiro256 m_words;
    std::uint64_t m_half = 0;
    bool m_halfLeft = false;
};

// Poisson(lambda) by inversion; lambda stays below ~300 (validate()), so exp(-lambda) is normal.
unsigned poisson(Generator& random, double lambda) {
    const double u = random.uniform();
    double term = std::exp(-lambda);
    double cumulative = term;
    unsigned k = 0;
    while (u > cumulative && k < 255) {
        ++k;
        term *= lambda / k;
        cumulative += term;
        if (term == 0 && cumulative < u)
            break; // rounding left the sum short of u: the tail is empty in double anyway
    }
    return k;
}

struct Site {
    std::uint16_t axis[3];
};

struct ChannelWalk {
    Generator random;
    std::vector<Site> particles;
};

} // namespace

void FcsSimulationParams::validate() const {
    const auto check = [](bool ok, const std::string& message) {
        if (!ok)
            throw ConfigError(message);
    };
    check(channels >= 1 && channels <= (std::size_t(1) << 20),
          "simulation channels " + std::to_string(channels) + " must be 1 to 1048576");
    check(particles > 0 && particles <= 1000,
          "simulated particles N_eff = " + tpacf::detail::formatShort(particles) + " must be above 0 and at most 1000");
    check(tauDFrames >= 2 && tauDFrames <= 1e9,
          "diffusion time tau_D = " + tpacf::detail::formatShort(tauDFrames) +
              " frames must be 2 to 1e9 frames (the walk takes ~100/tau_D steps per frame)");
    check(kappa >= 1 && kappa <= 20,
          "focus aspect kappa = z0/w0 = " + tpacf::detail::formatShort(kappa) + " must be 1 to 20");
    check(brightness > 0 && brightness <= kMaxMeanCounts,
          "brightness " + tpacf::detail::formatShort(brightness) + " photons/frame must be above 0 and at most 50");
    check(background >= 0 && background <= kMaxMeanCounts,
          "background " + tpacf::detail::formatShort(background) + " photons/frame must be 0 to 50");
    const double mean = background + brightness * particles / std::pow(2.0, 1.5);
    check(mean <= kMaxMeanCounts,
          "the mean count " + tpacf::detail::formatShort(mean) +
              " photons/frame is above 50: counts are bytes (0-255), lower the brightness, "
              "background or particles");
}

std::string FcsSimulationParams::describe() const {
    return "diffusion through a 3D Gaussian focus: N_eff = " + tpacf::detail::formatShort(particles) +
           ", tau_D = " + tpacf::detail::formatShort(tauDFrames) + " frames, kappa = " + tpacf::detail::formatShort(kappa) +
           ", brightness " + tpacf::detail::formatShort(brightness) + " and background " + tpacf::detail::formatShort(background) +
           " photons/frame, seed " + std::to_string(seed);
}

namespace detail {

LatticeModel latticeModelOf(const FcsSimulationParams& params) {
    LatticeModel model;
    const double spacing = 1.0 / kSitesPerWaist;
    const double radii[3] = {1.0, 1.0, params.kappa};
    for (int a = 0; a < 3; ++a) {
        const auto half =
            static_cast<std::size_t>(std::ceil(kBoxHalfWidth * radii[a] * kSitesPerWaist));
        model.sites[a] = 2 * half;
        std::vector<double>& profile = model.profile[a];
        profile.resize(model.sites[a]);
        double mean = 0;
        for (std::size_t i = 0; i < model.sites[a]; ++i) {
            const double x = (static_cast<double>(i) - (static_cast<double>(half) - 0.5)) * spacing;
            profile[i] = std::exp(-2.0 * x * x / (radii[a] * radii[a]));
            mean += profile[i];
        }
        model.meanIntensity = (a == 0 ? 1.0 : model.meanIntensity) *
                              (mean / static_cast<double>(model.sites[a]));
    }
    model.boxVolume = static_cast<double>(model.sites[0] * model.sites[1] * model.sites[2]) *
                      spacing * spacing * spacing;
    model.effectiveVolume = std::pow(std::numbers::pi, 1.5) * params.kappa;
    model.boxParticles = static_cast<std::size_t>(std::max<long long>(
        1, std::llround(params.particles * model.boxVolume / model.effectiveVolume)));
    model.meanIntensity *= static_cast<double>(model.boxParticles);
    // D = w0^2 / (4 tau_D); a step of +-a at rate r per axis has variance r a^2 = 2 D per frame.
    model.stepRate = 2.0 * (1.0 / (4.0 * params.tauDFrames)) / (spacing * spacing);
    model.meanCounts = params.background + params.brightness * model.meanIntensity;
    model.signalFraction = params.brightness * model.meanIntensity / model.meanCounts;
    return model;
}

} // namespace detail

FcsModel fcsModelOf(const FcsSimulationParams& params) {
    params.validate();
    const detail::LatticeModel lattice = detail::latticeModelOf(params);
    FcsModel model;
    model.boxParticles = lattice.boxParticles;
    model.effectiveParticles =
        static_cast<double>(lattice.boxParticles) * lattice.effectiveVolume / lattice.boxVolume;
    model.meanCounts = lattice.meanCounts;
    model.signalFraction = lattice.signalFraction;
    return model;
}

double textbookG(const FcsSimulationParams& params, double tauFrames) {
    const FcsModel model = fcsModelOf(params);
    const double lateral = 1.0 + tauFrames / params.tauDFrames;
    const double axial = 1.0 + tauFrames / (params.kappa * params.kappa * params.tauDFrames);
    return model.signalFraction * model.signalFraction /
           (model.effectiveParticles * lateral * std::sqrt(axial));
}

struct FcsSimulator::State {
    FcsSimulationParams params;
    int threads = 0;
    detail::LatticeModel model;
    // Cumulative odds of 0, 1, 2, ... steps of all the box's particles in one frame (Poisson,
    // mean 3 r N), in units of 2^-32: a 32-bit draw u takes the first k with u < threshold[k].
    // Each step then goes to a particle, an axis and a direction drawn uniformly: by Poisson
    // splitting, every particle's every axis steps at rate r, independently.
    std::vector<std::uint64_t> stepThresholds;
    std::vector<ChannelWalk> walks;
    std::vector<std::uint8_t> runs; // the last piece, channel after channel
    std::uint64_t frames = 0;
};

FcsSimulator::FcsSimulator(const FcsSimulationParams& params, int threads)
    : m_state(std::make_unique<State>()) {
    params.validate();
    State& state = *m_state;
    state.params = params;
    state.threads = threads;
    state.model = detail::latticeModelOf(params);
    const double mean = 3.0 * state.model.stepRate * static_cast<double>(state.model.boxParticles);
    // Summed from the mode outwards: exp(-mean) alone underflows for large boxes.
    const auto mode = static_cast<unsigned>(mean);
    std::vector<double> odds(static_cast<std::size_t>(mean + 40.0 * std::sqrt(mean + 1.0) + 40.0));
    odds[mode] = 1.0;
    for (unsigned k = mode + 1; k < odds.size(); ++k)
        odds[k] = odds[k - 1] * mean / k;
    for (unsigned k = mode; k-- > 0;)
        odds[k] = odds[k + 1] * (k + 1) / mean;
    double total = 0;
    for (const double p : odds)
        total += p;
    double cumulative = 0;
    for (const double p : odds) {
        cumulative += p / total;
        state.stepThresholds.push_back(static_cast<std::uint64_t>(
            std::min(4294967296.0, std::floor(cumulative * 4294967296.0))));
    }
    state.stepThresholds.back() = std::uint64_t{1} << 32;
    state.walks.reserve(params.channels);
    for (std::size_t c = 0; c < params.channels; ++c) {
        ChannelWalk walk{Generator(params.seed, c), {}};
        walk.particles.resize(state.model.boxParticles);
        // Uniform over the box: the walk's stationary state, so the stream starts stationary.
        for (Site& site : walk.particles)
            for (int a = 0; a < 3; ++a)
                site.axis[a] = static_cast<std::uint16_t>(
                    (static_cast<std::uint64_t>(walk.random.next32()) * state.model.sites[a]) >>
                    32);
        state.walks.push_back(std::move(walk));
    }
}

FcsSimulator::~FcsSimulator() = default;

const FcsSimulationParams& FcsSimulator::params() const noexcept {
    return m_state->params;
}

std::size_t FcsSimulator::channels() const noexcept {
    return m_state->params.channels;
}

std::uint64_t FcsSimulator::framesGenerated() const noexcept {
    return m_state->frames;
}

void FcsSimulator::generate(std::size_t count, std::vector<std::uint8_t>& frames,
                            const std::atomic<bool>* cancel) {
    State& state = *m_state;
    const std::size_t channels = state.params.channels;
    // Each channel's counts first in a run of its own: workers writing neighbouring bytes of
    // the same frame rows would fight over cache lines. Interleaved into frames at the end.
    state.runs.resize(count * channels);
    const detail::LatticeModel& model = state.model;
    const double background = state.params.background;
    const double brightness = state.params.brightness;
    const double* wx = model.profile[0].data();
    const double* wy = model.profile[1].data();
    const double* wz = model.profile[2].data();
    const std::uint64_t* thresholds = state.stepThresholds.data();
    const std::uint64_t* thresholdsEnd = thresholds + state.stepThresholds.size();
    const std::uint64_t particles = model.boxParticles;
    const int sites[3] = {static_cast<int>(model.sites[0]), static_cast<int>(model.sites[1]),
                          static_cast<int>(model.sites[2])};
    // Each channel is a few hundred ns a frame: enough frames per worker to pay for it.
    const std::size_t minChannels = std::max<std::size_t>(1, 4096 / std::max<std::size_t>(1, count));
    parallelForRanges(
        channels,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t c = begin; c < end; ++c) {
                ChannelWalk& walk = state.walks[c];
                Generator& random = walk.random;
                std::uint8_t* run = state.runs.data() + c * count;
                for (std::size_t f = 0; f < count; ++f) {
                    if ((f & 4095) == 0 && cancel && cancel->load(std::memory_order_relaxed))
                        throw Cancelled();
                    // Four partial sums: one chain of dependent adds would wait on each add.
                    double partial[4] = {0, 0, 0, 0};
                    const std::size_t count4 = walk.particles.size() & ~std::size_t{3};
                    for (std::size_t i = 0; i < walk.particles.size(); ++i) {
                        const Site& p = walk.particles[i];
                        partial[i < count4 ? i & 3 : 0] +=
                            wx[p.axis[0]] * wy[p.axis[1]] * wz[p.axis[2]];
                    }
                    const double intensity = (partial[0] + partial[1]) + (partial[2] + partial[3]);
                    // Then the steps until the next frame.
                    const std::uint64_t* stepsEnd =
                        std::upper_bound(thresholds, thresholdsEnd, random.next32());
                    for (auto steps = stepsEnd - thresholds; steps > 0; --steps) {
                        const std::uint64_t draw = random.next();
                        Site& p = walk.particles[((draw & 0xFFFFFFFFu) * particles) >> 32];
                        const auto choice = static_cast<unsigned>(((draw >> 32) * 6) >> 32);
                        const unsigned axis = choice >> 1;
                        const int size = sites[axis];
                        // +1 or -1, wrapped, without a branch on the coin.
                        int x = p.axis[axis] + static_cast<int>(choice & 1) * 2 - 1;
                        x += x < 0 ? size : 0;
                        x -= x >= size ? size : 0;
                        p.axis[axis] = static_cast<std::uint16_t>(x);
                    }
                    run[f] = static_cast<std::uint8_t>(
                        poisson(random, background + brightness * intensity));
                }
            }
        },
        state.threads, minChannels);
    frames.resize(count * channels);
    for (std::size_t c = 0; c < channels; ++c) {
        const std::uint8_t* run = state.runs.data() + c * count;
        for (std::size_t f = 0; f < count; ++f)
            frames[f * channels + c] = run[f];
    }
    state.frames += count;
}

} // namespace tpacf::fcs
