// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to core: the blanks the text readers (result tables, ECSV headers) trim from a field.
#include <string_view>

namespace tpacf::detail {

/// `text` without leading blanks (space, tab) and trailing blanks or a CR (a CRLF line end).
inline std::string_view trimmedBlanks(std::string_view text) noexcept {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

} // namespace tpacf::detail
