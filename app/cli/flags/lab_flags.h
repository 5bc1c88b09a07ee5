// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf lab: its flags, one row each. Its catalogs take count's names (--a, --b); the lab's
// names of old are their aliases.
#include "common_flags.h"

namespace tpacf::cli::flags {

namespace lab {

inline constexpr Flag kN{"--n", Value, "N",
                         "points of the generated catalog (default 10000: uniform in a cap of\n"
                         "radius 5 deg, dense enough that the arcminute bins hold pairs)"};
inline constexpr Flag kSeed{"--seed", Value, "S", "seed of the generated points (default 1)"};
inline constexpr Flag kA{
    "--a", Value, "FILE", "count this catalog instead (auto count)", {{{"--data"}}}};
inline constexpr Flag kB{
    "--b", Value, "FILE", "with --a: count a x b (a cross count) instead", {{{"--random"}}}};
inline constexpr Flag kBackend{
    "--backend", Value, "B",
    "cpu{backend-modules} or all (default all: every backend with a device)"};
inline constexpr Flag kVariants{"--variants", Value, "LIST",
                                "only these variants, by key (see --list)"};
inline constexpr Flag kRepeat{"--repeat", Value, "R",
                              "timed runs per variant, the best is kept (default 1)"};
inline constexpr Flag kThreads{
    "--threads", Value, "T", "CPU threads of the threaded rungs and the reference (default: all)"};
inline constexpr Flag kJson{"--json", Switch, {}, "the report as JSON on stdout"};
inline constexpr Flag kQuiet{
    "--quiet", Switch, {}, "no progress bar on the terminal (the report is written all the same)"};
inline constexpr Flag kList{"--list", Switch, {}, "the variants, their keys and backends"};
inline constexpr Flag kExplain{"--explain", Value, "KEY",
                               "a variant's explanation and the code it runs (its key lines)"};
inline constexpr Flag kDemo{
    "--demo", Value, "D",
    "a demonstration instead of the ladder, on the CPU:\n"
    "precision: binning on the float dot product against chord^2 thresholds,\n"
    "0.01'-1' (default catalog: N points in a cap of radius 0.5 deg);\n"
    "overflow: one bin 0-180 deg counted with 32-bit and 64-bit counters\n"
    "(default N = 100000 over the whole sky: 4,999,950,000 pairs, ~10 s on\n"
    "2 cores)"};
inline constexpr const Flag* kFlags[] = {&kN,        &kSeed,    &kA,       &kB,    &kBackend,
                                         &kVariants, &kRepeat,  &kThreads, &kJson, &kQuiet,
                                         &kList,     &kExplain, &kDemo};
inline constexpr FlagGroup kGroup{"Options", kFlags};

inline constexpr const FlagGroup* kGroups[] = {&kGroup, &kReadGroup, &kBinGroup};

} // namespace lab

/// tpacf lab.
inline constexpr CommandFlags kLabFlags{"lab", lab::kGroups};

} // namespace tpacf::cli::flags
