// SPDX-License-Identifier: GPL-3.0-or-later
// Throughput of the CUDA backend (BENCHMARKS.md): uniform points on the sphere, 30 log bins.
// Pairs/s = unique pairs / device-busy seconds (lastDeviceSeconds); wall = countBatch on the host.
// Usage: tpacf_gpu_bench [N] [--jackknife K]   (default 1048576)
//        tpacf_gpu_bench --culling [--quick]
//   CUDA tuning of every counter (the rows that vary a setting override it): --cuda-hist
//   thread-atomic|warp|global, --cuda-brute-force, --cuda-block N, --cuda-subtiles on|off,
//   --cuda-narrow-subtiles on|off, --cuda-banded-lookup on|off, --cuda-projection auto|on|off,
//   --cuda-projection-reach X, --cuda-tile-order auto|curve|kd, --cuda-region-level L (what
//   `tpacf bench` takes; never read from the environment).
//   --jackknife K: only the jackknife comparison: countBatch against countBatchByRegion with K
//   regions (spatially coherent: nearest of K centres, as the jackknife makes them; and random).
//   --culling: the targets of the issue "Spatial culling" (uniform full sky, 30 log bins from
//   0.01'): DD of 1,000,000 points to 10 deg, DD of 10,000,000 points to 1 deg (sort included),
//   the job DD + 10 DR_i + 10 RR_i of 1,000,000 points each to 10 deg; and culling on against off
//   at 180 deg. --quick: N / 10 everywhere (a smoke run).
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/culling.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

/// The tuning every counter starts from (command-line flags).
cuda::CudaTuning g_baseTuning;

/// A counter of `precision` over every device with the base tuning changed by `tweak`.
std::unique_ptr<PairCounter> tunedCounter(Precision precision,
                                          const std::function<void(cuda::CudaTuning&)>& tweak) {
    cuda::CudaTuning tuning = g_baseTuning;
    if (tweak)
        tweak(tuning);
    return cuda::makeProvider(tuning)->create(precision, {});
}

struct Timing {
    double deviceSeconds = 0;
    double wallSeconds = 0;
};

Timing median(PairCounter& counter, const std::vector<CountTask>& tasks, const Binning& binning,
              int repeats, std::size_t regions = 0) {
    auto count = [&] {
        if (regions > 0)
            counter.countBatchByRegion(tasks, binning, regions);
        else
            counter.countBatch(tasks, binning);
    };
    count(); // warm-up
    std::vector<Timing> runs;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        count();
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        runs.push_back({counter.lastDeviceSeconds().value_or(0), wall});
    }
    std::sort(runs.begin(), runs.end(),
              [](const Timing& a, const Timing& b) { return a.wallSeconds < b.wallSeconds; });
    return runs[runs.size() / 2];
}

/// countBatchByRegion against countBatch on the same N uniform points: the issue's target is
/// K = 32 at most 1.5x the time without jackknife at N = 2^20.
int jackknifeBench(const BackendModule& provider, std::size_t n, int regions) {
    auto gpuFloat = provider.create(Precision::Float, {});
    auto gpuDouble = provider.create(Precision::Double, {});
    const Catalog plain = gputest::uniformCatalog(n, 42, "uniform");
    const Catalog coherent =
        gputest::withRegions(plain, gputest::coherentRegions(plain, plain, regions, 43));
    const Catalog random = gputest::withRegions(plain, gputest::randomRegions(n, regions, 44));
    const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
    const Binning full(BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30));
    const Binning small(BinSpec::logCount(0.01, 60, AngleUnit::Arcminute, 30));
    const Binning ten(BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 30));
    const auto k = static_cast<std::size_t>(regions);
    std::printf("\njackknife K=%d, N=%zu, auto (DD), 30 log bins; ratio = device time / plain\n",
                regions, n);
    std::printf("%-44s %12s %10s %10s %7s\n", "case", "pairs/s", "device s", "wall s", "ratio");
    struct Row {
        const char* label;
        PairCounter* counter;
        const Catalog* catalog;
        const Binning* binning;
        std::size_t regions;
        int level = -1; // CudaTuning::regionCellLevel, else the base tuning's
    };
    const Row rows[] = {
        {"float 0.01'-180deg plain", gpuFloat.get(), &plain, &full, 0},
        // CudaTuning::regionCellLevel: coarse cells in the region layout (default 0: none).
        {"float 0.01'-180deg coherent, cells level 1", gpuFloat.get(), &coherent, &full, k, 1},
        {"float 0.01'-180deg coherent, cells level 2", gpuFloat.get(), &coherent, &full, k, 2},
        {"float 0.01'-180deg plain", gpuFloat.get(), &plain, &full, 0},
        {"float 0.01'-180deg regions coherent", gpuFloat.get(), &coherent, &full, k},
        {"float 0.01'-180deg regions random", gpuFloat.get(), &random, &full, k},
        {"double 0.01'-180deg plain", gpuDouble.get(), &plain, &full, 0},
        {"double 0.01'-180deg regions coherent", gpuDouble.get(), &coherent, &full, k},
        {"float 0.01'-1deg plain", gpuFloat.get(), &plain, &small, 0},
        {"float 0.01'-1deg regions coherent", gpuFloat.get(), &coherent, &small, k},
        {"float 0.01'-10deg plain", gpuFloat.get(), &plain, &ten, 0},
        {"float 0.01'-10deg regions coherent", gpuFloat.get(), &coherent, &ten, k},
    };
    double plainSeconds = 0;
    for (const Row& row : rows) {
        const std::vector<CountTask> tasks{{row.catalog, nullptr}};
        std::unique_ptr<PairCounter> leveled;
        if (row.level >= 0)
            leveled = tunedCounter(row.counter->precision(),
                                   [&](cuda::CudaTuning& t) { t.regionCellLevel = row.level; });
        const Timing t =
            median(leveled ? *leveled : *row.counter, tasks, *row.binning, 3, row.regions);
        if (row.regions == 0)
            plainSeconds = t.deviceSeconds;
        std::printf("%-44s %12.3e %10.4f %10.4f %7.3f\n", row.label, pairs / t.deviceSeconds,
                    t.deviceSeconds, t.wallSeconds, t.deviceSeconds / plainSeconds);
        std::fflush(stdout);
    }
    return 0;
}

/// The issue's targets. GPU time = lastDeviceSeconds (catalog upload, sort, boxes and kernels,
/// event-timed); wall = the whole countBatch on the host (staging, list building included).
int cullingBench(const BackendModule& provider, bool quick) {
    auto gpuFloat = provider.create(Precision::Float, {});
    auto gpuDouble = provider.create(Precision::Double, {});
    std::printf("device: %s; %s\n", gpuFloat->deviceDescription().c_str(),
                provider.versionDescription().c_str());
    const std::size_t scale = quick ? 10 : 1;
    const std::size_t million = 1000000 / scale;
    auto bins = [](double thetaMaxDeg) {
        return Binning(BinSpec::logCount(0.01, thetaMaxDeg * 60, AngleUnit::Arcminute, 30));
    };
    const Binning to10 = bins(10), to1 = bins(1), to180 = bins(180), tiny = bins(0.01);

    std::printf("\nspatial culling (uniform full sky, 30 log bins from 0.01'); median of 3 after "
                "1 warm-up\n%-52s %8s %12s %10s %10s\n",
                "case", "culled", "pairs/s", "GPU s", "wall s");
    auto row = [&](const char* label, PairCounter& counter, CullingMode mode,
                   const std::vector<CountTask>& tasks, const Binning& binning, int repeats,
                   const std::function<void(cuda::CudaTuning&)>& tweak = {}) {
        // A row that varies a setting gets a counter of its own with it.
        std::unique_ptr<PairCounter> tuned;
        if (tweak)
            tuned = tunedCounter(counter.precision(), tweak);
        PairCounter& used = tuned ? *tuned : counter;
        used.setCulling(mode);
        double pairs = 0;
        for (const CountTask& t : tasks)
            pairs += static_cast<double>(t.pairTotal());
        const Timing t = median(used, tasks, binning, repeats);
        std::printf("%-52s %8s %12.3e %10.4f %10.4f\n", label,
                    used.lastBatchCulled() ? "yes" : "no", pairs / t.deviceSeconds, t.deviceSeconds,
                    t.wallSeconds);
        std::fflush(stdout);
        used.setCulling(CullingMode::Auto);
    };

    {
        const Catalog data = gputest::uniformCatalog(million, 42, "uniform");
        const std::vector<CountTask> dd{{&data, nullptr}};
        // Almost no pair within 0.6': the GPU time is the preparation (upload, sort, boxes).
        row("DD 1e6 to 0.01deg float (~ preparation alone)", *gpuFloat, CullingMode::On, dd, tiny,
            3);
        row("DD 1e6 to 10deg float (target <= 0.05 s GPU)", *gpuFloat, CullingMode::On, dd, to10,
            3);
        row("DD 1e6 to 10deg float, sub-tiles off", *gpuFloat, CullingMode::On, dd, to10, 3,
            [](cuda::CudaTuning& t) { t.subTileCulling = false; });
        row("DD 1e6 to 10deg float, 512-point tiles", *gpuFloat, CullingMode::On, dd, to10, 3,
            [](cuda::CudaTuning& t) { t.blockSizeCap = 128; });
        row("DD 1e6 to 10deg float, 256-point tiles", *gpuFloat, CullingMode::On, dd, to10, 3,
            [](cuda::CudaTuning& t) { t.blockSizeCap = 64; });
        row("DD 1e6 to 10deg double", *gpuDouble, CullingMode::On, dd, to10, 3);
        row("DD 1e6 to 10deg float, culling off", *gpuFloat, CullingMode::Off, dd, to10, 1);
        row("DD 1e6 to 180deg float, culling on", *gpuFloat, CullingMode::On, dd, to180, 3);
        row("DD 1e6 to 180deg float, culling off", *gpuFloat, CullingMode::Off, dd, to180, 3);
        row("DD 1e6 to 180deg double, culling on", *gpuDouble, CullingMode::On, dd, to180, 3);
        row("DD 1e6 to 180deg double, culling off", *gpuDouble, CullingMode::Off, dd, to180, 3);
    }
    {
        // The job of the issue: DD + 10 DR_i + 10 RR_i, 1,000,000 points each.
        std::vector<Catalog> catalogs;
        catalogs.reserve(11);
        catalogs.push_back(gputest::uniformCatalog(million, 1000, "D"));
        for (int i = 0; i < 10; ++i)
            catalogs.push_back(gputest::uniformCatalog(million, 1001 + i, "R"));
        std::vector<CountTask> job{{&catalogs[0], nullptr}};
        for (int i = 1; i <= 10; ++i)
            job.push_back({&catalogs[0], &catalogs[i]});
        for (int i = 1; i <= 10; ++i)
            job.push_back({&catalogs[i], nullptr});
        row("job DD+10DR+10RR 1e6 to 10deg float (<= 0.5 s)", *gpuFloat, CullingMode::On, job, to10,
            3);
        row("job DD+10DR+10RR 1e6 to 10deg float, 512-pt tiles", *gpuFloat, CullingMode::On, job,
            to10, 3, [](cuda::CudaTuning& t) { t.blockSizeCap = 128; });
        row("job DD+10DR+10RR 1e6 to 10deg float, 256-pt tiles", *gpuFloat, CullingMode::On, job,
            to10, 3, [](cuda::CudaTuning& t) { t.blockSizeCap = 64; });
        row("job DD+10DR+10RR 1e6 to 10deg double", *gpuDouble, CullingMode::On, job, to10, 3);
        row("job DD+10DR+10RR 1e6 to 10deg double, 512-pt tiles", *gpuDouble, CullingMode::On, job,
            to10, 3, [](cuda::CudaTuning& t) { t.blockSizeCap = 128; });
    }
    {
        const std::size_t n = 10 * million;
        const Catalog data = gputest::uniformCatalog(n, 43, "uniform");
        const std::vector<CountTask> dd{{&data, nullptr}};
        // A new counter's first call (uploads from pageable memory, no staging kept): shown on
        // its own.
        auto fresh = provider.create(Precision::Float, {});
        fresh->setCulling(CullingMode::On);
        const auto start = std::chrono::steady_clock::now();
        fresh->countBatch(dd, to1);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%-52s %8s %12.3e %10.4f %10.4f\n", "DD 1e7 to 1deg float, first call",
                    fresh->lastBatchCulled() ? "yes" : "no",
                    static_cast<double>(dd[0].pairTotal()) / fresh->lastDeviceSeconds().value_or(1),
                    fresh->lastDeviceSeconds().value_or(0), wall);
        row("DD 1e7 to 0.01deg float (~ preparation alone)", *gpuFloat, CullingMode::On, dd, tiny,
            3);
        row("DD 1e7 to 1deg float (target <= 1 s incl. sort)", *gpuFloat, CullingMode::On, dd, to1,
            3);
        row("DD 1e7 to 1deg float, 512-point tiles", *gpuFloat, CullingMode::On, dd, to1, 3,
            [](cuda::CudaTuning& t) { t.blockSizeCap = 128; });
        row("DD 1e7 to 1deg double", *gpuDouble, CullingMode::On, dd, to1, 3);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const std::size_t n =
        argc > 1 && argv[1][0] != '-' ? std::strtoull(argv[1], nullptr, 10) : (1u << 20);
    int jackknife = 0;
    for (int a = 1; a + 1 < argc; ++a)
        if (std::string(argv[a]) == "--jackknife")
            jackknife = std::atoi(argv[a + 1]);
    bool culling = false, quick = false;
    for (int a = 1; a < argc; ++a) {
        culling = culling || std::string(argv[a]) == "--culling";
        quick = quick || std::string(argv[a]) == "--quick";
    }
    for (int a = 1; a < argc; ++a) {
        const std::string flag = argv[a];
        const char* value = a + 1 < argc ? argv[a + 1] : "";
        if (flag == "--cuda-hist") {
            const auto histogram = cuda::parseCudaHistogram(value);
            if (!histogram) {
                std::fprintf(stderr,
                             "--cuda-hist: '%s' is not thread-atomic, warp or global\n",
                             value);
                return 2;
            }
            g_baseTuning.histogram = *histogram;
        } else if (flag == "--cuda-brute-force") {
            g_baseTuning.bruteForce = true;
        } else if (flag == "--cuda-block") {
            g_baseTuning.blockSizeCap = std::atoi(value);
        } else if (flag == "--cuda-subtiles") {
            g_baseTuning.subTileCulling = std::string(value) != "off";
        } else if (flag == "--cuda-narrow-subtiles") {
            g_baseTuning.narrowSubTiles = std::string(value) != "off";
        } else if (flag == "--cuda-banded-lookup") {
            g_baseTuning.bandedLookup = std::string(value) != "off";
        } else if (flag == "--cuda-projection") {
            if (const auto projection = cuda::parseCudaProjection(value))
                g_baseTuning.projection = *projection;
        } else if (flag == "--cuda-projection-reach") {
            g_baseTuning.projectionReach = std::atof(value);
        } else if (flag == "--cuda-tile-order") {
            if (const auto order = cuda::parseCudaTileOrder(value))
                g_baseTuning.tileOrder = *order;
        } else if (flag == "--cuda-region-level") {
            g_baseTuning.regionCellLevel = std::atoi(value);
        }
    }
    try {
        g_baseTuning.validate();
    } catch (const ConfigError& error) {
        std::fprintf(stderr, "%s\n", error.what());
        return 2;
    }
    const auto provider = cuda::makeProvider(g_baseTuning);
    if (gputest::skipWithoutDevice(*provider))
        return gputest::kSkip;
    if (!g_baseTuning.describe().empty())
        std::printf("CUDA tuning: %s\n", g_baseTuning.describe().c_str());
    if (culling)
        return cullingBench(*provider, quick);
    if (jackknife > 0)
        return jackknifeBench(*provider, n, jackknife);
    auto gpuFloat = provider->create(Precision::Float, {});
    auto gpuDouble = provider->create(Precision::Double, {});
    std::printf("device: %s; %s\n", gpuFloat->deviceDescription().c_str(),
                provider->versionDescription().c_str());

    const Catalog data = gputest::uniformCatalog(n, 42, "uniform");
    const std::vector<CountTask> autoTask{{&data, nullptr}};
    const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
    const Binning full(BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30));
    const Binning small(BinSpec::logCount(0.01, 60, AngleUnit::Arcminute, 30));

    std::printf("\n%-44s %12s %10s %10s\n", "case", "pairs/s", "device s", "wall s");
    const auto bruteFloat =
        tunedCounter(Precision::Float, [](cuda::CudaTuning& t) { t.bruteForce = true; });
    const auto bruteDouble =
        tunedCounter(Precision::Double, [](cuda::CudaTuning& t) { t.bruteForce = true; });
    auto row = [&](const char* label, PairCounter& counter, const Binning& binning, bool brute,
                   int repeats) {
        PairCounter& used = !brute                                    ? counter
                            : counter.precision() == Precision::Float ? *bruteFloat
                                                                      : *bruteDouble;
        const Timing t = median(used, autoTask, binning, repeats);
        std::printf("%-44s %12.3e %10.4f %10.4f\n", label, pairs / t.deviceSeconds, t.deviceSeconds,
                    t.wallSeconds);
        std::fflush(stdout);
    };
    row("auto 0.01'-180deg float", *gpuFloat, full, false, 5);
    row("auto 0.01'-180deg float brute-force", *gpuFloat, full, true, 3);
    row("auto 0.01'-180deg double", *gpuDouble, full, false, 3);
    row("auto 0.01'-180deg double brute-force", *gpuDouble, full, true, 3);
    row("auto 0.01'-1deg float", *gpuFloat, small, false, 5);
    row("auto 0.01'-1deg float brute-force", *gpuFloat, small, true, 3);
    row("auto 0.01'-1deg double", *gpuDouble, small, false, 3);

    // A correlation job's batch: DD + 10 DR_i + 10 RR_i, N = 100000 each.
    const std::size_t m = 100000;
    std::vector<Catalog> catalogs;
    catalogs.reserve(11);
    catalogs.push_back(gputest::uniformCatalog(m, 1000, "D"));
    for (int i = 0; i < 10; ++i)
        catalogs.push_back(gputest::uniformCatalog(m, 1001 + i, "R"));
    std::vector<CountTask> job{{&catalogs[0], nullptr}};
    for (int i = 1; i <= 10; ++i)
        job.push_back({&catalogs[0], &catalogs[i]});
    for (int i = 1; i <= 10; ++i)
        job.push_back({&catalogs[i], nullptr});
    double jobPairs = 0;
    for (const CountTask& t : job)
        jobPairs += static_cast<double>(t.pairTotal());
    for (bool brute : {false, true}) {
        const Timing t = median(brute ? *bruteFloat : *gpuFloat, job, full, 5);
        std::printf("%-44s %12.3e %10.4f %10.4f  busy %.1f%%\n",
                    brute ? "job DD+10DR+10RR N=1e5 float brute-force"
                          : "job DD+10DR+10RR N=1e5 float",
                    jobPairs / t.deviceSeconds, t.deviceSeconds, t.wallSeconds,
                    100.0 * t.deviceSeconds / t.wallSeconds);
    }
    return 0;
}
