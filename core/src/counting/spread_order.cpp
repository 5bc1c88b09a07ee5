// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/spread_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tpacf {
namespace {

// The stride of the golden-ratio order of `count` items: nearest count/φ, coprime with count.
std::uint64_t goldenStride(std::uint64_t count) {
    if (count < 3)
        return 1;
    const double inverseGolden = 0.6180339887498949;
    std::uint64_t stride = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::llround(static_cast<double>(count) * inverseGolden)));
    while (std::gcd(stride, count) != 1)
        ++stride;
    return stride % count;
}

// rank · stride mod count, without overflow.
std::uint64_t stepped(std::uint64_t rank, std::uint64_t stride, std::uint64_t count) noexcept {
    if (count < 3)
        return rank;
    rank %= count;
    if (rank <= std::numeric_limits<std::uint64_t>::max() / std::max<std::uint64_t>(1, stride))
        return rank * stride % count;
    // Lists past 2^32 units: the product by doubling, every step reduced (no overflow, as
    // count < 2^63).
    std::uint64_t result = 0, addend = rank, factor = stride;
    while (factor > 0) {
        if (factor & 1u)
            result = (result + addend) % count;
        addend = (addend * 2) % count;
        factor >>= 1;
    }
    return result;
}

} // namespace

SpreadOrder::SpreadOrder(std::uint64_t count)
    : m_count(count), m_filled(count), m_stride(goldenStride(count)) {}

SpreadOrder::SpreadOrder(const std::vector<std::uint64_t>& blockStarts) {
    if (blockStarts.size() < 2)
        return;
    const std::uint64_t blocks = blockStarts.size() - 1;
    const std::uint64_t stride = goldenStride(blocks);
    for (std::uint64_t rank = 0; rank < blocks; ++rank) {
        const std::uint64_t b = stepped(rank, stride, blocks);
        const std::uint64_t units = blockStarts[b + 1] - blockStarts[b];
        if (units == 0)
            continue;
        m_placedStart.push_back(m_count);
        m_placedUnit.push_back(blockStarts[b]);
        m_count += units;
        ++m_filled;
    }
    m_placedStart.push_back(m_count);
}

std::uint64_t SpreadOrder::operator()(std::uint64_t rank) const noexcept {
    return m_placedStart.empty() ? stepped(rank, m_stride, m_count) : unitAt(rank);
}

std::uint64_t SpreadOrder::unitAt(std::uint64_t rank) const noexcept {
    if (m_count == 0)
        return 0;
    rank %= m_count;
    const auto placed = static_cast<std::size_t>(
        std::upper_bound(m_placedStart.begin(), m_placedStart.end(), rank) - m_placedStart.begin() -
        1);
    return m_placedUnit[placed] + (rank - m_placedStart[placed]);
}

bool evenSamples(const std::vector<SpreadOrder>& orders) noexcept {
    return std::all_of(orders.begin(), orders.end(), [](const SpreadOrder& order) {
        return order.count() == 0 || order.filledBlocks() >= kEvenSampleUnits;
    });
}

} // namespace tpacf
