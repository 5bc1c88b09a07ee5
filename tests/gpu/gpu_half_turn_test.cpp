// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, the last bin at 180°: closed ([edge, 180°], bins.h kChord2BeyondHalfTurn), so that
// exact antipodal pairs count whatever way their c² rounds. The CUDA backend in double and
// float, culling on and off, auto and cross, against the CPU reference (which test_half_turn
// checks against an atan2 brute force). Plain executable. Exit 0: passed; 1: a failure; 77:
// skipped (no CUDA, or no device).
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace tpacf;
using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

namespace {

// n random points and their exact antipodes (RA + 180°, −Dec), in degrees as a file gives them.
Catalog antipodalCatalog(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> raDist(0.0, 180.0), zDist(-1.0, 1.0);
    std::vector<double> ra, dec;
    for (std::size_t i = 0; i < n; ++i) {
        const double r = raDist(rng);
        const double d = std::asin(zDist(rng)) * 180.0 / 3.141592653589793;
        ra.insert(ra.end(), {r, r + 180.0});
        dec.insert(dec.end(), {d, -d});
    }
    return Catalog::fromDegrees("antipodes", std::move(ra), std::move(dec));
}

std::string join(const PairCounts& counts) {
    std::string text;
    for (const std::uint64_t c : counts)
        text += (text.empty() ? "" : " ") + std::to_string(c);
    return text;
}

} // namespace

int main() {
    const auto provider = cuda::makeProvider();
    if (gputest::skipWithoutDevice(*provider))
        return kSkip;
    Stats stats;
    try {
        // The cross count pairs the catalog with a copy of itself: each point meets its own
        // antipode there too (400 antipodal pairs); another catalog would meet none.
        const Catalog a = antipodalCatalog(200, 7);
        const Catalog b = antipodalCatalog(200, 7);
        CpuPairCounter cpu(0);
        const std::vector<BinSpec> specs{
            BinSpec::fromEdges({0.0, 60.0, 120.0, 179.9, 180.0}, AngleUnit::Degree),
            BinSpec::linearCount(5400.0, 10800.0, AngleUnit::Arcminute, 7)};
        for (const BinSpec& spec : specs) {
            const Binning binning(spec);
            for (const bool cross : {false, true}) {
                const CountTask task{&a, cross ? &b : nullptr};
                cpu.setCulling(CullingMode::Off);
                const PairCounts reference = cpu.countBatch(std::span(&task, 1), binning)[0].raw;
                expect(stats, reference.back() >= (cross ? 400u : 200u),
                       "the CPU reference counts every antipodal pair in the last bin");
                for (const Precision precision : {Precision::Double, Precision::Float})
                    for (const CullingMode culling : {CullingMode::On, CullingMode::Off}) {
                        auto gpu = provider->create(precision, {});
                        gpu->setCulling(culling);
                        const PairCounts counts =
                            gpu->countBatch(std::span(&task, 1), binning)[0].raw;
                        const std::string what =
                            std::string(cross ? "cross" : "auto") + " " +
                            std::string(precisionName(precision)) + " culling " +
                            (culling == CullingMode::On ? "on" : "off") + " " + spec.describe() +
                            ": gpu [" + join(counts) + "] cpu [" + join(reference) + "]";
                        expect(stats, counts == reference, what);
                    }
            }
        }
    } catch (const std::exception& error) {
        std::printf("FAIL exception: %s\n", error.what());
        return 1;
    }
    std::printf("%s: %d checks, %d failures\n", stats.failures ? "FAIL" : "PASS", stats.checks,
                stats.failures);
    return stats.failures ? 1 : 0;
}
