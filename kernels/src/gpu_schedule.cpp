// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend's host-side schedule (plain C++): catalogs, tiles, the work list and its
// shares, the device threads' cursor. See gpu_schedule.h and docs/gpu-kernel-notes.md.
#include "gpu_schedule.h"
#include "spread_blocks.h"
#include "whole_sums.h"

#include "tpacf/errors.h"
#include "tpacf/spread_order.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

namespace tpacf::cuda::detail {
namespace {

/// Pieces of a task's traversal (buildCulledSchedule): nodes of its first hierarchy, enough to
/// keep a host's cores busy; a fixed number, so that every rank of an MPI job lists alike.
constexpr std::size_t kTraversalPieces = 1024;

/// Tile runs of some whole i-tile rows of one task.
struct TaskPiece {
    std::size_t task = 0;
    std::vector<CellPairRun> runs;
};

/// Coarse cell of a unit vector: 2^level per axis, bits interleaved (Morton order).
std::uint32_t coarseCell(double x, double y, double z, int level) {
    const double side = static_cast<double>(1 << level);
    auto quantise = [&](double v) {
        return static_cast<std::uint32_t>(std::clamp((v + 1.0) * 0.5 * side, 0.0, side - 1.0));
    };
    const std::uint32_t q[3] = {quantise(x), quantise(y), quantise(z)};
    std::uint32_t cell = 0;
    for (int bit = level - 1; bit >= 0; --bit)
        for (int axis = 0; axis < 3; ++axis)
            cell = (cell << 1) | ((q[axis] >> bit) & 1u);
    return cell;
}

/// Tile runs of every tile pair of a task (culling off): row a against every j-tile, only the
/// upper triangle (b >= a, the diagonal tile included) for auto tasks.
std::vector<CellPairRun> denseRuns(bool isAuto, std::size_t tilesA, std::size_t tilesB) {
    std::vector<CellPairRun> runs;
    runs.reserve(tilesA);
    for (std::size_t a = 0; a < tilesA; ++a) {
        const std::size_t from = isAuto ? a : 0;
        if (from < tilesB)
            runs.push_back(CellPairRun{static_cast<std::uint32_t>(a),
                                       static_cast<std::uint32_t>(from),
                                       static_cast<std::uint32_t>(tilesB)});
    }
    return runs;
}

/// The share's unit range and each task's progress total in it.
void applyShare(Schedule& schedule, std::span<const CountTask> tasks, WorkShare share) {
    schedule.shareBegin = shareBoundary(schedule.workPrefix, share.part, share.parts);
    schedule.shareEnd = shareBoundary(schedule.workPrefix, share.part + 1, share.parts);
    schedule.shareTaskTotals.assign(tasks.size(), 0);
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const auto [taskBegin, taskEnd] = schedule.taskUnits[t];
        if (taskBegin == taskEnd) {
            if (share.part == 0)
                schedule.shareTaskTotals[t] = tasks[t].pairTotal();
            continue;
        }
        const std::size_t lo = std::max(schedule.shareBegin, taskBegin);
        const std::size_t hi = std::min(schedule.shareEnd, taskEnd);
        if (lo < hi)
            schedule.shareTaskTotals[t] = schedule.progressPrefix[hi] - schedule.progressPrefix[lo];
    }
}

/// Segments of about kSegmentRuns runs of one piece, cut where the i-tile changes: the pieces of
/// work the host's cores take. units/work: what the segment lists (counted first).
struct Segment {
    std::size_t piece, runBegin, runEnd;
    std::size_t units = 0;
    std::uint64_t work = 0;
};

/// Each task's place in the list, and its progress: its pairTotal spread over its units in
/// proportion to their work (monotone, reaching the total at its last unit).
struct TaskSpan {
    std::size_t unitBegin = 0, unitEnd = 0;
    std::uint64_t workBegin = 0, workEnd = 0, progressBase = 0, total = 0;
    double scale = 0;
};

/// j-tiles per unit: at least unitTiles(tileSize), more where the list would pass kMaxWorkUnits.
std::uint64_t tilesPerUnitOf(const std::vector<TaskPiece>& pieces, std::uint32_t tileSize) {
    std::vector<std::uint64_t> pieceTilePairs(pieces.size());
    parallelForRanges(pieces.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t p = begin; p < end; ++p)
            pieceTilePairs[p] = cellPairCount(pieces[p].runs);
    });
    std::uint64_t tilePairs = 0;
    for (const std::uint64_t pairs : pieceTilePairs)
        tilePairs += pairs;
    return std::max<std::uint64_t>(unitTiles(tileSize),
                                   (tilePairs + kMaxWorkUnits - 1) / kMaxWorkUnits);
}

/// Points of tiles [0, i) per catalog: the pairs of a unit in O(1).
std::vector<std::vector<std::uint64_t>>
tilePointPrefixes(const std::vector<std::vector<std::uint32_t>>& catTileCounts) {
    std::vector<std::vector<std::uint64_t>> catPrefix(catTileCounts.size());
    for (std::size_t c = 0; c < catTileCounts.size(); ++c) {
        catPrefix[c].assign(catTileCounts[c].size() + 1, 0);
        for (std::size_t i = 0; i < catTileCounts[c].size(); ++i)
            catPrefix[c][i + 1] = catPrefix[c][i] + catTileCounts[c][i];
    }
    return catPrefix;
}

/// The segments of every piece in order; a segment never splits one i-tile's runs, so joining
/// touching runs (SegmentWalker) sees the same runs as one pass over the piece.
std::vector<Segment> cutSegments(const std::vector<TaskPiece>& pieces) {
    constexpr std::size_t kSegmentRuns = 2048;
    std::vector<Segment> segments;
    for (std::size_t p = 0; p < pieces.size(); ++p) {
        const std::vector<CellPairRun>& runs = pieces[p].runs;
        for (std::size_t r = 0; r < runs.size();) {
            std::size_t end = std::min(runs.size(), r + kSegmentRuns);
            while (end < runs.size() && runs[end].a == runs[end - 1].a)
                ++end;
            segments.push_back({p, r, end});
            r = end;
        }
    }
    return segments;
}

/// One pass over a segment: every unit in order, with its pairs, to emit(unit, pairs). Both
/// passes (counting, then writing in place) walk alike, so they agree unit for unit.
class SegmentWalker {
public:
    SegmentWalker(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                  const std::vector<std::vector<std::uint32_t>>& catTileCounts,
                  const std::vector<std::vector<std::uint64_t>>& catPrefix,
                  const std::vector<TaskPiece>& pieces, std::uint64_t tilesPerUnit)
        : m_tasks(tasks), m_batch(batch), m_catTileCounts(catTileCounts), m_catPrefix(catPrefix),
          m_pieces(pieces), m_step(tilesPerUnit) {}

    template <class Emit> void operator()(const Segment& segment, const Emit& emit) const {
        const std::size_t t = m_pieces[segment.piece].task;
        const bool isAuto = m_tasks[t].isAuto();
        const std::uint32_t catA = m_batch.taskCatA[t], catB = m_batch.taskCatB[t];
        const std::vector<std::uint32_t>& countsA = m_catTileCounts[catA];
        const std::vector<std::uint64_t>& prefixB = m_catPrefix[catB];
        const std::vector<CellPairRun>& runs = m_pieces[segment.piece].runs;
        for (std::size_t r = segment.runBegin; r < segment.runEnd;) {
            const std::uint32_t a = runs[r].a;
            const std::uint32_t bBegin = runs[r].bBegin;
            std::uint32_t bEnd = runs[r].bEnd;
            for (++r; r < segment.runEnd && runs[r].a == a && runs[r].bBegin == bEnd; ++r)
                bEnd = runs[r].bEnd;
            const std::uint64_t countA = countsA[a];
            for (std::uint64_t b0 = bBegin; b0 < bEnd; b0 += m_step) {
                const std::uint64_t b1 = std::min<std::uint64_t>(b0 + m_step, bEnd);
                std::uint64_t pairs = countA * (prefixB[b1] - prefixB[b0]);
                if (isAuto && a >= b0 && a < b1) // the diagonal tile: i < j only
                    pairs -= countA * countA - countA * (countA - 1) / 2;
                if (pairs == 0)
                    continue;
                emit(WorkUnit{static_cast<std::uint32_t>(t), catA, catB, a,
                              static_cast<std::uint32_t>(b0), static_cast<std::uint32_t>(b1),
                              isAuto ? 1u : 0u, 0u},
                     pairs);
            }
        }
    }

private:
    std::span<const CountTask> m_tasks;
    const BatchCatalogs& m_batch;
    const std::vector<std::vector<std::uint32_t>>& m_catTileCounts;
    const std::vector<std::vector<std::uint64_t>>& m_catPrefix;
    const std::vector<TaskPiece>& m_pieces;
    std::uint64_t m_step;
};

/// Where each task starts in the list (segments in task order), its progress scale, and the
/// schedule's taskUnits. The last span ends at the list's end.
std::vector<TaskSpan> placeSegments(std::span<const CountTask> tasks,
                                    const std::vector<TaskPiece>& pieces,
                                    const std::vector<Segment>& segments, Schedule& schedule) {
    std::vector<TaskSpan> spans(tasks.size());
    std::size_t unitCount = 0;
    std::uint64_t workTotal = 0;
    std::size_t s = 0;
    std::uint64_t progressBase = 0;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        TaskSpan& span = spans[t];
        span.unitBegin = unitCount;
        span.workBegin = workTotal;
        for (; s < segments.size() && pieces[segments[s].piece].task == t; ++s) {
            unitCount += segments[s].units;
            workTotal += segments[s].work;
        }
        span.unitEnd = unitCount;
        span.workEnd = workTotal;
        span.total = tasks[t].pairTotal();
        span.progressBase = progressBase;
        const std::uint64_t listed = span.workEnd - span.workBegin;
        span.scale = listed > 0 ? static_cast<double>(span.total) / static_cast<double>(listed) : 0.0;
        if (span.unitEnd > span.unitBegin)
            progressBase += span.total;
        schedule.taskUnits.emplace_back(span.unitBegin, span.unitEnd);
    }
    return spans;
}

/// Work units from each task's tile runs, given as pieces of whole i-tile rows in task order
/// (sorted by a, then b; from denseRuns or listCellPairs): runs of one i-tile that touch are
/// joined (their classes only matter to the list builder; the kernel classifies each tile pair
/// again), then cut into units of at most tilesPerUnit j-tiles. Built in segments of whole rows
/// on the host's cores: counted first, then each unit written straight to its place in spread
/// order (SpreadBlocks) with its own work, then each block's prefixes, each step on every core
/// (no array is filled on one core first): 5e6 units (10^7 points to 10°) are 300 MB. The units
/// and their order are those of one pass over the runs, whatever the cores.
Schedule buildSchedule(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                       const std::vector<std::vector<std::uint32_t>>& catTileCounts,
                       const std::vector<TaskPiece>& pieces, std::uint32_t tileSize,
                       WorkShare share) {
    Schedule schedule;
    schedule.tilesPerUnit = tilesPerUnitOf(pieces, tileSize);
    const std::vector<std::vector<std::uint64_t>> catPrefix = tilePointPrefixes(catTileCounts);
    std::vector<Segment> segments = cutSegments(pieces);
    const SegmentWalker walk(tasks, batch, catTileCounts, catPrefix, pieces, schedule.tilesPerUnit);
    std::vector<std::size_t> taskRows, taskCols, segmentTask;
    std::vector<std::uint8_t> taskAuto;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        taskRows.push_back(catTileCounts[batch.taskCatA[t]].size());
        taskCols.push_back(catTileCounts[batch.taskCatB[t]].size());
        taskAuto.push_back(tasks[t].isAuto() ? 1 : 0);
    }
    for (const Segment& segment : segments)
        segmentTask.push_back(pieces[segment.piece].task);
    SpreadBlocks blocks(taskRows, taskCols, taskAuto);
    // First pass: how many units, and how much work, each segment holds, and in which blocks.
    std::vector<std::vector<BlockRun>> blockRuns(segments.size());
    parallelForRanges(segments.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t s = begin; s < end; ++s) {
            SpreadBlocks::Tally tally(blocks, segmentTask[s], blockRuns[s]);
            walk(segments[s], [&](const WorkUnit& unit, std::uint64_t pairs) {
                ++segments[s].units;
                segments[s].work += pairs;
                tally.add(unit.tileA, unit.tileB0);
            });
        }
    });

    const std::vector<TaskSpan> spans = placeSegments(tasks, pieces, segments, schedule);
    blocks.place(schedule.taskUnits, segmentTask, blockRuns);
    const std::size_t unitCount = spans.empty() ? 0 : spans.back().unitEnd;
    schedule.units.resize(unitCount);
    schedule.workPrefix.resize(unitCount + 1);
    schedule.progressPrefix.resize(unitCount + 1);
    schedule.workPrefix[0] = 0;
    schedule.progressPrefix[0] = 0;
    // Second pass: every unit to its place in spread order, its own work beside it.
    parallelForRanges(segments.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            SpreadBlocks::Cursor cursor(blocks, segmentTask[k], blockRuns[k]);
            walk(segments[k], [&](const WorkUnit& unit, std::uint64_t pairs) {
                const std::size_t at = cursor.place(pairs);
                schedule.units[at] = unit;
                schedule.workPrefix[at + 1] = pairs;
            });
        }
    });
    // Then each block's work and progress prefixes (each task's progress its pairTotal spread
    // in proportion to the work), from the work of the blocks before it.
    std::vector<std::uint64_t> workBegin;
    for (const TaskSpan& span : spans)
        workBegin.push_back(span.workBegin);
    const std::vector<SpreadBlocks::Placed> placed = blocks.placed(workBegin);
    std::atomic<std::size_t> nextBlock{0};
    runWorkers(workerCount(0, placed.size()), [&](std::size_t, const std::atomic<bool>&) {
        for (std::size_t k = nextBlock++; k < placed.size(); k = nextBlock++) {
            const SpreadBlocks::Placed& block = placed[k];
            const TaskSpan& span = spans[block.task];
            std::uint64_t done = block.workAt;
            for (std::size_t at = block.at; at < block.at + block.units; ++at) {
                done += schedule.workPrefix[at + 1];
                schedule.workPrefix[at + 1] = done;
                schedule.progressPrefix[at + 1] =
                    span.progressBase +
                    (at + 1 == span.unitEnd
                         ? span.total
                         : std::min(span.total,
                                    static_cast<std::uint64_t>(
                                        static_cast<double>(done - span.workBegin) * span.scale)));
            }
        }
    });
    schedule.evenlySpread = blocks.even();
    applyShare(schedule, tasks, share);
    return schedule;
}

} // namespace

BatchCatalogs indexBatch(std::span<const CountTask> tasks) {
    BatchCatalogs batch;
    std::unordered_map<const Catalog*, std::uint32_t> catalogIndex;
    auto indexOf = [&](const Catalog* catalog) {
        const auto [it, inserted] =
            catalogIndex.emplace(catalog, static_cast<std::uint32_t>(batch.catalogs.size()));
        if (inserted)
            batch.catalogs.push_back(catalog);
        return it->second;
    };
    for (const CountTask& task : tasks) {
        if (task.first == nullptr)
            throw ConfigError("CUDA backend: a count task has no catalog");
        batch.taskCatA.push_back(indexOf(task.first));
        batch.taskCatB.push_back(task.isAuto() ? batch.taskCatA.back() : indexOf(task.second));
        batch.pairsTotal += task.pairTotal();
    }
    for (const Catalog* catalog : batch.catalogs) {
        if (catalog->size() > std::numeric_limits<std::int32_t>::max() / 2)
            throw ConfigError("CUDA backend: catalog '" + catalog->name() +
                              "' has more than 2^30 points");
    }
    return batch;
}

std::vector<std::uint32_t> plainTileCounts(std::uint64_t size, std::uint32_t tileSize) {
    std::vector<std::uint32_t> counts;
    for (std::uint64_t begin = 0; begin < size; begin += tileSize)
        counts.push_back(
            static_cast<std::uint32_t>(std::min<std::uint64_t>(tileSize, size - begin)));
    return counts;
}

RegionLayout buildRegionLayout(const Catalog& catalog, std::size_t regionCount,
                               std::uint32_t tileSize, int cellLevel) {
    const auto regions = catalog.region();
    if (regions.size() != catalog.size())
        throw ConfigError("CUDA backend: catalog '" + catalog.name() +
                          "' has no jackknife regions");
    // Dense (cell, region) ids stay below 2^22; coarser cells where K is large.
    while (cellLevel > 0 && (regionCount << (3 * cellLevel)) > (std::size_t{1} << 22))
        --cellLevel;
    const std::size_t cells = std::size_t{1} << (3 * cellLevel);
    std::vector<std::uint32_t> perGroup(cells * regionCount, 0);
    std::vector<std::int32_t> groupOfPoint(regions.size());
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const std::int32_t r = regions[i];
        if (r < 0 || static_cast<std::size_t>(r) >= regionCount)
            throw ConfigError("CUDA backend: catalog '" + catalog.name() + "' row " +
                              std::to_string(i + 1) + " has region " + std::to_string(r) +
                              ", outside [0, " + std::to_string(regionCount) + ")");
        const std::size_t cell =
            cellLevel > 0 ? coarseCell(catalog.x()[i], catalog.y()[i], catalog.z()[i], cellLevel)
                          : 0;
        const std::size_t group = cell * regionCount + static_cast<std::size_t>(r);
        groupOfPoint[i] = static_cast<std::int32_t>(group);
        ++perGroup[group];
    }
    RegionLayout layout;
    std::vector<std::int32_t> rank(perGroup.size(), -1);
    std::uint32_t sortedStart = 0;
    for (std::size_t group = 0; group < perGroup.size(); ++group) {
        if (perGroup[group] == 0)
            continue;
        rank[group] = static_cast<std::int32_t>(layout.groupCount++);
        for (std::uint32_t done = 0; done < perGroup[group]; done += tileSize) {
            layout.tileRegion.push_back(static_cast<std::uint32_t>(group % regionCount));
            layout.tileSortedStart.push_back(sortedStart + done);
            layout.tileCount.push_back(std::min(tileSize, perGroup[group] - done));
        }
        if (kKdGroupPoints % tileSize == 0)
            for (std::uint32_t done = 0; perGroup[group] - done >= kKdGroupPoints;
                 done += kKdGroupPoints)
                layout.kdGroupStarts.push_back(sortedStart + done);
        sortedStart += perGroup[group];
    }
    for (std::size_t i = 0; i < regions.size(); ++i)
        groupOfPoint[i] = rank[static_cast<std::size_t>(groupOfPoint[i])];
    layout.groupOfPoint = std::move(groupOfPoint);
    return layout;
}

Schedule buildDenseSchedule(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                            const std::vector<std::vector<std::uint32_t>>& catTileCounts,
                            std::uint32_t tileSize, WorkShare share) {
    std::vector<TaskPiece> pieces(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
        pieces[t] = {t, denseRuns(tasks[t].isAuto(), catTileCounts[batch.taskCatA[t]].size(),
                                  catTileCounts[batch.taskCatB[t]].size())};
    return buildSchedule(tasks, batch, catTileCounts, pieces, tileSize, share);
}

Schedule buildCulledSchedule(std::span<const CountTask> tasks, const BatchCatalogs& batch,
                             const CulledInputs& inputs, std::uint32_t tileSize, WorkShare share) {
    const std::vector<std::vector<std::uint32_t>>& tileCounts = *inputs.tileCounts;
    const std::vector<CatalogTiles>& tiles = *inputs.tiles;
    const std::size_t catalogs = batch.catalogs.size();
    const auto listed = [&](std::size_t t) {
        return inputs.tasksListed.empty() || inputs.tasksListed[t] != 0;
    };
    // The hierarchy of every catalog a listed task reads (the others' boxes may not be there
    // yet), one catalog per worker.
    std::vector<std::uint8_t> catalogUsed(catalogs, 0);
    for (std::size_t t = 0; t < tasks.size(); ++t)
        if (listed(t))
            catalogUsed[batch.taskCatA[t]] = catalogUsed[batch.taskCatB[t]] = 1;
    std::vector<std::optional<TileTree>> trees(catalogs);
    parallelForRanges(catalogs, [&](std::size_t begin, std::size_t end) {
        for (std::size_t c = begin; c < end; ++c) {
            if (catalogUsed[c] == 0)
                continue;
            TileTreeInput input;
            input.bounds = tiles[c].bounds;
            input.counts = tileCounts[c];
            if (!inputs.regionLayouts->empty())
                input.regions = (*inputs.regionLayouts)[c].tileRegion;
            input.weights = tiles[c].weights;
            trees[c].emplace(input);
        }
    });
    // Every task cut into pieces at its frontier (one task per worker), then the pieces taken
    // by the host's cores from a shared cursor. Both depend on the tiles alone, never on the
    // cores.
    std::vector<TraversalRules> rules(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        rules[t].thresholds = inputs.thresholds;
        rules[t].relativeMargin = kTileBoxMargin;
        rules[t].isAuto = tasks[t].isAuto();
        rules[t].weighted = tasks[t].weighted();
        // Blocks of ~1024 points are left to the kernel's own tile classification.
        for (std::uint64_t points = tileSize; points < inputs.leafBlockPoints; points *= 2)
            ++rules[t].leafLevel;
    }
    std::vector<TraversalFrontier> frontiers(tasks.size());
    parallelForRanges(tasks.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t t = begin; t < end; ++t)
            if (listed(t))
                frontiers[t] =
                    traversalFrontier(*trees[batch.taskCatA[t]], *trees[batch.taskCatB[t]],
                                      rules[t], kTraversalPieces);
    });
    struct Item {
        std::size_t task, piece; // piece: kTop for what the frontier settled above the pieces
    };
    constexpr std::size_t kTop = ~std::size_t{0};
    std::vector<Item> items;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        if (!listed(t))
            continue;
        items.push_back({t, kTop});
        for (std::size_t p = 0; p < frontiers[t].pieces.size(); ++p)
            items.push_back({t, p});
    }
    std::vector<TraversalPiece> found(items.size());
    std::atomic<std::size_t> next{0};
    runWorkers(workerCount(0, items.size()), [&](std::size_t, const std::atomic<bool>& stop) {
        for (std::size_t i = next++; i < items.size() && !stop.load(); i = next++) {
            const std::size_t t = items[i].task;
            if (items[i].piece == kTop)
                found[i] = std::move(frontiers[t].top);
            else
                found[i] = traversePiece(*trees[batch.taskCatA[t]], *trees[batch.taskCatB[t]],
                                         rules[t], frontiers[t].pieces[items[i].piece]);
        }
    });
    // The runs in task order, each task's pieces in row order: sorted by a, then b.
    std::uint64_t judged = 0;
    std::vector<TaskPiece> pieceRuns(items.size());
    std::vector<std::size_t> pieceTask(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        pieceTask[i] = items[i].task;
        pieceRuns[i] = {items[i].task, std::move(found[i].runs)};
        judged += found[i].judged;
    }
    std::vector<std::uint8_t> taskWeighted(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
        taskWeighted[t] = tasks[t].weighted() ? 1 : 0;
    WholeSums whole = sumWholePairs(found, pieceTask, taskWeighted, inputs.thresholds.size() - 1,
                                    inputs.regionCount);
    Schedule schedule = buildSchedule(tasks, batch, tileCounts, pieceRuns, tileSize, share);
    schedule.wholeCounts = std::move(whole.counts);
    schedule.wholeWeighted = std::move(whole.weighted);
    schedule.wholePairs = whole.pairs;
    schedule.judgedNodePairs = judged;
    return schedule;
}

std::size_t shareBoundary(std::span<const std::uint64_t> workPrefix, std::uint32_t part,
                          std::uint32_t parts) {
    const std::size_t units = workPrefix.size() - 1;
    if (part == 0)
        return 0;
    if (part >= parts)
        return units;
    // floor(total · part / parts) without overflow (total may be ~1e16, parts up to 2^32).
    const std::uint64_t total = workPrefix.back();
    const std::uint64_t target = total / parts * part + total % parts * part / parts;
    // The first unit that starts at or past the target: every unit has work (> 0 pairs), so the
    // boundaries are monotone in `part` and the parts partition the list.
    const auto it = std::lower_bound(workPrefix.begin(), workPrefix.end() - 1, target);
    return static_cast<std::size_t>(it - workPrefix.begin());
}

void Schedule::addProgress(std::size_t begin, std::size_t end,
                           std::vector<std::uint64_t>& perTask) const {
    for (std::size_t t = 0; t < taskUnits.size(); ++t) {
        const auto [taskBegin, taskEnd] = taskUnits[t];
        const std::size_t lo = std::max(begin, taskBegin), hi = std::min(end, taskEnd);
        if (lo < hi)
            perTask[t] += progressPrefix[hi] - progressPrefix[lo];
    }
}

} // namespace tpacf::cuda::detail
