// SPDX-License-Identifier: GPL-3.0-or-later
#include "job_file.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

namespace tpacf::cli {

namespace {

constexpr std::size_t kMaxJobFileBytes = 1 << 20;

// A value as read: a text (string or number, as the flag's word) or a boolean, or an array.
struct Value {
    enum class Kind { Text, Boolean, Array } kind = Kind::Text;
    std::string text;
    bool boolean = false;
    std::vector<Value> items;
};

// Reads the file's text line by line and character by character, knowing where it is.
class Reader {
public:
    Reader(const std::string& path, std::string_view text) : m_path(path), m_text(text) {}

    bool atEnd() const { return m_at >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text[m_at]; }
    long line() const { return m_line; }
    int column() const { return static_cast<int>(m_at - m_lineStart) + 1; }

    char take() {
        const char c = m_text[m_at++];
        if (c == '\n') {
            ++m_line;
            m_lineStart = m_at;
        }
        return c;
    }
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_path, m_line, column(), problem);
    }
    // Spaces and tabs (not line ends).
    void skipBlanks() {
        while (peek() == ' ' || peek() == '\t')
            take();
    }
    // Blanks, line ends and comments (inside arrays).
    void skipBlanksAndLines() {
        while (true) {
            skipBlanks();
            if (peek() == '#')
                skipComment();
            else if (peek() == '\n' || peek() == '\r')
                take();
            else
                return;
        }
    }
    void skipComment() {
        while (!atEnd() && peek() != '\n')
            take();
    }
    // After a key's value or a table header: blanks, a comment, then the line's end.
    void endOfLine() {
        skipBlanks();
        if (peek() == '#')
            skipComment();
        if (peek() == '\r')
            take();
        if (!atEnd() && peek() != '\n')
            fail(std::string("unexpected '") + peek() +
                 "' after the value (one key = value per line; '#' starts a comment)");
        if (!atEnd())
            take();
    }

    std::string key();
    Value value();

private:
    std::string basicString();
    std::string literalString();
    Value array();
    Value bare();

    const std::string& m_path;
    std::string_view m_text;
    std::size_t m_at = 0, m_lineStart = 0;
    long m_line = 1;
};

bool bareKeyCharacter(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

std::string Reader::key() {
    if (peek() == '"')
        return basicString();
    if (peek() == '\'')
        return literalString();
    std::string name;
    while (bareKeyCharacter(peek()))
        name += take();
    if (name.empty())
        fail(std::string("expected a key (a flag's name without --), found '") + peek() + "'");
    if (peek() == '.')
        fail("dotted keys are not taken: a job file's keys are the command's flags");
    return name;
}

void appendUtf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

std::string Reader::basicString() {
    take(); // "
    if (peek() == '"' && m_at + 1 < m_text.size() && m_text[m_at + 1] == '"')
        fail("multi-line strings (\"\"\") are not taken: write the value on one line");
    std::string out;
    while (true) {
        if (atEnd() || peek() == '\n')
            fail("a string without its closing \"");
        const char c = take();
        if (c == '"')
            return out;
        if (c != '\\') {
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
                fail("a control character inside a string (write it as an escape)");
            out += c;
            continue;
        }
        const char escape = atEnd() ? '\0' : take();
        switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'b': out += '\b'; break;
        case 't': out += '\t'; break;
        case 'n': out += '\n'; break;
        case 'f': out += '\f'; break;
        case 'r': out += '\r'; break;
        case 'u':
        case 'U': {
            const int digits = escape == 'u' ? 4 : 8;
            std::uint32_t code = 0;
            for (int i = 0; i < digits; ++i) {
                const char h = atEnd() ? '\0' : take();
                if (!std::isxdigit(static_cast<unsigned char>(h)))
                    fail(std::string("\\") + escape + " takes " + std::to_string(digits) +
                         " hexadecimal digits");
                code = code * 16 + static_cast<std::uint32_t>(
                                       std::isdigit(static_cast<unsigned char>(h))
                                           ? h - '0'
                                           : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
            }
            if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
                fail("\\" + std::string(1, escape) + ": not a Unicode scalar value");
            appendUtf8(out, code);
            break;
        }
        default:
            fail(std::string("unknown escape \\") + escape +
                 " in a \"string\" (a Windows path is easier in 'single quotes')");
        }
    }
}

std::string Reader::literalString() {
    take(); // '
    if (peek() == '\'' && m_at + 1 < m_text.size() && m_text[m_at + 1] == '\'')
        fail("multi-line strings (''') are not taken: write the value on one line");
    std::string out;
    while (true) {
        if (atEnd() || peek() == '\n')
            fail("a string without its closing '");
        const char c = take();
        if (c == '\'')
            return out;
        out += c;
    }
}

Value Reader::array() {
    take(); // [
    Value result;
    result.kind = Value::Kind::Array;
    while (true) {
        skipBlanksAndLines();
        if (peek() == ']') {
            take();
            return result;
        }
        if (atEnd())
            fail("an array without its closing ]");
        Value item = value();
        if (item.kind == Value::Kind::Array)
            fail("arrays inside arrays are not taken");
        result.items.push_back(std::move(item));
        skipBlanksAndLines();
        if (peek() == ',') {
            take();
            continue;
        }
        if (peek() != ']')
            fail("expected , or ] in the array");
    }
}

// true, false or a number (decimal integer or float, '_' between digits, inf, nan).
Value Reader::bare() {
    const int startColumn = column();
    std::string word;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) != 0 ||
                        peek() == '.' || peek() == '+' || peek() == '-' || peek() == '_'))
        word += take();
    Value value;
    if (word == "true" || word == "false") {
        value.kind = Value::Kind::Boolean;
        value.boolean = word == "true";
        return value;
    }
    std::string number;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (word[i] != '_') {
            number += word[i];
            continue;
        }
        const bool between = i > 0 && i + 1 < word.size() &&
                             std::isdigit(static_cast<unsigned char>(word[i - 1])) &&
                             std::isdigit(static_cast<unsigned char>(word[i + 1]));
        if (!between)
            fail("'_' in a number stands between digits only");
    }
    const std::string_view digits = number.front() == '+' || number.front() == '-'
                                        ? std::string_view(number).substr(1)
                                        : std::string_view(number);
    const bool special = digits == "inf" || digits == "nan";
    double parsed = 0;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
    const bool decimal = !digits.empty() && (special || (error == std::errc() &&
                                                         end == digits.data() + digits.size()));
    if (word.empty() || !decimal || digits.rfind("0x", 0) == 0 || digits.rfind("0o", 0) == 0 ||
        digits.rfind("0b", 0) == 0) {
        if (word.empty())
            fail(std::string("expected a value, found '") + peek() + "'");
        throw InputError(m_path, m_line, startColumn,
                         "'" + word + "' is not a value: put text in quotes (\"" + word +
                             "\"), write numbers in decimal, switches as true or false");
    }
    value.text = number;
    return value;
}

Value Reader::value() {
    skipBlanks();
    Value value;
    if (peek() == '"') {
        value.text = basicString();
    } else if (peek() == '\'') {
        value.text = literalString();
    } else if (peek() == '[') {
        return array();
    } else if (peek() == '{') {
        fail("inline tables are not taken: a job file's keys are the command's flags");
    } else {
        return bare();
    }
    return value;
}

// The flag a key names: "jackknife_column" and "jackknife-column" are --jackknife-column.
const Flag* flagOfKey(const CommandFlags& flags, std::string key) {
    for (char& c : key)
        if (c == '_')
            c = '-';
    return flags.find("--" + key);
}

// "--flag", "value"; or "--flag=value" where the value starts with "--" (a path "--x.txt"),
// which would otherwise read as the next flag.
void addWords(std::vector<std::string>& words, const std::string& name, const std::string& value) {
    if (value.starts_with("--")) {
        words.push_back(name + "=" + value);
    } else {
        words.push_back(name);
        words.push_back(value);
    }
}

// The words one key stands for, by the kind of its flag.
std::vector<std::string> wordsOf(const Flag& flag, const Value& value, const Reader& reader,
                                 const std::string& key) {
    const std::string name(flag.name);
    if (flag.kind == FlagKind::Switch) {
        if (value.kind != Value::Kind::Boolean)
            reader.fail("'" + key + "' is a switch: write " + key + " = true (or false)");
        return value.boolean ? std::vector<std::string>{name} : std::vector<std::string>{};
    }
    if (value.kind == Value::Kind::Boolean)
        reader.fail("'" + key + "' takes a value (" + std::string(flag.metavar) +
                    "), not true or false");
    std::vector<std::string> words;
    if (value.kind == Value::Kind::Text) {
        addWords(words, name, value.text);
        return words;
    }
    if (flag.kind != FlagKind::Repeated)
        reader.fail("'" + key + "' takes one value, not an array");
    for (const Value& item : value.items) {
        if (item.kind != Value::Kind::Text)
            reader.fail("'" + key + "' takes " + std::string(flag.metavar) +
                        " values, not true or false");
        addWords(words, name, item.text);
    }
    return words;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// What an unknown key may have meant: the closest key within two edits ("jacknife" →
// "jackknife"), else the first few keys the command takes.
std::string keyHint(const CommandFlags& flags, std::string key) {
    for (char& c : key)
        if (c == '_')
            c = '-';
    std::string closest, listed;
    std::size_t best = 3;
    int count = 0;
    for (const FlagGroup* group : flags.groups)
        for (const Flag* flag : group->flags) {
            if (flag->name == "--config")
                continue;
            const std::string_view name = flag->configKey();
            if (const std::size_t distance = editDistance(key, name); distance < best) {
                best = distance;
                closest = std::string(name);
            }
            if (count++ < 6)
                listed += (listed.empty() ? "" : ", ") + std::string(name);
        }
    if (!closest.empty())
        return "did you mean '" + closest + "'?";
    return "its keys are its flags without --: " + listed + ", ...";
}

// The TOML form of a word: bare where it is a plain decimal number, else a basic string.
std::string tomlValue(const std::string& word) {
    bool number = !word.empty();
    std::size_t i = 0;
    if (i < word.size() && (word[i] == '-' || word[i] == '+'))
        ++i;
    const std::size_t firstDigit = i;
    while (i < word.size() && std::isdigit(static_cast<unsigned char>(word[i])))
        ++i;
    number = number && i > firstDigit && !(word[firstDigit] == '0' && i - firstDigit > 1);
    if (number && i < word.size() && word[i] == '.') {
        const std::size_t fraction = ++i;
        while (i < word.size() && std::isdigit(static_cast<unsigned char>(word[i])))
            ++i;
        number = i > fraction;
    }
    if (number && i < word.size() && (word[i] == 'e' || word[i] == 'E')) {
        ++i;
        if (i < word.size() && (word[i] == '-' || word[i] == '+'))
            ++i;
        const std::size_t exponent = i;
        while (i < word.size() && std::isdigit(static_cast<unsigned char>(word[i])))
            ++i;
        number = i > exponent;
    }
    if (number && i == word.size())
        return word;
    std::string quoted = "\"";
    for (const char c : word) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += c;
        } else if (u < 0x20 || u == 0x7F) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned>(u));
            quoted += escape;
        } else {
            quoted += c;
        }
    }
    return quoted + "\"";
}

} // namespace

JobFile parseJobFile(const CommandFlags& flags, const std::string& path, std::string_view text) {
    JobFile job;
    job.path = path;
    job.text = std::string(text);
    Reader reader(path, text);
    std::map<std::string, long> seen; // flag name → line
    while (true) {
        reader.skipBlanksAndLines();
        if (reader.atEnd())
            return job;
        if (reader.peek() == '[') {
            reader.take();
            if (reader.peek() == '[')
                reader.fail("arrays of tables ([[...]]) are not taken");
            reader.skipBlanks();
            const std::string table = reader.key();
            reader.skipBlanks();
            if (reader.peek() != ']')
                reader.fail("expected ] after the table's name");
            reader.take();
            if (table != flags.command)
                reader.fail("a [" + table + "] table: this is tpacf " +
                            std::string(flags.command) + " (write [" +
                            std::string(flags.command) + "] or no table)");
            reader.endOfLine();
            continue;
        }
        const long line = reader.line();
        const std::string key = reader.key();
        reader.skipBlanks();
        if (reader.peek() != '=')
            reader.fail("expected = after '" + key + "'");
        reader.take();
        const Flag* flag = flagOfKey(flags, key);
        if (!flag)
            throw InputError(path, line, 1,
                             "unknown key '" + key + "': not a flag of tpacf " +
                                 std::string(flags.command) + " (" + keyHint(flags, key) + ")");
        if (flag->name == "--config")
            throw InputError(path, line, 1, "a job file cannot name another job file (config)");
        const Value value = reader.value();
        const std::string name(flag->name);
        if (const auto before = seen.find(name); before != seen.end())
            throw InputError(path, line, 1,
                             "'" + key + "' is given twice (also on line " +
                                 std::to_string(before->second) + ")");
        seen.emplace(name, line);
        job.entries.push_back({flag, wordsOf(*flag, value, reader, key), line});
        reader.endOfLine();
    }
}

JobFile readJobFile(const CommandFlags& flags, const std::string& path) {
    std::ifstream in(path, std::ios::in | std::ios::binary);
    if (!in)
        throw InputError(path, 0, 0,
                         "cannot open the job file: " +
                             std::error_code(errno, std::generic_category()).message());
    std::string text(kMaxJobFileBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad())
        throw InputError(path, 0, 0, "cannot read the job file");
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxJobFileBytes)
        throw InputError(path, 0, 0, "larger than 1 MiB: not a job file");
    if (text.find('\0') != std::string::npos)
        throw InputError(path, 0, 0, "binary data (a NUL byte): not a job file (TOML text)");
    return parseJobFile(flags, path, text);
}

std::vector<std::string> withJobFile(const CommandFlags& flags, const JobFile& job,
                                     std::span<const std::string> commandLine) {
    std::set<std::string_view> typed;
    for (const std::string& word : commandLine) {
        if (word == "--")
            break;
        if (!word.starts_with("--"))
            continue;
        if (const Flag* flag = flags.find(word.substr(0, word.find('='))))
            typed.insert(flag->name);
    }
    std::vector<std::string> words;
    for (const JobEntry& entry : job.entries)
        if (!typed.contains(entry.flag->name))
            words.insert(words.end(), entry.words.begin(), entry.words.end());
    words.insert(words.end(), commandLine.begin(), commandLine.end());
    return words;
}

std::vector<std::string> wordsWithJobFile(const CommandFlags& flags,
                                          std::span<const std::string> commandLine,
                                          std::optional<JobFile>& job) {
    const std::string path = jobFilePath(commandLine);
    if (path.empty())
        return {commandLine.begin(), commandLine.end()};
    job = readJobFile(flags, path);
    return withJobFile(flags, *job, commandLine);
}

std::string jobFilePath(std::span<const std::string> words) {
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "--config" && i + 1 < words.size())
            return words[i + 1];
        if (words[i].starts_with("--config="))
            return words[i].substr(9);
    }
    return {};
}

std::string jobFileText(const CommandFlags& flags, std::span<const std::string> words,
                        std::span<const std::string> comment) {
    std::ostringstream out;
    for (const std::string& line : comment)
        out << "# " << line << '\n';
    out << '[' << flags.command << "]\n";
    // Repeated flags gather into one array, at the place of their first word.
    std::vector<std::pair<const Flag*, std::vector<std::string>>> keys;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string typed = words[i].substr(0, words[i].find('='));
        const Flag* flag = flags.find(typed);
        // Flags by their names (as Copy as Command Line writes them); no job file in a job file.
        if (!flag || flag->name != typed || flag->name == "--config")
            continue;
        std::vector<std::string> values;
        if (const auto equals = words[i].find('='); equals != std::string::npos)
            values.push_back(words[i].substr(equals + 1));
        else if (flag->kind != FlagKind::Switch && i + 1 < words.size())
            values.push_back(words[++i]);
        auto known = std::find_if(keys.begin(), keys.end(),
                                  [&](const auto& key) { return key.first == flag; });
        if (known == keys.end())
            keys.emplace_back(flag, values);
        else
            known->second.insert(known->second.end(), values.begin(), values.end());
    }
    for (const auto& [flag, values] : keys) {
        out << flag->configKey() << " = ";
        if (flag->kind == FlagKind::Switch) {
            out << "true\n";
        } else if (flag->kind == FlagKind::Repeated) {
            out << '[';
            for (std::size_t v = 0; v < values.size(); ++v)
                out << (v ? ", " : "") << tomlValue(values[v]);
            out << "]\n";
        } else {
            out << (values.empty() ? std::string("\"\"") : tomlValue(values.front())) << '\n';
        }
    }
    return out.str();
}

} // namespace tpacf::cli
