// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Numbers as the CLI's reports print them.
#include <cstdint>
#include <string>

namespace tpacf::cli {

/// 1234567 as "1,234,567".
inline std::string withThousands(std::uint64_t value) {
    const std::string digits = std::to_string(value);
    std::string grouped;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            grouped.push_back(',');
        grouped.push_back(digits[i]);
    }
    return grouped;
}

} // namespace tpacf::cli
