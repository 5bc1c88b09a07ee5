// SPDX-License-Identifier: GPL-3.0-or-later
// The cell-pair plan behind the CPU backend's culled path, over the cells of sky_cells.cpp.
//
// Which pairs are counted: listCellPairs (the list every backend uses) runs over coarse cells,
// groups of up to kCoarseCells cells that are octree nodes, and drops the coarse pairs out of
// reach of the bins. Each listed coarse pair is then refined by a dual descent of the two
// octrees: a node pair whose boxes put every pair into one bin is added whole (points × points),
// one entirely outside the bins is dropped, and the single cell pairs left are counted by the
// kernels. Whole node pairs are what keeps the culled path ahead of brute force at large θ_max.
//
// Which population (cells of how many points) planCellPairs takes is chosen in
// sky_cell_population.cpp, over plans made here. The dual descent is sky_cell_refiner.cpp's; the
// runs to count are built in sky_cell_runs.cpp.
#include "counting/sky_cell_plan.h"
#include "counting/sky_cell_refiner.h"
#include "counting/sky_cells.h"

#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace tpacf::sky {

namespace {

// Smallest cell population: below this a cell pair costs more to list and call than to count.
constexpr std::size_t kMinPopulation = 8;
// Cells per coarse cell, the cells listCellPairs sees: few enough coarse cells that the list is
// cheap, small enough that it prunes the far pairs before the descent.
constexpr std::uint32_t kCoarseCells = 16;
// Coarse pairs below which refining them on one thread is cheaper than starting others.
constexpr std::uint64_t kMinCoarsePairsPerThread = 256;
// Box tests between two polls.
constexpr std::uint64_t kCheckPollStride = 4096;

// The coarse cells listCellPairs sees: the largest tree nodes of at most kCoarseCells cells, in
// cell order. Their boxes are the nodes' boxes, so the descent below starts from a listed coarse
// pair with nothing else to look up.
void collectCoarse(const CellPartition& cells, std::uint32_t node,
                   std::vector<std::uint32_t>& out) {
    const CellNode& n = cells.nodes[node];
    if (n.cellEnd - n.cellBegin <= kCoarseCells || n.isCell()) {
        out.push_back(node);
        return;
    }
    for (std::uint32_t c = n.childBegin; c < n.childEnd; ++c)
        collectCoarse(cells, cells.children[c], out);
}

// A piece of one task's coarse list that one refiner works through: runs [first, end).
struct RefineChunk {
    std::size_t task, first, end;
};

// Refines the chunks of every task on `threads` workers of the runner (on the calling thread
// where the lists are short), each chunk with its own refiner (makeRefiner(chunk, output));
// refineOne(chunk, run, b, refiner) refines one coarse pair. The caller absorbs each task's
// chunks in list order, so the result is the same as one refiner's whatever the thread count.
// Only the calling thread polls; a poll that throws stops and joins the workers first.
template <class MakeRefiner, class RefineOne>
void refineChunks(const std::vector<RefineChunk>& chunks, std::uint64_t coarsePairs,
                  std::size_t threads, const Poll& poll, MakeRefiner&& makeRefiner,
                  RefineOne&& refineOne, std::vector<std::optional<DualRefiner>>& parts,
                  std::vector<TaskCellPlan>& outputs) {
    const std::size_t helpers = coarsePairs < kMinCoarsePairsPerThread ? 0 : threads - 1;
    std::atomic<std::size_t> nextChunk{0};

    // caller: the calling thread refines alone and polls between box tests.
    const auto work = [&](bool caller, const std::atomic<bool>& stop) {
        std::uint64_t sincePoll = 0;
        for (std::size_t c; (c = nextChunk.fetch_add(1)) < chunks.size();) {
            DualRefiner& part = parts[c].emplace(makeRefiner(chunks[c], outputs[c]));
            for (std::size_t r = chunks[c].first; r < chunks[c].end; ++r) {
                if (stop.load(std::memory_order_relaxed))
                    return;
                const std::uint64_t before = part.checks();
                if (!refineOne(chunks[c], r, part))
                    continue;
                sincePoll += part.checks() - before;
                if (caller && sincePoll >= kCheckPollStride) {
                    sincePoll = 0;
                    poll();
                }
            }
            part.flushWhole();
        }
    };

    if (helpers == 0) {
        const std::atomic<bool> never{false};
        work(true, never);
    } else {
        // The calling thread only watches: it polls (progress, cancel) while the workers refine;
        // a poll that throws stops them, and the error comes back once they are joined.
        RunnerWatch watch;
        watch.tick = poll;
        watch.interval = std::chrono::milliseconds(5);
        runWorkers(
            helpers + 1, [&](std::size_t, const std::atomic<bool>& stop) { work(false, stop); },
            watch);
    }
}

// Every catalog cut into cells for `population` (of the largest catalog; equal cell sizes on
// the sky for catalogs of one footprint: the others' populations scale with their size), the
// catalogs on parallel workers.
std::vector<CellPartition> partitionAll(std::span<const SortedCatalog> catalogs,
                                        std::size_t population, const Poll& poll,
                                        std::size_t threads) {
    std::size_t largest = 0;
    for (const SortedCatalog& catalog : catalogs)
        largest = std::max(largest, catalog.size());
    std::vector<CellPartition> cells(catalogs.size());
    // Each catalog's partition shares the workers, so that a batch of two catalogs uses them all.
    const std::size_t perCatalog =
        std::max<std::size_t>(1, threads / std::max<std::size_t>(1, catalogs.size()));
    forEachItem(catalogs.size(), threads, poll, [&](std::size_t c, const Poll& itemPoll) {
        const SortedCatalog& catalog = catalogs[c];
        const std::size_t scaled =
            largest == 0 ? population
                         : std::max(kMinPopulation, population * catalog.size() / largest);
        cells[c] = partitionCells(catalog, std::min(population, scaled), perCatalog, itemPoll);
    });
    return cells;
}

// The coarse cells of every catalog (collectCoarse's tree nodes) and their boxes.
struct CoarseCells {
    std::vector<std::vector<std::uint32_t>> nodes; // per catalog: tree nodes
    std::vector<std::vector<CellBounds>> bounds;   // per catalog: their boxes
};
CoarseCells coarseCellsOf(const std::vector<CellPartition>& cells) {
    CoarseCells coarse;
    coarse.nodes.resize(cells.size());
    coarse.bounds.resize(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c) {
        const CellPartition& partition = cells[c];
        if (partition.root >= 0)
            collectCoarse(partition, static_cast<std::uint32_t>(partition.root), coarse.nodes[c]);
        for (std::uint32_t node : coarse.nodes[c])
            coarse.bounds[c].push_back(partition.nodes[node].box);
    }
    return coarse;
}

std::size_t secondOf(const CellTask& task) {
    return task.isAuto ? task.first : task.second;
}

// Per task: the coarse pairs within reach of the bins, and the stride of the sample priced.
struct CoarseLists {
    std::vector<std::vector<CellPairRun>> listed;
    std::vector<std::uint32_t> strides;
};

// Every task's output zeroed (regions × bins whole counts) and its coarse list, on parallel
// workers.
CoarseLists listCoarsePairs(std::span<const CellTask> tasks, const CoarseCells& coarse,
                            std::span<const double> chord2Edges, std::size_t regions,
                            std::vector<TaskCellPlan>& outputs, const Poll& poll,
                            std::size_t threads, std::uint32_t maxSampleStride) {
    const std::size_t bins = chord2Edges.size() - 1;
    CoarseLists lists;
    lists.listed.resize(tasks.size());
    lists.strides.resize(tasks.size());
    const auto listTask = [&](std::size_t t, std::size_t listThreads) {
        const CellTask& task = tasks[t];
        TaskCellPlan& out = outputs[t];
        out.wholeByFirst.assign(regions * bins, 0);
        out.wholeBySecond.assign(regions * bins, 0);
        out.wholeWithin.assign(regions * bins, 0);
        if (task.weighted) {
            out.wholeWeightedByFirst.assign(regions * bins, 0.0);
            out.wholeWeightedBySecondOnly.assign(regions * bins, 0.0);
            out.wholeWeightedWithin.assign(regions * bins, 0.0);
        }
        CellPairQuery query;
        query.chord2Min = chord2Edges.front();
        query.chord2Max = chord2Edges.back();
        // The bounds are exact for the double kernels (see boxMinChord2); the margin is spare.
        query.relativeMargin = 1e-12;
        query.autoPairs = task.isAuto;
        // Sample only where at least ~128 coarse cells of the first catalog are left to price
        // (clustered catalogs put much of the work in a few clumps).
        lists.strides[t] = static_cast<std::uint32_t>(std::clamp<std::size_t>(
            coarse.nodes[task.first].size() / 128, 1, std::max<std::uint32_t>(1, maxSampleStride)));
        lists.listed[t] = sampledCellPairs(coarse.bounds[task.first], coarse.bounds[secondOf(task)],
                                           query, lists.strides[t], listThreads);
    };
    // Many tasks: a task per worker; few: every task at once, the workers shared among them (a
    // list on one thread took 0.07 s of a 0.39 s plan on 32 threads, BENCHMARKS.md).
    const std::size_t perTask =
        std::max<std::size_t>(1, threads / std::max<std::size_t>(1, tasks.size()));
    forEachItem(tasks.size(), std::min(threads, tasks.size()), poll,
                [&](std::size_t t) { listTask(t, perTask); });
    return lists;
}

// Chunks of every task's list in order: a few per thread and task, so that clumps of a
// clustered catalog, and small tasks beside large ones, leave no thread idle.
struct RefineChunks {
    std::vector<RefineChunk> chunks;
    std::vector<std::size_t> firstChunk; // per task, + 1
    std::uint64_t coarsePairs = 0;       // the sampled coarse pairs of all tasks
};
RefineChunks cutRefineChunks(const CoarseLists& lists, std::size_t threads) {
    RefineChunks out;
    for (std::size_t t = 0; t < lists.listed.size(); ++t) {
        out.firstChunk.push_back(out.chunks.size());
        const std::vector<CellPairRun>& list = lists.listed[t];
        const std::uint32_t stride = lists.strides[t];
        std::uint64_t taskPairs = 0;
        for (const CellPairRun& run : list)
            if (run.a % stride == 0)
                taskPairs += run.bEnd - run.bBegin;
        out.coarsePairs += taskPairs;
        const std::uint64_t chunkPairs = std::max<std::uint64_t>(1, taskPairs / (8 * threads));
        std::uint64_t inChunk = 0;
        std::size_t first = 0;
        for (std::size_t r = 0; r < list.size(); ++r) {
            if (list[r].a % stride == 0)
                inChunk += list[r].bEnd - list[r].bBegin;
            if (inChunk >= chunkPairs || r + 1 == list.size()) {
                out.chunks.push_back({t, first, r + 1});
                first = r + 1;
                inChunk = 0;
            }
        }
    }
    out.firstChunk.push_back(out.chunks.size());
    return out;
}

} // namespace

std::vector<CellPairRun> sampledCellPairs(std::span<const CellBounds> cellsA,
                                          std::span<const CellBounds> cellsB, CellPairQuery query,
                                          std::uint32_t stride, std::size_t threads) {
    if (stride <= 1)
        return listCellPairs(cellsA, cellsB, query, threads);
    std::vector<CellBounds> sampled;
    for (std::size_t a = 0; a < cellsA.size(); a += stride)
        sampled.push_back(cellsA[a]);
    const bool autoPairs = query.autoPairs;
    query.autoPairs = false;
    std::vector<CellPairRun> runs =
        listCellPairs(sampled, autoPairs ? cellsA : cellsB, query, threads);
    std::size_t kept = 0;
    for (CellPairRun run : runs) {
        run.a *= stride;
        if (autoPairs)
            run.bBegin = std::max(run.bBegin, run.a);
        if (run.bBegin < run.bEnd)
            runs[kept++] = run;
    }
    runs.resize(kept);
    return runs;
}

// The plan of every task over given cells (partitionAll's for `population`). Tasks are listed,
// refined and finished on parallel workers; each task's result is the same as on one thread.
CellPlan planOverCells(std::vector<CellPartition> cells, std::span<const CellTask> tasks,
                       std::span<const double> chord2Edges, std::size_t regionCount,
                       std::size_t population, const Poll& poll, std::size_t threads,
                       std::uint32_t maxSampleStride) {
    threads = std::max<std::size_t>(1, threads);
    CellPlan plan;
    plan.population = population;
    plan.cells = std::move(cells);
    const CoarseCells coarse = coarseCellsOf(plan.cells);
    const std::size_t bins = chord2Edges.size() - 1;
    plan.tasks.resize(tasks.size());
    CoarseLists lists =
        listCoarsePairs(tasks, coarse, chord2Edges, std::max<std::size_t>(1, regionCount),
                        plan.tasks, poll, threads, maxSampleStride);
    const std::vector<std::uint32_t>& strides = lists.strides;
    for (const std::vector<CellPairRun>& list : lists.listed)
        plan.listedCellPairs += cellPairCount(list);

    // Each task's whole-cell counts, which the refiners of all its chunks add to.
    std::vector<std::unique_ptr<WholeCounts>> whole;
    for (std::size_t t = 0; t < tasks.size(); ++t)
        whole.push_back(std::make_unique<WholeCounts>(plan.tasks[t], bins));
    const RefineChunks cut = cutRefineChunks(lists, threads);
    std::vector<TaskCellPlan> outputs(cut.chunks.size());
    std::vector<std::optional<DualRefiner>> parts(cut.chunks.size());
    refineChunks(
        cut.chunks, cut.coarsePairs, threads, poll,
        [&](const RefineChunk& chunk, TaskCellPlan& part) {
            const CellTask& task = tasks[chunk.task];
            return DualRefiner(task, plan.cells[task.first], plan.cells[secondOf(task)],
                               chord2Edges, part, *whole[chunk.task]);
        },
        [&](const RefineChunk& chunk, std::size_t r, DualRefiner& part) {
            const CellPairRun& run = lists.listed[chunk.task][r];
            if (run.a % strides[chunk.task] != 0)
                return false;
            const CellTask& task = tasks[chunk.task];
            for (std::uint32_t b = run.bBegin; b < run.bEnd; ++b)
                part.refine(coarse.nodes[task.first][run.a], coarse.nodes[secondOf(task)][b]);
            return true;
        },
        parts, outputs);
    lists.listed = {};

    // Each task finished over its chunks' refiners: its runs, box tests and modelled cost.
    std::vector<double> costs(tasks.size());
    std::vector<std::uint64_t> checks(tasks.size());
    const auto finishTask = [&](std::size_t t, std::size_t innerThreads, const Poll& innerPoll) {
        const CellTask& task = tasks[t];
        TaskCellPlan& out = plan.tasks[t];
        DualRefiner refiner(task, plan.cells[task.first], plan.cells[secondOf(task)], chord2Edges,
                            out, *whole[t]);
        const std::uint64_t rows = refiner.finish(
            std::span(parts).subspan(cut.firstChunk[t], cut.firstChunk[t + 1] - cut.firstChunk[t]),
            innerThreads, innerPoll);
        checks[t] = refiner.checks();
        costs[t] = (static_cast<double>(out.countedPairs) + kRowCost * static_cast<double>(rows) +
                    kRunCost * static_cast<double>(out.runs.size()) +
                    kCheckCost * static_cast<double>(refiner.checks())) *
                   strides[t];
    };
    // Many tasks: a task per worker; few: one after the other, each on every worker.
    if (tasks.size() >= threads) {
        const Poll onWorker = [] {}; // only the calling thread polls
        forEachItem(tasks.size(), threads, poll,
                    [&](std::size_t t) { finishTask(t, 1, onWorker); });
    } else {
        for (std::size_t t = 0; t < tasks.size(); ++t)
            finishTask(t, threads, poll);
    }
    double cost = 0;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        plan.checks += checks[t] * strides[t];
        cost += costs[t];
    }
    plan.cost = cost;
    return plan;
}

CellPlan planForPopulation(std::span<const SortedCatalog> catalogs, std::span<const CellTask> tasks,
                           std::span<const double> chord2Edges, std::size_t regionCount,
                           std::size_t population, const Poll& poll, std::size_t threads,
                           std::uint32_t maxSampleStride) {
    return planOverCells(partitionAll(catalogs, population, poll, threads), tasks, chord2Edges,
                         regionCount, population, poll, threads, maxSampleStride);
}

} // namespace tpacf::sky
