// SPDX-License-Identifier: GPL-3.0-or-later
// The pair-counting kernel (catalog_prepare.cu prepares the catalogs it reads).
//
// Work: a list of WorkUnits (one i-tile against a run of j-tiles of one task, unitTiles) that a
// persistent grid takes from an atomic cursor. Each block keeps its i-tile in registers
// (kPointsPerThread points per thread), stages each j-tile in shared memory, and counts into a
// private histogram in shared memory that it flushes into the task's 64-bit global counters.
// Before a tile pair is computed, the bounding boxes of both tiles classify it: out of range
// (skipped), inside one bin (counted whole), far enough apart for the hi parts alone (float),
// or computed pair by pair in full precision.
//
// Jackknife (regionPairCountKernel): the same body over region-pure tiles; each flush goes to the
// three rows of the tile pair's region pair (total, touching[a], within[a] or touching[b]).
#include "cuda_check.h"
#include "device_point.h"
#include "pair_histograms.cuh"
#include "pair_kernels.h"
#include "pair_loops.cuh"
#include "pair_steps.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <vector>

namespace tpacf::cuda::detail {

const char* histModeName(HistMode mode) noexcept {
    switch (mode) {
    case HistMode::PerThreadAtomic:
        return "per-thread shared (atomic update)";
    case HistMode::PerWarp:
        return "per-warp shared";
    case HistMode::Global:
        return "global";
    }
    return "?";
}

namespace {

constexpr std::size_t alignUp(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// ---- the kernel ------------------------------------------------------------------------------

/// The kernel body; pairCountKernel (plain) and regionPairCountKernel (jackknife) wrap it, and
/// their weighted variants (Weighted: every pair also adds w_i·w_j to a private sum beside its
/// counter; a tile pair binned whole adds the product of the tiles' weight sums).
/// Sub-tile pairs settled by their boxes (markSubTiles): whole ones in plain unweighted kernels
/// only (a region kernel's private histogram holds one region pair at a time; a weighted one
/// would need the sub-tiles' weight sums); narrow ones in every unweighted kernel (their counts
/// go to the private histogram from the pair loops, after a region kernel has opened the tile
/// pair's region pair).
/// The private histogram holds pairs of held.task (and, with regions, of held's region pair:
/// region tiles are region-pure, so a whole tile pair has one region pair) since the last flush;
/// held.open says whether it may hold any. Rows are recomputed at each flush rather
/// than kept: registers are what limits the blocks per SM.
template <class Real, HistMode Mode, LookupKind Lookup, bool Regions, bool Weighted = false,
          bool Projected = false>
__device__ __forceinline__ void pairCount(const PairKernelArgs& args) {
    using Hist =
        std::conditional_t<Weighted, WeightedHist<Mode, Regions, Real>, PrivateHist<Mode, Regions>>;
    extern __shared__ __align__(32) unsigned char s_raw[];
    __shared__ std::uint32_t s_unit;
    const BlockShared<Real> shared = carveShared<Real, Weighted>(s_raw, args);

    const BinTables& bins = args.bins;
    const std::uint32_t binCount = bins.binCount;
    const bool cullSubTiles = bins.classifyTiles != 0 && bins.cullSubTiles != 0;
    const bool addWholeSubTiles = !Regions && !Weighted && cullSubTiles && bins.wholeSubTiles != 0;
    const bool addNarrow =
        !Weighted && cullSubTiles && bins.narrowSubTiles != 0 && args.layout.narrowMasks;
    constexpr bool kPerThread = Mode == HistMode::PerThreadAtomic;
    // Projected tile pairs borrow the per-thread histogram's out-of-range rows (pair_projection).
    static_assert(!Projected || (kPerThread && !Weighted));
    const bool addProjected = Projected && bins.classifyTiles != 0;
    constexpr bool kLows = holdsLows(Traits<Real>::kHasLows, Lookup, Projected);
    const std::uint32_t subBoxesPerTile = args.tileSize / kSubTileSize;
    const std::uint32_t maskedTiles = args.layout.maskedTiles;
    const std::uint32_t stride = static_cast<std::uint32_t>(args.layout.histStride);
    const std::uint32_t columns = kPerThread ? blockDim.x : blockDim.x / 32;
    loadTablesAndClear<Real, Mode, Weighted, Lookup>(bins, stride, shared);
    __syncthreads();

    const LookupContext lookup = lookupContextOf(shared, bins);
    const int tileSize = static_cast<int>(args.tileSize);
    const float lowMargin = static_cast<float>(bins.lowMargin);
    const float highMargin = static_cast<float>(bins.highMargin);

    Hist hist =
        privateHistogram<Hist, Mode, Weighted>(shared.hist, shared.weights, stride, binCount);

    HistHolding held;
    const PrivateFlush<Mode, Regions, Weighted, Real> flush{shared.hist, shared.weights, stride,
                                                            columns,     binCount,       args};
    for (;;) {
        const std::uint32_t unitIndex = nextUnit(args, s_unit);
        if (unitIndex >= args.unitEnd)
            break;
        WorkUnit unit = args.d_units[unitIndex];
        holdUnitTask<Regions>(args, unit.task, flush, held);
        unsigned long long* const taskCounts = taskRows<Regions, Weighted>(args, unit.task, hist);

        CatalogView catA = args.d_catalogs[unit.catA];
        CatalogView catB = args.d_catalogs[unit.catB];
        TileBox boxA = catA.d_tiles[unit.tileA];

        if (cullSubTiles)
            markSubTiles<Real>(unit, catA, catB, boxA, bins, addWholeSubTiles, addNarrow,
                               addProjected, subBoxesPerTile, maskedTiles, hist, shared.visit,
                               shared.narrow);

        // The i-tile: this thread's point r is tile index iPointIndex(r).
        Real ix[kPointsPerThread], iy[kPointsPerThread], iz[kPointsPerThread];
        [[maybe_unused]] std::conditional_t<Weighted, Real[kPointsPerThread], NoWeights> iw;
        float lx[kPointsPerThread], ly[kPointsPerThread], lz[kPointsPerThread];
        loadITile<Real, Weighted, kLows>(catA, unit.tileA, args.tileSize, ix, iy, iz, iw, lx, ly,
                                         lz);

        for (std::uint32_t tileB = unit.tileB0; tileB < unit.tileB1; ++tileB) {
            const TileBox boxB = catB.d_tiles[tileB];
            const bool diagonal = unit.isAuto != 0 && tileB == unit.tileA;
            int oneBin = -1;
            bool mixed = bins.bruteForceSelect != 0;
            const int cls =
                bins.classifyTiles
                    ? classifyTilePair(boxA, boxB, bins, Traits<Real>::kHasLows, &oneBin, &mixed)
                    : kPrecise;
            if (cls == kSkip)
                continue;
            if (cls == kOneBin) {
                addOneBinTilePair<Regions, Weighted>(args, unit, tileB, boxA, boxB, diagonal,
                                                     static_cast<std::uint32_t>(oneBin),
                                                     taskCounts);
                continue;
            }
            if constexpr (Regions) // uniform over the block (boxes and unit are): barriers are safe
                openRegionPair<Mode, Weighted>(args, unit.task, boxA.region, boxB.region, flush,
                                               held.open, held.regionA, held.regionB, hist);
            // Far tile pairs straddling one or two edges: by projection, nothing else.
            if constexpr (Projected) {
                std::uint32_t slotLo = 0, slotHi = 0;
                if (addProjected && !diagonal &&
                    projectTilePair(boxA, boxB, bins, slotLo, slotHi)) {
                    __syncthreads(); // the staged j-tile is rewritten
                    countProjectedTilePair<Real, Weighted>(
                        args, unitIndex, tileB, boxB, slotLo, slotHi, shared, args.tileSize,
                        ProjectionShared{shared.hist, shared.hist + (binCount + 1) * stride}, hist,
                        unit, catA, catB, boxA, ix, iy, iz, iw, lx, ly, lz);
                    continue;
                }
            }
            // The unit's sub-tile masks: where the tile pair may cross the range boundary, and
            // with whole or narrow sub-tiles wherever they were made (their whole sub-tile pairs
            // are counted already, their narrow ones apart).
            const std::uint32_t unitTile = tileB - unit.tileB0;
            const std::uint32_t maskIndex = (threadIdx.x / 32) * maskedTiles + unitTile;
            const bool masked =
                cullSubTiles &&
                (diagonal || cls == kPrecise || addWholeSubTiles || addNarrow) &&
                unitTile < maskedTiles;
            const uint4* visit = masked ? shared.visit + maskIndex : nullptr;
            // Stage the j-tile.
            __syncthreads();
            stageJTile<Real, kLows>(catB, tileB, args.tileSize, shared.pts, shared.lows);
            __syncthreads();
            countPairByPair<Real, Lookup, kLows>(
                diagonal, cls, mixed, ix, iy, iz, lx, ly, lz, iw, shared.pts,
                lowPartsOf<Real, kLows>(shared.lows, catA, unit.tileA, catB, tileB, args.tileSize),
                shared.thresholds, lookup, tileSize, lowMargin, highMargin, visit, hist);
            if (masked && addNarrow && !diagonal)
                countNarrowPairs<Real, Lookup>(ix, iy, iz, shared.pts, shared.thresholds, lookup,
                                               tileSize, boxB.count, binCount,
                                               shared.narrow + maskIndex, hist);
        }
    }
    flushHeld<Regions>(flush, held);
}

/// Blocks of kMaxPairBlock per SM the plain kernel's bounds ask for: three (80 registers), or
/// four (64) for the float kernels that hold no lo parts (holdsLows), whose blocks of 64 threads
/// then fit 15 to an SM instead of 12 (the standard job's batch 2 % faster on one H200,
/// BENCHMARKS.md, "Banded kernels without the lo parts at hand").
template <class Real, LookupKind Lookup, bool Projected>
inline constexpr int kPairBlocksPerSm =
    Traits<Real>::kHasLows && !holdsLows(true, Lookup, Projected) ? 4 : 3;

/// The bounds (kPairBlocksPerSm) keep the kernel at 80 registers (three blocks of 256 per SM, as
/// before the sub-tile culling and the per-pair hi-only rule, which left alone take it to 96-99:
/// two blocks), or 64 where it holds no lo parts.
/// Projected: with projected tile pairs (pair_projection.cuh), a variant of its own: the
/// projection's call costs the other paths spills (6-12 % of a count's device time at 10°,
/// where little is projected; CudaPairCounter::planDevices picks the variant).
template <class Real, HistMode Mode, LookupKind Lookup, bool Projected>
__global__ void __launch_bounds__(kMaxPairBlock, (kPairBlocksPerSm<Real, Lookup, Projected>))
    pairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, Lookup, false, false, Projected>(args);
}

/// With regions the kernel holds a few more values across the pair loops, which would cost a
/// block per SM (92 registers instead of 70: two blocks of 256 instead of three); the bounds
/// keep it at three. Four, where it holds no lo parts, spilled 122 bytes and made the jackknife
/// job's count 4 % slower than three.
template <class Real, HistMode Mode, LookupKind Lookup, bool Projected>
__global__ void __launch_bounds__(kMaxPairBlock, 3)
    regionPairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, Lookup, true, false, Projected>(args);
}

/// The weighted variants: a separate instantiation, so the unweighted kernels stay exactly what
/// they were. The private weighted sums, the i-weights in registers and the product per pair
/// need more registers than the plain kernel's 80; the shared memory of the sums already keeps
/// fewer threads per SM, so the bounds ask for two blocks of 256 (at most 128 registers).
template <class Real, HistMode Mode, LookupKind Lookup>
__global__ void __launch_bounds__(kMaxPairBlock, 2)
    weightedPairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, Lookup, false, true>(args);
}

template <class Real, HistMode Mode, LookupKind Lookup>
__global__ void __launch_bounds__(kMaxPairBlock, 2)
    weightedRegionPairCountKernel(const __grid_constant__ PairKernelArgs args) {
    pairCount<Real, Mode, Lookup, true, true>(args);
}

using KernelFn = void (*)(PairKernelArgs);

/// The histogram paths planPairKernel tries, in order; the first that fits is the plan's.
/// Per-thread counters updated by a shared atomic measured fastest on H100 (one instruction
/// instead of load/add/store; 1.38e12 against 1.20e12 pairs/s, BENCHMARKS.md).
constexpr HistMode kHistModesInOrder[] = {HistMode::PerThreadAtomic, HistMode::PerWarp,
                                          HistMode::Global};

template <class Real, HistMode Mode, LookupKind Lookup, bool Regions, bool Weighted, bool Projected>
KernelFn kernelFor() {
    if constexpr (Weighted && Regions)
        return weightedRegionPairCountKernel<Real, Mode, Lookup>;
    else if constexpr (Weighted)
        return weightedPairCountKernel<Real, Mode, Lookup>;
    else if constexpr (Regions)
        return regionPairCountKernel<Real, Mode, Lookup, Projected>;
    else
        return pairCountKernel<Real, Mode, Lookup, Projected>;
}

/// Projected variants exist for the unweighted per-thread modes only (projectedVariant).
template <class Real, HistMode Mode, LookupKind Lookup, bool Regions, bool Weighted>
KernelFn kernelForProjection(bool projected) {
    constexpr bool kCan = !Weighted && Mode == HistMode::PerThreadAtomic;
    if constexpr (kCan)
        return projected ? kernelFor<Real, Mode, Lookup, Regions, Weighted, true>()
                         : kernelFor<Real, Mode, Lookup, Regions, Weighted, false>();
    else
        return kernelFor<Real, Mode, Lookup, Regions, Weighted, false>();
}

template <class Real, LookupKind Lookup, bool Regions, bool Weighted>
KernelFn kernelForMode(HistMode mode, bool projected) {
    switch (mode) {
    case HistMode::PerThreadAtomic:
        return kernelForProjection<Real, HistMode::PerThreadAtomic, Lookup, Regions, Weighted>(
            projected);
    case HistMode::PerWarp:
        return kernelForProjection<Real, HistMode::PerWarp, Lookup, Regions, Weighted>(projected);
    case HistMode::Global:
        return kernelForProjection<Real, HistMode::Global, Lookup, Regions, Weighted>(projected);
    }
    return nullptr;
}

template <class Real, bool Regions, bool Weighted>
KernelFn kernelForLookup(HistMode mode, LookupKind lookup, bool projected) {
    switch (lookup) {
    case LookupKind::Packed:
        return kernelForMode<Real, LookupKind::Packed, Regions, Weighted>(mode, projected);
    case LookupKind::Step:
        return kernelForMode<Real, LookupKind::Step, Regions, Weighted>(mode, projected);
    case LookupKind::Loop:
        return kernelForMode<Real, LookupKind::Loop, Regions, Weighted>(mode, projected);
    case LookupKind::Banded: // float, unweighted only (bin_bands.h): no other plan asks for it
        if constexpr (std::is_same_v<Real, float> && !Weighted)
            return kernelForMode<Real, LookupKind::Banded, Regions, Weighted>(mode, projected);
        else
            return nullptr;
    }
    return nullptr;
}

template <class Real, bool Weighted>
KernelFn kernelForLayout(HistMode mode, LookupKind lookup, bool regions, bool projected) {
    return regions ? kernelForLookup<Real, true, Weighted>(mode, lookup, projected)
                   : kernelForLookup<Real, false, Weighted>(mode, lookup, projected);
}

/// The one dispatch ladder from runtime choices to kernel instantiations.
KernelFn pairKernelFor(RealKind real, HistMode mode, LookupKind lookup, bool regions, bool weighted,
                       bool projected) {
    if (real == RealKind::Float)
        return weighted ? kernelForLayout<float, true>(mode, lookup, regions, projected)
                        : kernelForLayout<float, false>(mode, lookup, regions, projected);
    return weighted ? kernelForLayout<double, true>(mode, lookup, regions, projected)
                    : kernelForLayout<double, false>(mode, lookup, regions, projected);
}

/// Whether a plan's kernel is the projected variant: asked for, and there is one for it.
bool projectedVariant(HistMode mode, bool weighted, bool wanted) noexcept {
    return wanted && !weighted && mode == HistMode::PerThreadAtomic;
}

} // namespace

void preloadCountKernels(RealKind real) noexcept {
    preloadPrepareKernels();
    // planPairKernel's first choice of histogram; Banded has float kernels only (nullptr).
    const HistMode mode = kHistModesInOrder[0];
    cudaFuncAttributes attributes{};
    for (const LookupKind lookup :
         {LookupKind::Packed, LookupKind::Step, LookupKind::Loop, LookupKind::Banded})
        for (const bool projected : {false, true})
            if (const KernelFn kernel = pairKernelFor(real, mode, lookup, false, false, projected))
                cudaFuncGetAttributes(&attributes, kernel);
    // A failure leaves the thread's last error set; the launch checks must not see it.
    cudaGetLastError();
}

SharedLayout sharedLayout(RealKind real, HistMode mode, int blockSize, std::uint32_t binCount,
                          std::uint32_t lookupSize, LookupKind lookup, bool weighted,
                          bool narrowMasks, bool projected) noexcept {
    SharedLayout layout;
    const std::size_t tile = static_cast<std::size_t>(blockSize) * kPointsPerThread;
    const bool isFloat = real == RealKind::Float;
    std::size_t offset = tile * (isFloat ? sizeof(float4) : sizeof(DoublePoint));
    layout.lowsOffset = offset;
    offset += holdsLows(isFloat, lookup, projected) ? tile * sizeof(float4) : 0;
    offset = alignUp(offset, 16);
    layout.visitOffset = offset;
    layout.maskedTiles = unitTiles(static_cast<std::uint32_t>(tile));
    offset += static_cast<std::size_t>(blockSize) / 32 * layout.maskedTiles * sizeof(uint4);
    layout.narrowOffset = offset;
    layout.narrowMasks = narrowMasks;
    if (narrowMasks)
        offset += static_cast<std::size_t>(blockSize) / 32 * layout.maskedTiles * sizeof(uint4);
    layout.thresholdsOffset = offset;
    offset = alignUp(offset + (binCount + 2) * (isFloat ? sizeof(float) : sizeof(double)), 16);
    layout.lookupOffset = offset;
    const std::size_t cellBytes = lookup == LookupKind::Banded   ? sizeof(BandCell)
                                  : lookup != LookupKind::Packed ? sizeof(std::uint16_t)
                                  : isFloat                      ? sizeof(LookupCell<float>)
                                                                 : sizeof(LookupCell<double>);
    offset = alignUp(offset + lookupSize * cellBytes, 16);
    layout.histOffset = offset;
    switch (mode) {
    case HistMode::PerThreadAtomic:
        // A multiple of 32 words: every lane's counters lie in its own bank, whatever slots the
        // lanes of a warp add to (with blockSize + 1, lanes whose slots differ by their distance
        // collide: 1.5 accesses per add on the standard job's pairs). The projected variants
        // borrow the rows of slots 0 and binCount + 1 as bucket starts, blockSize + 1 of them.
        layout.histStride = static_cast<std::size_t>(blockSize) + (projected ? 1 : 0);
        break;
    case HistMode::PerWarp:
        layout.histStride = static_cast<std::size_t>(blockSize) / 32;
        break;
    case HistMode::Global:
        layout.histStride = 0;
        break;
    }
    offset += layout.histStride * (binCount + 2) * sizeof(std::uint32_t);
    if (weighted) {
        const std::size_t realBytes = isFloat ? sizeof(float) : sizeof(double);
        offset = weightOffsetOf(layout, binCount) + layout.histStride * (binCount + 2) * realBytes;
    }
    layout.totalBytes = alignUp(offset, 16);
    return layout;
}

KernelPlan planPairKernel(RealKind real, std::uint32_t binCount, std::uint32_t lookupSize,
                          LookupKind lookup, bool regions, int blockSizeCap,
                          std::optional<HistMode> forcedMode, bool weighted, bool projected,
                          bool narrowMasks) {
    int device = 0;
    TPACF_CUDA_TRY(cudaGetDevice(&device));
    cudaDeviceProp props{};
    TPACF_CUDA_TRY(cudaGetDeviceProperties(&props, device));
    const int cap = blockSizeCap > 0 ? std::min(blockSizeCap, kMaxPairBlock) : kMaxPairBlock;
    const std::size_t optin = props.sharedMemPerBlockOptin;

    std::vector<HistMode> modes(std::begin(kHistModesInOrder), std::end(kHistModesInOrder));
    if (forcedMode)
        modes = {*forcedMode, HistMode::Global};
    for (HistMode mode : modes) {
        const bool projectedHere = projectedVariant(mode, weighted, projected);
        KernelFn kernel = pairKernelFor(real, mode, lookup, regions, weighted, projectedHere);
        if (kernel == nullptr)
            throw CudaError("CUDA backend: no pair kernel reads this bin lookup in this precision",
                            0);
        cudaFuncAttributes attributes{};
        TPACF_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
        const std::size_t dynamicLimit = optin - attributes.sharedSizeBytes;
        TPACF_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(dynamicLimit)));
        // Private copies per thread only while they leave room for several blocks per SM.
        const bool perThread = mode == HistMode::PerThreadAtomic;
        const std::size_t budget = perThread ? props.sharedMemPerMultiprocessor / 4 : dynamicLimit;
        int best = 0;
        for (int block = cap; block >= 64; block -= 32) {
            const SharedLayout layout = sharedLayout(real, mode, block, binCount, lookupSize,
                                                     lookup, weighted, narrowMasks, projectedHere);
            if (layout.totalBytes <= budget) {
                best = block;
                break;
            }
        }
        if (best == 0)
            continue;
        int minGrid = 0, blockSize = 0;
        auto smemFor = [&](int block) {
            return static_cast<std::size_t>(sharedLayout(real, mode, block, binCount, lookupSize,
                                                         lookup, weighted, narrowMasks,
                                                         projectedHere)
                                                .totalBytes);
        };
        TPACF_CUDA_TRY(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&minGrid, &blockSize, kernel,
                                                                      smemFor, best));
        blockSize = std::max(64, blockSize / 32 * 32);
        if (smemFor(blockSize) > budget)
            blockSize = best;
        KernelPlan plan;
        plan.real = real;
        plan.hist = mode;
        plan.lookup = lookup;
        plan.regions = regions;
        plan.weighted = weighted;
        plan.projected = projectedHere;
        plan.blockSize = blockSize;
        plan.tileSize = blockSize * kPointsPerThread;
        plan.layout = sharedLayout(real, mode, blockSize, binCount, lookupSize, lookup, weighted,
                                   narrowMasks, projectedHere);
        TPACF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &plan.blocksPerSm, kernel, blockSize, plan.layout.totalBytes));
        if (plan.blocksPerSm <= 0)
            continue;
        plan.gridSize = plan.blocksPerSm * props.multiProcessorCount;
        return plan;
    }
    throw CudaError("no launch configuration of the pair kernel fits this device", 0);
}

void launchPairKernel(const KernelPlan& plan, const PairKernelArgs& args, int gridSize,
                      cudaStream_t stream) {
    KernelFn kernel = pairKernelFor(plan.real, plan.hist, plan.lookup, plan.regions, plan.weighted,
                                    plan.projected);
    kernel<<<gridSize, plan.blockSize, plan.layout.totalBytes, stream>>>(args);
    TPACF_CUDA_CHECK_LAUNCH("pairCountKernel");
}

} // namespace tpacf::cuda::detail
