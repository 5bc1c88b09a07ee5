// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A batch's catalogs crossing from the host once, whatever the number of devices: where two or
// more GPUs of one host count a batch, each device uploads its part of a catalog's unit vectors
// from host memory and copies the other parts from the devices that uploaded them (peer to
// peer: NVLink or PCIe), instead of every device copying the whole catalog from pageable
// memory, which holds its thread while the host copies. Internal to kernels/src.
//
// Every device issues the catalogs in the same order; a device waits for another's part at
// most as long as its own part took to upload, and uploads that part itself when it is late
// (the other device busy between launches, or stopped), so nothing ever waits on a device that
// will not post. Buffers: a device frees its catalogs only after every other device has said
// it reads no more from them (its reads recorded on its upload stream), so no copy outlives
// its source.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

namespace tpacf::cuda::detail {

/// Catalogs of fewer points (6 MB of unit vectors) are uploaded whole by every device (unless
/// every catalog is shared): their copies take about a millisecond or less, about what a late
/// part's wait could cost.
inline constexpr std::size_t kSharedUploadMinPoints = std::size_t{1} << 18;

class SharedUploads {
public:
    /// For `devices` (runtime indices, one per worker) counting a batch of `catalogs`: null
    /// unless there are two workers or more and every device can read every other's memory
    /// (the same device twice can), with peer access enabled here. `everyCatalog`: share
    /// catalogs of any size and always wait for the others' parts (the tests' setting: every
    /// part then crosses between devices); else kSharedUploadMinPoints and bounded waits.
    static std::unique_ptr<SharedUploads> forDevices(const std::vector<int>& devices,
                                                     std::size_t catalogs, bool everyCatalog);
    SharedUploads(const SharedUploads&) = delete;
    SharedUploads& operator=(const SharedUploads&) = delete;
    /// After every worker has returned: destroys the events.
    ~SharedUploads();

    std::size_t workers() const noexcept { return m_devices.size(); }
    /// Whether a catalog of n points is shared (else every device uploads it whole).
    bool shares(std::size_t n) const noexcept {
        return n > 0 && (m_everyCatalog || n >= kSharedUploadMinPoints);
    }
    int device(std::size_t worker) const { return m_devices[worker]; }
    /// Worker w's part [begin, end) of a catalog of n points.
    std::pair<std::size_t, std::size_t> part(std::size_t n, std::size_t worker) const;

    /// Worker w's part of catalog c is enqueued on `stream` (its upload stream) into `xyz` (the
    /// catalog's x, then y, then z, n doubles each): the others may copy it once `stream`
    /// reaches this point. Called on w's thread, its device current.
    void post(std::size_t worker, std::size_t catalog, const double* xyz, cudaStream_t stream);

    /// What another worker posted: its buffer and the event its upload reaches; null when it
    /// did not post in time.
    struct Posted {
        const double* xyz = nullptr;
        cudaEvent_t ready = nullptr;
    };
    /// Waits at most `patience` (with everyCatalog, as long as it takes) for worker v's part of
    /// catalog c; not at all once v posts nothing more.
    Posted await(std::size_t v, std::size_t catalog, std::chrono::duration<double> patience);

    /// Worker w copies nothing more from the others, nor posts: what it enqueued on `stream`
    /// so far holds every read (null: it read nothing). Called once its last catalog is issued
    /// and again as it leaves (then a no-op); on w's thread, its device current.
    void doneReading(std::size_t worker, cudaStream_t stream);
    /// Orders `stream` (where worker w frees its catalogs) after every other worker's reads,
    /// waiting for each to be done reading. Call after doneReading(w).
    void awaitReaders(std::size_t worker, cudaStream_t stream);

private:
    SharedUploads(std::vector<int> devices, std::size_t catalogs, bool everyCatalog);

    struct Part {
        const double* xyz = nullptr;
        cudaEvent_t ready = nullptr;
        bool posted = false;
    };

    std::vector<int> m_devices;
    std::size_t m_catalogs;
    bool m_everyCatalog;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<Part> m_parts;               // [worker * catalogs + catalog]
    std::vector<cudaEvent_t> m_readsDone;    // per worker; null: read nothing
    std::vector<std::uint8_t> m_doneReading; // per worker
};

/// Marks a worker done reading as it leaves, whatever the path out (an error before its
/// catalogs were made included), so that no other worker waits for it in vain.
class SharedUploadsMember {
public:
    SharedUploadsMember(SharedUploads* shared, std::size_t worker)
        : m_shared(shared), m_worker(worker) {}
    SharedUploadsMember(const SharedUploadsMember&) = delete;
    SharedUploadsMember& operator=(const SharedUploadsMember&) = delete;
    ~SharedUploadsMember() {
        if (m_shared)
            m_shared->doneReading(m_worker, nullptr);
    }

private:
    SharedUploads* m_shared;
    std::size_t m_worker;
};

} // namespace tpacf::cuda::detail
