// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf run --plot FILE [--plot-style style.json]: the app's w(theta) figure, drawn offscreen by
// the figure library Studio's Plots panel draws with (tpacf_figure, ui/figure/) in its figure
// style. Only a build with Qt and QCustomPlot (TPACF_CLI_PLOT) draws; a headless build says so
// before any work.
#include <memory>
#include <optional>
#include <string>

namespace tpacf {
struct CorrelationResult;
struct PowerLawFit;
struct PowerLawFitOptions;
} // namespace tpacf

namespace tpacf::cli {

/// Whether this build writes plots (built with TPACF_GUI=ON).
bool plotsAvailable();
/// Whether this build writes SVG figures (the GUI built with Qt Svg).
bool svgPlotsAvailable();

/// One --plot FILE. The constructor checks everything that can fail before the count: a build
/// without Qt, a suffix other than .png, .pdf or .svg (where built in), a folder that is missing
/// or not writable, a --plot-style file that cannot be read or is not a valid style (naming the
/// file and the field; UsageError or InputError, exit 2); then starts the Qt application the
/// figure is drawn in, on the "offscreen" platform unless QT_QPA_PLATFORM names another.
class PlotOutput {
public:
    explicit PlotOutput(std::string path, std::optional<std::string> stylePath = std::nullopt);
    ~PlotOutput();
    PlotOutput(const PlotOutput&) = delete;
    PlotOutput& operator=(const PlotOutput&) = delete;

    /// Writes the figure with the style (by default the app's: 6 x 4 in, PNG at 300 dpi, no
    /// title, the legend clear of the data), with the fitted curve where `fit` is given; throws
    /// InputError naming the file when it cannot.
    void write(const CorrelationResult& result, const PowerLawFit* fit = nullptr,
               const PowerLawFitOptions* fitOptions = nullptr) const;
    const std::string& path() const { return m_path; }

private:
    struct Gui;
    std::string m_path;
    std::unique_ptr<Gui> m_gui;
};

} // namespace tpacf::cli
