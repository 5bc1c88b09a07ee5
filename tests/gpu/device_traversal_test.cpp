// SPDX-License-Identifier: GPL-3.0-or-later
// The multi-scale traversal run on the device (device_traversal.cu) against the host's
// (tile_tree.cpp), which the product runs: from the same tiles (made on the host as the device
// makes them), the same tile pairs left to the kernel, the same pairs counted whole bin by bin,
// the same node pairs judged. The catalogs put many node pairs on bin edges (lattices), hold
// exact duplicates, cross the poles and RA = 0, and the bins include edges at 0 and 180°.
//
//   tpacf_gpu_device_traversal_test                 the checks (skipped without a GPU)
//   tpacf_gpu_device_traversal_test --time N TILE MAX_ARCMIN [box]
//        both sides' times for N uniform points (box: the clustered 10^7 box's footprint) in
//        tiles of TILE points, 30 log bins from 0.01' (a measurement aid, not a check)
#include "device_traversal.h"
#include "gpu_schedule.h"
#include "gpu_test_support.h"
#include "host_tiles.h"
#include "tile_tree.h"

#include "tpacf/bins.h"
#include "tpacf/mock.h"
#include "tpacf/work_runner.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace tpacf;
using namespace tpacf::cuda::detail;
using namespace tpacf::gputest;

namespace {

// The pieces the product cuts a task's traversal into (gpu_schedule.cpp).
constexpr std::size_t kPieces = 1024;

TraversalRules rulesFor(const Binning& binning, bool isAuto, std::uint32_t leafLevel) {
    TraversalRules rules;
    rules.thresholds = binning.chord2Edges();
    rules.relativeMargin = kTileBoxMargin;
    rules.isAuto = isAuto;
    rules.leafLevel = leafLevel;
    return rules;
}

TileTree treeOf(const HostTiles& tiles) {
    TileTreeInput input;
    input.bounds = tiles.summary.bounds;
    input.counts = tiles.counts;
    return TileTree(input);
}

// The host's traversal of a whole task on one thread: the root pair as the only piece.
TraversalPiece hostTraversal(const TileTree& first, const TileTree& second,
                             const TraversalRules& rules) {
    if (first.root() == TileTree::kNone || second.root() == TileTree::kNone)
        return {};
    const FrontierPair root{first.root(), rules.isAuto ? first.root() : second.root(),
                            rules.isAuto};
    return traversePiece(first, second, rules, std::span<const FrontierPair>(&root, 1));
}

// Runs sorted by (a, bBegin) with touching ones of one a joined, as the host's piece ends.
std::vector<CellPairRun> joined(const std::vector<CellPairRun>& sorted) {
    std::vector<CellPairRun> out;
    for (const CellPairRun& run : sorted) {
        if (!out.empty() && out.back().a == run.a && out.back().bEnd == run.bBegin)
            out.back().bEnd = run.bEnd;
        else
            out.push_back(run);
    }
    return out;
}

std::vector<std::uint64_t> wholePerBin(const TraversalPiece& piece, std::size_t bins) {
    std::vector<std::uint64_t> perBin(bins, 0);
    for (const WholePairs& whole : piece.whole)
        perBin.at(whole.bin) += whole.pairs;
    return perBin;
}

DeviceTraversalInput deviceInput(const HostTiles& first, const HostTiles* second,
                                 const TraversalRules& rules) {
    DeviceTraversalInput input;
    input.first = {first.summary.bounds, first.counts};
    if (second != nullptr)
        input.second = {second->summary.bounds, second->counts};
    input.isAuto = second == nullptr;
    input.thresholds = rules.thresholds;
    input.relativeMargin = rules.relativeMargin;
    input.leafLevel = rules.leafLevel;
    return input;
}

struct Case {
    std::string name;
    Points a;
    std::optional<Points> b; // none: an auto task
    std::uint32_t tileSize = 256;
    BinSpec bins;
    std::uint32_t leafLevel = 0;
    bool expectsBoth = true; // runs and whole node pairs must both occur (not a vacuous check)
};

void runCase(Stats& stats, const Case& c) {
    const Catalog a = makeCatalog("a", c.a, false, 0);
    const std::optional<Catalog> b =
        c.b ? std::optional<Catalog>(makeCatalog("b", *c.b, false, 0)) : std::nullopt;
    const HostTiles tilesA = makeTiles(a, c.tileSize, nullptr);
    const std::optional<HostTiles> tilesB =
        b ? std::optional<HostTiles>(makeTiles(*b, c.tileSize, nullptr)) : std::nullopt;
    const Binning binning(c.bins);
    const TraversalRules rules = rulesFor(binning, !b, c.leafLevel);
    const TileTree treeA = treeOf(tilesA);
    const std::optional<TileTree> treeB =
        tilesB ? std::optional<TileTree>(treeOf(*tilesB)) : std::nullopt;
    const TraversalPiece host = hostTraversal(treeA, treeB ? *treeB : treeA, rules);
    const DeviceTraversalResult device =
        traverseOnDevice(deviceInput(tilesA, tilesB ? &*tilesB : nullptr, rules));
    if (!expect(stats, device.error.empty(), c.name + ": device traversal: " + device.error))
        return;
    const std::size_t bins = rules.thresholds.size() - 1;
    const std::vector<std::uint64_t> hostWhole = wholePerBin(host, bins);
    const std::vector<CellPairRun> deviceRuns = joined(device.runs);
    bool sameRuns = deviceRuns.size() == host.runs.size();
    std::size_t firstDiff = 0;
    for (; sameRuns && firstDiff < deviceRuns.size(); ++firstDiff) {
        const CellPairRun& x = deviceRuns[firstDiff];
        const CellPairRun& y = host.runs[firstDiff];
        sameRuns = x.a == y.a && x.bBegin == y.bBegin && x.bEnd == y.bEnd;
    }
    expect(stats, sameRuns,
           c.name + ": runs differ (device " + std::to_string(deviceRuns.size()) + ", host " +
               std::to_string(host.runs.size()) + ", at " + std::to_string(firstDiff) + ")");
    for (std::size_t k = 0; k < bins; ++k)
        expect(stats, device.wholePairs[k] == hostWhole[k],
               c.name + ": bin " + std::to_string(k) + " whole pairs " +
                   std::to_string(device.wholePairs[k]) + " against the host's " +
                   std::to_string(hostWhole[k]));
    expect(stats, device.judged == host.judged,
           c.name + ": judged " + std::to_string(device.judged) + " against the host's " +
               std::to_string(host.judged));
    std::uint64_t whole = 0;
    for (std::uint64_t pairs : hostWhole)
        whole += pairs;
    if (c.expectsBoth)
        expect(stats, !host.runs.empty() && whole > 0,
               c.name + ": the case has no runs or no whole node pairs");
    std::printf("%s %s: %zu tiles, %llu node pairs judged in %u levels, %zu runs, %llu pairs "
                "whole\n",
                sameRuns ? "ok  " : "FAIL", c.name.c_str(), tilesA.counts.size(),
                static_cast<unsigned long long>(device.judged), device.launches, deviceRuns.size(),
                static_cast<unsigned long long>(whole));
}

int runChecks() {
    Stats stats;
    const BinSpec to10 = BinSpec::logCount(0.01, 600, AngleUnit::Arcminute, 30);
    const BinSpec fullRange = BinSpec::logCount(0.01, 10800, AngleUnit::Arcminute, 30);
    const BinSpec linear = BinSpec::linearCount(0, 180, AngleUnit::Degree, 72); // 2.5° wide
    const BinSpec edgeList =
        BinSpec::fromEdges({0, 0.5, 2.5, 5, 7.5, 30, 90, 180}, AngleUnit::Degree);
    const std::vector<Case> cases = {
        // Tiles of a few points, so that node pairs settle whole at every scale; then the
        // product's tile sizes, where 20001 uniform points leave nothing whole.
        {"uniform 20001, 2-point tiles, to 10°, leaf level 2", uniform(20001, 1), {}, 2, to10, 2},
        {"uniform 20001, 4-point tiles, 0.01'-180°", uniform(20001, 2), {}, 4, fullRange, 0},
        {"uniform 20001, 1-point tiles, 0.01'-180°, leaf level 4",
         uniform(20001, 3),
         {},
         1,
         fullRange,
         4},
        {"uniform 20001, 256-point tiles, to 10°, leaf level 2",
         uniform(20001, 18),
         {},
         256,
         to10,
         2,
         false},
        {"uniform 20001, 1024-point tiles, 0.01'-180°",
         uniform(20001, 19),
         {},
         1024,
         fullRange,
         0,
         false},
        {"clumps with duplicates 20001, 64-point tiles, to 10°",
         clustered(20001, 4),
         {},
         64,
         to10,
         1},
        {"lattice 2.5°, 4-point tiles, linear 2.5° bins 0-180°", lattice(2.5, 5), {}, 4, linear, 0},
        {"lattice 2.5°, 16-point tiles, edges 0 ... 180°, leaf level 2",
         lattice(2.5, 6),
         {},
         16,
         edgeList,
         2},
        {"lattice 5° x lattice 2.5°, 8-point tiles, linear bins", lattice(5, 7), lattice(2.5, 8), 8,
         linear, 1},
        {"uniform 20001 x clumps 15000, 4-point tiles, to 10°, leaf level 1", uniform(20001, 9),
         clustered(15000, 10), 4, to10, 1},
        {"clumps 5000 x uniform 7000, 1-point tiles, 0.01'-180°", clustered(5000, 11),
         uniform(7000, 12), 1, fullRange, 3},
        {"uniform 3 points, 1-point tiles (a level with an odd node)",
         uniform(3, 13),
         {},
         1,
         fullRange,
         0,
         false},
        {"uniform 1 point", uniform(1, 14), {}, 256, fullRange, 0, false},
        {"no points", uniform(0, 15), {}, 256, fullRange, 0, false},
        {"no points x uniform 1000", uniform(0, 16), uniform(1000, 17), 256, fullRange, 0, false},
    };
    for (const Case& c : cases)
        runCase(stats, c);
    return finish(stats);
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The host's traversal as buildCulledSchedule runs it: the hierarchy, the frontier cut into
// pieces, the pieces on every core. Returns its runs (for the digest) and times its steps.
struct HostTimes {
    double hierarchy = 0, traversal = 0;
    std::size_t runs = 0;
};
HostTimes timeHostTraversal(const HostTiles& tiles, const TraversalRules& rules) {
    HostTimes times;
    Clock::time_point start = Clock::now();
    const TileTree tree = treeOf(tiles);
    times.hierarchy = since(start);
    start = Clock::now();
    TraversalFrontier frontier = traversalFrontier(tree, tree, rules, kPieces);
    std::vector<TraversalPiece> found(frontier.pieces.size());
    std::atomic<std::size_t> next{0};
    runWorkers(workerCount(0, found.size()), [&](std::size_t, const std::atomic<bool>&) {
        for (std::size_t p = next++; p < found.size(); p = next++)
            found[p] = traversePiece(tree, tree, rules, frontier.pieces[p]);
    });
    times.traversal = since(start);
    times.runs = frontier.top.runs.size();
    for (const TraversalPiece& piece : found)
        times.runs += piece.runs.size();
    return times;
}

int timeBoth(std::size_t n, std::uint32_t tileSize, double maxArcmin, const std::string& kind) {
    const Catalog catalog = timingCatalog(n, kind, kind);
    const Binning binning(BinSpec::logCount(0.01, maxArcmin, AngleUnit::Arcminute, 30));
    std::uint32_t leafLevel = 0; // as buildCulledSchedule: blocks of ~1024 points
    for (std::uint64_t points = tileSize; points < 1024; points *= 2)
        ++leafLevel;
    const TraversalRules rules = rulesFor(binning, true, leafLevel);
    const std::vector<CountTask> tasks{CountTask{&catalog, nullptr}};
    const BatchCatalogs batch = indexBatch(tasks);
    const PlainTiles plain(batch, tileSize, binning);
    const CulledInputs inputs = plain.inputs();
    HostTiles tiles;
    tiles.counts = plain.tileCounts[0];
    tiles.summary = plain.summaries[0];
    std::printf("%zu points (%s), %zu tiles of %u, 0.01'-%g', %zu host threads\n", n, kind.c_str(),
                tiles.counts.size(), tileSize, maxArcmin, hardwareThreads());
    traverseOnDevice(deviceInput(tiles, nullptr, rules)); // loads the module, warms the pool
    for (int round = 0; round < 3; ++round) {
        const HostTimes host = timeHostTraversal(tiles, rules);
        Clock::time_point start = Clock::now();
        const Schedule schedule = buildCulledSchedule(tasks, batch, inputs, tileSize, WorkShare{});
        const double scheduleSeconds = since(start);
        const DeviceTraversalResult device = traverseOnDevice(deviceInput(tiles, nullptr, rules));
        if (!device.error.empty()) {
            std::printf("device traversal: %s\n", device.error.c_str());
            return 1;
        }
        std::printf("host: hierarchy %.2f ms, traversal %.2f ms (%zu runs; the whole list %.2f "
                    "ms, %zu units) | device: boxes up %.2f ms, hierarchy %.2f ms, traversal "
                    "%.2f ms in %u levels (%zu runs, %llu judged), runs sorted %.2f ms, down "
                    "%.2f ms\n",
                    1e3 * host.hierarchy, 1e3 * host.traversal, host.runs, 1e3 * scheduleSeconds,
                    schedule.units.size(), 1e3 * device.uploadSeconds,
                    1e3 * device.hierarchySeconds, 1e3 * device.traversalSeconds, device.launches,
                    joined(device.runs).size(), static_cast<unsigned long long>(device.judged),
                    1e3 * device.sortSeconds, 1e3 * device.downloadSeconds);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIP: no CUDA device\n");
        return kSkip;
    }
    if (argc >= 5 && std::string(argv[1]) == "--time")
        return timeBoth(std::stoul(argv[2]), static_cast<std::uint32_t>(std::stoul(argv[3])),
                        std::stod(argv[4]), argc >= 6 ? argv[5] : "uniform");
    return runChecks();
}
