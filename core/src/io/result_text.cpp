// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/result_text.h"

#include "tpacf/errors.h"
#include "tpacf/estimator.h"
#include "tpacf/result_io.h"
#include "tpacf/version.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <ostream>
#include <span>
#include <sstream>
#include <system_error>

namespace tpacf::io {

const char* const kToolName = "TPACF Studio";

// Every number goes through std::to_chars/std::to_string, never operator<< on a number: a
// stream imbued with a grouping locale would write 1,234 and break the CSV.

// Metadata values sit on one '#' line each; a name with a line break would end the comment.
std::string oneLine(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r')
            c = ' ';
    return text;
}


// UTC now as ISO 8601, from <chrono> calendar types (no gmtime: it is not thread-safe).
std::string utcTimestamp() {
    using namespace std::chrono;
    const auto now = floor<seconds>(system_clock::now());
    const auto day = floor<days>(now);
    const year_month_day date{day};
    const hh_mm_ss time{now - day};
    std::array<char, 32> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%04d-%02u-%02uT%02d:%02d:%02dZ",
                  static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                  static_cast<unsigned>(date.day()), static_cast<int>(time.hours().count()),
                  static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()));
    return buffer.data();
}

std::string thetaConvention(AngleUnit unit, BinScale scale) {
    return std::string("theta_lo, theta_hi, theta_mid in ") + std::string(angleUnitName(unit)) +
           "; theta_mid is the " +
           (scale == BinScale::Logarithmic ? "geometric"
            : scale == BinScale::Custom
                ? "geometric (for a bin starting at 0 the arithmetic)"
                : "arithmetic") +
           " centre of the bin; nan marks an undefined value";
}

const char* const kBinConvention =
    "a pair is in bin k when theta_lo <= theta < theta_hi; pairs are binned on the squared chord "
    "4 sin^2(theta/2) against the bin edges' squared chords computed in double; pairs outside "
    "the first and last edge are not counted";

std::string precisionConvention(Precision precision) {
    if (precision == Precision::Double)
        return "double precision: counts are exact (identical to the CPU reference)";
    return "float precision: coordinates as hi+lo float pairs; a count may differ from the double "
           "reference only through pairs within ~1e-6 (relative) of a bin edge";
}

// The lines both the result CSV and JSON carry, as (key, value).

// "name N=5000", with the weight sums of a weighted catalog: "name N=5000 sum_w=4812.3
// sum_w2=4790.1".
std::string describeInput(const InputSummary& input) {
    std::string text = oneLine(input.name) + " N=" + std::to_string(input.size);
    if (input.weighted) {
        text += " sum_w=" + formatDouble(input.weightSum) +
                " sum_w2=" + formatDouble(input.weightSquareSum);
        if (input.negativeWeights > 0)
            text += " negative_weights=" + std::to_string(input.negativeWeights);
    }
    // Provenance: how the file was read and what its content was.
    if (input.origin.known())
        text += "; read as " + oneLine(input.origin.describe());
    if (!input.fingerprint.empty())
        text += "; fingerprint " + input.fingerprint;
    return text;
}

namespace {

// A FITS keyword where it fits in 8 characters; "" otherwise (the value then has no keyword).
std::string keyword(std::string word) {
    return word.size() <= 8 ? word : std::string();
}

// One catalog's N, Σw (weighted jobs) and fingerprint: keys n_<role>, sum_w_<role>,
// fingerprint_<role>; keywords N_<tag>, SW_<tag>, FP_<tag>.
void addInput(TypedMetadata& typed, const InputSummary& input, const std::string& role,
              const std::string& tag, bool weighted) {
    typed.push_back(TypedValue::ofInteger("n_" + role, keyword("N_" + tag),
                                          static_cast<std::int64_t>(input.size)));
    if (weighted)
        typed.push_back(TypedValue::ofReal("sum_w_" + role, keyword("SW_" + tag), input.weightSum));
    if (!input.fingerprint.empty())
        typed.push_back(
            TypedValue::ofText("fingerprint_" + role, keyword("FP_" + tag), input.fingerprint));
}

// What a result and a count share: the bins, the kind of count and how it was counted. The
// ranks' count (MPI) and the time close the list.
struct CountFacts {
    std::size_t binCount;
    std::span<const double> edges;
    AngleUnit unit;
    bool cross, weighted;
    std::string_view backend;
    Precision precision;
    bool culled;
};

void addBinsAndCounting(TypedMetadata& typed, const CountFacts& facts) {
    typed.push_back(
        TypedValue::ofInteger("bin_count", "N_BINS", static_cast<std::int64_t>(facts.binCount)));
    if (!facts.edges.empty()) {
        typed.push_back(TypedValue::ofReal("theta_min", "TH_MIN", facts.edges.front()));
        typed.push_back(TypedValue::ofReal("theta_max", "TH_MAX", facts.edges.back()));
    }
    typed.push_back(TypedValue::ofText("theta_unit", "TH_UNIT", std::string(unitName(facts.unit))));
    typed.push_back(TypedValue::ofBoolean("cross", "IS_CROSS", facts.cross));
    typed.push_back(TypedValue::ofBoolean("weighted", "IS_WGHT", facts.weighted));
    typed.push_back(TypedValue::ofText("backend_name", "BACKEND_", oneLine(std::string(facts.backend))));
    typed.push_back(
        TypedValue::ofText("precision_name", "PREC_", std::string(precisionName(facts.precision))));
    typed.push_back(TypedValue::ofBoolean("culled", "IS_CULL", facts.culled));
}

void addRanksAndTime(TypedMetadata& typed, std::size_t ranks, double elapsedSeconds) {
    if (ranks > 0)
        typed.push_back(
            TypedValue::ofInteger("mpi_ranks", "N_RANKS", static_cast<std::int64_t>(ranks)));
    typed.push_back(TypedValue::ofReal("elapsed_s", "ELAPS_S", elapsedSeconds));
}

} // namespace

TypedMetadata resultTypedMetadata(const CorrelationResult& result) {
    TypedMetadata typed;
    typed.push_back(TypedValue::ofText("version", "TOOL_VER", std::string(version())));
    typed.push_back(TypedValue::ofBoolean("completed", "IS_DONE",
                                          result.status == JobStatus::Completed));
    const bool weighted = result.isWeighted();
    const bool cross = result.isCross();
    addInput(typed, result.data, cross ? "data1" : "data", cross ? "DATA1" : "DATA", weighted);
    for (std::size_t i = 0; i < result.randoms.size(); ++i)
        addInput(typed, result.randoms[i], "random_" + std::to_string(i + 1),
                 "RND" + std::to_string(i + 1), weighted);
    if (cross) {
        addInput(typed, result.data2, "data2", "DATA2", weighted);
        for (std::size_t i = 0; i < result.randoms2.size(); ++i)
            addInput(typed, result.randoms2[i], "random2_" + std::to_string(i + 1),
                     "R2_" + std::to_string(i + 1), weighted);
    }
    typed.push_back(TypedValue::ofInteger("random_sets", "N_RSETS",
                                          static_cast<std::int64_t>(result.randoms.size())));
    typed.push_back(TypedValue::ofText("estimator_name", "EST_NAME",
                                       std::string(estimatorName(result.estimator))));
    addBinsAndCounting(typed, {result.binCount(), result.edges, result.bins.unit, cross, weighted,
                               result.backendName, result.precision, result.culled});
    if (result.hasJackknife()) {
        typed.push_back(TypedValue::ofInteger(
            "jackknife_k", "JK_K", static_cast<std::int64_t>(result.jackknifeRegions.count)));
        if (result.hasBootstrap())
            typed.push_back(TypedValue::ofInteger(
                "bootstrap_b", "BOOT_B",
                static_cast<std::int64_t>(result.bootstrapSelections.size())));
        typed.push_back(
            TypedValue::ofText("cross_region_weight", "XREG_WT",
                               std::string(crossRegionWeightInfo(result.crossRegionWeight()).key)));
    }
    typed.push_back(
        TypedValue::ofBoolean("mean_theta", "MEANSEP", !result.meanSeparations.empty()));
    addRanksAndTime(typed, result.processes.size(), result.elapsedSeconds);
    return typed;
}

TypedMetadata countTypedMetadata(const CountSummary& summary) {
    TypedMetadata typed;
    typed.push_back(TypedValue::ofText("version", "TOOL_VER", std::string(version())));
    const bool weighted = !summary.weighted.empty();
    const bool cross = summary.second.has_value();
    addInput(typed, summary.first, cross ? "first" : "catalog", cross ? "FIRST" : "CAT", weighted);
    if (cross)
        addInput(typed, *summary.second, "second", "SECOND", weighted);
    addBinsAndCounting(typed, {summary.binning.count(), summary.binning.edges(),
                               summary.binning.unit(), cross, weighted, summary.backendName,
                               summary.precision, summary.culled});
    addRanksAndTime(typed, summary.processes.size(), summary.elapsedSeconds);
    return typed;
}

Metadata resultMetadata(const CorrelationResult& result) {
    Metadata lines;
    lines.emplace_back("tool", std::string(kToolName) + " " + std::string(version()));
    lines.emplace_back("created", utcTimestamp());
    if (!result.invocation.empty())
        lines.emplace_back("command", oneLine(result.invocation));
    if (!result.jobFilePath.empty()) {
        // The job file as it was, line by line (a list in ECSV, HISTORY cards in FITS).
        lines.emplace_back("job file", oneLine(result.jobFilePath));
        std::size_t start = 0;
        const std::string& text = result.jobFileText;
        while (start < text.size()) {
            std::size_t end = text.find('\n', start);
            if (end == std::string::npos)
                end = text.size();
            std::string line = text.substr(start, end - start);
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            if (line.find_first_not_of(" \t") != std::string::npos)
                lines.emplace_back("job file line", oneLine(line));
            start = end + 1;
        }
    }
    lines.emplace_back("status", result.status == JobStatus::Completed ? "completed" : "cancelled");
    if (result.isCross())
        lines.emplace_back("mode", "cross (D1 = " + oneLine(result.data.name) +
                                       ", D2 = " + oneLine(result.data2.name) + ")");
    else
        lines.emplace_back("mode", "auto");
    lines.emplace_back("weights", result.isWeighted()
                                      ? "weighted: counts are sums of w_i*w_j (catalogs "
                                        "without weights count 1 per point)"
                                      : "none");
    lines.emplace_back(result.isCross() ? "data 1" : "data", describeInput(result.data));
    for (std::size_t i = 0; i < result.randoms.size(); ++i)
        lines.emplace_back((result.isCross() ? "random 1." : "random ") + std::to_string(i + 1),
                           describeInput(result.randoms[i]));
    if (result.isCross()) {
        lines.emplace_back("data 2", describeInput(result.data2));
        for (std::size_t i = 0; i < result.randoms2.size(); ++i)
            lines.emplace_back("random 2." + std::to_string(i + 1),
                               describeInput(result.randoms2[i]));
        if (result.randoms2.empty())
            lines.emplace_back("random 2", "none: the second sample uses the first's randoms "
                                           "(RD = R1D2 against R1, RR = R1R1)");
    }
    lines.emplace_back("bins", result.bins.describe());
    lines.emplace_back("bin count", std::to_string(result.binCount()));
    lines.emplace_back("estimator",
                       std::string(estimatorName(result.estimator)) + ": " +
                           std::string(estimatorFormula(result.estimator, result.isCross())));
    lines.emplace_back("backend", oneLine(result.backendName));
    lines.emplace_back("device", oneLine(result.deviceDescription));
    lines.emplace_back("precision", std::string(precisionName(result.precision)));
    if (!result.precisionChoice.empty())
        lines.emplace_back("precision choice", oneLine(result.precisionChoice));
    lines.emplace_back("culling", describeCulling(result.cullingRequested, result.culled));
    lines.emplace_back("elapsed", formatDouble(result.elapsedSeconds) + " s");
    if (!result.processes.empty()) {
        lines.emplace_back("mpi ranks", std::to_string(result.processes.size()) +
                                            " (each counted a share of the work list; the counts "
                                            "are their sums)");
        for (const std::string& process : result.processes)
            lines.emplace_back("mpi rank", oneLine(process));
    }
    if (!result.backendNotice.empty())
        lines.emplace_back("notice", oneLine(result.backendNotice));
    for (const std::string& note : result.notes)
        lines.emplace_back("note", oneLine(note));
    for (const std::string& reused : result.reusedCounts)
        lines.emplace_back("reused", oneLine(reused));
    if (result.hasJackknife()) {
        lines.emplace_back("jackknife", std::to_string(result.jackknifeRegions.count) +
                                            " regions, " + oneLine(result.jackknifeRegions.method));
        for (const std::string& warning : result.jackknifeRegions.warnings)
            lines.emplace_back("jackknife warning", oneLine(warning));
        if (result.hasBootstrap())
            lines.emplace_back(
                "bootstrap", std::to_string(result.bootstrapSelections.size()) +
                                 " samples of the regions, drawn with replacement (seed " +
                                 std::to_string(result.jackknifeRegions.settings.bootstrapSeed) +
                                 "), TreeCorr's bootstrap with cross_patch_weight 'mean'");
        const CrossRegionWeight weight = result.crossRegionWeight();
        if (weight != CrossRegionWeight::Simple)
            lines.emplace_back("cross-region weight",
                               std::string(crossRegionWeightInfo(weight).key) + ": " +
                                   std::string(crossRegionWeightInfo(weight).rule));
    }
    return lines;
}

const char* const kJackknifeConvention =
    "w_err = sqrt(C_ii), C_ij = (K-1)/K sum_k (w_k,i - mean_i)(w_k,j - mean_j) over the K "
    "jackknife samples; w_k is the estimator on the counts without the pairs touching region k, "
    "normalised by the pair totals of the catalogs without region k";

std::string errorBarConvention(const CorrelationResult& result) {
    if (!result.hasBootstrap()) {
        const CrossRegionWeight weight = result.crossRegionWeight();
        if (weight == CrossRegionWeight::Simple)
            return kJackknifeConvention;
        return "w_err = sqrt(C_ii), C_ij = (K-1)/K sum_k (w_k,i - mean_i)(w_k,j - mean_j) over "
               "the K jackknife samples; w_k is the estimator on the counts without the pairs "
               "inside region k, the pairs between region k and the others counted " +
               formatDouble(jackknifeCrossWeight(weight, result.jackknifeRegions.count)) +
               " each (cross-region weight '" + std::string(crossRegionWeightInfo(weight).key) +
               "', as TreeCorr's cross_patch_weight), normalised by the pair totals of the "
               "catalogs weighted alike";
    }
    return "w_err = sqrt(C_ii), C_ij = 1/(B-1) sum_b (w_b,i - mean_i)(w_b,j - mean_j) over the " +
           std::to_string(result.bootstrapSelections.size()) +
           " bootstrap samples; sample b draws the K jackknife regions with replacement, region "
           "i m_i times, and weighs the pairs inside region i m_i and those between regions i "
           "and j (m_i + m_j)/2 (TreeCorr's bootstrap with cross_patch_weight 'mean'; per region, "
           "the marks of Loh 2008, ApJ 681, 726), in the counts and in their pair totals alike";
}

std::vector<std::string> resultConventions(const CorrelationResult& result) {
    const std::string sets = std::to_string(result.randoms.size());
    const bool weighted = result.isWeighted();
    // A count's pair total: unweighted N(N-1)/2 or N_A*N_B, weighted their sums of weights.
    const auto autoTotal = [&](const char* n) {
        return weighted ? std::string("(((sum w_") + n + ")^2 - sum w_" + n + "^2)/2)"
                        : std::string("(N_") + n + "(N_" + n + "-1)/2)";
    };
    const auto crossTotal = [&](const char* a, const char* b) {
        return weighted ? std::string("(sum w_") + a + " * sum w_" + b + ")"
                        : std::string("(N_") + a + "*N_" + b + ")";
    };
    const std::string w = weighted ? "_w" : "";
    std::vector<std::string> conventions;
    if (result.isCross()) {
        const bool own = !result.randoms2.empty();
        conventions = {
            "cross mode: DD = D1D2, DR = D1R2, RD = R1D2, RR = R1R2; DD, DR, RD count all "
            "N_A*N_B pairs of their two catalogs; RR too where the second sample has randoms of "
            "its own, else it is R1R1 counting each unordered pair (i<j) once",
            kBinConvention,
            precisionConvention(result.precision),
            "DR, RD and RR columns are summed over the " + sets +
                " random set(s) (set i of the second sample pairs with set i of the first)",
            "DD_norm = DD" + w + "/" + crossTotal("D1", "D2") + "; DR_norm = mean over sets i of DR" +
                w + "_i/" + crossTotal("D1", own ? "R2i" : "R1i") +
                "; RD_norm = mean over sets i of RD" + w + "_i/" + crossTotal("R1i", "D2") +
                "; RR_norm = mean over sets i of RR" + w + "_i/" +
                (own ? crossTotal("R1i", "R2i") : autoTotal("R1i")),
            "w from DD_norm, DR_norm, RD_norm, RR_norm: " +
                std::string(estimatorFormula(result.estimator, true)),
        };
    } else {
        conventions = {
            "DD and RR_i count each unordered pair (i<j) once; DR_i counts all N_D*N_Ri pairs",
            kBinConvention,
            precisionConvention(result.precision),
            "DR and RR columns are raw counts summed over the " + sets + " random set(s)",
            "DD_norm = DD" + w + "/" + autoTotal("D") + "; DR_norm = mean over sets i of DR" + w +
                "_i/" + crossTotal("D", "Ri") + "; RR_norm = mean over sets i of RR" + w + "_i/" +
                autoTotal("Ri"),
            "w from DD_norm, DR_norm, RR_norm: " + std::string(estimatorFormula(result.estimator)),
        };
    }
    if (weighted)
        conventions.emplace_back(
            std::string("weighted: DD_w, DR_w, ") + (result.isCross() ? "RD_w, " : "") +
            "RR_w are sums of w_i*w_j over the pairs of the bin, in double (summed over the "
            "random sets like the raw columns); the raw columns count the same pairs; a catalog "
            "without weights counts 1 per point");
    conventions.push_back(thetaConvention(result.bins.unit, result.bins.scale));
    if (result.hasJackknife())
        conventions.emplace_back(errorBarConvention(result));
    if (!result.meanSeparations.empty())
        conventions.emplace_back(
            "mean_theta_X and mean_log_theta_X (X = DD, DR, ...): the mean of theta and of "
            "ln(theta), theta in " + unitName(result.bins.unit) + ", over the pairs of count X in "
            "the bin (the random sets pooled)" + (weighted ? ", weighted by w_i*w_j" : "") +
            "; theta = 2 asin(c/2) from the chord c, summed in double and binned as the double "
            "reference bins (in a float run a pair within rounding of an edge may be counted in "
            "the neighbouring bin by the raw columns); nan where the bin holds no pairs");
    return conventions;
}

std::string unitName(AngleUnit unit) {
    return std::string(angleUnitName(unit));
}

void requireSize(std::size_t actual, std::size_t expected, const char* what) {
    if (actual != expected)
        throw ConfigError(std::string("result is inconsistent: ") + what + " has " +
                          std::to_string(actual) + " entries for " + std::to_string(expected) +
                          " bins");
}

// The number of table rows: every bin when counts are present; none for a result that holds
// no counts (a cancelled job). Anything in between is a bug upstream, reported not written.
std::size_t checkedRowCount(const CorrelationResult& result) {
    if (result.raw.dd.empty() && result.w.empty())
        return 0;
    const std::size_t bins = result.binCount();
    requireSize(result.edges.size(), bins + 1, "edges");
    requireSize(result.raw.dd.size(), bins, "DD");
    for (const PairCounts& counts : result.raw.dr)
        requireSize(counts.size(), bins, "a DR histogram");
    for (const PairCounts& counts : result.raw.rr)
        requireSize(counts.size(), bins, "an RR histogram");
    requireSize(result.normalised.dd.size(), bins, "DD_norm");
    requireSize(result.normalised.dr.size(), bins, "DR_norm");
    requireSize(result.normalised.rr.size(), bins, "RR_norm");
    if (result.isCross()) {
        for (const PairCounts& counts : result.raw.rd)
            requireSize(counts.size(), bins, "an RD histogram");
        requireSize(result.normalised.rd.size(), bins, "RD_norm");
    }
    if (result.isWeighted()) {
        requireSize(result.raw.ddWeighted.size(), bins, "DD_w");
        for (const auto* perSet : {&result.raw.drWeighted, &result.raw.rrWeighted})
            for (const WeightedCounts& sums : *perSet)
                requireSize(sums.size(), bins, "a weighted histogram");
        if (result.isCross())
            for (const WeightedCounts& sums : result.raw.rdWeighted)
                requireSize(sums.size(), bins, "a weighted RD histogram");
    }
    requireSize(result.w.size(), bins, "w");
    if (result.hasJackknife()) {
        requireSize(result.wError.size(), bins, "w_err");
        if (result.covariance.size() != bins * bins)
            throw ConfigError("result is inconsistent: the covariance has " +
                              std::to_string(result.covariance.size()) + " entries for " +
                              std::to_string(bins) + " x " + std::to_string(bins) + " bins");
        for (const std::vector<double>& sample : result.jackknifeSamples)
            requireSize(sample.size(), bins, "a jackknife sample");
    }
    return bins;
}

} // namespace tpacf::io
