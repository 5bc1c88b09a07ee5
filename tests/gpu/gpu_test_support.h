// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the GPU suite and the GPU benchmark: seeded catalogs and small helpers.
#include "tpacf/backend.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"
#include "tpacf/pair_counter.h"
#include "tpacf/units.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tpacf::gputest {

/// CTest's SKIP_RETURN_CODE: no CUDA in the build or no device on the machine.
inline constexpr int kSkip = 77;

/// Checks made and failed; each suite ends with "PASS|FAIL: N checks, M failures".
struct Stats {
    int checks = 0;
    int failures = 0;
};

/// Counts one check; prints "FAIL what" when it fails.
inline bool expect(Stats& stats, bool condition, const std::string& what) {
    ++stats.checks;
    if (!condition) {
        ++stats.failures;
        std::printf("FAIL %s\n", what.c_str());
    }
    return condition;
}

/// True (after printing why) when the build has no CUDA or the machine no device: the suite
/// then exits with kSkip, which CTest reports as skipped, not passed.
inline bool skipWithoutDevice(const BackendModule& provider) {
    if (provider.compiledIn() && !provider.devices().empty())
        return false;
    std::printf("SKIP: no CUDA device: %s\n", provider.unavailableReason().c_str());
    return true;
}

/// The line every suite ends with, "PASS|FAIL: N checks, M failures", and its exit status.
inline int finish(const Stats& stats) {
    std::printf("%s: %d checks, %d failures\n", stats.failures == 0 ? "PASS" : "FAIL", stats.checks,
                stats.failures);
    return stats.failures == 0 ? 0 : 1;
}

/// What the pair-count suites compare: double and float counters of the CUDA module on every
/// device, and the CPU reference; `quick` from --quick (smaller catalogs).
struct CounterFixture {
    bool quick = false;
    std::unique_ptr<PairCounter> gpuDouble, gpuFloat;
    CpuPairCounter cpu{0};
};

/// Runs a pair-count suite: skipped (kSkip) without a device; the module and its devices printed,
/// the fixture made, `body(stats, fixture)` run, anything it throws counted as a failure; ends
/// with finish().
template <class Body> int runCounterSuite(int argc, char** argv, Body&& body) {
    const auto provider = cuda::makeProvider();
    if (skipWithoutDevice(*provider))
        return kSkip;
    std::printf("%s\n", provider->versionDescription().c_str());
    for (const GpuDeviceInfo& d : provider->devices())
        std::printf("device %d: %s, %d SMs, cc %d.%d, %.1f GiB\n", d.index, d.name.c_str(),
                    d.multiprocessors, d.computeMajor, d.computeMinor,
                    static_cast<double>(d.memoryBytes) / (1 << 30));
    Stats stats;
    // Started as the CLI starts them beside its reading, the double count kernels preloaded:
    // the double counts below run on preloaded kernels, the float ones load theirs lazily.
    provider->warmUp({}, Precision::Double);
    try {
        CounterFixture fixture;
        fixture.quick = argc > 1 && std::string(argv[1]) == "--quick";
        fixture.gpuDouble = provider->create(Precision::Double, {});
        fixture.gpuFloat = provider->create(Precision::Float, {});
        std::printf("counter: %s%s\n", fixture.gpuFloat->deviceDescription().c_str(),
                    fixture.quick ? " (quick)" : "");
        body(stats, fixture);
    } catch (const std::exception& e) {
        expect(stats, false, std::string("unexpected exception: ") + e.what());
    }
    return finish(stats);
}

/// Double and float counters over every device with a tuning (histogram path, brute force,
/// block cap, ...): the settings are fixed at creation, never read from the environment.
struct TunedCounters {
    std::unique_ptr<PairCounter> doubles;
    std::unique_ptr<PairCounter> floats;
};

inline TunedCounters tunedCounters(const cuda::CudaTuning& tuning) {
    const auto provider = cuda::makeProvider(tuning);
    return {provider->create(Precision::Double, {}), provider->create(Precision::Float, {})};
}

/// A tuning that forces one histogram path ("thread-atomic", "warp", "global").
inline cuda::CudaTuning histogramTuning(const char* name) {
    cuda::CudaTuning tuning;
    tuning.histogram = cuda::parseCudaHistogram(name).value_or(cuda::CudaHistogram::Auto);
    return tuning;
}

/// Brute force whatever setCulling says (the dense list, every pair computed).
inline cuda::CudaTuning bruteForceTuning() {
    cuda::CudaTuning tuning;
    tuning.bruteForce = true;
    return tuning;
}

/// Whether `count(control)` with a cancel token set before the call ends in tpacf::Cancelled.
template <class Count> bool cancelledBySetToken(Count&& count) {
    std::atomic<bool> cancel{true};
    CountControl control;
    control.cancelRequested = &cancel;
    try {
        count(control);
    } catch (const Cancelled&) {
        return true;
    }
    return false;
}

/// Uniform points on the sphere.
inline Catalog uniformCatalog(std::size_t n, std::uint64_t seed, std::string name) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> ra(n), dec(n);
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 2 * kPi * unit(rng);
        dec[i] = std::asin(std::clamp(2 * unit(rng) - 1, -1.0, 1.0));
    }
    return Catalog::fromRadians(std::move(name), std::move(ra), std::move(dec));
}

/// Half uniform, half in clumps of 0.05′ to 1° (so every scale down to 0.01′ has pairs), and a
/// few exact duplicates (c² = 0).
inline Catalog clusteredCatalog(std::size_t n, std::uint64_t seed, std::string name) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> gauss(0.0, 1.0);
    const double arcmin = kPi / (180.0 * 60.0);
    const double scales[] = {0.05 * arcmin, 0.5 * arcmin, 5 * arcmin, 60 * arcmin};
    std::vector<double> ra, dec;
    ra.reserve(n);
    dec.reserve(n);
    double cx = 0, cy = 0, cz = 1, sigma = scales[0];
    for (std::size_t i = 0; i < n; ++i) {
        const double r = unit(rng);
        if (i > 0 && r < 0.005) { // duplicate of an earlier point
            const std::size_t j = static_cast<std::size_t>(unit(rng) * static_cast<double>(i)) % i;
            ra.push_back(ra[j]);
            dec.push_back(dec[j]);
            continue;
        }
        if (r < 0.5 || i % 16 == 0) { // uniform; every 16th also starts a new clump
            const double a = 2 * kPi * unit(rng);
            const double d = std::asin(std::clamp(2 * unit(rng) - 1, -1.0, 1.0));
            ra.push_back(a);
            dec.push_back(d);
            cx = std::cos(d) * std::cos(a);
            cy = std::cos(d) * std::sin(a);
            cz = std::sin(d);
            sigma = scales[static_cast<std::size_t>(unit(rng) * 4) % 4];
            continue;
        }
        double x = cx + sigma * gauss(rng), y = cy + sigma * gauss(rng),
               z = cz + sigma * gauss(rng);
        const double norm = std::sqrt(x * x + y * y + z * z);
        x /= norm, y /= norm, z /= norm;
        ra.push_back(std::atan2(y, x) < 0 ? std::atan2(y, x) + 2 * kPi : std::atan2(y, x));
        dec.push_back(std::asin(std::clamp(z, -1.0, 1.0)));
    }
    return Catalog::fromRadians(std::move(name), std::move(ra), std::move(dec));
}

/// Jackknife regions drawn at random, uniform in [0, regions).
inline std::vector<std::int32_t> randomRegions(std::size_t n, int regions, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int32_t> pick(0, regions - 1);
    std::vector<std::int32_t> out(n);
    for (std::int32_t& r : out)
        r = pick(rng);
    return out;
}

/// Spatially coherent regions, as the jackknife makes them: every point goes to the nearest of
/// `regions` centres drawn from `centres` (seeded); regions may come out empty.
inline std::vector<std::int32_t> coherentRegions(const Catalog& catalog, const Catalog& centres,
                                                 int regions, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::size_t> picks(static_cast<std::size_t>(regions));
    for (std::size_t& p : picks)
        p = centres.empty() ? 0 : static_cast<std::size_t>(rng() % centres.size());
    std::vector<std::int32_t> out(catalog.size(), 0);
    if (centres.empty())
        return out;
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        double best = -2;
        for (int k = 0; k < regions; ++k) {
            const std::size_t c = picks[static_cast<std::size_t>(k)];
            const double dot = catalog.x()[i] * centres.x()[c] + catalog.y()[i] * centres.y()[c] +
                               catalog.z()[i] * centres.z()[c];
            if (dot > best) {
                best = dot;
                out[i] = k;
            }
        }
    }
    return out;
}

/// The same catalog with jackknife regions attached.
inline Catalog withRegions(const Catalog& catalog, std::vector<std::int32_t> regions) {
    return Catalog::fromRadians(
        catalog.name(), std::vector<double>(catalog.ra().begin(), catalog.ra().end()),
        std::vector<double>(catalog.dec().begin(), catalog.dec().end()), {}, std::move(regions));
}

/// The raw counts of countBatch's results, task by task.
inline std::vector<PairCounts> rawCounts(std::vector<TaskCounts> counts) {
    std::vector<PairCounts> raw;
    raw.reserve(counts.size());
    for (TaskCounts& task : counts)
        raw.push_back(std::move(task.raw));
    return raw;
}

} // namespace tpacf::gputest
