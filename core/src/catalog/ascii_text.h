// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ASCII reader: how its text is cut into lines and fields and how a field is
// read as a number, shared by the head logic (ascii_reader.cpp) and the row parser
// (ascii_rows.cpp) so that both see the same lines and fields.
#include <charconv>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace tpacf::detail {

/// std::memchr for views that may be empty: an empty std::string_view may hold a null pointer,
/// which memchr must not be given even with a zero length.
inline const void* findByte(const char* begin, char c, std::size_t length) noexcept {
    return length == 0 ? nullptr : std::memchr(begin, c, length);
}

inline bool isBlank(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// Yields non-blank lines with comments cut off and surrounding blanks (including the CR of
/// CRLF files) trimmed, together with their 1-based line numbers. Line ends are "\n", "\r\n"
/// and a lone "\r": which bytes end a line depends on no earlier byte, so any text cut just
/// after a line end can be read by a reader of its own (the row parser's chunks), counting
/// from the lines before it.
class LineReader {
public:
    /// `linesBefore`: lines that precede `text` in its file. A UTF-8 byte order mark is skipped
    /// only at the start of a file (`atFileStart`), where some Windows editors write one.
    explicit LineReader(std::string_view text, long linesBefore = 0, bool atFileStart = true)
        : m_text(text), m_hasCarriageReturn(findByte(text.data(), '\r', text.size())),
          m_line(linesBefore) {
        if (atFileStart && m_text.substr(0, 3) == "\xEF\xBB\xBF")
            m_pos = 3;
    }

    bool next(std::string_view& content, long& lineNumber) {
        const std::size_t size = m_text.size();
        while (m_pos < size) {
            // The next LF and CR are remembered until passed: a search per line to the next one
            // would scan a lone-CR file (no LF at all) to its end for every line.
            if (m_newlineAt == kUnknown || m_newlineAt < m_pos)
                m_newlineAt = find('\n');
            std::size_t end = m_newlineAt;
            std::size_t after = end + 1;
            if (m_hasCarriageReturn) {
                if (m_returnAt == kUnknown || m_returnAt < m_pos)
                    m_returnAt = find('\r');
                // A CR not followed by LF ends a line too (classic Mac OS): as a blank it would
                // join "10 20\r30 40" into one row with extra columns. CRLF is one line end.
                if (m_returnAt < end) {
                    end = m_returnAt;
                    after = end + 1 < size && m_text[end + 1] == '\n' ? end + 2 : end + 1;
                }
            }
            const char* begin = m_text.data() + m_pos;
            std::size_t length = end - m_pos;
            m_pos = after;
            ++m_line;
            const std::size_t full = length;
            if (const void* hash = findByte(begin, '#', length))
                length = static_cast<std::size_t>(static_cast<const char*>(hash) - begin);
            std::size_t start = 0;
            while (start < length && isBlank(begin[start]))
                ++start;
            while (length > start && isBlank(begin[length - 1]))
                --length;
            if (start == length) {
                // A line that is a comment alone: kept for a header written as one ("# ra dec").
                if (length < full)
                    m_lastComment = std::string_view(begin + length + 1, full - length - 1);
                continue;
            }
            content = std::string_view(begin + start, length - start);
            lineNumber = m_line;
            m_commentBefore = m_lastComment;
            m_lastComment = {};
            return true;
        }
        return false;
    }

    /// Where the next line starts: the rows still to read.
    std::string_view remaining() const noexcept {
        return m_pos < m_text.size() ? m_text.substr(m_pos) : std::string_view();
    }
    /// Lines read so far, blank and comment lines included, plus those before the text.
    long linesRead() const noexcept { return m_line; }
    /// The text after '#' of the last line that was a comment alone before the line next()
    /// returned last (blank lines between allowed); empty when there was none.
    std::string_view commentBefore() const noexcept { return m_commentBefore; }

private:
    static constexpr std::size_t kUnknown = std::numeric_limits<std::size_t>::max();

    // The first `c` at or after m_pos; the text's size when there is none.
    std::size_t find(char c) const noexcept {
        const void* at = findByte(m_text.data() + m_pos, c, m_text.size() - m_pos);
        return at ? static_cast<std::size_t>(static_cast<const char*>(at) - m_text.data())
                  : m_text.size();
    }

    std::string_view m_text;
    bool m_hasCarriageReturn = false;
    std::size_t m_pos = 0;
    long m_line = 0;
    std::size_t m_newlineAt = kUnknown, m_returnAt = kUnknown;
    std::string_view m_lastComment, m_commentBefore;
};

/// A line holding a comma is comma separated (so a header name may contain blanks, as in
/// "RA (deg), Dec (deg)"), its fields trimmed, two commas in a row leaving an empty field;
/// any other line is split on runs of blanks. Stops after `limit` fields.
inline void splitFields(std::string_view line, std::vector<std::string_view>& fields,
                        std::size_t limit = std::numeric_limits<std::size_t>::max()) {
    fields.clear();
    const char* p = line.data();
    const char* const end = p + line.size();
    if (findByte(p, ',', line.size())) {
        while (fields.size() < limit) {
            const char* comma =
                static_cast<const char*>(findByte(p, ',', static_cast<std::size_t>(end - p)));
            const char* fieldEnd = comma ? comma : end;
            const char* first = p;
            const char* last = fieldEnd;
            while (first < last && isBlank(*first))
                ++first;
            while (last > first && isBlank(last[-1]))
                --last;
            fields.emplace_back(first, static_cast<std::size_t>(last - first));
            if (!comma)
                break;
            p = comma + 1;
        }
        return;
    }
    while (p < end && fields.size() < limit) {
        const char* q = p;
        while (q < end && !isBlank(*q))
            ++q;
        fields.emplace_back(p, static_cast<std::size_t>(q - p));
        while (q < end && isBlank(*q))
            ++q;
        p = q;
    }
}

enum class NumberStatus { Ok, NotANumber, OutOfRange };

inline NumberStatus parseNumber(std::string_view field, double& value) noexcept {
    const char* begin = field.data();
    const char* const end = begin + field.size();
    // from_chars does not take the '+' many writers put on exponents' mantissas and Decs.
    if (begin < end && *begin == '+' && begin + 1 < end && begin[1] != '-' && begin[1] != '+')
        ++begin;
    if (begin == end)
        return NumberStatus::NotANumber;
    const auto [stop, ec] = std::from_chars(begin, end, value);
    if (stop != end || ec == std::errc::invalid_argument)
        return NumberStatus::NotANumber;
    if (ec == std::errc::result_out_of_range)
        return NumberStatus::OutOfRange;
    return NumberStatus::Ok;
}

inline bool isNumber(std::string_view field) noexcept {
    double ignored = 0;
    return parseNumber(field, ignored) != NumberStatus::NotANumber;
}

/// The LF bytes of `text`: what the row parser counts its lines by before parsing them, at
/// about three times the speed of std::count's byte loop, which the compiler leaves scalar.
std::size_t countNewlines(std::string_view text) noexcept;

/// Sexagesimal angles written with unit letters: 12h30m00s, +12d00m00.5s, 5h30m.
bool looksSexagesimalWithLetters(std::string_view field) noexcept;

/// "RA value '1O.5' is not a number (...)" at `line`, 0-based `column`, with a hint at the
/// usual ways a number gets written so that it is not read as one; `note` is appended.
[[noreturn]] void throwBadNumber(const std::string& source, long line, std::size_t column,
                                 const char* role, std::string_view field, NumberStatus status,
                                 std::string_view note = {});

} // namespace tpacf::detail
