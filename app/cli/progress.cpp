// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <ostream>
#include <utility>

namespace tpacf::cli {

namespace {
constexpr auto kFirstDrawAfter = std::chrono::milliseconds(500);
constexpr auto kRedrawEvery = std::chrono::milliseconds(125);
constexpr int kBarWidth = 28;
} // namespace

std::string formatRate(double perSecond) {
    static const char* const prefixes[] = {"", " k", " M", " G", " T", " P"};
    int index = 0;
    double value = perSecond;
    while (value >= 1000.0 && index < 5) {
        value /= 1000.0;
        ++index;
    }
    char text[32];
    std::snprintf(text, sizeof text,
                  value < 10    ? "%.2f%s"
                  : value < 100 ? "%.1f%s"
                                : "%.0f%s",
                  value, prefixes[index]);
    return text;
}

std::string formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e7)
        return "--:--";
    const auto total = static_cast<long>(std::lround(seconds));
    char text[32];
    if (total >= 3600)
        std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60,
                      total % 60);
    else
        std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
    return text;
}

std::string ProgressBar::render(const std::string& label, double fraction, double pairsPerSecond,
                                double etaSeconds, int width) {
    fraction = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
    const int filled = static_cast<int>(std::floor(fraction * width));
    std::string line = label + " [";
    line.append(static_cast<std::size_t>(filled), '#');
    line.append(static_cast<std::size_t>(width - filled), '.');
    char tail[96];
    std::snprintf(tail, sizeof tail, "] %5.1f%%  %s pairs/s  ETA %s", fraction * 100.0,
                  formatRate(pairsPerSecond).c_str(), formatDuration(etaSeconds).c_str());
    return line + tail;
}

std::string ProgressBar::renderLine(const std::string& stage, double fraction,
                                    double pairsPerSecond, double etaSeconds) {
    fraction = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
    char text[128];
    std::snprintf(text, sizeof text, "%s %.1f %%, %s pairs/s, ETA %s", stage.c_str(),
                  fraction * 100.0, formatRate(pairsPerSecond).c_str(),
                  formatDuration(etaSeconds).c_str());
    return text;
}

ProgressDisplay progressDisplay(bool terminal, bool quiet, double interval) {
    if (quiet)
        return {};
    if (terminal)
        return {true, 0};
    return {false, interval > 0 ? interval : 0};
}

ProgressBar::ProgressBar(std::ostream& out, bool enabled, std::string label)
    : m_out(out), m_enabled(enabled), m_label(std::move(label)),
      m_start(std::chrono::steady_clock::now()), m_lastDraw(m_start), m_lastLine(m_start) {}

ProgressBar::ProgressBar(std::ostream& out, ProgressDisplay display, std::string label)
    : ProgressBar(out, display.bar, std::move(label)) {
    m_lineInterval = display.bar ? 0 : display.lineInterval;
}

void ProgressBar::writeLine(const std::string& text) {
    // Local time to the second, as batch systems stamp their own lines.
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);
    m_out << stamp << " tpacf: " << text << '\n' << std::flush;
    m_linesWritten = true;
}

ProgressBar::~ProgressBar() {
    finish();
}

void ProgressBar::update(double fraction, std::uint64_t pairsDone, double pairsPerSecond,
                         bool preparing) {
    if (!m_enabled && m_lineInterval <= 0)
        return;
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    m_eta.observe(elapsed, fraction, preparing);
    if (!m_enabled) { // a log: a line every interval, the first after one interval
        if (std::chrono::duration<double>(now - m_lastLine).count() < m_lineInterval)
            return;
        if (pairsPerSecond <= 0 && elapsed > 0)
            pairsPerSecond = static_cast<double>(pairsDone) / elapsed;
        writeLine(renderLine(preparing ? "preparing" : m_label, fraction, pairsPerSecond,
                             m_eta.remainingSeconds()));
        m_lastLine = now;
        return;
    }
    if (now - m_start < kFirstDrawAfter || (m_drawn && now - m_lastDraw < kRedrawEvery))
        return;
    if (pairsPerSecond <= 0 && elapsed > 0)
        pairsPerSecond = static_cast<double>(pairsDone) / elapsed;
    const std::string line = render(preparing ? "preparing" : m_label, fraction, pairsPerSecond,
                                    m_eta.remainingSeconds(), kBarWidth);
    // Pad over the previous, possibly longer, line instead of relying on terminal escapes.
    const std::size_t pad = m_lastLength > line.size() ? m_lastLength - line.size() : 0;
    m_out << '\r' << line << std::string(pad, ' ') << std::flush;
    m_lastLength = line.size();
    m_lastDraw = now;
    m_drawn = true;
}

void ProgressBar::startStage(std::string label) {
    m_label = std::move(label);
    m_eta = EtaEstimator();
}

void ProgressBar::done() {
    if (m_linesWritten) {
        char text[96];
        std::snprintf(
            text, sizeof text, "%s done after %s", m_label.c_str(),
            formatDuration(std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start)
                               .count())
                .c_str());
        writeLine(text);
        m_linesWritten = false;
    }
    finish();
}

void ProgressBar::finish() {
    if (!m_drawn)
        return;
    m_out << '\r' << std::string(m_lastLength, ' ') << '\r' << std::flush;
    m_drawn = false;
    m_lastLength = 0;
}

} // namespace tpacf::cli
