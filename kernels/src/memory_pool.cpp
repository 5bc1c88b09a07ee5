// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory_pool.h"

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <limits>

namespace tpacf::cuda::detail {

namespace {
cudaMemPool_t defaultPool(int device) {
    cudaMemPool_t pool = nullptr;
    TPACF_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
    return pool;
}
} // namespace

void keepPoolBetweenBatches(int device) {
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    TPACF_CUDA_TRY(
        cudaMemPoolSetAttribute(defaultPool(device), cudaMemPoolAttrReleaseThreshold, &keep));
}

void trimPool(int device) noexcept {
    // A buffer freed on a stream counts as in use until the host has seen the free done: the
    // device is synchronised first (the batches are over; this waits for nothing of theirs).
    int previous = 0;
    const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != device &&
                          cudaSetDevice(device) == cudaSuccess;
    cudaMemPool_t pool = nullptr;
    std::uint64_t none = 0;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &none) != cudaSuccess ||
        cudaMemPoolTrimTo(pool, 0) != cudaSuccess)
        cudaGetLastError();
    if (switched)
        cudaSetDevice(previous);
}

std::uint64_t poolHeldBytes(int device) {
    std::uint64_t reserved = 0;
    TPACF_CUDA_TRY(
        cudaMemPoolGetAttribute(defaultPool(device), cudaMemPoolAttrReservedMemCurrent, &reserved));
    return reserved;
}

std::uint64_t poolUnusedBytes(int device) {
    const cudaMemPool_t pool = defaultPool(device);
    std::uint64_t reserved = 0, used = 0;
    TPACF_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    TPACF_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    return reserved > used ? reserved - used : 0;
}

} // namespace tpacf::cuda::detail
