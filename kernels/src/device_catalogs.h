#pragma once
// The catalogs of a batch in memory the devices can use: the pinned host staging (kept between
// batches) and, per device, the prepared catalogs (Morton-sorted, hi/lo split, tile and sub-tile
// boxes) with every buffer owned. Internal to kernels/src.
#include "cuda_check.h"
#include "gpu_schedule.h"
#include "pair_kernels.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpacf::cuda::detail {

/// Pinned host copies of a batch's unit vectors and region-layout groups; they grow and are
/// kept between batches (pinning is slow), and every device copies from them.
class HostStaging {
public:
    /// Room for `points` region-layout groups (buildRegionLayout writes them); the base pointer.
    std::int32_t* groupsFor(std::size_t points);
    /// Copies x, y, z of every catalog of the batch to batch.stagingOffsets, in slices over the
    /// host's cores (one thread copies ~5-10 GB/s; a job of 11 catalogs of 1e6 points is 264 MB).
    void stageCoordinates(const BatchCatalogs& batch);
    /// Copies the weights of every catalog of the batch that has them to
    /// batch.stagingOffsets[c] / 3 (weighted batches).
    void stageWeights(const BatchCatalogs& batch);
    const double* coordinates() const noexcept { return m_coordinates.get(); }
    const std::int32_t* groups() const noexcept { return m_groups.get(); }
    const double* weights() const noexcept { return m_weights.get(); }

private:
    PinnedBuffer<double> m_coordinates;
    PinnedBuffer<std::int32_t> m_groups;
    PinnedBuffer<double> m_weights;
};

/// One device's prepared catalogs of a batch. The constructor enqueues the uploads and the
/// preparation on `stream` (nothing waits); every buffer is freed stream-ordered on it, so the
/// stream must outlive this object.
class DeviceCatalogs {
public:
    /// regionLayouts: one per catalog for region batches, empty otherwise. weighted: the batch
    /// has weighted tasks (the weights of the catalogs that have them were staged): the points
    /// carry their weights and the tiles their weight sums.
    DeviceCatalogs(const BatchCatalogs& batch, const HostStaging& staging,
                   const std::vector<RegionLayout>& regionLayouts, std::uint32_t tileSize,
                   bool isFloat, bool weighted, cudaStream_t stream);
    DeviceCatalogs(const DeviceCatalogs&) = delete;
    DeviceCatalogs& operator=(const DeviceCatalogs&) = delete;

    /// What the kernel reads, on the device (one CatalogView per catalog).
    const CatalogView* d_views() const noexcept { return m_viewsOnDevice.get(); }
    /// Per catalog, its tiles' weight sums, on the device (weighted batches; null otherwise).
    const TileWeight* const* d_tileWeights() const noexcept { return m_tileWeightsOnDevice.get(); }
    /// Downloads every catalog's tile boxes (waits for the preparation, sleeping) as cells.
    std::vector<std::vector<CellBounds>> tileBounds() const;

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
