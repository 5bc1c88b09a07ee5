// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Kernel Lab's two precision demonstrations, shared by `tpacf lab --demo` and the GUI:
// binning on the float dot product against chord² thresholds at arcminute scales, and a 32-bit
// counter overflowing on a count above 2^32. Also the generated catalogs the lab uses.
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/pair_counter.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpacf::lab {

/// Below this angle (2^-12 rad = 0.839′) 1 − cos θ is under half a float step below 1 (2^-25):
/// the float dot product of two unit vectors rounds to exactly 1, and θ to 0.
double floatDotUnresolvedRadians() noexcept;
/// The smallest angle other than 0 that acosf returns for a float cos θ: acos(1 − 2^-24)
/// ≈ 2^-11.5 rad = 1.187′. A float variant's bins wholly below it count nothing.
double floatDotSmallestAngleRadians() noexcept;

/// Points of the lab's generated catalog when none is given (the CPU ladder in a few seconds on
/// two cores).
inline constexpr std::size_t kDefaultLabPoints = 10000;
/// The lab's generated catalog: `n` points uniform in a cap of radius 5° (RA 180°, Dec 0°),
/// dense enough that the arcminute bins hold pairs. Seeded: the same points for the same seed.
Catalog generatedLabCatalog(std::size_t n = kDefaultLabPoints, std::uint64_t seed = 1);

/// (a) Float dot product against chord². The bins: 0.01′–1′, 5 per decade (10 bins).
BinSpec precisionDemoBins();
/// Its generated catalog: `n` points uniform in a cap of radius 0.5°, so that each of those
/// bins holds pairs.
Catalog precisionDemoCatalog(std::size_t n = kDefaultLabPoints, std::uint64_t seed = 1);

struct PrecisionDemo {
    std::uint64_t pairs = 0;
    /// Per bin: the float dot product compared with float cos(edge), as a course's (and the
    /// G80 port's) binning does; chord² in double against the Binning's thresholds; the
    /// reference (CpuPairCounter).
    PairCounts floatDot, chord2, reference;
    /// The edges' cosines as floats: equal ones (1.0f below 0.84′) cannot separate their bins.
    std::vector<float> cosEdges;
};
/// Counts `first` (auto) or first × second in `binning` both ways, and the reference.
PrecisionDemo dotVersusChord2(const Catalog& first, const Catalog* second, const Binning& binning,
                              const std::atomic<bool>* cancel = nullptr);

/// (b) Counter overflow: one bin from 0 to 180°, so every pair of the catalog lands in it.
BinSpec overflowDemoBins();
/// Points of the overflow demonstration: 100,000 over the whole sky, 4,999,950,000 pairs.
inline constexpr std::size_t kOverflowDemoPoints = 100000;
/// Its generated catalog: `n` points uniform over the whole sky.
Catalog overflowDemoCatalog(std::size_t n = kOverflowDemoPoints, std::uint64_t seed = 1);

struct OverflowDemo {
    std::uint64_t pairs = 0;
    /// Per bin: the values 32-bit counters held (true mod 2^32), and the 64-bit reference
    /// (CpuPairCounter), and how many times each 32-bit counter went round.
    std::vector<std::uint32_t> counts32;
    PairCounts counts64;
    std::vector<std::uint64_t> wraps;
    double seconds32 = 0; // wall time of the 32-bit count
};
/// Counts every pair with 32-bit counters (scalar chord² in double, on `threads` threads,
/// <= 0: all; each thread's counters and their sum 32-bit, as GPU atomics on unsigned int
/// would be), and the reference in 64 bits.
OverflowDemo counterOverflow(const Catalog& first, const Catalog* second, const Binning& binning,
                             int threads = 0, const std::atomic<bool>* cancel = nullptr);

} // namespace tpacf::lab
