// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Error policy and RAII owners for CUDA resources (internal to kernels/src).
#include "tpacf/cuda/cuda_error.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

namespace tpacf::cuda::detail {

[[noreturn]] inline void throwCudaError(cudaError_t status, const char* what, const char* file,
                                        int line) {
    throw CudaError(std::string("CUDA error in ") + what + " at " + file + ":" +
                        std::to_string(line) + ": " + cudaGetErrorName(status) + " (" +
                        cudaGetErrorString(status) + ")",
                    static_cast<int>(status));
}

} // namespace tpacf::cuda::detail

/// Every CUDA runtime call goes through this: throws tpacf::cuda::CudaError on failure.
#define TPACF_CUDA_TRY(call)                                                                       \
    do {                                                                                           \
        const cudaError_t tpacfCudaStatus_ = (call);                                               \
        if (tpacfCudaStatus_ != cudaSuccess)                                                       \
            ::tpacf::cuda::detail::throwCudaError(tpacfCudaStatus_, #call, __FILE__, __LINE__);    \
    } while (0)

/// After every kernel launch: launch-configuration errors surface here.
#define TPACF_CUDA_CHECK_LAUNCH(name) TPACF_CUDA_TRY(cudaPeekAtLastError())

namespace tpacf::cuda::detail {

/// Device memory allocated stream-ordered from the device's pool; freed on the same stream.
template <class T> class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t count, cudaStream_t stream) : m_count(count), m_stream(stream) {
        if (count > 0)
            TPACF_CUDA_TRY(
                cudaMallocAsync(reinterpret_cast<void**>(&m_ptr), count * sizeof(T), stream));
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        DeviceBuffer(std::move(other)).swap(*this);
        return *this;
    }
    ~DeviceBuffer() {
        if (m_ptr)
            cudaFreeAsync(m_ptr, m_stream); // destructor: nothing sensible to do on failure
    }
    void swap(DeviceBuffer& other) noexcept {
        std::swap(m_ptr, other.m_ptr);
        std::swap(m_count, other.m_count);
        std::swap(m_stream, other.m_stream);
    }
    T* get() const noexcept { return m_ptr; }
    std::size_t size() const noexcept { return m_count; }
    std::size_t bytes() const noexcept { return m_count * sizeof(T); }

  private:
    T* m_ptr = nullptr;
    std::size_t m_count = 0;
    cudaStream_t m_stream = nullptr;
};

/// Page-locked host memory for asynchronous copies.
template <class T> class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t count) : m_count(count) {
        if (count > 0)
            TPACF_CUDA_TRY(cudaMallocHost(reinterpret_cast<void**>(&m_ptr), count * sizeof(T)));
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : m_ptr(std::exchange(other.m_ptr, nullptr)), m_count(std::exchange(other.m_count, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        std::swap(m_ptr, other.m_ptr);
        std::swap(m_count, other.m_count);
        return *this;
    }
    ~PinnedBuffer() {
        if (m_ptr)
            cudaFreeHost(m_ptr);
    }
    T* get() const noexcept { return m_ptr; }
    std::size_t size() const noexcept { return m_count; }

  private:
    T* m_ptr = nullptr;
    std::size_t m_count = 0;
};

class Stream {
  public:
    Stream() { TPACF_CUDA_TRY(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking)); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() {
        if (m_stream)
            cudaStreamDestroy(m_stream);
    }
    cudaStream_t get() const noexcept { return m_stream; }

  private:
    cudaStream_t m_stream = nullptr;
};

/// Timing event with blocking sync: cudaEventSynchronize sleeps instead of spinning.
class Event {
  public:
    Event() { TPACF_CUDA_TRY(cudaEventCreateWithFlags(&m_event, cudaEventBlockingSync)); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() {
        if (m_event)
            cudaEventDestroy(m_event);
    }
    cudaEvent_t get() const noexcept { return m_event; }
    void record(cudaStream_t stream) { TPACF_CUDA_TRY(cudaEventRecord(m_event, stream)); }
    void synchronize() { TPACF_CUDA_TRY(cudaEventSynchronize(m_event)); }
    /// Whether the work before the event is done; never waits.
    bool done() {
        const cudaError_t status = cudaEventQuery(m_event);
        if (status == cudaErrorNotReady)
            return false;
        TPACF_CUDA_TRY(status);
        return true;
    }
    /// Milliseconds from `start` to this event (both completed).
    float millisecondsSince(const Event& start) const {
        float ms = 0;
        TPACF_CUDA_TRY(cudaEventElapsedTime(&ms, start.m_event, m_event));
        return ms;
    }

  private:
    cudaEvent_t m_event = nullptr;
};

/// Makes `device` current for the calling thread for the lifetime of the guard.
class DeviceGuard {
  public:
    explicit DeviceGuard(int device) {
        TPACF_CUDA_TRY(cudaGetDevice(&m_previous));
        TPACF_CUDA_TRY(cudaSetDevice(device));
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;
    ~DeviceGuard() { cudaSetDevice(m_previous); }

  private:
    int m_previous = 0;
};

} // namespace tpacf::cuda::detail
