// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA backend behind a plain C++ header: no CUDA type leaks out of kernels/.
#include "tpacf/backend.h"
#include "tpacf/cuda/cuda_error.h"
#include "tpacf/errors.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tpacf::cuda {

/// Where the pair kernel keeps each block's private histogram (what `--cuda-hist` names).
enum class CudaHistogram {
    Auto,            ///< the planner's choice (per-thread with shared atomics where it fits)
    PerThreadAtomic, ///< "thread-atomic": per-thread counters, shared atomics
    PerWarp,         ///< "warp": per-warp counters, shared atomics
    Global,          ///< "global": straight into the 64-bit global counters
};

/// Which counts project their far tile pairs (what `--cuda-projection` names).
enum class CudaProjection {
    Auto, ///< culled counts whose θ_max is beyond the small tiles' 20°
    On,   ///< every culled count, whatever θ_max
    Off,  ///< none
};

/// The order a catalog's points take on the device, which makes its tiles (what
/// `--cuda-tile-order` names).
enum class CudaTileOrder {
    Auto,  ///< the planner's choice (kd_groups.h says where k-d groups apply)
    Curve, ///< the sky curve's order alone
    Kd,    ///< the curve's order refined into k-d groups wherever they apply
};

/// Which catalogs several GPUs upload in parts, each copying the others' parts from them (what
/// `--cuda-shared-uploads` names).
enum class CudaSharedUploads {
    Auto, ///< catalogs of 2^18 points or more, where the GPUs reach each other's memory; a GPU
          ///< uploads a part itself when its owner is later than its own part took
    All,  ///< every catalog, each GPU waiting for the others' parts (tests: every part crosses)
    Off,  ///< none: every GPU uploads every catalog whole
};

/// Benchmark and test settings of the CUDA backend, fixed when a counter is created and never
/// read from the environment (so nothing outside the program can change what it computes). The
/// defaults are what every real run uses; none of them changes a count, only the speed.
struct CudaTuning {
    CudaHistogram histogram = CudaHistogram::Auto;
    /// Brute force whatever setCulling says: the dense tile-pair list, every pair computed.
    bool bruteForce = false;
    /// Largest block of the pair kernel: 0 (the planner's choice) or a multiple of 32 in
    /// [64, 256]; a tile is 4 points per thread.
    int blockSizeCap = 0;
    /// With culling: skip the out-of-range 32-point sub-tiles inside a tile pair.
    bool subTileCulling = true;
    /// With sub-tile culling, unweighted counts without regions: add whole the sub-tile pairs
    /// (32 x 32 points) whose pairs all lie in one bin instead of computing them.
    bool wholeSubTiles = true;
    /// With sub-tile culling, unweighted counts: count the sub-tile pairs whose pairs lie in two
    /// neighbouring bins at most (a bin edge or the range's) by two compares per pair instead of
    /// a bin lookup and a histogram update.
    bool narrowSubTiles = true;
    /// Float, culled, unweighted, bins wholly below 29°: bin each pair on its hi parts alone
    /// where they are provably far enough from every edge (the banded lookup), else on its full
    /// c².
    bool bandedLookup = true;
    /// With culling, unweighted counts: count the tile pairs that straddle one or two bin edges
    /// far from both tiles by ranking their points' projections, computing only the pairs near
    /// an edge, instead of sub-tile by sub-tile. Auto: where θ_max is above 20° (the small
    /// tiles' limit); below it the projected variant measured slower on uniform skies and faster
    /// on dense fields (BENCHMARKS.md, "Projected tile pairs II").
    CudaProjection projection = CudaProjection::Auto;
    /// Which tile pairs are projected: those whose edges inside their range times the sum of
    /// the two boxes' half-diagonals is at most this times the distance of their centres.
    /// Larger: more tile pairs projected, with wider bands (tests raise it to project most).
    double projectionReach = 1.0;
    /// The points' order on the device: the sky curve's, or refined into k-d groups (compacter
    /// tiles; in the region layout, runs inside one region's stretch). Auto: see kdGroupsWanted
    /// (kd_groups.h).
    CudaTileOrder tileOrder = CudaTileOrder::Auto;
    /// Region (jackknife) layout: coarse cells of 2^level per axis, 0 to 5 (0: by region alone).
    int regionCellLevel = 0;
    /// Several GPUs that reach each other's memory: each uploads a part of the catalogs from
    /// the host and copies the other parts from the other GPUs.
    CudaSharedUploads sharedUploads = CudaSharedUploads::Auto;
    /// A note per batch of where its wall time went on the host and on each device (setup, the
    /// catalogs issued, the work list ready, first and last launch, end): `--cuda-trace`.
    bool trace = false;

    /// Throws ConfigError naming the setting that is out of range.
    void validate() const;
    /// "" for the defaults, else e.g. "hist=warp, block<=128, brute force".
    std::string describe() const;
};

/// "auto", "on", "off".
std::optional<CudaProjection> parseCudaProjection(std::string_view text) noexcept;

/// "auto", "curve", "kd".
std::optional<CudaTileOrder> parseCudaTileOrder(std::string_view text) noexcept;

/// "auto", "all", "off".
std::optional<CudaSharedUploads> parseCudaSharedUploads(std::string_view text) noexcept;

/// "thread-atomic", "warp", "global" (and "auto").
std::optional<CudaHistogram> parseCudaHistogram(std::string_view text) noexcept;
std::string_view cudaHistogramName(CudaHistogram histogram) noexcept;

/// The CUDA module's provider; its counters use `tuning` (validated here: ConfigError). Always
/// available to link: in a build without CUDA it reports "built without CUDA support" and offers
/// no devices.
std::unique_ptr<BackendModule> makeProvider(const CudaTuning& tuning = {});

} // namespace tpacf::cuda
