// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel Lab, CPU rungs 3 and 4: the product's tile kernel (counting/cpu_tile_kernels.h:
// AVX-512 where the processor has it, else portable C++), driven by a loop written here to be
// read: every tile, brute force, first on one thread, then on all of them through the runner.
#include "counting/cpu_tile_kernels.h"
#include "cpu_rungs.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <string>

namespace tpacf::lab::detail {

namespace {

using cpu::kTileSide;

/// One tile: points [i0, i1) of the first catalog against [j0, j1) of the second.
struct Tile {
    std::size_t i0, i1, j0, j1;
    bool diagonal; // auto count, i and j on the same range: only j > i
};

/// Every tile of a count, row by row; an auto count takes the tiles on and above the diagonal.
std::vector<Tile> tilesOf(std::size_t n, std::size_t m, bool autoCount) {
    std::vector<Tile> tiles;
    for (std::size_t i0 = 0; i0 < n; i0 += kTileSide)
        for (std::size_t j0 = autoCount ? i0 : 0; j0 < m; j0 += kTileSide)
            tiles.push_back({i0, std::min(n, i0 + kTileSide), j0, std::min(m, j0 + kTileSide),
                             autoCount && i0 == j0});
    return tiles;
}

/// Adds a tile's histogram copies to a 64-bit tally of slots and zeroes them.
void addCopies(std::vector<std::uint32_t>& histogram, std::vector<std::uint64_t>& slotCounts) {
    const std::size_t slots = slotCounts.size();
    for (std::size_t copy = 0; copy < cpu::kHistogramCopies; ++copy)
        for (std::size_t s = 0; s < slots; ++s)
            slotCounts[s] += histogram[copy * slots + s];
    std::fill(histogram.begin(), histogram.end(), 0u);
}

/// Slot k+1 is bin k: the slots below and above the bins are dropped.
PairCounts binsOf(const std::vector<std::uint64_t>& slotCounts, std::size_t bins) {
    return PairCounts(slotCounts.begin() + 1,
                      slotCounts.begin() + 1 + static_cast<std::ptrdiff_t>(bins));
}

} // namespace

std::string tileKernelName() {
    return cpu::avx512KernelAvailable() ? "avx512" : "portable";
}

PairCounts countTiles(const Catalog& first, const Catalog* second, const Binning& binning,
                      int threads, const std::atomic<bool>* cancel) {
    const cpu::Points a(first), b(second ? *second : first);
    const std::vector<Tile> tiles = tilesOf(a.size, b.size, second == nullptr);
    const cpu::SlotLookup lookup(binning.chord2Edges());
    const std::size_t slots = lookup.slotCount();
    const cpu::TileKernel kernel = cpu::kernelFor(cpu::avx512KernelAvailable());

    if (threads == 1) {
        std::vector<std::uint64_t> slotCounts(slots, 0);
        std::vector<std::uint32_t> histogram(cpu::kHistogramCopies * slots, 0);
        // [lab:excerpt cpu-3-vectorised]
        for (const Tile& tile : tiles) {
            throwIfCancelled(cancel);
            // 1024 x 1024 pairs: the j side's coordinates stay in L1 while every i sweeps them;
            // chord^2 for 8 j at once (AVX-512), the slot from a table plus one comparison,
            // into 4 copies of a 32-bit histogram (a tile holds at most 2^20 pairs).
            kernel(a, tile.i0, tile.i1, b, tile.j0, tile.j1, tile.diagonal, lookup,
                   histogram.data());
            addCopies(histogram, slotCounts); // into 64-bit counters, once per tile
        }
        // [lab:end]
        return binsOf(slotCounts, binning.count());
    }

    const std::size_t workers = workerCount(threads, tiles.size());
    std::vector<std::vector<std::uint64_t>> slotCounts(workers,
                                                       std::vector<std::uint64_t>(slots, 0));
    // [lab:excerpt cpu-4-threads]
    std::atomic<std::size_t> nextTile{0};
    RunnerWatch watch;
    watch.cancel = cancel; // the runner stops the workers and throws Cancelled
    runWorkers(
        workers,
        [&](std::size_t worker, const std::atomic<bool>& stop) {
            // Private histogram and tally per worker: no sharing, no atomics per pair.
            std::vector<std::uint32_t> histogram(cpu::kHistogramCopies * slots, 0);
            for (std::size_t t = nextTile++; t < tiles.size() && !stop; t = nextTile++) {
                const Tile& tile = tiles[t];
                kernel(a, tile.i0, tile.i1, b, tile.j0, tile.j1, tile.diagonal, lookup,
                       histogram.data());
                addCopies(histogram, slotCounts[worker]);
            }
        },
        watch);
    for (std::size_t worker = 1; worker < workers; ++worker) // merged once, at the end
        for (std::size_t s = 0; s < slots; ++s)
            slotCounts[0][s] += slotCounts[worker][s];
    // [lab:end]
    return binsOf(slotCounts[0], binning.count());
}

namespace {

class VectorisedRung final : public CpuRung {
public:
    VectorisedRung()
        : CpuRung({"cpu-3-vectorised",
                   "The product's tile kernel (vectorised), one thread, brute force",
                   3,
                   true,
                   "The product's inner loop on one core: the pairs in tiles of 1024 x 1024 "
                   "points, so that the j side's coordinates (24 KiB) stay in the L1 cache while "
                   "every i sweeps them; squared chords computed for 8 pairs at once with "
                   "AVX-512 (plain C++ that the compiler vectorises where AVX-512 is missing); "
                   "the bin from a table indexed by the top bits of chord^2 plus one exact "
                   "comparison, in place of a binary search; four copies of the histogram so "
                   "that consecutive pairs landing in the same bin do not wait on each other's "
                   "increment. 32-bit counters per tile (at most 2^20 pairs, no wrap) added "
                   "into 64-bit ones. Same arithmetic as rung 2: exact.",
                   "core/lab/src/cpu_tiles.cpp"}) {}

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        LabCounts result = timedBest(
            repeats, cancel, [&] { return countTiles(first, second, binning, 1, cancel); });
        result.notes.push_back("kernel " + tileKernelName() + ", 1 thread");
        return result;
    }
};

class ThreadsRung final : public CpuRung {
public:
    explicit ThreadsRung(int threads)
        : CpuRung({"cpu-4-threads",
                   "The same tile kernel on every core, brute force",
                   4,
                   true,
                   "Rung 3 on every hardware thread through the project's one runner "
                   "(runWorkers): the workers take tiles from a shared atomic cursor (an auto "
                   "count's tiles differ in size near the diagonal, so a fixed split would leave "
                   "cores idle), each with its own histogram and its own 64-bit tally, merged "
                   "once at the end: nothing is shared per pair, so the speed-up is close to "
                   "the number of physical cores (hyper-threads add less: they share the vector "
                   "units). Exact.",
                   "core/lab/src/cpu_tiles.cpp"}),
          m_threads(threads) {}

    LabCounts count(const Catalog& first, const Catalog* second, const Binning& binning,
                    int repeats, const std::atomic<bool>* cancel) override {
        LabCounts result = timedBest(repeats, cancel, [&] {
            return countTiles(first, second, binning, m_threads <= 0 ? 0 : m_threads, cancel);
        });
        const std::size_t threads = m_threads <= 0 ? hardwareThreads() : std::size_t(m_threads);
        result.notes.push_back("kernel " + tileKernelName() + ", " + std::to_string(threads) +
                               (threads == 1 ? " thread" : " threads"));
        return result;
    }

private:
    int m_threads;
};

} // namespace

std::unique_ptr<LabVariant> makeVectorisedRung() {
    return std::make_unique<VectorisedRung>();
}

std::unique_ptr<LabVariant> makeThreadsRung(int threads) {
    return std::make_unique<ThreadsRung>(threads);
}

} // namespace tpacf::lab::detail
