// SPDX-License-Identifier: GPL-3.0-or-later
// GPU suite, catalogs larger than the GPU's memory (PairCounter::setDeviceMemoryLimit): with a
// limit that leaves room for a fraction of the points, the CUDA counter streams the batch
// through the device in pieces (chunked_count.h) and its counts equal those of the same counter
// without the limit, bin for bin (raw and region counts exactly; weighted sums to 1e-12 relative
// in double, to the float mode's accuracy in float), and in double the CPU reference's. Plain
// executable. Exit 0: all passed; 1: a failure; 77: skipped.
//
// Cases: clustered data and uniform randoms, a batch of DD, DR and RR, plain, weighted and by
// region, float and double, bins to 1 deg (piece pairs out of reach skipped) and to 60 deg,
// shares of a chunked batch adding up to the whole, device 0 listed twice (two workers, each
// holding the pieces), and the note the counter leaves for the result. Also the device's memory
// pool: kept between a counter's batches (counting the same from the kept buffers) and given
// back to the driver when the counter goes (memory_pool.h).
#include "gpu_test_support.h"
#include "tpacf/bins.h"
#include "tpacf/chunked_count.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/cuda/cuda_backend.h"
#include "tpacf/errors.h"
#ifdef TPACF_GPU_TEST_INTERNALS
#include "cuda_pair_counter.h" // kernels/src: a counter over a device list given as is
#include "device_memory.h"     // kernels/src: the memory a batch needs, the points a limit holds
#include "memory_pool.h"       // kernels/src: the device's pool, kept between a counter's batches
#endif

#include <cmath>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

using gputest::expect;
using gputest::kSkip;
using gputest::Stats;

struct Counts {
    std::vector<std::uint64_t> raw;
    std::vector<double> weighted;
};

Counts countAll(PairCounter& counter, const std::vector<CountTask>& tasks, const Binning& binning,
                std::size_t regions, WorkShare share = {}) {
    CountControl control;
    control.share = share;
    Counts out;
    if (regions == 0) {
        for (const TaskCounts& task : counter.countBatch(tasks, binning, control)) {
            out.raw.insert(out.raw.end(), task.raw.begin(), task.raw.end());
            out.weighted.insert(out.weighted.end(), task.weighted.begin(), task.weighted.end());
        }
    } else {
        for (const RegionPairCounts& r :
             counter.countBatchByRegion(tasks, binning, regions, control)) {
            for (const auto* part : {&r.total, &r.touching, &r.within})
                out.raw.insert(out.raw.end(), part->begin(), part->end());
            for (const auto* part : {&r.weightedTotal, &r.weightedTouching, &r.weightedWithin})
                out.weighted.insert(out.weighted.end(), part->begin(), part->end());
        }
    }
    return out;
}

/// Raw counts equal; weighted sums within `relative` of each other. Double: 1e-12 (only the
/// summation order changes). Float: the float mode's weighted accuracy (1e-5 of the sum, as in
/// gpu_weighted_test.cpp), since pieces make other tiles, and a tile pair binned whole adds its
/// tiles' weight sums in double where a pair-by-pair count adds float weights.
bool sameCounts(const Counts& a, const Counts& b, double relative = 1e-12) {
    if (a.raw != b.raw || a.weighted.size() != b.weighted.size())
        return false;
    for (std::size_t i = 0; i < a.weighted.size(); ++i)
        if (std::abs(a.weighted[i] - b.weighted[i]) >
            relative * std::max(std::abs(a.weighted[i]), std::abs(b.weighted[i])))
            return false;
    return true;
}

Catalog withWeights(const Catalog& catalog, std::uint64_t seed, bool regions) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> weight(0.3, 1.7);
    std::vector<double> w(catalog.size());
    for (double& value : w)
        value = weight(rng);
    return Catalog::fromRadians(
        catalog.name(), std::vector<double>(catalog.ra().begin(), catalog.ra().end()),
        std::vector<double>(catalog.dec().begin(), catalog.dec().end()), std::move(w),
        regions ? std::vector<std::int32_t>(catalog.region().begin(), catalog.region().end())
                : std::vector<std::int32_t>{});
}

} // namespace

int main() {
#ifndef TPACF_GPU_TEST_INTERNALS
    std::printf("SKIP: built without the CUDA backend's internals\n");
    return kSkip;
#else
    using namespace tpacf::cuda::detail;
    const auto provider = cuda::makeProvider();
    if (gputest::skipWithoutDevice(*provider))
        return kSkip;
    Stats stats;
    try {
        CpuPairCounter cpu(0);
        const std::size_t regionCount = 6;
        const Catalog data0 = gputest::clusteredCatalog(120001, 31, "data");
        const Catalog random0 = gputest::uniformCatalog(90001, 32, "random");
        const Catalog data = gputest::withRegions(
            data0, gputest::coherentRegions(data0, data0, static_cast<int>(regionCount), 33));
        const Catalog random = gputest::withRegions(
            random0, gputest::coherentRegions(random0, data0, static_cast<int>(regionCount), 33));
        const Catalog dataW = withWeights(data, 34, true);
        const std::vector<CountTask> plainBatch{{&data, nullptr}, {&data, &random},
                                               {&random, nullptr}};
        const std::vector<CountTask> weightedBatch{{&dataW, nullptr}, {&dataW, &random},
                                                   {&random, nullptr}};
        // A limit that holds about 40000 points of a batch: pieces of 20000, 7 of the data.
        const auto limitFor = [](Precision precision, bool weighted, bool byRegion) {
            BatchMemoryShape shape{precision == Precision::Float, weighted, byRegion};
            return kFixedBatchBytes +
                   40000 * (deviceBytesPerPoint(shape) + sortBytesPerPoint(shape) / 2);
        };

        for (const double thetaMaxDeg : {1.0, 60.0}) {
            const Binning binning(
                BinSpec::logCount(0.05, thetaMaxDeg * 60, AngleUnit::Arcminute, 16));
            for (const Precision precision : {Precision::Double, Precision::Float}) {
                for (const bool weighted : {false, true}) {
                    for (const std::size_t regions : {std::size_t{0}, regionCount}) {
                        const auto& tasks = weighted ? weightedBatch : plainBatch;
                        const std::string label =
                            std::string(precisionName(precision)) +
                            (weighted ? ", weighted" : "") +
                            (regions ? ", by region" : ", plain") + ", theta_max " +
                            std::to_string(thetaMaxDeg) + " deg";
                        auto whole = provider->create(precision, {});
                        const Counts reference = countAll(*whole, tasks, binning, regions);
                        expect(stats, whole->lastBatchNotes().empty(),
                               label + ": a batch that fits leaves no chunk note");

                        auto chunked = provider->create(precision, {});
                        chunked->setDeviceMemoryLimit(limitFor(precision, weighted, regions > 0));
                        const Counts pieces = countAll(*chunked, tasks, binning, regions);
                        const double relative = precision == Precision::Float ? 1e-5 : 1e-12;
                        expect(stats, sameCounts(pieces, reference, relative),
                               label + ": chunked counts equal the counter's unchunked ones");
                        const auto& notes = chunked->lastBatchNotes();
                        expect(stats,
                               notes.size() == 1 &&
                                   notes.front().find("sub-batches") != std::string::npos,
                               label + ": the result is told the batch went in chunks");
                        if (thetaMaxDeg < 2 && !notes.empty())
                            expect(stats,
                                   notes.front().find(" 0 piece pairs out of reach") ==
                                       std::string::npos,
                                   label + ": piece pairs beyond 1 deg are skipped: " +
                                       notes.front());
                        if (precision == Precision::Double) {
                            const Counts cpuCounts = countAll(cpu, tasks, binning, regions);
                            expect(stats, pieces.raw == cpuCounts.raw,
                                   label + ": chunked double counts equal the CPU reference");
                        }
                        // Shares of a chunked batch add up to it.
                        if (thetaMaxDeg < 2) {
                            Counts sum{std::vector<std::uint64_t>(pieces.raw.size(), 0),
                                       std::vector<double>(pieces.weighted.size(), 0.0)};
                            for (std::uint32_t part = 0; part < 3; ++part) {
                                const Counts share =
                                    countAll(*chunked, tasks, binning, regions, {part, 3});
                                for (std::size_t i = 0; i < sum.raw.size(); ++i)
                                    sum.raw[i] += share.raw[i];
                                for (std::size_t i = 0; i < sum.weighted.size(); ++i)
                                    sum.weighted[i] += share.weighted[i];
                            }
                            expect(stats, sameCounts(sum, reference, relative),
                                   label + ": 3 shares of the chunked batch add up to it");
                        }
                        // Two workers on device 0, each holding its own pieces.
                        if (regions == 0 && !weighted) {
                            auto twice = makeCudaPairCounter(precision, {0, 0}, "device 0 twice");
                            twice->setDeviceMemoryLimit(2 * limitFor(precision, false, false));
                            expect(stats,
                                   sameCounts(countAll(*twice, tasks, binning, 0), reference) &&
                                       !twice->lastBatchNotes().empty(),
                                   label + ": device 0 listed twice, chunked");
                        }
                    }
                }
            }
        }
        // The counter keeps its batches' buffers in device 0's pool, the next batch counts the
        // same from them, and the counter's end gives them back to the driver.
        {
            const Binning binning(BinSpec::logCount(0.05, 60, AngleUnit::Arcminute, 16));
            Counts first, second;
            {
                auto counter = provider->create(Precision::Float, {});
                first = countAll(*counter, plainBatch, binning, 0);
                expect(stats, poolHeldBytes(0) > 0,
                       "after a batch, device 0's pool keeps its buffers");
                second = countAll(*counter, plainBatch, binning, 0);
            }
            expect(stats, sameCounts(second, first, 0.0),
                   "a batch counted from the kept buffers equals the first");
            expect(stats, poolHeldBytes(0) == 0,
                   "the counter's end gives the pool's memory back to the driver (" +
                       std::to_string(poolHeldBytes(0)) + " bytes held)");
        }
        // A limit with no room for points is an error naming the flag, not a crash.
        auto starved = provider->create(Precision::Float, {});
        starved->setDeviceMemoryLimit(kFixedBatchBytes / 2);
        bool refused = false;
        try {
            const Binning binning(BinSpec::logCount(1, 60, AngleUnit::Arcminute, 5));
            countAll(*starved, plainBatch, binning, 0);
        } catch (const ConfigError& error) {
            refused = std::string(error.what()).find("--gpu-memory-limit") != std::string::npos;
        }
        expect(stats, refused, "a memory limit below the fixed buffers is a ConfigError");
    } catch (const std::exception& error) {
        std::printf("FAIL exception: %s\n", error.what());
        return 1;
    }
    std::printf("%s: %d checks, %d failures\n", stats.failures ? "FAIL" : "PASS", stats.checks,
                stats.failures);
    return stats.failures ? 1 : 0;
#endif
}
