// SPDX-License-Identifier: GPL-3.0-or-later
// Host staging and per-device prepared catalogs (device_catalogs.h).
#include "device_catalogs.h"


#include <algorithm>
#include <span>
#include <utility>

namespace tpacf::cuda::detail {

DeviceCatalogs::DeviceCatalogs(const BatchCatalogs& batch,
                               const std::vector<RegionLayout>& regionLayouts,
                               std::uint32_t tileSize, bool isFloat, bool weighted,
                               cudaStream_t stream)
    : m_stream(stream), m_catalogs(batch.catalogs.size()), m_views(batch.catalogs.size()) {
    const std::vector<const Catalog*>& catalogs = batch.catalogs;
    const cudaStream_t s = stream;
    const bool byRegion = !regionLayouts.empty();
    std::uint32_t groups = 1;
    for (const RegionLayout& layout : regionLayouts)
        groups = std::max(groups, layout.groupCount);
    int regionBits = 1; // bits of the largest group index, above the 30-bit Morton key
    while ((std::uint64_t{1} << regionBits) < groups)
        ++regionBits;

    // Sort scratch, shared by the catalogs (stream order: one at a time), freed on return.
    std::uint32_t largest = 0;
    for (const Catalog* catalog : catalogs)
        largest = std::max(largest, static_cast<std::uint32_t>(catalog->size()));
    DeviceBuffer<std::uint32_t> keys(byRegion ? 0 : largest, s),
        keysSorted(byRegion ? 0 : largest, s), order(largest, s), orderSorted(largest, s);
    DeviceBuffer<std::uint64_t> regionKeys(byRegion ? largest : 0, s),
        regionKeysSorted(byRegion ? largest : 0, s);
    std::size_t tempBytes = 0;
    for (const Catalog* catalog : catalogs)
        if (!catalog->empty()) {
            const auto n = static_cast<std::uint32_t>(catalog->size());
            tempBytes = std::max(tempBytes,
                                 byRegion ? regionSortTempBytes(n, regionBits) : sortTempBytes(n));
        }
    DeviceBuffer<unsigned char> sortTemp(tempBytes, s);

    for (std::size_t c = 0; c < catalogs.size(); ++c) {
        const auto n = static_cast<std::uint32_t>(catalogs[c]->size());
        if (n == 0)
            continue;
        const std::uint32_t tiles =
            byRegion ? static_cast<std::uint32_t>(regionLayouts[c].tileCount.size())
                     : (n + tileSize - 1) / tileSize;
        const std::uint32_t padded = tiles * tileSize;
        Prepared& dc = m_catalogs[c];
        dc.xyz = DeviceBuffer<double>(3 * static_cast<std::size_t>(n), s);
        const std::span<const double> axes[3] = {catalogs[c]->x(), catalogs[c]->y(),
                                                 catalogs[c]->z()};
        for (std::size_t axis = 0; axis < 3; ++axis)
            TPACF_CUDA_TRY(cudaMemcpyAsync(dc.xyz.get() + axis * n, axes[axis].data(),
                                           n * sizeof(double), cudaMemcpyHostToDevice, s));
        dc.sorted = DeviceBuffer<double>(4 * static_cast<std::size_t>(padded), s);
        if (isFloat) {
            dc.hi = DeviceBuffer<float>(4 * static_cast<std::size_t>(padded), s);
            dc.lo = DeviceBuffer<float>(4 * static_cast<std::size_t>(padded), s);
        }
        dc.tiles = DeviceBuffer<TileBox>(tiles, s);
        dc.subBoxes = DeviceBuffer<SubBox>(padded / kSubTileSize, s);
        // Weights travel with the points (the gather applies the sort's permutation to them);
        // a catalog without weights gets weight 1 per point on the device.
        if (weighted && catalogs[c]->hasWeights()) {
            dc.weights = DeviceBuffer<double>(n, s);
            TPACF_CUDA_TRY(cudaMemcpyAsync(dc.weights.get(), catalogs[c]->weight().data(),
                                           dc.weights.bytes(), cudaMemcpyHostToDevice, s));
        }
        if (weighted)
            dc.tileWeights = DeviceBuffer<TileWeight>(tiles, s);
        PrepareBuffers prep{dc.xyz.get(),
                            dc.xyz.get() + n,
                            dc.xyz.get() + 2 * static_cast<std::size_t>(n),
                            dc.weights.get(),
                            n,
                            padded,
                            tileSize,
                            keys.get(),
                            keysSorted.get(),
                            order.get(),
                            orderSorted.get(),
                            sortTemp.get(),
                            tempBytes,
                            dc.sorted.get(),
                            dc.hi.get(),
                            dc.lo.get(),
                            dc.tiles.get(),
                            dc.subBoxes.get(),
                            dc.tileWeights.get()};
        if (byRegion) {
            const RegionLayout& layout = regionLayouts[c];
            auto upload = [&](DeviceBuffer<std::uint32_t>& buffer,
                              const std::vector<std::uint32_t>& values) {
                buffer = DeviceBuffer<std::uint32_t>(values.size(), s);
                TPACF_CUDA_TRY(cudaMemcpyAsync(buffer.get(), values.data(), buffer.bytes(),
                                               cudaMemcpyHostToDevice, s));
            };
            dc.regions = DeviceBuffer<std::int32_t>(n, s);
            TPACF_CUDA_TRY(cudaMemcpyAsync(dc.regions.get(), layout.groupOfPoint.data(),
                                           dc.regions.bytes(), cudaMemcpyHostToDevice, s));
            upload(dc.tileRegion, layout.tileRegion);
            upload(dc.tileSortedStart, layout.tileSortedStart);
            upload(dc.tileCount, layout.tileCount);
            prep.d_regions = dc.regions.get();
            prep.d_regionKeys = regionKeys.get();
            prep.d_regionKeysSorted = regionKeysSorted.get();
            prep.d_tileRegion = dc.tileRegion.get();
            prep.d_tileSortedStart = dc.tileSortedStart.get();
            prep.d_tileCount = dc.tileCount.get();
            prep.regionBits = regionBits;
        }
        launchPrepareCatalog(prep, s);
        CatalogView& view = m_views[c];
        view.d_points = isFloat ? static_cast<const void*>(dc.hi.get()) : dc.sorted.get();
        view.d_lows = isFloat ? dc.lo.get() : nullptr;
        view.d_tiles = dc.tiles.get();
        view.d_subBoxes = dc.subBoxes.get();
        view.size = n;
        view.tileCount = tiles;
    }
    m_viewsOnDevice = DeviceBuffer<CatalogView>(m_views.size(), s);
    TPACF_CUDA_TRY(cudaMemcpyAsync(m_viewsOnDevice.get(), m_views.data(), m_viewsOnDevice.bytes(),
                                   cudaMemcpyHostToDevice, s));
    if (weighted) {
        m_tileWeightPointers.clear();
        for (const Prepared& dc : m_catalogs)
            m_tileWeightPointers.push_back(dc.tileWeights.get());
        m_tileWeightsOnDevice = DeviceBuffer<const TileWeight*>(m_tileWeightPointers.size(), s);
        TPACF_CUDA_TRY(cudaMemcpyAsync(m_tileWeightsOnDevice.get(), m_tileWeightPointers.data(),
                                       m_tileWeightsOnDevice.bytes(), cudaMemcpyHostToDevice, s));
    }
}

std::vector<CatalogTiles> DeviceCatalogs::tileSummaries() const {
    std::vector<std::vector<TileBox>> boxes(m_views.size());
    std::vector<std::vector<TileWeight>> weights(m_views.size());
    for (std::size_t c = 0; c < m_views.size(); ++c) {
        boxes[c].resize(m_views[c].tileCount);
        if (!boxes[c].empty())
            TPACF_CUDA_TRY(cudaMemcpyAsync(boxes[c].data(), m_views[c].d_tiles,
                                           boxes[c].size() * sizeof(TileBox),
                                           cudaMemcpyDeviceToHost, m_stream));
        if (m_catalogs[c].tileWeights.get() != nullptr && !boxes[c].empty()) {
            weights[c].resize(boxes[c].size());
            TPACF_CUDA_TRY(cudaMemcpyAsync(weights[c].data(), m_catalogs[c].tileWeights.get(),
                                           weights[c].size() * sizeof(TileWeight),
                                           cudaMemcpyDeviceToHost, m_stream));
        }
    }
    Event boxesCopied; // blocking sync: the host sleeps while the device finishes
    boxesCopied.record(m_stream);
    boxesCopied.synchronize();
    std::vector<CatalogTiles> tiles(m_views.size());
    for (std::size_t c = 0; c < m_views.size(); ++c) {
        tiles[c].bounds.reserve(boxes[c].size());
        for (const TileBox& box : boxes[c])
            tiles[c].bounds.push_back(
                CellBounds{{box.lo[0], box.lo[1], box.lo[2]}, {box.hi[0], box.hi[1], box.hi[2]}});
        for (const TileWeight& w : weights[c])
            tiles[c].weights.push_back(TileSums{w.sum, w.sumSquares});
    }
    return tiles;
}

} // namespace tpacf::cuda::detail
