// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Host side of the banded lookup (LookupKind::Banded): float pairs binned on their hi parts
// alone wherever the lo parts cannot move them across an edge.
//
// A float pair's c² below kFastMinChord2 is computed from d = (hi_i − hi_j) + (lo_i − lo_j)
// (pairLoopFloat: fullChord2); its hi parts alone give c²_hi (hiChord2) with six of its fifteen
// operations and no lo parts read. chord2LoReach(c) bounds |c² − c²_hi| for any pair whose c²_hi
// is c, so a pair whose c²_hi lies farther than that from every threshold lands in the same slot
// either way: the kernels bin it on c²_hi and compute c² in full only inside the bands around the
// thresholds. Each lookup cell holds the hull of the bands that cross it (BandCell), so one load
// tells a pair either its slot or that it needs the full c².
#include "bin_tables.h"
#include "pair_kernels.h"

#include <cstdint>
#include <vector>

namespace tpacf::cuda::detail {

/// The most a float pair's full c² can differ from its hi-only c² when the latter is c (see
/// bin_bands.cpp for the bound and its proof), in exact arithmetic on the float values.
double chord2LoReach(double c) noexcept;

/// The band around float threshold t inside which a pair's hi-only c² does not decide its side
/// of t: [t − reach, t + reach), reach >= chord2LoReach on the whole band and beyond. Empty
/// (reach 0) for t <= 0: every c² is on the same side. Negative reach: t is too small for a
/// band (the lo parts' reach is then comparable with t itself).
double thresholdBandReach(float t) noexcept;

/// The banded cells of a float single-step table (tables.thresholdsFloat, lookup, shift and
/// base set) and the mask of BandCell::below's slot bits; false (cells untouched) where the
/// bins do not allow it: a threshold too small for a band, or too many slots for the bits.
bool buildBandCells(const HostBinTables& tables, std::vector<BandCell>& cells,
                    std::uint32_t& slotMask);

} // namespace tpacf::cuda::detail
