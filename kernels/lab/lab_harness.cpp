// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel Lab's CUDA harness: device check, upload, the shared counters' limits and sizes,
// the chunked and timed launch loop, the occupancy facts. Nothing here changes a count; the rungs'
// kernels do all the counting.
#include "lab_harness.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

namespace tpacf::cuda::lab {
namespace {

/// Chunks last about this long, so that a cancel is seen within ~50 ms of work.
constexpr double kChunkSeconds = 0.050;
/// The first chunk holds about this many pairs (a few ms on the slowest rung); each next one
/// grows at most kChunkGrowth times.
constexpr std::uint64_t kFirstChunkPairs = std::uint64_t{1} << 24;
constexpr double kChunkGrowth = 4.0;

/// Throws BackendUnavailable (before touching any device) when `device` cannot be used.
int checkedDevice(int device) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw BackendUnavailable(std::string("CUDA Kernel Lab unavailable: ") +
                                 cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
    }
    if (count == 0)
        throw BackendUnavailable("CUDA Kernel Lab unavailable: the driver reports 0 devices");
    if (device < 0 || device >= count)
        throw BackendUnavailable("CUDA Kernel Lab unavailable: device " + std::to_string(device) +
                                 " does not exist (this machine has " + std::to_string(count) +
                                 ")");
    return device;
}

template <class Real, class Convert>
DeviceAxes<Real> uploadAxes(const Catalog& catalog, cudaStream_t stream, Convert convert) {
    DeviceAxes<Real> axes;
    axes.size = catalog.size();
    std::vector<Real> values(catalog.size());
    const auto put = [&](std::span<const double> source, detail::DeviceBuffer<Real>& target) {
        std::transform(source.begin(), source.end(), values.begin(), convert);
        target = uploadArray<Real>(values, stream);
    };
    put(catalog.x(), axes.x);
    put(catalog.y(), axes.y);
    put(catalog.z(), axes.z);
    return axes;
}

std::string bytesText(std::size_t bytes) {
    return bytes >= 4096 ? std::to_string(bytes / 1024) + " KiB" : std::to_string(bytes) + " B";
}

} // namespace

LabDevice::LabDevice(int device) : m_index(checkedDevice(device)), m_guard(device) {
    TPACF_CUDA_TRY(cudaGetDeviceProperties(&m_properties, device));
}

DeviceAxes<double> uploadDouble(const Catalog& catalog, cudaStream_t stream) {
    return uploadAxes<double>(catalog, stream, [](double v) { return v; });
}

DeviceAxes<float> uploadFloat(const Catalog& catalog, cudaStream_t stream) {
    return uploadAxes<float>(catalog, stream, [](double v) { return static_cast<float>(v); });
}

DeviceHiLo uploadHiLo(const Catalog& catalog, cudaStream_t stream) {
    // Round to nearest, as the product's preparation (__double2float_rn) does.
    return {uploadAxes<float>(catalog, stream, [](double v) { return static_cast<float>(v); }),
            uploadAxes<float>(catalog, stream, [](double v) {
                return static_cast<float>(v - static_cast<double>(static_cast<float>(v)));
            })};
}

DoubleInputs uploadDoubleInputs(const Catalog& first, const Catalog* second, const Binning& binning,
                                cudaStream_t stream) {
    DoubleInputs inputs;
    inputs.cross = second != nullptr;
    inputs.first = uploadDouble(first, stream);
    if (second)
        inputs.second = uploadDouble(*second, stream);
    inputs.thresholds = uploadArray<double>(binning.chord2Edges(), stream);
    return inputs;
}

void checkSharedCounterRange(const std::string& key, const PairShape& shape, int rowsPerBlock) {
    if (static_cast<std::uint64_t>(shape.columns) * rowsPerBlock >
        std::numeric_limits<std::uint32_t>::max())
        throw ConfigError("Kernel Lab rung " + key + ": at most " +
                          std::to_string(std::numeric_limits<std::uint32_t>::max() / rowsPerBlock) +
                          " points in the second catalog (its 32-bit shared counters)");
}

SharedHistograms sizeSharedHistograms(const std::string& key, std::size_t tileBytes,
                                      std::size_t binCount, int maxCopies) {
    const std::size_t histBytes = binCount * sizeof(unsigned);
    if (tileBytes + histBytes > kDefaultSharedPerBlock)
        throw ConfigError("Kernel Lab rung " + key + ": " + std::to_string(binCount) +
                          " bins do not fit in a block's shared memory");
    // Staying below the default limit needs no opt-in (cudaFuncSetAttribute) on any GPU. A
    // Binning has at least one bin; the max() only keeps the division defined.
    const int copies = static_cast<int>(std::min<std::size_t>(
        static_cast<std::size_t>(maxCopies),
        (kDefaultSharedPerBlock - tileBytes) / std::max<std::size_t>(histBytes, 1)));
    return {copies, tileBytes + copies * histBytes};
}

std::uint64_t PairShape::pairsOfRows(std::int64_t begin, std::int64_t end) const noexcept {
    if (end <= begin)
        return 0;
    const auto b = static_cast<std::uint64_t>(begin), e = static_cast<std::uint64_t>(end);
    if (!autoPairs)
        return (e - b) * static_cast<std::uint64_t>(columns);
    // Row i holds columns − 1 − i pairs: the sum over [b, e) of (n − 1 − i).
    const auto n = static_cast<std::uint64_t>(columns);
    const std::uint64_t count = e - b;
    return count * (n - 1) - (b + e - 1) * count / 2;
}

PairShape pairShape(const Catalog& first, const Catalog* second) noexcept {
    PairShape shape;
    shape.rows = static_cast<std::int64_t>(first.size());
    shape.columns = static_cast<std::int64_t>(second ? second->size() : first.size());
    shape.autoPairs = second == nullptr;
    return shape;
}

LabCounts timeChunkedCount(LabDevice& device, const TimedRun& run, const LaunchRows& launch) {
    const cudaStream_t stream = device.stream();
    const std::size_t counterBytes = run.width == CounterWidth::Bits32 ? 4 : 8;
    detail::DeviceBuffer<unsigned char> d_counts(std::max<std::size_t>(run.binCount, 1) * 8,
                                                 stream);
    detail::PinnedBuffer<unsigned char> h_counts(std::max<std::size_t>(run.binCount, 1) * 8);
    detail::Event start, stop;
    TPACF_CUDA_TRY(cudaStreamSynchronize(stream)); // the uploads end before any timing

    const auto cancelled = [&] {
        return run.cancel && run.cancel->load(std::memory_order_relaxed);
    };
    const std::int64_t multiple = std::max<std::int64_t>(run.rowMultiple, 1);
    // Rows from `begin` that hold about `pairs` pairs, rounded up to the row multiple.
    const auto rowsFor = [&](std::int64_t begin, double pairs) {
        std::int64_t end = begin;
        std::uint64_t held = 0;
        while (end < run.shape.rows && static_cast<double>(held) < pairs) {
            const std::int64_t next = std::min(run.shape.rows, end + multiple);
            held += run.shape.pairsOfRows(end, next);
            end = next;
        }
        return std::max(end, std::min(run.shape.rows, begin + multiple));
    };

    LabCounts result;
    result.seconds = std::numeric_limits<double>::infinity();
    double bestDevice = std::numeric_limits<double>::infinity();
    double pairsPerSecond = 0; // measured by the chunks so far, carried over the repeats
    for (int repeat = 0; repeat < std::max(run.repeats, 1); ++repeat) {
        const auto wallStart = std::chrono::steady_clock::now();
        TPACF_CUDA_TRY(cudaMemsetAsync(d_counts.get(), 0, d_counts.bytes(), stream));
        double deviceSeconds = 0;
        double chunkPairs = static_cast<double>(kFirstChunkPairs);
        for (std::int64_t row = 0; row < run.shape.rows;) {
            if (cancelled())
                throw Cancelled();
            if (pairsPerSecond > 0)
                chunkPairs = std::min(chunkPairs * kChunkGrowth, pairsPerSecond * kChunkSeconds);
            const std::int64_t end = rowsFor(row, chunkPairs);
            start.record(stream);
            launch(row, end, d_counts.get(), stream);
            TPACF_CUDA_CHECK_LAUNCH("lab kernel");
            stop.record(stream);
            stop.synchronize();
            const double seconds = stop.millisecondsSince(start) / 1000.0;
            deviceSeconds += seconds;
            const std::uint64_t pairs = run.shape.pairsOfRows(row, end);
            if (seconds > 0 && pairs > 0)
                pairsPerSecond = static_cast<double>(pairs) / seconds;
            chunkPairs = std::max(chunkPairs, static_cast<double>(pairs));
            row = end;
        }
        TPACF_CUDA_TRY(cudaMemcpyAsync(h_counts.get(), d_counts.get(), run.binCount * counterBytes,
                                       cudaMemcpyDeviceToHost, stream));
        TPACF_CUDA_TRY(cudaStreamSynchronize(stream));
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
        result.seconds = std::min(result.seconds, wall);
        bestDevice = std::min(bestDevice, deviceSeconds);

        result.counts.assign(run.binCount, 0);
        for (std::size_t k = 0; k < run.binCount; ++k) {
            if (run.width == CounterWidth::Bits32)
                result.counts[k] = reinterpret_cast<const std::uint32_t*>(h_counts.get())[k];
            else
                result.counts[k] = reinterpret_cast<const std::uint64_t*>(h_counts.get())[k];
        }
    }
    result.deviceSeconds = bestDevice;
    return result;
}

std::string occupancyNote(const LabDevice& device, const void* kernel, const char* kernelName,
                          int blockSize, std::size_t dynamicShared) {
    cudaFuncAttributes attributes{};
    TPACF_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    int blocksPerSm = 0;
    TPACF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, kernel, blockSize,
                                                                 dynamicShared));
    const cudaDeviceProp& props = device.properties();
    const int threads = blocksPerSm * blockSize;
    char occupancy[32];
    std::snprintf(occupancy, sizeof occupancy, "%.0f%%",
                  100.0 * threads / std::max(props.maxThreadsPerMultiProcessor, 1));
    return std::string(kernelName) + ": block of " + std::to_string(blockSize) + " threads, " +
           std::to_string(attributes.numRegs) + " registers per thread, " +
           bytesText(attributes.sharedSizeBytes) + " static + " + bytesText(dynamicShared) +
           " dynamic shared memory per block; " + std::to_string(blocksPerSm) + " blocks per SM (" +
           std::to_string(threads) + " of " + std::to_string(props.maxThreadsPerMultiProcessor) +
           " threads, " + occupancy + " occupancy) on " +
           std::to_string(props.multiProcessorCount) + " SMs";
}

std::vector<std::string> commonNotes(const LabDevice& device, const PairShape& shape) {
    return {
        "device " + std::to_string(device.index()) + ": " + device.properties().name,
        std::to_string(shape.pairTotal()) + " pairs",
        "catalogs uploaded once before timing; seconds: zeroing the counters, the launches and "
        "copying the counts back (best of the repeats); device seconds: the launches alone "
        "(CUDA events)",
        "the rows are launched in chunks of ~50 ms so that a cancel is seen between them",
    };
}

} // namespace tpacf::cuda::lab
