#pragma once
// Internal to the CPU backend: the inner loops. A kernel counts the pairs of a rectangle of
// points (rows of one catalog against columns of another, or a triangle of one) into a
// histogram of slots (cpu_bin_lookup.h). Every kernel gives identical counts.
#include "counting/cpu_bin_lookup.h"

#include "tpacf/catalog.h"

#include <cstddef>
#include <cstdint>

namespace tpacf::cpu {

// Points per side of a tile: 1024 x 1024 pairs take a few ms on one core, short enough for
// prompt cancellation and progress, long enough that scheduling costs nothing. The j side of a
// tile (3 x 8 KiB of coordinates) stays in L1 while every i of the tile sweeps it.
constexpr std::size_t kTileSide = 1024;

/// Unit vectors of a catalog (or of a reordered copy), as the kernels read them.
struct Points {
    const double* x = nullptr;
    const double* y = nullptr;
    const double* z = nullptr;
    std::size_t size = 0;

    explicit Points(const Catalog& c)
        : x(c.x().data()), y(c.y().data()), z(c.z().data()), size(c.size()) {}
    Points(const double* px, const double* py, const double* pz, std::size_t n)
        : x(px), y(py), z(pz), size(n) {}
};

/// Counts pairs (i in [i0, i1) of a) x (j in [j0, j1) of b) into `histogram`
/// (kHistogramCopies copies of lookup.slotCount() slots, one after the other). `diagonal`:
/// a == b on the same range, so only j > i.
using TileKernel = void (*)(const Points& a, std::size_t i0, std::size_t i1, const Points& b,
                            std::size_t j0, std::size_t j1, bool diagonal, const SlotLookup& lookup,
                            std::uint32_t* histogram);

/// Whether this build has the AVX-512 kernel and the processor runs it.
bool avx512KernelAvailable() noexcept;
/// The AVX-512 kernel where `avx512` (and available), else the portable one.
TileKernel kernelFor(bool avx512) noexcept;

/// Pairs i<j among n points.
constexpr std::uint64_t trianglePairs(std::uint64_t n) noexcept {
    return n < 2 ? 0 : (n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2));
}

} // namespace tpacf::cpu
