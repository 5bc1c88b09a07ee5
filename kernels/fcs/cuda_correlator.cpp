// SPDX-License-Identifier: GPL-3.0-or-later
// The streaming CUDA multi-tau correlator (multitau.h): every channel's state (each level's last
// P samples, the sample a coalescing level holds over, the 64-bit sums) stays on the GPU between
// feeds; a feed copies its frames in chunks through two pinned buffers (the host copy into one
// runs while the other is uploaded and counted: two streams, events between them) and, per
// chunk, runs one pass per level (all channels in one launch) and one coalescing step between
// levels. The counts are exact integers, identical to the CPU reference's.
#include "cuda_correlator_impl.h"

#include "cuda_check.h"
#include "multitau_kernels.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace tpacf::cuda::detail::fcs {

namespace {

using tpacf::fcs::MultiTauCounts;
using tpacf::fcs::MultiTauSettings;

/// Bytes of frames per chunk: large enough that a chunk's dozen launches cost little against
/// its work, small enough that two pinned buffers stay modest.
constexpr std::size_t kChunkBytes = std::size_t{64} << 20;
/// Host copies into pinned memory are split across threads above this size.
constexpr std::size_t kParallelCopyBytes = std::size_t{4} << 20;

class CudaCorrelator final : public tpacf::fcs::MultiTauCorrelator {
public:
    CudaCorrelator(const MultiTauSettings& settings, std::size_t channels, int device,
                   std::string description)
        : m_settings(settings), m_channels(channels), m_device(device),
          m_description(std::move(description)) {
        m_settings.validate();
        if (channels == 0)
            throw ConfigError("multi-tau correlator: 0 channels");
        if (!kernelSupportsLags(settings.lagsPerLevel))
            throw ConfigError("the CUDA correlator counts 8, 16, 32 or 64 lags per level, not " +
                              std::to_string(settings.lagsPerLevel) +
                              " (the CPU backend takes any even number)");
        // Coalesced samples are 32-bit words: 255 * 2^k fits them up to level 24.
        if (settings.levels > 25)
            throw ConfigError("the CUDA correlator counts up to 25 levels (lags to 2^24 frames "
                              "per sample), not " +
                              std::to_string(settings.levels) +
                              " (the CPU backend takes more)");
        DeviceGuard guard(m_device);
        m_framesPerChunk = std::max<std::size_t>(1, kChunkBytes / channels);
        const auto p = static_cast<std::size_t>(settings.lagsPerLevel);
        const auto levels = static_cast<std::size_t>(settings.levels);
        const cudaStream_t s = m_compute.get();
        for (auto& buffer : m_frames)
            buffer = DeviceBuffer<std::uint8_t>(m_framesPerChunk * channels, s);
        for (auto& buffer : m_pinned)
            buffer = PinnedBuffer<std::uint8_t>(m_framesPerChunk * channels);
        m_levels.resize(levels);
        for (std::size_t k = 0; k < levels; ++k) {
            m_levelStreams.push_back(std::make_unique<Stream>());
            m_coalesced.push_back(std::make_unique<Event>());
            m_passed.push_back(std::make_unique<Event>());
        }
        std::size_t samples = m_framesPerChunk;
        for (std::size_t k = 0; k < levels; ++k) {
            Level& level = m_levels[k];
            for (auto& history : level.history)
                history = zeroed<std::uint32_t>(p * channels);
            for (auto& pending : level.pending)
                pending = zeroed<std::uint32_t>(channels);
            level.products = zeroed<unsigned long long>(p * channels);
            level.sums = zeroed<unsigned long long>(channels);
            // The coalesced series this level hands to the next: (held + samples) / 2 a chunk.
            samples = samples / 2 + 1;
            if (k + 1 < levels)
                level.next = DeviceBuffer<std::uint32_t>(samples * channels, s);
        }
        TPACF_CUDA_TRY(cudaStreamSynchronize(s));
    }

    ~CudaCorrelator() override {
        // Buffers are freed stream-ordered: let the streams finish first.
        cudaSetDevice(m_device);
        cudaStreamSynchronize(m_copy.get());
        for (const auto& stream : m_levelStreams)
            cudaStreamSynchronize(stream->get());
        cudaStreamSynchronize(m_compute.get());
    }

    std::string backendName() const override { return "cuda"; }
    std::string deviceDescription() const override { return m_description; }
    std::size_t channels() const noexcept override { return m_channels; }
    const MultiTauSettings& settings() const noexcept override { return m_settings; }

    void feed(std::span<const std::uint8_t> frames) override {
        if (frames.size() % m_channels != 0)
            throw ConfigError("multi-tau correlator: " + std::to_string(frames.size()) +
                              " bytes are not whole frames of " + std::to_string(m_channels) +
                              " channels");
        DeviceGuard guard(m_device);
        const std::size_t total = frames.size() / m_channels;
        for (std::size_t first = 0; first < total; first += m_framesPerChunk) {
            const std::size_t count = std::min(m_framesPerChunk, total - first);
            uploadAndCount(frames.subspan(first * m_channels, count * m_channels), count);
        }
        m_framesFed += total;
    }

    std::optional<double> deviceSeconds() const override {
        DeviceGuard guard(m_device);
        TPACF_CUDA_TRY(cudaStreamSynchronize(m_compute.get()));
        for (const auto& [start, end] : m_timings)
            m_countedSeconds += 1e-3 * end->millisecondsSince(*start);
        m_timings.clear();
        return m_countedSeconds;
    }

    MultiTauCounts counts() const override {
        DeviceGuard guard(m_device);
        TPACF_CUDA_TRY(cudaStreamSynchronize(m_compute.get()));
        const auto p = static_cast<std::size_t>(m_settings.lagsPerLevel);
        const auto levels = static_cast<std::size_t>(m_settings.levels);
        MultiTauCounts out;
        out.settings = m_settings;
        out.channels = m_channels;
        out.frames = m_framesFed;
        out.samples.resize(levels);
        out.sums.assign(m_channels * levels, 0);
        out.products.assign(m_channels * levels * p, 0);
        std::vector<unsigned long long> products(p * m_channels), sums(m_channels);
        for (std::size_t k = 0; k < levels; ++k) {
            const Level& level = m_levels[k];
            out.samples[k] = level.samples;
            TPACF_CUDA_TRY(cudaMemcpy(products.data(), level.products.get(),
                                      products.size() * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost));
            TPACF_CUDA_TRY(cudaMemcpy(sums.data(), level.sums.get(),
                                      sums.size() * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost));
            for (std::size_t c = 0; c < m_channels; ++c) {
                out.sums[c * levels + k] = sums[c];
                for (std::size_t j = 0; j < p; ++j)
                    out.products[(c * levels + k) * p + j] = products[j * m_channels + c];
            }
        }
        return out;
    }

private:
    struct Level {
        std::array<DeviceBuffer<std::uint32_t>, 2> history; // P x C; `current` is the live one
        std::array<DeviceBuffer<std::uint32_t>, 2> pending; // C: the sample held over
        int current = 0;
        int pendingCurrent = 0;
        bool holding = false;      // a sample is held over into the next chunk's pairs
        std::uint64_t samples = 0; // M_k
        DeviceBuffer<unsigned long long> products; // P x C (row j = lag j)
        DeviceBuffer<unsigned long long> sums;     // C
        DeviceBuffer<std::uint32_t> next;          // this chunk's coalesced series for k + 1
    };

    template <class T> DeviceBuffer<T> zeroed(std::size_t count) {
        DeviceBuffer<T> buffer(count, m_compute.get());
        TPACF_CUDA_TRY(cudaMemsetAsync(buffer.get(), 0, buffer.bytes(), m_compute.get()));
        return buffer;
    }

    void uploadAndCount(std::span<const std::uint8_t> bytes, std::size_t count) {
        const int slot = m_nextSlot;
        m_nextSlot ^= 1;
        // The pinned buffer and the device buffer of this slot are free once the compute that
        // last read them is done.
        m_computed[slot].synchronize();
        std::uint8_t* pinned = m_pinned[slot].get();
        if (bytes.size() >= kParallelCopyBytes)
            parallelForRanges(
                bytes.size(),
                [&](std::size_t begin, std::size_t end) {
                    std::memcpy(pinned + begin, bytes.data() + begin, end - begin);
                },
                0, kParallelCopyBytes / 4);
        else
            std::memcpy(pinned, bytes.data(), bytes.size());
        TPACF_CUDA_TRY(cudaMemcpyAsync(m_frames[slot].get(), pinned, bytes.size(),
                                       cudaMemcpyHostToDevice, m_copy.get()));
        m_uploaded[slot].record(m_copy.get());
        TPACF_CUDA_TRY(cudaStreamWaitEvent(m_compute.get(), m_uploaded[slot].get(), 0));
        auto start = std::make_unique<Event>(), end = std::make_unique<Event>();
        start->record(m_compute.get());
        countChunk(m_frames[slot].get(), count);
        end->record(m_compute.get());
        m_timings.emplace_back(std::move(start), std::move(end));
        m_computed[slot].record(m_compute.get());
    }

    // One chunk through every level. The coalescing runs down the levels on the compute stream;
    // each level's pass runs on a stream of its own as soon as its series is there, so that the
    // passes of the upper levels (a few blocks each, latency-bound) overlap one another and the
    // coalescing instead of running one after another. The compute stream waits for every pass
    // before the chunk ends: the next chunk overwrites the series they read.
    void countChunk(const std::uint8_t* frames, std::size_t count) {
        const cudaStream_t s = m_compute.get();
        const std::uint32_t* series = nullptr; // levels >= 1: the previous level's `next`
        m_chunkStart.record(s);
        const Event* ready = &m_chunkStart; // the event after which this level's series is there
        std::size_t passes = 0;
        for (std::size_t k = 0; k < m_levels.size() && count > 0; ++k) {
            Level& level = m_levels[k];
            LevelPass pass;
            pass.lagsPerLevel = m_settings.lagsPerLevel;
            pass.firstLag = m_settings.firstLag(static_cast<int>(k));
            pass.coalescedFrames = k < 63 ? std::uint64_t{1} << k : ~std::uint64_t{0};
            pass.channels = m_channels;
            pass.count = count;
            pass.samples8 = k == 0 ? frames : nullptr;
            pass.samples32 = k == 0 ? nullptr : series;
            pass.history = level.history[static_cast<std::size_t>(level.current)].get();
            pass.historyOut = level.history[static_cast<std::size_t>(level.current ^ 1)].get();
            pass.products = level.products.get();
            pass.sums = level.sums.get();
            const cudaStream_t own = m_levelStreams[k]->get();
            TPACF_CUDA_TRY(cudaStreamWaitEvent(own, ready->get(), 0));
            launchLevelPass(pass, own);
            m_passed[k]->record(own);
            ++passes;
            level.current ^= 1;
            level.samples += count;
            if (k + 1 == m_levels.size())
                break;
            CoalescePass coalesce;
            coalesce.channels = m_channels;
            coalesce.count = count;
            coalesce.in8 = k == 0 ? frames : nullptr;
            coalesce.in32 = k == 0 ? nullptr : series;
            coalesce.pendingIn = level.holding;
            coalesce.pendingOut = (count + (level.holding ? 1 : 0)) % 2 == 1;
            coalesce.pendingRead = level.pending[static_cast<std::size_t>(level.pendingCurrent)].get();
            coalesce.pendingWrite =
                level.pending[static_cast<std::size_t>(level.pendingCurrent ^ 1)].get();
            coalesce.out = level.next.get();
            launchCoalesce(coalesce, s);
            m_coalesced[k]->record(s);
            ready = m_coalesced[k].get();
            const std::size_t next = (count + (level.holding ? 1 : 0)) / 2;
            if (coalesce.pendingOut)
                level.pendingCurrent ^= 1;
            level.holding = coalesce.pendingOut;
            series = level.next.get();
            count = next;
        }
        for (std::size_t k = 0; k < passes; ++k)
            TPACF_CUDA_TRY(cudaStreamWaitEvent(s, m_passed[k]->get(), 0));
    }

    MultiTauSettings m_settings;
    std::size_t m_channels;
    int m_device;
    std::string m_description;
    std::size_t m_framesPerChunk = 0;
    std::uint64_t m_framesFed = 0;
    Stream m_copy, m_compute;
    std::array<DeviceBuffer<std::uint8_t>, 2> m_frames;
    std::array<PinnedBuffer<std::uint8_t>, 2> m_pinned;
    std::array<Event, 2> m_uploaded, m_computed;
    // A stream per level for its passes, and the events that order them (countChunk).
    std::vector<std::unique_ptr<Stream>> m_levelStreams;
    std::vector<std::unique_ptr<Event>> m_coalesced, m_passed;
    Event m_chunkStart;
    int m_nextSlot = 0;
    std::vector<Level> m_levels;
    // Kernel time of the chunks not yet summed (deviceSeconds sums them).
    mutable std::vector<std::pair<std::unique_ptr<Event>, std::unique_ptr<Event>>> m_timings;
    mutable double m_countedSeconds = 0;
};

} // namespace

std::unique_ptr<tpacf::fcs::MultiTauCorrelator>
makeCudaCorrelator(const tpacf::fcs::MultiTauSettings& settings, std::size_t channels,
                   int device, std::string description) {
    return std::make_unique<CudaCorrelator>(settings, channels, device, std::move(description));
}

} // namespace tpacf::cuda::detail::fcs
