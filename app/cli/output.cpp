// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/output.h"

#include "tpacf/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace tpacf::cli {

void printNotice(std::ostream& err, std::string_view text) {
    if (!text.empty())
        err << "tpacf: " << text << '\n' << std::flush;
}

std::string formatSeconds(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, seconds < 1.0 ? "%.3g s" : "%.2f s", seconds);
    return text;
}

std::string jsonString(std::string_view text) {
    return jsonQuoted(text);
}

std::string jsonNumber(double value) {
    return jsonShortestNumber(value);
}

} // namespace tpacf::cli
