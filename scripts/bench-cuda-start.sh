#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a GPU machine, from the repository root: the steps of a CUDA process's start, alone and
# beside a load like the reading's, so that the standard job's start can be placed.
# A small program times, in one process each: NVML's listing (as tpacf reads it: init, the
# devices' name, UUID, memory, PCI address, shutdown), the driver's start (cuInit) and the
# primary context (cudaFree(0)); alone, beside T threads that each fill M MiB of fresh memory
# (the reading's page faults), and beside T threads that only compute. Each line is the median
# of R processes.
#   scripts/bench-cuda-start.sh [T=$(nproc)] [M=64] [R=5]
set -uo pipefail
T=${1:-$(nproc)}; M=${2:-64}; R=${3:-5}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/start.cu" <<'CU'
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
using Clock = std::chrono::steady_clock;
static double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}
static double nvmlListing() {
    const auto t = Clock::now();
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return -1;
    using Fn = int (*)(...);
    auto f = [&](const char* name) { return reinterpret_cast<Fn>(dlsym(lib, name)); };
    auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "nvmlInitWithFlags"));
    auto count = reinterpret_cast<int (*)(unsigned*)>(dlsym(lib, "nvmlDeviceGetCount_v2"));
    auto byIndex = reinterpret_cast<int (*)(unsigned, void**)>(
        dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    if (!init || !count || !byIndex || init(0) != 0)
        return -1;
    unsigned n = 0;
    count(&n);
    for (unsigned i = 0; i < n; ++i) {
        void* device = nullptr;
        char text[128];
        unsigned long long memory[3];
        unsigned char pci[128];
        byIndex(i, &device);
        f("nvmlDeviceGetName")(device, text, 128u);
        f("nvmlDeviceGetUUID")(device, text, 128u);
        f("nvmlDeviceGetMemoryInfo")(device, memory);
        f("nvmlDeviceGetPciInfo_v3")(device, pci);
    }
    f("nvmlShutdown")();
    return since(t);
}
int main(int argc, char** argv) {
    const std::string load = argc > 1 ? argv[1] : "none";
    const int threads = argc > 2 ? atoi(argv[2]) : 0;
    const std::size_t mib = argc > 3 ? strtoull(argv[3], nullptr, 10) : 64;
    const auto t0 = Clock::now();
    std::atomic<bool> stop{false};
    std::vector<double> loadSeconds(threads, 0);
    std::vector<std::thread> workers;
    if (load != "none")
        for (int k = 0; k < threads; ++k)
            workers.emplace_back([&, k] {
                const auto t = Clock::now();
                if (load == "faults") {
                    const std::size_t bytes = mib << 20;
                    char* p = static_cast<char*>(malloc(bytes));
                    for (std::size_t i = 0; i < bytes; i += 4096)
                        p[i] = static_cast<char>(i);
                    loadSeconds[k] = since(t) + (p[bytes / 2] == 7 ? 1e-9 : 0);
                    free(p);
                } else {
                    volatile double x = 1;
                    while (!stop.load(std::memory_order_relaxed))
                        x = std::sqrt(x + 1.0);
                    loadSeconds[k] = since(t);
                }
            });
    const double nvml = nvmlListing();
    const auto t1 = Clock::now();
    const CUresult initResult = cuInit(0);
    const double init = since(t1);
    const auto t2 = Clock::now();
    const cudaError_t ctxResult = cudaFree(nullptr);
    const double context = since(t2);
    const double chain = since(t0);
    stop = true;
    for (auto& w : workers)
        w.join();
    double slowest = 0;
    for (const double s : loadSeconds)
        slowest = std::max(slowest, s);
    if (initResult != CUDA_SUCCESS || ctxResult != cudaSuccess) {
        fprintf(stderr, "no usable GPU\n");
        return 1;
    }
    printf("%.4f %.4f %.4f %.4f %.4f\n", nvml, init, context, chain, slowest);
    return 0;
}
CU
"$NVCC" -O2 -std=c++17 "$TMP/start.cu" -o "$TMP/start" -lcuda -ldl || exit 1
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
printf '%-34s %8s %8s %8s %8s %8s %8s\n' "load ($R processes each, median s)" nvml cuInit context \
  chain load "wall"
for load in none faults spin; do
  rm -f "$TMP/rows"
  for _ in $(seq "$R"); do
    s=$(date +%s.%N)
    row=$("$TMP/start" $load "$T" "$M") || exit 1
    e=$(date +%s.%N)
    echo "$row $(python3 -c "print($e - $s)")" >> "$TMP/rows"
  done
  label="$load"; [ "$load" != none ] && label="$load, $T threads"
  [ "$load" = faults ] && label="$label x $M MiB"
  printf '%-34s' "$label"
  for c in 1 2 3 4 5 6; do printf ' %8.4f' "$(awk -v c=$c '{print $c}' "$TMP/rows" | median)"; done
  echo
done
echo "(nvml: NVML's listing; cuInit: the driver's start; context: cudaFree(0); chain: the three"
echo " in turn; load: the slowest load thread (spin: until the chain ends); wall: the process,"
echo " from the shell, so wall - chain is the process's load and exit)"
