// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf_live_evenness N on|off MAX_ARCMIN [FLOOR]: how far the CPU backend's live partial counts
// are from even samples. It counts DD of N uniform full-sky points and D×R against N/2 others,
// both in declination order (as many catalogs come), in 30 log bins from 0.01' to MAX_ARCMIN,
// culling on or off, on 2 threads, with a snapshot every millisecond. Every snapshot that holds
// FLOOR (default 0.1) to 95 % of a task's pairs is compared, bin by bin in bins of at least 10^6
// pairs, with the final counts times that share; the largest departure is printed
// (live_departure.h, shared with test_spread_order). The public API only, so the two files build
// against any tree since spread_order.h. A measurement aid, not a check.
#include "live_departure.h"

#include "tpacf/bins.h"
#include "tpacf/cpu_pair_counter.h"
#include "tpacf/culling.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace tpacf;
using tpacf::test::skyByDeclination;

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
    const test::LiveDeparture d = test::measureLiveDeparture(counter, tasks, binning, floor);
    std::printf("N=%zu, culling %s, to %g': %zu snapshots (%zu flagged even), largest departure "
                "%.2f %% (task %zu, bin %zu, at %.1f %% of its pairs)\n",
                n, culled ? "on" : "off", maxArcmin, d.snapshots, d.flagged, 100 * d.worst,
                d.worstTask, d.worstBin, 100 * d.worstShare);
    return 0;
}
