#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a GPU machine, from the repository root: where the device time of a full-range count goes
# in the projected tile pairs. Four copies of the sources (the tree itself is not touched) are
# built side by side: as they are, and three timing-only ones whose counts are wrong on purpose
# (pair_projection.cuh): the band's pairs not computed (their keys still compared), the per
# i-point scan left out (the sorts kept), and the projection returning at once. Each runs DD
# float over 0.01'-180° at N = 2^20 and 2^22; the differences are the band's c², the scan, and
# the sorts (BENCHMARKS.md, "Projected tile pairs II").
#   scripts/device-projection-costs.sh   (BUILD_JOBS=N to cap each build's jobs)
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/edited-copies.sh
# name | the text as the source has it | what the timing-only copy puts there
VARIANTS=(
    "shipped||"
    "no band c²|atOrAbove += point.chord2(staged, s_lo, j) >= edge ? 1u : 0u;|atOrAbove += 0u;"
    "no scan|for (std::uint32_t at = threadIdx.x; at < iCount; at += blockDim.x) {|for (std::uint32_t at = threadIdx.x; at < 0u; at += blockDim.x) {"
    "no projection work|    double p[3], q[3], d[3];|    if (tileSize != 0)
        return;
    double p[3], q[3], d[3];"
)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
JOBS=${BUILD_JOBS:-$(( $(nproc) / ${#VARIANTS[@]} + 1 ))}

variant() { # index: the copy of variant index, built
    local name from to
    IFS='|' read -r -d '' name from to <<< "${VARIANTS[$1]}"
    to=${to%$'\n'}
    edited_copy "$WORK/v$1" kernels/src/pair_projection.cuh "$from" "$to" &&
        build_copy "$WORK/v$1" "$JOBS" tpacf ||
        { echo "$name: no copy could be built" >&2; return 2; }
}

pids=()
for i in "${!VARIANTS[@]}"; do variant "$i" & pids+=($!); done
for pid in "${pids[@]}"; do wait "$pid" || exit 2; done

for n in 1048576 4194304; do
    repeat=$([ "$n" = 1048576 ] && echo 5 || echo 3)
    for i in "${!VARIANTS[@]}"; do
        IFS='|' read -r -d '' name _ _ <<< "${VARIANTS[$i]}"
        printf 'N = %-8s %-20s ' "$n" "$name"
        "$WORK/v$i/build/headless/app/tpacf" bench --backend cuda --only dd --nbins 30 \
            --min 0.01 --max 10800 --unit arcmin --precision float --n "$n" --repeat "$repeat" \
            2>&1 | awk '/^cuda/ {print "wall " $(NF-9) " s, device " $(NF-7) " s"}'
    done
done
