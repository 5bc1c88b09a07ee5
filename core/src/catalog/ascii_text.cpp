// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of the ASCII reader's text handling that are not on the per-row fast path.
#include "catalog/ascii_text.h"

#include "catalog/fits_reader.h"
#include "tpacf/errors.h"

#include <cctype>

namespace tpacf::detail {

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
