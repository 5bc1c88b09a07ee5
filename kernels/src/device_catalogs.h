// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The catalogs of a batch in memory the devices can use: per device, the prepared catalogs
// (sorted along the sky curve, hi/lo split, tile and sub-tile boxes) with every buffer owned.
// Internal to kernels/src.
#include "cuda_check.h"
#include "gpu_schedule.h"
#include "pair_kernels.h"
#include "shared_uploads.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpacf::cuda::detail {

/// One device's prepared catalogs of a batch. The constructor allocates every buffer (on
/// `stream`); issue(c) uploads catalog c's unit vectors (and weights, region groups) straight
/// from the catalog's own (pageable) memory on `uploadStream`, so that the copy engine moves
/// them while kernels already count on `stream`, and enqueues its preparation on `stream` after
/// them. Why no pinned staging: pinning the ~264 MB of a job of 11 catalogs of 10^6 points costs
/// ~0.17 s on first use, while the driver copies pageable memory at several GB/s (tens of ms for
/// the same bytes), and a one-shot `tpacf run` never reuses the pinned buffer. With `shared`
/// (several devices that reach each other's memory), each device uploads its part of a large
/// catalog's unit vectors and copies the others' parts from their devices (shared_uploads.h).
/// Every buffer is freed stream-ordered on `stream`, which must outlive this object.
class DeviceCatalogs {
public:
    /// regionLayouts: one per catalog for region batches, empty otherwise. weighted: the batch
    /// has weighted tasks (the weights of the catalogs that have them were staged): the points
    /// carry their weights and the tiles their weight sums. kdGroups: the plain layout's curve
    /// order refined into k-d groups (kd_groups.h).
    DeviceCatalogs(const BatchCatalogs& batch, const std::vector<RegionLayout>& regionLayouts,
                   std::uint32_t tileSize, bool isFloat, bool weighted, bool kdGroups,
                   cudaStream_t stream, cudaStream_t uploadStream, SharedUploads* shared = nullptr,
                   std::size_t worker = 0);
    /// With shared uploads: frees nothing before the other devices are done reading.
    ~DeviceCatalogs();
    DeviceCatalogs(const DeviceCatalogs&) = delete;
    DeviceCatalogs& operator=(const DeviceCatalogs&) = delete;

    std::size_t size() const noexcept { return m_catalogs.size(); }
    /// Catalogs issued so far: [0, issued()) are uploaded or on their way, and prepared on
    /// `stream` before anything enqueued there after their issue().
    std::size_t issued() const noexcept { return m_issued; }
    /// Issues the next catalog, issued(): its upload and its preparation. The sort's scratch is
    /// released after the last.
    void issueNext();
    /// What the kernel reads, on the device (one CatalogView per catalog).
    const CatalogView* d_views() const noexcept { return m_viewsOnDevice.get(); }
    /// Per catalog, its tiles' weight sums, on the device (weighted batches; null otherwise).
    const TileWeight* const* d_tileWeights() const noexcept { return m_tileWeightsOnDevice.get(); }
    /// Downloads catalog c's tile boxes and, in weighted batches, their weight sums, on the
    /// upload stream; the caller has seen its preparation done (an event on `stream` after it).
    CatalogTiles tileSummary(std::size_t c) const;

private:
    struct Prepared {
        std::uint32_t size = 0, tiles = 0, padded = 0;
        DeviceBuffer<double> xyz;
        DeviceBuffer<double> weights;        // catalogs with weights, in weighted batches
        DeviceBuffer<TileWeight> tileWeights; // weighted batches
        DeviceBuffer<double> sorted; // 4 per point
        DeviceBuffer<float> hi, lo;  // 4 per point
        DeviceBuffer<TileBox> tileBoxes;
        DeviceBuffer<SubBox> subBoxes;
        DeviceBuffer<std::int32_t> regions;                                 // region layout only
        DeviceBuffer<std::uint32_t> tileRegion, tileSortedStart, tileCount; // region layout only
        DeviceBuffer<std::uint32_t> kdGroupStarts; // region layout with k-d groups only
    };

    // The sort's scratch, shared by the catalogs (stream order: one at a time).
    struct SortScratch {
        DeviceBuffer<std::uint32_t> keys, keysSorted, order, orderSorted;
        DeviceBuffer<std::uint64_t> regionKeys, regionKeysSorted;
        DeviceBuffer<unsigned char> temp;
        std::size_t tempBytes = 0;
    };

    void allocate(std::size_t c, bool isFloat, bool weighted);
    // Catalog c's unit vectors into dc.xyz on the upload stream: whole, or this device's part
    // from the host and the others' from their devices.
    void uploadUnitVectors(std::size_t c, Prepared& dc);

    const BatchCatalogs& m_batch;
    const std::vector<RegionLayout>& m_regionLayouts;
    std::uint32_t m_tileSize;
    bool m_kdGroups;
    cudaStream_t m_stream, m_uploadStream;
    SharedUploads* m_shared;
    std::size_t m_worker;
    int m_regionBits = 1; // bits of the largest group index, above the sky curve's 30 bits
    std::size_t m_issued = 0;
    Event m_uploaded; // recorded on the upload stream after each catalog's copies
    SortScratch m_scratch;
    std::vector<Prepared> m_catalogs;
    std::vector<CatalogView> m_views;
    DeviceBuffer<CatalogView> m_viewsOnDevice;
    std::vector<const TileWeight*> m_tileWeightPointers; // the source of the async copy
    DeviceBuffer<const TileWeight*> m_tileWeightsOnDevice;
};

} // namespace tpacf::cuda::detail
