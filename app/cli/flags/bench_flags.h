// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf bench: its flags, one row each. The bins take run's names (--nbins, --min, --max);
// bench's names of old are their aliases.
#include "common_flags.h"

namespace tpacf::cli::flags {

namespace bench {

inline constexpr Flag kBackend{
    "--backend", Value, "B",
    "cpu{backend-modules} or all (default all; unavailable ones are listed as "
    "skipped)"};
inline constexpr Flag kPrecision{
    "--precision", Value, "P",
    "double, float or all (default all; the CPU backend is double only)"};
inline constexpr Flag kN{"--n", Value, "N", "points per catalog (default 10000)"};
inline constexpr Flag kNbins{
    "--nbins", Value, "N", "number of log bins (default 30)", {{{"--bins"}}}};
inline constexpr Flag kMin{
    "--min", Value, "X", "smallest bin edge, in --unit (default 0.01)", {{{"--theta-min"}}}};
inline constexpr Flag kMax{
    "--max", Value, "Y", "largest bin edge, in --unit (default 10000)", {{{"--theta-max"}}}};
inline constexpr Flag kSets{"--sets", Value, "S",
                            "random sets of the batch measurement (default 0: no batch)"};
inline constexpr Flag kClustered{
    "--clustered",
    Switch,
    {},
    "the data catalog is a Soneira-Peebles clustered mock, as 'tpacf mock'\n"
    "writes it, instead of uniform (the randoms stay uniform); shaped by:"};
inline constexpr Flag kWeighted{
    "--weighted",
    Switch,
    {},
    "give every catalog per-object weights (seeded, uniform in [0.5, 1.5]):\n"
    "every count is then weighted (sum of w_i*w_j per bin beside the raw counts),\n"
    "to compare with the unweighted pairs/s on the same points"};
inline constexpr Flag kRepeat{"--repeat", Value, "R", "timed runs per measurement (default 3)"};
inline constexpr Flag kSeed{"--seed", Value, "S", "seed of the generated points (default 1)"};
inline constexpr Flag kThreads{
    "--threads", Value, "N",
    "CPU threads, also of --read's parser (default: all hardware threads)"};
inline constexpr Flag kDevices{
    "--devices", Value, "LIST",
    "GPU indices, e.g. 0,1 (default: every visible GPU; under MPI each rank\n"
    "its own share of its host's GPUs)"};
inline constexpr Flag kGpuMemoryLimit{
    "--gpu-memory-limit", Value, "SIZE",
    "the most memory of each GPU the catalogs may take (e.g. 6G); larger\n"
    "catalogs are streamed through the GPU in pieces (timed with it)"};
inline constexpr Flag kOnly{"--only", Value, "dd|dr",
                            "measure only DD (no second catalog is generated) or only DR"};
inline constexpr Flag kCpuKernel{
    "--cpu-kernel", Value, "K",
    "the CPU backend's inner loops timed: best (this processor's fastest),\n"
    "portable, or all (default: best and, where they differ, portable)"};
inline constexpr Flag kNoWarmUp{
    "--no-warm-up", Switch, {}, "time the first run too (counts too large to run twice)"};
inline constexpr Flag kJson{
    "--json", Switch, {}, "machine-readable report on stdout instead of the table"};
inline constexpr Flag kQuiet{
    "--quiet", Switch, {}, "no progress bars on the terminal (the report is written all the same)"};
inline constexpr Flag kRead{"--read", Value, "FILE",
                            "time reading FILE instead of pair counting (see above)"};
inline constexpr const Flag* kFlags[] = {
    &kBackend, &kPrecision, &kN,         &kNbins,  &kMin,     &kMax,     &kUnit,
    &kSets,    &kFootprint, &kClustered, &kLevels, &kEta,     &kLambda,  &kOuterRadius,
    &kCulling, &kWeighted,  &kRepeat,    &kSeed,   &kThreads, &kDevices, &kGpuMemoryLimit,
    &kOnly,    &kCpuKernel, &kNoWarmUp,  &kJson,   &kQuiet,   &kRead};
inline constexpr FlagGroup kGroup{"Options", kFlags};

inline constexpr Flag kCudaHist{"--cuda-hist", Value, "H",
                                "force the histogram path: thread-atomic, warp or global\n"
                                "(default: the planner's choice)"};
inline constexpr Flag kCudaBruteForce{
    "--cuda-brute-force",
    Switch,
    {},
    "brute force whatever --culling says: every tile pair, every pair computed"};
inline constexpr Flag kCudaTrace{
    "--cuda-trace",
    Switch,
    {},
    "note where each count's wall time went: host seconds from its start to\n"
    "each device's catalogs issued, work list ready, first and last launch"};
inline constexpr Flag kCudaBlock{"--cuda-block", Value, "N",
                                 "cap the pair kernel's block size: a multiple of 32 in 64..256"};
inline constexpr Flag kCudaSubtiles{
    "--cuda-subtiles", Value, "on|off",
    "with culling, skip out-of-range 32-point sub-tiles (default on)"};
inline constexpr Flag kCudaWholeSubtiles{
    "--cuda-whole-subtiles", Value, "on|off",
    "with culling, add whole the 32-point sub-tile pairs that lie in one bin\n"
    "(default on)"};
inline constexpr Flag kCudaNarrowSubtiles{
    "--cuda-narrow-subtiles", Value, "on|off",
    "with culling, count the 32-point sub-tile pairs that lie in two neighbouring\n"
    "bins by compares instead of a bin lookup per pair (default on)"};
inline constexpr Flag kCudaBandedLookup{
    "--cuda-banded-lookup", Value, "on|off",
    "float, culled, unweighted, bins below 29 degrees: bin a pair on its hi parts\n"
    "alone where the lo parts provably cannot move it across an edge (default on)"};
inline constexpr Flag kCudaProjection{
    "--cuda-projection", Value, "auto|on|off",
    "with culling, count the tile pairs that straddle one or two bin edges far from\n"
    "both tiles by ranking projections, computing only the pairs near an edge: auto\n"
    "beyond 20 degrees (the default), on at every theta_max, or off"};
inline constexpr Flag kCudaProjectionReach{
    "--cuda-projection-reach", Value, "X",
    "project the tile pairs whose edges in range times their boxes' half-diagonals\n"
    "is at most X times their centres' distance, 0 < X <= 16 (default 1)"};
inline constexpr Flag kCudaTileOrder{
    "--cuda-tile-order", Value, "auto|curve|kd",
    "the points' order on the device, which makes the tiles: the sky curve's, or\n"
    "refined into k-d groups of 8192 points (compacter tiles): auto (the default:\n"
    "k-d groups where theta_max <= 20 degrees without jackknife regions), curve, or\n"
    "kd (k-d groups everywhere, inside each region with regions)"};
inline constexpr Flag kCudaRegionLevel{
    "--cuda-region-level", Value, "L",
    "coarse cells of the jackknife region layout, 0..5 (default 0)"};
inline constexpr Flag kCudaSharedUploads{
    "--cuda-shared-uploads", Value, "auto|all|off",
    "with several GPUs that reach each other's memory, each uploads a part of a\n"
    "catalog and copies the rest from the others: auto (catalogs of 2^18 points\n"
    "or more, the default), all (every catalog, each GPU waiting for the others'\n"
    "parts), or off"};
inline constexpr const Flag* kCudaFlags[] = {
    &kCudaHist,         &kCudaBruteForce,      &kCudaTrace,          &kCudaBlock,
    &kCudaSubtiles,     &kCudaWholeSubtiles,   &kCudaNarrowSubtiles, &kCudaBandedLookup,
    &kCudaProjection,   &kCudaProjectionReach, &kCudaTileOrder,      &kCudaRegionLevel,
    &kCudaSharedUploads};
inline constexpr FlagGroup kCudaGroup{
    "CUDA tuning (benchmarks of the kernel's variants; no count changes, only the speed)",
    kCudaFlags};

inline constexpr const FlagGroup* kGroups[] = {&kGroup, &kCudaGroup};

} // namespace bench

/// tpacf bench.
inline constexpr CommandFlags kBenchFlags{"bench", bench::kGroups};

} // namespace tpacf::cli::flags
