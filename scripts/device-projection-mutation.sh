#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a GPU machine, from the repository root: shows that the culling suite catches a wrong
# projection. For each mutation below, a copy of the sources (the tree itself is not touched) is
# built with one term of the projection's band cuts (pair_projection.cuh, BandCuts) changed, and
# tpacf_gpu_culling_tests --quick runs against it: it must fail, naming bins whose counts differ
# from brute force. The copies build side by side. Exit 0 when the suite failed against every
# mutation, 1 when it passed against one, 2 when nothing could be shown (no GPU, a build error,
# a term not found).
#   scripts/device-projection-mutation.sh   (BUILD_JOBS=N to cap each build's jobs)
set -uo pipefail
cd "$(dirname "$0")/.."
# name | the term as the source has it | what the mutation puts there
MUTATIONS=(
    "band blind to the mixed term (2 R_B times the length of α⊥)|__dmul_rn(2.0, __dmul_rn(__dsqrt_rn(perp2), rb))|__dmul_rn(0.0, __dmul_rn(__dsqrt_rn(perp2), rb))"
    "cuts not divided by 1 + s|perV = __drcp_rn(__dadd_rn(1.0, share));|perV = 1.0;"
)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
JOBS=${BUILD_JOBS:-$(( $(nproc) / ${#MUTATIONS[@]} + 1 ))}

. scripts/lib/edited-copies.sh
mutate() { # index: a copy with mutation index applied, built
    local name from to
    IFS='|' read -r name from to <<< "${MUTATIONS[$1]}"
    edited_copy "$WORK/m$1" kernels/src/pair_projection.cuh "$from" "$to" &&
        build_copy "$WORK/m$1" "$JOBS" tpacf_gpu_culling_tests ||
        { echo "$name: no copy could be built" >&2; return 2; }
}

pids=()
for i in "${!MUTATIONS[@]}"; do mutate "$i" & pids+=($!); done
built=0
for i in "${!pids[@]}"; do wait "${pids[$i]}" && built=$((built + 1)); done
[ "$built" = "${#MUTATIONS[@]}" ] || exit 2

status=0
for i in "${!MUTATIONS[@]}"; do
    IFS='|' read -r name _ _ <<< "${MUTATIONS[$i]}"
    copy="$WORK/m$i"
    "$copy/build/headless/tests/gpu/tpacf_gpu_culling_tests" --quick > "$copy/suite.log" 2>&1
    rc=$?
    grep -E "^SKIP" "$copy/suite.log" && exit 2
    echo "mutation: $name"
    grep -E "^(PASS|FAIL): [0-9]" "$copy/suite.log"
    grep -m3 -E "^FAIL .*expected" "$copy/suite.log"
    if [ "$rc" -ne 0 ]; then
        echo "the suite caught it"
    else
        echo "the suite passed against it" >&2
        status=1
    fi
done
exit $status
