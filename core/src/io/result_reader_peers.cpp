// SPDX-License-Identifier: GPL-3.0-or-later
// Results of the codes astronomers check against, read as comparison runs: TreeCorr's
// NNCorrelation.write (ASCII: a "## {params}" line, a '#' header of names, whitespace columns;
// FITS: the same names in a binary table) and Corrfunc's DDtheta_mocks (the C program's five
// columns thetamin thetamax thetaavg npairs weightavg in degrees, or numpy's savetxt of the
// Python result with or without a '#' header).
//
// Neither file states bin edges to the last digit: TreeCorr gives the nominal centre r_nom (the
// edges follow from its even spacing in log r or r), both print a fixed number of digits. The
// reader derives the edges, checks the spacing, and sets LoadedResult::edgeTolerance to what the
// printed digits allow, so that a comparison matches bins to that precision and no finer.
#include "io/result_reader_peers.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

namespace tpacf::io {

namespace {

std::string lowered(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (at < line.size()) {
        while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at])))
            ++at;
        const std::size_t start = at;
        while (at < line.size() && !std::isspace(static_cast<unsigned char>(line[at])))
            ++at;
        if (at > start)
            out.push_back(line.substr(start, at - start));
    }
    return out;
}

bool parseNumber(std::string_view field, double& value) {
    if (field.size() > 1 && field.front() == '+')
        field.remove_prefix(1);
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    return !field.empty() && error == std::errc() && end == field.data() + field.size();
}

// Half a unit in the last printed place of a decimal number ("1.2346e-02": 5e-7; "0.00016667":
// 5e-9), relative to its value: how far the printed number may be from the one computed.
double printedRelativeError(std::string_view text, double value) {
    if (value == 0 || !std::isfinite(value))
        return 0;
    const std::size_t exponentAt = text.find_first_of("eE");
    const std::string_view mantissa = text.substr(0, exponentAt);
    int exponent = 0;
    if (exponentAt != std::string_view::npos) {
        const std::string_view digits = text.substr(exponentAt + 1);
        const char* first = digits.data() + (digits.size() > 0 && digits.front() == '+');
        std::from_chars(first, digits.data() + digits.size(), exponent);
    }
    const std::size_t point = mantissa.find('.');
    const int decimals =
        point == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - point - 1);
    return 0.5 * std::pow(10.0, exponent - decimals) / std::abs(value);
}

// A whitespace table as read: column names (from a '#' header, or none), rows with the text of
// each field (for its printed precision), the "## " lines, and each row's line.
struct WhitespaceTable {
    std::vector<std::string> names;
    std::vector<std::vector<double>> columns;
    std::vector<std::vector<double>> printedError; // per column, per row
    std::vector<std::string> paramLines;            // "## ..." without the "## "
    std::vector<long> rowLines;
    long headerLine = 0;
};

WhitespaceTable readWhitespaceTable(const std::string& path) {
    std::ifstream in(path, std::ios::in | std::ios::binary);
    if (!in)
        throw InputError(path, 0, 0, "cannot open for reading");
    WhitespaceTable table;
    std::string line;
    long lineNumber = 0;
    std::size_t width = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        std::string_view content = line;
        while (!content.empty() && (content.back() == '\r' || content.back() == ' '))
            content.remove_suffix(1);
        if (words(content).empty())
            continue;
        if (content.rfind("##", 0) == 0) {
            table.paramLines.emplace_back(content.substr(2));
            continue;
        }
        if (content.front() == '#') {
            // The last '#' line before the rows names the columns.
            if (table.rowLines.empty()) {
                table.names.clear();
                for (const std::string_view name : words(content.substr(1)))
                    table.names.emplace_back(name);
                table.headerLine = lineNumber;
            }
            continue;
        }
        const std::vector<std::string_view> fields = words(content);
        if (width == 0) {
            width = fields.size();
            table.columns.resize(width);
            table.printedError.resize(width);
        }
        if (fields.size() != width)
            throw InputError(path, lineNumber, 0,
                             "expected " + std::to_string(width) + " fields as in the first row, "
                             "found " + std::to_string(fields.size()));
        for (std::size_t c = 0; c < width; ++c) {
            double value = 0;
            if (!parseNumber(fields[c], value))
                throw InputError(path, lineNumber, static_cast<int>(c + 1),
                                 "not a number: '" + std::string(fields[c]) + "'");
            table.columns[c].push_back(value);
            table.printedError[c].push_back(printedRelativeError(fields[c], value));
        }
        table.rowLines.push_back(lineNumber);
    }
    if (table.rowLines.empty())
        throw InputError(path, lineNumber, 0, "no rows: the file holds no bins");
    if (!table.names.empty() && table.names.size() != width)
        throw InputError(path, table.headerLine, 0,
                         "the header names " + std::to_string(table.names.size()) +
                             " columns and the rows hold " + std::to_string(width));
    return table;
}

std::optional<std::size_t> indexOf(const std::vector<std::string>& names, std::string_view name) {
    for (std::size_t c = 0; c < names.size(); ++c)
        if (lowered(names[c]) == name)
            return c;
    return std::nullopt;
}

// A value of TreeCorr's parameter line, a Python dict ("{'tot': 1.5, 'sep_units': 'arcmin'}"):
// the text after "'key':", unquoted; "" when absent.
std::string paramValue(const std::vector<std::string>& lines, std::string_view key) {
    for (const std::string& line : lines) {
        for (const char quote : {'\'', '"'}) {
            const std::string pattern = std::string(1, quote) + std::string(key) + quote + ":";
            const std::size_t at = line.find(pattern);
            if (at == std::string::npos)
                continue;
            std::string_view value = std::string_view(line).substr(at + pattern.size());
            while (!value.empty() && value.front() == ' ')
                value.remove_prefix(1);
            if (!value.empty() && (value.front() == '\'' || value.front() == '"')) {
                const std::size_t end = value.find(value.front(), 1);
                return std::string(value.substr(1, end == std::string_view::npos
                                                       ? std::string_view::npos
                                                       : end - 1));
            }
            return std::string(value.substr(0, value.find_first_of(",}")));
        }
    }
    return {};
}

// TreeCorr's sep_units: arcsec, arcmin, degrees (deg), hours, radians (rad).
std::optional<AngleUnit> treecorrUnit(const std::string& path, const std::string& text) {
    if (text.empty())
        return std::nullopt;
    if (lowered(text) == "hours" || lowered(text) == "hour")
        throw InputError(path, 0, 0,
                         "TreeCorr output in sep_units 'hours': write it in deg, arcmin or arcsec "
                         "to compare");
    if (const auto unit = parseAngleUnit(text))
        return unit;
    throw InputError(path, 0, 0, "TreeCorr output in unknown sep_units '" + text + "'");
}

} // namespace

std::string PeerColumns::param(std::string_view key) const {
    if (const auto found = keyed.find(std::string(key)); found != keyed.end())
        return found->second;
    return paramValue(paramLines, key);
}

double PeerColumns::rnomError(std::size_t row) const {
    const auto c = indexOf(names, "r_nom");
    return c && *c < printedError.size() && row < printedError[*c].size() ? printedError[*c][row]
                                                                        : 0.0;
}

bool treecorrTextContent(std::string_view head) {
    // The first non-blank line: TreeCorr's "## {" parameter line, or a '#' header naming r_nom.
    const std::size_t start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || head[start] != '#')
        return false;
    const std::string_view line = head.substr(start, head.find('\n', start) - start);
    if (line.rfind("## {", 0) == 0)
        return true;
    const std::vector<std::string_view> names = words(line.substr(1));
    return !names.empty() && lowered(names.front()) == "r_nom";
}

bool corrfuncTextContent(std::string_view head) {
    const std::size_t start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos)
        return false;
    const std::string_view line = head.substr(start, head.find('\n', start) - start);
    if (line.front() == '#') {
        const std::vector<std::string_view> names = words(line.substr(1));
        return names.size() >= 4 && lowered(names[0]) == "thetamin" &&
               lowered(names[1]) == "thetamax";
    }
    // The C program's rows: five numbers, thetamin < thetamax, an integer pair count.
    const std::vector<std::string_view> fields = words(line);
    if (fields.size() != 5 || head.find(',') != std::string_view::npos)
        return false;
    double values[5] = {};
    for (std::size_t c = 0; c < 5; ++c)
        if (!parseNumber(fields[c], values[c]))
            return false;
    return values[0] >= 0 && values[0] < values[1] && values[1] <= 180 && values[3] >= 0 &&
           values[3] == std::floor(values[3]);
}

LoadedResult treecorrResult(const std::string& path, const std::string& format,
                            const PeerColumns& table) {
    const auto fail = [&](long line, const std::string& problem) -> LoadedResult {
        throw InputError(path, line, 0, table.place + problem);
    };
    const auto column = [&](std::string_view name) -> const std::vector<double>* {
        const auto c = indexOf(table.names, name);
        return c ? &table.columns[*c] : nullptr;
    };
    const std::vector<double>* rnom = column("r_nom");
    if (!rnom)
        return fail(table.headerLine, "not a TreeCorr NNCorrelation output: no column r_nom");
    const std::size_t bins = rnom->size();
    const std::string binType = lowered(table.param("bin_type"));
    if (!binType.empty() && binType != "log" && binType != "linear")
        return fail(0, "TreeCorr bin_type '" + table.param("bin_type") +
                           "': only Log and Linear bins are compared");
    const bool linear = binType == "linear";
    // The bin width: bin_size where the file gives it, else the spacing of the centres.
    const auto position = [&](double r) { return linear ? r : std::log(r); };
    double step = 0;
    if (const std::string size = table.param("bin_size"); !size.empty())
        parseNumber(size, step);
    if (step <= 0 && bins >= 2)
        step = (position(rnom->back()) - position(rnom->front())) / static_cast<double>(bins - 1);
    if (!(step > 0) || !std::isfinite(step))
        return fail(table.headerLine, "cannot tell the bin width from one bin (or from r_nom "
                                      "not increasing): write at least two bins");
    for (std::size_t k = 0; k < bins; ++k)
        if (!((*rnom)[k] > 0) && !linear)
            return fail(table.rowLine(k), "r_nom " + std::to_string((*rnom)[k]) +
                                              " is not positive in log bins");
    // The first centre from all of them (each printed to a few digits), then every edge.
    double first = 0;
    for (std::size_t k = 0; k < bins; ++k)
        first += position((*rnom)[k]) - step * static_cast<double>(k);
    first /= static_cast<double>(bins);
    double printed = 0;
    for (std::size_t k = 0; k < bins; ++k)
        printed = std::max(printed, table.rnomError(k));
    // Centres printed to a relative precision p lie within p of the spacing (more in linear
    // bins near zero, where the absolute error counts): allow four times that, at least 1e-9.
    const double tolerance = std::max(1e-9, 4 * printed);
    LoadedResult result;
    result.path = path;
    result.format = format;
    result.edgeTolerance = tolerance;
    const auto atPosition = [&](double x) { return linear ? x : std::exp(x); };
    for (std::size_t k = 0; k < bins; ++k) {
        const double centre = first + step * static_cast<double>(k);
        const double expected = atPosition(centre), got = (*rnom)[k];
        const double scale = linear ? std::max(std::abs(step), std::abs(expected)) : expected;
        if (std::abs(got - expected) > tolerance * scale + 1e-12 * scale)
            return fail(table.rowLine(k),
                        "r_nom is not evenly spaced in " + std::string(linear ? "r" : "log r") +
                            " (bin " + std::to_string(k + 1) + "): not TreeCorr's " +
                            (linear ? "Linear" : "Log") + " bins");
        result.thetaLo.push_back(atPosition(centre - step / 2));
        result.thetaHi.push_back(atPosition(centre + step / 2));
        result.thetaMid.push_back(expected);
    }
    result.thetaUnit = treecorrUnit(path, table.param("sep_units"));
    const std::vector<double>* xi = column("xi");
    result.w = xi ? *xi : std::vector<double>(bins, std::nan(""));
    if (const auto* sigma = column("sigma_xi"))
        result.wError = *sigma;
    // npairs: the raw pair count, this tool's DD; TreeCorr's DD is the weighted sum (DD_w). Its
    // RR, DR and RD are scaled to the DD pair total, so they keep TreeCorr's names.
    static constexpr std::pair<std::string_view, std::string_view> kColumns[] = {
        {"npairs", "DD"},      {"dd", "DD_w"},          {"rr", "treecorr_RR"},
        {"dr", "treecorr_DR"}, {"rd", "treecorr_RD"},   {"meanr", "meanr"},
        {"meanlogr", "meanlogr"},
    };
    for (const auto& [name, ours] : kColumns)
        if (const auto* values = column(name))
            result.counts.push_back({std::string(ours), *values});
    result.metadata.emplace_back("source", "TreeCorr NNCorrelation.write (" + format + ")");
    for (const char* key : {"tot", "coords", "metric", "sep_units", "bin_type"})
        if (const std::string value = table.param(key); !value.empty())
            result.metadata.emplace_back(std::string("treecorr ") + key, value);
    result.metadata.emplace_back("estimator", xi ? "TreeCorr xi" : "TreeCorr pair counts (no xi)");
    return result;
}

LoadedResult readTreeCorrText(const std::string& path) {
    WhitespaceTable text = readWhitespaceTable(path);
    if (text.names.empty())
        throw InputError(path, 0, 0, "no '#' header line naming the columns (r_nom, ...)");
    PeerColumns table;
    table.names = std::move(text.names);
    table.columns = std::move(text.columns);
    table.printedError = std::move(text.printedError);
    table.rowLines = std::move(text.rowLines);
    table.headerLine = text.headerLine;
    for (const std::string& line : text.paramLines)
        table.paramLines.push_back(line);
    return treecorrResult(path, "treecorr", table);
}

LoadedResult readCorrfuncText(const std::string& path) {
    const WhitespaceTable text = readWhitespaceTable(path);
    static const std::vector<std::string> kNames = {"thetamin", "thetamax", "thetaavg", "npairs",
                                                    "weightavg"};
    const std::vector<std::string> names = text.names.empty() ? kNames : text.names;
    if (names.size() != text.columns.size())
        throw InputError(path, text.headerLine, 0,
                         "a Corrfunc DDtheta_mocks output has 5 columns (thetamin thetamax "
                         "thetaavg npairs weightavg); this has " +
                             std::to_string(text.columns.size()));
    const auto column = [&](std::string_view name) -> std::size_t {
        const auto c = indexOf(names, name);
        if (!c)
            throw InputError(path, text.headerLine, 0,
                             "not a Corrfunc DDtheta_mocks output: no column " + std::string(name));
        return *c;
    };
    const std::size_t lo = column("thetamin"), hi = column("thetamax"), pairs = column("npairs");
    const std::size_t bins = text.rowLines.size();
    LoadedResult result;
    result.path = path;
    result.format = "corrfunc";
    result.thetaUnit = AngleUnit::Degree; // DDtheta_mocks takes and gives θ in degrees
    double printed = 0;
    for (std::size_t k = 0; k < bins; ++k) {
        const double a = text.columns[lo][k], b = text.columns[hi][k];
        if (!(a >= 0 && a < b && b <= 180) || (k > 0 && a < text.columns[hi][k - 1] * (1 - 1e-9)))
            throw InputError(path, text.rowLines[k], 0,
                             "bin " + std::to_string(k + 1) +
                                 ": thetamin < thetamax in degrees (0 to 180), bins in order, "
                                 "must hold");
        const double n = text.columns[pairs][k];
        if (!(n >= 0) || n != std::floor(n))
            throw InputError(path, text.rowLines[k], static_cast<int>(pairs + 1),
                             "npairs is not a pair count: " + std::to_string(n));
        result.thetaLo.push_back(a);
        result.thetaHi.push_back(b);
        // The bin's centre as this tool writes it for log bins; thetaavg is kept beside.
        result.thetaMid.push_back(a > 0 ? std::sqrt(a * b) : (a + b) / 2);
        printed = std::max({printed, text.printedError[lo][k], text.printedError[hi][k]});
    }
    result.edgeTolerance = std::max(1e-9, 2 * printed);
    result.w.assign(bins, std::nan("")); // pair counts only: no w
    result.counts.push_back({"DD", text.columns[pairs]});
    for (const char* name : {"thetaavg", "weightavg"})
        if (const auto c = indexOf(names, name))
            result.counts.push_back({name, text.columns[*c]});
    result.metadata.emplace_back("source", "Corrfunc DDtheta_mocks");
    result.metadata.emplace_back("estimator", "pair counts (no w)");
    return result;
}

} // namespace tpacf::io
