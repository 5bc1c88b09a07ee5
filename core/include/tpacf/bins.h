// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Angular bins: the user's specification (BinSpec) and its validated form (Binning)
// with edges, centres and the squared-chord thresholds every backend compares against.
#include "tpacf/units.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

/// Custom: the edges are given one by one (BinSpec::edges), e.g. from a Corrfunc bin file.
enum class BinScale { Logarithmic, Linear, Custom };

/// "log", "linear" or "custom": the key result files and sessions write.
std::string_view binScaleKey(BinScale scale) noexcept;
/// The scale a binScaleKey() names; nullopt for any other text.
std::optional<BinScale> parseBinScaleKey(std::string_view key) noexcept;

/// Largest number of bins a Binning accepts.
inline constexpr std::size_t kMaxBinCount = 10000;

/// What the user asked for. Log and linear: exactly one of perDecade (log only), count, width
/// (linear only) is > 0. Custom: `edges` lists every edge and min/max are its first and last
/// (perDecade, count and width are unused). min/max/width/edges are in `unit`.
struct BinSpec {
    BinScale scale = BinScale::Logarithmic;
    AngleUnit unit = AngleUnit::Arcminute;
    double min = 0.01;
    double max = 10000.0;
    double perDecade = 5.0;
    int count = 0;
    double width = 0.0;
    std::vector<double> edges; // Custom only; ignored by the other scales

    static BinSpec logPerDecade(double min, double max, AngleUnit unit, double perDecade);
    static BinSpec logCount(double min, double max, AngleUnit unit, int count);
    static BinSpec linearCount(double min, double max, AngleUnit unit, int count);
    static BinSpec linearWidth(double min, double max, AngleUnit unit, double width);
    /// Custom bins with exactly these edges (validated by Binning); min/max are set to the first
    /// and last edge.
    static BinSpec fromEdges(std::vector<double> edges, AngleUnit unit);

    /// Named presets: "quarter-degree" (linear 0–90°, 0.25° wide) and "log5"
    /// (5 per decade, 0.01′–10000′). Throws ConfigError for an unknown name.
    static BinSpec preset(std::string_view name);
    static std::vector<std::string> presetNames();

    /// One line for people and CSV metadata, e.g. "log, 0.01-10000 arcmin, 5 per decade" or
    /// "custom, 4 edges 0.1-3 arcmin".
    std::string describe() const;
};

/// A validated BinSpec. The constructor throws ConfigError with a message naming the bad value
/// (for custom edges: its 1-based position and value). Custom edges must be at least 2, finite,
/// strictly increasing, within [0, 180°] and give at most kMaxBinCount bins.
class Binning {
public:
    explicit Binning(const BinSpec& spec);

    const BinSpec& spec() const noexcept { return m_spec; }
    std::size_t count() const noexcept { return m_edges.size() - 1; }
    AngleUnit unit() const noexcept { return m_spec.unit; }

    /// count()+1 ascending edges in spec().unit; the last is exactly max. Custom edges are
    /// exactly (bit for bit) the ones given.
    std::span<const double> edges() const noexcept { return m_edges; }
    /// The same in radians.
    std::span<const double> edgesRadians() const noexcept { return m_edgesRadians; }
    /// The last edge in degrees: θ_max of the spatial-culling rule (chooseCulling).
    double maxDegrees() const noexcept {
        return fromRadians(m_edgesRadians.back(), AngleUnit::Degree);
    }
    /// Bin centres in spec().unit: geometric for log, arithmetic for linear; for custom bins
    /// geometric where the bin's lower edge is > 0 and arithmetic for a bin starting at 0.
    std::span<const double> centres() const noexcept { return m_centres; }
    /// Squared chord length 4 sin²(θ/2) of every edge, in double, ascending; a last edge at
    /// exactly 180° is kChord2BeyondHalfTurn (the last bin is closed there: see below).
    std::span<const double> chord2Edges() const noexcept { return m_chord2Edges; }

    /// Reference bin lookup: k with chord2Edges[k] ≤ c2 < chord2Edges[k+1], or -1 outside.
    int binOfChord2(double c2) const noexcept;

private:
    BinSpec m_spec;
    std::vector<double> m_edges, m_edgesRadians, m_centres, m_chord2Edges;
};

/// The c² threshold of a last edge at exactly 180°. No separation exceeds 180°, so a last bin
/// ending there is closed, [edge, 180°]: it takes every pair from its lower edge on, antipodal
/// pairs included, whose c² computed from coordinate differences rounds to just above 4
/// (4.0000000000000036 seen) or just below it. 4.0625 lies above any such rounding and is
/// exact in float too, so every backend and precision draws the line at the same place.
inline constexpr double kChord2BeyondHalfTurn = 4.0625;

/// Squared chord length of an angle in radians, 4 sin²(θ/2), in double.
double chord2OfAngle(double radians) noexcept;

/// Reads a bin-edges file's text: one edge per line, or "lo hi" per line as in Corrfunc's bin
/// file (each lo must equal the previous hi); '#' starts a comment, blank lines are skipped.
/// Returns the edges, checked to be finite, >= 0 and strictly increasing; with `unit` also
/// within 180°. Throws InputError naming `sourceName` and the line.
std::vector<double> parseBinEdgesText(std::string_view text, const std::string& sourceName,
                                      std::optional<AngleUnit> unit = std::nullopt);

} // namespace tpacf
