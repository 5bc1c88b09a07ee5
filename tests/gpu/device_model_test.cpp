// SPDX-License-Identifier: GPL-3.0-or-later
// Host-only checks of what the CUDA backend decides from a device's properties before using it
// (kernels/src/device_support, device_rates): which of the build's code a compute capability
// runs, against the rules of the CUDA compatibility guide written out case by case; the refusal
// sentence for a device none of it runs on; and the first pair-rate guess scaled from the
// H100's by multiprocessors, lanes, clock and FP64 ratio, against the same product by hand.
// Runs without a GPU (also in CI).
#include "device_rates.h"
#include "device_support.h"

#include <cmath>
#include <cstdio>
#include <string>

using namespace tpacf::cuda::detail;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

constexpr const char* kDefaultList = "75-real;80-real;86-real;89-real;90-real;90-virtual";

struct CodeCase {
    const char* list;
    int major, minor;
    bool runs, jit;
    int cc;
};

// Machine code runs on its major generation at the same or a later minor; PTX on every later
// compute capability; arch-specific ("a") code on its own capability only.
constexpr CodeCase kCodeCases[] = {
    {kDefaultList, 9, 0, true, false, 90},   // H100, H200
    {kDefaultList, 8, 0, true, false, 80},   // A100
    {kDefaultList, 8, 6, true, false, 86},   // RTX 30
    {kDefaultList, 8, 7, true, false, 86},   // Orin: the 8.6 code, same generation
    {kDefaultList, 8, 9, true, false, 89},   // RTX 40, L4
    {kDefaultList, 7, 5, true, false, 75},   // T4, RTX 20
    {kDefaultList, 7, 0, false, false, 0},   // V100: CUDA 13 has no sm_70
    {kDefaultList, 10, 0, true, true, 90},   // B200: the compute_90 PTX
    {kDefaultList, 12, 0, true, true, 90},   // RTX 50
    {"90", 9, 0, true, false, 90},           // "90" = 90-real + 90-virtual
    {"90", 8, 9, false, false, 0},           // an sm_90-only build on an RTX 40
    {"90-real", 10, 0, false, false, 0},     // no PTX: nothing for Blackwell
    {"80-real,90-virtual", 8, 6, true, false, 80},
    {"90a-real", 9, 0, true, false, 90},
    {"90a-real", 10, 0, false, false, 0},
    {"70-real;75-virtual", 7, 2, true, false, 70},
    {"70-real;75-virtual", 8, 0, true, true, 75},
};

void checkCodeChoice() {
    for (const CodeCase& c : kCodeCases) {
        const std::string what = std::string(c.list) + " on " + std::to_string(c.major) + "." +
                                 std::to_string(c.minor);
        const auto targets = parseArchitectures(c.list);
        expect(targets.has_value(), what + ": the list parses");
        if (!targets)
            continue;
        const DeviceCode code = codeForDevice(c.major, c.minor, *targets);
        expect(code.runs == c.runs, what + ": runs " + std::to_string(code.runs));
        if (c.runs) {
            expect(code.jit == c.jit, what + ": jit " + std::to_string(code.jit));
            expect(code.cc == c.cc, what + ": chose " + std::to_string(code.cc));
            expect(code.description.find(std::to_string(c.cc)) != std::string::npos,
                   what + ": description '" + code.description + "'");
        }
        const std::string why = unsupportedReason(0, "GPU X", c.major, c.minor, c.list);
        expect(why.empty() == c.runs, what + ": reason '" + why + "'");
    }
    // Lists resolved by CMake itself: unknown here, so nothing is refused.
    for (const char* list : {"all", "all-major", "native", "", "garbage;90"}) {
        expect(!parseArchitectures(list), std::string("'") + list + "' is unknown");
        expect(unsupportedReason(0, "GPU X", 5, 0, list).empty(),
               std::string("'") + list + "' refuses nothing");
    }
    const std::string v100 = unsupportedReason(1, "Tesla V100-SXM2-16GB", 7, 0, kDefaultList);
    for (const char* part : {"GPU 1", "Tesla V100-SXM2-16GB", "compute capability 7.0",
                             "sm_75", "compute_90", "needs compute capability 9.0",
                             "-DCMAKE_CUDA_ARCHITECTURES=70", "CUDA 12"})
        expect(v100.find(part) != std::string::npos, "V100 reason '" + v100 + "' names " + part);
}

struct RateCase {
    const char* name;
    DeviceThroughput device;
    int lanes;
};

constexpr RateCase kRateCases[] = {
    {"H100 SXM", {132, 1980000, 9, 0, 2}, 128},
    {"A100", {108, 1410000, 8, 0, 2}, 64},
    {"RTX 4090", {128, 2520000, 8, 9, 64}, 128},
    {"T4", {40, 1590000, 7, 5, 32}, 64},
    {"V100", {80, 1530000, 7, 0, 2}, 64},
    {"unknown clock and ratio", {100, 0, 9, 0, 0}, 128},
    {"a newer generation", {148, 1965000, 10, 0, 2}, 128},
};

void checkRates() {
    const double referenceLaneHz = 132.0 * 128 * 1.98e9;
    for (const RateCase& c : kRateCases) {
        const DeviceThroughput& d = c.device;
        expect(fp32LanesPerMultiprocessor(d.major, d.minor) == c.lanes,
               std::string(c.name) + ": lanes");
        const double clockHz = (d.clockKHz > 0 ? d.clockKHz : 1980000) * 1e3;
        const double scale = d.multiprocessors * c.lanes * clockHz / referenceLaneHz;
        const double fp64 = 2.0 / (d.fp32PerFp64 > 0 ? d.fp32PerFp64 : 2);
        const PairRates f = pairRates(d, true), g = pairRates(d, false);
        const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * b; };
        expect(near(f.first, 1.5e12 * scale), std::string(c.name) + ": float first rate");
        expect(near(f.bruteCap, 4e12 * scale), std::string(c.name) + ": float cap");
        expect(near(g.first, 4e11 * scale * fp64), std::string(c.name) + ": double first rate");
        expect(near(g.bruteCap, 1.2e12 * scale * fp64), std::string(c.name) + ": double cap");
    }
    // The reference device gets exactly the H100 figures.
    const PairRates h100 = pairRates({132, 1980000, 9, 0, 2}, true);
    expect(std::abs(h100.first - 1.5e12) < 1, "H100 first rate is the measured 1.5e12");
}

} // namespace

int main() {
    checkCodeChoice();
    checkRates();
    if (failures > 0) {
        std::printf("%d failures\n", failures);
        return 1;
    }
    std::printf("device model: %zu code cases, %zu rate cases passed\n",
                std::size(kCodeCases), std::size(kRateCases));
    return 0;
}
