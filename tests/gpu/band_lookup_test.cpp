// SPDX-License-Identifier: GPL-3.0-or-later
// Host-only check of the banded bin lookup (kernels/src/bin_bands): float pairs binned on their
// hi parts alone where the band allows must land in the slot their full c² gives. Pairs are made
// at and around every edge (c² within a few bands of it, where the lo parts do move pairs across
// edges), their coordinates split into hi and lo parts as the device prepares them, and their c²
// computed in the kernels' float arithmetic (this file is built without FMA contraction; the
// kernels' fused multiply-adds are std::fma). Checked per table: the bound chord2LoReach against
// every pair's |c² − c²_hi|; the banded slot against the full c²'s slot by a linear scan; the
// cells' exact lookup (the three-way compare) against the scan at random c² and every edge; and
// which bins are banded at all. Runs without a GPU.
#include "bin_bands.h"
#include "bin_tables.h"
#include "tpacf/bins.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace tpacf;
using namespace tpacf::cuda::detail;

namespace {

struct FloatPoint {
    float hi[3], lo[3];
};

/// catalog_prepare.cu: hi = float(x), lo = float(x − hi).
FloatPoint split(const double (&x)[3]) {
    FloatPoint p{};
    for (int a = 0; a < 3; ++a) {
        p.hi[a] = static_cast<float>(x[a]);
        p.lo[a] = static_cast<float>(x[a] - static_cast<double>(p.hi[a]));
    }
    return p;
}

/// pair_loops.cuh: hiChord2 of the hi differences, fullChord2 with the lo parts.
struct PairChord2 {
    float hi, full;
};
PairChord2 chord2(const FloatPoint& i, const FloatPoint& j) {
    float d[3], e[3];
    for (int a = 0; a < 3; ++a) {
        d[a] = i.hi[a] - j.hi[a];
        e[a] = d[a] + (i.lo[a] - j.lo[a]);
    }
    const float hi = std::fma(d[2], d[2], std::fma(d[1], d[1], d[0] * d[0]));
    const float full = std::fma(e[2], e[2], std::fma(e[1], e[1], e[0] * e[0]));
    return {hi, full};
}

int scanSlot(float c2, const std::vector<float>& thr) {
    int slot = 0;
    while (slot < static_cast<int>(thr.size()) - 1 && c2 >= thr[static_cast<std::size_t>(slot)])
        ++slot;
    return slot;
}

const BandCell& cellOf(float c2, const HostBinTables& t) {
    int cell = static_cast<int>(chord2Key(c2) >> t.shift) - t.base;
    cell = std::max(std::min(cell, static_cast<int>(t.bands.size()) - 1), 0);
    return t.bands[static_cast<std::size_t>(cell)];
}

int slotBits(const BandCell& cell, const HostBinTables& t) {
    return static_cast<int>(std::bit_cast<std::uint32_t>(cell.below) & t.slotMask);
}

/// pair_loops.cuh, bandedGuess: the slot from c²_hi, or −1 inside the band (computed in full).
int bandedSlot(float c2h, const HostBinTables& t) {
    const BandCell& cell = cellOf(c2h, t);
    if (!(c2h >= cell.below)) // NaN too
        return slotBits(cell, t);
    return c2h >= cell.above ? slotBits(cell, t) + 1 : -1;
}

/// pair_loops.cuh, lookupSlot<Banded>: the exact slot of c².
int exactSlot(float c2, const HostBinTables& t) {
    const BandCell& cell = cellOf(c2, t);
    const int slot = slotBits(cell, t);
    if (c2 < cell.below)
        return slot;
    if (c2 >= cell.above)
        return slot + 1;
    return slot + (c2 >= t.thresholdsFloat[static_cast<std::size_t>(slot)] ? 1 : 0);
}

/// A unit vector at angle θ from x, in a random direction.
void pairAt(const double (&x)[3], double theta, std::mt19937_64& rng, double (&y)[3]) {
    std::normal_distribution<double> gauss;
    double v[3] = {gauss(rng), gauss(rng), gauss(rng)};
    const double along = v[0] * x[0] + v[1] * x[1] + v[2] * x[2];
    double norm = 0;
    for (int a = 0; a < 3; ++a) {
        v[a] -= along * x[a];
        norm += v[a] * v[a];
    }
    norm = std::sqrt(norm);
    for (int a = 0; a < 3; ++a)
        y[a] = x[a] * std::cos(theta) + v[a] / norm * std::sin(theta);
}

struct Tally {
    long pairs = 0, settled = 0, crossings = 0, bad = 0;
    double worstReach = 0; // largest |c² − c²_hi| / chord2LoReach(c²_hi)
};

/// The narrowest and widest band of the table's edges, each side's reach over its edge's c².
std::pair<double, double> bandWidths(const HostBinTables& t) {
    double narrowest = INFINITY, widest = 0;
    for (std::size_t k = 0; k + 1 < t.thresholdsFloat.size(); ++k) {
        const double reach = thresholdBandReach(t.thresholdsFloat[k]);
        if (reach <= 0)
            continue;
        narrowest = std::min(narrowest, reach / t.thresholdsFloat[k]);
        widest = std::max(widest, reach / t.thresholdsFloat[k]);
    }
    return {narrowest, widest};
}

/// Pairs whose c² lies within four bands of each edge (a quarter within one), and one pair in
/// 64 a duplicate point (c² = 0).
void checkPairs(const std::string& name, const HostBinTables& t, std::mt19937_64& rng,
                Tally& tally) {
    std::normal_distribution<double> gauss;
    std::uniform_real_distribution<double> unit(-1, 1);
    const std::size_t edges = t.thresholdsFloat.size() - 1;
    for (std::size_t k = 0; k < edges; ++k) {
        const float edge = t.thresholdsFloat[k];
        const double reach = thresholdBandReach(edge);
        if (!(edge > 0) || reach <= 0)
            continue;
        for (int n = 0; n < 40000; ++n) {
            double x[3] = {gauss(rng), gauss(rng), gauss(rng)};
            const double norm = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
            for (double& v : x)
                v /= norm;
            const double spread = (n % 4 == 0 ? 1.0 : 4.0) * reach;
            const double c2 = std::max(0.0, edge + spread * unit(rng));
            double y[3];
            pairAt(x, 2 * std::asin(std::min(1.0, std::sqrt(c2) / 2)), rng, y);
            const FloatPoint i = split(x);
            const FloatPoint j = n % 64 == 0 ? i : split(y);
            const PairChord2 c = chord2(i, j);
            const int want = scanSlot(c.full, t.thresholdsFloat);
            const int banded = bandedSlot(c.hi, t);
            const int got = banded >= 0 ? banded : exactSlot(c.full, t);
            ++tally.pairs;
            tally.settled += banded >= 0 ? 1 : 0;
            tally.crossings += scanSlot(c.hi, t.thresholdsFloat) != want ? 1 : 0;
            const double moved = std::fabs(static_cast<double>(c.full) - c.hi);
            tally.worstReach = std::max(tally.worstReach, moved / chord2LoReach(c.hi));
            if (got != want && tally.bad++ < 5)
                std::printf("FAIL %s: edge %zu (c2 %.9g): c2_hi %.9g, c2 %.9g: banded slot %d, "
                            "slot of c2 %d\n",
                            name.c_str(), k, static_cast<double>(edge), static_cast<double>(c.hi),
                            static_cast<double>(c.full), got, want);
        }
    }
}

/// The cells themselves: below <= the slot's threshold <= above; the three-way lookup equals a
/// scan at random c², at every edge and just below it; NaN lands above the range.
long checkCells(const std::string& name, const HostBinTables& t, std::mt19937_64& rng) {
    long bad = 0;
    for (const BandCell& cell : t.bands) {
        const float threshold = t.thresholdsFloat[static_cast<std::size_t>(slotBits(cell, t))];
        if (!(cell.below <= threshold && threshold <= cell.above) && bad++ < 5)
            std::printf("FAIL %s: a cell's band [%.9g, %.9g) misses its threshold %.9g\n",
                        name.c_str(), static_cast<double>(cell.below),
                        static_cast<double>(cell.above), static_cast<double>(threshold));
    }
    std::uniform_real_distribution<double> unit(0, 1);
    const auto one = [&](float c2) {
        if (exactSlot(c2, t) != scanSlot(c2, t.thresholdsFloat) && bad++ < 5)
            std::printf("FAIL %s: c2 %.9g: lookup slot %d, scan slot %d\n", name.c_str(),
                        static_cast<double>(c2), exactSlot(c2, t), scanSlot(c2, t.thresholdsFloat));
    };
    for (int n = 0; n < 200000; ++n)
        one(static_cast<float>(n % 2 ? 4.0 * unit(rng) : std::pow(10.0, -13 + 13.7 * unit(rng))));
    for (std::size_t k = 0; k + 1 < t.thresholdsFloat.size(); ++k) {
        const float edge = t.thresholdsFloat[k];
        one(edge);
        one(std::nextafter(edge, 0.f));
        one(std::nextafter(edge, 8.f));
    }
    one(0.f);
    const int nanSlot = exactSlot(std::numeric_limits<float>::quiet_NaN(), t);
    const int nanBanded = bandedSlot(std::numeric_limits<float>::quiet_NaN(), t);
    if ((nanSlot != static_cast<int>(t.thresholdsFloat.size()) - 1 || nanBanded != nanSlot) &&
        bad++ < 5)
        std::printf("FAIL %s: NaN: slot %d, banded %d\n", name.c_str(), nanSlot, nanBanded);
    return bad;
}

} // namespace

int main() {
    struct Case {
        BinSpec spec;
        bool banded; // whether the float table is Banded
    };
    const std::vector<Case> cases{
        {BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 30), true}, // the standard job
        {BinSpec::logCount(0.01, 1, AngleUnit::Arcminute, 30), true},
        {BinSpec::logCount(1, 1200, AngleUnit::Arcminute, 100), true},
        {BinSpec::linearCount(0, 2, AngleUnit::Degree, 30), true}, // an edge at 0
        {BinSpec::linearCount(1, 25, AngleUnit::Degree, 24), true},
        {BinSpec::fromEdges({0.02, 0.05, 0.5, 3.0, 7.5, 28.0}, AngleUnit::Degree), true},
        // Edges past 29° (the hi-only rule's own), too small for a band, too many cells to pack.
        {BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30), false},
        {BinSpec::logCount(0.0001, 0.0002, AngleUnit::Arcminute, 2), false},
        {BinSpec::linearCount(0, 10, AngleUnit::Degree, 100), false},
    };
    std::mt19937_64 rng(7);
    long bad = 0;
    for (const Case& c : cases) {
        const Binning binning(c.spec);
        const std::string name = c.spec.describe();
        const HostBinTables t = buildBinTables(binning, RealKind::Float);
        const HostBinTables off = buildBinTables(binning, RealKind::Float, false);
        if ((t.kind == LookupKind::Banded) != c.banded || off.kind == LookupKind::Banded ||
            buildBinTables(binning, RealKind::Double).kind == LookupKind::Banded) {
            std::printf("FAIL %s: banded %d (expected %d), off %d\n", name.c_str(),
                        t.kind == LookupKind::Banded, c.banded, off.kind == LookupKind::Banded);
            ++bad;
            continue;
        }
        if (!c.banded) {
            std::printf("%-46s not banded (%s)\n", name.c_str(),
                        t.kind == LookupKind::Packed ? "packed" : "one step");
            continue;
        }
        Tally tally;
        bad += checkCells(name, t, rng);
        checkPairs(name, t, rng, tally);
        bad += tally.bad;
        const auto [narrowest, widest] = bandWidths(t);
        std::printf("%-46s %3zu cells, bands %.2g to %.2g of their edge: %ld pairs near the edges, "
                    "%.1f %% binned on the hi parts, %ld moved across an edge by their lo parts, "
                    "worst |c2 - c2_hi| %.3f of the bound\n",
                    name.c_str(), t.bands.size(), narrowest, widest, tally.pairs,
                    100.0 * tally.settled / tally.pairs, tally.crossings, tally.worstReach);
        // The pairs must reach where the lo parts matter, and the bound must hold.
        if (tally.crossings == 0 || tally.worstReach > 1.0) {
            std::printf("FAIL %s: %s\n", name.c_str(),
                        tally.crossings == 0 ? "no pair crossed an edge by its lo parts"
                                             : "|c2 - c2_hi| exceeds chord2LoReach");
            ++bad;
        }
    }
    std::printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
