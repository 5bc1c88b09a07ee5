// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The multi-scale traversal of tile_tree.h run on the device instead of the host, built to
// measure where the CUDA list's traversal should run (docs/architecture.md): the same hierarchy
// over each catalog's tiles, built level by level on the device, and the same dual traversal,
// expanded as a frontier one level per launch. Its results (the tile pairs left to the kernel,
// the node pairs counted whole, the node pairs judged) are the host traversal's, which
// device_traversal_test.cpp checks; plain counts only (no regions, no weights). A measurement
// aid beside the suites: the product lists on the host.
#include "tpacf/culling.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tpacf::gputest {

/// One catalog's tiles as the preparation leaves them: a box and a real-point count each.
struct DeviceTraversalSide {
    std::span<const CellBounds> boxes;
    std::span<const std::uint32_t> counts;
};

/// What to traverse: the task's two sides (second ignored for an auto task) and the host
/// traversal's rules (TraversalRules: thresholds t[0..binCount], margin, leaf level).
struct DeviceTraversalInput {
    DeviceTraversalSide first, second;
    bool isAuto = false;
    std::span<const double> thresholds;
    double relativeMargin = 0;
    std::uint32_t leafLevel = 0;
};

/// The device's results and the time of each step (CUDA events, seconds).
struct DeviceTraversalResult {
    std::vector<CellPairRun> runs;         ///< sorted by (a, bBegin) on the device, not joined
    std::vector<std::uint64_t> wholePairs; ///< per bin: the pairs of node pairs counted whole
    std::uint64_t judged = 0;              ///< node pairs judged
    std::uint32_t launches = 0;            ///< frontier levels (one launch each)
    double uploadSeconds = 0;    ///< the boxes and counts to the device (there already in a count)
    double hierarchySeconds = 0; ///< the nodes of every level
    double traversalSeconds =
        0;                      ///< the frontier, level by level, with the host's reads of its size
    double sortSeconds = 0;     ///< the runs sorted by (a, bBegin)
    double downloadSeconds = 0; ///< runs and whole counts to the host
    std::string error;          ///< a CUDA error, or empty
};

/// Runs the traversal on the current device. Never throws: an error is in `error`.
DeviceTraversalResult traverseOnDevice(const DeviceTraversalInput& input);

} // namespace tpacf::gputest
