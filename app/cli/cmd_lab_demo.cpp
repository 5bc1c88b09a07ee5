// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf lab --demo: the two precision demonstrations (lab_demos.h) as a table or JSON.
#include "cli/context.h"
#include "cli/lab_output.h"
#include "cli/number_text.h"
#include "cli/output.h"
#include "tpacf/lab_demos.h"
#include "tpacf/version.h"

#include <cstdio>
#include <ostream>

namespace tpacf::cli {

namespace {

std::string grouped(std::uint64_t value) {
    const std::string digits = std::to_string(value);
    std::string text;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            text.push_back(',');
        text.push_back(digits[i]);
    }
    return text;
}

std::string catalogLine(const LabInputs& inputs, const std::string& generatedAs,
                        std::uint64_t pairs) {
    std::string text = inputs.points > 0 || !inputs.first->origin().known()
                           ? std::to_string(inputs.first->size()) + " generated points, " +
                                 generatedAs + " (seed " + std::to_string(inputs.seed) + ")"
                           : inputs.first->name() + " (" + std::to_string(inputs.first->size()) +
                                 " points)";
    if (inputs.second)
        text += " x " + inputs.second->name() + " (" + std::to_string(inputs.second->size()) +
                " points)";
    return text + (inputs.second ? ", cross count: " : ", auto count: ") + grouped(pairs) +
           " pairs";
}

template <class Values> std::string jsonIntegers(const Values& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

std::string jsonEdges(const Binning& binning) {
    std::string text = "[";
    for (std::size_t i = 0; i < binning.edges().size(); ++i)
        text += (i ? ", " : "") + jsonNumber(binning.edges()[i]);
    return text + "]";
}

} // namespace

int precisionDemoCommand(const Context& context, LabInputs inputs, const BinSpec& bins,
                         bool json) {
    const Binning binning(bins);
    if (!inputs.first)
        inputs.first = std::make_shared<const Catalog>(lab::precisionDemoCatalog(
            inputs.points ? inputs.points : lab::kDefaultLabPoints, inputs.seed));
    const lab::PrecisionDemo demo = lab::dotVersusChord2(*inputs.first, inputs.second.get(),
                                                         binning, context.cancelRequested);
    std::ostream& out = context.out;
    if (json) {
        out << "{\n  \"tool\": \"tpacf lab --demo precision\",\n"
            << "  \"version\": " << jsonString(version()) << ",\n"
            << "  \"pairs\": " << demo.pairs << ",\n"
            << "  \"unit\": " << jsonString(angleUnitName(binning.unit())) << ",\n"
            << "  \"edges\": " << jsonEdges(binning) << ",\n"
            << "  \"unresolved_below_radians\": " << jsonNumber(lab::floatDotUnresolvedRadians())
            << ",\n  \"smallest_float_angle_radians\": "
            << jsonNumber(lab::floatDotSmallestAngleRadians()) << ",\n"
            << "  \"cos_edges_float\": [";
        for (std::size_t i = 0; i < demo.cosEdges.size(); ++i)
            out << (i ? ", " : "") << jsonNumber(demo.cosEdges[i]);
        out << "],\n  \"reference\": " << jsonIntegers(demo.reference) << ",\n"
            << "  \"chord2\": " << jsonIntegers(demo.chord2) << ",\n"
            << "  \"float_dot\": " << jsonIntegers(demo.floatDot) << "\n}\n";
        return kExitOk;
    }
    out << "Precision demo: binning on the float dot product vs chord^2 thresholds in double\n"
        << catalogLine(inputs, "uniform in a cap of radius 0.5 deg", demo.pairs) << "\n"
        << wrapText("Near 1 a float has steps of 2^-24 and 1 - cos(theta) = theta^2/2: below "
                    "theta = 2^-12 rad = 0.839' cos(theta) rounds to exactly 1.0f, and the "
                    "float below 1 is cos(1.187'). Edges whose cosines are equal floats cannot "
                    "separate their bins; the squared chord 4 sin^2(theta/2), computed from "
                    "coordinate differences in double, resolves every one of them.",
                    96)
        << "\n\n";
    const std::string unit(angleUnitName(binning.unit()));
    char line[256];
    std::snprintf(line, sizeof line, "%4s  %-22s %-12s %13s %13s %13s %13s\n", "bin",
                  ("range (" + unit + ")").c_str(), "cos(lo) f32", "reference", "chord^2",
                  "float dot", "dot - ref");
    out << line;
    int dotWrong = 0, chordWrong = 0;
    for (std::size_t bin = 0; bin < binning.count(); ++bin) {
        const std::string range = "[" + edgeText(binning.edges()[bin]) + ", " +
                                  edgeText(binning.edges()[bin + 1]) + ")";
        char cosText[32];
        std::snprintf(cosText, sizeof cosText, "%.9g", static_cast<double>(demo.cosEdges[bin]));
        const auto difference = static_cast<long long>(demo.floatDot[bin]) -
                                static_cast<long long>(demo.reference[bin]);
        dotWrong += difference != 0;
        chordWrong += demo.chord2[bin] != demo.reference[bin];
        std::snprintf(line, sizeof line, "%4zu  %-22s %-12s %13s %13s %13s %13lld\n", bin,
                      range.c_str(), cosText, grouped(demo.reference[bin]).c_str(),
                      grouped(demo.chord2[bin]).c_str(), grouped(demo.floatDot[bin]).c_str(),
                      difference);
        out << line;
    }
    out << "\nfloat dot product: " << dotWrong << " of " << binning.count()
        << " bins wrong; chord^2 in double: "
        << (chordWrong == 0 ? std::string("exact in every bin")
                            : std::to_string(chordWrong) + " bins wrong")
        << "\n";
    return kExitOk;
}

int overflowDemoCommand(const Context& context, LabInputs inputs, const BinSpec& bins, int threads,
                        bool json) {
    const Binning binning(bins);
    if (!inputs.first)
        inputs.first = std::make_shared<const Catalog>(lab::overflowDemoCatalog(
            inputs.points ? inputs.points : lab::kOverflowDemoPoints, inputs.seed));
    const lab::OverflowDemo demo = lab::counterOverflow(*inputs.first, inputs.second.get(),
                                                        binning, threads, context.cancelRequested);
    std::ostream& out = context.out;
    if (json) {
        out << "{\n  \"tool\": \"tpacf lab --demo overflow\",\n"
            << "  \"version\": " << jsonString(version()) << ",\n"
            << "  \"pairs\": " << demo.pairs << ",\n"
            << "  \"unit\": " << jsonString(angleUnitName(binning.unit())) << ",\n"
            << "  \"edges\": " << jsonEdges(binning) << ",\n"
            << "  \"counts_64\": " << jsonIntegers(demo.counts64) << ",\n"
            << "  \"counts_32\": " << jsonIntegers(demo.counts32) << ",\n"
            << "  \"wraps\": " << jsonIntegers(demo.wraps) << ",\n"
            << "  \"seconds_32\": " << jsonNumber(demo.seconds32) << "\n}\n";
        return kExitOk;
    }
    out << "Overflow demo: every pair counted with 32-bit and with 64-bit counters\n"
        << catalogLine(inputs, "uniform over the whole sky", demo.pairs) << "\n"
        << wrapText("A std::uint32_t (a CUDA unsigned int under atomicAdd) holds at most 2^32 - 1 "
                    "= 4,294,967,295; one more and it reads 0 again, silently. The 32-bit count "
                    "took " + formatSeconds(demo.seconds32) + " on all threads (each with its own "
                    "32-bit counters, added in 32 bits).",
                    96)
        << "\n\n";
    const std::string unit(angleUnitName(binning.unit()));
    char line[256];
    std::snprintf(line, sizeof line, "%4s  %-18s %16s %16s %8s\n", "bin",
                  ("range (" + unit + ")").c_str(), "64-bit count", "32-bit counter", "wrapped");
    out << line;
    for (std::size_t bin = 0; bin < binning.count(); ++bin) {
        const std::string range = "[" + edgeText(binning.edges()[bin]) + ", " +
                                  edgeText(binning.edges()[bin + 1]) + ")";
        std::snprintf(line, sizeof line, "%4zu  %-18s %16s %16s %7llux\n", bin, range.c_str(),
                      grouped(demo.counts64[bin]).c_str(), grouped(demo.counts32[bin]).c_str(),
                      static_cast<unsigned long long>(demo.wraps[bin]));
        out << line;
    }
    out << "\n64-bit count - 32-bit counter = wrapped x 2^32 (4,294,967,296) in every bin.\n";
    return kExitOk;
}

} // namespace tpacf::cli
