// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Numbers as the CLI's reports print them, and the median its timing reports quote.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tpacf/number_format.h"

namespace tpacf::cli {

/// 1234567 as "1,234,567": the core's, so reports and the job's notes group alike.
using tpacf::withThousands;

/// A bin edge in a table's header: four significant digits (printf's %.4g).
inline std::string edgeText(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

/// The median of repeated timings; 0 for none.
inline double median(std::vector<double> values) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

} // namespace tpacf::cli
