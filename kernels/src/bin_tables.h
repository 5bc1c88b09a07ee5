// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Host side of the bin lookup: thresholds in the kernel's precision and the table over the
// float bits of c² that gives a candidate slot in constant time.
#include "pair_kernels.h"
#include "tpacf/bins.h"

#include <cstdint>
#include <vector>

namespace tpacf::cuda::detail {

/// A "slot" is the number of thresholds <= c²: 0 below the range, k+1 for bin k, binCount+1 above.
struct HostBinTables {
    /// chord2Edges rounded to float, then +inf. Where the last edge is 180° it becomes 4.0625:
    /// no pair is farther apart, but a float c² can round past 4.
    std::vector<float> thresholdsFloat;
    std::vector<double> thresholdsDouble; ///< chord2Edges as they are, then +inf
    std::vector<std::uint16_t> lookup;    ///< slot of each cell's smallest value
    std::uint32_t shift = 0;
    std::int32_t base = 0;
    bool singleStep = true; ///< no cell holds more than one threshold
    /// How the kernels read the table: Packed where single step with at most
    /// kMaxPackedLookupCells cells, Step where single step with more, else Loop; Banded where
    /// Packed would be, in float, with every edge below kFastMinChord2 (bin_bands.h).
    LookupKind kind = LookupKind::Packed;
    std::vector<BandCell> bands; ///< Banded: a cell per lookup cell
    std::uint32_t slotMask = 0;  ///< Banded: BandCell::below's slot bits
    double lowMargin = 0;
    double highMargin = 0;
};

/// banded: whether a float table may be Banded (no count changes). The counter allows it for
/// culled, unweighted batches (with CudaTuning::bandedLookup): brute force's loops skip most
/// pairs (out of range) before any lookup, which the banded loop cannot (1.9x slower at 10°,
/// BENCHMARKS.md, "Banded lookup"), and weighted loops would read the banded cells by three
/// compares instead of the packed cells' one.
HostBinTables buildBinTables(const Binning& binning, RealKind real, bool banded = true);

/// The c² lookup key the kernels use: float bits, or the high word of the double bits.
std::uint32_t chord2Key(float c2) noexcept;
std::uint32_t chord2Key(double c2) noexcept;

} // namespace tpacf::cuda::detail
