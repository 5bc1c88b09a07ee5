#include "cli/output.h"

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
    std::string result = "\"";
    for (const char c : text) {
        switch (c) {
        case '"':
            result += "\\\"";
            break;
        case '\\':
            result += "\\\\";
            break;
        case '\n':
            result += "\\n";
            break;
        case '\r':
            result += "\\r";
            break;
        case '\t':
            result += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                result += escaped;
            } else {
                result += c;
            }
        }
    }
    return result + '"';
}

std::string jsonNumber(double value) {
    if (!std::isfinite(value))
        return "null";
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value);
    return error == std::errc() ? std::string(text, end) : "null";
}

} // namespace tpacf::cli
