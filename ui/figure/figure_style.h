// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How an exported figure looks: its printed size (journal presets), fonts, legend placement,
// title, axes, markers and error bars, the θ unit and the PNG resolution. One value type, saved
// in the session and read by `tpacf run --plot-style style.json`; no science here.
#include <tpacf/units.h>

#include <QJsonObject>
#include <QString>

#include <limits>
#include <optional>

namespace tpacf::ui {

struct FigureStyle {
    enum class Preset { Screen, SingleColumn, DoubleColumn, Custom };
    /// Auto: inside the axes, in the corner where the legend hides no point, error bar or fitted
    /// curve; outside (below the axes) when every corner would hide some.
    enum class Legend { Auto, Outside, Off };
    /// Auto: log for logarithmic bins on x; y as the plot shows it (log y for log bins).
    enum class Scale { Auto, Linear, Log };
    enum class Marker { Disc, Circle, Square, Triangle, Diamond, Cross, Plus };

    struct Axis {
        Scale scale = Scale::Auto;
        /// NaN: fitted to the data.
        double min = std::numeric_limits<double>::quiet_NaN();
        double max = std::numeric_limits<double>::quiet_NaN();
        bool hasRange() const;
        bool operator==(const Axis& other) const;
    };

    // Limits of what a style may ask for (the dialog's and the JSON's).
    static constexpr double kMinInches = 1.0, kMaxInches = 40.0;
    static constexpr double kMinFontPt = 4.0, kMaxFontPt = 48.0;
    static constexpr int kMinDpi = 50, kMaxDpi = 2400;
    static constexpr double kMaxMarkerPt = 30.0, kMaxLinePt = 10.0;

    Preset preset = Preset::Screen; // where the size and fonts came from (Custom once changed)
    double widthIn = 6.0;
    double heightIn = 4.0;
    QString fontFamily; // empty: the application's font
    double fontPt = 9.0;
    int dpi = 300; // PNG only: pixels = inches × dpi
    Legend legend = Legend::Auto;
    bool title = false; // the plot's title line (file name, N): off for a paper
    Axis x, y;
    Marker marker = Marker::Disc;
    double markerPt = 5.0;              // marker diameter
    double errorBarPt = 0.75;           // error-bar line width
    double errorCapPt = 4.0;            // width of the caps at the bar ends (0: none)
    std::optional<AngleUnit> thetaUnit; // none: the bins' unit
    /// Points at the mean separation ⟨θ⟩ of each bin's DD pairs (a result counted with
    /// --mean-theta; bins without DD pairs, and results without means, keep the bin centre).
    bool pointsAtMeanTheta = false;

    /// A preset's size and fonts (everything else at its default).
    static FigureStyle fromPreset(Preset preset);
    /// Sets size and fonts from `preset`, keeping every other field.
    void applyPreset(Preset preset);

    /// Pixels a PNG of this style has: inches × dpi, rounded.
    int widthPx() const;
    int heightPx() const;

    /// "" when every field is within its limits; else what is wrong, naming the field as the
    /// JSON does ("x.min must be below x.max").
    QString problem() const;

    QJsonObject toJson() const;
    /// Reads what toJson() writes. Missing fields keep the defaults (of "preset" where given);
    /// an unknown field, a value of the wrong type or out of range is an error: nullopt with
    /// `error` naming the field. Strict, so that a typo in a style file is not silently ignored.
    static std::optional<FigureStyle> fromJson(const QJsonObject& object, QString* error);

    bool operator==(const FigureStyle& other) const;
};

QString presetKey(FigureStyle::Preset preset);
/// The name the export dialog shows ("Single column (3.5 in)").
QString presetName(FigureStyle::Preset preset);

/// A style file: the JSON of toJson() with a format tag. Errors name the file and, for JSON
/// syntax, the line and column.
std::optional<FigureStyle> loadFigureStyleFile(const QString& path, QString* error);
bool saveFigureStyleFile(const QString& path, const FigureStyle& style, QString* error);

} // namespace tpacf::ui
