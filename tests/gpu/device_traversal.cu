// SPDX-License-Identifier: GPL-3.0-or-later
// The traversal of tile_tree.cpp on the device (device_traversal.h): the same hierarchy and the
// same verdicts, so the same results.
//
// Why the verdicts are the host's. A node pair is judged by tile_tree.cpp's rule with the same
// operations in the same order on the same doubles: each subtraction, product and sum spelled
// out as an _rn intrinsic (the host's code is compiled without contraction: the project builds
// for the x86-64 baseline, which has no FMA), the margin factors 1 ∓ margin computed on the host.
// Which node of an open pair is opened depends on the same squared diagonals, compared the same
// way, and a node's level on the same joins (neighbours two by two, an odd last node rising
// alone). The order of the work differs (breadth first, each level's pairs in whatever order the
// threads append them), and the results do not depend on it: every verdict is local to its pair.
#include "device_traversal.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace tpacf::gputest {
namespace {

struct Node {
    double lo[3], hi[3];
    std::uint32_t tileBegin, tileEnd, left, right, level;
    unsigned long long points;
    __device__ bool isTile() const { return left == kNoChild; }
    static constexpr std::uint32_t kNoChild = ~0u;
};

// A frontier entry: node a of the first side with node b of the second; same: a with itself.
struct Pair {
    std::uint32_t a, b, same;
};

// What every launch reads back: the next frontier's size and the runs so far.
struct Counters {
    unsigned long long nextPairs;
    unsigned long long runs;
    unsigned long long judged;
};

struct Rules {
    const double* thresholds; // t[0..binCount]
    std::uint32_t binCount;
    double lowFactor, highFactor; // 1 − margin, 1 + margin
    std::uint32_t leafLevel;
};

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Device memory freed on every path.
template <class T> struct Buffer {
    T* data = nullptr;
    std::size_t size = 0;
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { cudaFree(data); }
    void allocate(std::size_t count, const char* what) {
        cudaFree(data);
        data = nullptr;
        size = count;
        check(cudaMalloc(&data, std::max<std::size_t>(count, 1) * sizeof(T)), what);
    }
    // Grows to at least `count`, keeping the first `kept` elements.
    void grow(std::size_t count, std::size_t kept, const char* what) {
        if (count <= size)
            return;
        T* larger = nullptr;
        check(cudaMalloc(&larger, count * sizeof(T)), what);
        if (kept > 0)
            check(cudaMemcpy(larger, data, kept * sizeof(T), cudaMemcpyDeviceToDevice), what);
        cudaFree(data);
        data = larger;
        size = count;
    }
};

__global__ void tileNodesKernel(const CellBounds* boxes, const std::uint32_t* counts, Node* nodes,
                                std::uint32_t* levelIndex, std::uint32_t tiles) {
    const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tiles)
        return;
    Node node;
    for (int axis = 0; axis < 3; ++axis) {
        node.lo[axis] = boxes[t].lo[axis];
        node.hi[axis] = boxes[t].hi[axis];
    }
    node.tileBegin = t;
    node.tileEnd = t + 1;
    node.left = node.right = Node::kNoChild;
    node.level = 0;
    node.points = counts[t];
    nodes[t] = node;
    levelIndex[t] = t;
}

// One level of TileTree's construction: neighbours joined two by two at `base`, an odd last one
// rising alone.
__global__ void joinLevelKernel(Node* nodes, const std::uint32_t* below, std::uint32_t belowCount,
                                std::uint32_t* above, std::uint32_t base, std::uint32_t level) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * i >= belowCount)
        return;
    if (2 * i + 1 == belowCount) {
        above[i] = below[2 * i];
        return;
    }
    const Node& l = nodes[below[2 * i]];
    const Node& r = nodes[below[2 * i + 1]];
    Node node;
    for (int axis = 0; axis < 3; ++axis) {
        node.lo[axis] = fmin(l.lo[axis], r.lo[axis]);
        node.hi[axis] = fmax(l.hi[axis], r.hi[axis]);
    }
    node.tileBegin = l.tileBegin;
    node.tileEnd = r.tileEnd;
    node.left = below[2 * i];
    node.right = below[2 * i + 1];
    node.level = level;
    node.points = l.points + r.points;
    nodes[base + i] = node;
    above[i] = base + i;
}

__device__ double squaredDiagonal(const Node& n) {
    double sum = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double side = __dsub_rn(n.hi[axis], n.lo[axis]);
        sum = __dadd_rn(sum, __dmul_rn(side, side));
    }
    return sum;
}

// tile_tree.cpp's judge(): −1 for a pair left open, −2 for one settled with nothing to add, else
// the bin every pair lies in.
__device__ int judge(const Node& a, const Node& b, const Rules& rules) {
    double minD2 = 0, maxD2 = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const double gap =
            fmax(0.0, fmax(__dsub_rn(a.lo[axis], b.hi[axis]), __dsub_rn(b.lo[axis], a.hi[axis])));
        const double span =
            fmax(__dsub_rn(a.hi[axis], b.lo[axis]), __dsub_rn(b.hi[axis], a.lo[axis]));
        minD2 = __dadd_rn(minD2, __dmul_rn(gap, gap));
        maxD2 = __dadd_rn(maxD2, __dmul_rn(span, span));
    }
    const double lo = __dmul_rn(minD2, rules.lowFactor);
    const double hi = __dmul_rn(maxD2, rules.highFactor);
    const double* t = rules.thresholds;
    if (hi < t[0] || lo >= t[rules.binCount])
        return -2;
    if (lo < t[0])
        return -1;
    // Largest k with t[k] <= lo (k < binCount since lo < t[binCount]).
    std::uint32_t k = 0, count = rules.binCount + 1;
    while (count > 0) {
        const std::uint32_t half = count / 2;
        if (t[k + half] <= lo) {
            k += half + 1;
            count -= half + 1;
        } else {
            count = half;
        }
    }
    --k;
    return hi < t[k + 1] ? static_cast<int>(k) : -1;
}

__device__ void appendRun(std::uint32_t a, std::uint32_t bBegin, std::uint32_t bEnd,
                          unsigned long long at, unsigned long long* runKeys,
                          std::uint32_t* runEnds) {
    runKeys[at] = (static_cast<unsigned long long>(a) << 32) | bBegin;
    runEnds[at] = bEnd;
}

// One level of the frontier: each pair judged; settled ones add their pairs whole to their bin,
// open ones at the leaf level become runs, the others their children in the next frontier.
__global__ void expandKernel(const Node* first, const Node* second, const Pair* in,
                             std::uint32_t count, Pair* out, unsigned long long* runKeys,
                             std::uint32_t* runEnds, Counters* counters, unsigned long long* whole,
                             Rules rules) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    atomicAdd(&counters->judged, 1ull);
    const Pair pair = in[i];
    const Node& na = first[pair.a];
    const Node& nb = pair.same ? first[pair.a] : second[pair.b];
    const int verdict = judge(na, nb, rules);
    if (verdict >= 0) {
        const unsigned long long pairs =
            pair.same ? na.points * (na.points - 1) / 2 : na.points * nb.points;
        if (pairs != 0)
            atomicAdd(&whole[verdict], pairs);
        return;
    }
    if (verdict == -2)
        return;
    if (pair.same) {
        if (na.level <= rules.leafLevel) {
            const unsigned long long at = atomicAdd(
                &counters->runs, static_cast<unsigned long long>(na.tileEnd - na.tileBegin));
            for (std::uint32_t t = na.tileBegin; t < na.tileEnd; ++t)
                appendRun(t, t, na.tileEnd, at + (t - na.tileBegin), runKeys, runEnds);
            return;
        }
        const unsigned long long at = atomicAdd(&counters->nextPairs, 3ull);
        out[at] = Pair{na.left, na.left, 1};
        out[at + 1] = Pair{na.right, na.right, 1};
        out[at + 2] = Pair{na.left, na.right, 0};
        return;
    }
    if (na.level <= rules.leafLevel && nb.level <= rules.leafLevel) {
        const unsigned long long at =
            atomicAdd(&counters->runs, static_cast<unsigned long long>(na.tileEnd - na.tileBegin));
        for (std::uint32_t t = na.tileBegin; t < na.tileEnd; ++t)
            appendRun(t, nb.tileBegin, nb.tileEnd, at + (t - na.tileBegin), runKeys, runEnds);
        return;
    }
    const bool openA = !na.isTile() && (nb.isTile() || squaredDiagonal(na) >= squaredDiagonal(nb));
    const unsigned long long at = atomicAdd(&counters->nextPairs, 2ull);
    if (openA) {
        out[at] = Pair{na.left, pair.b, 0};
        out[at + 1] = Pair{na.right, pair.b, 0};
    } else {
        out[at] = Pair{pair.a, nb.left, 0};
        out[at + 1] = Pair{pair.a, nb.right, 0};
    }
}

constexpr std::uint32_t kBlock = 256;

std::uint32_t blocksFor(std::size_t threads) {
    return static_cast<std::uint32_t>((threads + kBlock - 1) / kBlock);
}

// One side's tiles on the device: their boxes and real-point counts.
struct DeviceTiles {
    Buffer<CellBounds> boxes;
    Buffer<std::uint32_t> counts;
};

void upload(const DeviceTraversalSide& side, DeviceTiles& tiles) {
    tiles.boxes.allocate(side.boxes.size(), "boxes");
    tiles.counts.allocate(side.counts.size(), "counts");
    check(cudaMemcpy(tiles.boxes.data, side.boxes.data(), side.boxes.size() * sizeof(CellBounds),
                     cudaMemcpyHostToDevice),
          "boxes up");
    check(cudaMemcpy(tiles.counts.data, side.counts.data(),
                     side.counts.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
          "counts up");
}

// One side's hierarchy on the device; returns its root (kNoChild without tiles).
std::uint32_t buildHierarchy(const DeviceTiles& tilesOnDevice, Buffer<Node>& nodes) {
    const auto tiles = static_cast<std::uint32_t>(tilesOnDevice.boxes.size);
    if (tiles == 0)
        return Node::kNoChild;
    Buffer<std::uint32_t> below, above;
    nodes.allocate(2 * static_cast<std::size_t>(tiles), "nodes");
    below.allocate(tiles, "level");
    above.allocate(tiles, "level");
    tileNodesKernel<<<blocksFor(tiles), kBlock>>>(
        tilesOnDevice.boxes.data, tilesOnDevice.counts.data, nodes.data, below.data, tiles);
    check(cudaGetLastError(), "tile nodes");
    std::uint32_t level = 0, size = tiles, base = tiles;
    while (size > 1) {
        ++level;
        joinLevelKernel<<<blocksFor((size + 1) / 2), kBlock>>>(nodes.data, below.data, size,
                                                               above.data, base, level);
        check(cudaGetLastError(), "join level");
        base += size / 2;
        size = (size + 1) / 2;
        std::swap(below.data, above.data);
    }
    check(cudaDeviceSynchronize(), "hierarchy");
    return base - 1; // the last node made (the tile itself with one tile)
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

DeviceTraversalResult traverseOnDevice(const DeviceTraversalInput& input) {
    DeviceTraversalResult result;
    const std::uint32_t binCount = static_cast<std::uint32_t>(input.thresholds.size()) - 1;
    result.wholePairs.assign(binCount, 0);
    try {
        check(cudaFree(nullptr), "context");
        Buffer<double> thresholds;
        thresholds.allocate(input.thresholds.size(), "thresholds");
        check(cudaMemcpy(thresholds.data, input.thresholds.data(),
                         input.thresholds.size() * sizeof(double), cudaMemcpyHostToDevice),
              "thresholds up");

        Clock::time_point start = Clock::now();
        DeviceTiles firstTiles, secondTiles;
        upload(input.first, firstTiles);
        if (!input.isAuto)
            upload(input.second, secondTiles);
        result.uploadSeconds = since(start);

        start = Clock::now();
        Buffer<Node> firstNodes, secondNodes;
        const std::uint32_t firstRoot = buildHierarchy(firstTiles, firstNodes);
        const std::uint32_t secondRoot =
            input.isAuto ? firstRoot : buildHierarchy(secondTiles, secondNodes);
        result.hierarchySeconds = since(start);
        if (firstRoot == Node::kNoChild || secondRoot == Node::kNoChild)
            return result;

        const Rules rules{thresholds.data, binCount, 1.0 - input.relativeMargin,
                          1.0 + input.relativeMargin, input.leafLevel};
        const Node* second = input.isAuto ? firstNodes.data : secondNodes.data;
        Buffer<Pair> current, next;
        Buffer<unsigned long long> runKeys, whole;
        Buffer<std::uint32_t> runEnds;
        Buffer<Counters> counters;
        counters.allocate(1, "counters");
        whole.allocate(binCount, "whole");
        check(cudaMemset(counters.data, 0, sizeof(Counters)), "counters");
        check(cudaMemset(whole.data, 0, binCount * sizeof(unsigned long long)), "whole");
        current.allocate(1, "frontier");
        const Pair root{firstRoot, secondRoot, input.isAuto ? 1u : 0u};
        check(cudaMemcpy(current.data, &root, sizeof root, cudaMemcpyHostToDevice), "root");
        runKeys.allocate(1 << 16, "runs");
        runEnds.allocate(1 << 16, "runs");

        start = Clock::now();
        const std::size_t leafTiles = std::size_t{1} << input.leafLevel;
        std::size_t pairs = 1, runs = 0;
        Counters seen{};
        while (pairs > 0) {
            // Room for the worst case of this level: three children or a leaf's runs per pair.
            next.grow(3 * pairs, 0, "frontier");
            runKeys.grow(runs + leafTiles * pairs, runs, "runs");
            runEnds.grow(runs + leafTiles * pairs, runs, "runs");
            expandKernel<<<blocksFor(pairs), kBlock>>>(
                firstNodes.data, second, current.data, static_cast<std::uint32_t>(pairs), next.data,
                runKeys.data, runEnds.data, counters.data, whole.data, rules);
            check(cudaGetLastError(), "expand");
            check(cudaMemcpy(&seen, counters.data, sizeof seen, cudaMemcpyDeviceToHost),
                  "counters");
            check(cudaMemset(&counters.data->nextPairs, 0, sizeof seen.nextPairs), "counters");
            ++result.launches;
            pairs = seen.nextPairs;
            runs = seen.runs;
            std::swap(current.data, next.data);
            std::swap(current.size, next.size);
        }
        result.traversalSeconds = since(start);
        result.judged = seen.judged;

        start = Clock::now();
        Buffer<unsigned long long> sortedKeys;
        Buffer<std::uint32_t> sortedEnds;
        sortedKeys.allocate(runs, "sorted runs");
        sortedEnds.allocate(runs, "sorted runs");
        std::size_t scratchBytes = 0;
        check(cub::DeviceRadixSort::SortPairs(nullptr, scratchBytes, runKeys.data, sortedKeys.data,
                                              runEnds.data, sortedEnds.data,
                                              static_cast<int>(runs)),
              "sort size");
        Buffer<unsigned char> scratch;
        scratch.allocate(scratchBytes, "sort scratch");
        check(cub::DeviceRadixSort::SortPairs(scratch.data, scratchBytes, runKeys.data,
                                              sortedKeys.data, runEnds.data, sortedEnds.data,
                                              static_cast<int>(runs)),
              "sort");
        check(cudaDeviceSynchronize(), "sort");
        result.sortSeconds = since(start);

        start = Clock::now();
        std::vector<unsigned long long> keys(runs);
        std::vector<std::uint32_t> ends(runs);
        check(cudaMemcpy(keys.data(), sortedKeys.data, runs * sizeof(unsigned long long),
                         cudaMemcpyDeviceToHost),
              "runs down");
        check(cudaMemcpy(ends.data(), sortedEnds.data, runs * sizeof(std::uint32_t),
                         cudaMemcpyDeviceToHost),
              "runs down");
        static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
        check(cudaMemcpy(result.wholePairs.data(), whole.data, binCount * sizeof(std::uint64_t),
                         cudaMemcpyDeviceToHost),
              "whole down");
        result.downloadSeconds = since(start);
        result.runs.resize(runs);
        for (std::size_t r = 0; r < runs; ++r)
            result.runs[r] = CellPairRun{static_cast<std::uint32_t>(keys[r] >> 32),
                                         static_cast<std::uint32_t>(keys[r]), ends[r]};
    } catch (const std::exception& error) {
        result.error = error.what();
    }
    return result;
}

} // namespace tpacf::gputest
