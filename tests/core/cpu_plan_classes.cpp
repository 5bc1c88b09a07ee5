// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf_cpu_plan_classes N MAX_ARCMIN [REACH] [POPULATION]: how the CPU backend's plan for DD of
// N uniform full-sky points (30 log bins from 0.01') leaves its pairs, and how many of those a
// projection of far cell pairs (the CUDA kernels' rule, kernels/src/pair_projection.cuh) would
// take: the cell pairs of the plan's runs whose c² range holds one or two edges and whose
// edges · (R_A + R_B) <= REACH · |d|, and, measured on every 64th of them, the pairs its band
// would still compute (the j-points between an i-point's cuts with the split along d, without
// the margins). POPULATION forces the cells' population (else the plan's own choice). A
// measurement aid, not a check, and no part of the CPU backend.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/mock.h"

#include "counting/sky_cells.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace tpacf;

namespace {

struct Geometry {
    std::array<double, 3> d{}; ///< centre of A − centre of B
    double d2 = 0, ra = 0, rb = 0;
};

Geometry geometryOf(const CellBounds& a, const CellBounds& b) {
    Geometry g;
    double ra2 = 0, rb2 = 0;
    for (int axis = 0; axis < 3; ++axis) {
        g.d[axis] = (a.lo[axis] + a.hi[axis] - b.lo[axis] - b.hi[axis]) / 2;
        const double ha = (a.hi[axis] - a.lo[axis]) / 2, hb = (b.hi[axis] - b.lo[axis]) / 2;
        g.d2 += g.d[axis] * g.d[axis];
        ra2 += ha * ha;
        rb2 += hb * hb;
    }
    g.ra = std::sqrt(ra2);
    g.rb = std::sqrt(rb2);
    return g;
}

/// Pairs of cell a against cell b that an i-point's band leaves between its cuts, summed over
/// the edges slotLo..slotHi − 1.
double bandPairs(const sky::SortedCatalog& points, const sky::CellPartition& cells, std::size_t a,
                 std::size_t b, const Geometry& g, const std::vector<double>& t, std::size_t slotLo,
                 std::size_t slotHi) {
    const auto centre = [&](std::size_t cell, int axis) {
        return (cells.bounds[cell].lo[axis] + cells.bounds[cell].hi[axis]) / 2;
    };
    std::vector<double> keys;
    for (std::size_t j = cells.start[b]; j < cells.start[b + 1]; ++j) {
        const double beta[3] = {points.x[j] - centre(b, 0), points.y[j] - centre(b, 1),
                                points.z[j] - centre(b, 2)};
        double v = 0;
        for (int axis = 0; axis < 3; ++axis)
            v += beta[axis] * (beta[axis] - 2 * g.d[axis]);
        keys.push_back(v);
    }
    double band = 0;
    for (std::size_t i = cells.start[a]; i < cells.start[a + 1]; ++i) {
        const double alpha[3] = {points.x[i] - centre(a, 0), points.y[i] - centre(a, 1),
                                 points.z[i] - centre(a, 2)};
        double u = 0, along = 0;
        for (int axis = 0; axis < 3; ++axis) {
            u += alpha[axis] * (alpha[axis] + 2 * g.d[axis]);
            along += alpha[axis] * g.d[axis];
        }
        double share = along / g.d2;
        if (!(std::abs(share) <= 0.5))
            share = 0;
        double perp2 = 0;
        for (int axis = 0; axis < 3; ++axis) {
            const double x = alpha[axis] - share * g.d[axis];
            perp2 += x * x;
        }
        const double spread = 2 * std::sqrt(perp2) * g.rb, squares = share * g.rb * g.rb;
        for (std::size_t k = slotLo; k < slotHi; ++k) {
            const double cutHigh =
                (t[k] - g.d2 - u + std::max(squares, 0.0) + spread) / (1 + share);
            const double cutLow = (t[k] - g.d2 - u + std::min(squares, 0.0) - spread) / (1 + share);
            band += static_cast<double>(std::count_if(
                keys.begin(), keys.end(), [&](double v) { return v >= cutLow && v < cutHigh; }));
        }
    }
    return band;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s N MAX_ARCMIN [REACH] [POPULATION]\n", argv[0]);
        return 2;
    }
    const std::size_t n = std::stoul(argv[1]);
    const double maxArcmin = std::stod(argv[2]);
    const double reach = argc > 3 ? std::stod(argv[3]) : 1.0;
    const std::size_t population = argc > 4 ? std::stoul(argv[4]) : 0;
    const Catalog catalog = generateUniformRandoms(n, Footprint::fullSky(), 1, "uniform");
    const Binning binning(BinSpec::logCount(0.01, maxArcmin, AngleUnit::Arcminute, 30));
    const auto none = [] {};
    std::vector<sky::SortedCatalog> sorted;
    sorted.push_back(sky::sortCatalog(catalog, 0, none, 2));
    const std::vector<sky::CellTask> tasks = {{0, 0, true, false}};
    const std::span<const double> edges = binning.chord2Edges();
    const sky::CellPlan plan =
        population != 0 ? sky::planForPopulation(sorted, tasks, edges, 0, population, none, 2)
                        : sky::planCellPairs(sorted, tasks, edges, 0, none, 2);
    const std::vector<double> t(edges.begin(), edges.end());
    const sky::CellPartition& cells = plan.cells[0];

    double counted = 0, projectable = 0, sampledPairs = 0, sampledBand = 0;
    std::uint64_t cellPairs = 0, projectableCellPairs = 0;
    for (const sky::CountRun& run : plan.tasks[0].runs) {
        const double na = static_cast<double>(cells.countOf(run.a));
        for (std::uint32_t b = run.bBegin; b < run.bEnd; ++b) {
            const double nb = static_cast<double>(cells.countOf(b));
            const double pairs = b == run.a ? na * (na - 1) / 2 : na * nb;
            counted += pairs;
            ++cellPairs;
            const CellBounds& boxA = cells.bounds[run.a];
            const CellBounds& boxB = cells.bounds[b];
            const double lo = sky::boxMinChord2(boxA, boxB), hi = sky::boxMaxChord2(boxA, boxB);
            const auto slotOf = [&](double c2) {
                return static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), c2) -
                                                t.begin());
            };
            const std::size_t slotLo = slotOf(lo), slotHi = slotOf(hi);
            const std::size_t edgesInside = slotHi - slotLo;
            const Geometry g = geometryOf(boxA, boxB);
            if (b == run.a || edgesInside == 0 || edgesInside > 2 || !(lo >= 1e-6) ||
                !(edgesInside * (g.ra + g.rb) <= reach * std::sqrt(g.d2)))
                continue;
            projectable += pairs;
            if (projectableCellPairs++ % 64 == 0) {
                sampledPairs += pairs;
                sampledBand += bandPairs(sorted[0], cells, run.a, b, g, t, slotLo, slotHi);
            }
        }
    }
    const double band = sampledPairs > 0 ? projectable * sampledBand / sampledPairs : 0;
    std::printf("%zu points, 0.01'-%g', population %zu (%zu cells): %llu cell pairs in %zu runs, "
                "%.4g pairs counted one by one, %.4g added whole\n",
                n, maxArcmin, plan.population, cells.cellCount(),
                static_cast<unsigned long long>(cellPairs), plan.tasks[0].runs.size(), counted,
                static_cast<double>(plan.tasks[0].wholePairs));
    std::printf("projectable at reach %g: %llu cell pairs, %.4g pairs (%.1f %% of those counted); "
                "their bands, measured on every 64th: %.4g pairs (%.1f %% of those counted)\n",
                reach, static_cast<unsigned long long>(projectableCellPairs), projectable,
                100 * projectable / counted, band, 100 * band / counted);
    return 0;
}
