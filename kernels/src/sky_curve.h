// SPDX-License-Identifier: GPL-3.0-or-later
// The order the CUDA backend sorts each catalog into before cutting it into tiles: a Hilbert
// curve on each face of the cube around the sphere, the six faces chained so that the curve is
// continuous over the whole sky. Host and device code both include it (the host-only traversal
// test makes its tiles with the same function, bit for bit).
//
// Why not a Morton curve of the unit vectors in R³: a run of consecutive 3-D Morton cells cut by
// the sphere is often two or more patches, so a tile of consecutive points has a box far larger
// than its area needs (mean half-diagonal 0.078 for 4,096 tiles of 2^22 uniform points, the
// largest 1.02, against 0.052 and 0.073 here), and every box is what the culling judges: with the
// boxes of this curve a DD of 2^22 points over 0.01'-180° lists 3.8 × 10^12 pairs in tile pairs
// straddling an edge instead of 5.1 × 10^12, and the standard job's DD to 10° 1.65 × 10^10
// instead of 2.27 × 10^10 (`tpacf_gpu_tile_traversal_test --classes`). The counts do not depend
// on the order: every judgement is made from the boxes the points actually have.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TPACF_SKY_CURVE_FN __host__ __device__ __forceinline__
#else
#define TPACF_SKY_CURVE_FN inline
#endif

namespace tpacf::cuda::detail {

/// Bits per face axis; the key is 3 bits of face above 2 × 13 of Hilbert index (29 bits, within
/// the 30 the sorts take).
inline constexpr int kSkyCurveAxisBits = 13;
inline constexpr int kSkyCurveKeyBits = 3 + 2 * kSkyCurveAxisBits;

/// Hilbert index of cell (x, y) of a 2^13 × 2^13 grid: the curve starts at (0, 0) and ends at
/// (2^13 − 1, 0).
TPACF_SKY_CURVE_FN std::uint32_t hilbertIndex(std::uint32_t x, std::uint32_t y) {
    constexpr std::uint32_t n = 1u << kSkyCurveAxisBits;
    std::uint32_t d = 0;
    for (std::uint32_t s = n / 2; s > 0; s /= 2) {
        const std::uint32_t rx = (x & s) != 0 ? 1u : 0u, ry = (y & s) != 0 ? 1u : 0u;
        d += s * s * ((3 * rx) ^ ry);
        if (ry == 0) { // rotate the quadrant so that its sub-curve joins its neighbours'
            if (rx == 1) {
                x = n - 1 - x;
                y = n - 1 - y;
            }
            const std::uint32_t t = x;
            x = y;
            y = t;
        }
    }
    return d;
}

/// The grid column of a face coordinate in [−1, 1] (its ends clamped into the grid).
TPACF_SKY_CURVE_FN std::uint32_t faceCell(double t) {
    constexpr double cells = 1u << kSkyCurveAxisBits;
    const double scaled = (t + 1.0) * (cells / 2);
    return static_cast<std::uint32_t>(scaled <= 0 ? 0 : scaled >= cells - 1 ? cells - 1 : scaled);
}

/// The sort key of a unit vector. Faces in the order +x, +y, +z, −x, −y, −z (each shares an edge
/// with the next); on face f the gnomonic coordinates (u, v) (the two other components over the
/// largest one's magnitude) are flipped so that the face's curve starts at the cube vertex where
/// the previous face's ended: +x from (1,−1,−1) to (1,1,−1), +y on to (1,1,1), +z to (−1,1,1),
/// −x to (−1,−1,1), −y to (−1,−1,−1), −z to (1,−1,−1). Only compares, two divisions and exact
/// scalings: the host and the device compute the same key.
TPACF_SKY_CURVE_FN std::uint32_t skyCurveKey(double x, double y, double z) {
    const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y, az = z < 0 ? -z : z;
    std::uint32_t face = 0;
    double u = 0, v = 0;
    if (ax >= ay && ax >= az) {
        face = x > 0 ? 0 : 3;
        u = y / ax;
        v = z / ax;
    } else if (ay >= az) {
        face = y > 0 ? 1 : 4;
        u = z / ay;
        v = x / ay;
    } else {
        face = z > 0 ? 2 : 5;
        u = x / az;
        v = y / az;
    }
    // The flips that chain the faces (derivation above): u then v, per face.
    constexpr unsigned kFlipU = 0b011100; // faces 2, 3 and 4
    constexpr unsigned kFlipV = 0b001110; // faces 1, 2 and 3
    if ((kFlipU >> face) & 1u)
        u = -u;
    if ((kFlipV >> face) & 1u)
        v = -v;
    return (face << (2 * kSkyCurveAxisBits)) | hilbertIndex(faceCell(u), faceCell(v));
}

} // namespace tpacf::cuda::detail
