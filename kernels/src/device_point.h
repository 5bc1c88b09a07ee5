// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to kernels/src: the layout of a prepared double-precision point, shared by the
// preparation (catalog_prepare.cu) and the pair kernels (pair_kernels.cu).

namespace tpacf::cuda::detail {

/// A double-precision point, padded to 32 bytes (CUDA 13 deprecates the unaligned double4); the
/// 4th component holds the point's weight (1 without weights, 0 for padding).
struct alignas(32) DoublePoint {
    double x, y, z, w;
};

} // namespace tpacf::cuda::detail
