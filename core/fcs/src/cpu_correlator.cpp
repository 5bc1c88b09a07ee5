// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU reference of the multi-tau correlator (docs/fcs-multitau.md). Channels are independent,
// so workers take contiguous ranges of them and no count depends on the split. A feed is walked
// in blocks of frames; each block of channels is transposed into one series per channel (its
// last P-1 samples in front, so every lag of every new sample is a plain dot product), and each
// level's new coalesced samples are built from the series of the level below. The state carried
// between feeds is, per channel and level, the last P-1 samples: the pending half of a coalesced
// sample is always among them, so any chunking gives the counts of one pass.
#include "tpacf/multitau.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

// The dot products vectorise (pmaddwd, pmuludq); built once per instruction set and picked at
// load time, since the project's baseline is plain x86-64.
#if defined(__GNUC__) && defined(__x86_64__)
#define TPACF_FCS_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define TPACF_FCS_CLONES
#endif
#define TPACF_FCS_INLINE [[gnu::always_inline]] inline

namespace tpacf::fcs {

namespace {

// Frames per pass over a block of channels, and channels per block: a block's level-0 series
// (64 x ~2k x 2 bytes) and the frame rows it is read from (2k x 64 bytes) stay in L2.
constexpr std::size_t kBlockFrames = 2048;
constexpr std::size_t kChannelBlock = 64;
// A worker is worth its start-up only with this many samples of a feed.
constexpr std::size_t kMinSamplesPerWorker = std::size_t(1) << 16;

// Levels 0..3 keep 16-bit samples and 32-bit sums per block (pmaddwd): a level-k sample is at
// most 255 * 2^k, and a block holds at most kBlockFrames / 2^k + 1 of them.
constexpr int kLastShortLevel = 3;
constexpr bool shortLevelFits(int level) {
    const std::uint64_t maxValue = std::uint64_t{255} << level;
    const std::uint64_t maxSamples = (kBlockFrames >> level) + 1;
    return maxValue <= 32767 && maxSamples * maxValue * maxValue <= 2147483647u;
}
static_assert(shortLevelFits(0) && shortLevelFits(kLastShortLevel));
// Levels up to 24 keep 32-bit samples (products in 64 bits); above, 64-bit samples whose
// products wrap modulo 2^64 as every backend's do.
constexpr int kLastNarrowLevel = 24;
static_assert((std::uint64_t{255} << kLastNarrowLevel) <= 0xffffffffu);

struct Shape {
    int lags = 0;       // P
    int levels = 0;     // L
    std::size_t kept = 0; // P - 1 samples carried per level
};

// One channel's state and counts, inside the correlator's arrays.
struct ChannelState {
    std::uint64_t* history;  // levels x (P - 1): the last samples of each level, oldest first
    std::uint64_t* sums;     // levels
    std::uint64_t* products; // levels x P
};

// A worker's series: the transposed level-0 block and two series per sample width, used in turn
// by consecutive levels (level k is built from level k - 1).
struct Series {
    explicit Series(const Shape& shape)
        : stride(shape.kept + kBlockFrames), level0(kChannelBlock * stride) {
        const std::size_t upper = shape.kept + kBlockFrames / 2 + 2;
        for (int i = 0; i < 2; ++i) {
            shorts[i].resize(upper);
            narrow[i].resize(upper);
            wide[i].resize(upper);
        }
    }
    std::size_t stride;
    std::vector<std::int16_t> level0;
    std::vector<std::int16_t> shorts[2];
    std::vector<std::uint32_t> narrow[2];
    std::vector<std::uint64_t> wide[2];
};

// A[j] += sum_i x[i] x[i - j] for j in [first, P): x has P - 1 earlier samples before it.
template <typename Value, typename Sum>
TPACF_FCS_INLINE void correlate(const Value* x, std::size_t n, int first, int lags,
                                std::uint64_t* products) {
    for (int j = first; j < lags; ++j) {
        const Value* earlier = x - j;
        Sum sum = 0;
        for (std::size_t i = 0; i < n; ++i)
            sum += static_cast<Sum>(x[i]) * static_cast<Sum>(earlier[i]);
        products[j] += static_cast<std::uint64_t>(sum);
    }
}

template <typename Value>
TPACF_FCS_INLINE std::uint64_t sumOf(const Value* x, std::size_t n) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i)
        sum += static_cast<std::uint64_t>(x[i]);
    return sum;
}

// Level `level`'s new samples of this block: `out` gets the level's kept samples, then each
// new sample as the sum of two samples of level - 1, whose series `below` starts with that
// level's kept samples. Counts the new samples into the channel; false when there are none
// (then no higher level has any either).
template <typename In, typename Out, typename Sum>
TPACF_FCS_INLINE bool stepLevel(int level, const In* below, std::uint64_t framesBefore,
                                std::size_t frames, const Shape& shape, ChannelState channel,
                                Out* out) {
    const std::uint64_t before = framesBefore >> level;
    const auto count =
        static_cast<std::size_t>(((framesBefore + frames) >> level) - before);
    if (count == 0)
        return false;
    const std::size_t kept = shape.kept;
    std::uint64_t* history = channel.history + static_cast<std::size_t>(level) * kept;
    for (std::size_t h = 0; h < kept; ++h)
        out[h] = static_cast<Out>(history[h]);
    // Sample 2m of the level below sits at kept + 2m - (its samples before the block); the
    // first pair's first half (2 * before >= samples below - 1) is at worst its newest kept one.
    const In* pairs = below + (kept + 2 * before - (framesBefore >> (level - 1)));
    Out* fresh = out + kept;
    for (std::size_t m = 0; m < count; ++m)
        fresh[m] = static_cast<Out>(static_cast<Out>(pairs[2 * m]) +
                                    static_cast<Out>(pairs[2 * m + 1]));
    channel.sums[level] += sumOf(fresh, count);
    correlate<Out, Sum>(fresh, count, shape.lags / 2, shape.lags,
                        channel.products + static_cast<std::size_t>(level) * shape.lags);
    for (std::size_t h = 0; h < kept; ++h)
        history[h] = static_cast<std::uint64_t>(out[count + h]);
    return true;
}

// Every level of one channel for one block: `series` holds the channel's level-0 samples of
// the block after room for its kept ones.
TPACF_FCS_INLINE void correlateChannel(std::int16_t* series, std::size_t frames,
                                       std::uint64_t framesBefore, const Shape& shape,
                                       ChannelState channel, Series& work) {
    const std::size_t kept = shape.kept;
    for (std::size_t h = 0; h < kept; ++h)
        series[h] = static_cast<std::int16_t>(channel.history[h]);
    const std::int16_t* fresh = series + kept;
    channel.sums[0] += sumOf(fresh, frames);
    correlate<std::int16_t, std::int32_t>(fresh, frames, 0, shape.lags, channel.products);
    for (std::size_t h = 0; h < kept; ++h)
        channel.history[h] = static_cast<std::uint64_t>(series[frames + h]);

    const int top = shape.levels - 1;
    int level = 1;
    const std::int16_t* shortBelow = series;
    for (; level <= std::min(top, kLastShortLevel); ++level) {
        std::int16_t* out = work.shorts[level & 1].data();
        if (!stepLevel<std::int16_t, std::int16_t, std::int32_t>(level, shortBelow, framesBefore,
                                                                  frames, shape, channel, out))
            return;
        shortBelow = out;
    }
    const std::uint32_t* narrowBelow = nullptr;
    for (; level <= std::min(top, kLastNarrowLevel); ++level) {
        std::uint32_t* out = work.narrow[level & 1].data();
        const bool any =
            level == kLastShortLevel + 1
                ? stepLevel<std::int16_t, std::uint32_t, std::uint64_t>(
                      level, shortBelow, framesBefore, frames, shape, channel, out)
                : stepLevel<std::uint32_t, std::uint32_t, std::uint64_t>(
                      level, narrowBelow, framesBefore, frames, shape, channel, out);
        if (!any)
            return;
        narrowBelow = out;
    }
    const std::uint64_t* wideBelow = nullptr;
    for (; level <= top; ++level) {
        std::uint64_t* out = work.wide[level & 1].data();
        const bool any =
            level == kLastNarrowLevel + 1
                ? stepLevel<std::uint32_t, std::uint64_t, std::uint64_t>(
                      level, narrowBelow, framesBefore, frames, shape, channel, out)
                : stepLevel<std::uint64_t, std::uint64_t, std::uint64_t>(
                      level, wideBelow, framesBefore, frames, shape, channel, out);
        if (!any)
            return;
        wideBelow = out;
    }
}

// Channels [first, first + count) of `frames` rows of `channels` bytes: transposed into one
// series each, then correlated.
TPACF_FCS_CLONES void correlateBlock(const std::uint8_t* rows, std::size_t channels,
                                     std::size_t first, std::size_t count, std::size_t frames,
                                     std::uint64_t framesBefore, const Shape& shape,
                                     std::uint64_t* history, std::uint64_t* sums,
                                     std::uint64_t* products, Series& work) {
    const std::size_t kept = shape.kept;
    const std::size_t stride = work.stride;
    std::int16_t* block = work.level0.data();
    // Frames in tiles of 16, so that a tile's rows stay in L1 while each channel's run of 16
    // samples is written in one go.
    constexpr std::size_t kTile = 16;
    for (std::size_t f0 = 0; f0 < frames; f0 += kTile) {
        const std::size_t tile = std::min(kTile, frames - f0);
        const std::uint8_t* tileRows = rows + f0 * channels + first;
        for (std::size_t c = 0; c < count; ++c) {
            std::int16_t* out = block + c * stride + kept + f0;
            for (std::size_t i = 0; i < tile; ++i)
                out[i] = tileRows[i * channels + c];
        }
    }
    const auto levels = static_cast<std::size_t>(shape.levels);
    const auto lags = static_cast<std::size_t>(shape.lags);
    for (std::size_t c = 0; c < count; ++c) {
        const std::size_t channel = first + c;
        const ChannelState state{history + channel * levels * kept, sums + channel * levels,
                                 products + channel * levels * lags};
        correlateChannel(block + c * stride, frames, framesBefore, shape, state, work);
    }
}

class CpuCorrelator final : public MultiTauCorrelator {
public:
    CpuCorrelator(const MultiTauSettings& settings, std::size_t channels, int threads)
        : m_settings(settings), m_channels(channels), m_threads(threads) {
        m_shape.lags = settings.lagsPerLevel;
        m_shape.levels = settings.levels;
        m_shape.kept = static_cast<std::size_t>(settings.lagsPerLevel - 1);
        const auto levels = static_cast<std::size_t>(settings.levels);
        m_history.assign(channels * levels * m_shape.kept, 0);
        m_sums.assign(channels * levels, 0);
        m_products.assign(channels * levels * static_cast<std::size_t>(m_shape.lags), 0);
    }

    std::string backendName() const override { return "cpu"; }
    std::string deviceDescription() const override {
        const std::size_t workers = workerCount(m_threads, m_channels);
        return "CPU, " + std::to_string(workers) + (workers == 1 ? " thread" : " threads");
    }
    std::size_t channels() const noexcept override { return m_channels; }
    const MultiTauSettings& settings() const noexcept override { return m_settings; }

    void feed(std::span<const std::uint8_t> frames) override {
        if (frames.size() % m_channels != 0)
            throw ConfigError("the correlator was fed " + std::to_string(frames.size()) +
                              " bytes, not whole frames of " + std::to_string(m_channels) +
                              " channels");
        const std::size_t count = frames.size() / m_channels;
        if (count == 0)
            return;
        const std::size_t minChannels =
            std::max<std::size_t>(1, (kMinSamplesPerWorker + count - 1) / count);
        parallelForRanges(
            m_channels,
            [&](std::size_t begin, std::size_t end) {
                Series work(m_shape);
                for (std::size_t f0 = 0; f0 < count; f0 += kBlockFrames) {
                    const std::size_t n = std::min(kBlockFrames, count - f0);
                    for (std::size_t c0 = begin; c0 < end; c0 += kChannelBlock)
                        correlateBlock(frames.data() + f0 * m_channels, m_channels, c0,
                                       std::min(kChannelBlock, end - c0), n, m_frames + f0,
                                       m_shape, m_history.data(), m_sums.data(),
                                       m_products.data(), work);
                }
            },
            m_threads, minChannels);
        m_frames += count;
    }

    MultiTauCounts counts() const override {
        MultiTauCounts counts = emptyCounts(m_settings, m_channels);
        counts.frames = m_frames;
        for (int level = 0; level < m_settings.levels; ++level)
            counts.samples[static_cast<std::size_t>(level)] = m_frames >> level;
        counts.sums = m_sums;
        counts.products = m_products;
        return counts;
    }

private:
    MultiTauSettings m_settings;
    Shape m_shape;
    std::size_t m_channels = 0;
    int m_threads = 0;
    std::uint64_t m_frames = 0;
    std::vector<std::uint64_t> m_history, m_sums, m_products;
};

} // namespace

std::unique_ptr<MultiTauCorrelator> makeCpuCorrelator(const MultiTauSettings& settings,
                                                      std::size_t channels, int threads) {
    settings.validate();
    if (channels == 0)
        throw ConfigError("the correlator needs at least one channel (C = 0)");
    return std::make_unique<CpuCorrelator>(settings, channels, threads);
}

} // namespace tpacf::fcs
