#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One-shot check on a GPU machine, from the repository root: configure (headless preset, CUDA on,
# tests on), build, `tpacf devices`, the GPU suite, the benchmarks, a SASS/ptxas report.
# Every step's output goes to $OUT/<step>.log (default ./out/device-check); a summary ends it.
#   scripts/device-check.sh [--quick|--bench-only]
#     --quick: GPU suites without their largest cases, short benches
#     --bench-only: build and benchmarks, no test suites (after a run that tested the same tree)
# The spatial-culling targets (issue "Spatial culling") run in both modes: tpacf_gpu_bench --culling,
# and the same cases through `tpacf bench --culling on|off` where the CLI has that flag.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out/device-check}
mkdir -p "$OUT"
QUICK=0
BENCH_ONLY=0
[[ "${1:-}" == "--quick" ]] && QUICK=1
[[ "${1:-}" == "--bench-only" ]] && BENCH_ONLY=1
BUILD=build/headless
declare -a SUMMARY

step() { # step NAME LOG COMMAND...: runs, appends to $OUT/LOG.log, records status and seconds
    local name=$1 log=$2; shift 2
    local start=$SECONDS
    echo "=== $name: $*" | tee -a "$OUT/$log.log"
    "$@" 2>&1 | tee -a "$OUT/$log.log"
    local rc=${PIPESTATUS[0]}
    SUMMARY+=("$(printf '%-14s rc=%-3s %5ss' "$name" "$rc" "$((SECONDS - start))")")
    return "$rc"
}

step nvidia-smi devices nvidia-smi
step build build bash -c "cmake --preset headless -DTPACF_CUDA=ON -DBUILD_TESTING=ON -DTPACF_CUDA_PTXAS_VERBOSE=ON \
    && cmake --build $BUILD -j \$(nproc) --target tpacf_gpu_tests tpacf_gpu_region_tests tpacf_gpu_culling_tests tpacf_gpu_work_share_tests tpacf_gpu_bench" || { printf '%s\n' "${SUMMARY[@]}"; exit 1; }
# The CLI (and anything else) separately: the GPU suite runs even if another part does not build.
step build-all build cmake --build $BUILD -j "$(nproc)"
TPACF=$BUILD/app/tpacf
step devices devices "$TPACF" devices
if [[ $BENCH_ONLY == 1 ]]; then
    echo "--bench-only: test suites not run"
elif [[ $QUICK == 1 ]]; then
    step gpu-tests gpu-tests timeout 300 "$BUILD/tests/gpu/tpacf_gpu_tests" --quick
    step region-tests gpu-tests timeout 300 "$BUILD/tests/gpu/tpacf_gpu_region_tests" --quick
    step culling-tests gpu-tests timeout 300 "$BUILD/tests/gpu/tpacf_gpu_culling_tests" --quick
    step share-tests gpu-tests timeout 300 "$BUILD/tests/gpu/tpacf_gpu_work_share_tests" --quick
else
    step gpu-tests gpu-tests ctest --test-dir "$BUILD" -L gpu -V --timeout 360
fi

# Benchmarks (BENCHMARKS.md): N = 2^20 uniform full-sky points, 30 log bins.
BENCH_N=1048576
[[ $QUICK == 1 ]] && BENCH_N=262144
step bench bench timeout 300 bash -c "
  for p in float double; do $TPACF bench --backend cuda --precision \$p --n $BENCH_N --bins 30 --theta-min 0.01 --theta-max 10800 --unit arcmin --repeat 3; done;
  $TPACF bench --backend cuda --precision float --n $BENCH_N --bins 30 --theta-min 0.01 --theta-max 60 --unit arcmin --repeat 3;
  $TPACF bench --backend cuda --precision float --n 100000 --bins 30 --theta-min 0.01 --theta-max 10800 --unit arcmin --sets 10 --repeat 5;
  echo '--- brute force (--cuda-brute-force: no tile culling / whole-tile binning)';
  for p in float double; do $TPACF bench --backend cuda --precision \$p --n $BENCH_N --bins 30 --theta-min 0.01 --theta-max 10800 --unit arcmin --repeat 3 --cuda-brute-force; done;
  $TPACF bench --backend cuda --precision float --n $BENCH_N --bins 30 --theta-min 0.01 --theta-max 60 --unit arcmin --repeat 3 --cuda-brute-force"
step gpu-bench bench timeout 150 "$BUILD/tests/gpu/tpacf_gpu_bench" "$BENCH_N"
step gpu-bench-plain bench timeout 150 "$BUILD/tests/gpu/tpacf_gpu_bench" "$BENCH_N" --cuda-hist thread
# Jackknife (issue "Error bars"): K = 32 regions against the plain count, always at N = 2^20.
step gpu-bench-jk bench timeout 150 "$BUILD/tests/gpu/tpacf_gpu_bench" 1048576 --jackknife 32

# The same through the whole job (tpacf run: k-means regions, reordering, DD + DR + RR), with and
# without --jackknife 32, on 2^20 clustered full-sky points and 2^20 randoms, default bins.
step jk-job bench timeout 300 bash scripts/bench-jackknife-job.sh "$TPACF" 1048576 32

# Spatial culling (issue "Spatial culling"): uniform full sky, 30 log bins from 0.01'. DD of 1e6
# points to 10 deg, DD of 1e7 to 1 deg (sort included), the job DD + 10 DR_i + 10 RR_i of 1e6
# each to 10 deg, culling on against off at 180 deg. Always at full size (seconds of GPU time).
step gpu-bench-culling bench timeout 300 "$BUILD/tests/gpu/tpacf_gpu_bench" --culling
if "$TPACF" bench --help 2>&1 | grep -q -- '--culling'; then
    step cli-bench-culling bench timeout 300 bash -c "
  $TPACF bench --backend cuda --precision float --n 1000000 --bins 30 --theta-min 0.01 --theta-max 600 --unit arcmin --culling on --repeat 3;
  $TPACF bench --backend cuda --precision float --n 10000000 --bins 30 --theta-min 0.01 --theta-max 60 --unit arcmin --culling on --repeat 3;
  $TPACF bench --backend cuda --precision float --n 1000000 --bins 30 --theta-min 0.01 --theta-max 600 --unit arcmin --sets 10 --culling on --repeat 3;
  for c in on off; do $TPACF bench --backend cuda --precision float --n 1000000 --bins 30 --theta-min 0.01 --theta-max 10800 --unit arcmin --culling \$c --repeat 3; done"
else
    echo "tpacf bench has no --culling flag in this build: CLI culling cases skipped" | tee -a "$OUT/bench.log"
fi

# Resource report and the inner loops' machine code.
step sass sass bash -c "grep -A2 'pairCountKernel' '$OUT/build.log' | grep -E 'registers|spill' | sort | uniq -c;
  obj=\$(find $BUILD/kernels -name 'pair_kernels.cu.o' | head -1);
  cuobjdump -sass \"\$obj\" > /tmp/tpacf.sass && wc -l /tmp/tpacf.sass &&
  awk '/Function :/{p = (\$0 ~ /pairCountKernelIfLNS1_8HistModeE1ELb1/)} p' /tmp/tpacf.sass > '$OUT/sass-float-perthread.txt';
  wc -l '$OUT/sass-float-perthread.txt'"

echo
echo "==== summary ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.log"
grep -hE '^(cuda|PASS|FAIL|auto|job|device|float|double|jackknife|DD|===)|note ' "$OUT/bench.log" "$OUT/gpu-tests.log" 2>/dev/null | grep -v '^=== .*bash -c' | tail -80
