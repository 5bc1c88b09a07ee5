// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel Lab's precision demonstrations and generated catalogs (lab_demos.h).
#include "tpacf/lab_demos.h"

#include "cpu_rungs.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/mock.h"
#include "tpacf/work_runner.h"

#include <chrono>
#include <cmath>

namespace tpacf::lab {

double floatDotUnresolvedRadians() noexcept {
    return std::ldexp(1.0, -12);
}

double floatDotSmallestAngleRadians() noexcept {
    // 1 − 2^-24 is the float just below 1; its acos in double (acosf agrees to a float step).
    return std::acos(1.0 - std::ldexp(1.0, -24));
}

Catalog generatedLabCatalog(std::size_t n, std::uint64_t seed) {
    return generateUniformRandoms(n, Footprint::cap(180.0, 0.0, 5.0), seed, "lab-points");
}

BinSpec precisionDemoBins() {
    return BinSpec::logPerDecade(0.01, 1.0, AngleUnit::Arcminute, 5.0);
}

Catalog precisionDemoCatalog(std::size_t n, std::uint64_t seed) {
    return generateUniformRandoms(n, Footprint::cap(180.0, 0.0, 0.5), seed, "precision-demo");
}

BinSpec overflowDemoBins() {
    return BinSpec::linearCount(0.0, 180.0, AngleUnit::Degree, 1);
}

Catalog overflowDemoCatalog(std::size_t n, std::uint64_t seed) {
    return generateUniformRandoms(n, Footprint::fullSky(), seed, "overflow-demo");
}

namespace {

PairCounts referenceCounts(const Catalog& first, const Catalog* second, const Binning& binning,
                           int threads, const std::atomic<bool>* cancel,
                           CullingMode culling = CullingMode::Auto) {
    CpuPairCounter counter(threads);
    counter.setCulling(culling);
    CountControl control;
    control.cancelRequested = cancel;
    const CountTask task{&first, second};
    return counter.countBatch({&task, 1}, binning, control).front().raw;
}

/// Binning on the dot product itself: a pair is at or beyond edge k when cos θ <= cos(edge k),
/// both in float.
PairCounts countFloatDot(const detail::FloatPoints& a, const detail::FloatPoints* second,
                         const std::vector<float>& cosEdges, const std::atomic<bool>* cancel) {
    const detail::FloatPoints& b = second ? *second : a;
    const std::size_t bins = cosEdges.size() - 1;
    PairCounts histogram(bins, 0);
    // [lab:excerpt demo-float-dot]
    for (std::size_t i = 0; i < a.size(); ++i) {
        detail::throwIfCancelled(cancel);
        for (std::size_t j = second ? 0 : i + 1; j < b.size(); ++j) {
            const float cosTheta = a.x[i] * b.x[j] + a.y[i] * b.y[j] + a.z[i] * b.z[j];
            // Edges crossed: cos decreases as theta grows. Below 0.84' every cos(edge) is
            // 1.0f, and so is cosTheta: no comparison can tell those bins apart.
            std::size_t crossed = 0;
            while (crossed < cosEdges.size() && cosTheta <= cosEdges[crossed])
                ++crossed;
            if (crossed >= 1 && crossed <= bins)
                ++histogram[crossed - 1];
        }
    }
    // [lab:end]
    return histogram;
}

} // namespace

PrecisionDemo dotVersusChord2(const Catalog& first, const Catalog* second, const Binning& binning,
                              const std::atomic<bool>* cancel) {
    PrecisionDemo demo;
    demo.pairs = CountTask{&first, second}.pairTotal();
    for (double edge : binning.edgesRadians())
        demo.cosEdges.push_back(static_cast<float>(std::cos(edge)));
    const detail::FloatPoints a(first);
    const std::unique_ptr<detail::FloatPoints> b =
        second ? std::make_unique<detail::FloatPoints>(*second) : nullptr;
    demo.floatDot = countFloatDot(a, b.get(), demo.cosEdges, cancel);
    demo.chord2 = detail::countChord2Scalar(first, second, binning, cancel);
    demo.reference = referenceCounts(first, second, binning, 0, cancel);
    return demo;
}

OverflowDemo counterOverflow(const Catalog& first, const Catalog* second, const Binning& binning,
                             int threads, const std::atomic<bool>* cancel) {
    OverflowDemo demo;
    demo.pairs = CountTask{&first, second}.pairTotal();
    const Catalog& b = second ? *second : first;
    const std::span<const double> thresholds = binning.chord2Edges();
    const std::size_t bins = binning.count();
    // Rows in blocks from a shared cursor: an auto count's rows shrink towards the end.
    constexpr std::size_t kRowsPerBlock = 64;
    const std::size_t blocks = (first.size() + kRowsPerBlock - 1) / kRowsPerBlock;
    const std::size_t workers = workerCount(threads, std::max<std::size_t>(1, blocks));
    std::vector<std::vector<std::uint32_t>> perWorker(workers,
                                                      std::vector<std::uint32_t>(bins, 0));
    std::atomic<std::size_t> nextBlock{0};
    RunnerWatch watch;
    watch.cancel = cancel;
    const auto start = std::chrono::steady_clock::now();
    runWorkers(
        workers,
        [&](std::size_t worker, const std::atomic<bool>& stop) {
            std::uint32_t* histogram = perWorker[worker].data();
            const double *ax = first.x().data(), *ay = first.y().data(), *az = first.z().data();
            const double *bx = b.x().data(), *by = b.y().data(), *bz = b.z().data();
            for (std::size_t block = nextBlock++; block < blocks && !stop; block = nextBlock++) {
                const std::size_t end = std::min(first.size(), (block + 1) * kRowsPerBlock);
                for (std::size_t i = block * kRowsPerBlock; i < end; ++i) {
                    // [lab:excerpt demo-overflow]
                    for (std::size_t j = second ? 0 : i + 1; j < b.size(); ++j) {
                        const double dx = ax[i] - bx[j], dy = ay[i] - by[j], dz = az[i] - bz[j];
                        const double chord2 = dx * dx + dy * dy + dz * dz;
                        std::size_t crossed = 0;
                        while (crossed < thresholds.size() && chord2 >= thresholds[crossed])
                            ++crossed;
                        if (crossed >= 1 && crossed <= bins)
                            ++histogram[crossed - 1]; // std::uint32_t: 4294967295 + 1 == 0
                    }
                    // [lab:end]
                }
            }
        },
        watch);
    demo.seconds32 =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    demo.counts32.assign(bins, 0);
    for (const auto& histogram : perWorker)
        for (std::size_t bin = 0; bin < bins; ++bin)
            demo.counts32[bin] += histogram[bin]; // a 32-bit total wraps alike: mod 2^32
    // Culled, the one wide bin is counted from whole cell pairs: seconds, not minutes.
    demo.counts64 = referenceCounts(first, second, binning, threads, cancel, CullingMode::On);
    demo.wraps.resize(bins);
    for (std::size_t bin = 0; bin < bins; ++bin)
        demo.wraps[bin] = (demo.counts64[bin] - demo.counts32[bin]) >> 32;
    return demo;
}

} // namespace tpacf::lab
