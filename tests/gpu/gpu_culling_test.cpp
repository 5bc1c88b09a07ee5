// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, spatial culling (issue "Spatial culling"): the CUDA backend with culling on against
// itself with culling off (brute force) and against the CPU reference (CullingMode::Off).
// Plain executable. Exit 0: all passed; 1: a failure; 77: skipped (no CUDA, or no device).
//
// Every comparison is exact: double culled == double brute force == CPU; float culled == float
// brute force (the culling margin, 1e-5, is far above float rounding, and a float pair's c² does
// not depend on the path that computes it, so no pair can move). Catalogs: full-sky uniform, a
// Soneira-Peebles mock, clumps with duplicates, a small cap, a box straddling RA = 0, points
// within 1° of each pole, heavy exact duplicates; θ_max from 0.01° to 179°; N from 0 to 200,000
// (--quick: to 20,001); auto and cross in one batch; the region (jackknife) path too.
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/culling.h"
#include "tpacf/errors.h"
#include "tpacf/mock.h"
#ifdef TPACF_GPU_TEST_INTERNALS
#include "cuda_pair_counter.h" // kernels/src: a counter over a device list given as is
#endif

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

// ---- catalogs ----------------------------------------------------------------------------

Catalog concatenate(const Catalog& a, const Catalog& b, std::string name) {
    std::vector<double> ra(a.ra().begin(), a.ra().end()), dec(a.dec().begin(), a.dec().end());
    ra.insert(ra.end(), b.ra().begin(), b.ra().end());
    dec.insert(dec.end(), b.dec().begin(), b.dec().end());
    return Catalog::fromRadians(std::move(name), std::move(ra), std::move(dec));
}

/// n points of one kind (n = 0 gives an empty catalog).
Catalog makeCatalog(const std::string& kind, std::size_t n, std::uint64_t seed) {
    if (n == 0)
        return Catalog::fromRadians(kind, {}, {});
    if (kind == "uniform")
        return gputest::uniformCatalog(n, seed, kind);
    if (kind == "clumps") // clumps of 0.05' to 1° and 0.5 % exact duplicates
        return gputest::clusteredCatalog(n, seed, kind);
    if (kind == "mock") {
        MockParams params;
        params.count = n;
        params.seed = seed;
        return generateClusteredMock(params, kind);
    }
    if (kind == "cap") // radius 0.5°
        return generateUniformRandoms(n, Footprint::cap(150, 30, 0.5), seed, kind);
    if (kind == "ra0box") // 10° x 6° through RA = 0
        return generateUniformRandoms(n, Footprint::box(355, 5, -3, 3), seed, kind);
    if (kind == "poles") { // within 1° of the north and of the south pole
        const Catalog north = generateUniformRandoms((n + 1) / 2, Footprint::cap(0, 90, 1), seed);
        const Catalog south = generateUniformRandoms(n / 2, Footprint::cap(0, -90, 1), seed + 7);
        return concatenate(north, south, kind);
    }
    if (kind == "duplicates") { // n / 64 + 1 distinct points in a 2° cap, each many times over
        const std::size_t distinct = n / 64 + 1;
        const Catalog base = generateUniformRandoms(distinct, Footprint::cap(40, -20, 2), seed);
        std::vector<double> ra(n), dec(n);
        for (std::size_t i = 0; i < n; ++i) {
            ra[i] = base.ra()[(i * 7919) % distinct];
            dec[i] = base.dec()[(i * 7919) % distinct];
        }
        return Catalog::fromRadians(kind, std::move(ra), std::move(dec));
    }
    if (kind == "lattice") { // a 2.5° RA/Dec lattice, each node several times over, in a seeded
        // order: pairs on one meridian or parallel lie exactly on multiples of 2.5°
        std::vector<double> ra, dec;
        const double kDeg = 3.14159265358979323846 / 180;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t node = (i * 7919 + seed) % (144 * 73);
            ra.push_back(static_cast<double>(node % 144) * 2.5 * kDeg);
            dec.push_back((static_cast<double>(node / 144) * 2.5 - 90) * kDeg);
        }
        return Catalog::fromRadians(kind, std::move(ra), std::move(dec));
    }
    throw ConfigError("unknown catalog kind " + kind);
}

const char* const kKinds[] = {"uniform", "mock", "clumps", "cap", "ra0box", "poles", "duplicates"};

// ---- bins ----------------------------------------------------------------------------------

struct BinCase {
    std::string label;
    BinSpec spec;
};

/// For one θ_max (degrees): 20 log bins from 0.01′; 10 linear bins from 0 (c² = 0 included:
/// duplicates count); one ring [θ_max / 2, θ_max) (cell pairs wholly inside θ_max / 2 dropped).
std::vector<BinCase> binCases(double thetaMaxDeg, bool all) {
    std::vector<BinCase> cases;
    const std::string at = std::to_string(thetaMaxDeg) + "deg";
    cases.push_back(
        {"log20 0.01'-" + at, BinSpec::logCount(0.01, thetaMaxDeg * 60, AngleUnit::Arcminute, 20)});
    if (all) {
        cases.push_back(
            {"lin10 0-" + at, BinSpec::linearCount(0, thetaMaxDeg, AngleUnit::Degree, 10)});
        cases.push_back({"ring " + at,
                         BinSpec::linearCount(thetaMaxDeg / 2, thetaMaxDeg, AngleUnit::Degree, 1)});
    }
    return cases;
}

const double kThetaMax[] = {0.01, 0.1, 1, 10, 60, 179};

// ---- comparisons ---------------------------------------------------------------------------

bool sameCounts(const std::string& what, const std::vector<PairCounts>& got,
                const std::vector<PairCounts>& want) {
    if (got.size() != want.size()) {
        std::printf("FAIL %s: %zu results, expected %zu\n", what.c_str(), got.size(), want.size());
        return false;
    }
    int printed = 0;
    for (std::size_t t = 0; t < want.size(); ++t) {
        if (got[t].size() != want[t].size()) {
            std::printf("FAIL %s task %zu: %zu bins, expected %zu\n", what.c_str(), t,
                        got[t].size(), want[t].size());
            return false;
        }
        for (std::size_t k = 0; k < want[t].size(); ++k)
            if (got[t][k] != want[t][k] && printed++ < 6)
                std::printf("FAIL %s task %zu bin %zu: %" PRIu64 " expected %" PRIu64 "\n",
                            what.c_str(), t, k, got[t][k], want[t][k]);
    }
    return printed == 0;
}

std::vector<PairCounts> countWith(PairCounter& counter, CullingMode mode,
                                  const std::vector<CountTask>& tasks, const Binning& binning) {
    counter.setCulling(mode);
    return gputest::rawCounts(counter.countBatch(tasks, binning));
}

struct Counters {
    CpuPairCounter* cpu;
    PairCounter* gpuDouble;
    PairCounter* gpuFloat;
};

/// One batch {A auto, A x B, B auto}: double culled == double brute force (== CPU brute force
/// where withCpu), float culled == float brute force.
void runCase(Stats& stats, const Counters& counters, const Catalog& a, const Catalog& b,
             const BinCase& bins, bool withCpu) {
    const Binning binning(bins.spec);
    const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &b}, {&b, nullptr}};
    char what[256];
    std::snprintf(what, sizeof what, "%s(%zu) x %s(%zu) bins '%s' (%s)", a.name().c_str(), a.size(),
                  b.name().c_str(), b.size(), bins.label.c_str(), bins.spec.describe().c_str());
    try {
        const auto doubleOn = countWith(*counters.gpuDouble, CullingMode::On, tasks, binning);
        expect(stats, counters.gpuDouble->lastBatchCulled(),
               std::string(what) + ": culling On reports lastBatchCulled");
        const auto doubleOff = countWith(*counters.gpuDouble, CullingMode::Off, tasks, binning);
        expect(stats, !counters.gpuDouble->lastBatchCulled(),
               std::string(what) + ": culling Off reports !lastBatchCulled");
        expect(
            stats,
            sameCounts(std::string(what) + " [double culled vs brute force]", doubleOn, doubleOff),
            std::string(what) + ": double culled == double brute force");
        if (withCpu) {
            const auto cpu = countWith(*counters.cpu, CullingMode::Off, tasks, binning);
            expect(stats, sameCounts(std::string(what) + " [double culled vs CPU]", doubleOn, cpu),
                   std::string(what) + ": double culled == CPU (culling off)");
        }
        const auto floatOn = countWith(*counters.gpuFloat, CullingMode::On, tasks, binning);
        const auto floatOff = countWith(*counters.gpuFloat, CullingMode::Off, tasks, binning);
        expect(stats,
               sameCounts(std::string(what) + " [float culled vs brute force]", floatOn, floatOff),
               std::string(what) + ": float culled == float brute force");
    } catch (const std::exception& e) {
        expect(stats, false, std::string(what) + ": threw: " + e.what());
    }
}

// ---- region path ---------------------------------------------------------------------------

bool sameRegionCounts(const std::string& what, const std::vector<RegionPairCounts>& got,
                      const std::vector<RegionPairCounts>& want) {
    if (got.size() != want.size()) {
        std::printf("FAIL %s: %zu results, expected %zu\n", what.c_str(), got.size(), want.size());
        return false;
    }
    for (std::size_t t = 0; t < want.size(); ++t) {
        if (got[t].total != want[t].total || got[t].touching != want[t].touching ||
            got[t].within != want[t].within) {
            std::printf("FAIL %s task %zu: region counts differ\n", what.c_str(), t);
            return false;
        }
    }
    return true;
}

void runRegionCase(Stats& stats, const Counters& counters, const Catalog& a, const Catalog& b,
                   std::size_t regions, const BinCase& bins) {
    const Binning binning(bins.spec);
    const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &b}, {&b, nullptr}};
    char what[256];
    std::snprintf(what, sizeof what, "regions K=%zu %s(%zu) x %s(%zu) bins '%s'", regions,
                  a.name().c_str(), a.size(), b.name().c_str(), b.size(), bins.label.c_str());
    try {
        auto count = [&](PairCounter& counter, CullingMode mode) {
            counter.setCulling(mode);
            return counter.countBatchByRegion(tasks, binning, regions);
        };
        const auto doubleOn = count(*counters.gpuDouble, CullingMode::On);
        const auto doubleOff = count(*counters.gpuDouble, CullingMode::Off);
        const auto cpu = count(*counters.cpu, CullingMode::Off);
        expect(
            stats,
            sameRegionCounts(std::string(what) + " [double culled vs brute]", doubleOn, doubleOff),
            std::string(what) + ": double culled == double brute force");
        expect(stats,
               sameRegionCounts(std::string(what) + " [double culled vs CPU]", doubleOn, cpu),
               std::string(what) + ": double culled == CPU");
        const auto floatOn = count(*counters.gpuFloat, CullingMode::On);
        const auto floatOff = count(*counters.gpuFloat, CullingMode::Off);
        expect(stats,
               sameRegionCounts(std::string(what) + " [float culled vs brute]", floatOn, floatOff),
               std::string(what) + ": float culled == float brute force");
    } catch (const std::exception& e) {
        expect(stats, false, std::string(what) + ": threw: " + e.what());
    }
}

// ---- banded lookup -----------------------------------------------------------------------------

/// Float, the banded lookup (pairs binned on their hi parts where the band allows) against the
/// packed one (every pair's full c²): the same counts, culled, plain and by region.
void runBandedCase(Stats& stats, PairCounter& banded, PairCounter& packed, const Catalog& a,
                   const Catalog& b, const BinCase& bins) {
    const Binning binning(bins.spec);
    const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &b}, {&b, nullptr}};
    char what[256];
    std::snprintf(what, sizeof what, "banded %s(%zu) x %s(%zu) bins '%s'", a.name().c_str(),
                  a.size(), b.name().c_str(), b.size(), bins.label.c_str());
    try {
        // Culled only: brute force reads the packed cells whatever the tuning says.
        expect(stats,
               sameCounts(std::string(what) + " culled",
                          countWith(banded, CullingMode::On, tasks, binning),
                          countWith(packed, CullingMode::On, tasks, binning)),
               std::string(what) + " culled: banded == packed");
        const Catalog ra = gputest::withRegions(a, gputest::coherentRegions(a, a, 8, 5));
        const Catalog rb = gputest::withRegions(b, gputest::coherentRegions(b, a, 8, 5));
        const std::vector<CountTask> regionTasks{{&ra, nullptr}, {&ra, &rb}, {&rb, nullptr}};
        banded.setCulling(CullingMode::On);
        packed.setCulling(CullingMode::On);
        expect(stats,
               sameRegionCounts(std::string(what) + " by region",
                                banded.countBatchByRegion(regionTasks, binning, 8),
                                packed.countBatchByRegion(regionTasks, binning, 8)),
               std::string(what) + " by region: banded == packed");
    } catch (const std::exception& e) {
        expect(stats, false, std::string(what) + ": threw: " + e.what());
    }
}

// ---- control: progress, auto choice, knobs, cancellation -------------------------------------

void runControlChecks(Stats& stats, PairCounter& gpu) {
    // Two caps 90° apart: at θ_max = 1° their cross task is culled away whole (no work unit).
    const Catalog north = makeCatalog("cap", 30000, 5);
    const Catalog far = generateUniformRandoms(30000, Footprint::cap(60, -60, 0.5), 6, "far");
    const Catalog sky = makeCatalog("uniform", 100000, 7);
    const std::vector<CountTask> tasks{
        {&north, nullptr}, {&north, &far}, {&sky, nullptr}, {&sky, &north}};
    const Binning binning(BinSpec::logCount(0.01, 60, AngleUnit::Arcminute, 30));
    std::uint64_t total = 0;
    for (const CountTask& task : tasks)
        total += task.pairTotal();

    gpu.setCulling(CullingMode::On);
    int calls = 0;
    bool monotone = true, shapes = true;
    std::uint64_t lastDone = 0;
    std::vector<std::uint64_t> lastPerTask;
    CountControl control;
    control.onProgress = [&](const CountProgress& p) {
        ++calls;
        monotone = monotone && p.pairsDone >= lastDone && p.pairsDone <= p.pairsTotal;
        shapes = shapes && p.pairsTotal == total && p.pairsDonePerTask.size() == tasks.size();
        lastDone = p.pairsDone;
        lastPerTask = p.pairsDonePerTask;
    };
    const auto counts = gputest::rawCounts(gpu.countBatch(tasks, binning, control));
    expect(stats, gpu.lastBatchCulled(), "progress batch ran culled");
    expect(stats, calls >= 1 && monotone && shapes && lastDone == total,
           "culled batch: progress is monotone and ends at pairsDone == pairsTotal");
    bool perTask = lastPerTask.size() == tasks.size();
    for (std::size_t t = 0; perTask && t < tasks.size(); ++t)
        perTask = lastPerTask[t] == tasks[t].pairTotal();
    expect(stats, perTask, "culled batch: every task's progress ends at its pairTotal");
    std::uint64_t crossCounted = 0;
    for (std::uint64_t v : counts[1])
        crossCounted += v;
    expect(stats, crossCounted == 0, "two caps 90 deg apart have no pair within 1 deg");

    // Progress of a large culled batch, sampled mid-way (at least one report before the end).
    {
        const Catalog big = makeCatalog("uniform", 1 << 21, 11);
        const std::vector<CountTask> bigTasks{{&big, nullptr}};
        const Binning wide(BinSpec::logCount(0.01, 20 * 60, AngleUnit::Arcminute, 30));
        std::vector<std::uint64_t> seen;
        CountControl sampled;
        sampled.onProgress = [&](const CountProgress& p) { seen.push_back(p.pairsDone); };
        gpu.countBatch(bigTasks, wide, sampled);
        expect(stats,
               !seen.empty() && seen.back() == bigTasks[0].pairTotal() &&
                   std::is_sorted(seen.begin(), seen.end()),
               "large culled batch: progress sorted, ends at pairTotal (" +
                   std::to_string(seen.size()) + " reports)");
    }

    // Auto follows chooseCulling; CudaTuning::bruteForce forces brute force.
    gpu.setCulling(CullingMode::Auto);
    const Catalog tiny = makeCatalog("uniform", 100, 12);
    const std::vector<CountTask> tinyTasks{{&tiny, nullptr}};
    gpu.countBatch(tinyTasks, binning);
    expect(stats,
           gpu.lastBatchCulled() == chooseCulling(CullingMode::Auto, 1.0, tinyTasks[0].pairTotal()),
           "Auto on a tiny batch follows chooseCulling");
    gpu.countBatch(tasks, binning);
    expect(stats, gpu.lastBatchCulled() == chooseCulling(CullingMode::Auto, 1.0, total),
           "Auto on a large batch follows chooseCulling");
    gpu.setCulling(CullingMode::On);
    {
        const auto bruteCounter =
            cuda::makeProvider(gputest::bruteForceTuning())->create(gpu.precision(), {});
        bruteCounter->setCulling(CullingMode::On);
        const auto brute = gputest::rawCounts(bruteCounter->countBatch(tasks, binning));
        expect(stats, !bruteCounter->lastBatchCulled(),
               "CudaTuning::bruteForce overrides culling On");
        expect(stats, sameCounts("tuning brute force vs culled", brute, counts),
               "CudaTuning::bruteForce gives the culled counts");
    }

    // Cancellation with culling on (before the list is built, and from the progress callback).
    expect(stats, gputest::cancelledBySetToken([&](const CountControl& control) {
               gpu.countBatch(tasks, binning, control);
           }),
           "culled batch: a set cancel token gives tpacf::Cancelled");
    gpu.setCulling(CullingMode::Auto);
}

} // namespace

int main(int argc, char** argv) {
    return gputest::runCounterSuite(argc, argv, [&](Stats& stats, gputest::CounterFixture& fixture) {
        [[maybe_unused]] const bool quick = fixture.quick;
        [[maybe_unused]] auto& gpuDouble = fixture.gpuDouble;
        [[maybe_unused]] auto& gpuFloat = fixture.gpuFloat;
        [[maybe_unused]] CpuPairCounter& cpu = fixture.cpu;
        const Counters counters{&cpu, gpuDouble.get(), gpuFloat.get()};

        std::uint64_t seed = 1;
        const std::size_t sizes[] = {0, 1, 2, 1000, 4097, 20001};
        for (const char* kind : kKinds) {
            for (std::size_t n : sizes) {
                const Catalog a = makeCatalog(kind, n, seed++);
                // The second catalog: another kind for the uniform one (cross of different
                // footprints), the same kind otherwise; a slightly different size.
                const Catalog b = makeCatalog(std::string(kind) == "uniform" ? "mock" : kind,
                                              n > 0 ? n + 3 : 5, seed++);
                for (double thetaMax : kThetaMax)
                    for (const BinCase& bins : binCases(thetaMax, n >= 1000))
                        runCase(stats, counters, a, b, bins, true);
            }
            std::printf("%-10s done: %d checks, %d failures\n", kind, stats.checks, stats.failures);
            std::fflush(stdout);
        }

        // Every histogram path, other tile sizes, and sub-tile culling off, with culling on.
        {
            const Catalog a = makeCatalog("mock", 20001, 901);
            const Catalog b = makeCatalog("clumps", 20004, 902);
            auto tunedRun = [&](const cuda::CudaTuning& tuning,
                                std::initializer_list<double> thetas, std::size_t binCase) {
                const auto tuned = gputest::tunedCounters(tuning);
                const Counters with{&cpu, tuned.doubles.get(), tuned.floats.get()};
                for (double thetaMax : thetas)
                    runCase(stats, with, a, b, binCases(thetaMax, true)[binCase], true);
            };
            for (const char* mode : {"warp", "global"})
                tunedRun(gputest::histogramTuning(mode), {1.0, 60.0}, 0);
            // Smaller tiles (8 sub-boxes per tile at 64 threads) and the sub-tile culling off.
            for (int block : {64, 128}) {
                cuda::CudaTuning tuning;
                tuning.blockSizeCap = block;
                tunedRun(tuning, {0.1, 10.0}, 0);
            }
            cuda::CudaTuning noSubTiles;
            noSubTiles.subTileCulling = false;
            tunedRun(noSubTiles, {0.1, 10.0}, 2);
            // The projected variant below 20° too (small tiles), its usual reach and nearly
            // every tile pair of one or two edges.
            for (double reach : {1.0, 16.0}) {
                cuda::CudaTuning tuning;
                tuning.projection = cuda::CudaProjection::On;
                tuning.projectionReach = reach;
                tunedRun(tuning, {1.0, 10.0}, 0);
            }
            // The tile orders against the planner's choice: k-d groups under the projected
            // kernels (beyond 20°) and the sky curve's order alone where the planner takes k-d
            // groups (both catalogs hold two full groups and a ragged one).
            cuda::CudaTuning kdTiles;
            kdTiles.tileOrder = cuda::CudaTileOrder::Kd;
            tunedRun(kdTiles, {1.0, 60.0, 179.0}, 0);
            tunedRun(kdTiles, {60.0}, 1);
            cuda::CudaTuning curveTiles;
            curveTiles.tileOrder = cuda::CudaTileOrder::Curve;
            tunedRun(curveTiles, {1.0, 10.0}, 0);
            std::printf("hist modes done: %d checks, %d failures\n", stats.checks, stats.failures);
        }

        // Whole node pairs (the host's traversal), whole and narrow sub-tile pairs (the kernel)
        // where many pairs lie exactly on bin edges: a 2.5° lattice against 5° linear bins, the
        // full log range and an edge list from 0 to 180°; and those kernel paths off. Then a uniform
        // full-sky pair at the full log range, where tile pairs are settled whole by the host.
        {
            const Catalog a = makeCatalog("lattice", quick ? 20000 : 60000, 905);
            const Catalog b = makeCatalog("lattice", quick ? 15001 : 40001, 906);
            const BinCase linear5{"lin36 0-180deg", BinSpec::linearCount(0, 180, AngleUnit::Degree, 36)};
            const BinCase fullLog{"log30 0.01'-180deg",
                                  BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30)};
            const BinCase edgeList{"edges 0-180deg",
                                   BinSpec::fromEdges({0, 1, 2.5, 5, 10, 30, 60, 90, 120, 179, 180},
                                                      AngleUnit::Degree)};
            for (const BinCase& bins : {linear5, fullLog, edgeList})
                runCase(stats, counters, a, b, bins, true);
            // Each kernel path that settles pairs without computing them off in turn: the whole
            // sub-tile pairs (then the narrow path takes the one-bin sub-tile pairs), the narrow
            // ones, both, and the projected tile pairs (then the sub-tile paths take them); and
            // every tile pair of one or two edges projected (reach 16), small tiles or large.
            struct Paths {
                bool whole, narrow, projected;
                double reach;
                int block;
            };
            for (const Paths& paths :
                 {Paths{false, true, true, 0.25, 0}, Paths{true, false, true, 0.25, 0},
                  Paths{false, false, true, 0.25, 0}, Paths{true, true, false, 0.25, 0},
                  Paths{true, true, true, 16, 0}, Paths{true, true, true, 16, 64}}) {
                cuda::CudaTuning tuning;
                tuning.wholeSubTiles = paths.whole;
                tuning.narrowSubTiles = paths.narrow;
                tuning.projection =
                    paths.projected ? cuda::CudaProjection::Auto : cuda::CudaProjection::Off;
                tuning.projectionReach = paths.reach;
                tuning.blockSizeCap = paths.block;
                const auto tuned = gputest::tunedCounters(tuning);
                const Counters with{&cpu, tuned.doubles.get(), tuned.floats.get()};
                runCase(stats, with, a, b, linear5, true);
                runCase(stats, with, a, b, fullLog, true);
            }
            // The lattice's edges on k-d tiles: whole node pairs, whole and narrow sub-tiles and
            // projected tile pairs all judged on the refined boxes.
            {
                cuda::CudaTuning tuning;
                tuning.tileOrder = cuda::CudaTileOrder::Kd;
                const auto tuned = gputest::tunedCounters(tuning);
                const Counters with{&cpu, tuned.doubles.get(), tuned.floats.get()};
                for (const BinCase& bins : {linear5, fullLog, edgeList})
                    runCase(stats, with, a, b, bins, true);
            }
            // The lattice's edges below 20° projected: linear 1° bins to 10°, small tiles.
            {
                cuda::CudaTuning tuning;
                tuning.projection = cuda::CudaProjection::On;
                tuning.projectionReach = 16;
                const auto tuned = gputest::tunedCounters(tuning);
                const Counters with{&cpu, tuned.doubles.get(), tuned.floats.get()};
                runCase(
                    stats, with, a, b,
                    BinCase{"lin10 0-10deg", BinSpec::linearCount(0, 10, AngleUnit::Degree, 10)},
                    true);
            }
            const Catalog u = makeCatalog("uniform", quick ? 60000 : 200000, 907);
            const Catalog m = makeCatalog("mock", quick ? 50000 : 150000, 908);
            runCase(stats, counters, u, m, fullLog, true);
            std::printf("edges done: %d checks, %d failures\n", stats.checks, stats.failures);
        }

        // The banded lookup against the packed one, where pairs crowd the edges: the lattice's
        // pairs lie exactly on multiples of 2.5° (edges of the linear bins), clumps and a mock
        // hold many pairs at every small scale.
        {
            cuda::CudaTuning off;
            off.bandedLookup = false;
            const auto packed = gputest::tunedCounters(off);
            const Catalog lattice = makeCatalog("lattice", quick ? 20000 : 60000, 911);
            const Catalog clumps = makeCatalog("clumps", quick ? 20000 : 60000, 912);
            const Catalog mock = makeCatalog("mock", quick ? 15001 : 40001, 913);
            const BinCase standard{"log30 0.01'-10deg",
                                   BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 30)};
            const BinCase quarters{"lin4 0-10deg",
                                   BinSpec::linearCount(0, 10, AngleUnit::Degree, 4)};
            const BinCase edges{
                "edges 0.02-28deg",
                BinSpec::fromEdges({0.02, 0.05, 0.5, 2.5, 5, 7.5, 28}, AngleUnit::Degree)};
            for (const BinCase& bins : {standard, quarters, edges}) {
                runBandedCase(stats, *gpuFloat, *packed.floats, lattice, clumps, bins);
                runBandedCase(stats, *gpuFloat, *packed.floats, clumps, mock, bins);
            }
            std::printf("banded done: %d checks, %d failures\n", stats.checks, stats.failures);
        }

        // The region (jackknife) path, culled against brute force and the CPU.
        for (std::size_t n : {std::size_t{4097}, std::size_t{20001}}) {
            const Catalog plainA = makeCatalog("mock", n, seed++);
            const Catalog plainB = makeCatalog("uniform", n + 2, seed++);
            for (const auto& [regions, coherent] :
                 {std::pair<int, bool>{7, true}, std::pair<int, bool>{32, false}}) {
                auto assign = [&](const Catalog& c) {
                    return gputest::withRegions(
                        c, coherent ? gputest::coherentRegions(c, plainA, regions, 3)
                                    : gputest::randomRegions(c.size(), regions, seed));
                };
                const Catalog a = assign(plainA);
                const Catalog b = assign(plainB);
                for (double thetaMax : {1.0, 10.0, 179.0})
                    runRegionCase(stats, counters, a, b, static_cast<std::size_t>(regions),
                                  binCases(thetaMax, false)[0]);
            }
        }
        std::printf("regions done: %d checks, %d failures\n", stats.checks, stats.failures);

#ifdef TPACF_GPU_TEST_INTERNALS
        // A counter over several device threads against one device, culling off and on.
        const auto expectAsOneDevice = [&](PairCounter& several, PairCounter& one,
                                           const std::vector<CountTask>& tasks,
                                           const Binning& binning, const std::string& label) {
            for (CullingMode mode : {CullingMode::Off, CullingMode::On}) {
                const std::string what = label + ", culling " + std::string(cullingModeName(mode));
                expect(stats,
                       sameCounts(what, countWith(several, mode, tasks, binning),
                                  countWith(one, mode, tasks, binning)),
                       what + ": == one device thread");
            }
        };
        // The multi-device schedule on one GPU: two host threads each drive device 0 as if it
        // were a second card (own stream and buffers; the leader builds the culled list, the
        // other waits for it; both take units from one cursor; the counts are summed). This is
        // the code that otherwise runs only where a machine has several GPUs.
        {
            auto twiceDouble =
                cuda::detail::makeCudaPairCounter(Precision::Double, {0, 0}, "GPU 0 twice");
            auto twiceFloat =
                cuda::detail::makeCudaPairCounter(Precision::Float, {0, 0}, "GPU 0 twice");
            const Counters twice{&cpu, twiceDouble.get(), twiceFloat.get()};
            const Catalog a = makeCatalog("mock", 20001, 903);
            const Catalog b = makeCatalog("clumps", 20004, 904);
            const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &b}, {&b, nullptr}};
            for (double thetaMax : {0.1, 10.0, 179.0}) {
                const BinCase bins = binCases(thetaMax, false)[0];
                runCase(stats, twice, a, b, bins, true);
                // Float on two device threads == float on one (a pair's float bin does not
                // depend on which thread or launch computed it).
                const Binning binning(bins.spec);
                for (CullingMode mode : {CullingMode::On, CullingMode::Off}) {
                    const auto two = countWith(*twiceFloat, mode, tasks, binning);
                    const auto one = countWith(*gpuFloat, mode, tasks, binning);
                    const std::string what = "two device threads, float, theta_max " +
                                             std::to_string(thetaMax) + " deg, culling " +
                                             std::string(cullingModeName(mode));
                    expect(stats, sameCounts(what, two, one), what + ": == one device thread");
                }
            }
            // Large enough that the work list holds many launches' worth of units (each launch
            // takes at least a grid's worth, ~400 units on an H100): N = 200,000 brute force
            // is ~7,000 units (~18 launches), so both threads take launches from the cursor.
            {
                const Catalog big = makeCatalog("mock", 200000, 905);
                const Catalog bigB = makeCatalog("uniform", 200003, 906);
                const std::vector<CountTask> bigTasks{{&big, nullptr}, {&big, &bigB}};
                const Binning binning(binCases(179.0, false)[0].spec);
                expectAsOneDevice(*twiceDouble, *gpuDouble, bigTasks, binning,
                                  "two device threads, N = 200000, double");
                expectAsOneDevice(*twiceFloat, *gpuFloat, bigTasks, binning,
                                  "two device threads, N = 200000, float");
            }
            const Catalog ra = gputest::withRegions(a, gputest::coherentRegions(a, a, 7, 5));
            const Catalog rb = gputest::withRegions(b, gputest::coherentRegions(b, a, 7, 5));
            runRegionCase(stats, twice, ra, rb, 7, binCases(10.0, false)[0]);
            std::printf("two device threads done: %d checks, %d failures\n", stats.checks,
                        stats.failures);
        }
        // Catalogs uploaded in parts, each device thread copying the other's part from its
        // device (shared_uploads.h), every catalog and every part crossing: on GPU 0 twice the
        // copies stay within the device; where two GPUs are visible, also between them.
        {
            cuda::CudaTuning every;
            every.sharedUploads = cuda::CudaSharedUploads::All;
            std::vector<std::vector<int>> deviceSets{{0, 0}};
            if (cuda::makeProvider()->devices().size() >= 2)
                deviceSets.push_back({0, 1});
            const Catalog a = makeCatalog("mock", 20001, 907);
            const Catalog b = makeCatalog("ra0box", 20004, 908);
            const Catalog big = makeCatalog("uniform", 200000, 909);
            const std::vector<CountTask> bigTasks{{&big, nullptr}, {&big, &a}, {&a, nullptr}};
            for (const std::vector<int>& devices : deviceSets) {
                const std::string name = devices[1] == 0 ? "GPU 0 twice" : "GPUs 0 and 1";
                auto sharedDouble = cuda::detail::makeCudaPairCounter(
                    Precision::Double, devices, name + ", every catalog shared", every);
                auto sharedFloat = cuda::detail::makeCudaPairCounter(
                    Precision::Float, devices, name + ", every catalog shared", every);
                const Counters shared{&cpu, sharedDouble.get(), sharedFloat.get()};
                for (double thetaMax : {10.0, 179.0})
                    runCase(stats, shared, a, b, binCases(thetaMax, false)[0], true);
                const Catalog ra = gputest::withRegions(a, gputest::coherentRegions(a, a, 7, 5));
                const Catalog rb = gputest::withRegions(b, gputest::coherentRegions(b, a, 7, 5));
                runRegionCase(stats, shared, ra, rb, 7, binCases(10.0, false)[0]);
                const Binning binning(binCases(179.0, false)[0].spec);
                expectAsOneDevice(*sharedDouble, *gpuDouble, bigTasks, binning,
                                  name + ", every catalog shared, N = 200000, double");
                expectAsOneDevice(*sharedFloat, *gpuFloat, bigTasks, binning,
                                  name + ", every catalog shared, N = 200000, float");
            }
            std::printf("shared uploads done: %d checks, %d failures\n", stats.checks,
                        stats.failures);
        }
#endif

        if (!quick) {
            // N = 200,000: culled against brute force on the GPU (which the other suites hold
            // to the CPU), one case against the CPU as well.
            for (const char* kind : {"uniform", "mock", "poles", "ra0box"}) {
                const Catalog a = makeCatalog(kind, 200000, seed++);
                const Catalog b = makeCatalog(kind, 200003, seed++);
                for (double thetaMax : {0.1, 1.0, 10.0, 179.0})
                    runCase(stats, counters, a, b, binCases(thetaMax, false)[0],
                            std::string(kind) == "mock" && thetaMax == 10.0);
            }
            std::printf("N=200000 done: %d checks, %d failures\n", stats.checks, stats.failures);
        }
        runControlChecks(stats, *gpuFloat);
    });
}
