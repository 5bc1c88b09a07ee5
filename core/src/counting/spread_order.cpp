// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/spread_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tpacf {

SpreadOrder::SpreadOrder(std::uint64_t count) : m_count(count) {
    if (count < 3)
        return;
    const double inverseGolden = 0.6180339887498949;
    std::uint64_t stride = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::llround(static_cast<double>(count) * inverseGolden)));
    while (std::gcd(stride, count) != 1)
        ++stride;
    m_stride = stride % count;
}

std::uint64_t SpreadOrder::operator()(std::uint64_t rank) const noexcept {
    if (m_count < 3)
        return rank;
    rank %= m_count;
    if (rank <= std::numeric_limits<std::uint64_t>::max() / std::max<std::uint64_t>(1, m_stride))
        return rank * m_stride % m_count;
    // Lists past 2^32 units: the product by doubling, every step reduced (no overflow, as
    // count < 2^63).
    std::uint64_t result = 0, addend = rank, factor = m_stride;
    while (factor > 0) {
        if (factor & 1u)
            result = (result + addend) % m_count;
        addend = (addend * 2) % m_count;
        factor >>= 1;
    }
    return result;
}

bool evenSamples(const std::vector<SpreadOrder>& orders) noexcept {
    return std::all_of(orders.begin(), orders.end(), [](const SpreadOrder& order) {
        return order.count() == 0 || order.count() >= kEvenSampleUnits;
    });
}

} // namespace tpacf
