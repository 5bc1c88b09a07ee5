// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every CUDA rung of the Kernel Lab shares and none of them teaches: the device check, the
// catalogs' upload, the limits of the shared counters and the sizing of the shared histograms,
// the timed loop of launches (chunked for cancellation, the grid sized from the rung's launch
// description) and the occupancy facts. Internal to kernels/lab; the rungs' kernels and their
// launch lines stay in their own files.
#include "cuda_check.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/lab.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace tpacf::cuda::lab {

using tpacf::lab::LabCounts;
using tpacf::lab::LabVariant;

/// The device a rung counts on, made current for the count; its stream, and its properties
/// for the launch sizes and the notes. Throws BackendUnavailable (no driver, no such device)
/// naming the reason, CudaError for any other failure.
class LabDevice {
public:
    explicit LabDevice(int device);

    int index() const noexcept { return m_index; }
    const cudaDeviceProp& properties() const noexcept { return m_properties; }
    cudaStream_t stream() const noexcept { return m_stream.get(); }

private:
    int m_index;
    cudaDeviceProp m_properties{};
    detail::DeviceGuard m_guard;
    detail::Stream m_stream;
};

/// A catalog's unit vectors on the device, one array per axis (structure of arrays: the
/// threads of a warp read consecutive points, coalesced).
template <class Real> struct DeviceAxes {
    detail::DeviceBuffer<Real> x, y, z;
    std::size_t size = 0;
};

/// Copies `values` to the device (stream-ordered; the caller synchronises before timing).
template <class T>
detail::DeviceBuffer<T> uploadArray(std::span<const T> values, cudaStream_t stream) {
    detail::DeviceBuffer<T> buffer(values.size(), stream);
    if (!values.empty())
        TPACF_CUDA_TRY(cudaMemcpyAsync(buffer.get(), values.data(), values.size() * sizeof(T),
                                       cudaMemcpyHostToDevice, stream));
    // Pageable source: the copy has left `values` when this returns, so a temporary may go.
    return buffer;
}

/// The catalog's double unit vectors as they are.
DeviceAxes<double> uploadDouble(const Catalog& catalog, cudaStream_t stream);
/// Rounded to float (what a course code reads from a float file).
DeviceAxes<float> uploadFloat(const Catalog& catalog, cudaStream_t stream);
/// Each component split as hi = float(x), lo = float(x − hi): hi + lo carries x to ~2^-48.
struct DeviceHiLo {
    DeviceAxes<float> hi, lo;
};
DeviceHiLo uploadHiLo(const Catalog& catalog, cudaStream_t stream);

/// The pairs of one count: rows are the first catalog's points, each against the second's
/// points (auto: the first against itself, j > i only).
struct PairShape {
    std::int64_t rows = 0;    // points of the first catalog
    std::int64_t columns = 0; // points of the second (auto: the first)
    bool autoPairs = false;

    /// Pairs that rows [begin, end) hold.
    std::uint64_t pairsOfRows(std::int64_t begin, std::int64_t end) const noexcept;
    std::uint64_t pairTotal() const noexcept { return pairsOfRows(0, rows); }
};
PairShape pairShape(const Catalog& first, const Catalog* second) noexcept;

/// Counter width of a rung's global histogram.
enum class CounterWidth { Bits32, Bits64 };

/// Launches a rung's kernel(s) for rows [rowBegin, rowEnd) on `stream`, adding into d_counts
/// (unsigned int or unsigned long long per bin, as the rung's CounterWidth says).
using LaunchRows = std::function<void(std::int64_t rowBegin, std::int64_t rowEnd, void* d_counts,
                                      cudaStream_t stream)>;

struct TimedRun {
    PairShape shape;
    std::size_t binCount = 0;
    CounterWidth width = CounterWidth::Bits64;
    /// Chunks hold a multiple of this many rows (a block's rows), but the last.
    std::int64_t rowMultiple = 1;
    int repeats = 1;
    const std::atomic<bool>* cancel = nullptr;
};

/// Counts `repeats` times, each: counters zeroed, the rows launched in chunks of ~50 ms (the
/// first small, then sized from the rate measured so far; the cancel flag is read between
/// chunks), the counts copied back. seconds: the best wall time of a repeat, zeroing and the
/// copy included; deviceSeconds: the best sum of the chunks' CUDA-event times. Throws
/// Cancelled, CudaError.
LabCounts timeChunkedCount(LabDevice& device, const TimedRun& run, const LaunchRows& launch);

/// The occupancy facts of one kernel at a block size, for LabCounts::notes: registers per
/// thread and static shared memory (cudaFuncGetAttributes), the dynamic shared memory given,
/// blocks per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor) and what they make of the SM.
std::string occupancyNote(const LabDevice& device, const void* kernel, const char* kernelName,
                          int blockSize, std::size_t dynamicShared);

/// The notes every rung but the product's shares: device, upload outside the timing, chunks.
std::vector<std::string> commonNotes(const LabDevice& device, const PairShape& shape);

/// Shared memory a block may have without opting in (48 KiB on every GPU since Kepler); the
/// rungs that size their histograms from it stay below it, so no opt-in is needed.
inline constexpr std::size_t kDefaultSharedPerBlock = 48 * 1024;

/// A rung of the CUDA ladder: backend "cuda", counting on one device (the first by default).
class CudaLabVariant : public LabVariant {
public:
    explicit CudaLabVariant(int device) : m_device(device) {}
    std::string backend() const override { return "cuda"; }

protected:
    int device() const noexcept { return m_device; }

private:
    int m_device;
};

/// Blocks along the columns of a grid whose blocks each take `slice` columns: at least one
/// (a launch with a zero grid dimension is an error, and an empty catalog still launches).
inline unsigned columnSlices(long long columns, long long slice) {
    return static_cast<unsigned>(std::max<long long>(1, (columns + slice - 1) / slice));
}

/// Both catalogs' double unit vectors and the bins' c² thresholds on the device: what rungs 2
/// to 4 read. Uploaded in that order on the stream (first, second, thresholds).
struct DoubleInputs {
    DeviceAxes<double> first, second; // second: empty for an auto count
    detail::DeviceBuffer<double> thresholds;
    bool cross = false;

    /// The catalog the kernel pairs each row with: the second, or the first for an auto count.
    const DeviceAxes<double>& columns() const noexcept { return cross ? second : first; }
};
DoubleInputs uploadDoubleInputs(const Catalog& first, const Catalog* second, const Binning& binning,
                                cudaStream_t stream);

/// Throws ConfigError (naming the rung by `key`) where a block's 32-bit shared counter could
/// wrap: one bin of a block holds at most rowsPerBlock × columns pairs.
void checkSharedCounterRange(const std::string& key, const PairShape& shape, int rowsPerBlock);

/// Dynamic shared memory of a block that stages a j tile (tileBytes) and keeps `copies` 32-bit
/// histograms of binCount bins after it.
struct SharedHistograms {
    int copies = 1;
    std::size_t bytes = 0;
};
/// As many copies as fit in kDefaultSharedPerBlock beside the tile, at most maxCopies (one per
/// warp: rung 4 and 5; one per block: rung 3). Throws ConfigError (naming the rung by `key`)
/// where not even one fits.
SharedHistograms sizeSharedHistograms(const std::string& key, std::size_t tileBytes,
                                      std::size_t binCount, int maxCopies);

/// How a rung launches its kernel: what the chunked loop needs to cut rows into blocks, and
/// what the occupancy note reports.
struct RungLaunch {
    const void* kernel = nullptr; // for cudaFuncGetAttributes and the occupancy
    const char* kernelName = "";
    int blockSize = 0;
    /// Rows one block takes (blockSize × points per thread); the grid's x covers a chunk's rows.
    int rowsPerBlock = 0;
    /// Columns one block takes (the grid's y covers them), or 0: all columns, a 1-D grid.
    long long columnSlice = 0;
    std::size_t dynamicShared = 0;
};

/// The count every rung but the product's makes: the rows launched in chunks through
/// timeChunkedCount, each chunk as launch(grid, rowBegin, rowEnd, d_counts, stream) with the
/// grid sized from `rung` and d_counts typed by Counter (unsigned int: 32-bit counters, unsigned
/// long long: 64-bit); then the common notes and the kernel's occupancy note. The rung adds its
/// own notes after these.
template <class Counter, class Launch>
LabCounts countRows(LabDevice& device, const PairShape& shape, std::size_t binCount, int repeats,
                    const std::atomic<bool>* cancel, const RungLaunch& rung, Launch&& launch) {
    static_assert(std::is_same_v<Counter, unsigned int> ||
                      std::is_same_v<Counter, unsigned long long>,
                  "a rung counts into 32-bit or 64-bit unsigned counters");
    TimedRun run;
    run.shape = shape;
    run.binCount = binCount;
    run.width = std::is_same_v<Counter, unsigned int> ? CounterWidth::Bits32 : CounterWidth::Bits64;
    run.rowMultiple = rung.rowsPerBlock;
    run.repeats = repeats;
    run.cancel = cancel;
    const unsigned slices =
        rung.columnSlice > 0 ? columnSlices(shape.columns, rung.columnSlice) : 1u;
    LabCounts result = timeChunkedCount(
        device, run,
        [&](std::int64_t begin, std::int64_t end, void* d_counts, cudaStream_t stream) {
            const auto blocks =
                static_cast<unsigned>((end - begin + rung.rowsPerBlock - 1) / rung.rowsPerBlock);
            launch(dim3(blocks, slices), begin, end, static_cast<Counter*>(d_counts), stream);
        });
    result.notes = commonNotes(device, shape);
    result.notes.push_back(
        occupancyNote(device, rung.kernel, rung.kernelName, rung.blockSize, rung.dynamicShared));
    return result;
}

} // namespace tpacf::cuda::lab
