// SPDX-License-Identifier: GPL-3.0-or-later
// Result tables read back: the ECSV and plain CSV forms here, the FITS form in
// result_reader_fits.cpp (cfitsio builds only), and the table that picks between them.
#include "tpacf/result_reader.h"
#include "tpacf/result_io.h"

#include "base/text_trim.h"
#include "io/result_reader_peers.h"
#include "io/result_reader_table.h"
#include "io/result_text.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

namespace tpacf {

namespace {

std::string_view trimmed(std::string_view text) {
    return detail::trimmedBlanks(text);
}

std::vector<std::string_view> splitFields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        fields.push_back(trimmed(line.substr(start, comma - start)));
        if (comma == std::string_view::npos)
            return fields;
        start = comma + 1;
    }
}

bool parseNumber(std::string_view field, double& value) {
    // from_chars takes no leading '+'; another tool that re-saved the file may put one.
    if (field.size() > 1 && field.front() == '+' && field[1] != '-')
        field.remove_prefix(1);
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    return !field.empty() && error == std::errc() && end == field.data() + field.size();
}

// A YAML scalar as the ECSV writer writes it: single-quoted with '' for a quote, or plain.
std::string yamlScalar(std::string_view text) {
    text = trimmed(text);
    if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') {
        std::string value;
        for (std::size_t i = 1; i + 1 < text.size(); ++i) {
            value += text[i];
            if (text[i] == '\'' && text[i + 1] == '\'')
                ++i;
        }
        return value;
    }
    return std::string(text);
}

// "{name: 'theta_lo', unit: 'arcmin', datatype: float64}" → its pairs (commas inside quotes kept).
std::map<std::string, std::string> yamlFlowMapping(std::string_view text) {
    std::map<std::string, std::string> mapping;
    text = trimmed(text);
    if (text.size() < 2 || text.front() != '{' || text.back() != '}')
        return mapping;
    text = text.substr(1, text.size() - 2);
    std::size_t start = 0;
    bool quoted = false;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] == '\'')
            quoted = !quoted;
        if (i == text.size() || (text[i] == ',' && !quoted)) {
            const std::string_view item = text.substr(start, i - start);
            if (const std::size_t colon = item.find(':'); colon != std::string_view::npos)
                mapping[std::string(trimmed(item.substr(0, colon)))] =
                    yamlScalar(item.substr(colon + 1));
            start = i + 1;
        }
    }
    return mapping;
}

// The '#' lines of an ECSV file: the column units and the `meta` mapping (lists give one
// (key, value) per item; `conventions` is such a list).
void parseEcsvHeader(const std::vector<std::string>& lines, io::TextTable& table) {
    enum class Section { None, Datatype, Meta } section = Section::None;
    std::string listKey;
    for (const std::string& raw : lines) {
        std::string_view line = raw;
        if (line.rfind("# ", 0) == 0)
            line.remove_prefix(2);
        else if (line.rfind('#', 0) == 0)
            line.remove_prefix(1);
        const std::string_view content = trimmed(line);
        const bool indented = line.rfind("  ", 0) == 0 || line.rfind("- ", 0) == 0;
        if (!indented) {
            section = content == "datatype:" ? Section::Datatype
                      : content == "meta:"   ? Section::Meta
                                             : Section::None;
            listKey.clear();
            continue;
        }
        if (section == Section::Datatype && content.rfind("- ", 0) == 0) {
            const auto mapping = yamlFlowMapping(content.substr(2));
            const auto name = mapping.find("name");
            const auto unit = mapping.find("unit");
            if (name != mapping.end() && unit != mapping.end())
                table.units[name->second] = unit->second;
        } else if (section == Section::Meta) {
            if (content.rfind("- ", 0) == 0) {
                if (!listKey.empty())
                    table.metadata.emplace_back(listKey, yamlScalar(content.substr(2)));
                continue;
            }
            // A key: either "key: 'value'" or "key:" opening a list. Quoted keys are unquoted.
            std::size_t colon = std::string_view::npos;
            bool quoted = false;
            for (std::size_t i = 0; i < content.size(); ++i) {
                if (content[i] == '\'')
                    quoted = !quoted;
                else if (content[i] == ':' && !quoted) {
                    colon = i;
                    break;
                }
            }
            if (colon == std::string_view::npos)
                continue;
            const std::string key = yamlScalar(content.substr(0, colon));
            const std::string_view value = trimmed(content.substr(colon + 1));
            if (value.empty())
                listKey = key;
            else {
                listKey.clear();
                table.metadata.emplace_back(key, yamlScalar(value));
            }
        }
    }
}

// A plain CSV's '#' lines are "key: value"; the θ unit is in the line of conventions
// "theta_lo, theta_hi, theta_mid in arcmin; ...".
void parsePlainHeader(const std::vector<std::string>& lines, io::TextTable& table) {
    for (const std::string& raw : lines) {
        std::string_view content = trimmed(std::string_view(raw).substr(1));
        if (content.empty())
            continue;
        if (const std::size_t at = content.find("theta_mid in "); at != std::string_view::npos) {
            std::string_view unit = content.substr(at + 13);
            unit = unit.substr(0, unit.find_first_of(";, "));
            for (const char* name : {"theta_lo", "theta_hi", "theta_mid"})
                table.units[name] = std::string(unit);
        }
        const std::size_t colon = content.find(':');
        if (colon == std::string_view::npos)
            table.metadata.emplace_back("comment", std::string(content));
        else
            table.metadata.emplace_back(std::string(trimmed(content.substr(0, colon))),
                                        std::string(trimmed(content.substr(colon + 1))));
    }
}

io::TextTable readTextTable(const std::string& path, bool ecsv) {
    std::ifstream in(path, std::ios::in | std::ios::binary);
    if (!in)
        throw InputError(path, 0, 0,
                         "cannot open for reading: " +
                             std::error_code(errno, std::generic_category()).message());
    io::TextTable table;
    std::vector<std::string> comments;
    bool haveHeader = false;
    std::string line;
    long lineNumber = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        std::string_view content = trimmed(line);
        // A spreadsheet that re-saves the file may put a UTF-8 byte-order mark in front.
        if (lineNumber == 1 && content.rfind("\xEF\xBB\xBF", 0) == 0)
            content = trimmed(content.substr(3));
        if (content.empty())
            continue;
        if (content.front() == '#') {
            if (!haveHeader)
                comments.emplace_back(line);
            continue;
        }
        const std::vector<std::string_view> fields = splitFields(content);
        if (!haveHeader) {
            for (std::size_t column = 0; column < fields.size(); ++column) {
                if (fields[column].empty())
                    throw InputError(path, lineNumber, static_cast<int>(column + 1),
                                     "empty column name in the header row");
                table.names.emplace_back(fields[column]);
            }
            table.columns.resize(fields.size());
            table.headerLine = lineNumber;
            haveHeader = true;
            continue;
        }
        if (fields.size() != table.names.size())
            throw InputError(path, lineNumber, 0,
                             "expected " + std::to_string(table.names.size()) +
                                 " fields as in the header, found " +
                                 std::to_string(fields.size()));
        for (std::size_t column = 0; column < fields.size(); ++column) {
            double value = 0;
            if (!parseNumber(fields[column], value))
                throw InputError(path, lineNumber, static_cast<int>(column + 1),
                                 "not a number: '" + std::string(fields[column]) +
                                     "' in column " + table.names[column]);
            table.columns[column].push_back(value);
        }
        table.rowLines.push_back(lineNumber);
    }
    if (in.bad())
        throw InputError(path, lineNumber, 0, "read error");
    if (!haveHeader)
        throw InputError(path, 0, 0, "not a result table: no header row (the file holds no table)");
    if (ecsv)
        parseEcsvHeader(comments, table);
    else
        parsePlainHeader(comments, table);
    return table;
}

LoadedResult readEcsv(const std::string& path) {
    return io::resultFromTable(path, "ecsv", readTextTable(path, true));
}

LoadedResult readPlainCsv(const std::string& path) {
    return io::resultFromTable(path, "csv", readTextTable(path, false));
}

bool ecsvContent(std::string_view head) {
    if (head.rfind("\xEF\xBB\xBF", 0) == 0)
        head.remove_prefix(3);
    return head.rfind("# %ECSV", 0) == 0;
}

bool fitsContent(std::string_view head) {
    return head.rfind("SIMPLE  =", 0) == 0;
}

// Text without NUL bytes whose first table line has a comma.
bool csvContent(std::string_view head) {
    return head.find('\0') == std::string_view::npos && head.find(',') != std::string_view::npos;
}

std::string lowerSuffix(const std::string& path) {
    std::string suffix = std::filesystem::path(path).extension().string();
    std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return suffix;
}

} // namespace

namespace io {

namespace {

LoadedResult treecorrFromFits(const std::string& path, TextTable table) {
    PeerColumns peer;
    peer.names = std::move(table.names);
    peer.columns = std::move(table.columns);
    peer.place = table.hduPlace + ": ";
    for (const auto& [key, value] : table.metadata) {
        std::string lower = key;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        // fitsio writes string values quoted in the card; the reader hands them on as written.
        std::string text = value;
        if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'')
            text = text.substr(1, text.size() - 2);
        while (!text.empty() && text.back() == ' ')
            text.pop_back();
        if (lower.rfind("hierarch ", 0) == 0) // keys over 8 characters (sep_units)
            lower = lower.substr(9);
        peer.keyed.emplace(lower, text);
    }
    return treecorrResult(path, "treecorr-fits", peer);
}

} // namespace

LoadedResult resultFromTable(const std::string& path, const std::string& format,
                             TextTable table) {
    const auto place = [&](std::size_t row) {
        return row < table.rowLines.size() ? table.rowLines[row] : 0L;
    };
    const auto fail = [&](long line, const std::string& problem) -> LoadedResult {
        if (table.hduPlace.empty())
            throw InputError(path, line, 0, problem);
        throw InputError(path, 0, 0, table.hduPlace + ": " + problem);
    };
    const auto index = [&](std::string_view name) -> std::optional<std::size_t> {
        for (std::size_t c = 0; c < table.names.size(); ++c)
            if (table.names[c] == name)
                return c;
        return std::nullopt;
    };
    // A TreeCorr FITS output (fitsio's binary table: r_nom, xi, ..., the parameters as keywords).
    if (std::any_of(table.names.begin(), table.names.end(),
                    [](const std::string& name) { return name == "r_nom" || name == "R_nom"; }))
        return treecorrFromFits(path, std::move(table));
    std::string listed;
    for (const std::string& name : table.names)
        listed += (listed.empty() ? "" : ", ") + name;
    for (const char* required : {"theta_lo", "theta_hi", "theta_mid", "w"}) {
        if (index(required))
            continue;
        if (index("count"))
            return fail(table.headerLine, "a pair-count table (tpacf count), not a w(theta) "
                                          "result: no column 'w'");
        return fail(table.headerLine, std::string("not a w(theta) result of this tool: no "
                                                  "column '") +
                                          required + "' (columns: " + listed + ")");
    }
    LoadedResult result;
    result.path = path;
    result.format = format;
    result.metadata = std::move(table.metadata);
    result.thetaLo = table.columns[*index("theta_lo")];
    result.thetaHi = table.columns[*index("theta_hi")];
    result.thetaMid = table.columns[*index("theta_mid")];
    result.w = table.columns[*index("w")];
    if (const auto error = index("w_err"))
        result.wError = table.columns[*error];
    if (const auto unit = table.units.find("theta_mid"); unit != table.units.end())
        result.thetaUnit = parseAngleUnit(unit->second);
    for (std::size_t c = 0; c < table.names.size(); ++c) {
        const std::string& name = table.names[c];
        if (name != "theta_lo" && name != "theta_hi" && name != "theta_mid" && name != "w" &&
            name != "w_err")
            result.counts.push_back({name, std::move(table.columns[c])});
    }
    const std::size_t bins = result.thetaMid.size();
    if (bins == 0)
        return fail(table.headerLine, "the result holds no bins (a cancelled run writes none)");
    for (std::size_t k = 0; k < bins; ++k) {
        const double lo = result.thetaLo[k], hi = result.thetaHi[k], mid = result.thetaMid[k];
        if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(mid) || !(lo < hi))
            return fail(place(k), "bin " + std::to_string(k + 1) +
                                      ": theta_lo < theta_hi must hold, with finite values");
        if (k > 0 && !(lo >= result.thetaHi[k - 1] && mid > result.thetaMid[k - 1]))
            return fail(place(k), "bin " + std::to_string(k + 1) +
                                      ": the bins must be in increasing theta without overlap");
    }
    return result;
}

} // namespace io

// The numeric table of any result CSV (result_io.h): the same reading as a result file's,
// without asking it to be a w(θ) table.
ResultTable readResultCsv(const std::string& path) {
    io::TextTable text = readTextTable(path, false);
    ResultTable table;
    table.columns = std::move(text.names);
    table.rows.assign(text.rowLines.size(), std::vector<double>(table.columns.size()));
    for (std::size_t column = 0; column < table.columns.size(); ++column)
        for (std::size_t row = 0; row < table.rows.size(); ++row)
            table.rows[row][column] = text.columns[column][row];
    return table;
}

const std::vector<ResultFormat>& resultFormats() {
    static const std::vector<ResultFormat> formats = {
        {"ecsv", "ECSV (astropy Enhanced CSV; this tool's CSV)", {".ecsv", ".csv"}, ecsvContent,
         readEcsv},
        {"fits", "FITS binary table", {".fits", ".fit", ".fts"}, fitsContent, io::readResultFits},
        {"treecorr", "TreeCorr NNCorrelation.write output (ASCII)", {}, io::treecorrTextContent,
         io::readTreeCorrText},
        {"corrfunc", "Corrfunc DDtheta_mocks output (thetamin thetamax thetaavg npairs weightavg)",
         {}, io::corrfuncTextContent, io::readCorrfuncText},
        {"csv", "CSV with '#' metadata lines", {".csv", ".txt", ".dat"}, csvContent,
         readPlainCsv},
    };
    return formats;
}

LoadedResult readResultFile(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::exists(path, error))
        throw InputError(path, 0, 0, "no such file");
    if (!std::filesystem::is_regular_file(path, error))
        throw InputError(path, 0, 0, "not a regular file");
    std::ifstream in(path, std::ios::in | std::ios::binary);
    if (!in)
        throw InputError(path, 0, 0,
                         "cannot open for reading: " +
                             std::error_code(errno, std::generic_category()).message());
    std::string head(2880, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    // Content is decisive for ECSV and FITS; the name decides between what remains.
    for (const ResultFormat& format : resultFormats())
        if (format.key != "csv" && format.matchesContent(head))
            return format.read(path);
    const std::string suffix = lowerSuffix(path);
    for (const ResultFormat& format : resultFormats())
        if (std::find(format.suffixes.begin(), format.suffixes.end(), suffix) !=
                format.suffixes.end() &&
            (format.key != "ecsv"))
            return format.read(path);
    if (csvContent(head))
        return readPlainCsv(path);
    throw InputError(path, 0, 0,
                     "not a result table this tool reads (neither its ECSV, CSV or FITS, nor "
                     "TreeCorr's NNCorrelation or Corrfunc's DDtheta_mocks output, by its "
                     "content)");
}

LoadedResult loadedResultOf(const CorrelationResult& result) {
    LoadedResult loaded;
    loaded.format = "result";
    const std::size_t bins = result.binCount();
    if (result.edges.size() == bins + 1 && bins > 0) {
        loaded.thetaLo.assign(result.edges.begin(), result.edges.end() - 1);
        loaded.thetaHi.assign(result.edges.begin() + 1, result.edges.end());
    }
    loaded.thetaMid = result.centres;
    loaded.thetaUnit = result.bins.unit;
    loaded.w = result.w;
    loaded.wError = result.wError;
    const auto add = [&](std::string name, const auto& values) {
        if (values.size() == bins && bins > 0)
            loaded.counts.push_back({std::move(name), std::vector<double>(values.begin(),
                                                                          values.end())});
    };
    add("DD", result.raw.dd);
    add("DR", result.drSummed());
    if (result.isCross())
        add("RD", result.rdSummed());
    add("RR", result.rrSummed());
    add("DD_norm", result.normalised.dd);
    add("DR_norm", result.normalised.dr);
    if (result.isCross())
        add("RD_norm", result.normalised.rd);
    add("RR_norm", result.normalised.rr);
    for (auto& [key, value] : io::resultMetadata(result))
        loaded.metadata.emplace_back(std::move(key), std::move(value));
    return loaded;
}

} // namespace tpacf

#ifndef TPACF_HAVE_CFITSIO
namespace tpacf::io {
LoadedResult readResultFits(const std::string& path) {
    throw InputError(path, 0, 0, "a FITS file, and this build reads no FITS (built without cfitsio)");
}
} // namespace tpacf::io
#endif
