// SPDX-License-Identifier: GPL-3.0-or-later
// The banded lookup's cells (bin_bands.h).
//
// The bound. u = 2^-24 (float's unit roundoff), L = 2^-25. Each coordinate x of a unit vector
// (|x| <= 1) is held as hi = float(x), lo = float(x − hi) (catalog_prepare.cu): |x − hi| <=
// ulp(hi)/2 <= 2^-25, and 2^-25 is a float, so |lo| <= L. Per axis the kernels compute
//   d  = fl(hi_i − hi_j)                        (both paths alike)
//   l  = fl(lo_i − lo_j),  |l| <= 2L            (|lo_i − lo_j| <= 2L, a float bound)
//   e  = fl(d + l) = (d + l)(1 + ε), |ε| <= u,  so |e − d| <= 2L + u(|d| + 2L)
// and c²_hi = fl(fma(dz, dz, fma(dy, dy, dx·dx))), c² the same of e: three roundings of sums of
// non-negative terms, so c²_hi = S_h(1 + θ), c² = S_e(1 + θ') with S_h = Σd², S_e = Σe² and
// |θ|, |θ'| <= (1 + u)^3 − 1 < γ = 4u. With s = sqrt(S_h) >= |d| on every axis,
//   δ = 2L + u(s + 2L) >= |e − d|,
//   |S_e − S_h| = |Σ(e − d)(e + d)| <= Σ δ(2|d| + δ) <= 2√3·δ·s + 3δ² = D   (Σ|d| <= √3·s),
//   |c² − c²_hi| <= γ·S_e + D + γ·S_h <= 2γ·S_h + (1 + γ)·D = E,
// and S_h <= c²_hi / (1 − u)^3 <= c²_hi (1 + 4u). E grows with c²_hi (chord2LoReach).
//
// The band. Slots compare c² >= t. Take R = 2·E(2t) for a threshold t > 0, and require R <= t/2
// and t >= 2^-38 (sqrt(t) >= 64 L).
// - c²_hi < t − R: c² <= c²_hi + E(c²_hi) < t − R + E(t) < t, since E(t) <= E(2t) < R.
// - c²_hi >= t + R: c − E(c) grows with c wherever sqrt(c) >= 64 L (dE/dc < 2√3·(L/s + u/2)·
//   (1 + γ) + 8u < 0.06 there), so c² >= c²_hi − E(c²_hi) >= t + R − E(t + R) >= t + R − E(2t)
//   > t, since t + R <= 1.5 t.
// So outside [t − R, t + R) a pair's hi-only c² and its full c² are on the same side of t. The
// factor 2 in R also covers the double arithmetic that evaluates it (relative 1e-15).
// A pair whose c²_hi lies outside every threshold's band has the same slot either way; the pair
// loops then bin it on c²_hi (pair_loops.cuh, bandedSlot). Where c²_hi >= kFastMinChord2 the
// kernels bin on c²_hi anyway, so the rule holds there trivially.
#include "bin_bands.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace tpacf::cuda::detail {

namespace {

constexpr double kUnitRoundoff = 0x1p-24; // u
constexpr double kLoBound = 0x1p-25;      // L: the largest |lo| of a coordinate
constexpr double kMinBandedThreshold = 0x1p-38;
/// At most 4096 slots (BinTables::slotMask): the slot bits widen a band's low side by
/// 2 · 4096 float ulps at most, a relative 2^-10.
constexpr std::uint32_t kMaxSlotMask = 0xfff;

constexpr std::uint32_t kInfBits = 0x7f800000u;

/// The smallest value of the floats whose bits lie at or above `bits` (+inf past the finite).
double valueOfBits(std::uint64_t bits) {
    return bits >= kInfBits
               ? std::numeric_limits<double>::infinity()
               : static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
}

/// The largest float <= v (v >= 0; +inf: the largest finite float).
float floatAtOrBelow(double v) {
    if (v >= static_cast<double>(std::numeric_limits<float>::max()))
        return std::numeric_limits<float>::max();
    float f = static_cast<float>(v);
    if (static_cast<double>(f) > v)
        f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
}

/// The smallest float >= v (+inf stays +inf).
float floatAtOrAbove(double v) {
    float f = static_cast<float>(v);
    if (static_cast<double>(f) < v)
        f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

/// `below` with `slot` in its low bits, no larger than below: a positive float's bits keep
/// their order, so clearing the mask's bits, stepping one mask further down and setting the slot
/// lowers it by 2 · (mask + 1) ulps at most. Too small (or not positive): −0 with the slot (a
/// negative zero or denormal), below every c², which is >= 0.
float withSlot(float below, std::uint32_t slot, std::uint32_t mask) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(below);
    if (below > 0 && bits > 2 * (mask + 1))
        return std::bit_cast<float>(((bits & ~mask) - (mask + 1)) | slot);
    return std::bit_cast<float>(0x80000000u | slot);
}

struct Band {
    double lo, hi; // [lo, hi)
};

} // namespace

double chord2LoReach(double c) noexcept {
    constexpr double u = kUnitRoundoff, L = kLoBound, gamma = 4 * u;
    const double sh = std::max(0.0, c) * (1 + 4 * u);
    const double s = std::sqrt(sh);
    const double delta = 2 * L + u * (s + 2 * L);
    const double d = 2 * std::sqrt(3.0) * delta * s + 3 * delta * delta;
    return 2 * gamma * sh + (1 + gamma) * d;
}

double thresholdBandReach(float t) noexcept {
    if (!(t > 0))
        return 0;
    const double threshold = t;
    const double reach = 2 * chord2LoReach(2 * threshold);
    if (threshold < kMinBandedThreshold || reach > threshold / 2)
        return -1;
    return reach;
}

bool buildBandCells(const HostBinTables& tables, std::vector<BandCell>& cells,
                    std::uint32_t& slotMask) {
    const std::vector<float>& thr = tables.thresholdsFloat; // the edges, then +inf
    const std::size_t edges = thr.size() - 1;
    const std::uint32_t mask = std::bit_ceil(static_cast<std::uint32_t>(edges + 1)) - 1;
    if (mask > kMaxSlotMask)
        return false;
    std::vector<Band> bands;
    for (std::size_t k = 0; k < edges; ++k) {
        const double reach = thresholdBandReach(thr[k]);
        if (reach < 0)
            return false;
        if (reach > 0)
            bands.push_back({thr[k] - reach, thr[k] + reach});
    }
    const std::size_t size = tables.lookup.size();
    std::vector<BandCell> made(size);
    for (std::size_t c = 0; c < size; ++c) {
        // The cell's c²: [start, end) (lookupSlot clamps every smaller key to cell 0, every
        // larger one and NaN to the last).
        const auto keyBits = [&](std::size_t cell) {
            return static_cast<std::uint64_t>(tables.base + static_cast<std::int64_t>(cell))
                   << tables.shift;
        };
        const double start = c == 0 ? 0.0 : valueOfBits(keyBits(c));
        const double end =
            c + 1 == size ? std::numeric_limits<double>::infinity() : valueOfBits(keyBits(c + 1));
        // The hull of the bands' parts inside the cell.
        double hullLo = std::numeric_limits<double>::infinity();
        double hullHi = -std::numeric_limits<double>::infinity();
        for (const Band& band : bands)
            if (band.lo < end && band.hi > start) {
                hullLo = std::min(hullLo, std::max(band.lo, start));
                hullHi = std::max(hullHi, std::min(band.hi, end));
            }
        // A c² of the cell below `below` is below the slot's threshold and outside every band,
        // one at or above `above` at or above that threshold (and below the next: single step)
        // and outside every band.
        const std::uint16_t slot = tables.lookup[c];
        const double threshold = thr[slot];
        const double below = std::min(hullLo, threshold);
        const double above = std::max(hullHi, threshold);
        made[c] = BandCell{withSlot(floatAtOrBelow(below), slot, mask), floatAtOrAbove(above)};
    }
    cells = std::move(made);
    slotMask = mask;
    return true;
}

} // namespace tpacf::cuda::detail
