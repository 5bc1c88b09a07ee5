#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a GPU machine, from the repository root: the ways a batch's catalogs could reach the
# devices. 33 host arrays of 8 MB (the standard job's 11 catalogs, x, y and z each) copied
#   A  from pageable memory on one thread (what DeviceCatalogs does), three times;
#   B  from pageable memory on 2, 4 and 8 threads, one stream each;
#   E  to two GPUs at once from pageable memory, a thread each (where two are visible);
#   C  through a ring of three pinned buffers of 4, 8 or 16 MB, each chunk copied into the ring
#      by 1, 4 or 8 threads and sent to one or both GPUs (the pinned allocation timed apart);
#   D  after registering the arrays (cudaHostRegister), the registration timed apart.
# Each line is host seconds to the copies' end.
#   scripts/bench-cuda-upload.sh
set -euo pipefail
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/upload.cu" <<'CU'
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>
#include <vector>
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t ck_ = (x);                                                                     \
        if (ck_ != cudaSuccess) {                                                                  \
            std::printf("err %s line %d\n", cudaGetErrorString(ck_), __LINE__);                    \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)
using Clock = std::chrono::steady_clock;
static double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

int main() {
    const int arrays = 33;    // 11 catalogs x 3 axes
    const size_t n = 1000000; // doubles per array (8 MB)
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "no usable GPU\n");
        return 1;
    }
    std::vector<std::vector<double>> host(arrays, std::vector<double>(n));
    for (int a = 0; a < arrays; ++a)
        for (size_t i = 0; i < n; ++i)
            host[a][i] = a + i * 1e-7;
    std::vector<double*> dev[2];
    for (int d = 0; d < devices && d < 2; ++d) {
        auto t = Clock::now();
        CK(cudaSetDevice(d));
        CK(cudaFree(0));
        std::printf("context %d: %.3f s\n", d, since(t));
        dev[d].resize(arrays);
        for (int a = 0; a < arrays; ++a)
            CK(cudaMalloc(&dev[d][a], n * 8));
    }
    auto pageable = [&](int d, int first, int step) {
        CK(cudaSetDevice(d));
        cudaStream_t s;
        CK(cudaStreamCreate(&s));
        for (int a = first; a < arrays; a += step)
            CK(cudaMemcpyAsync(dev[d][a], host[a].data(), n * 8, cudaMemcpyHostToDevice, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaStreamDestroy(s));
    };
    for (int rep = 0; rep < 3; ++rep) {
        auto t = Clock::now();
        pageable(0, 0, 1);
        std::printf("A pageable 1 thread, 1 GPU: %.4f s\n", since(t));
    }
    for (int threads : {2, 4, 8}) {
        auto t = Clock::now();
        std::vector<std::thread> ts;
        for (int k = 0; k < threads; ++k)
            ts.emplace_back(pageable, 0, k, threads);
        for (auto& x : ts)
            x.join();
        std::printf("B pageable %d threads, 1 GPU: %.4f s\n", threads, since(t));
    }
    if (devices >= 2)
        for (int rep = 0; rep < 2; ++rep) {
            auto t = Clock::now();
            std::thread t0(pageable, 0, 0, 1), t1(pageable, 1, 0, 1);
            t0.join();
            t1.join();
            std::printf("E pageable, 2 GPUs each all: %.4f s\n", since(t));
        }
    // Pinned staging ring: chunk bytes, copied by `copiers` threads, DMA to every device.
    for (size_t chunkMB : {4, 8, 16})
        for (int copiers : {1, 4, 8})
            for (int ndev = 1; ndev <= std::min(devices, 2); ++ndev) {
                const size_t chunk = chunkMB << 20;
                const int ring = 3;
                auto ta = Clock::now();
                std::vector<char*> pin(ring);
                for (auto& p : pin)
                    CK(cudaHostAlloc(&p, chunk, cudaHostAllocPortable));
                const double alloc = since(ta);
                std::vector<cudaStream_t> st(ndev);
                std::vector<std::vector<cudaEvent_t>> ev(ndev, std::vector<cudaEvent_t>(ring));
                for (int d = 0; d < ndev; ++d) {
                    CK(cudaSetDevice(d));
                    CK(cudaStreamCreate(&st[d]));
                    for (auto& e : ev[d])
                        CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
                }
                std::vector<bool> used(ring, false);
                auto t = Clock::now();
                int slot = 0;
                for (int a = 0; a < arrays; ++a) {
                    const char* src = reinterpret_cast<const char*>(host[a].data());
                    size_t left = n * 8, off = 0;
                    while (left > 0) {
                        const size_t bytes = std::min(left, chunk);
                        if (used[slot])
                            for (int d = 0; d < ndev; ++d)
                                CK(cudaEventSynchronize(ev[d][slot]));
                        if (copiers == 1)
                            std::memcpy(pin[slot], src + off, bytes);
                        else {
                            std::vector<std::thread> ts;
                            size_t part = (bytes + copiers - 1) / copiers;
                            for (int k = 0; k < copiers; ++k) {
                                size_t b = k * part;
                                if (b >= bytes)
                                    break;
                                size_t e = std::min(bytes, b + part);
                                ts.emplace_back([&, b, e] {
                                    std::memcpy(pin[slot] + b, src + off + b, e - b);
                                });
                            }
                            for (auto& x : ts)
                                x.join();
                        }
                        for (int d = 0; d < ndev; ++d) {
                            CK(cudaSetDevice(d));
                            CK(cudaMemcpyAsync(reinterpret_cast<char*>(dev[d][a]) + off, pin[slot],
                                               bytes, cudaMemcpyHostToDevice, st[d]));
                            CK(cudaEventRecord(ev[d][slot], st[d]));
                        }
                        used[slot] = true;
                        slot = (slot + 1) % ring;
                        off += bytes;
                        left -= bytes;
                    }
                }
                for (int d = 0; d < ndev; ++d)
                    CK(cudaStreamSynchronize(st[d]));
                std::printf("C pinned ring 3x%zu MB, %d copiers, %d GPU: %.4f s (alloc %.4f s)\n",
                            chunkMB, copiers, ndev, since(t), alloc);
                for (auto p : pin)
                    CK(cudaFreeHost(p));
                for (int d = 0; d < ndev; ++d) {
                    CK(cudaSetDevice(d));
                    CK(cudaStreamDestroy(st[d]));
                    for (auto e : ev[d])
                        CK(cudaEventDestroy(e));
                }
            }
    {
        auto t = Clock::now();
        for (int a = 0; a < arrays; ++a)
            CK(cudaHostRegister(host[a].data(), n * 8, cudaHostRegisterPortable));
        const double reg = since(t);
        t = Clock::now();
        pageable(0, 0, 1);
        const double up = since(t);
        t = Clock::now();
        for (int a = 0; a < arrays; ++a)
            CK(cudaHostUnregister(host[a].data()));
        std::printf("D registered: register %.4f s, upload %.4f s, unregister %.4f s\n", reg, up,
                    since(t));
    }
    return 0;
}
CU
"$NVCC" -O2 -std=c++17 -o "$TMP/upload" "$TMP/upload.cu"
"$TMP/upload"
