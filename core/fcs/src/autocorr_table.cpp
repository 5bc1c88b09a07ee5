// SPDX-License-Identifier: GPL-3.0-or-later
// The multi-tau result as ECSV (the header machinery of the w(theta) tables, io/table.h): long
// form, one row per channel and lag, then the mean of G over the channels.
#include "tpacf/fcs_io.h"

#include "io/result_text.h"
#include "io/table.h"
#include "tpacf/version.h"

#include <ostream>
#include <string>

namespace tpacf::fcs {

std::vector<std::string> autocorrelationColumns() {
    return {"channel", "level", "j", "tau_frames", "tau_s", "A", "G"};
}

void writeAutocorrelationEcsv(std::ostream& out, const MultiTauCounts& counts,
                              const AutocorrelationInfo& info) {
    const MultiTauSettings& settings = counts.settings;
    const std::vector<Lag> lags = lagsOf(settings);

    io::Metadata meta;
    meta.emplace_back("tool", std::string(io::kToolName) + " " + std::string(version()));
    meta.emplace_back("created", io::utcTimestamp());
    if (!info.invocation.empty())
        meta.emplace_back("command", io::oneLine(info.invocation));
    meta.emplace_back("status", info.completed ? "completed"
                                               : "stopped early: the counts of the frames so far");
    meta.emplace_back("analysis", "multi-tau autocorrelation of photon counts (FCS)");
    if (!info.input.empty())
        meta.emplace_back("input", io::oneLine(info.input));
    meta.emplace_back("channels", std::to_string(counts.channels));
    meta.emplace_back("frames", std::to_string(counts.frames));
    meta.emplace_back("frame time", io::formatDouble(info.frameSeconds) + " s");
    meta.emplace_back("lags per level", std::to_string(settings.lagsPerLevel));
    meta.emplace_back("levels", std::to_string(settings.levels));
    meta.emplace_back("lags", std::to_string(lags.size()));
    // M_k, one list entry per level.
    for (const std::uint64_t m : counts.samples)
        meta.emplace_back("samples per level", std::to_string(m));
    meta.emplace_back("backend", io::oneLine(info.backend));
    meta.emplace_back("device", io::oneLine(info.device));
    meta.emplace_back("elapsed", io::formatDouble(info.elapsedSeconds) + " s");
    for (const auto& [key, value] : info.extra)
        meta.emplace_back(key, io::oneLine(value));

    const std::vector<std::string> conventions = {
        "level 0 correlates the frames y[n] at lags j = 0 .. P-1; level k >= 1 the coalesced "
        "series y_k[m] = sum_{i < 2^k} y[m 2^k + i] at lags j = P/2 .. P-1; tau_frames = j 2^k, "
        "tau_s = tau_frames x frame time",
        "A = sum_{m=j}^{M_k-1} y_k[m] y_k[m-j] over the M_k complete samples of level k (exact "
        "integer, modulo 2^64); S_k = sum_m y_k[m]",
        "G = [A / (M_k - j)] / (S_k / M_k)^2 - 1; nan where M_k <= j or the channel has no "
        "photons (docs/fcs-multitau.md)",
        "channel: the channel index (0-based), or 'mean' for the mean of G over the channels "
        "where G is defined; A is empty (missing) in the mean rows",
    };
    const std::vector<io::EcsvColumn> columns = {
        {"channel", "", "string"}, {"level", "", "int64"}, {"j", "", "int64"},
        {"tau_frames", "", "uint64"}, {"tau_s", "s", "float64"}, {"A", "", "uint64"},
        {"G", "", "float64"}};
    io::writeEcsvHeader(out, columns, meta, conventions);
    const std::vector<std::string> names = autocorrelationColumns();
    for (std::size_t c = 0; c < names.size(); ++c)
        out << (c ? "," : "") << names[c];
    out << '\n';

    std::string line;
    const auto lagFields = [&](const Lag& lag) {
        line += ',' + std::to_string(lag.level) + ',' + std::to_string(lag.j) + ',' +
                std::to_string(lag.tauFrames) + ',' +
                io::formatDouble(static_cast<double>(lag.tauFrames) * info.frameSeconds) + ',';
    };
    for (std::size_t channel = 0; channel < counts.channels; ++channel) {
        const std::string name = std::to_string(channel);
        for (const Lag& lag : lags) {
            line = name;
            lagFields(lag);
            line += std::to_string(counts.product(channel, lag.level, lag.j)) + ',' +
                    io::formatDouble(counts.g(channel, lag.level, lag.j)) + '\n';
            out << line;
        }
    }
    for (const Lag& lag : lags) {
        line = "mean";
        lagFields(lag);
        line += ',' + io::formatDouble(counts.meanG(lag.level, lag.j)) + '\n';
        out << line;
    }
}

} // namespace tpacf::fcs
