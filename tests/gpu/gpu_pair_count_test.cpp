// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite: the CUDA backend against the CPU reference (tpacf::CpuPairCounter).
// Plain executable (the GPU machines have no Qt). Exit 0: all passed; 1: a failure;
// 77: skipped (no CUDA in this build, or no usable device), reported by CTest as skipped.
//
// Double precision must match the reference exactly. Float may differ per bin by at most
// 1e-5 * count + 2 (DESIGN.md). Float cases with 1000 linear bins over 0–180° stay at N <= 1000:
// near θ = 180° those bins are ~40 float ulps of c² wide, so at large N any float c² moves
// more pairs across an edge than "+2" allows (a property of float c², not of the kernel).
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

struct BinCase {
    std::string label;
    BinSpec spec;
};

std::vector<BinCase> binCases() {
    return {
        {"log30 0.01'-180deg", BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30)},
        {"log30 0.01'-10000'", BinSpec::logCount(0.01, 10000, AngleUnit::Arcminute, 30)},
        {"log30 tiny 0.01'-1'", BinSpec::logCount(0.01, 1, AngleUnit::Arcminute, 30)},
        {"lin1 tiny 0.2'-0.9'", BinSpec::linearCount(0.2, 0.9, AngleUnit::Arcminute, 1)},
        {"lin30 medium 0-2deg", BinSpec::linearCount(0, 2, AngleUnit::Degree, 30)},
        // One threshold a cell at most, but too many cells to pack (LookupKind::Step).
        {"lin100 0-10deg", BinSpec::linearCount(0, 10, AngleUnit::Degree, 100)},
        {"log1 medium 1'-60'", BinSpec::logCount(1, 60, AngleUnit::Arcminute, 1)},
        {"lin1 full 0-180deg", BinSpec::linearCount(0, 180, AngleUnit::Degree, 1)},
        {"lin30 full 0-180deg", BinSpec::linearCount(0, 180, AngleUnit::Degree, 30)},
        {"log1000 0.01'-180deg", BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 1000)},
        {"lin1000 full 0-180deg", BinSpec::linearCount(0, 180, AngleUnit::Degree, 1000)},
    };
}

const char* precisionText(Precision p) {
    return p == Precision::Float ? "float" : "double";
}

/// Pairs of `task` whose c² (in double, the reference's arithmetic) lies within a relative 1e-6
/// of either edge of each bin: the only pairs DESIGN.md lets the float mode bin differently.
/// Needed where pairs are strongly correlated (tight clumps, duplicates), so that many of them
/// share nearly one c² and "1e-5 * count + 2" does not cover one unlucky edge.
PairCounts nearEdgePairs(const CountTask& task, const Binning& binning) {
    constexpr double kRelative = 1e-6;
    const auto edges = binning.chord2Edges();
    const Catalog& a = *task.first;
    const Catalog& b = task.second ? *task.second : *task.first;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<PairCounts> partial(threads, PairCounts(binning.count(), 0));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < threads; ++w) {
        pool.emplace_back([&, w] {
            for (std::size_t i = w; i < a.size(); i += threads) {
                for (std::size_t j = task.isAuto() ? i + 1 : 0; j < b.size(); ++j) {
                    const double dx = a.x()[i] - b.x()[j], dy = a.y()[i] - b.y()[j],
                                 dz = a.z()[i] - b.z()[j];
                    const double c2 = dx * dx + dy * dy + dz * dz;
                    const auto it =
                        std::lower_bound(edges.begin(), edges.end(), c2 * (1 - kRelative));
                    if (it == edges.end() || *it > c2 * (1 + kRelative))
                        continue;
                    const std::size_t e = static_cast<std::size_t>(it - edges.begin());
                    if (e > 0)
                        ++partial[w][e - 1];
                    if (e < binning.count())
                        ++partial[w][e];
                }
            }
        });
    }
    for (std::thread& t : pool)
        t.join();
    PairCounts near(binning.count(), 0);
    for (const PairCounts& p : partial)
        for (std::size_t k = 0; k < near.size(); ++k)
            near[k] += p[k];
    return near;
}

/// Compares one GPU batch with the reference; prints the parameters of every mismatch.
bool compare(const std::string& what, Precision precision, const std::vector<PairCounts>& gpu,
             const std::vector<PairCounts>& ref, const std::vector<CountTask>& tasks,
             const Binning& binning) {
    bool ok = gpu.size() == ref.size();
    int printed = 0;
    if (!ok)
        std::printf("FAIL %s [%s]: %zu results for %zu tasks\n", what.c_str(),
                    precisionText(precision), gpu.size(), ref.size());
    for (std::size_t t = 0; ok && t < ref.size(); ++t) {
        if (gpu[t].size() != ref[t].size()) {
            std::printf("FAIL %s [%s] task %zu: %zu bins, expected %zu\n", what.c_str(),
                        precisionText(precision), t, gpu[t].size(), ref[t].size());
            ok = false;
            break;
        }
        std::optional<PairCounts> near; // computed only where the plain tolerance is exceeded
        for (std::size_t k = 0; k < ref[t].size(); ++k) {
            const double diff =
                std::abs(static_cast<double>(gpu[t][k]) - static_cast<double>(ref[t][k]));
            double tolerance =
                precision == Precision::Double ? 0.0 : 1e-5 * static_cast<double>(ref[t][k]) + 2.0;
            if (diff > tolerance && precision == Precision::Float) {
                if (!near)
                    near = nearEdgePairs(tasks[t], binning);
                std::printf("note %s [float] task %zu bin %zu: |gpu - cpu| = %.0f > 1e-5 * count + "
                            "2; %" PRIu64 " pairs lie within 1e-6 of its edges\n",
                            what.c_str(), t, k, diff, (*near)[k]);
                tolerance += static_cast<double>((*near)[k]);
            }
            if (diff > tolerance) {
                ok = false;
                if (printed++ < 8)
                    std::printf("FAIL %s [%s] task %zu (%s, |A|=%zu, |B|=%zu) bin %zu: gpu %" PRIu64
                                " cpu %" PRIu64 " (tolerance %.1f)\n",
                                what.c_str(), precisionText(precision), t,
                                tasks[t].isAuto() ? "auto" : "cross", tasks[t].first->size(),
                                tasks[t].second ? tasks[t].second->size() : 0, k, gpu[t][k],
                                ref[t][k], tolerance);
            }
        }
    }
    return ok;
}

std::vector<PairCounts> poisoned(std::size_t tasks, std::size_t bins) {
    return std::vector<PairCounts>(tasks, PairCounts(bins, 0xDEADBEEFDEADBEEFull));
}

struct Setup {
    std::vector<Catalog> catalogs; // [0] data, then randoms
    std::vector<CountTask> tasks;
};

/// DD, then DR_i and RR_i for each random set (the batch a correlation job runs).
Setup makeSetup(std::size_t n, int sets, std::uint64_t seed) {
    Setup setup;
    setup.catalogs.reserve(1 + sets);
    setup.catalogs.push_back(gputest::clusteredCatalog(n, seed, "data"));
    for (int i = 0; i < sets; ++i) {
        // Randoms of a slightly different size, so cross tiles are ragged on both sides.
        const std::size_t m = n > 2 ? n + static_cast<std::size_t>(i % 3) : n;
        setup.catalogs.push_back(i % 2 == 0
                                     ? gputest::uniformCatalog(m, seed * 100 + i, "random")
                                     : gputest::clusteredCatalog(m, seed * 100 + i, "random"));
    }
    setup.tasks.push_back(CountTask{&setup.catalogs[0], nullptr});
    for (int i = 0; i < sets; ++i)
        setup.tasks.push_back(CountTask{&setup.catalogs[0], &setup.catalogs[1 + i]});
    for (int i = 0; i < sets; ++i)
        setup.tasks.push_back(CountTask{&setup.catalogs[1 + i], nullptr});
    return setup;
}

void runCase(Stats& stats, CpuPairCounter& cpu, PairCounter& gpuDouble, PairCounter& gpuFloat,
             std::size_t n, int sets, const BinCase& binCase, bool floatToo, std::uint64_t seed) {
    const Binning binning(binCase.spec);
    const Setup setup = makeSetup(n, sets, seed);
    const auto ref = gputest::rawCounts(cpu.countBatch(setup.tasks, binning));
    char what[256];
    std::snprintf(what, sizeof what, "N=%zu sets=%d bins='%s' (%s) seed=%" PRIu64, n, sets,
                  binCase.label.c_str(), binCase.spec.describe().c_str(), seed);
    for (PairCounter* gpu : {&gpuDouble, &gpuFloat}) {
        if (gpu == &gpuFloat && !floatToo)
            continue;
        ++stats.checks;
        auto result = poisoned(setup.tasks.size(), binning.count());
        try {
            result = gputest::rawCounts(gpu->countBatch(setup.tasks, binning));
        } catch (const std::exception& e) {
            std::printf("FAIL %s [%s]: threw: %s\n", what, precisionText(gpu->precision()),
                        e.what());
            ++stats.failures;
            continue;
        }
        if (!compare(what, gpu->precision(), result, ref, setup.tasks, binning))
            ++stats.failures;
    }
}

/// Progress on the caller's thread, totals, device time, cancellation.
void runControlChecks(Stats& stats, PairCounter& gpu) {
    const Binning binning(BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30));
    const Catalog a = gputest::uniformCatalog(200000, 7, "a");
    const Catalog b = gputest::uniformCatalog(150000, 8, "b");
    const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &b}, {&b, nullptr}};
    std::uint64_t total = 0;
    for (const CountTask& task : tasks)
        total += task.pairTotal();

    int calls = 0;
    std::uint64_t lastDone = 0;
    bool perTaskOk = true;
    CountControl control;
    control.onProgress = [&](const CountProgress& p) {
        ++calls;
        lastDone = p.pairsDone;
        perTaskOk = perTaskOk && p.pairsTotal == total && p.pairsDonePerTask.size() == tasks.size();
    };
    const auto counts = gpu.countBatch(tasks, binning, control);
    std::uint64_t counted = 0;
    for (const TaskCounts& c : counts)
        for (std::uint64_t v : c.raw)
            counted += v;
    expect(stats, calls >= 1 && lastDone == total && perTaskOk,
           "progress reports end at pairsDone == pairsTotal");
    // Every pair but those closer than 0.01' (a few in 4e10 at these N).
    expect(stats, counted <= total && total - counted <= total / 1000000,
           "full-sky 0.01'-180deg bins hold (nearly) every pair");
    expect(stats, gpu.lastDeviceSeconds().has_value() && *gpu.lastDeviceSeconds() > 0,
           "lastDeviceSeconds is set");

    expect(stats, gputest::cancelledBySetToken([&](const CountControl& control) {
               gpu.countBatch(tasks, binning, control);
           }),
           "a set cancel token gives tpacf::Cancelled");
    bool threw = false;

    // Cancel mid-way from the progress callback: Cancelled comes back quickly.
    std::atomic<bool> later{false};
    CountControl midway;
    midway.cancelRequested = &later;
    midway.onProgress = [&](const CountProgress&) { later = true; };
    const Catalog big = gputest::uniformCatalog(1 << 20, 9, "big");
    const std::vector<CountTask> bigTasks{{&big, nullptr}, {&big, &a}};
    // Brute force, so that the batch runs long enough to be cancelled mid-way.
    const auto brute = cuda::makeProvider(gputest::bruteForceTuning())->create(gpu.precision(), {});
    const auto start = std::chrono::steady_clock::now();
    threw = false;
    try {
        brute->countBatch(bigTasks, binning, midway);
    } catch (const Cancelled&) {
        threw = true;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("mid-way cancel took %.3f s\n", seconds);
    expect(stats, threw && seconds < 2.0, "cancel from the progress callback stops within ~0.5 s");

    // Live counts: a batch of ~0.6 s reports partial counts on the way, each a snapshot that only
    // grows, never above the final counts, and never more counts than the pairs behind them.
    // The batch is split over every device: on a host of several, sqrt(devices) times the
    // points keep it about as long (the auto count's pairs grow with their square).
    const std::size_t deviceCount = std::max<std::size_t>(1, cuda::makeProvider()->devices().size());
    const Catalog larger = gputest::uniformCatalog(
        static_cast<std::size_t>(static_cast<double>(1 << 20) *
                                 std::sqrt(static_cast<double>(deviceCount))),
        10, "larger");
    const Catalog& liveCatalog = deviceCount > 1 ? larger : big;
    // Culled, the count grows as N^1.4 or so and is far faster than brute force: 2^21 points
    // gave one snapshot on one H200 and none on two, four times the points keep it long enough.
    const Catalog largerStill = gputest::uniformCatalog(
        static_cast<std::size_t>(static_cast<double>(1 << 22) *
                                 std::sqrt(static_cast<double>(deviceCount))),
        11, "larger still");
    // Brute force and culled (whole node pairs added in proportion to the pairs behind a
    // snapshot): the tasks advance together and each one's units go in spread order, so every
    // snapshot flagged as an even sample (partialsEvenlySpread) is one: its counts over its pairs
    // match the final counts over all pairs, bin by bin, within 5 % where the bin holds many
    // pairs (measured on one H200: 0.3-1.8 %, with two suites sharing the GPU too; blocks of
    // equal unit counts had given up to 11.6 % at 12 % of a task's pairs). A snapshot taken
    // before every stage of the list is published covers the first stages only: it is reported
    // unflagged, for the record, and no estimate is drawn from it.
    const auto liveRun = [&](PairCounter& counter, const Catalog& catalog, const char* label) {
        const std::vector<CountTask> liveTasks{{&catalog, nullptr}, {&catalog, &a}};
        std::vector<std::vector<PairCounts>> snapshots;
        std::vector<std::vector<std::uint64_t>> snapshotPairs;
        std::vector<bool> flaggedEven;
        CountControl live;
        live.onProgress = [&](const CountProgress& p) {
            if (!p.partialCounts.empty()) {
                snapshots.push_back(p.partialCounts);
                snapshotPairs.push_back(p.partialPairsPerTask);
                flaggedEven.push_back(p.partialsEvenlySpread);
            }
        };
        const auto final = counter.countBatch(liveTasks, binning, live);
        bool shaped = true, growing = true, belowFinal = true, belowPairs = true,
             someCounts = false, even = true;
        std::size_t evenSnapshots = 0;
        struct Departure {
            double off = 0, share = 0;
            std::size_t snapshot = 0, task = 0, bin = 0;
        } worst;
        for (std::size_t s = 0; s < snapshots.size(); ++s) {
            shaped = shaped && snapshots[s].size() == liveTasks.size() &&
                     snapshotPairs[s].size() == liveTasks.size();
            if (!shaped)
                break;
            evenSnapshots += flaggedEven[s] ? 1 : 0;
            for (std::size_t t = 0; t < liveTasks.size(); ++t) {
                std::uint64_t sum = 0;
                const double share = static_cast<double>(snapshotPairs[s][t]) /
                                     static_cast<double>(liveTasks[t].pairTotal());
                for (std::size_t k = 0; k < binning.count(); ++k) {
                    const std::uint64_t value = snapshots[s][t][k];
                    sum += value;
                    someCounts = someCounts || value > 0;
                    belowFinal = belowFinal && value <= final[t].raw[k];
                    if (s > 0)
                        growing = growing && value >= snapshots[s - 1][t][k];
                    // A sample of at least 10% of the pairs, in a bin of at least 10^6 pairs.
                    if (flaggedEven[s] && share >= 0.1 && final[t].raw[k] >= 1000000) {
                        const double expected = static_cast<double>(final[t].raw[k]) * share;
                        const double off = std::abs(static_cast<double>(value) - expected) / expected;
                        if (off > worst.off)
                            worst = {off, share, s, t, k};
                        even = even && off < 0.05;
                    }
                }
                belowPairs = belowPairs && sum <= snapshotPairs[s][t] &&
                             snapshotPairs[s][t] <= liveTasks[t].pairTotal();
            }
        }
        std::printf("live counts, %s: %zu snapshots during the batch, %zu flagged even samples; "
                    "largest departure of one from an even sample %.4f (snapshot %zu, task %zu, "
                    "bin %zu, %.1f %% of the task's pairs behind it)\n",
                    label, snapshots.size(), evenSnapshots, worst.off, worst.snapshot, worst.task,
                    worst.bin, 100.0 * worst.share);
        expect(stats, !snapshots.empty() && shaped && someCounts,
               std::string(label) + ": a GPU batch of ~0.6 s reports partial counts while it runs");
        expect(stats, growing, std::string(label) + ": partial counts only grow");
        expect(stats, belowFinal, std::string(label) + ": partial counts stay within the final ones");
        expect(stats, belowPairs,
               std::string(label) + ": partial counts stay within the pairs behind them");
        expect(stats, evenSnapshots > 0,
               std::string(label) + ": the batch's later snapshots are flagged even samples");
        expect(stats, even,
               std::string(label) + ": every snapshot flagged even is an even sample of its "
                                    "tasks' pairs");
    };
    liveRun(*brute, liveCatalog, "brute force");
    liveRun(gpu, largerStill, "culled");
}

} // namespace

int main(int argc, char** argv) {
    return gputest::runCounterSuite(argc, argv, [&](Stats& stats, gputest::CounterFixture& fixture) {
        [[maybe_unused]] const bool quick = fixture.quick;
        [[maybe_unused]] auto& gpuDouble = fixture.gpuDouble;
        [[maybe_unused]] auto& gpuFloat = fixture.gpuFloat;
        [[maybe_unused]] CpuPairCounter& cpu = fixture.cpu;
        const auto bins = binCases();

        const std::size_t sizes[] = {1, 2, 31, 32, 33, 1000, 4097};
        std::uint64_t seed = 1;
        for (std::size_t n : sizes) {
            for (int sets : {1, 7}) {
                for (const BinCase& binCase : bins) {
                    const bool denseLinear = binCase.label.rfind("lin1000", 0) == 0;
                    runCase(stats, cpu, *gpuDouble, *gpuFloat, n, sets, binCase,
                            !denseLinear || n <= 1000, seed++);
                }
            }
            std::printf("N=%zu done: %d checks, %d failures\n", n, stats.checks, stats.failures);
            std::fflush(stdout);
        }

        // Every histogram path on the same data (the default is thread-atomic).
        for (const char* mode : {"warp", "global"}) {
            const auto tuned = gputest::tunedCounters(gputest::histogramTuning(mode));
            for (std::size_t b : {std::size_t{0}, std::size_t{4}, std::size_t{8}})
                runCase(stats, cpu, *tuned.doubles, *tuned.floats, 4097, 3, bins[b], true,
                        1000 + b);
        }
        // Brute force (no tile classification) against the same reference.
        {
            const auto brute = gputest::tunedCounters(gputest::bruteForceTuning());
            for (std::size_t b : {std::size_t{0}, std::size_t{2}})
                runCase(stats, cpu, *brute.doubles, *brute.floats, 4097, 7, bins[b], true,
                        2000 + b);
        }
        std::printf("hist modes and brute force done: %d checks, %d failures\n", stats.checks,
                    stats.failures);

        if (!quick) {
            // A handful at N = 100000 (the reference is the slow part).
            runCase(stats, cpu, *gpuDouble, *gpuFloat, 100000, 1, bins[0], true, 3001);
            runCase(stats, cpu, *gpuDouble, *gpuFloat, 100000, 1, bins[2], true, 3002);
            runCase(stats, cpu, *gpuDouble, *gpuFloat, 100000, 1, bins[8], false, 3003);
            std::printf("N=100000 done: %d checks, %d failures\n", stats.checks, stats.failures);
        }
        runControlChecks(stats, *gpuFloat);
    });
}
