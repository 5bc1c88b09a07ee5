// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the readers: a small JSON parser that keeps the line of every value, so that a
// reader can name the file, the line and the field of whatever it refuses.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf::io {

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    long line = 0;
    bool boolean = false;
    std::string text; // a number's literal or a string's value
    std::vector<JsonValue> items;
    /// A list of numbers (the counts) keeps their literals only, pointing into the document: a
    /// count file of 10^7 numbers then costs 16 bytes per number, not a JsonValue each.
    std::vector<std::string_view> numbers;
    std::vector<std::pair<std::string, JsonValue>> members;

    const JsonValue* member(std::string_view key) const {
        for (const auto& [name, value] : members)
            if (name == key)
                return &value;
        return nullptr;
    }
};

/// Parses a whole document; `text` must outlive the result (number lists point into it).
/// Throws InputError naming `file` and the line: "<what>: <problem>", e.g. "not a valid count
/// file: expected a member name".
JsonValue parseJsonDocument(std::string_view text, const std::string& file,
                            const std::string& what);

} // namespace tpacf::io
