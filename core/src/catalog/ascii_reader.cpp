// SPDX-License-Identifier: GPL-3.0-or-later
// ASCII catalogs: whole file read at once; the head (count line, header, first row, column
// choice) read here, the data rows after it by the chunked parallel parser (ascii_rows.cpp).
#include "catalog/ascii_rows.h"
#include "catalog/ascii_text.h"
#include "catalog/file_bytes.h"
#include "catalog/ecsv_units.h"
#include "catalog/fits_reader.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"
#include "tpacf/text_check.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

namespace tpacf {

namespace {

using detail::FileText;
using detail::isNumber;
using detail::joinNames;
using detail::LineReader;
using detail::looksSexagesimalWithLetters;
using detail::NumberStatus;
using detail::quoteField;
using detail::readFileBytes;
using detail::splitFields;
using detail::throwBadNumber;

// The 1-based line holding `offset`, counting line ends as LineReader does.
long lineAt(std::string_view text, std::size_t offset) noexcept {
    long line = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i)
        if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')))
            ++line;
    return line;
}

// A field that begins as a number does: an optional sign, then a digit or a dot and a digit
// ("1O.5", "10abc", "2MASS"). A header names its columns with words, so a line of such fields
// only is data; in a column the later rows fill with numbers it is a mistyped number.
bool startsLikeNumber(std::string_view field) noexcept {
    if (!field.empty() && (field.front() == '+' || field.front() == '-'))
        field.remove_prefix(1);
    const auto digit = [&](std::size_t i) {
        return i < field.size() && std::isdigit(static_cast<unsigned char>(field[i]));
    };
    return digit(0) || (!field.empty() && field.front() == '.' && digit(1));
}

// A field written as a number that from_chars refuses: a hexadecimal float (0x1p3), a lone
// sign, digits with stray signs, dots, colons or exponents (1.2.3, 5e, 12:30:00), sexagesimal
// angles with letters (12h30m00s), or numbers with blanks between them inside a
// comma-separated field (what a decimal comma makes of "12,5 30,1"). Such a field is bad
// data, never a header name nor a text column to skip.
bool looksNumeric(std::string_view field) noexcept {
    if (field.empty())
        return false;
    if (looksSexagesimalWithLetters(field))
        return true;
    std::string_view digits = field;
    if (digits.front() == '+' || digits.front() == '-')
        digits.remove_prefix(1);
    if (digits.empty() || digits.find_first_not_of("+-") == std::string_view::npos)
        return true;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
        return true;
    // Digits with the characters of numbers, or of sexagesimal angles (12:30:00, -5:20:10.5).
    if (field.find_first_not_of("0123456789+-.eE:") == std::string_view::npos &&
        field.find_first_of("0123456789") != std::string_view::npos)
        return true;
    if (field.find_first_of(" \t\v\f") == std::string_view::npos)
        return false;
    std::size_t start = 0;
    while (start < field.size()) {
        const std::size_t end = std::min(field.find_first_of(" \t\v\f", start), field.size());
        const std::string_view part = field.substr(start, end - start);
        if (!part.empty() && !isNumber(part) && !looksNumeric(part))
            return false;
        start = end + 1;
    }
    return true;
}

// A non-numeric field the default column choice may step over as a text column ("gal1",
// "NGC 1234"): it has a letter and is not a misspelt number. "12:30:45" (sexagesimal) or
// "5;30" is not text: skipping it would read RA or Dec from the wrong column.
bool isTextField(std::string_view field) noexcept {
    return !looksNumeric(field) && std::any_of(field.begin(), field.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    });
}

// A first line made of one unsigned integer is the row count of benchmark-style files.
std::optional<unsigned long long> countLineValue(const std::vector<std::string_view>& fields) {
    if (fields.size() != 1)
        return std::nullopt;
    const std::string_view field = fields.front();
    unsigned long long count = 0;
    const auto [stop, ec] = std::from_chars(field.data(), field.data() + field.size(), count);
    if (ec != std::errc() || stop != field.data() + field.size())
        return std::nullopt;
    return count;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// The start of a table: count line, header and first data line, as both the parser and the
// preview need them.
struct TableHead {
    std::optional<unsigned long long> declaredRows;
    long countLine = 0;
    std::vector<std::string> columnNames;
    long headerLine = 0;
    std::string_view firstRow; // empty when the table has no data rows
    long firstRowLine = 0;
    std::string emptyReason; // why there are no data rows, when there are none
};

// Column names written as a comment right above the data ("# ra dec z", as many tools write
// them): taken where the comment has one word per column of the first row and none of its words
// reads as a number, so a comment in prose ("# RA and Dec in degrees") or of values
// ("# epoch 2000") is not.
void takeCommentHeader(TableHead& head, std::string_view comment) {
    std::vector<std::string_view> names, values;
    while (!comment.empty() && detail::isBlank(comment.front()))
        comment.remove_prefix(1);
    while (!comment.empty() && detail::isBlank(comment.back()))
        comment.remove_suffix(1);
    splitFields(comment, names);
    splitFields(head.firstRow, values);
    if (names.size() < 2 || names.size() != values.size())
        return;
    if (!std::all_of(names.begin(), names.end(), isTextField))
        return;
    for (std::string_view name : names)
        head.columnNames.emplace_back(name);
}

TableHead readTableHead(LineReader& lines) {
    TableHead head;
    std::vector<std::string_view> fields;
    std::string_view content;
    long lineNumber = 0;
    if (!lines.next(content, lineNumber)) {
        head.emptyReason = "the file holds no data rows (it is empty or only comments)";
        return head;
    }
    splitFields(content, fields);
    if ((head.declaredRows = countLineValue(fields))) {
        head.countLine = lineNumber;
        if (!lines.next(content, lineNumber)) {
            head.emptyReason = "the file holds no data rows after its count line";
            return head;
        }
        splitFields(content, fields);
    }
    // A header names columns with words: a line with a field written as a number, even one
    // from_chars refuses (0x1p3, "+"), or a line whose every field starts like a number
    // ("1O.5 2O.1"), is a data row with an error in it, not a header to drop.
    if (std::none_of(fields.begin(), fields.end(), isNumber) &&
        std::none_of(fields.begin(), fields.end(), looksNumeric) &&
        !std::all_of(fields.begin(), fields.end(), startsLikeNumber)) {
        head.headerLine = lineNumber;
        for (std::string_view name : fields)
            head.columnNames.emplace_back(name);
        if (!lines.next(content, lineNumber)) {
            head.emptyReason = "the file holds no data rows after its header line";
            return head;
        }
    }
    head.firstRow = content;
    head.firstRowLine = lineNumber;
    if (head.columnNames.empty())
        takeCommentHeader(head, lines.commentBefore());
    return head;
}

// The data rows after the first one that the column choice looks at, so that it rests on a
// consistent look at the file rather than on the first row alone.
constexpr std::size_t kSampleRows = 32;

std::vector<std::string_view> sampleRows(LineReader lines) {
    std::vector<std::string_view> rows;
    std::string_view content;
    long line = 0;
    while (rows.size() < kSampleRows && lines.next(content, line))
        rows.push_back(content);
    return rows;
}

// What the sampled rows hold in one column: how many numbers, how many other non-empty fields.
struct ColumnEvidence {
    std::size_t numbers = 0, text = 0;
};

ColumnEvidence evidenceFor(const std::vector<std::string_view>& sample, std::size_t column) {
    ColumnEvidence evidence;
    std::vector<std::string_view> fields;
    for (const std::string_view row : sample) {
        splitFields(row, fields, column + 1);
        if (fields.size() <= column || fields[column].empty())
            continue;
        ++(isNumber(fields[column]) ? evidence.numbers : evidence.text);
    }
    return evidence;
}

// A decimal comma in a comma-separated file: "10,5,1,2" under a header naming two columns is
// 10.5 and 1.2, never four numbers of which two are read. Checked on the first data row.
void checkDecimalCommaDoubling(const TableHead& head, std::vector<std::string_view> fields,
                               const std::string& source) {
    const std::size_t named = head.columnNames.size();
    if (named < 2 || head.firstRow.find(',') == std::string_view::npos)
        return;
    if (!fields.empty() && fields.back().empty()) // a trailing comma
        fields.pop_back();
    if (fields.size() != 2 * named)
        return;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        std::string_view digits = fields[i];
        if (i % 2 == 0 && !digits.empty() && (digits.front() == '-' || digits.front() == '+'))
            digits.remove_prefix(1);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
            return;
    }
    throw InputError(source, head.firstRowLine, 0,
                     "the line has " + std::to_string(fields.size()) +
                         " comma-separated whole numbers where the header (line " +
                         std::to_string(head.headerLine) + ") names " + std::to_string(named) +
                         " columns: decimal commas (" + detail::shortText(fields[0], 20) + "," +
                         detail::shortText(fields[1], 20) + " for " +
                         detail::shortText(fields[0], 20) + "." + detail::shortText(fields[1], 20) +
                         ")? write numbers with a decimal point, not a decimal comma");
}

// How RA or Dec was chosen, for CatalogOrigin::columnChoice.
enum class ChosenBy { Option, HeaderName, Position };

// Resolves the columns of ReadOptions to 0-based field indices.
struct ColumnChoice {
    std::size_t ra = 0, dec = 0;
    std::optional<std::size_t> weight;
    std::optional<std::size_t> region;
    ChosenBy raBy = ChosenBy::Position, decBy = ChosenBy::Position;
    /// Columns stepped over as text in the first row to find RA or Dec; each later row must
    /// hold text there too, or the choice read the wrong columns (a garbled first row).
    std::vector<std::size_t> skippedText;
};

ColumnChoice chooseColumns(const TableHead& head, const std::vector<std::string_view>& firstFields,
                           const std::vector<std::string_view>& sample, const std::string& source,
                           const ReadOptions& options) {
    std::vector<bool> taken(firstFields.size(), false);
    std::vector<std::size_t> skipped;
    bool byHeaderName = false; // set by defaultColumn

    auto explicitColumn = [&](const ColumnRef& ref, const char* role) -> std::size_t {
        if (ref.index > 0) {
            const auto index = static_cast<std::size_t>(ref.index);
            if (index > firstFields.size())
                throw InputError(source, head.firstRowLine, ref.index,
                                 std::string(role) + " is column " + std::to_string(index) +
                                     ", but the line has only " +
                                     std::to_string(firstFields.size()) + " columns");
            return index - 1;
        }
        if (head.columnNames.empty())
            throw InputError(source, head.firstRowLine, 0,
                             std::string(role) + " is given by name (" + quoteField(ref.name) +
                                 "), but the file has no header line naming its columns");
        auto found = std::find(head.columnNames.begin(), head.columnNames.end(), ref.name);
        if (found == head.columnNames.end())
            found =
                std::find_if(head.columnNames.begin(), head.columnNames.end(),
                             [&](const std::string& n) { return equalsIgnoringCase(n, ref.name); });
        if (found == head.columnNames.end())
            throw InputError(source, head.headerLine, 0,
                             "no column named " + quoteField(ref.name) + " (for " + role +
                                 ") in the header; available: " + joinNames(head.columnNames));
        const auto index = static_cast<std::size_t>(found - head.columnNames.begin());
        if (index >= firstFields.size())
            throw InputError(source, head.firstRowLine, static_cast<int>(index + 1),
                             std::string(role) + " column " + quoteField(ref.name) + " is column " +
                                 std::to_string(index + 1) + ", but the line has only " +
                                 std::to_string(firstFields.size()) + " columns");
        return index;
    };

    // Unset RA/Dec: with a header, the column it names so (defaultColumnByName); without one,
    // the first numeric column still free, stepping over text columns only.
    auto defaultColumn = [&](detail::Axis axis, const char* role) -> std::size_t {
        const auto free = [&taken](std::size_t i) { return i >= taken.size() || !taken[i]; };
        byHeaderName = false;
        if (const auto named = detail::defaultColumnByName(head.columnNames, axis, free, source,
                                                           head.headerLine)) {
            byHeaderName = true;
            if (*named >= firstFields.size())
                throw InputError(source, head.firstRowLine, static_cast<int>(*named + 1),
                                 std::string(role) + " column " +
                                     quoteField(head.columnNames[*named]) + " is column " +
                                     std::to_string(*named + 1) + ", but the line has only " +
                                     std::to_string(firstFields.size()) + " columns");
            return *named;
        }
        for (std::size_t i = 0; i < firstFields.size(); ++i) {
            if (taken[i])
                continue;
            if (isNumber(firstFields[i]))
                return i;
            // An empty field (",,"), or a number from_chars cannot read, is a bad value, not a
            // text column to skip: skipping it would silently read RA or Dec from the next one.
            if (!isTextField(firstFields[i]))
                throwBadNumber(source, head.firstRowLine, i, role, firstFields[i],
                               NumberStatus::NotANumber);
            // A field that starts like a number ("1O.5") is a text column (2MASS ids) only
            // if the rows after it hold text there too; else it is a mistyped number in the
            // first row, and stepping over it would shift RA and Dec by a column. A word
            // ("gal1", "abc") is taken as text; a later row with a number there is reported
            // by the parser, naming both rows.
            const ColumnEvidence later =
                startsLikeNumber(firstFields[i]) ? evidenceFor(sample, i) : ColumnEvidence{0, 1};
            if (later.text == 0)
                throwBadNumber(
                    source, head.firstRowLine, i, role, firstFields[i], NumberStatus::NotANumber,
                    later.numbers > 0 ? "; the rows after it hold numbers in this column" : "");
            if (std::find(skipped.begin(), skipped.end(), i) == skipped.end())
                skipped.push_back(i);
        }
        throw InputError(source, head.firstRowLine, 0,
                         std::string("too few columns: no numeric column left for ") + role +
                             " among the line's " + std::to_string(firstFields.size()) +
                             (firstFields.size() == 1 ? " column" : " columns"));
    };

    ColumnChoice choice;
    const bool raSet = options.raColumn.isSet(), decSet = options.decColumn.isSet();
    if (raSet)
        taken[choice.ra = explicitColumn(options.raColumn, "RA")] = true;
    if (decSet)
        taken[choice.dec = explicitColumn(options.decColumn, "Dec")] = true;
    if (raSet)
        choice.raBy = ChosenBy::Option;
    if (decSet)
        choice.decBy = ChosenBy::Option;
    if (!raSet) {
        taken[choice.ra = defaultColumn(detail::Axis::Ra, "RA")] = true;
        choice.raBy = byHeaderName ? ChosenBy::HeaderName : ChosenBy::Position;
    }
    if (!decSet) {
        taken[choice.dec = defaultColumn(detail::Axis::Dec, "Dec")] = true;
        choice.decBy = byHeaderName ? ChosenBy::HeaderName : ChosenBy::Position;
    }
    if (options.weightColumn.isSet())
        choice.weight = explicitColumn(options.weightColumn, "the weight");
    if (options.regionColumn.isSet())
        choice.region = explicitColumn(options.regionColumn, "the jackknife region");
    // A text column skipped before a column read later stays in the check.
    for (const std::size_t column : skipped)
        if (column < std::max(choice.ra, choice.dec) && column != choice.ra &&
            column != choice.dec && column != choice.weight && column != choice.region)
            choice.skippedText.push_back(column);
    return choice;
}

// A column as CatalogOrigin names it: its header name, else "column N".
std::string columnLabel(const TableHead& head, std::size_t index) {
    if (index < head.columnNames.size() && !head.columnNames[index].empty())
        return head.columnNames[index];
    return "column " + std::to_string(index + 1);
}

std::string describeChoice(const ColumnChoice& choice) {
    if (choice.raBy == choice.decBy) {
        switch (choice.raBy) {
        case ChosenBy::Option:
            return "named by --ra-col/--dec-col";
        case ChosenBy::HeaderName:
            return "header names";
        case ChosenBy::Position:
            return choice.ra == 0 && choice.dec == 1 ? "first two columns (no header)"
                                                     : "first two numeric columns (no header)";
        }
    }
    const auto part = [](ChosenBy by, const char* flag) -> std::string {
        switch (by) {
        case ChosenBy::Option:
            return std::string("named by ") + flag;
        case ChosenBy::HeaderName:
            return "by header name";
        case ChosenBy::Position:
            break;
        }
        return "the first free numeric column (no header)";
    };
    return "RA " + part(choice.raBy, "--ra-col") + ", Dec " + part(choice.decBy, "--dec-col");
}

CatalogOrigin asciiOrigin(const TableHead& head, const ColumnChoice& choice,
                          const ReadOptions& options, std::uint64_t rows) {
    CatalogOrigin origin;
    origin.format = "ascii";
    origin.raColumn = columnLabel(head, choice.ra);
    origin.decColumn = columnLabel(head, choice.dec);
    if (choice.weight)
        origin.weightColumn = columnLabel(head, *choice.weight);
    if (choice.region)
        origin.regionColumn = columnLabel(head, *choice.region);
    const std::string unit(angleUnitName(options.coordUnit));
    origin.unit = options.raInHours ? "RA in hours, Dec in " + unit : unit;
    origin.columnChoice = describeChoice(choice);
    origin.rows = rows;
    return origin;
}

} // namespace

namespace {

// The parsed columns, in radians, before the unit vectors are computed, and how they were read.
struct AsciiColumns {
    std::vector<double> ra, dec, weight;
    std::vector<std::int32_t> region;
    CatalogOrigin origin;
};

AsciiColumns parseAsciiColumns(std::string_view text, const std::string& sourceName,
                               const ReadOptions& options, detail::ChunkPlan plan) {
    // Formats catalogs come in that are not read: named, with what to do.
    if (const auto foreign = foreignFormatProblem(text.substr(0, kTextCheckBytes)))
        throw InputError(sourceName, 1, 0, "the file " + *foreign);
    // UTF-16 (as Windows tools write "Unicode" text) interleaves NUL bytes with the digits.
    if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
        throw InputError(sourceName, 1, 0,
                         "the file is UTF-16 text (it starts with a UTF-16 byte order mark); "
                         "save it as UTF-8 or ASCII");
    // Text never holds NUL bytes; binary files (FITS in a build without cfitsio, archives)
    // would otherwise be split into nonsense "lines" and might even parse.
    if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
        const auto offset = static_cast<std::size_t>(static_cast<const char*>(nul) - text.data());
        std::string problem = "binary data (a NUL byte) where a text catalog was expected";
        if (text.starts_with("\x1F\x8B"))
            problem += ": gzip-compressed data; decompress it first (only FITS tables are read "
                       "compressed, as .fits.gz)";
        else if (text.starts_with("SIMPLE  ="))
            problem += fitsSupported()
                           ? ": a FITS file; name it .fits to read it as FITS"
                           : ": a FITS file, and this build cannot read FITS (no cfitsio)";
        else if (offset < 2 && text.size() > 2)
            problem += " (UTF-16 text? save it as UTF-8 or ASCII)";
        throw InputError(sourceName, lineAt(text, offset), 0, problem);
    }
    LineReader lines(text);
    const TableHead head = readTableHead(lines);
    if (head.firstRow.empty())
        throw InputError(sourceName, 0, 0, head.emptyReason);

    std::vector<std::string_view> fields;
    splitFields(head.firstRow, fields);
    checkDecimalCommaDoubling(head, fields, sourceName);
    const ColumnChoice columns =
        chooseColumns(head, fields, sampleRows(lines), sourceName, options);
    // An ECSV catalog states its columns' units: RA and Dec are read in them.
    const ReadOptions read = detail::withEcsvUnits(options, text, head.columnNames, columns.ra,
                                                   columns.dec, sourceName);
    detail::RowLayout layout;
    layout.ra = columns.ra;
    layout.dec = columns.dec;
    layout.weight = columns.weight;
    layout.region = columns.region;
    layout.skippedText = columns.skippedText;
    layout.firstRowLine = head.firstRowLine;
    detail::RowColumns rows =
        detail::parseRows(head.firstRow, lines.remaining(), layout, sourceName, read, plan);

    if (head.declaredRows && *head.declaredRows != rows.ra.size())
        throw InputError(sourceName, head.countLine, 1,
                         "the count line says " + std::to_string(*head.declaredRows) +
                             " rows, but the file holds " + std::to_string(rows.ra.size()) +
                             " data rows");

    CatalogOrigin origin = asciiOrigin(head, columns, read, rows.ra.size());
    if (read.coordUnit != options.coordUnit || read.raInHours != options.raInHours)
        origin.unit += " (as the ECSV header states)";
    return AsciiColumns{std::move(rows.ra), std::move(rows.dec), std::move(rows.weight),
                        std::move(rows.region), std::move(origin)};
}

} // namespace

Catalog parseAsciiCatalog(std::string_view text, const std::string& sourceName,
                          const ReadOptions& options) {
    return detail::parseAsciiCatalog(text, sourceName, options,
                                     detail::ChunkPlan{0, options.threads});
}

Catalog detail::parseAsciiCatalog(std::string_view text, const std::string& sourceName,
                                  const ReadOptions& options, ChunkPlan plan) {
    AsciiColumns columns = parseAsciiColumns(text, sourceName, options, plan);
    Catalog catalog =
        Catalog::fromRadians(sourceName, std::move(columns.ra), std::move(columns.dec),
                             std::move(columns.weight), std::move(columns.region), plan.threads);
    catalog.setOrigin(std::move(columns.origin));
    return catalog;
}

Catalog readAsciiCatalog(const std::string& path, const ReadOptions& options) {
    AsciiColumns columns;
    {
        // The text (a few hundred MB at 10^7 rows) is freed before the unit vectors are built.
        const FileText text = readFileBytes(path, options);
        columns =
            parseAsciiColumns(text.view(), path, options, detail::ChunkPlan{0, options.threads});
    }
    Catalog catalog =
        Catalog::fromRadians(path, std::move(columns.ra), std::move(columns.dec),
                             std::move(columns.weight), std::move(columns.region), options.threads);
    catalog.setOrigin(std::move(columns.origin));
    return catalog;
}

namespace detail {

TablePreview previewAsciiFile(const std::string& path, std::size_t maxRows) {
    // A preview of a 10^7-row file must not read all of it: the first MiB holds the head.
    constexpr std::size_t kPreviewBytes = std::size_t(1) << 20;
    const FileText file = readFileBytes(path, ReadOptions{}, kPreviewBytes);
    std::string_view text = file.view();
    if (text.size() == kPreviewBytes) {
        // Drop the line the cut went through.
        const std::size_t lastNewline = text.find_last_of("\r\n");
        if (lastNewline != std::string_view::npos)
            text = text.substr(0, lastNewline + 1);
    }

    TablePreview preview;
    LineReader lines(text);
    const TableHead head = readTableHead(lines);
    preview.hasCountLine = head.declaredRows.has_value();
    preview.hasHeader = head.headerLine > 0;
    preview.columnNames = head.columnNames;
    preview.columnCount = head.columnNames.size();
    if (head.firstRow.empty() || maxRows == 0)
        return preview;

    std::vector<std::string_view> fields;
    std::string_view content = head.firstRow;
    long line = head.firstRowLine;
    do {
        splitFields(content, fields);
        preview.rows.emplace_back(fields.begin(), fields.end());
        preview.columnCount = std::max(preview.columnCount, fields.size());
    } while (preview.rows.size() < maxRows && lines.next(content, line));
    return preview;
}

} // namespace detail
} // namespace tpacf
