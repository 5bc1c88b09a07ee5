// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Device helpers the Kernel Lab's rungs 2 to 5 share: the squared chord of a pair (double, or
// float hi+lo) and the bin of a c² by binary search over the thresholds. Rung 2 spells the
// search out in its kernel; rungs 3 to 5 call binOfChord2 so that their excerpts show what
// they change.
#include <cuda_runtime.h>

namespace tpacf::cuda::lab {

/// c² = |p_i − p_j|² in double, as the CPU reference computes it: ((dx·dx + dy·dy) + dz·dz),
/// each operation rounded on its own (the _rn intrinsics keep the compiler from fusing them
/// into FMAs, which would round differently from the reference and move pairs at the edges).
__device__ __forceinline__ double chord2Double(double xi, double yi, double zi, double xj,
                                               double yj, double zj) {
    const double dx = __dsub_rn(xi, xj), dy = __dsub_rn(yi, yj), dz = __dsub_rn(zi, zj);
    return __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
}

/// c² in float from hi+lo coordinates: d = (hi_i − hi_j) + (lo_i − lo_j). For nearby points
/// hi_i − hi_j is exact (Sterbenz), so d carries the difference to ~1e-7 relative at every
/// separation, where float coordinates alone lose it below ~1′.
__device__ __forceinline__ float chord2HiLo(float hxi, float hyi, float hzi, float lxi, float lyi,
                                            float lzi, float hxj, float hyj, float hzj, float lxj,
                                            float lyj, float lzj) {
    const float dx = __fadd_rn(__fsub_rn(hxi, hxj), __fsub_rn(lxi, lxj));
    const float dy = __fadd_rn(__fsub_rn(hyi, hyj), __fsub_rn(lyi, lyj));
    const float dz = __fadd_rn(__fsub_rn(hzi, hzj), __fsub_rn(lzi, lzj));
    return __fmaf_rn(dz, dz, __fmaf_rn(dy, dy, __fmul_rn(dx, dx)));
}

/// Bin k with thresholds[k] <= c² < thresholds[k + 1], or -1 outside [thresholds[0],
/// thresholds[binCount]). The thresholds are read through the read-only cache.
template <class Real>
__device__ __forceinline__ int binOfChord2(Real c2, const Real* thresholds, int binCount) {
    if (!(c2 >= __ldg(&thresholds[0]) && c2 < __ldg(&thresholds[binCount])))
        return -1;
    int low = 0, high = binCount;
    while (high - low > 1) {
        const int mid = (low + high) / 2;
        if (c2 >= __ldg(&thresholds[mid]))
            low = mid;
        else
            high = mid;
    }
    return low;
}

} // namespace tpacf::cuda::lab
