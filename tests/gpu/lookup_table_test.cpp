// SPDX-License-Identifier: GPL-3.0-or-later
// Host-only check of the CUDA backend's constant-time bin lookup (kernels/src/bin_tables): the
// table plus the refining compares must give exactly the slot a linear scan gives, for float and
// double, at random c², at every edge and just below it, and NaN (padding) must land above the
// range. Runs without a GPU (same arithmetic as the kernels' lookupSlot: the packed cells of a
// small single-step table, the slot and its threshold of a larger one, the loop elsewhere).
#include "bin_tables.h"
#include "tpacf/bins.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

using namespace tpacf;
using namespace tpacf::cuda::detail;

namespace {

/// The cells as the kernels hold a packed table (loadTablesAndClear).
template <class Real>
std::vector<LookupCell<Real>> packedCells(const HostBinTables& t, const std::vector<Real>& thr) {
    std::vector<LookupCell<Real>> cells;
    for (std::uint16_t slot : t.lookup) {
        LookupCell<Real> cell{};
        cell.threshold = thr[slot];
        cell.slot = slot;
        cells.push_back(cell);
    }
    return cells;
}

/// cells: packedCells(t, thr), made once per table.
template <class Real>
int tableSlot(Real c2, const HostBinTables& t, const std::vector<Real>& thr,
              const std::vector<LookupCell<Real>>& cells) {
    int cell = static_cast<int>(chord2Key(c2) >> t.shift) - t.base;
    cell = std::max(std::min(cell, static_cast<int>(t.lookup.size()) - 1), 0); // DPX's order
    if (t.kind == LookupKind::Packed) {
        const LookupCell<Real> entry = cells[static_cast<std::size_t>(cell)];
        return entry.slot + (c2 >= entry.threshold ? 1 : 0);
    }
    int slot = t.lookup[static_cast<std::size_t>(cell)];
    if (t.kind == LookupKind::Step)
        return slot + (c2 >= thr[static_cast<std::size_t>(slot)] ? 1 : 0);
    while (c2 >= thr[static_cast<std::size_t>(slot)])
        ++slot;
    return slot;
}

template <class Real> int scanSlot(Real c2, const std::vector<Real>& thr) {
    int slot = 0;
    while (slot < static_cast<int>(thr.size()) - 1 && c2 >= thr[static_cast<std::size_t>(slot)])
        ++slot;
    return slot;
}

template <class Real>
int check(const Binning& binning, const HostBinTables& t, const std::vector<Real>& thr,
          std::mt19937_64& rng) {
    int bad = 0;
    std::uniform_real_distribution<double> unit(0, 1);
    const auto edges = binning.chord2Edges();
    const std::vector<LookupCell<Real>> cells = packedCells(t, thr);
    auto one = [&](double value) {
        const Real c2 = static_cast<Real>(value);
        if (tableSlot(c2, t, thr, cells) != scanSlot(c2, thr) && bad++ < 5)
            std::printf("FAIL %s (%s): c2=%.17g table slot %d, scan slot %d\n",
                        binning.spec().describe().c_str(), sizeof(Real) == 4 ? "float" : "double",
                        value, tableSlot(c2, t, thr, cells), scanSlot(c2, thr));
    };
    for (int i = 0; i < 200000; ++i)
        one(i % 2 ? 4.0 * unit(rng) : std::pow(10.0, -13 + 13.7 * unit(rng)));
    for (double edge : edges) {
        one(edge);
        one(std::nextafter(edge, 0.0));
        one(static_cast<double>(std::nextafter(static_cast<float>(edge), 0.f)));
    }
    one(0.0);
    one(4.0);
    const Real nan = std::numeric_limits<Real>::quiet_NaN();
    if (tableSlot(nan, t, thr, cells) != static_cast<int>(binning.count()) + 1 && bad++ < 5)
        std::printf("FAIL %s: NaN lands in slot %d\n", binning.spec().describe().c_str(),
                    tableSlot(nan, t, thr, cells));
    return bad;
}

} // namespace

int main() {
    const std::vector<BinSpec> specs{BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30),
                                     BinSpec::logCount(0.01, 10000, AngleUnit::Arcminute, 30),
                                     BinSpec::logCount(0.01, 1, AngleUnit::Arcminute, 30),
                                     BinSpec::linearCount(0, 180, AngleUnit::Degree, 1000),
                                     BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 1000),
                                     BinSpec::linearCount(0, 2, AngleUnit::Degree, 30),
                                     BinSpec::linearCount(0, 10, AngleUnit::Degree, 100),
                                     BinSpec::linearCount(0, 180, AngleUnit::Degree, 1),
                                     BinSpec::linearCount(0.2, 0.9, AngleUnit::Arcminute, 1),
                                     BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 10000)};
    std::mt19937_64 rng(1);
    int bad = 0;
    for (const BinSpec& spec : specs) {
        const Binning binning(spec);
        // The banded cells of a float table have a test of their own (band_lookup_test).
        const HostBinTables f = buildBinTables(binning, RealKind::Float, false);
        const HostBinTables d = buildBinTables(binning, RealKind::Double);
        const auto kind = [](const HostBinTables& t) {
            return t.kind == LookupKind::Packed ? " (packed, one compare)"
                   : t.kind == LookupKind::Step ? " (one compare)"
                                                : " (loop)";
        };
        std::printf("%-40s float: %4zu cells%s  double: %4zu cells%s\n", spec.describe().c_str(),
                    f.lookup.size(), kind(f), d.lookup.size(), kind(d));
        // Packed only where the cells fit; a single-step table never read by the loop.
        for (const HostBinTables* t : {&f, &d})
            if ((t->kind == LookupKind::Packed) !=
                    (t->singleStep && t->lookup.size() <= kMaxPackedLookupCells) ||
                (t->kind == LookupKind::Loop) == t->singleStep)
                if (bad++ < 5)
                    std::printf("FAIL %s: a table of %zu cells read the wrong way\n",
                                spec.describe().c_str(), t->lookup.size());
        bad += check(binning, f, f.thresholdsFloat, rng);
        bad += check(binning, d, d.thresholdsDouble, rng);
    }
    std::printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
