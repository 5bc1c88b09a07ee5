#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a GPU machine, from the repository root: what a CUDA process costs outside its count.
# 1. A minimal CUDA program (context, 2 GB on the device, 300 MB pinned) timed from the shell
#    and from inside, ending four ways: return from main, _exit, frees then return, frees then
#    _exit. The gap between its last line and the shell's end is the exit's teardown.
# 2. `tpacf run` of the standard job (files made by ../shared/bench/standard-job.sh in
#    $WORK, default /tmp/tpacf-standard-job) with --timings, each output line timestamped: the gap
#    between the report's "total" and the process's end is the same teardown.
#   scripts/bench-cuda-process-cost.sh PATH/TO/tpacf
set -uo pipefail
T=$(realpath "$1")
WORK=${WORK:-/tmp/tpacf-standard-job}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/cost.cu" <<'CU'
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
static double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
int main(int argc, char** argv) {
    const int mode = argc > 1 ? atoi(argv[1]) : 0;
    const auto t0 = std::chrono::steady_clock::now();
    if (const cudaError_t error = cudaFree(0); error != cudaSuccess) {
        fprintf(stderr, "no usable GPU: %s\n", cudaGetErrorString(error));
        return 1;
    }
    const double context = since(t0);
    void* d = nullptr;
    void* h = nullptr;
    cudaMalloc(&d, 2ull << 30);
    cudaMallocHost(&h, 300ull << 20);
    cudaMemset(d, 0, 2ull << 30);
    cudaDeviceSynchronize();
    const double alloc = since(t0);
    double freed = 0;
    if (mode >= 2) {
        cudaFree(d);
        cudaFreeHost(h);
        cudaDeviceSynchronize();
        freed = since(t0);
    }
    fprintf(stderr, "mode %d: context %.3f, +alloc %.3f, +frees %.3f s (in process)\n", mode,
            context, alloc, freed);
    fflush(stderr);
    if (mode == 1 || mode == 3)
        _exit(0);
    return 0;
}
CU
"$NVCC" -O2 "$TMP/cost.cu" -o "$TMP/cost" || exit 1
now() { date +%s.%N; }
for rep in 1 2; do
  for mode in 0 1 2 3; do
    s=$(now); "$TMP/cost" $mode || exit 1; e=$(now)
    echo "  mode $mode: process wall $(python3 -c "print(round($e - $s, 3))") s"
  done
done
echo "(0: return from main; 1: _exit; 2: frees, then return; 3: frees, then _exit)"
[ -f "$WORK/r9.txt" ] || { echo "no standard job files in $WORK: run standard-job.sh first"; exit 0; }
cat > "$TMP/stamp.py" <<'PY'
import subprocess, sys, time
t0 = time.time()
p = subprocess.Popen(["stdbuf", "-oL", "-eL"] + sys.argv[1:], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
for line in p.stdout:
    print(f"{time.time() - t0:7.3f} {line.rstrip()[:90]}")
p.wait()
print(f"{time.time() - t0:7.3f} exited rc={p.returncode}")
PY
cd "$WORK" || exit 1
R=(); for i in $(seq 0 9); do R+=(--random "r$i.txt"); done
for rep in 1 2 3; do
  rm -f "$TMP/x.ecsv"
  python3 "$TMP/stamp.py" "$T" run --data d.txt "${R[@]}" --bins log --min 0.01 --max 600 \
    --unit arcmin --nbins 30 --backend cuda --precision float --output "$TMP/x.ecsv" --quiet \
    --timings | grep -E "read cat|backend check|job|count|write|total|exited"
done
