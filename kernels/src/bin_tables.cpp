// SPDX-License-Identifier: GPL-3.0-or-later
#include "bin_tables.h"

#include "bin_bands.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace tpacf::cuda::detail {

std::uint32_t chord2Key(float c2) noexcept {
    return std::bit_cast<std::uint32_t>(c2);
}
std::uint32_t chord2Key(double c2) noexcept {
    return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(c2) >> 32);
}

namespace {

constexpr std::uint64_t kInfKey(float) {
    return 0x7f800000u;
}
constexpr std::uint64_t kInfKey(double) {
    return 0x7ff00000u;
}
float valueOfKey(std::uint64_t key, float) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(key));
}
double valueOfKey(std::uint64_t key, double) {
    return std::bit_cast<double>(key << 32);
}

/// Cells of the table: cell c holds keys [(base + c) << shift, (base + c + 1) << shift); keys
/// below clamp to cell 0, keys above (and NaN) to the last cell, which lies wholly above the
/// last threshold. `thresholds` holds binCount+1 edges (no sentinel).
template <class Real>
bool tryLookup(const std::vector<Real>& thresholds, std::uint32_t shift, HostBinTables& tables) {
    const std::size_t bins = thresholds.size() - 1;
    const Real firstPositive = thresholds[0] > 0 ? thresholds[0] : thresholds[1];
    const std::int64_t keyLow = chord2Key(firstPositive) >> shift;
    const std::int64_t keyHigh = chord2Key(thresholds[bins]) >> shift;
    const std::int64_t base = keyLow - 1; // cell 0 lies wholly below the first positive threshold
    const std::int64_t size = keyHigh - base + 2;
    if (size > static_cast<std::int64_t>(kMaxLookupEntries))
        return false;
    auto slotOf = [&](Real value) {
        return static_cast<std::uint32_t>(
            std::upper_bound(thresholds.begin(), thresholds.end(), value) - thresholds.begin());
    };
    std::vector<std::uint16_t> lookup(static_cast<std::size_t>(size));
    for (std::int64_t cell = 0; cell < size; ++cell) {
        Real start = 0; // cell 0 also takes every smaller c², down to 0
        if (cell > 0) {
            const std::uint64_t key = static_cast<std::uint64_t>(base + cell) << shift;
            start = key >= kInfKey(Real{}) ? std::numeric_limits<Real>::infinity()
                                           : valueOfKey(key, Real{});
        }
        lookup[static_cast<std::size_t>(cell)] = static_cast<std::uint16_t>(slotOf(start));
    }
    std::uint32_t steps = 0;
    for (std::size_t cell = 0; cell + 1 < lookup.size(); ++cell)
        steps = std::max<std::uint32_t>(steps, lookup[cell + 1] - lookup[cell]);
    tables.lookup = std::move(lookup);
    tables.shift = shift;
    tables.base = static_cast<std::int32_t>(base);
    tables.singleStep = steps <= 1;
    return true;
}

/// The smallest table whose cells hold at most one threshold each (few cells: no shared-memory
/// bank conflicts); failing that, the finest table that fits.
template <class Real> void buildLookup(const std::vector<Real>& thresholds, HostBinTables& tables) {
    HostBinTables finest;
    bool haveFinest = false;
    for (std::uint32_t shift = 31; shift >= 1; --shift) {
        // NaN (the padding points) and +inf must land in a cell above the last threshold's.
        if ((kInfKey(Real{}) >> shift) <= (chord2Key(thresholds.back()) >> shift))
            continue;
        HostBinTables candidate;
        if (!tryLookup(thresholds, shift, candidate))
            break; // finer tables only get larger
        if (candidate.singleStep) {
            tables.lookup = std::move(candidate.lookup);
            tables.shift = candidate.shift;
            tables.base = candidate.base;
            tables.singleStep = true;
            return;
        }
        finest = std::move(candidate);
        haveFinest = true;
    }
    if (!haveFinest)
        throw ConfigError("CUDA backend: cannot build a bin lookup table for these bins");
    tables.lookup = std::move(finest.lookup);
    tables.shift = finest.shift;
    tables.base = finest.base;
    tables.singleStep = false;
}

} // namespace

HostBinTables buildBinTables(const Binning& binning, RealKind real, bool banded) {
    const auto edges = binning.chord2Edges();
    if (edges.size() < 2)
        throw ConfigError("CUDA backend: a binning needs at least one bin");
    if (edges.size() + 1 > std::numeric_limits<std::uint16_t>::max())
        throw ConfigError("CUDA backend: at most 65533 bins");
    HostBinTables tables;
    std::vector<double> exactEdges(edges.begin(), edges.end());
    std::vector<float> floatEdges;
    for (double edge : edges)
        floatEdges.push_back(static_cast<float>(edge));
    if (edges.back() >= 4.0)
        floatEdges.back() = 4.0625f;

    if (real == RealKind::Float)
        buildLookup(floatEdges, tables);
    else
        buildLookup(exactEdges, tables);
    tables.kind = !tables.singleStep                              ? LookupKind::Loop
                  : tables.lookup.size() <= kMaxPackedLookupCells ? LookupKind::Packed
                                                                  : LookupKind::Step;

    // Float: a pair's hi-only c² differs from its full c² by at most 2|d||dl| + |dl|² plus
    // rounding, with |dl| <= sqrt(3) * 2^-24 < 1.5e-7; pairs outside these margins are out.
    constexpr double kLoBound = 1.5e-7;
    const double low = floatEdges.front();
    const double high = floatEdges.back();
    tables.lowMargin =
        low > 0 ? std::pow(std::max(0.0, std::sqrt(low) - kLoBound), 2) * (1.0 - 1e-6) : -1.0;
    tables.highMargin = std::pow(std::sqrt(high) + kLoBound, 2) * (1.0 + 1e-6);

    tables.thresholdsFloat = std::move(floatEdges);
    tables.thresholdsFloat.push_back(std::numeric_limits<float>::infinity());
    tables.thresholdsDouble = std::move(exactEdges);
    tables.thresholdsDouble.push_back(std::numeric_limits<double>::infinity());

    // Banded only where no pair in range takes the hi-only rule of kFastMinChord2: there every
    // lookup (not only those the band settles) would pay the band's second compare.
    if (banded && real == RealKind::Float && tables.kind == LookupKind::Packed &&
        tables.highMargin < kFastMinChord2 && buildBandCells(tables, tables.bands, tables.slotMask))
        tables.kind = LookupKind::Banded;
    return tables;
}

} // namespace tpacf::cuda::detail
