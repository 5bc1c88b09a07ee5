#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Times a whole `tpacf run` (reading, k-means regions, reordering, DD + DR + RR, estimator,
# writing) with and without --jackknife K on a clustered full-sky mock and as many randoms,
# default bins (log5), on the CUDA backend in float and double; 3 runs each, in turns.
#   scripts/bench-jackknife-job.sh TPACF N K [WORKDIR]
# TPACF_BENCH_BACKEND (default cuda) and TPACF_BENCH_PRECISIONS (default "float double") change
# the backend and precisions (the CPU backend counts in double only).
# Prints one line per run: the process's wall time and the job's own elapsed time (CSV metadata).
set -euo pipefail
tpacf=$1 n=$2 k=$3 work=${4:-$(mktemp -d)}
mkdir -p "$work"
"$tpacf" mock --n "$n" --seed 3 --output "$work/d.txt" --randoms "$n" --random-output "$work/r.txt"
for precision in ${TPACF_BENCH_PRECISIONS:-float double}; do
    for rep in 1 2 3; do
        for regions in 0 "$k"; do
            extra=()
            ((regions > 0)) && extra=(--jackknife "$regions")
            start=$(date +%s%N)
            "$tpacf" run --backend "${TPACF_BENCH_BACKEND:-cuda}" --precision "$precision" --quiet --data "$work/d.txt" \
                --random "$work/r.txt" "${extra[@]}" --output "$work/w.csv"
            end=$(date +%s%N)
            elapsed=$(grep -m1 '^# elapsed' "$work/w.csv" | sed 's/^# elapsed:* *//')
            printf 'jackknife-job precision=%-6s K=%-3s rep=%s process %6.3f s  job elapsed %s\n' \
                "$precision" "$regions" "$rep" "$(((end - start) / 1000000))e-3" "$elapsed"
        done
    done
done
