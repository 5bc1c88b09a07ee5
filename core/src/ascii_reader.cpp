// ASCII catalogs: whole file read at once, lines cut with memchr and numbers parsed with
// std::from_chars, so that 10^7 rows take seconds rather than minutes.
#include "fits_reader.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace tpacf {

namespace {

struct FileCloser {
    void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Reads at most `limit` bytes; the whole file by default.
std::string readFileBytes(const std::string& path,
                          std::size_t limit = std::numeric_limits<std::size_t>::max()) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status))
        throw InputError(path, 0, 0, "cannot read the catalog: the file does not exist");
    if (std::filesystem::is_directory(status))
        throw InputError(path, 0, 0, "cannot read the catalog: this is a directory, not a file");
    errno = 0;
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file)
        throw InputError(path, 0, 0,
                         std::string("cannot open the catalog: ") + std::strerror(errno));

    std::string data;
    const std::uintmax_t sizeHint = std::filesystem::file_size(path, ec);
    if (!ec && sizeHint > 0) {
        data.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(sizeHint, limit)));
        data.resize(std::fread(data.data(), 1, data.size(), file.get()));
    }
    // Files that grew, or report no size (pipes, /proc), are read to their end in chunks.
    char chunk[1 << 16];
    while (data.size() < limit) {
        const std::size_t want = std::min(sizeof chunk, limit - data.size());
        const std::size_t got = std::fread(chunk, 1, want, file.get());
        if (got == 0)
            break;
        data.append(chunk, got);
    }
    if (std::ferror(file.get()))
        throw InputError(path, 0, 0,
                         std::string("error while reading the catalog: ") + std::strerror(errno));
    return data;
}

bool isBlank(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Yields non-blank lines with comments cut off and surrounding blanks (including the CR of
// CRLF files) trimmed, together with their 1-based line numbers.
class LineReader {
public:
    explicit LineReader(std::string_view text) : m_text(text) {
        // A UTF-8 byte order mark, as some Windows editors write, is not part of the first field.
        if (m_text.substr(0, 3) == "\xEF\xBB\xBF")
            m_pos = 3;
    }

    bool next(std::string_view& content, long& lineNumber) {
        while (m_pos < m_text.size()) {
            const char* begin = m_text.data() + m_pos;
            const std::size_t rest = m_text.size() - m_pos;
            const void* newline = std::memchr(begin, '\n', rest);
            const std::size_t length =
                newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - begin)
                        : rest;
            m_pos += length + 1;
            ++m_line;
            std::size_t end = length;
            if (const void* hash = std::memchr(begin, '#', length))
                end = static_cast<std::size_t>(static_cast<const char*>(hash) - begin);
            std::size_t start = 0;
            while (start < end && isBlank(begin[start]))
                ++start;
            while (end > start && isBlank(begin[end - 1]))
                --end;
            if (start == end)
                continue;
            content = std::string_view(begin + start, end - start);
            lineNumber = m_line;
            return true;
        }
        return false;
    }

    // Where the next line starts, to estimate how many rows remain.
    std::string_view remaining() const noexcept {
        return m_pos < m_text.size() ? m_text.substr(m_pos) : std::string_view();
    }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    long m_line = 0;
};

// A line holding a comma is comma separated (so a header name may contain blanks, as in
// "RA (deg), Dec (deg)"), its fields trimmed, two commas in a row leaving an empty field;
// any other line is split on runs of blanks. Stops after `limit` fields.
void splitFields(std::string_view line, std::vector<std::string_view>& fields,
                 std::size_t limit = std::numeric_limits<std::size_t>::max()) {
    fields.clear();
    const char* p = line.data();
    const char* const end = p + line.size();
    if (std::memchr(p, ',', line.size())) {
        while (fields.size() < limit) {
            const char* comma =
                static_cast<const char*>(std::memchr(p, ',', static_cast<std::size_t>(end - p)));
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

NumberStatus parseNumber(std::string_view field, double& value) noexcept {
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

bool isNumber(std::string_view field) noexcept {
    double ignored = 0;
    return parseNumber(field, ignored) != NumberStatus::NotANumber;
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
    if (std::none_of(fields.begin(), fields.end(), isNumber)) {
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
    return head;
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string joined;
    for (const std::string& name : names)
        joined += (joined.empty() ? "" : ", ") + name;
    return joined;
}

[[noreturn]] void throwBadNumber(const std::string& source, long line, std::size_t column,
                                 const char* role, std::string_view field, NumberStatus status) {
    std::string problem = std::string(role) + " value ";
    if (field.empty())
        problem += "is an empty field";
    else if (status == NumberStatus::OutOfRange)
        problem += "'" + std::string(field) + "' is out of the range of a double";
    else
        problem += "'" + std::string(field) + "' is not a number";
    throw InputError(source, line, static_cast<int>(column + 1), problem);
}

// Resolves the columns of ReadOptions to 0-based field indices.
struct ColumnChoice {
    std::size_t ra = 0, dec = 0;
    std::optional<std::size_t> weight;
    std::optional<std::size_t> region;
};

ColumnChoice chooseColumns(const TableHead& head, const std::vector<std::string_view>& firstFields,
                           const std::string& source, const ReadOptions& options) {
    std::vector<bool> taken(firstFields.size(), false);

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
                             std::string(role) + " is given by name ('" + ref.name +
                                 "'), but the file has no header line naming its columns");
        auto found = std::find(head.columnNames.begin(), head.columnNames.end(), ref.name);
        if (found == head.columnNames.end())
            found =
                std::find_if(head.columnNames.begin(), head.columnNames.end(),
                             [&](const std::string& n) { return equalsIgnoringCase(n, ref.name); });
        if (found == head.columnNames.end())
            throw InputError(source, head.headerLine, 0,
                             "no column named '" + ref.name + "' (for " + role +
                                 ") in the header; available: " + joinNames(head.columnNames));
        const auto index = static_cast<std::size_t>(found - head.columnNames.begin());
        if (index >= firstFields.size())
            throw InputError(source, head.firstRowLine, static_cast<int>(index + 1),
                             std::string(role) + " column '" + ref.name + "' is column " +
                                 std::to_string(index + 1) + ", but the line has only " +
                                 std::to_string(firstFields.size()) + " columns");
        return index;
    };

    // Unset RA/Dec: columns named so in the header, else the first numeric columns still free.
    auto defaultColumn = [&](const char* headerName, const char* role) -> std::size_t {
        for (std::size_t i = 0; i < head.columnNames.size() && i < firstFields.size(); ++i)
            if (!taken[i] && equalsIgnoringCase(head.columnNames[i], headerName))
                return i;
        for (std::size_t i = 0; i < firstFields.size(); ++i) {
            // An empty field (",,") is a missing value, not a text column to skip: skipping it
            // would silently read RA or Dec from the next column.
            if (!taken[i] && firstFields[i].empty())
                throwBadNumber(source, head.firstRowLine, i, role, firstFields[i],
                               NumberStatus::NotANumber);
            if (!taken[i] && isNumber(firstFields[i]))
                return i;
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
    if (!raSet)
        taken[choice.ra = defaultColumn("ra", "RA")] = true;
    if (!decSet)
        taken[choice.dec = defaultColumn("dec", "Dec")] = true;
    if (options.weightColumn.isSet())
        choice.weight = explicitColumn(options.weightColumn, "the weight");
    if (options.regionColumn.isSet())
        choice.region = explicitColumn(options.regionColumn, "the jackknife region");
    return choice;
}

} // namespace

namespace {

// The parsed columns, in radians, before the unit vectors are computed.
struct AsciiColumns {
    std::vector<double> ra, dec, weight;
    std::vector<std::int32_t> region;
};

AsciiColumns parseAsciiColumns(std::string_view text, const std::string& sourceName,
                               const ReadOptions& options) {
    // Text never holds NUL bytes; binary files (FITS in a build without cfitsio, archives)
    // would otherwise be split into nonsense "lines" and might even parse.
    if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
        const auto offset = static_cast<std::size_t>(static_cast<const char*>(nul) - text.data());
        const auto line =
            1 + std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n');
        throw InputError(sourceName, static_cast<long>(line), 0,
                         std::string("binary data (a NUL byte) where a text catalog was expected") +
                             (fitsSupported() ? "" : "; this build cannot read FITS (no cfitsio)"));
    }
    LineReader lines(text);
    const TableHead head = readTableHead(lines);
    if (head.firstRow.empty())
        throw InputError(sourceName, 0, 0, head.emptyReason);

    std::vector<std::string_view> fields;
    splitFields(head.firstRow, fields);
    const ColumnChoice columns = chooseColumns(head, fields, sourceName, options);
    const std::size_t needed = std::max({columns.ra, columns.dec, columns.weight.value_or(0),
                                         columns.region.value_or(0)}) +
                               1;

    const detail::CoordinateConverter convert(options);
    // One row per remaining newline is an upper bound that costs a single fast scan.
    const std::string_view rest = lines.remaining();
    const std::size_t rowEstimate =
        1 + static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n'));
    std::vector<double> ra, dec, weight;
    ra.reserve(rowEstimate);
    dec.reserve(rowEstimate);
    std::vector<std::int32_t> region;
    if (columns.weight)
        weight.reserve(rowEstimate);
    if (columns.region)
        region.reserve(rowEstimate);

    auto value = [&](std::size_t column, const char* role, long line) {
        double parsed = 0;
        const NumberStatus status = parseNumber(fields[column], parsed);
        if (status != NumberStatus::Ok)
            throwBadNumber(sourceName, line, column, role, fields[column], status);
        if (!std::isfinite(parsed))
            throw InputError(sourceName, line, static_cast<int>(column + 1),
                             std::string(role) + " value '" + std::string(fields[column]) +
                                 "' is not finite");
        return parsed;
    };

    std::string_view content = head.firstRow;
    long line = head.firstRowLine;
    do {
        splitFields(content, fields, needed);
        if (fields.size() < needed) {
            // Name the first chosen column the line lacks.
            std::size_t missing = needed - 1;
            const char* role = nullptr;
            const std::pair<std::optional<std::size_t>, const char*> chosen[] = {
                {columns.ra, "RA"},
                {columns.dec, "Dec"},
                {columns.weight, "the weight"},
                {columns.region, "the jackknife region"}};
            for (const auto& [column, name] : chosen)
                if (column && *column >= fields.size() && (!role || *column < missing)) {
                    missing = *column;
                    role = name;
                }
            throw InputError(sourceName, line, static_cast<int>(missing + 1),
                             "too few columns: the line has " + std::to_string(fields.size()) +
                                 ", but " + role + " is column " + std::to_string(missing + 1));
        }
        const double raValue = value(columns.ra, "RA", line);
        const double decValue = value(columns.dec, "Dec", line);
        const std::optional<double> decRadians = convert.decRadians(decValue);
        if (!decRadians)
            throw InputError(sourceName, line, static_cast<int>(columns.dec + 1),
                             convert.decRangeProblem(fields[columns.dec], decValue));
        ra.push_back(convert.raRadians(raValue));
        dec.push_back(*decRadians);
        if (columns.weight)
            weight.push_back(value(*columns.weight, "weight", line));
        if (columns.region)
            region.push_back(detail::regionLabel(value(*columns.region, "region", line), sourceName,
                                                 line, static_cast<int>(*columns.region + 1),
                                                 fields[*columns.region]));
    } while (lines.next(content, line));

    if (head.declaredRows && *head.declaredRows != ra.size())
        throw InputError(sourceName, head.countLine, 1,
                         "the count line says " + std::to_string(*head.declaredRows) +
                             " rows, but the file holds " + std::to_string(ra.size()) +
                             " data rows");

    return AsciiColumns{std::move(ra), std::move(dec), std::move(weight), std::move(region)};
}

} // namespace

Catalog parseAsciiCatalog(std::string_view text, const std::string& sourceName,
                          const ReadOptions& options) {
    AsciiColumns columns = parseAsciiColumns(text, sourceName, options);
    return Catalog::fromRadians(sourceName, std::move(columns.ra), std::move(columns.dec),
                                std::move(columns.weight), std::move(columns.region));
}

Catalog readAsciiCatalog(const std::string& path, const ReadOptions& options) {
    AsciiColumns columns;
    {
        // The text (a few hundred MB at 10^7 rows) is freed before the unit vectors are built.
        const std::string text = readFileBytes(path);
        columns = parseAsciiColumns(text, path, options);
    }
    return Catalog::fromRadians(path, std::move(columns.ra), std::move(columns.dec),
                                std::move(columns.weight), std::move(columns.region));
}

namespace detail {

TablePreview previewAsciiFile(const std::string& path, std::size_t maxRows) {
    // A preview of a 10^7-row file must not read all of it: the first MiB holds the head.
    constexpr std::size_t kPreviewBytes = std::size_t(1) << 20;
    std::string text = readFileBytes(path, kPreviewBytes);
    if (text.size() == kPreviewBytes) {
        // Drop the line the cut went through.
        const std::size_t lastNewline = text.rfind('\n');
        if (lastNewline != std::string::npos)
            text.resize(lastNewline + 1);
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
