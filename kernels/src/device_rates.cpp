// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_rates.h"

#include <algorithm>
#include <iterator>

namespace tpacf::cuda::detail {

namespace {

// The reference the rates were measured on: H100 80GB HBM3 (SXM), 132 multiprocessors of 128
// FP32 lanes at 1980 MHz, FP64 at 1/2.
constexpr double kReferenceLaneHz = 132.0 * 128.0 * 1.98e9;
constexpr int kReferenceFp64Ratio = 2;
constexpr int kReferenceClockKHz = 1980000;
// Measured there (BENCHMARKS.md): float full range 1.5e12 pairs/s, dense chunks up to 4e12;
// double 4e11, up to 1.2e12.
constexpr double kFirstFloat = 1.5e12, kCapFloat = 4e12;
constexpr double kFirstDouble = 4e11, kCapDouble = 1.2e12;

struct LanesOf {
    int cc; // from this compute capability up to the next entry's
    int lanes;
};
// CUDA C Programming Guide, "Arithmetic Instructions" throughput table (32-bit float add/mul).
constexpr LanesOf kLanes[] = {{50, 128}, {60, 64}, {61, 128}, {70, 64}, {86, 128}};

} // namespace

int fp32LanesPerMultiprocessor(int major, int minor) {
    const int cc = 10 * major + minor;
    int lanes = kLanes[0].lanes;
    for (const LanesOf& entry : kLanes)
        if (cc >= entry.cc)
            lanes = entry.lanes;
    return lanes;
}

PairRates pairRates(const DeviceThroughput& device, bool isFloat) {
    const int clockKHz = device.clockKHz > 0 ? device.clockKHz : kReferenceClockKHz;
    const double laneHz = std::max(1, device.multiprocessors) *
                          static_cast<double>(fp32LanesPerMultiprocessor(device.major, device.minor)) *
                          clockKHz * 1e3;
    double scale = laneHz / kReferenceLaneHz;
    if (!isFloat) {
        // The double kernel is bound by FP64 throughput: a GeForce at 1/64 is 32x slower per
        // lane than the reference's 1/2.
        const int ratio = device.fp32PerFp64 > 0 ? device.fp32PerFp64 : kReferenceFp64Ratio;
        scale *= static_cast<double>(kReferenceFp64Ratio) / std::max(ratio, 1);
    }
    return isFloat ? PairRates{kFirstFloat * scale, kCapFloat * scale}
                   : PairRates{kFirstDouble * scale, kCapDouble * scale};
}

} // namespace tpacf::cuda::detail
