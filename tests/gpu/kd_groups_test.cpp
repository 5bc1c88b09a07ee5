// SPDX-License-Identifier: GPL-3.0-or-later
// K-d groups (kernels/src/kd_groups.cu) checked on the host from the order the device returns:
// a permutation of the input, every point outside a group in its place, and in every group each
// segment of every level split at the median of its widest axis (the left half's points at or
// before the right half's along that axis, up to the kernel's 24-bit key), down to the 32-point
// leaves. The counts on k-d tiles are checked by the culling suite.
#include "gpu_test_support.h"

#ifdef TPACF_GPU_TEST_INTERNALS
#include "kd_groups.h"

#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace tpacf;
using gputest::expect;
using gputest::Stats;

#ifdef TPACF_GPU_TEST_INTERNALS
namespace {

/// The device's order for `order` over the points (x, y, z); empty after printing a CUDA error.
std::vector<std::uint32_t> kdOrderOnDevice(const Catalog& catalog,
                                           const std::vector<std::uint32_t>& order,
                                           const std::vector<std::uint32_t>& starts) {
    const std::size_t n = catalog.size();
    double* d_xyz = nullptr;
    std::uint32_t *d_order = nullptr, *d_starts = nullptr;
    std::vector<std::uint32_t> result(n);
    bool ok = cudaMalloc(&d_xyz, 3 * n * sizeof(double)) == cudaSuccess &&
              cudaMalloc(&d_order, n * sizeof(std::uint32_t)) == cudaSuccess &&
              (starts.empty() ||
               (cudaMalloc(&d_starts, starts.size() * sizeof(std::uint32_t)) == cudaSuccess &&
                cudaMemcpy(d_starts, starts.data(), starts.size() * sizeof(std::uint32_t),
                           cudaMemcpyHostToDevice) == cudaSuccess));
    for (int axis = 0; ok && axis < 3; ++axis) {
        const auto column = axis == 0 ? catalog.x() : axis == 1 ? catalog.y() : catalog.z();
        ok = cudaMemcpy(d_xyz + axis * n, column.data(), n * sizeof(double),
                        cudaMemcpyHostToDevice) == cudaSuccess;
    }
    ok = ok && cudaMemcpy(d_order, order.data(), n * sizeof(std::uint32_t),
                          cudaMemcpyHostToDevice) == cudaSuccess;
    if (ok) {
        try {
            cuda::detail::launchKdGroups(d_xyz, d_xyz + n, d_xyz + 2 * n, d_order,
                                         static_cast<std::uint32_t>(n), d_starts,
                                         static_cast<std::uint32_t>(starts.size()), nullptr);
        } catch (const std::exception& error) {
            std::printf("launch: %s\n", error.what());
            ok = false;
        }
    }
    ok = ok && cudaDeviceSynchronize() == cudaSuccess &&
         cudaMemcpy(result.data(), d_order, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost) ==
             cudaSuccess;
    if (!ok)
        std::printf("CUDA: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d_xyz);
    cudaFree(d_order);
    cudaFree(d_starts);
    return ok ? result : std::vector<std::uint32_t>{};
}

/// Whether every segment of every level of the group starting at `first` is split at the median
/// of its widest axis (the kernel's float coordinates and extents).
bool groupIsKdSplit(const Catalog& catalog, const std::vector<std::uint32_t>& order,
                    std::size_t first, std::string& why) {
    const std::span<const double> axes[3] = {catalog.x(), catalog.y(), catalog.z()};
    const auto coord = [&](int axis, std::size_t position) {
        return static_cast<float>(axes[axis][order[position]]);
    };
    for (std::uint32_t size = cuda::detail::kKdGroupPoints; size > 32; size /= 2) {
        for (std::size_t begin = first; begin < first + cuda::detail::kKdGroupPoints;
             begin += size) {
            int widest = 0;
            float widestExtent = -1;
            for (int axis = 0; axis < 3; ++axis) {
                float lo = coord(axis, begin), hi = lo;
                for (std::size_t p = begin; p < begin + size; ++p) {
                    lo = std::min(lo, coord(axis, p));
                    hi = std::max(hi, coord(axis, p));
                }
                if (hi - lo > widestExtent) {
                    widest = axis;
                    widestExtent = hi - lo;
                }
            }
            float leftMax = -2, rightMin = 2;
            for (std::size_t p = begin; p < begin + size / 2; ++p)
                leftMax = std::max(leftMax, coord(widest, p));
            for (std::size_t p = begin + size / 2; p < begin + size; ++p)
                rightMin = std::min(rightMin, coord(widest, p));
            // Keys hold 24 bits of the extent: points within a key's step may come in any order.
            const float step = widestExtent * 2.0f / static_cast<float>(1u << 24);
            if (!(leftMax <= rightMin + step)) {
                char text[160];
                std::snprintf(text, sizeof text,
                              "segment of %u at %zu, axis %d: left reaches %.9g, right starts "
                              "at %.9g",
                              size, begin, widest, leftMax, rightMin);
                why = text;
                return false;
            }
        }
    }
    return true;
}

/// Checks the device's order for a shuffled input: groups at `starts`, or the full ones from 0
/// where it is empty; every position outside a group keeps its point.
void checkCatalog(Stats& stats, const Catalog& catalog, const std::string& label,
                  std::vector<std::uint32_t> starts = {}) {
    const std::size_t n = catalog.size();
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(n));
    const std::vector<std::uint32_t> result = kdOrderOnDevice(catalog, order, starts);
    if (!expect(stats, result.size() == n, label + ": the device returned an order"))
        return;
    std::vector<std::uint32_t> sortedIn = order, sortedOut = result;
    std::sort(sortedIn.begin(), sortedIn.end());
    std::sort(sortedOut.begin(), sortedOut.end());
    expect(stats, sortedIn == sortedOut, label + ": the order is a permutation of its input");
    if (starts.empty())
        for (std::size_t first = 0; first + cuda::detail::kKdGroupPoints <= n;
             first += cuda::detail::kKdGroupPoints)
            starts.push_back(static_cast<std::uint32_t>(first));
    std::vector<bool> inGroup(n, false);
    for (std::uint32_t first : starts) {
        std::fill_n(inGroup.begin() + first, cuda::detail::kKdGroupPoints, true);
        std::string why;
        expect(stats, groupIsKdSplit(catalog, result, first, why),
               label + ": group at " + std::to_string(first) + " split at medians: " + why);
    }
    bool kept = true;
    for (std::size_t i = 0; i < n; ++i)
        kept = kept && (inGroup[i] || result[i] == order[i]);
    expect(stats, kept, label + ": every point outside the groups keeps its place");
}

} // namespace
#endif

int main() {
    const auto provider = cuda::makeProvider();
    if (gputest::skipWithoutDevice(*provider))
        return gputest::kSkip;
#ifdef TPACF_GPU_TEST_INTERNALS
    Stats stats;
    // Uniform, clustered with exact duplicates (ties on every axis), and a catalog with fewer
    // points than a group (nothing to refine).
    checkCatalog(stats, gputest::uniformCatalog(3 * 8192 + 1000, 11, "uniform"), "uniform");
    checkCatalog(stats, gputest::clusteredCatalog(4 * 8192 + 17, 12, "clustered"), "clustered");
    checkCatalog(stats, gputest::uniformCatalog(5000, 13, "small"), "fewer than a group");
    // Groups where a region layout puts them: runs from given starts, not aligned to 8192.
    checkCatalog(stats, gputest::clusteredCatalog(3 * 8192 + 500, 14, "runs"), "given runs",
                 {100, 100 + 8192 + 37});
    return gputest::finish(stats);
#else
    std::printf("SKIP: built without the kernels' internals\n");
    return gputest::kSkip;
#endif
}
