// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory_pool.h"

#include <cuda_runtime.h>

#include <limits>

namespace tpacf::cuda::detail {

namespace {
/// The attribute of the pool of `device`, or 0 where the driver cannot tell (its error cleared).
std::uint64_t poolAttribute(int device, cudaMemPoolAttr attribute) {
    cudaMemPool_t pool = nullptr;
    std::uint64_t value = 0;
    if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, attribute, &value) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return value;
}
} // namespace

void keepPoolBetweenBatches(int device) noexcept {
    // Only the batches' speed depends on it: a driver that refuses leaves the pool as it was.
    cudaMemPool_t pool = nullptr;
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    if (cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
        cudaGetLastError();
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

std::uint64_t poolHeldBytes(int device) noexcept {
    return poolAttribute(device, cudaMemPoolAttrReservedMemCurrent);
}

std::uint64_t poolUnusedBytes(int device) noexcept {
    const std::uint64_t reserved = poolAttribute(device, cudaMemPoolAttrReservedMemCurrent);
    const std::uint64_t used = poolAttribute(device, cudaMemPoolAttrUsedMemCurrent);
    return reserved > used ? reserved - used : 0;
}

} // namespace tpacf::cuda::detail
