// SPDX-License-Identifier: GPL-3.0-or-later
// What `tpacf run` prints on the terminal: the summary of the result, --timings and the fit.
#include "cli/run_report.h"

#include "cli/options.h"
#include "cli/output.h"
#include "tpacf/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>

namespace tpacf::cli {

namespace {

/// A number of the summary table, "nan" where it has none.
std::string formatValue(double value, const char* format) {
    char text[32];
    std::snprintf(text, sizeof text, format, std::isfinite(value) ? value : 0.0);
    if (std::isfinite(value))
        return text;
    // The same width, for the columns to line up.
    std::string nan = "nan";
    const std::size_t width = std::string_view(text).size();
    return width > nan.size() ? std::string(width - nan.size(), ' ') + nan : nan;
}

/// "20 regions, k-means (seed 1), 18-23 data points each".
std::string describeRegions(const JackknifeRegionsSummary& regions) {
    std::string text = std::to_string(regions.count) + " regions";
    if (!regions.method.empty())
        text += ", " + regions.method;
    const auto& perRegion = regions.dataPerRegion;
    if (!perRegion.empty()) {
        const auto [low, high] = std::minmax_element(perRegion.begin(), perRegion.end());
        text += ", ";
        text += std::to_string(*low);
        if (*high != *low) {
            text += '-';
            text += std::to_string(*high);
        }
        text += " data points each";
    }
    return text;
}


} // namespace

void printSummary(std::ostream& out, const CorrelationResult& result, const RunFiles& files) {
    out << "w(theta) written to " << files.table << '\n';
    static constexpr std::pair<std::string RunFiles::*, const char*> kOthers[] = {
        {&RunFiles::json, "JSON"},
        {&RunFiles::covariance, "covariance"},
        {&RunFiles::samples, "jackknife samples"},
        {&RunFiles::plot, "plot"},
    };
    for (const auto& [member, what] : kOthers)
        if (!(files.*member).empty())
            out << what << " written to " << files.*member << '\n';
    const auto weights = [](const InputSummary& input) {
        if (!input.weighted)
            return std::string();
        std::string text = ", sum w " + formatValue(input.weightSum, "%.6g");
        if (input.negativeWeights > 0)
            text += ", " + std::to_string(input.negativeWeights) + " negative";
        return text;
    };
    const auto inputs = [&](const char* label, const InputSummary& data,
                            const std::vector<InputSummary>& randoms) {
        // Every catalog with how it was read: a misread column shows here first.
        const auto readAs = [&](const InputSummary& input) {
            if (input.origin.known())
                out << "              read as " << input.origin.describe() << '\n';
        };
        out << "  " << label << data.name << " (" << data.size << " points" << weights(data)
            << ")\n";
        readAs(data);
        for (std::size_t i = 0; i < randoms.size(); ++i) {
            out << (i == 0 ? "  randoms   " : "            ") << randoms[i].name << " ("
                << randoms[i].size << " points" << weights(randoms[i]) << ")\n";
            readAs(randoms[i]);
        }
    };
    inputs(result.isCross() ? "data 1    " : "data      ", result.data, result.randoms);
    if (result.isCross())
        inputs("data 2    ", result.data2, result.randoms2);
    out << "  bins      " << describeBins(result.bins, result.binCount()) << '\n';
    out << "  estimator " << estimatorName(result.estimator)
        << (result.isCross() ? " (two samples: " : " (") << estimatorFormula(result.estimator, result.isCross())
        << ")" << (result.isWeighted() ? ", weighted" : "") << '\n';
    out << "  backend   " << result.backendName << ", " << result.deviceDescription << ", "
        << precisionName(result.precision) << " precision, culling "
        << (result.culled ? "on" : "off") << ", " << formatSeconds(result.elapsedSeconds) << '\n';
    if (result.precisionChoice.starts_with("auto: "))
        out << "  precision " << result.precisionChoice << '\n';
    if (!result.deviceChoice.empty())
        out << "  devices   " << result.deviceChoice << '\n';
    const bool errors = result.hasJackknife();
    if (errors)
        out << "  jackknife " << describeRegions(result.jackknifeRegions) << '\n';

    // Bins without random pairs carry no estimate; leave them to the CSV. The raw counts, as
    // users check them; w comes from the weighted sums in a weighted run.
    const auto dr = result.drSummed();
    const auto rr = result.rrSummed();
    const bool cross = result.isCross();
    char line[192];
    std::snprintf(line, sizeof line, "  %14s %14s %14s %14s %12s%s\n",
                  ("theta[" + std::string(angleUnitName(result.bins.unit)) + "]").c_str(),
                  cross ? "D1D2" : "DD", cross ? "D1R2" : "DR", cross ? "R1R2" : "RR", "w",
                  errors ? " +/- sigma" : "");
    out << line;
    for (std::size_t k = 0; k < result.binCount(); ++k) {
        if (rr[k] == 0 && result.raw.dd[k] == 0)
            continue;
        std::string w = formatValue(result.w[k], "%12.5g");
        if (errors && k < result.wError.size())
            w += " +/- " + formatValue(result.wError[k], "%.3g");
        std::snprintf(line, sizeof line, "  %14.6g %14llu %14llu %14llu %s\n", result.centres[k],
                      static_cast<unsigned long long>(result.raw.dd[k]),
                      static_cast<unsigned long long>(dr[k]),
                      static_cast<unsigned long long>(rr[k]), w.c_str());
        out << line;
    }
}

// --timings: where the wall time of the command went, stage by stage, on stderr.
void printTimings(std::ostream& err, const std::vector<CatalogRequest>& requests,
                  const LoadedCatalogs& loaded, const CorrelationResult& result,
                  const RunTimings& timings) {
    char line[256];
    const auto print = [&](const char* indent, const std::string& what, double seconds,
                           const char* note = "") {
        std::snprintf(line, sizeof line, "%s%-28s %8.3f%s\n", indent, what.c_str(), seconds, note);
        err << line;
    };
    err << "timings (seconds):\n";
    // What precedes the reading is on the path of every run: the GPU driver cannot start
    // before the GPUs are chosen.
    print("  ", "before the reading", timings.beforeReadingSeconds, "  (checks, files, GPUs)");
    if (timings.countFileSeconds >= 0)
        print("    ", "read --reuse-counts file", timings.countFileSeconds);
    print("    ", "GPUs chosen and reserved", timings.deviceChoiceSeconds);
    print("  ", "read catalogs", loaded.readingSeconds, "  (files side by side)");
    for (std::size_t i = 0; i < requests.size(); ++i)
        print("    ", requests[i].path, loaded.readSeconds[i]);
    print("  ", "backend check and start", loaded.backendSeconds, "  (beside the reading)");
    print("  ", "job", result.elapsedSeconds);
    for (const auto& [stage, seconds] : result.stageSeconds)
        print("    ", stage, seconds);
    print("  ", "write outputs", timings.writeSeconds);
    print("  ", "total", timings.totalSeconds);
}

void printFit(std::ostream& err, const PowerLawFit& fit, const CorrelationResult& result) {
    err << "power-law fit w = A theta^(1-gamma) (theta in " << angleUnitName(result.bins.unit)
        << ", " << fit.bins.size() << " bins, " << fitWeightingName(fit.weighting)
        << "): A = " << fit.amplitude << " +/- " << fit.amplitudeError
        << ", gamma = " << fit.gamma << " +/- " << fit.gammaError
        << ", chi2/dof = " << fit.chi2 << "/" << fit.dof << '\n';
    for (const auto& note : fit.notes)
        printNotice(err, "fit: " + note);
}

} // namespace tpacf::cli
