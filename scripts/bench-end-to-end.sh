#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where the standard job's wall time goes (BENCHMARKS.md, "End-to-end speed"): in the folder of
# ../shared/bench/standard-job.sh (d.txt, r0..r9.txt; run that script first), `tpacf run
# --timings` of the job in each precision, with --jackknife 32 and with near-empty bins on each
# backend; then the ASCII reader alone (`tpacf bench --read`, all threads and 2), the kernel at
# N = 2^20 over the full range, and the CPU DD of 10^6 points to 10 degrees.
#   usage: bench-end-to-end.sh PATH/TO/tpacf [WORK=/tmp/tpacf-standard-job]
set -uo pipefail
T=$(realpath "$1"); cd "${2:-/tmp/tpacf-standard-job}" || exit 1
R=(); for i in $(seq 0 9); do R+=(--random "r$i.txt"); done
BINS=(--bins log --min 0.01 --max 600 --unit arcmin --nbins 30)
EMPTY=(--bins log --min 0.0001 --max 0.0002 --unit arcmin --nbins 2)
timed() { # label, then the tpacf run arguments; the per-random-file lines are left out
  echo "--- $1"; shift
  "$T" run --data d.txt "${R[@]}" "$@" --output timed.csv --quiet --timings 2>&1 | grep -v "^  *r[0-9].txt"
}
for p in float double auto; do timed "precision $p" "${BINS[@]}" --backend cuda --precision $p; done
timed "jackknife 32" "${BINS[@]}" --backend cuda --jackknife 32
timed "near-empty bins, cuda" "${EMPTY[@]}" --backend cuda
timed "near-empty bins, cpu" "${EMPTY[@]}" --backend cpu
"$T" bench --read d.txt --repeat 5
"$T" bench --read d.txt --repeat 5 --threads 2
"$T" bench --backend cuda --precision all --n 1048576 --bins 30 --theta-min 0.01 --theta-max 10800 --unit arcmin --repeat 3
"$T" bench --backend cpu --n 1000000 --bins 30 --theta-min 0.01 --theta-max 600 --unit arcmin --culling on --repeat 3
