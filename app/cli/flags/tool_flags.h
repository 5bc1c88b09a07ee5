// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf mock, combine and devices: their flags, one row each.
#include "common_flags.h"

namespace tpacf::cli::flags {

namespace mock {

inline constexpr Flag kN{"--n", Value, "N", "points in the clustered mock"};
inline constexpr Flag kSeed{"--seed", Value, "S", "seed of the mock (default 1)"};
inline constexpr Flag kOutput{"--output", Value, "FILE", "where the mock goes (required with --n)"};
inline constexpr Flag kRandoms{"--randoms", Value, "M", "uniform random points"};
inline constexpr Flag kRandomOutput{"--random-output", Value, "F",
                                    "where the randoms go (required with --randoms)"};
inline constexpr Flag kRandomSeed{
    "--random-seed", Value, "S2",
    "seed of the randoms (default: --seed + 1, so they differ from the mock)"};
inline constexpr Flag kQuiet{
    "--quiet", Switch, {}, "no summary on stdout (the files are written all the same)"};
inline constexpr const Flag* kCatalogFlags[] = {
    &kN, &kSeed, &kOutput, &kRandoms, &kRandomOutput, &kRandomSeed, &kQuiet};
inline constexpr FlagGroup kCatalogGroup{"Catalogs", kCatalogFlags};
inline constexpr Flag kMask{
    "--mask", Value, "FILE",
    "draw the randoms inside a HEALPix map or MOC (FITS) instead of a\n"
    "footprint: uniform on the sphere, thinned by the map's completeness;\n"
    "the same file for the same seed on any number of threads"};
inline constexpr Flag kMaskColumn{"--mask-column", Value, "C",
                                  "the map's column of completeness (default: the first\n"
                                  "numeric column that is not PIXEL)"};
inline constexpr const Flag* kFootprintFlags[] = {&kFootprint, &kMask, &kMaskColumn};
inline constexpr FlagGroup kFootprintGroup{"Footprint", kFootprintFlags};
inline constexpr FlagGroup kClusteringGroup{"Clustering (Soneira-Peebles)", kClusteringFlags};
inline constexpr const FlagGroup* kGroups[] = {&kCatalogGroup, &kFootprintGroup, &kClusteringGroup};

} // namespace mock

/// tpacf mock.
inline constexpr CommandFlags kMockFlags{"mock", mock::kGroups};

namespace combine {

inline constexpr Flag kOutput{
    "--output", Value, "FILE",
    "the combined count file (JSON, or FITS by its name; never one of the\n"
    "parts)"};
inline constexpr Flag kPartial{
    "--partial",
    Switch,
    {},
    "write the sum even when parts are missing (it can be combined later\n"
    "with the rest); without it, missing parts are an error that names them"};
inline constexpr Flag kQuiet{"--quiet", Switch, {}, "no summary on stdout"};
inline constexpr const Flag* kFlags[] = {&kOutput, &kPartial, &kQuiet};
inline constexpr FlagGroup kGroup{"Options", kFlags};
inline constexpr const FlagGroup* kGroups[] = {&kGroup};

} // namespace combine

/// tpacf combine (the count files themselves are positional).
inline constexpr CommandFlags kCombineFlags{"combine", combine::kGroups};

namespace devices {

inline constexpr Flag kThreads{"--threads", Value, "N",
                               "show the CPU backend as configured with N threads (default: all)"};
inline constexpr const Flag* kFlags[] = {&kThreads};
inline constexpr FlagGroup kGroup{"Options", kFlags};
inline constexpr const FlagGroup* kGroups[] = {&kGroup};

} // namespace devices

/// tpacf devices.
inline constexpr CommandFlags kDevicesFlags{"devices", devices::kGroups};

} // namespace tpacf::cli::flags
