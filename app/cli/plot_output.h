// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf run --plot FILE: the app's w(theta) figure, drawn offscreen with the GUI's own plot code.
// Only a build with the GUI (Qt, QCustomPlot) draws; a headless build says so before any work.
#include <memory>
#include <string>

namespace tpacf {
struct CorrelationResult;
}

namespace tpacf::cli {

/// Whether this build writes plots (built with TPACF_GUI=ON).
bool plotsAvailable();

/// One --plot FILE. The constructor checks everything that can fail before the count: a build
/// without Qt, a suffix other than .png or .pdf, a folder that is missing or not writable
/// (UsageError or InputError, exit 2); then starts the Qt application the figure is drawn in,
/// on the "offscreen" platform unless QT_QPA_PLATFORM names another.
class PlotOutput {
public:
    explicit PlotOutput(std::string path);
    ~PlotOutput();
    PlotOutput(const PlotOutput&) = delete;
    PlotOutput& operator=(const PlotOutput&) = delete;

    /// Writes the figure at the app's default export size (PNG 1800 x 1200 px at 300 dpi, PDF
    /// 6 x 4 inches); throws InputError naming the file when it cannot.
    void write(const CorrelationResult& result) const;
    const std::string& path() const { return m_path; }

private:
    struct Gui;
    std::string m_path;
    std::unique_ptr<Gui> m_gui;
};

} // namespace tpacf::cli
