// SPDX-License-Identifier: GPL-3.0-or-later
// Per-device prepared catalogs (device_catalogs.h): allocated at once, uploaded and prepared one
// by one.
#include "device_catalogs.h"

#include <algorithm>
#include <chrono>
#include <span>
#include <utility>

namespace tpacf::cuda::detail {

DeviceCatalogs::DeviceCatalogs(const BatchCatalogs& batch,
                               const std::vector<RegionLayout>& regionLayouts,
                               std::uint32_t tileSize, bool isFloat, bool weighted, bool kdGroups,
                               cudaStream_t stream, cudaStream_t uploadStream,
                               SharedUploads* shared, std::size_t worker)
    : m_batch(batch), m_regionLayouts(regionLayouts), m_tileSize(tileSize), m_kdGroups(kdGroups),
      m_stream(stream), m_uploadStream(uploadStream), m_shared(shared), m_worker(worker),
      m_catalogs(batch.catalogs.size()), m_views(batch.catalogs.size()) {
    const cudaStream_t s = stream;
    const bool byRegion = !regionLayouts.empty();
    std::uint32_t groups = 1;
    for (const RegionLayout& layout : regionLayouts)
        groups = std::max(groups, layout.groupCount);
    while ((std::uint64_t{1} << m_regionBits) < groups)
        ++m_regionBits;

    std::uint32_t largest = 0;
    for (const Catalog* catalog : batch.catalogs) {
        const auto n = static_cast<std::uint32_t>(catalog->size());
        largest = std::max(largest, n);
        if (n > 0)
            m_scratch.tempBytes =
                std::max(m_scratch.tempBytes,
                         byRegion ? regionSortTempBytes(n, m_regionBits) : sortTempBytes(n));
    }
    m_scratch.keys = DeviceBuffer<std::uint32_t>(byRegion ? 0 : largest, s);
    m_scratch.keysSorted = DeviceBuffer<std::uint32_t>(byRegion ? 0 : largest, s);
    m_scratch.order = DeviceBuffer<std::uint32_t>(largest, s);
    m_scratch.orderSorted = DeviceBuffer<std::uint32_t>(largest, s);
    m_scratch.regionKeys = DeviceBuffer<std::uint64_t>(byRegion ? largest : 0, s);
    m_scratch.regionKeysSorted = DeviceBuffer<std::uint64_t>(byRegion ? largest : 0, s);
    m_scratch.temp = DeviceBuffer<unsigned char>(m_scratch.tempBytes, s);

    for (std::size_t c = 0; c < m_catalogs.size(); ++c)
        allocate(c, isFloat, weighted);
    m_viewsOnDevice = DeviceBuffer<CatalogView>(m_views.size(), s);
    TPACF_CUDA_TRY(cudaMemcpyAsync(m_viewsOnDevice.get(), m_views.data(), m_viewsOnDevice.bytes(),
                                   cudaMemcpyHostToDevice, s));
    if (weighted) {
        for (const Prepared& dc : m_catalogs)
            m_tileWeightPointers.push_back(dc.tileWeights.get());
        m_tileWeightsOnDevice = DeviceBuffer<const TileWeight*>(m_tileWeightPointers.size(), s);
        TPACF_CUDA_TRY(cudaMemcpyAsync(m_tileWeightsOnDevice.get(), m_tileWeightPointers.data(),
                                       m_tileWeightsOnDevice.bytes(), cudaMemcpyHostToDevice, s));
    }
    // The uploads go on their own stream: into memory allocated on this one.
    Event allocated;
    allocated.record(s);
    TPACF_CUDA_TRY(cudaStreamWaitEvent(uploadStream, allocated.get(), 0));
}

DeviceCatalogs::~DeviceCatalogs() {
    if (m_shared == nullptr)
        return;
    m_shared->doneReading(m_worker, m_uploadStream);
    m_shared->awaitReaders(m_worker, m_stream);
}

void DeviceCatalogs::uploadUnitVectors(std::size_t c, Prepared& dc) {
    const Catalog& catalog = *m_batch.catalogs[c];
    const std::size_t n = dc.size;
    const cudaStream_t u = m_uploadStream;
    const double* axes[3] = {catalog.x().data(), catalog.y().data(), catalog.z().data()};
    const auto fromHost = [&](std::size_t begin, std::size_t end) {
        for (std::size_t a = 0; a < 3; ++a)
            TPACF_CUDA_TRY(cudaMemcpyAsync(dc.xyz.get() + a * n + begin, axes[a] + begin,
                                           (end - begin) * sizeof(double), cudaMemcpyHostToDevice,
                                           u));
    };
    if (m_shared == nullptr || !m_shared->shares(n)) {
        fromHost(0, n);
        return;
    }
    // This device's part from the host (the copy from pageable memory holds this thread about
    // as long as it takes), then each other device's part from that device, or from the host
    // where it is later than this one's own part took.
    const auto started = std::chrono::steady_clock::now();
    const auto [ownBegin, ownEnd] = m_shared->part(n, m_worker);
    fromHost(ownBegin, ownEnd);
    m_shared->post(m_worker, c, dc.xyz.get(), u);
    const auto patience = std::max<std::chrono::duration<double>>(
        std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1));
    const int here = m_shared->device(m_worker);
    for (std::size_t v = 0; v < m_shared->workers(); ++v) {
        if (v == m_worker)
            continue;
        const auto [begin, end] = m_shared->part(n, v);
        const SharedUploads::Posted posted = m_shared->await(v, c, patience);
        if (posted.xyz == nullptr) {
            fromHost(begin, end);
            continue;
        }
        TPACF_CUDA_TRY(cudaStreamWaitEvent(u, posted.ready, 0));
        for (std::size_t a = 0; a < 3; ++a)
            TPACF_CUDA_TRY(cudaMemcpyPeerAsync(dc.xyz.get() + a * n + begin, here,
                                               posted.xyz + a * n + begin, m_shared->device(v),
                                               (end - begin) * sizeof(double), u));
    }
}

void DeviceCatalogs::allocate(std::size_t c, bool isFloat, bool weighted) {
    const cudaStream_t s = m_stream;
    const Catalog& catalog = *m_batch.catalogs[c];
    const auto n = static_cast<std::uint32_t>(catalog.size());
    if (n == 0)
        return;
    Prepared& dc = m_catalogs[c];
    dc.size = n;
    dc.tiles = !m_regionLayouts.empty()
                   ? static_cast<std::uint32_t>(m_regionLayouts[c].tileCount.size())
                   : (n + m_tileSize - 1) / m_tileSize;
    dc.padded = dc.tiles * m_tileSize;
    dc.xyz = DeviceBuffer<double>(3 * static_cast<std::size_t>(n), s);
    dc.sorted = DeviceBuffer<double>(4 * static_cast<std::size_t>(dc.padded), s);
    if (isFloat) {
        dc.hi = DeviceBuffer<float>(4 * static_cast<std::size_t>(dc.padded), s);
        dc.lo = DeviceBuffer<float>(4 * static_cast<std::size_t>(dc.padded), s);
    }
    dc.tileBoxes = DeviceBuffer<TileBox>(dc.tiles, s);
    dc.subBoxes = DeviceBuffer<SubBox>(dc.padded / kSubTileSize, s);
    // Weights travel with the points (the gather applies the sort's permutation to them); a
    // catalog without weights gets weight 1 per point on the device.
    if (weighted && catalog.hasWeights())
        dc.weights = DeviceBuffer<double>(n, s);
    if (weighted)
        dc.tileWeights = DeviceBuffer<TileWeight>(dc.tiles, s);
    if (!m_regionLayouts.empty()) {
        const RegionLayout& layout = m_regionLayouts[c];
        dc.regions = DeviceBuffer<std::int32_t>(n, s);
        dc.tileRegion = DeviceBuffer<std::uint32_t>(layout.tileRegion.size(), s);
        dc.tileSortedStart = DeviceBuffer<std::uint32_t>(layout.tileSortedStart.size(), s);
        dc.tileCount = DeviceBuffer<std::uint32_t>(layout.tileCount.size(), s);
        if (m_kdGroups && !layout.kdGroupStarts.empty())
            dc.kdGroupStarts = DeviceBuffer<std::uint32_t>(layout.kdGroupStarts.size(), s);
    }
    CatalogView& view = m_views[c];
    view.d_points = isFloat ? static_cast<const void*>(dc.hi.get()) : dc.sorted.get();
    view.d_lows = isFloat ? dc.lo.get() : nullptr;
    view.d_tiles = dc.tileBoxes.get();
    view.d_subBoxes = dc.subBoxes.get();
    view.size = n;
    view.tileCount = dc.tiles;
}

void DeviceCatalogs::issueNext() {
    const std::size_t c = m_issued++;
    const cudaStream_t u = m_uploadStream;
    Prepared& dc = m_catalogs[c];
    const std::uint32_t n = dc.size;
    if (n > 0) {
        const Catalog& catalog = *m_batch.catalogs[c];
        const auto upload = [&](auto* to, const auto& from) {
            TPACF_CUDA_TRY(cudaMemcpyAsync(to, from.data(), from.size() * sizeof(from[0]),
                                           cudaMemcpyHostToDevice, u));
        };
        uploadUnitVectors(c, dc);
        if (dc.weights.get() != nullptr)
            upload(dc.weights.get(), catalog.weight());
        PrepareBuffers prep{dc.xyz.get(),
                            dc.xyz.get() + n,
                            dc.xyz.get() + 2 * static_cast<std::size_t>(n),
                            dc.weights.get(),
                            n,
                            dc.padded,
                            m_tileSize,
                            m_scratch.keys.get(),
                            m_scratch.keysSorted.get(),
                            m_scratch.order.get(),
                            m_scratch.orderSorted.get(),
                            m_scratch.temp.get(),
                            m_scratch.tempBytes,
                            dc.sorted.get(),
                            dc.hi.get(),
                            dc.lo.get(),
                            dc.tileBoxes.get(),
                            dc.subBoxes.get(),
                            dc.tileWeights.get()};
        prep.kdGroups = m_kdGroups;
        if (!m_regionLayouts.empty()) {
            const RegionLayout& layout = m_regionLayouts[c];
            upload(dc.regions.get(), layout.groupOfPoint);
            upload(dc.tileRegion.get(), layout.tileRegion);
            upload(dc.tileSortedStart.get(), layout.tileSortedStart);
            upload(dc.tileCount.get(), layout.tileCount);
            prep.d_regions = dc.regions.get();
            prep.d_regionKeys = m_scratch.regionKeys.get();
            prep.d_regionKeysSorted = m_scratch.regionKeysSorted.get();
            prep.d_tileRegion = dc.tileRegion.get();
            prep.d_tileSortedStart = dc.tileSortedStart.get();
            prep.d_tileCount = dc.tileCount.get();
            prep.regionBits = m_regionBits;
            if (dc.kdGroupStarts.get() != nullptr) {
                upload(dc.kdGroupStarts.get(), layout.kdGroupStarts);
                prep.d_kdGroupStarts = dc.kdGroupStarts.get();
                prep.kdGroupCount = static_cast<std::uint32_t>(layout.kdGroupStarts.size());
            }
        }
        m_uploaded.record(u);
        TPACF_CUDA_TRY(cudaStreamWaitEvent(m_stream, m_uploaded.get(), 0));
        launchPrepareCatalog(prep, m_stream);
    }
    if (m_issued == m_catalogs.size()) {
        m_scratch = SortScratch{}; // freed on the stream, after the last preparation
        if (m_shared != nullptr)
            m_shared->doneReading(m_worker, m_uploadStream);
    }
}

CatalogTiles DeviceCatalogs::tileSummary(std::size_t c) const {
    const Prepared& dc = m_catalogs[c];
    std::vector<TileBox> boxes(dc.tiles);
    std::vector<TileWeight> weights(dc.tileWeights.get() != nullptr ? dc.tiles : 0);
    // Into pageable memory: each copy returns once it is done.
    if (!boxes.empty())
        TPACF_CUDA_TRY(cudaMemcpyAsync(boxes.data(), dc.tileBoxes.get(),
                                       boxes.size() * sizeof(TileBox), cudaMemcpyDeviceToHost,
                                       m_uploadStream));
    if (!weights.empty())
        TPACF_CUDA_TRY(cudaMemcpyAsync(weights.data(), dc.tileWeights.get(),
                                       weights.size() * sizeof(TileWeight), cudaMemcpyDeviceToHost,
                                       m_uploadStream));
    TPACF_CUDA_TRY(cudaStreamSynchronize(m_uploadStream));
    CatalogTiles tiles;
    tiles.bounds.reserve(boxes.size());
    for (const TileBox& box : boxes)
        tiles.bounds.push_back(
            CellBounds{{box.lo[0], box.lo[1], box.lo[2]}, {box.hi[0], box.hi[1], box.hi[2]}});
    for (const TileWeight& w : weights)
        tiles.weights.push_back(TileSums{w.sum, w.sumSquares});
    return tiles;
}

} // namespace tpacf::cuda::detail
