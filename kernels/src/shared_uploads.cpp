// SPDX-License-Identifier: GPL-3.0-or-later
// Catalogs uploaded once across a batch's devices (shared_uploads.h).
#include "shared_uploads.h"

#include "cuda_check.h"

namespace tpacf::cuda::detail {

std::unique_ptr<SharedUploads> SharedUploads::forDevices(const std::vector<int>& devices,
                                                         std::size_t catalogs, bool everyCatalog) {
    if (devices.size() < 2 || catalogs == 0)
        return nullptr;
    for (const int a : devices)
        for (const int b : devices) {
            if (a == b)
                continue;
            int reachable = 0;
            if (cudaDeviceCanAccessPeer(&reachable, a, b) != cudaSuccess || reachable == 0) {
                cudaGetLastError();
                return nullptr;
            }
            // Once per process and pair; "already enabled" is what a later batch hears.
            DeviceGuard guard(a);
            const cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
            if (status != cudaSuccess) {
                cudaGetLastError();
                if (status != cudaErrorPeerAccessAlreadyEnabled)
                    return nullptr;
            }
        }
    return std::unique_ptr<SharedUploads>(new SharedUploads(devices, catalogs, everyCatalog));
}

SharedUploads::SharedUploads(std::vector<int> devices, std::size_t catalogs, bool everyCatalog)
    : m_devices(std::move(devices)), m_catalogs(catalogs), m_everyCatalog(everyCatalog),
      m_parts(m_devices.size() * catalogs), m_readsDone(m_devices.size(), nullptr),
      m_doneReading(m_devices.size(), 0) {}

SharedUploads::~SharedUploads() {
    const auto destroy = [&](cudaEvent_t event, std::size_t worker) {
        if (event == nullptr)
            return;
        cudaSetDevice(m_devices[worker]);
        cudaEventDestroy(event);
    };
    int previous = 0;
    const bool known = cudaGetDevice(&previous) == cudaSuccess;
    for (std::size_t w = 0; w < m_devices.size(); ++w) {
        for (std::size_t c = 0; c < m_catalogs; ++c)
            destroy(m_parts[w * m_catalogs + c].ready, w);
        destroy(m_readsDone[w], w);
    }
    if (known)
        cudaSetDevice(previous);
}

std::pair<std::size_t, std::size_t> SharedUploads::part(std::size_t n, std::size_t worker) const {
    const std::size_t parts = m_devices.size();
    return {n * worker / parts, n * (worker + 1) / parts};
}

void SharedUploads::post(std::size_t worker, std::size_t catalog, const double* xyz,
                         cudaStream_t stream) {
    cudaEvent_t ready = nullptr;
    TPACF_CUDA_TRY(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    {
        // Owned by the board from here, so destroyed even if recording fails.
        const std::lock_guard lock(m_mutex);
        m_parts[worker * m_catalogs + catalog].ready = ready;
    }
    TPACF_CUDA_TRY(cudaEventRecord(ready, stream));
    {
        const std::lock_guard lock(m_mutex);
        Part& part = m_parts[worker * m_catalogs + catalog];
        part.xyz = xyz;
        part.posted = true;
    }
    m_changed.notify_all();
}

SharedUploads::Posted SharedUploads::await(std::size_t v, std::size_t catalog,
                                           std::chrono::duration<double> patience) {
    std::unique_lock lock(m_mutex);
    const Part& part = m_parts[v * m_catalogs + catalog];
    const auto settled = [&] { return part.posted || m_doneReading[v] != 0; };
    if (m_everyCatalog)
        m_changed.wait(lock, settled);
    else
        m_changed.wait_for(lock, patience, settled);
    if (!part.posted)
        return {};
    return {part.xyz, part.ready};
}

void SharedUploads::doneReading(std::size_t worker, cudaStream_t stream) {
    {
        const std::lock_guard lock(m_mutex);
        if (m_doneReading[worker] != 0)
            return;
    }
    cudaEvent_t reads = nullptr;
    if (stream != nullptr) {
        const bool recorded =
            cudaEventCreateWithFlags(&reads, cudaEventDisableTiming) == cudaSuccess &&
            cudaEventRecord(reads, stream) == cudaSuccess;
        if (!recorded) {
            // The host waits for the reads instead, so that the others may free their buffers.
            cudaGetLastError();
            cudaStreamSynchronize(stream);
            if (reads != nullptr)
                cudaEventDestroy(reads);
            reads = nullptr;
        }
    }
    {
        const std::lock_guard lock(m_mutex);
        m_readsDone[worker] = reads;
        m_doneReading[worker] = 1;
    }
    m_changed.notify_all();
}

void SharedUploads::awaitReaders(std::size_t worker, cudaStream_t stream) {
    std::unique_lock lock(m_mutex);
    for (std::size_t v = 0; v < m_devices.size(); ++v) {
        if (v == worker)
            continue;
        m_changed.wait(lock, [&] { return m_doneReading[v] != 0; });
        if (m_readsDone[v] != nullptr &&
            cudaStreamWaitEvent(stream, m_readsDone[v], 0) != cudaSuccess) {
            cudaGetLastError();
            lock.unlock();
            cudaEventSynchronize(m_readsDone[v]); // the host waits instead
            lock.lock();
        }
    }
}

} // namespace tpacf::cuda::detail
