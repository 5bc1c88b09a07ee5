// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of the ASCII reader's text handling that are not on the per-row fast path.
#include "catalog/ascii_text.h"

#include "catalog/fits_reader.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace tpacf::detail {

std::size_t countNewlines(std::string_view text) noexcept {
    // Eight bytes at a time: a byte b of word ^ 0x0a0a... is zero exactly where the word holds an
    // LF, and ((b & 0x7f) + 0x7f) | b has its high bit clear exactly where b is zero (no carry
    // crosses a byte). Those bits, moved down to each byte's bit 0, are summed bytewise over at
    // most 255 words (no byte overflows), then folded into 16-bit lanes (at most 2040 each) and
    // added up.
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
    constexpr std::uint64_t kEvenBytes = 0x00ff00ff00ff00ffull;
    const char* p = text.data();
    const char* const end = p + text.size();
    std::size_t count = 0;
    while (end - p >= 8) {
        const std::size_t words = std::min<std::size_t>(255, static_cast<std::size_t>(end - p) / 8);
        const char* const stop = p + 8 * words;
        std::uint64_t sums = 0;
        for (; p < stop; p += 8) {
            std::uint64_t word;
            std::memcpy(&word, p, sizeof word);
            const std::uint64_t x = word ^ (kOnes * '\n');
            sums += (~(((x & kLow7) + kLow7) | x) >> 7) & kOnes;
        }
        sums = (sums & kEvenBytes) + ((sums >> 8) & kEvenBytes);
        count += static_cast<std::size_t>((sums * 0x0001000100010001ull) >> 48);
    }
    return count + static_cast<std::size_t>(std::count(p, end, '\n'));
}

bool looksSexagesimalWithLetters(std::string_view field) noexcept {
    std::size_t i = field.starts_with('+') || field.starts_with('-') ? 1 : 0;
    // Digits with at most one dot; false when there are none.
    const auto amount = [&] {
        const std::size_t start = i;
        bool dot = false;
        while (i < field.size() &&
               (std::isdigit(static_cast<unsigned char>(field[i])) || (field[i] == '.' && !dot))) {
            dot = dot || field[i] == '.';
            ++i;
        }
        return i > start && std::isdigit(static_cast<unsigned char>(field[start]));
    };
    const auto unit = [&](std::string_view letters) {
        if (i < field.size() && letters.find(field[i]) != std::string_view::npos) {
            ++i;
            return true;
        }
        return false;
    };
    if (!amount() || !unit("hHdD") || !amount() || !unit("mM'"))
        return false;
    if (i == field.size())
        return true;
    return amount() && (i == field.size() || (unit("sS\"") && i == field.size()));
}

[[noreturn]] void throwBadNumber(const std::string& source, long line, std::size_t column,
                                 const char* role, std::string_view field, NumberStatus status,
                                 std::string_view note) {
    std::string problem = std::string(role) + " value ";
    if (field.empty()) {
        problem += "is an empty field";
    } else if (status == NumberStatus::OutOfRange) {
        problem += quoteField(field) + " is out of the range of a double";
    } else {
        problem += quoteField(field) + " is not a number";
        // The usual ways a number gets written so that it is not read as one.
        const std::string_view digits = field.substr(field.front() == '-' || field.front() == '+');
        if (digits.starts_with("0x") || digits.starts_with("0X"))
            problem += " (hexadecimal numbers are not read: write it in decimal)";
        else if (field.find_first_of(" \t\v\f") != std::string_view::npos)
            problem += " (blanks inside a comma-separated field: a decimal comma? write 12.5, "
                       "not 12,5)";
        else if (field.find(':') != std::string_view::npos || looksSexagesimalWithLetters(field))
            problem += " (sexagesimal h:m:s or d:m:s is not read: convert to decimal)";
        else if (field.find(';') != std::string_view::npos)
            problem += " (semicolons do not separate fields: use blanks or commas)";
    }
    problem += note;
    throw InputError(source, line, static_cast<int>(column + 1), problem);
}

} // namespace tpacf::detail
