// Throughput of the CUDA backend (BENCHMARKS.md): uniform points on the sphere, 30 log bins.
// Pairs/s = unique pairs / device-busy seconds (lastDeviceSeconds); wall = countBatch on the host.
// Usage: tpacf_gpu_bench [N]   (default 1048576)
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/cuda/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

struct Timing {
    double deviceSeconds = 0;
    double wallSeconds = 0;
};

Timing median(PairCounter& counter, const std::vector<CountTask>& tasks, const Binning& binning,
              int repeats) {
    counter.countBatch(tasks, binning); // warm-up
    std::vector<Timing> runs;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        counter.countBatch(tasks, binning);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        runs.push_back({counter.lastDeviceSeconds().value_or(0), wall});
    }
    std::sort(runs.begin(), runs.end(),
              [](const Timing& a, const Timing& b) { return a.wallSeconds < b.wallSeconds; });
    return runs[runs.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1u << 20);
    const auto provider = cuda::makeProvider();
    if (provider->devices().empty()) {
        std::printf("SKIP: no CUDA device: %s\n", provider->unavailableReason().c_str());
        return 77;
    }
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
    auto row = [&](const char* label, PairCounter& counter, const Binning& binning, bool brute,
                   int repeats) {
        if (brute)
            setenv("TPACF_CUDA_BRUTE_FORCE", "1", 1);
        const Timing t = median(counter, autoTask, binning, repeats);
        unsetenv("TPACF_CUDA_BRUTE_FORCE");
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
        if (brute)
            setenv("TPACF_CUDA_BRUTE_FORCE", "1", 1);
        const Timing t = median(*gpuFloat, job, full, 5);
        unsetenv("TPACF_CUDA_BRUTE_FORCE");
        std::printf("%-44s %12.3e %10.4f %10.4f  busy %.1f%%\n",
                    brute ? "job DD+10DR+10RR N=1e5 float brute-force"
                          : "job DD+10DR+10RR N=1e5 float",
                    jobPairs / t.deviceSeconds, t.deviceSeconds, t.wallSeconds,
                    100.0 * t.deviceSeconds / t.wallSeconds);
    }
    return 0;
}
