// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/bins.h"
#include "base/number_text.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

namespace {

// Shortest text that reads back as the same double, so messages quote exactly what was given.
std::string withUnit(double value, AngleUnit unit) {
    return detail::formatDouble(value) + " " + std::string(angleUnitName(unit));
}

// 180° written in `unit`, compared in that unit so that e.g. 10800 arcmin or π rad is accepted
// exactly rather than failing on a rounding of the conversion.
double halfTurnIn(AngleUnit unit) {
    switch (unit) {
    case AngleUnit::Degree:
        return 180.0;
    case AngleUnit::Arcminute:
        return 180.0 * 60.0;
    case AngleUnit::Arcsecond:
        return 180.0 * 3600.0;
    case AngleUnit::Radian:
        return kPi;
    }
    return 180.0;
}

// A bin count computed from a width or a density; the 1e-9 absorbs the rounding of the
// division so that e.g. 6 decades at 5 per decade gives 30, not 31.
std::size_t derivedCount(double exactCount, const std::string& what) {
    const double rounded = std::ceil(exactCount - 1e-9);
    if (!(rounded <= static_cast<double>(kMaxBinCount)))
        throw ConfigError("bins: " + what + " gives " + detail::formatDouble(rounded) + " bins, more than the " +
                          std::to_string(kMaxBinCount) + " allowed");
    return rounded < 1.0 ? 1 : static_cast<std::size_t>(rounded);
}

// Custom edges: one message per problem, naming the edge by its 1-based position and value.
void validateEdges(const BinSpec& spec) {
    const std::vector<double>& edges = spec.edges;
    if (edges.size() < 2)
        throw ConfigError("bins: custom bins need at least 2 edges, got " +
                          std::to_string(edges.size()));
    if (edges.size() - 1 > kMaxBinCount)
        throw ConfigError("bins: " + std::to_string(edges.size()) + " edges give " +
                          std::to_string(edges.size() - 1) + " bins, more than the " +
                          std::to_string(kMaxBinCount) + " allowed");
    const double halfTurn = halfTurnIn(spec.unit);
    for (std::size_t k = 0; k < edges.size(); ++k) {
        const std::string name = "edge " + std::to_string(k + 1);
        const double edge = edges[k];
        if (!std::isfinite(edge))
            throw ConfigError("bins: " + name + " (" + detail::formatDouble(edge) + ") is not finite");
        if (edge < 0)
            throw ConfigError("bins: " + name + " (" + withUnit(edge, spec.unit) +
                              ") is negative; angles start at 0");
        if (k > 0 && !(edge > edges[k - 1]))
            throw ConfigError("bins: " + name + " (" + withUnit(edge, spec.unit) +
                              ") is not greater than edge " + std::to_string(k) + " (" +
                              withUnit(edges[k - 1], spec.unit) +
                              "); edges must be strictly increasing");
        if (edge > halfTurn)
            throw ConfigError("bins: " + name + " (" + withUnit(edge, spec.unit) +
                              ") is beyond 180 deg, the largest separation on the sphere");
    }
}

void validate(const BinSpec& spec) {
    if (spec.scale == BinScale::Custom)
        return validateEdges(spec);
    const bool log = spec.scale == BinScale::Logarithmic;
    const std::string unit(angleUnitName(spec.unit));
    auto finite = [](double v, const char* name) {
        if (!std::isfinite(v))
            throw ConfigError(std::string("bins: ") + name + " " + detail::formatDouble(v) + " is not finite");
    };
    finite(spec.min, "min");
    finite(spec.max, "max");
    finite(spec.perDecade, "bins per decade");
    finite(spec.width, "width");

    if (log && spec.min <= 0)
        throw ConfigError("bins: log bins need min > 0, got min " + withUnit(spec.min, spec.unit));
    if (!log && spec.min < 0)
        throw ConfigError("bins: linear bins need min >= 0, got min " +
                          withUnit(spec.min, spec.unit));
    if (spec.max <= spec.min)
        throw ConfigError("bins: max " + withUnit(spec.max, spec.unit) +
                          " must be greater than min " + withUnit(spec.min, spec.unit));
    if (spec.max > halfTurnIn(spec.unit))
        throw ConfigError("bins: max " + withUnit(spec.max, spec.unit) +
                          " is beyond 180 deg, the largest separation on the sphere");

    if (spec.perDecade < 0)
        throw ConfigError("bins: bins per decade must be > 0, got " + detail::formatDouble(spec.perDecade));
    if (spec.width < 0)
        throw ConfigError("bins: width must be > 0, got " + withUnit(spec.width, spec.unit));
    if (spec.count < 0)
        throw ConfigError("bins: count must be > 0, got " + std::to_string(spec.count));
    if (!log && spec.perDecade > 0)
        throw ConfigError("bins: bins per decade (" + detail::formatDouble(spec.perDecade) +
                          ") only applies to log bins; give a count or a width");
    if (log && spec.width > 0)
        throw ConfigError("bins: a width (" + withUnit(spec.width, spec.unit) +
                          ") only applies to linear bins; give a count or bins per decade");
    const int chosen = (spec.perDecade > 0) + (spec.count > 0) + (spec.width > 0);
    if (chosen == 0)
        throw ConfigError(std::string("bins: count is 0 and no ") +
                          (log ? "bins per decade" : "width") + " is given");
    if (chosen > 1)
        throw ConfigError(std::string("bins: give exactly one of count and ") +
                          (log ? "bins per decade" : "width") + ", not both");
    if (spec.count > 0 && static_cast<std::size_t>(spec.count) > kMaxBinCount)
        throw ConfigError("bins: count " + std::to_string(spec.count) + " is more than the " +
                          std::to_string(kMaxBinCount) + " allowed");
}

// One number of an edges file; a leading '+' is allowed as people type it.
double edgeNumber(std::string_view field, const std::string& source, long line) {
    std::string_view digits = field;
    if (!digits.empty() && digits.front() == '+')
        digits.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    // Quoted and kept on one line: at most 40 bytes, control characters shown as '?'.
    // Appended piecewise: GCC 12 warns (-Wrestrict, a false alarm) on chained operator+.
    std::string quoted = "\"";
    quoted.append(field.substr(0, 40));
    quoted.append("\"");
    for (char& c : quoted)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
            c = '?';
    if (field.size() > 40)
        quoted += " (" + std::to_string(field.size()) + " bytes)";
    if (digits.empty() || error == std::errc::invalid_argument ||
        end != digits.data() + digits.size())
        throw InputError(source, line, 0, quoted + " is not a number");
    if (error == std::errc::result_out_of_range || !std::isfinite(value))
        throw InputError(source, line, 0, quoted + " is not a finite number");
    return value;
}

bool isFieldSeparator(char c) {
    // No comma: in a file "0,5" is more likely a decimal comma than two numbers.
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

} // namespace

std::string_view binScaleKey(BinScale scale) noexcept {
    switch (scale) {
    case BinScale::Logarithmic:
        return "log";
    case BinScale::Linear:
        return "linear";
    case BinScale::Custom:
        return "custom";
    }
    return "log";
}

std::optional<BinScale> parseBinScaleKey(std::string_view key) noexcept {
    for (const BinScale scale : {BinScale::Logarithmic, BinScale::Linear, BinScale::Custom})
        if (key == binScaleKey(scale))
            return scale;
    return std::nullopt;
}

BinSpec BinSpec::logPerDecade(double min, double max, AngleUnit unit, double perDecade) {
    BinSpec spec;
    spec.scale = BinScale::Logarithmic;
    spec.unit = unit;
    spec.min = min;
    spec.max = max;
    spec.perDecade = perDecade;
    spec.count = 0;
    spec.width = 0;
    return spec;
}

BinSpec BinSpec::logCount(double min, double max, AngleUnit unit, int count) {
    BinSpec spec = logPerDecade(min, max, unit, 0.0);
    spec.count = count;
    return spec;
}

BinSpec BinSpec::linearCount(double min, double max, AngleUnit unit, int count) {
    BinSpec spec = logCount(min, max, unit, count);
    spec.scale = BinScale::Linear;
    return spec;
}

BinSpec BinSpec::linearWidth(double min, double max, AngleUnit unit, double width) {
    BinSpec spec = linearCount(min, max, unit, 0);
    spec.width = width;
    return spec;
}

BinSpec BinSpec::fromEdges(std::vector<double> edges, AngleUnit unit) {
    BinSpec spec = linearCount(0.0, 0.0, unit, 0);
    spec.scale = BinScale::Custom;
    if (!edges.empty()) {
        spec.min = edges.front();
        spec.max = edges.back();
    }
    spec.edges = std::move(edges);
    return spec;
}

BinSpec BinSpec::preset(std::string_view name) {
    if (name == "quarter-degree")
        return linearWidth(0.0, 90.0, AngleUnit::Degree, 0.25);
    if (name == "log5")
        return logPerDecade(0.01, 10000.0, AngleUnit::Arcminute, 5.0);
    std::string known;
    for (const std::string& preset : presetNames())
        known += (known.empty() ? "" : ", ") + preset;
    throw ConfigError("unknown bin preset '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> BinSpec::presetNames() {
    return {"quarter-degree", "log5"};
}

std::string BinSpec::describe() const {
    if (scale == BinScale::Custom) {
        // Appended piecewise: GCC 12 warns (-Wrestrict, a false alarm) on chained operator+.
        std::string text = "custom, ";
        text.append(std::to_string(edges.size()));
        text.append(" edges");
        if (!edges.empty()) {
            text.append(" ");
            text.append(detail::formatDouble(edges.front()));
            text.append("-");
            text.append(detail::formatDouble(edges.back()));
            text.append(" ");
            text.append(angleUnitName(unit));
        }
        return text;
    }
    const bool log = scale == BinScale::Logarithmic;
    std::string text = std::string(log ? "log" : "linear") + ", " + detail::formatDouble(min) + "-" +
                       detail::formatDouble(max) + " " + std::string(angleUnitName(unit)) + ", ";
    if (perDecade > 0)
        text += detail::formatDouble(perDecade) + " per decade";
    else if (width > 0)
        text += "width " + detail::formatDouble(width);
    else
        text += std::to_string(count) + " bins";
    return text;
}

Binning::Binning(const BinSpec& spec) : m_spec(spec) {
    validate(spec);
    const bool log = spec.scale == BinScale::Logarithmic;
    const bool custom = spec.scale == BinScale::Custom;
    if (custom) {
        // The edges decide; the fields of the other scales say nothing here.
        m_spec.min = spec.edges.front();
        m_spec.max = spec.edges.back();
        m_spec.perDecade = 0;
        m_spec.count = 0;
        m_spec.width = 0;
    }

    std::size_t count = 0;
    if (custom)
        count = spec.edges.size() - 1;
    else if (spec.count > 0)
        count = static_cast<std::size_t>(spec.count);
    else if (spec.perDecade > 0)
        count = derivedCount(std::log10(spec.max / spec.min) * spec.perDecade,
                             detail::formatDouble(spec.perDecade) + " per decade");
    else
        count = derivedCount((spec.max - spec.min) / spec.width,
                             "width " + withUnit(spec.width, spec.unit));

    m_edges.resize(count + 1);
    for (std::size_t k = 0; k < count && !custom; ++k) {
        const double kd = static_cast<double>(k);
        if (log && spec.perDecade > 0)
            m_edges[k] = spec.min * std::pow(10.0, kd / spec.perDecade);
        else if (log)
            m_edges[k] = spec.min * std::pow(spec.max / spec.min, kd / static_cast<double>(count));
        else if (spec.width > 0)
            m_edges[k] = spec.min + kd * spec.width;
        else
            m_edges[k] = spec.min + (spec.max - spec.min) * kd / static_cast<double>(count);
    }
    // Exact, so that the outer bound users typed is the one pairs are compared against.
    m_edges[count] = spec.max;
    if (custom)
        m_edges = spec.edges; // exactly as given

    m_edgesRadians.resize(count + 1);
    m_chord2Edges.resize(count + 1);
    for (std::size_t k = 0; k <= count; ++k) {
        m_edgesRadians[k] = toRadians(m_edges[k], spec.unit);
        m_chord2Edges[k] = chord2OfAngle(m_edgesRadians[k]);
    }
    // The last bin is closed at 180° (bins.h: kChord2BeyondHalfTurn).
    if (m_edges[count] >= halfTurnIn(spec.unit))
        m_chord2Edges[count] = kChord2BeyondHalfTurn;
    // Near 180° c² flattens out; bins narrower than its resolution could not be told apart.
    for (std::size_t k = 0; k < count; ++k)
        if (!(m_chord2Edges[k] < m_chord2Edges[k + 1]))
            throw ConfigError("bins: edges " + withUnit(m_edges[k], spec.unit) + " and " +
                              withUnit(m_edges[k + 1], spec.unit) +
                              " are too close to be told apart in double precision");

    m_centres.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
        // Custom bins: geometric like log bins, except that a bin from 0 has no geometric centre.
        const bool geometric = log || (custom && m_edges[k] > 0);
        m_centres[k] = geometric ? std::sqrt(m_edges[k] * m_edges[k + 1])
                                 : 0.5 * (m_edges[k] + m_edges[k + 1]);
    }
}

int Binning::binOfChord2(double c2) const noexcept {
    // upper_bound puts a value equal to an edge in the bin above it, as edge_k <= θ requires.
    const auto above = std::upper_bound(m_chord2Edges.begin(), m_chord2Edges.end(), c2);
    if (above == m_chord2Edges.begin() || above == m_chord2Edges.end())
        return -1;
    return static_cast<int>(above - m_chord2Edges.begin()) - 1;
}

double chord2OfAngle(double radians) noexcept {
    double s = std::sin(0.5 * radians);
    return 4.0 * s * s;
}

} // namespace tpacf

namespace tpacf {

std::vector<double> parseBinEdgesText(std::string_view text, const std::string& sourceName,
                                      std::optional<AngleUnit> unit) {
    std::vector<double> edges;
    std::size_t rowWidth = 0; // 1: one edge per line, 2: "lo hi" rows
    long rowWidthLine = 0;
    long lineNumber = 0;
    // A text editor may have put a UTF-8 byte-order mark in front.
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);

    // Each new edge: >= 0, above the one before, within the half turn when the unit is known.
    auto append = [&](double edge) {
        if (edge < 0)
            throw InputError(sourceName, lineNumber, 0,
                             "edge " + detail::formatDouble(edge) + " is negative; angles start at 0");
        if (!edges.empty() && !(edge > edges.back()))
            throw InputError(sourceName, lineNumber, 0,
                             "edge " + detail::formatDouble(edge) + " is not greater than the edge before it (" +
                                 detail::formatDouble(edges.back()) + "); edges must be strictly increasing");
        if (unit && edge > halfTurnIn(*unit))
            throw InputError(sourceName, lineNumber, 0,
                             "edge " + withUnit(edge, *unit) +
                                 " is beyond 180 deg, the largest separation on the sphere");
        if (edges.size() > kMaxBinCount)
            throw InputError(sourceName, lineNumber, 0,
                             "more than " + std::to_string(kMaxBinCount + 1) + " edges: at most " +
                                 std::to_string(kMaxBinCount) + " bins are allowed");
        edges.push_back(edge);
    };

    while (!text.empty()) {
        ++lineNumber;
        const std::size_t newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);

        std::vector<std::string_view> fields;
        std::size_t at = 0;
        while (at < line.size()) {
            while (at < line.size() && isFieldSeparator(line[at]))
                ++at;
            const std::size_t start = at;
            while (at < line.size() && !isFieldSeparator(line[at]))
                ++at;
            if (at > start)
                fields.push_back(line.substr(start, at - start));
        }
        if (fields.empty())
            continue;
        if (fields.size() > 2)
            throw InputError(sourceName, lineNumber, 0,
                             std::to_string(fields.size()) +
                                 " numbers; expected one edge per line, or \"lo hi\" per line");
        if (rowWidth == 0) {
            rowWidth = fields.size();
            rowWidthLine = lineNumber;
        } else if (fields.size() != rowWidth) {
            throw InputError(sourceName, lineNumber, 0,
                             std::to_string(fields.size()) +
                                 (fields.size() == 1 ? " number" : " numbers") + " but line " +
                                 std::to_string(rowWidthLine) + " has " + std::to_string(rowWidth) +
                                 "; give one edge on every line, or \"lo hi\" on every line");
        }

        if (rowWidth == 1) {
            append(edgeNumber(fields[0], sourceName, lineNumber));
            continue;
        }
        const double lo = edgeNumber(fields[0], sourceName, lineNumber);
        const double hi = edgeNumber(fields[1], sourceName, lineNumber);
        if (!(lo < hi))
            throw InputError(sourceName, lineNumber, 0,
                             "lo " + detail::formatDouble(lo) + " is not below hi " + detail::formatDouble(hi));
        if (edges.empty())
            append(lo);
        else if (lo != edges.back())
            throw InputError(sourceName, lineNumber, 0,
                             "lo " + detail::formatDouble(lo) + " is not the previous row's hi " +
                                 detail::formatDouble(edges.back()) + " (rows must be contiguous)");
        append(hi);
    }
    if (edges.size() < 2)
        throw InputError(sourceName, 0, 0,
                         std::to_string(edges.size()) + (edges.size() == 1 ? " edge" : " edges") +
                             "; at least 2 are needed");
    return edges;
}

} // namespace tpacf
