#include "tpacf/bins.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace tpacf {

namespace {

// Shortest text that reads back as the same double, so messages quote exactly what was given.
std::string number(double value) {
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    if (ec != std::errc())
        return std::to_string(value);
    return std::string(buffer, end);
}

std::string withUnit(double value, AngleUnit unit) {
    return number(value) + " " + std::string(angleUnitName(unit));
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
        throw ConfigError("bins: " + what + " gives " + number(rounded) + " bins, more than the " +
                          std::to_string(kMaxBinCount) + " allowed");
    return rounded < 1.0 ? 1 : static_cast<std::size_t>(rounded);
}

void validate(const BinSpec& spec) {
    const bool log = spec.scale == BinScale::Logarithmic;
    const std::string unit(angleUnitName(spec.unit));
    auto finite = [](double v, const char* name) {
        if (!std::isfinite(v))
            throw ConfigError(std::string("bins: ") + name + " " + number(v) + " is not finite");
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
        throw ConfigError("bins: bins per decade must be > 0, got " + number(spec.perDecade));
    if (spec.width < 0)
        throw ConfigError("bins: width must be > 0, got " + withUnit(spec.width, spec.unit));
    if (spec.count < 0)
        throw ConfigError("bins: count must be > 0, got " + std::to_string(spec.count));
    if (!log && spec.perDecade > 0)
        throw ConfigError("bins: bins per decade (" + number(spec.perDecade) +
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

} // namespace

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
    const bool log = scale == BinScale::Logarithmic;
    std::string text = std::string(log ? "log" : "linear") + ", " + number(min) + "-" +
                       number(max) + " " + std::string(angleUnitName(unit)) + ", ";
    if (perDecade > 0)
        text += number(perDecade) + " per decade";
    else if (width > 0)
        text += "width " + number(width);
    else
        text += std::to_string(count) + " bins";
    return text;
}

Binning::Binning(const BinSpec& spec) : m_spec(spec) {
    validate(spec);
    const bool log = spec.scale == BinScale::Logarithmic;

    std::size_t count = 0;
    if (spec.count > 0)
        count = static_cast<std::size_t>(spec.count);
    else if (spec.perDecade > 0)
        count = derivedCount(std::log10(spec.max / spec.min) * spec.perDecade,
                             number(spec.perDecade) + " per decade");
    else
        count = derivedCount((spec.max - spec.min) / spec.width,
                             "width " + withUnit(spec.width, spec.unit));

    m_edges.resize(count + 1);
    for (std::size_t k = 0; k < count; ++k) {
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

    m_edgesRadians.resize(count + 1);
    m_chord2Edges.resize(count + 1);
    for (std::size_t k = 0; k <= count; ++k) {
        m_edgesRadians[k] = toRadians(m_edges[k], spec.unit);
        m_chord2Edges[k] = chord2OfAngle(m_edgesRadians[k]);
    }
    // Near 180° c² flattens out; bins narrower than its resolution could not be told apart.
    for (std::size_t k = 0; k < count; ++k)
        if (!(m_chord2Edges[k] < m_chord2Edges[k + 1]))
            throw ConfigError("bins: edges " + withUnit(m_edges[k], spec.unit) + " and " +
                              withUnit(m_edges[k + 1], spec.unit) +
                              " are too close to be told apart in double precision");

    m_centres.resize(count);
    for (std::size_t k = 0; k < count; ++k)
        m_centres[k] =
            log ? std::sqrt(m_edges[k] * m_edges[k + 1]) : 0.5 * (m_edges[k] + m_edges[k + 1]);
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
