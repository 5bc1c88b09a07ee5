// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The catalogs of a batch in memory the devices can use: per device, the prepared catalogs
// (Morton-sorted, hi/lo split, tile and sub-tile boxes) with every buffer owned. Internal to
// kernels/src.
#include "cuda_check.h"
#include "gpu_schedule.h"
#include "pair_kernels.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpacf::cuda::detail {

/// One device's prepared catalogs of a batch. The constructor uploads the unit vectors (and
/// weights, region groups) straight from the catalogs' own (pageable) memory and enqueues the
/// preparation on `stream`. Why no pinned staging: pinning the ~264 MB of a job of 11 catalogs
/// of 10^6 points costs ~0.17 s on first use, while the driver copies pageable memory at several
/// GB/s (tens of ms for the same bytes), and a one-shot `tpacf run` never reuses the pinned
/// buffer. Every buffer is freed stream-ordered on `stream`, which must outlive this object.
class DeviceCatalogs {
public:
    /// regionLayouts: one per catalog for region batches, empty otherwise. weighted: the batch
    /// has weighted tasks (the weights of the catalogs that have them were staged): the points
    /// carry their weights and the tiles their weight sums.
    DeviceCatalogs(const BatchCatalogs& batch, const std::vector<RegionLayout>& regionLayouts,
                   std::uint32_t tileSize,
                   bool isFloat, bool weighted, cudaStream_t stream);
    DeviceCatalogs(const DeviceCatalogs&) = delete;
    DeviceCatalogs& operator=(const DeviceCatalogs&) = delete;

    /// What the kernel reads, on the device (one CatalogView per catalog).
    const CatalogView* d_views() const noexcept { return m_viewsOnDevice.get(); }
    /// Per catalog, its tiles' weight sums, on the device (weighted batches; null otherwise).
    const TileWeight* const* d_tileWeights() const noexcept { return m_tileWeightsOnDevice.get(); }
    /// Downloads every catalog's tile boxes and, in weighted batches, their weight sums (waits
    /// for the preparation, sleeping).
    std::vector<CatalogTiles> tileSummaries() const;

private:
    struct Prepared {
        DeviceBuffer<double> xyz;
        DeviceBuffer<double> weights;        // catalogs with weights, in weighted batches
        DeviceBuffer<TileWeight> tileWeights; // weighted batches
        DeviceBuffer<double> sorted; // 4 per point
        DeviceBuffer<float> hi, lo;  // 4 per point
        DeviceBuffer<TileBox> tiles;
        DeviceBuffer<SubBox> subBoxes;
        DeviceBuffer<std::int32_t> regions;                                 // region layout only
        DeviceBuffer<std::uint32_t> tileRegion, tileSortedStart, tileCount; // region layout only
    };

    cudaStream_t m_stream;
    std::vector<Prepared> m_catalogs;
    std::vector<CatalogView> m_views;
    DeviceBuffer<CatalogView> m_viewsOnDevice;
    std::vector<const TileWeight*> m_tileWeightPointers; // the source of the async copy
    DeviceBuffer<const TileWeight*> m_tileWeightsOnDevice;
};

} // namespace tpacf::cuda::detail
