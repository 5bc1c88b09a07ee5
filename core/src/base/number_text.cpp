// SPDX-License-Identifier: GPL-3.0-or-later
#include "base/number_text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace tpacf::detail {

std::string formatDouble(double value) {
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    // Shortest form that reads back to the same double.
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), result.ptr);
}

std::string formatShort(double value) {
    std::array<char, 32> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%.6g", value);
    return buffer.data();
}

} // namespace tpacf::detail
