// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/separation_moments.h"

#include "counting/sky_cells.h"
#include "tpacf/culling.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>

namespace tpacf {

SeparationMoments SeparationMoments::zeros(std::size_t binCount) {
    SeparationMoments moments;
    moments.pairs.assign(binCount, 0);
    moments.weight.assign(binCount, 0.0);
    moments.theta.assign(binCount, 0.0);
    moments.logTheta.assign(binCount, 0.0);
    return moments;
}

void SeparationMoments::add(const SeparationMoments& other) {
    if (other.binCount() != binCount())
        throw ConfigError("mean separations of " + std::to_string(other.binCount()) +
                          " bins cannot be added to those of " + std::to_string(binCount()));
    for (std::size_t k = 0; k < binCount(); ++k) {
        pairs[k] += other.pairs[k];
        weight[k] += other.weight[k];
        theta[k] += other.theta[k];
        logTheta[k] += other.logTheta[k];
    }
}

double SeparationMoments::meanTheta(std::size_t bin) const noexcept {
    return weight[bin] != 0 ? theta[bin] / weight[bin] : std::numeric_limits<double>::quiet_NaN();
}

double SeparationMoments::meanLogTheta(std::size_t bin) const noexcept {
    return weight[bin] != 0 ? logTheta[bin] / weight[bin]
                            : std::numeric_limits<double>::quiet_NaN();
}

namespace {

// Cells of at most this many points: small against the reach of the bins for the catalogs this
// pass is run on (N = 1e6: cells of ~1.6° on the full sky), so the listed cell pairs hold few
// pairs beyond θ_max, and one GPU block's worth of a-points.
constexpr std::size_t kMomentsCellPopulation = 64;

sky::Poll pollOf(const CountControl& control) {
    return [&control] {
        if (control.cancelled())
            throw Cancelled();
    };
}

template <class Buffer> std::vector<double> copied(const Buffer& values) {
    return std::vector<double>(values.begin(), values.end());
}

/// Blocks of one cell-pair run: the diagonal cell of an auto task alone (pairs i < j), the rest
/// of the run's b cells cut into spans of at most kMomentsBlockSpan points.
void appendBlocks(const CellPairRun& run, const sky::CellPartition& cellsA,
                  const sky::CellPartition& cellsB, MomentsBlock block, bool isAuto,
                  std::vector<MomentsBlock>& blocks) {
    block.aBegin = static_cast<std::uint32_t>(cellsA.start[run.a]);
    block.aEnd = static_cast<std::uint32_t>(cellsA.start[run.a + 1]);
    std::uint32_t bCell = run.bBegin;
    if (isAuto && bCell == run.a) {
        MomentsBlock diagonal = block;
        diagonal.bBegin = block.aBegin;
        diagonal.bEnd = block.aEnd;
        diagonal.diagonal = 1;
        blocks.push_back(diagonal);
        ++bCell;
    }
    if (bCell >= run.bEnd)
        return;
    const std::size_t from = cellsB.start[bCell], to = cellsB.start[run.bEnd];
    for (std::size_t begin = from; begin < to; begin += kMomentsBlockSpan) {
        block.bBegin = static_cast<std::uint32_t>(begin);
        block.bEnd = static_cast<std::uint32_t>(std::min<std::size_t>(to, begin + kMomentsBlockSpan));
        blocks.push_back(block);
    }
}

} // namespace

MomentsPlan planSeparationMoments(std::span<const CountTask> tasks, const Binning& binning,
                                  int threads, const CountControl& control) {
    const sky::Poll poll = pollOf(control);
    const std::size_t workers = workerCount(threads, tasks.size() * 2);
    MomentsPlan plan;
    plan.taskCount = tasks.size();
    std::vector<const Catalog*> distinct;
    const auto indexOf = [&](const Catalog* catalog) {
        const auto known = std::find(distinct.begin(), distinct.end(), catalog);
        if (known != distinct.end())
            return static_cast<std::uint32_t>(known - distinct.begin());
        if (catalog->size() >= std::numeric_limits<std::uint32_t>::max())
            throw ConfigError("mean separation: a catalog of " + std::to_string(catalog->size()) +
                              " points is beyond what one pass indexes (2^32)");
        distinct.push_back(catalog);
        return static_cast<std::uint32_t>(distinct.size() - 1);
    };
    struct TaskCats {
        std::uint32_t first, second;
    };
    std::vector<TaskCats> taskCats;
    for (const CountTask& task : tasks) {
        const std::uint32_t first = indexOf(task.first);
        taskCats.push_back({first, task.second ? indexOf(task.second) : first});
        plan.weighted.push_back(task.weighted() ? 1 : 0);
    }

    std::vector<sky::SortedCatalog> sorted(distinct.size());
    sky::forEachItem(distinct.size(), workers, poll, [&](std::size_t c, const sky::Poll& itemPoll) {
        sorted[c] = sky::sortCatalog(*distinct[c], 0, itemPoll, 1);
    });
    std::vector<sky::CellPartition> cells(distinct.size());
    plan.catalogs.resize(distinct.size());
    sky::forEachItem(distinct.size(), workers, poll, [&](std::size_t c) {
        cells[c] = sky::partitionCells(sorted[c], kMomentsCellPopulation);
        MomentsCatalog& catalog = plan.catalogs[c];
        catalog.x = copied(sorted[c].x);
        catalog.y = copied(sorted[c].y);
        catalog.z = copied(sorted[c].z);
        catalog.w = copied(sorted[c].w);
        sorted[c] = {};
    });

    const std::span<const double> edges = binning.chord2Edges();
    std::vector<std::vector<MomentsBlock>> taskBlocks(tasks.size());
    sky::forEachItem(tasks.size(), workers, poll, [&](std::size_t t) {
        const auto [first, second] = taskCats[t];
        CellPairQuery query;
        query.chord2Min = edges.front();
        query.chord2Max = edges.back();
        query.autoPairs = tasks[t].isAuto();
        const std::vector<CellPairRun> runs =
            listCellPairs(cells[first].bounds, cells[second].bounds, query);
        MomentsBlock block;
        block.task = static_cast<std::uint32_t>(t);
        block.catA = first;
        block.catB = second;
        for (const CellPairRun& run : runs)
            appendBlocks(run, cells[first], cells[second], block, tasks[t].isAuto(),
                         taskBlocks[t]);
    });
    for (std::vector<MomentsBlock>& blocks : taskBlocks)
        plan.blocks.insert(plan.blocks.end(), blocks.begin(), blocks.end());
    for (const MomentsBlock& block : plan.blocks)
        plan.pairsVisited += block.pairs();
    return plan;
}

namespace {

/// One pair into the sums: binned as Binning::binOfChord2, on the c² the CPU kernels compute.
struct MomentsAccumulator {
    std::span<const double> edges;
    SeparationMoments sums;

    void add(double dx, double dy, double dz, double weight) {
        const double c2 = dx * dx + dy * dy + dz * dz;
        if (!(c2 >= edges.front() && c2 < edges.back()))
            return;
        const auto above = std::upper_bound(edges.begin(), edges.end(), c2);
        const auto bin = static_cast<std::size_t>(above - edges.begin()) - 1;
        const double theta = separationOfChord2(c2);
        sums.pairs[bin] += 1;
        sums.weight[bin] += weight;
        sums.theta[bin] += weight * theta;
        sums.logTheta[bin] += weight * std::log(theta);
    }
};

void walkBlock(const MomentsPlan& plan, const MomentsBlock& block, MomentsAccumulator& sums) {
    const MomentsCatalog& a = plan.catalogs[block.catA];
    const MomentsCatalog& b = plan.catalogs[block.catB];
    const bool weighted = plan.weighted[block.task] != 0;
    for (std::uint32_t i = block.aBegin; i < block.aEnd; ++i) {
        const double wi = weighted && !a.w.empty() ? a.w[i] : 1.0;
        for (std::uint32_t j = block.diagonal ? i + 1 : block.bBegin; j < block.bEnd; ++j) {
            const double w = weighted && !b.w.empty() ? wi * b.w[j] : wi;
            sums.add(a.x[i] - b.x[j], a.y[i] - b.y[j], a.z[i] - b.z[j], w);
        }
    }
}

} // namespace

std::vector<SeparationMoments> walkMomentsPlanOnCpu(const MomentsPlan& plan,
                                                    const Binning& binning, int threads,
                                                    const CountControl& control) {
    const std::size_t binCount = binning.count();
    std::vector<SeparationMoments> result(plan.taskCount, SeparationMoments::zeros(binCount));
    std::mutex resultLock;
    std::atomic<std::uint64_t> pairsDone{0};
    auto lastReport = std::chrono::steady_clock::now();
    const sky::Poll poll = [&] {
        if (control.cancelled())
            throw Cancelled();
        const auto now = std::chrono::steady_clock::now();
        if (!control.onProgress || now - lastReport < control.progressEvery)
            return;
        lastReport = now;
        CountProgress progress;
        progress.pairsDone = pairsDone.load(std::memory_order_relaxed);
        progress.pairsTotal = plan.pairsVisited;
        control.onProgress(progress);
    };
    // Blocks of one task follow each other: a worker's sums go to the shared ones per block.
    sky::forEachItem(plan.blocks.size(), workerCount(threads, plan.blocks.size()), poll,
                     [&](std::size_t item) {
                         const MomentsBlock& block = plan.blocks[item];
                         MomentsAccumulator sums{binning.chord2Edges(),
                                                 SeparationMoments::zeros(binCount)};
                         walkBlock(plan, block, sums);
                         {
                             const std::lock_guard lock(resultLock);
                             result[block.task].add(sums.sums);
                         }
                         pairsDone.fetch_add(block.pairs(), std::memory_order_relaxed);
                     });
    return result;
}

std::vector<SeparationMoments> countSeparationMomentsOnCpu(std::span<const CountTask> tasks,
                                                           const Binning& binning, int threads,
                                                           const CountControl& control) {
    return walkMomentsPlanOnCpu(planSeparationMoments(tasks, binning, threads, control), binning,
                                threads, control);
}

} // namespace tpacf
