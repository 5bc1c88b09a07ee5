#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One call on a GPU machine, from the repository root: build (headless preset, CUDA for sm_90, the
# suites), run every GPU suite (the large ones with --quick), the multi-tau benches for P = 32, 64,
# 8 and the default, and the standard job. Logs in $OUT (default /tmp/out).
#   scripts/device-all-suites.sh [PATH/TO/standard-job.sh]   (default ../shared/bench/standard-job.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
JOB=${1:-../shared/bench/standard-job.sh}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpus.txt"
cmake --preset headless -DTPACF_CUDA=ON -DBUILD_TESTING=ON -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/cfg.log" 2>&1 || { tail -30 "$OUT/cfg.log"; exit 1; }
cmake --build build/headless -j "$(nproc)" > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
echo "build: $((SECONDS - start)) s"
B=build/headless
run() { local t=$1; shift; local s=$SECONDS; timeout "$t" "$@" > "$OUT/$(basename "$1")${2:-}.log" 2>&1; local rc=$?; echo "$(basename "$1") ${2:-}: rc=$rc $((SECONDS - s)) s: $(grep -E '^(PASS|FAIL|SKIP)' "$OUT/$(basename "$1")${2:-}.log" | tail -3 | tr '\n' ' ')"; }
run 120 $B/tests/gpu/tpacf_gpu_half_turn_tests
run 200 $B/tests/gpu/tpacf_gpu_multitau_tests
run 150 $B/tests/gpu/tpacf_gpu_tests --quick
run 120 $B/tests/gpu/tpacf_gpu_region_tests --quick
run 150 $B/tests/gpu/tpacf_gpu_culling_tests --quick
run 100 $B/tests/gpu/tpacf_gpu_work_share_tests --quick
run 120 $B/tests/gpu/tpacf_gpu_weighted_tests --quick
run 120 $B/tests/gpu/tpacf_gpu_chunked_tests
run 120 $B/tests/gpu/tpacf_gpu_separation_tests --quick
run 60 $B/tests/gpu/tpacf_gpu_kd_groups_test
run 60 $B/tests/gpu/tpacf_gpu_device_traversal_test
run 60 $B/tests/gpu/tpacf_gpu_lab_tests --quick
run 60 $B/tests/gpu/tpacf_gpu_device_listing_tests all
run 60 $B/tests/gpu/tpacf_gpu_device_listing_tests reserve
for t in tpacf_gpu_lookup_test tpacf_gpu_device_model_test; do [ -x $B/tests/gpu/$t ] && run 60 $B/tests/gpu/$t; done
T=$B/app/tpacf
{ for p in 32 64 8; do $T autocorr --bench --backend cuda --channels 1024 --frames 131072 --chunk 65536 --lags-per-level $p --repeat 3 --check --devices 0 2>&1 | tail -4; done; } > "$OUT/autocorr.log" 2>&1
$T autocorr --bench --backend cuda --channels 1024 --frames 262144 --chunk 65536 --repeat 5 --check --devices 0 >> "$OUT/autocorr.log" 2>&1
grep -iE "samples/s|identical|device" "$OUT/autocorr.log" | head -20
echo "elapsed before standard job: $((SECONDS - start)) s"
timeout 200 bash "$JOB" "$PWD/$T" 2>&1 | tee "$OUT/standard-job.txt"
echo "total: $((SECONDS - start)) s"
