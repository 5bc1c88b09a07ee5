// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the CPU backend: the inner loops. A kernel counts the pairs of a rectangle of
// points (rows of one catalog against columns of another, or a triangle of one) into a
// histogram of slots (cpu_bin_lookup.h). Every kernel gives identical counts.
//
// Weighted counts (CountTask::weighted) use the weighted kernels: the same squared chord and the
// same slot lookup (one definition, a template, shared with the plain kernels), so a pair's slot
// is the one its raw count lands in; each pair also adds w_i·w_j, a product rounded once, to a
// double histogram of the same slots. Summation order, which fixes the result to the last bit:
//   1. in a unit of work (a tile, or a culled work item: its runs in order), pairs in kernel
//      order (i ascending, then j ascending); pair k of each chunk of kChunk j goes to copy
//      k mod kHistogramCopies of the histogram, the chunk's tail (n mod 4 pairs) to copy 0;
//   2. the unit's copies added in copy order, then the unit's sum added to its worker's tally
//      (by region: to the task's shared tally, under its lock, in the order units finish);
//   3. workers' tallies added in worker order at the end; culled, worker 0's tally starts from
//      the plan's whole cell pairs (Σw_a·Σw_b, or ((Σw)² − Σw²)/2 for a cell with itself,
//      cell sums in point order and node sums over children in order), added in the order the
//      planning threads hand them in.
// Which worker counts which unit is decided at run time, so the weighted sums can differ in
// the last bits between runs and between thread counts (the raw counts never do); for positive
// weights they equal a brute-force double loop to ~1e-13 relative per bin (every partial sum
// holds positive terms only). Exactly thread-independent sums would need the units merged in
// list order (a reorder buffer; by region, per-unit copies of the region rows), not done yet.
#include "counting/cpu_bin_lookup.h"
#include "counting/triangle_pairs.h"

#include "tpacf/catalog.h"

#include <cstddef>
#include <cstdint>

namespace tpacf::cpu {

// Points per side of a tile: 1024 x 1024 pairs take a few ms on one core, short enough for
// prompt cancellation and progress, long enough that scheduling costs nothing. The j side of a
// tile (3 x 8 KiB of coordinates) stays in L1 while every i of the tile sweeps it.
constexpr std::size_t kTileSide = 1024;

/// Unit vectors of a catalog (or of a reordered copy), as the kernels read them, and the
/// weights the weighted kernels read (nullptr where there are none; a weighted kernel needs
/// them on both sides: ones for a catalog without weights).
struct Points {
    const double* x = nullptr;
    const double* y = nullptr;
    const double* z = nullptr;
    std::size_t size = 0;
    const double* w = nullptr;

    explicit Points(const Catalog& c)
        : x(c.x().data()), y(c.y().data()), z(c.z().data()), size(c.size()),
          w(c.hasWeights() ? c.weight().data() : nullptr) {}
    Points(const double* px, const double* py, const double* pz, std::size_t n,
           const double* pw = nullptr)
        : x(px), y(py), z(pz), size(n), w(pw) {}
};

/// Counts pairs (i in [i0, i1) of a) x (j in [j0, j1) of b) into `histogram`
/// (kHistogramCopies copies of lookup.slotCount() slots, one after the other). `diagonal`:
/// a == b on the same range, so only j > i. The bins' slots are exact; the slots below and above
/// the bins, which every caller drops, may be left short (the AVX-512 kernel skips those pairs).
using TileKernel = void (*)(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                            std::size_t j0, std::size_t j1, bool diagonal, const SlotLookup& lookup,
                            std::uint32_t* histogram);

/// Like TileKernel, and adds w_i·w_j of each pair (a.w, b.w: both non-null) to `weighted`
/// (kHistogramCopies copies of lookup.slotCount() doubles), in the slot its count goes to.
using WeightedTileKernel = void (*)(const Points& a, std::size_t i0, std::size_t i1,
                                    const Points& b, std::size_t j0, std::size_t j1, bool diagonal,
                                    const SlotLookup& lookup, std::uint32_t* histogram,
                                    double* weighted);

/// Whether this build has the AVX-512 kernel and the processor runs it.
bool avx512KernelAvailable() noexcept;
/// The AVX-512 kernel where `avx512` (and available), else the portable one.
TileKernel kernelFor(bool avx512) noexcept;
/// The same choice among the weighted kernels.
WeightedTileKernel weightedKernelFor(bool avx512) noexcept;

/// Adds the kHistogramCopies copies of a unit's weighted histogram, in copy order, to `into`
/// (slots doubles) and zeroes them.
void addWeightedCopies(double* copies, std::size_t slots, double* into) noexcept;

using counting::trianglePairs;

} // namespace tpacf::cpu
