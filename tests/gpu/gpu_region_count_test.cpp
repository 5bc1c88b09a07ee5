// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, jackknife part: CudaPairCounter::countBatchByRegion against a brute-force double
// loop (and against tpacf::CpuPairCounter where that implements regions too). Plain executable.
// Exit 0: all passed; 1: a failure; 77: skipped (no CUDA in this build, or no device).
//
// Double must match exactly, in total, every touching[k] and every within[k]. Float may differ
// per counter by 1e-5 * count + 2, plus the pairs whose c² lies within 1e-6 of the bin's edges
// (the only pairs DESIGN.md lets the float mode bin differently; counted only when needed).
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

const char* precisionText(Precision p) {
    return p == Precision::Float ? "float" : "double";
}

/// The reference: every pair in double, ((dx*dx + dy*dy) + dz*dz) as the backends compute it,
/// binned by Binning::binOfChord2. Also counts, per bin, the pairs within 1e-6 of an edge.
struct Reference {
    RegionPairCounts counts;
    PairCounts nearEdge;
};

Reference bruteForce(const CountTask& task, const Binning& binning, std::size_t regionCount) {
    constexpr double kRelative = 1e-6;
    const std::size_t bins = binning.count();
    const auto edges = binning.chord2Edges();
    const Catalog& a = *task.first;
    const Catalog& b = task.second ? *task.second : *task.first;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<Reference> partial(threads);
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < threads; ++w) {
        Reference& mine = partial[w];
        mine.counts.total.assign(bins, 0);
        mine.counts.touching.assign(regionCount * bins, 0);
        mine.counts.within.assign(regionCount * bins, 0);
        mine.nearEdge.assign(bins, 0);
        pool.emplace_back([&, w] {
            Reference& out = partial[w];
            for (std::size_t i = w; i < a.size(); i += threads) {
                const auto ra = static_cast<std::size_t>(a.region()[i]);
                for (std::size_t j = task.isAuto() ? i + 1 : 0; j < b.size(); ++j) {
                    const double dx = a.x()[i] - b.x()[j];
                    const double dy = a.y()[i] - b.y()[j];
                    const double dz = a.z()[i] - b.z()[j];
                    const double c2 = (dx * dx + dy * dy) + dz * dz;
                    const auto it =
                        std::lower_bound(edges.begin(), edges.end(), c2 * (1 - kRelative));
                    if (it != edges.end() && *it <= c2 * (1 + kRelative)) {
                        const auto e = static_cast<std::size_t>(it - edges.begin());
                        if (e > 0)
                            ++out.nearEdge[e - 1];
                        if (e < bins)
                            ++out.nearEdge[e];
                    }
                    const int bin = binning.binOfChord2(c2);
                    if (bin < 0)
                        continue;
                    const auto k = static_cast<std::size_t>(bin);
                    const auto rb = static_cast<std::size_t>(b.region()[j]);
                    ++out.counts.total[k];
                    ++out.counts.touching[ra * bins + k];
                    if (rb == ra)
                        ++out.counts.within[ra * bins + k];
                    else
                        ++out.counts.touching[rb * bins + k];
                }
            }
        });
    }
    for (std::thread& t : pool)
        t.join();
    Reference sum = partial[0];
    sum.counts.regionCount = regionCount;
    sum.counts.binCount = bins;
    for (unsigned w = 1; w < threads; ++w) {
        auto add = [](std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& from) {
            for (std::size_t i = 0; i < into.size(); ++i)
                into[i] += from[i];
        };
        add(sum.counts.total, partial[w].counts.total);
        add(sum.counts.touching, partial[w].counts.touching);
        add(sum.counts.within, partial[w].counts.within);
        add(sum.nearEdge, partial[w].nearEdge);
    }
    return sum;
}

/// One counter array (total, touching or within) against the reference; prints mismatches.
bool compareRows(const char* what, const char* row, Precision precision,
                 const std::vector<std::uint64_t>& gpu, const std::vector<std::uint64_t>& ref,
                 const PairCounts& nearEdge, std::size_t bins, std::size_t task, int& printed) {
    if (gpu.size() != ref.size()) {
        std::printf("FAIL %s [%s] task %zu %s: %zu counters, expected %zu\n", what,
                    precisionText(precision), task, row, gpu.size(), ref.size());
        return false;
    }
    bool ok = true;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double diff = std::abs(static_cast<double>(gpu[i]) - static_cast<double>(ref[i]));
        const double tolerance = precision == Precision::Double
                                     ? 0.0
                                     : 1e-5 * static_cast<double>(ref[i]) + 2.0 +
                                           static_cast<double>(nearEdge[i % bins]);
        if (diff > tolerance) {
            ok = false;
            if (printed++ < 8)
                std::printf("FAIL %s [%s] task %zu %s[%zu] bin %zu: gpu %" PRIu64 " ref %" PRIu64
                            " (tolerance %.1f)\n",
                            what, precisionText(precision), task, row, i / bins, i % bins, gpu[i],
                            ref[i], tolerance);
        }
    }
    return ok;
}

bool compare(const char* what, Precision precision, const std::vector<RegionPairCounts>& gpu,
             const std::vector<Reference>& ref) {
    if (gpu.size() != ref.size()) {
        std::printf("FAIL %s [%s]: %zu results for %zu tasks\n", what, precisionText(precision),
                    gpu.size(), ref.size());
        return false;
    }
    bool ok = true;
    int printed = 0;
    for (std::size_t t = 0; t < ref.size(); ++t) {
        const RegionPairCounts& g = gpu[t];
        const RegionPairCounts& r = ref[t].counts;
        if (g.regionCount != r.regionCount || g.binCount != r.binCount) {
            std::printf("FAIL %s [%s] task %zu: shape %zu x %zu, expected %zu x %zu\n", what,
                        precisionText(precision), t, g.regionCount, g.binCount, r.regionCount,
                        r.binCount);
            ok = false;
            continue;
        }
        const std::size_t bins = r.binCount;
        ok &= compareRows(what, "total", precision, g.total, r.total, ref[t].nearEdge, bins, t,
                          printed);
        ok &= compareRows(what, "touching", precision, g.touching, r.touching, ref[t].nearEdge,
                          bins, t, printed);
        ok &= compareRows(what, "within", precision, g.within, r.within, ref[t].nearEdge, bins, t,
                          printed);
    }
    return ok;
}

struct Setup {
    std::vector<Catalog> catalogs; // [0] data, then randoms
    std::vector<CountTask> tasks;  // DD, DR_i, RR_i
};

/// Data (clustered) and `sets` randoms (of slightly different, odd sizes), with regions drawn at
/// random or spatially coherent (nearest of K centres drawn from the data).
Setup makeSetup(std::size_t n, int sets, int regions, bool coherent, std::uint64_t seed) {
    Setup setup;
    setup.catalogs.reserve(1 + sets);
    const Catalog data = gputest::clusteredCatalog(n, seed, "data");
    auto assign = [&](const Catalog& catalog, std::uint64_t s) {
        return gputest::withRegions(
            catalog, coherent ? gputest::coherentRegions(catalog, data, regions, seed)
                              : gputest::randomRegions(catalog.size(), regions, s));
    };
    setup.catalogs.push_back(assign(data, seed * 7 + 1));
    for (int i = 0; i < sets; ++i) {
        const std::size_t m = n + static_cast<std::size_t>(i % 3) * 2 + 1;
        const Catalog random = i % 2 == 0 ? gputest::uniformCatalog(m, seed * 100 + i, "random")
                                          : gputest::clusteredCatalog(m, seed * 100 + i, "random");
        setup.catalogs.push_back(assign(random, seed * 7 + 2 + i));
    }
    setup.tasks.push_back(CountTask{&setup.catalogs[0], nullptr});
    for (int i = 0; i < sets; ++i)
        setup.tasks.push_back(CountTask{&setup.catalogs[0], &setup.catalogs[1 + i]});
    for (int i = 0; i < sets; ++i)
        setup.tasks.push_back(CountTask{&setup.catalogs[1 + i], nullptr});
    return setup;
}

void runCase(Stats& stats, CpuPairCounter& cpu, PairCounter& gpuDouble, PairCounter& gpuFloat,
             std::size_t n, int sets, int regions, bool coherent, const BinSpec& spec,
             std::uint64_t seed) {
    const Binning binning(spec);
    const Setup setup = makeSetup(n, sets, regions, coherent, seed);
    char what[256];
    std::snprintf(what, sizeof what, "regions N=%zu sets=%d K=%d %s bins='%s' seed=%" PRIu64, n,
                  sets, regions, coherent ? "coherent" : "random", spec.describe().c_str(), seed);
    std::vector<Reference> ref;
    for (const CountTask& task : setup.tasks)
        ref.push_back(bruteForce(task, binning, static_cast<std::size_t>(regions)));

    // The brute-force reference itself against the CPU backend: its plain totals, and its
    // region counts where it has them (the GPU's double counts must equal both).
    ++stats.checks;
    const auto cpuTotals = cpu.countBatch(setup.tasks, binning);
    for (std::size_t t = 0; t < ref.size(); ++t) {
        if (cpuTotals[t].raw != ref[t].counts.total) {
            std::printf("FAIL %s task %zu: brute-force totals disagree with CpuPairCounter::"
                        "countBatch\n",
                        what, t);
            ++stats.failures;
            break;
        }
    }
    if (cpu.supportsRegions()) {
        ++stats.checks;
        const auto cpuRegions =
            cpu.countBatchByRegion(setup.tasks, binning, static_cast<std::size_t>(regions));
        int printed = 0;
        bool ok = cpuRegions.size() == ref.size();
        for (std::size_t t = 0; ok && t < ref.size(); ++t) {
            const std::size_t bins = binning.count();
            ok &= compareRows(what, "cpu total", Precision::Double, cpuRegions[t].total,
                              ref[t].counts.total, ref[t].nearEdge, bins, t, printed);
            ok &= compareRows(what, "cpu touching", Precision::Double, cpuRegions[t].touching,
                              ref[t].counts.touching, ref[t].nearEdge, bins, t, printed);
            ok &= compareRows(what, "cpu within", Precision::Double, cpuRegions[t].within,
                              ref[t].counts.within, ref[t].nearEdge, bins, t, printed);
        }
        if (!ok) {
            std::printf("FAIL %s: CpuPairCounter::countBatchByRegion (\"cpu\" rows, [double]) "
                        "disagrees with the brute-force contract\n",
                        what);
            ++stats.failures;
        }
    }

    for (PairCounter* gpu : {&gpuDouble, &gpuFloat}) {
        ++stats.checks;
        try {
            const auto result =
                gpu->countBatchByRegion(setup.tasks, binning, static_cast<std::size_t>(regions));
            if (!compare(what, gpu->precision(), result, ref))
                ++stats.failures;
        } catch (const std::exception& e) {
            std::printf("FAIL %s [%s]: threw: %s\n", what, precisionText(gpu->precision()),
                        e.what());
            ++stats.failures;
        }
    }
}

void runControlChecks(Stats& stats, PairCounter& gpu) {
    const Binning binning(BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30));
    const Catalog plain = gputest::uniformCatalog(100000, 77, "a");
    const Catalog a = gputest::withRegions(plain, gputest::randomRegions(plain.size(), 32, 78));
    const std::vector<CountTask> tasks{{&a, nullptr}};

    expect(stats, gpu.supportsRegions(), "the CUDA backend supports regions");
    int calls = 0;
    std::uint64_t lastDone = 0;
    CountControl control;
    control.onProgress = [&](const CountProgress& p) {
        ++calls;
        lastDone = p.pairsDone;
    };
    const auto counts = gpu.countBatchByRegion(tasks, binning, 32, control);
    expect(stats, calls >= 1 && lastDone == tasks[0].pairTotal(),
           "region batch: progress ends at pairsDone == pairsTotal");
    // Inverse jackknife identities: Σ_k touching[k] = 2·total − Σ_k within[k].
    bool identity = counts.size() == 1;
    for (std::size_t bin = 0; identity && bin < binning.count(); ++bin) {
        std::uint64_t touching = 0, within = 0;
        for (std::size_t k = 0; k < 32; ++k) {
            touching += counts[0].touching[k * binning.count() + bin];
            within += counts[0].within[k * binning.count() + bin];
        }
        identity = touching + within == 2 * counts[0].total[bin];
    }
    expect(stats, identity, "region batch: sum of touching + within = 2 * total in every bin");

    expect(stats, gputest::cancelledBySetToken([&](const CountControl& control) {
               gpu.countBatchByRegion(tasks, binning, 32, control);
           }),
           "region batch: a set cancel token gives tpacf::Cancelled");

    bool threw = false;
    try {
        gpu.countBatchByRegion(tasks, binning, 16); // regions up to 31 present
    } catch (const ConfigError&) {
        threw = true;
    }
    expect(stats, threw, "region batch: a region outside [0, K) gives ConfigError");
}

} // namespace

int main(int argc, char** argv) {
    return gputest::runCounterSuite(argc, argv, [&](Stats& stats, gputest::CounterFixture& fixture) {
        [[maybe_unused]] const bool quick = fixture.quick;
        [[maybe_unused]] auto& gpuDouble = fixture.gpuDouble;
        [[maybe_unused]] auto& gpuFloat = fixture.gpuFloat;
        [[maybe_unused]] CpuPairCounter& cpu = fixture.cpu;
        std::printf("CpuPairCounter regions: %s\n",
                    cpu.supportsRegions() ? "yes (also compared)" : "no (brute force only)");
        const BinSpec full = BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30);
        const BinSpec small = BinSpec::logCount(0.01, 60, AngleUnit::Arcminute, 30);
        const BinSpec linear = BinSpec::linearCount(0, 180, AngleUnit::Degree, 30);

        std::uint64_t seed = 1;
        for (int regions : {2, 7, 32, 500}) {
            for (bool coherent : {false, true}) {
                for (std::size_t n :
                     {std::size_t{1}, std::size_t{33}, std::size_t{1001}, std::size_t{4097}}) {
                    runCase(stats, cpu, *gpuDouble, *gpuFloat, n, n > 1000 ? 2 : 1, regions,
                            coherent, full, seed++);
                }
                runCase(stats, cpu, *gpuDouble, *gpuFloat, 4097, 1, regions, coherent, small,
                        seed++);
            }
            std::printf("K=%d done: %d checks, %d failures\n", regions, stats.checks,
                        stats.failures);
            std::fflush(stdout);
        }
        runCase(stats, cpu, *gpuDouble, *gpuFloat, 20001, 1, 32, true, full, seed++);
        runCase(stats, cpu, *gpuDouble, *gpuFloat, 20001, 1, 7, false, linear, seed++);

        // Every histogram path and brute force, with regions.
        for (const char* mode : {"warp", "global"}) {
            const auto tuned = gputest::tunedCounters(gputest::histogramTuning(mode));
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 4097, 1, 7, true, full, seed++);
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 4097, 1, 500, false, small, seed++);
        }
        {
            const auto brute = gputest::tunedCounters(gputest::bruteForceTuning());
            runCase(stats, cpu, *brute.doubles, *brute.floats, 4097, 2, 32, true, full, seed++);
        }
        // Both ends of the region layout's coarse cells (0: grouped by region alone).
        for (int level : {0, 3}) {
            cuda::CudaTuning tuning;
            tuning.regionCellLevel = level;
            const auto tuned = gputest::tunedCounters(tuning);
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 20001, 1, 32, true, full, seed++);
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 4097, 2, 500, false, full, seed++);
        }
        // Every tile pair of one or two edges projected (reach 16): region tiles, small or large.
        for (int block : {0, 64}) {
            cuda::CudaTuning tuning;
            tuning.projectionReach = 16;
            tuning.blockSizeCap = block;
            const auto tuned = gputest::tunedCounters(tuning);
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 20001, 1, 32, true, full, seed++);
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 4097, 2, 7, false, full, seed++);
        }
        // K-d groups in the region layout (runs of 8192 points inside each region's stretch of
        // the sorted order; the planner leaves regions on the curve, `--cuda-tile-order kd`
        // takes them): to 1° and over the full range.
        {
            cuda::CudaTuning tuning;
            tuning.tileOrder = cuda::CudaTileOrder::Kd;
            const auto tuned = gputest::tunedCounters(tuning);
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 30001, 1, 2, true, small, seed++);
            runCase(stats, cpu, *tuned.doubles, *tuned.floats, 30001, 1, 3, false, full, seed++);
        }
        std::printf("hist modes and brute force done: %d checks, %d failures\n", stats.checks,
                    stats.failures);

        if (!quick) {
            runCase(stats, cpu, *gpuDouble, *gpuFloat, 100001, 1, 32, true, full, seed++);
            std::printf("N=100001 done: %d checks, %d failures\n", stats.checks, stats.failures);
        }
        runControlChecks(stats, *gpuFloat);
    });
}
