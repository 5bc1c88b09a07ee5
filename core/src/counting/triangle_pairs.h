// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace tpacf::counting {

/// Pairs i<j among n points, n(n−1)/2 without overflowing where the result fits.
constexpr std::uint64_t trianglePairs(std::uint64_t n) noexcept {
    return n < 2 ? 0 : (n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2));
}

} // namespace tpacf::counting
