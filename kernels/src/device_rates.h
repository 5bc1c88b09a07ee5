// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The launch loop's first guess of a device's pair rate and the most a dense chunk may reach,
// from the device's own properties (multiprocessors, FP32 lanes per multiprocessor of its
// generation, clock, FP64 ratio) scaled from the rates measured on an H100 (BENCHMARKS.md).
// Only the first launch and the chunk-size cap use them: every later launch uses the rate
// measured on the launches before it, so a wrong guess costs one oddly sized chunk, not speed.

namespace tpacf::cuda::detail {

struct DeviceThroughput {
    int multiprocessors = 0;
    int clockKHz = 0;     ///< peak SM clock (cudaDevAttrClockRate); 0: unknown
    int major = 0, minor = 0;
    int fp32PerFp64 = 0;  ///< cudaDevAttrSingleToDoublePrecisionPerfRatio; 0: unknown
};

/// FP32 lanes per multiprocessor of a compute capability (64 for 7.x and 8.0, 128 for 8.6 on);
/// an unknown newer one counts as the newest known.
int fp32LanesPerMultiprocessor(int major, int minor);

struct PairRates {
    double first = 0;    ///< pairs per second assumed for the first launch
    double bruteCap = 0; ///< the most a brute-force chunk is sized for
};
PairRates pairRates(const DeviceThroughput& device, bool isFloat);

} // namespace tpacf::cuda::detail
