// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/json_text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace tpacf {

std::string jsonQuoted(std::string_view text) {
    std::string quoted = "\"";
    for (const char c : text) {
        switch (c) {
        case '"':
            quoted += "\\\"";
            break;
        case '\\':
            quoted += "\\\\";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\r':
            quoted += "\\r";
            break;
        case '\t':
            quoted += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                std::array<char, 8> escaped{};
                std::snprintf(escaped.data(), escaped.size(), "\\u%04x",
                              static_cast<unsigned>(static_cast<unsigned char>(c)));
                quoted += escaped.data();
            } else {
                quoted += c;
            }
        }
    }
    return quoted + "\"";
}

std::string jsonShortestNumber(double value) {
    if (!std::isfinite(value))
        return "null";
    std::array<char, 32> buffer{};
    const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return error == std::errc() ? std::string(buffer.data(), end) : std::string("null");
}

} // namespace tpacf
