// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, work shares (core/pair_counter.h: WorkShare, CountControl::share): the n shares of a
// batch, each counted on its own, add up bin by bin to the whole batch exactly, and (double) to
// the CPU reference's counts. Plain executable. Exit 0: all passed; 1: a failure; 77: skipped.
//
// Cases: seeded catalogs of odd sizes, auto and cross tasks of several sets in one batch,
// culling on and off, plain and region (jackknife) counts, float and double, n = 1, 2, 3, 7 and
// n far beyond the number of work units (most shares empty), one device and (internal
// constructor) device 0 listed twice, so that two device threads share a part's cursor. Also the
// share's progress (totals of the share; the shares' totals add up to the batch's) and the
// ConfigError of an invalid share.
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"
#include "tpacf/mock.h"
#ifdef TPACF_GPU_TEST_INTERNALS
#include "cuda_pair_counter.h" // kernels/src: a counter over a device list given as is
#endif

#include <cinttypes>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

/// More shares than the small batch has work units (a few tiles per catalog: at most a few
/// dozen units), so that most shares are empty.
constexpr std::uint32_t kManyParts = 64;

/// Every count of a batch flattened (plain: the bins of every task; regions: total, touching
/// and within of every task), so one comparison serves both paths.
using Flat = std::vector<std::uint64_t>;

struct ShareRun {
    Flat counts;
    std::uint64_t progressTotal = 0; ///< pairsTotal of the last report (0: none)
    bool progressEnded = true;       ///< the last report has pairsDone == pairsTotal
    bool progressMonotone = true;
};

/// One countBatch / countBatchByRegion with `share` (regions 0: plain).
ShareRun countShare(PairCounter& counter, const std::vector<CountTask>& tasks,
                    const Binning& binning, std::size_t regions, WorkShare share) {
    ShareRun run;
    std::uint64_t lastDone = 0;
    bool reported = false;
    CountControl control;
    control.share = share;
    control.onProgress = [&](const CountProgress& p) {
        run.progressMonotone = run.progressMonotone && p.pairsDone >= lastDone &&
                               p.pairsDone <= p.pairsTotal &&
                               (!reported || p.pairsTotal == run.progressTotal);
        lastDone = p.pairsDone;
        run.progressTotal = p.pairsTotal;
        run.progressEnded = p.pairsDone == p.pairsTotal;
        reported = true;
    };
    if (regions == 0) {
        for (const TaskCounts& counts : counter.countBatch(tasks, binning, control))
            run.counts.insert(run.counts.end(), counts.raw.begin(), counts.raw.end());
    } else {
        for (const RegionPairCounts& r :
             counter.countBatchByRegion(tasks, binning, regions, control)) {
            run.counts.insert(run.counts.end(), r.total.begin(), r.total.end());
            run.counts.insert(run.counts.end(), r.touching.begin(), r.touching.end());
            run.counts.insert(run.counts.end(), r.within.begin(), r.within.end());
        }
    }
    return run;
}

bool sameFlat(const std::string& what, const Flat& got, const Flat& want) {
    if (got.size() != want.size()) {
        std::printf("FAIL %s: %zu counters, expected %zu\n", what.c_str(), got.size(), want.size());
        return false;
    }
    int printed = 0;
    for (std::size_t k = 0; k < want.size(); ++k)
        if (got[k] != want[k] && printed++ < 6)
            std::printf("FAIL %s counter %zu: %" PRIu64 " expected %" PRIu64 "\n", what.c_str(), k,
                        got[k], want[k]);
    return printed == 0;
}

/// The batch counted whole and in n shares; the shares summed must equal the whole (and the
/// CPU's counts where `reference` is given); each share's progress ends at its own total and
/// the totals add up to the batch's.
void runShares(Stats& stats, PairCounter& gpu, const Flat* reference, CullingMode mode,
               const std::vector<CountTask>& tasks, const Binning& binning, std::size_t regions,
               const std::vector<std::uint32_t>& partCounts, const std::string& label) {
    std::uint64_t batchTotal = 0;
    for (const CountTask& task : tasks)
        batchTotal += task.pairTotal();
    try {
        gpu.setCulling(mode);
        const ShareRun whole = countShare(gpu, tasks, binning, regions, WorkShare{});
        if (reference)
            expect(stats, sameFlat(label + " [whole vs CPU]", whole.counts, *reference),
                   label + ": whole batch == CPU");
        expect(stats, whole.progressTotal == batchTotal && whole.progressEnded,
               label + ": whole batch progress ends at the batch's pair total");
        for (std::uint32_t parts : partCounts) {
            Flat sum(whole.counts.size(), 0);
            std::uint64_t totals = 0;
            bool progressOk = true;
            std::uint32_t emptyShares = 0;
            for (std::uint32_t part = 0; part < parts; ++part) {
                const ShareRun run = countShare(gpu, tasks, binning, regions, {part, parts});
                if (run.counts.size() != sum.size()) {
                    sum.clear();
                    break;
                }
                bool empty = true;
                for (std::size_t k = 0; k < sum.size(); ++k) {
                    sum[k] += run.counts[k];
                    empty = empty && run.counts[k] == 0;
                }
                emptyShares += empty ? 1 : 0;
                totals += run.progressTotal;
                progressOk = progressOk && run.progressEnded && run.progressMonotone;
            }
            const std::string what = label + ", " + std::to_string(parts) + " shares";
            expect(stats, sameFlat(what + " [sum vs whole]", sum, whole.counts),
                   what + ": the shares add up to the whole batch");
            if (reference)
                expect(stats, sameFlat(what + " [sum vs CPU]", sum, *reference),
                       what + ": the shares add up to the CPU's counts");
            expect(stats, progressOk, what + ": every share's progress is monotone and ends");
            expect(stats, totals == batchTotal,
                   what + ": the shares' progress totals add up to the batch's (" +
                       std::to_string(totals) + " of " + std::to_string(batchTotal) + ")");
            if (parts >= kManyParts)
                expect(stats, emptyShares > 0,
                       what + ": more shares than work units leaves some empty");
        }
    } catch (const std::exception& e) {
        expect(stats, false, label + ": threw: " + e.what());
    }
    gpu.setCulling(CullingMode::Auto);
}

struct Catalogs {
    Catalog a, b, c;
};

Catalogs makeCatalogs(std::size_t n, std::uint64_t seed) {
    MockParams mock;
    mock.count = n / 2 + 1;
    mock.seed = seed + 2;
    return {gputest::clusteredCatalog(n, seed, "clumps"),
            gputest::uniformCatalog(n - n / 3, seed + 1, "uniform"),
            generateClusteredMock(mock, "mock")};
}

/// DD + two DR + two RR: several sets in one batch, auto and cross.
std::vector<CountTask> batchOf(const Catalogs& c) {
    return {{&c.a, nullptr}, {&c.a, &c.b}, {&c.a, &c.c}, {&c.b, nullptr}, {&c.c, nullptr}};
}

Flat cpuCounts(CpuPairCounter& cpu, const std::vector<CountTask>& tasks, const Binning& binning,
               std::size_t regions) {
    cpu.setCulling(CullingMode::Off);
    return countShare(cpu, tasks, binning, regions, WorkShare{}).counts;
}

void invalidShares(Stats& stats, PairCounter& gpu, const Catalogs& plain, const Catalogs& zoned,
                   const Binning& binning) {
    const auto tasks = batchOf(plain);
    const auto zonedTasks = batchOf(zoned);
    for (const WorkShare share : {WorkShare{2, 2}, WorkShare{0, 0}, WorkShare{7, 3}}) {
        const std::string what =
            "share " + std::to_string(share.part) + " of " + std::to_string(share.parts);
        CountControl control;
        control.share = share;
        bool threw = false;
        try {
            gpu.countBatch(tasks, binning, control);
        } catch (const ConfigError&) {
            threw = true;
        }
        expect(stats, threw, what + ": countBatch throws ConfigError");
        threw = false;
        try {
            gpu.countBatchByRegion(zonedTasks, binning, 7, control);
        } catch (const ConfigError&) {
            threw = true;
        }
        expect(stats, threw, what + ": countBatchByRegion throws ConfigError");
    }
}

} // namespace

int main(int argc, char** argv) {
    return gputest::runCounterSuite(argc, argv, [&](Stats& stats, gputest::CounterFixture& fixture) {
        [[maybe_unused]] const bool quick = fixture.quick;
        [[maybe_unused]] auto& gpuDouble = fixture.gpuDouble;
        [[maybe_unused]] auto& gpuFloat = fixture.gpuFloat;
        [[maybe_unused]] CpuPairCounter& cpu = fixture.cpu;

        // Odd sizes; regions: 7 coherent ones (nearest of 7 centres), as the jackknife makes.
        const Catalogs plain = makeCatalogs(quick ? 3001 : 6001, 11);
        const Catalogs zoned{
            gputest::withRegions(plain.a, gputest::coherentRegions(plain.a, plain.a, 7, 21)),
            gputest::withRegions(plain.b, gputest::coherentRegions(plain.b, plain.a, 7, 21)),
            gputest::withRegions(plain.c, gputest::coherentRegions(plain.c, plain.a, 7, 21))};
        const std::vector<std::uint32_t> parts{1, 2, 3, 7};
        // 10°: culling lists part of the tile pairs (and tasks lose units); 179°: nearly all.
        std::vector<double> thetas{10.0};
        if (!quick)
            thetas.push_back(179.0);

        for (double thetaMax : thetas) {
            const Binning binning(BinSpec::logCount(0.01, thetaMax * 60, AngleUnit::Arcminute, 20));
            for (std::size_t regions : {std::size_t{0}, std::size_t{7}}) {
                const Catalogs& cats = regions > 0 ? zoned : plain;
                const auto tasks = batchOf(cats);
                const Flat reference = cpuCounts(cpu, tasks, binning, regions);
                for (CullingMode mode : {CullingMode::On, CullingMode::Off}) {
                    for (PairCounter* gpu : {gpuDouble.get(), gpuFloat.get()}) {
                        const bool isDouble = gpu == gpuDouble.get();
                        const std::string label =
                            std::string(isDouble ? "double" : "float") + ", culling " +
                            std::string(cullingModeName(mode)) +
                            (regions > 0 ? ", regions K=7" : ", plain") + ", theta_max " +
                            std::to_string(thetaMax) + " deg";
                        runShares(stats, *gpu, isDouble ? &reference : nullptr, mode, tasks,
                                  binning, regions, parts, label);
                    }
                }
            }
            std::printf("theta_max %.0f deg done: %d checks, %d failures\n", thetaMax, stats.checks,
                        stats.failures);
            std::fflush(stdout);
        }

        // n far beyond the work units: a small batch (one to three tiles per catalog) in
        // kManyParts shares, most of them empty.
        {
            const Catalogs small = makeCatalogs(601, 41);
            const Catalogs smallZoned{
                gputest::withRegions(small.a, gputest::coherentRegions(small.a, small.a, 7, 42)),
                gputest::withRegions(small.b, gputest::coherentRegions(small.b, small.a, 7, 42)),
                gputest::withRegions(small.c, gputest::coherentRegions(small.c, small.a, 7, 42))};
            const Binning binning(BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 20));
            for (std::size_t regions : {std::size_t{0}, std::size_t{7}}) {
                const auto tasks = batchOf(regions > 0 ? smallZoned : small);
                const Flat reference = cpuCounts(cpu, tasks, binning, regions);
                for (CullingMode mode : {CullingMode::On, CullingMode::Off})
                    for (PairCounter* gpu : {gpuDouble.get(), gpuFloat.get()}) {
                        const bool isDouble = gpu == gpuDouble.get();
                        runShares(stats, *gpu, isDouble ? &reference : nullptr, mode, tasks,
                                  binning, regions, {kManyParts},
                                  std::string("small batch, ") + (isDouble ? "double" : "float") +
                                      ", culling " + std::string(cullingModeName(mode)) +
                                      (regions > 0 ? ", regions K=7" : ", plain"));
                    }
            }
            std::printf("many shares done: %d checks, %d failures\n", stats.checks, stats.failures);
        }

        // A task culled away whole (two caps 90° apart at 1°) has no unit: its progress total is
        // part 0's; the counts still add up.
        {
            const Catalog north = generateUniformRandoms(3001, Footprint::cap(150, 30, 0.5), 31);
            const Catalog far = generateUniformRandoms(2001, Footprint::cap(60, -60, 0.5), 32);
            const std::vector<CountTask> tasks{{&north, nullptr}, {&north, &far}, {&far, nullptr}};
            const Binning binning(BinSpec::logCount(0.01, 60, AngleUnit::Arcminute, 20));
            const Flat reference = cpuCounts(cpu, tasks, binning, 0);
            runShares(stats, *gpuDouble, &reference, CullingMode::On, tasks, binning, 0,
                      {1, 2, 3, 7}, "double, a cross task culled away whole");
        }

#ifdef TPACF_GPU_TEST_INTERNALS
        // Device 0 listed twice: two device threads share each part's cursor.
        {
            auto twiceDouble =
                cuda::detail::makeCudaPairCounter(Precision::Double, {0, 0}, "GPU 0 twice");
            auto twiceFloat =
                cuda::detail::makeCudaPairCounter(Precision::Float, {0, 0}, "GPU 0 twice");
            const Binning binning(BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 20));
            for (std::size_t regions : {std::size_t{0}, std::size_t{7}}) {
                const Catalogs& cats = regions > 0 ? zoned : plain;
                const auto tasks = batchOf(cats);
                const Flat reference = cpuCounts(cpu, tasks, binning, regions);
                for (CullingMode mode : {CullingMode::On, CullingMode::Off}) {
                    const std::string suffix = std::string(", culling ") +
                                               std::string(cullingModeName(mode)) +
                                               (regions > 0 ? ", regions K=7" : ", plain");
                    runShares(stats, *twiceDouble, &reference, mode, tasks, binning, regions,
                              {2, 3, 7}, "GPU 0 twice, double" + suffix);
                    runShares(stats, *twiceFloat, nullptr, mode, tasks, binning, regions, {2, 7},
                              "GPU 0 twice, float" + suffix);
                }
            }
            std::printf("two device threads done: %d checks, %d failures\n", stats.checks,
                        stats.failures);
        }
#endif
        invalidShares(stats, *gpuFloat, plain, zoned,
                      Binning(BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 20)));
    });
}
