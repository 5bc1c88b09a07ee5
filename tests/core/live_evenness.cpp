// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf_live_evenness N on|off MAX_ARCMIN [FLOOR]: how far the CPU backend's live partial counts
// are from even samples. It counts DD of N uniform full-sky points and D×R against N/2 others,
// both in declination order (as many catalogs come), in 30 log bins from 0.01' to MAX_ARCMIN,
// culling on or off, on 2 threads, with a snapshot every millisecond. Every snapshot that holds
// FLOOR (default 0.1) to 95 % of a task's pairs is compared, bin by bin in bins of at least 10^6
// pairs, with the final counts times that share; the largest departure is printed. The public
// API only, so the same file builds against any tree since spread_order.h. A measurement aid,
// not a check (test_spread_order checks the order).
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/culling.h"
#include "tpacf/pair_counter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace tpacf;

namespace {

Catalog skyByDeclination(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<std::pair<double, double>> points(n);
    for (auto& [dec, ra] : points) {
        ra = 360 * unit(rng);
        dec = std::asin(2 * unit(rng) - 1) * 180 / 3.14159265358979323846;
    }
    std::sort(points.begin(), points.end());
    std::vector<double> ra, dec;
    for (const auto& [d, r] : points) {
        ra.push_back(r);
        dec.push_back(d);
    }
    return Catalog::fromDegrees("sky" + std::to_string(seed), std::move(ra), std::move(dec), {},
                                {});
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: tpacf_live_evenness N on|off MAX_ARCMIN [FLOOR]\n");
        return 2;
    }
    const std::size_t n = std::stoul(argv[1]);
    const bool culled = std::string(argv[2]) == "on";
    const double maxArcmin = std::stod(argv[3]);
    const double floor = argc > 4 ? std::stod(argv[4]) : 0.1;
    const Catalog a = skyByDeclination(n, 1), b = skyByDeclination(n / 2, 2);
    const Binning binning(BinSpec::logCount(0.01, maxArcmin, AngleUnit::Arcminute, 30));
    CpuPairCounter counter(2);
    counter.setCulling(culled ? CullingMode::On : CullingMode::Off);
    const std::vector<CountTask> tasks{{&a, nullptr}, {&a, &b}};
    std::vector<CountProgress> snapshots;
    CountControl control;
    control.progressEvery = std::chrono::milliseconds(1);
    control.onProgress = [&](const CountProgress& p) {
        if (!p.partialCounts.empty())
            snapshots.push_back(p);
    };
    const std::vector<TaskCounts> final = counter.countBatch(tasks, binning, control);
    double worst = 0, worstShare = 0;
    std::size_t flagged = 0, worstTask = 0, worstBin = 0;
    for (const CountProgress& p : snapshots) {
        flagged += p.partialsEvenlySpread ? 1 : 0;
        const auto& pairs =
            p.partialPairsPerTask.empty() ? p.pairsDonePerTask : p.partialPairsPerTask;
        for (std::size_t t = 0; t < tasks.size() && p.partialsEvenlySpread; ++t) {
            const double share =
                static_cast<double>(pairs[t]) / static_cast<double>(tasks[t].pairTotal());
            if (share < floor || share > 0.95)
                continue;
            for (std::size_t k = 0; k < binning.count(); ++k) {
                if (final[t].raw[k] < 1000000)
                    continue;
                const double off = std::abs(static_cast<double>(p.partialCounts[t][k]) /
                                                (static_cast<double>(final[t].raw[k]) * share) -
                                            1);
                if (off > worst) {
                    worst = off;
                    worstShare = share;
                    worstTask = t;
                    worstBin = k;
                }
            }
        }
    }
    std::printf("N=%zu, culling %s, to %g': %zu snapshots (%zu flagged even), largest departure "
                "%.2f %% (task %zu, bin %zu, at %.1f %% of its pairs)\n",
                n, culled ? "on" : "off", maxArcmin, snapshots.size(), flagged, 100 * worst,
                worstTask, worstBin, 100 * worstShare);
    return 0;
}
