// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/json_document.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <system_error>

namespace tpacf::io {

namespace {

class JsonParser {
public:
    JsonParser(std::string_view text, const std::string& file, const std::string& what)
        : m_text(text), m_file(file), m_what(what) {}

    JsonValue parseDocument() {
        JsonValue value = parseValue(0);
        skipSpace();
        if (m_pos != m_text.size())
            fail("unexpected text after the JSON document");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_file, m_line, 0, m_what + ": " + problem);
    }

    void skipSpace() {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '\n')
                ++m_line;
            else if (c != ' ' && c != '\t' && c != '\r')
                return;
            ++m_pos;
        }
    }

    void expect(char c) {
        skipSpace();
        if (m_pos >= m_text.size() || m_text[m_pos] != c)
            fail(std::string("expected '") + c + "'");
        ++m_pos;
    }

    // After an element of an object or array: true at a ',' (another element follows), false
    // at `close` (the list ends); anything else is an error.
    bool anotherElement(char close) {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ',') {
            ++m_pos;
            return true;
        }
        expect(close);
        return false;
    }

    JsonValue parseValue(int depth) {
        if (depth > 32)
            fail("nested too deeply");
        skipSpace();
        if (m_pos >= m_text.size())
            fail("unexpected end of file");
        JsonValue value;
        value.line = m_line;
        const char c = m_text[m_pos];
        if (c == '{') {
            value.kind = JsonValue::Kind::Object;
            ++m_pos;
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                ++m_pos;
                return value;
            }
            do {
                skipSpace();
                if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                    fail("expected a member name");
                std::string key = parseString();
                expect(':');
                value.members.emplace_back(std::move(key), parseValue(depth + 1));
            } while (anotherElement('}'));
            return value;
        }
        if (c == '[') {
            value.kind = JsonValue::Kind::Array;
            ++m_pos;
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                ++m_pos;
                return value;
            }
            if (m_pos < m_text.size() && startsNumber(m_text[m_pos])) {
                do {
                    skipSpace();
                    if (m_pos >= m_text.size() || !startsNumber(m_text[m_pos]))
                        fail("a list of numbers holds something else");
                    value.numbers.push_back(numberLiteral());
                } while (anotherElement(']'));
                return value;
            }
            do
                value.items.push_back(parseValue(depth + 1));
            while (anotherElement(']'));
            return value;
        }
        if (c == '"') {
            value.kind = JsonValue::Kind::String;
            value.text = parseString();
            return value;
        }
        if (literal("null"))
            return value;
        if (literal("true") || literal("false")) {
            value.kind = JsonValue::Kind::Bool;
            value.boolean = m_text[m_pos - 4] == 't';
            return value;
        }
        if (startsNumber(c)) {
            value.kind = JsonValue::Kind::Number;
            value.text = std::string(numberLiteral());
            return value;
        }
        fail(std::string("unexpected character '") + c + "'");
    }

    static bool startsNumber(char c) noexcept { return c == '-' || (c >= '0' && c <= '9'); }

    std::string_view numberLiteral() {
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() &&
               std::string_view("+-.eE0123456789").find(m_text[m_pos]) != std::string_view::npos)
            ++m_pos;
        return m_text.substr(start, m_pos - start);
    }

    bool literal(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }

    std::string parseString() {
        ++m_pos; // the opening quote
        std::string result;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos++];
            if (c == '"')
                return result;
            if (c == '\n')
                fail("a line break inside a string");
            if (c != '\\') {
                result += c;
                continue;
            }
            if (m_pos >= m_text.size())
                break;
            const char escaped = m_text[m_pos++];
            switch (escaped) {
            case '"':
                result += '"';
                break;
            case '\\':
                result += '\\';
                break;
            case '/':
                result += '/';
                break;
            case 'n':
                result += '\n';
                break;
            case 't':
                result += '\t';
                break;
            case 'r':
                result += '\r';
                break;
            case 'b':
                result += '\b';
                break;
            case 'f':
                result += '\f';
                break;
            case 'u': {
                if (m_pos + 4 > m_text.size())
                    fail("a bad \\u escape");
                unsigned code = 0;
                const auto [end, error] =
                    std::from_chars(m_text.data() + m_pos, m_text.data() + m_pos + 4, code, 16);
                if (error != std::errc() || end != m_text.data() + m_pos + 4)
                    fail("a bad \\u escape");
                m_pos += 4;
                // Names only: code points beyond ASCII become UTF-8 (surrogates as they come).
                if (code < 0x80) {
                    result += static_cast<char>(code);
                } else if (code < 0x800) {
                    result += static_cast<char>(0xc0 | (code >> 6));
                    result += static_cast<char>(0x80 | (code & 0x3f));
                } else {
                    result += static_cast<char>(0xe0 | (code >> 12));
                    result += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
                    result += static_cast<char>(0x80 | (code & 0x3f));
                }
                break;
            }
            default:
                fail("a bad escape in a string");
            }
        }
        fail("a string without its closing quote");
    }

    std::string_view m_text;
    const std::string& m_file;
    const std::string& m_what;
    std::size_t m_pos = 0;
    long m_line = 1;
};

} // namespace

JsonValue parseJsonDocument(std::string_view text, const std::string& file,
                            const std::string& what) {
    return JsonParser(text, file, what).parseDocument();
}

} // namespace tpacf::io
