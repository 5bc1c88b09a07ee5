// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf autocorr: its flags, one row each (a flag several modes share says what each does).
#include "common_flags.h"

namespace tpacf::cli::flags {

namespace autocorr {

inline constexpr Flag kInput{
    "--input", Value, "FILE",
    "the photon counts: with --channels, raw interleaved uint8 frames (frame\n"
    "after frame, one byte per channel); without, ASCII with one channel per\n"
    "column (blank or comma separated, '#' comments, an optional header line)"};
inline constexpr Flag kChannels{
    "--channels", Value, "C",
    "channels of a raw file (its size must be a multiple of C); with\n"
    "--simulate, independent channels (default 4); with --bench, channels\n"
    "in memory (default 1024)"};
inline constexpr Flag kSimulate{
    "--simulate",
    Switch,
    {},
    "a synthetic stream: particles diffusing through a 3D Gaussian focus,\n"
    "Poisson photon counts, C independent channels (known G(tau))"};
inline constexpr Flag kBench{
    "--bench", Switch, {}, "time the correlator on random frames in memory (see below)"};
inline constexpr const Flag* kInputFlags[] = {&kInput, &kChannels, &kSimulate, &kBench};
inline constexpr FlagGroup kInputGroup{"Input (one of)", kInputFlags};

inline constexpr Flag kLagsPerLevel{"--lags-per-level", Value, "P",
                                    "lags per level, even (default 32)"};
inline constexpr Flag kLevels{"--levels", Value, "L",
                              "levels (default 12: lags up to 31 x 2^11 = 63488 frames)"};
inline constexpr Flag kFrameTime{
    "--frame-time", Value, "S",
    "seconds per frame, for tau_s (default 1.6e-6: 128 periods of 80 MHz)"};
inline constexpr Flag kBackend{"--backend", Value, "B",
                               "auto (default: a GPU correlator where usable, else the CPU), "
                               "cpu{backend-modules}"};
inline constexpr Flag kDevices{"--devices", Value, "LIST",
                               "GPU indices, e.g. 0 (default: the first GPU)"};
inline constexpr Flag kChunk{
    "--chunk", Value, "F",
    "frames fed to the correlator at a time (default: 16 MiB of frames, 1 MiB\n"
    "when simulating; 4096 with --bench)"};
inline constexpr const Flag* kCorrelatorFlags[] = {
    &kLagsPerLevel, &kLevels, &kFrameTime, &kBackend, &kDevices, &kThreads, &kChunk};
inline constexpr FlagGroup kCorrelatorGroup{"Correlator", kCorrelatorFlags};

inline constexpr Flag kOutput{"--output", Value, "FILE", "the G table (ECSV)"};
inline constexpr Flag kWriteFrames{
    "--write-frames", Value, "F",
    "also write the frames as raw uint8 (a simulated stream, or ASCII "
    "converted)"};
inline constexpr Flag kQuiet{
    "--quiet", Switch, {}, "no progress bar and no G summary on the terminal"};
inline constexpr const Flag* kOutputFlags[] = {&kOutput, &kWriteFrames, &kQuiet};
inline constexpr FlagGroup kOutputGroup{"Output", kOutputFlags};

inline constexpr Flag kFrames{
    "--frames", Value, "N",
    "frames (default 262144; with --bench, frames in memory, default 65536)"};
inline constexpr Flag kParticles{"--particles", Value, "X",
                                 "mean particles in the focus, N_eff (default 2)"};
inline constexpr Flag kTauDFrames{"--tau-d-frames", Value, "T",
                                  "diffusion time tau_D = w0^2/4D (default 50)"};
inline constexpr Flag kKappa{"--kappa", Value, "K",
                             "axial over lateral focus radius z0/w0 (default 5)"};
inline constexpr Flag kBrightness{
    "--brightness", Value, "B",
    "photons per frame of a particle at the focus centre (default 0.5)"};
inline constexpr Flag kBackground{"--background", Value, "B",
                                  "photons per frame from elsewhere (default 0.05)"};
inline constexpr Flag kSeed{
    "--seed", Value, "S",
    "seed (default 1): the same seed gives the same frames (with --bench, the\n"
    "random frames)"};
inline constexpr const Flag* kSimulationFlags[] = {
    &kFrames, &kParticles, &kTauDFrames, &kKappa, &kBrightness, &kBackground, &kSeed};
inline constexpr FlagGroup kSimulationGroup{
    "Simulation (with --simulate; lengths in units of the focus radius w0, times in frames)",
    kSimulationFlags};

inline constexpr Flag kRepeat{
    "--repeat", Value, "R",
    "timed passes after one warm-up pass (default 3); the median is reported"};
inline constexpr Flag kCheck{
    "--check", Switch, {}, "compare the counts with the CPU reference (for a GPU backend)"};
inline constexpr Flag kJson{"--json", Switch, {}, "the report as JSON on stdout"};
inline constexpr const Flag* kBenchFlags[] = {&kRepeat, &kCheck, &kJson};
inline constexpr FlagGroup kBenchGroup{
    "Benchmark (with --bench; also --frames, --channels, --chunk, --seed and the correlator's "
    "flags)",
    kBenchFlags,
    R"(  Samples/s = frames x channels / median pass time (the feeds and the final counts(); for a GPU
  the host-to-device copies are included, as feed() takes host bytes). Real time: 1/frame-time
  frames per second per channel (625 kHz by default).
)"};

inline constexpr const FlagGroup* kGroups[] = {&kInputGroup, &kCorrelatorGroup, &kOutputGroup,
                                               &kSimulationGroup, &kBenchGroup};

} // namespace autocorr

/// tpacf autocorr.
inline constexpr CommandFlags kAutocorrFlags{"autocorr", autocorr::kGroups};

} // namespace tpacf::cli::flags
