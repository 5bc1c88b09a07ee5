// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How far a backend's live partial counts are from even samples of their tasks: shared by
// test_spread_order (which bounds it) and tpacf_live_evenness (which prints it). Public API only.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/pair_counter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tpacf::test {

/// N uniform full-sky points in declination order, as many catalogs come.
inline Catalog skyByDeclination(std::size_t n, std::uint64_t seed) {
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

/// The snapshots of one count and the largest departure among those flagged even.
struct LiveDeparture {
    std::size_t snapshots = 0; ///< with partial counts
    std::size_t flagged = 0;   ///< of them flagged even samples (partialsEvenlySpread)
    std::size_t samples = 0;   ///< (snapshot, task) pairs compared
    double worst = 0;          ///< the largest relative departure of a bin
    double worstShare = 0;     ///< the share of its task's pairs the worst snapshot held
    std::size_t worstTask = 0, worstBin = 0;
};

/// Counts `tasks` with a snapshot every millisecond. Each snapshot flagged even that holds
/// `floor` to 95 % of a task's pairs is compared, in bins of at least 10^6 final pairs, with the
/// final counts times that share.
inline LiveDeparture measureLiveDeparture(PairCounter& counter, const std::vector<CountTask>& tasks,
                                          const Binning& binning, double floor) {
    std::vector<CountProgress> snapshots;
    CountControl control;
    control.progressEvery = std::chrono::milliseconds(1); // many snapshots on any machine
    control.onProgress = [&](const CountProgress& p) {
        if (!p.partialCounts.empty())
            snapshots.push_back(p);
    };
    const std::vector<TaskCounts> final = counter.countBatch(tasks, binning, control);
    LiveDeparture out;
    out.snapshots = snapshots.size();
    for (const CountProgress& p : snapshots) {
        if (!p.partialsEvenlySpread)
            continue;
        ++out.flagged;
        for (std::size_t t = 0; t < tasks.size(); ++t) {
            const double share = static_cast<double>(p.partialPairsPerTask[t]) /
                                 static_cast<double>(tasks[t].pairTotal());
            if (share < floor || share > 0.95)
                continue;
            ++out.samples;
            for (std::size_t k = 0; k < binning.count(); ++k) {
                if (final[t].raw[k] < 1000000)
                    continue;
                const double off = std::abs(static_cast<double>(p.partialCounts[t][k]) /
                                                (static_cast<double>(final[t].raw[k]) * share) -
                                            1);
                if (off > out.worst) {
                    out.worst = off;
                    out.worstShare = share;
                    out.worstTask = t;
                    out.worstBin = k;
                }
            }
        }
    }
    return out;
}

} // namespace tpacf::test
