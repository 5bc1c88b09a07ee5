// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the CPU backend: the work list of a batch and how it is run. Brute force, a task
// is cut into tiles; culled, into the plan's cell-pair runs. The units of all tasks form one
// list in a fixed order (TileSchedule), independent of the thread count, so that a work share
// (part k of n, pair_counter.h) is the same units on every machine; runSchedule hands a
// share's units to the workers of the one runner (work_runner.h).
#include "tpacf/spread_order.h"
#include "counting/cpu_tile_kernels.h"

#include "tpacf/pair_counter.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace tpacf::cpu {

// One task cut into tiles of kTileSide x kTileSide points. Auto tasks use only the tiles on and
// above the diagonal; diagonal tiles count j > i within themselves. Tiles are listed line by
// line, every line of one length, so that bands of whole lines (bandStarts, SpreadOrder's
// blocks) each hold their share of the close pairs: an auto task's line is its rows i and
// R - 1 - i (R even; row 0 alone, then i and R - i, where R is odd, so that every line has one
// length), one long and one short, with their two diagonal tiles; a cross task's line is a row,
// or a column as SpreadLines says.
struct TaskPlan {
    Points a, b;
    bool isAuto = false;
    bool byColumns = false; // cross tasks listed column by column
    std::uint64_t rowBlocks = 0, columnBlocks = 0;
    std::uint64_t lines = 0, lineWidth = 0; // tileCount = lines x lineWidth
    std::uint64_t tileCount = 0;

    struct Tile {
        std::size_t i0, i1, j0, j1;
        bool diagonal;
    };

    explicit TaskPlan(const CountTask& task);
    TaskPlan(Points first, Points second, bool autoCount);

    Tile tile(std::uint64_t index) const;

    /// The list cut into up to kSpreadBands bands of whole lines, as tile index starts:
    /// SpreadOrder's blocks.
    std::vector<std::uint64_t> bandStarts() const;

    std::uint64_t pairTotal() const noexcept {
        return isAuto ? trianglePairs(a.size) : static_cast<std::uint64_t>(a.size) * b.size;
    }

    static std::uint64_t pairsOf(const Tile& t) noexcept {
        return t.diagonal ? trianglePairs(t.i1 - t.i0)
                          : static_cast<std::uint64_t>(t.i1 - t.i0) * (t.j1 - t.j0);
    }
};

// The order in which work units (tiles, or the culled path's runs and work items) are listed
// and handed out: round r takes unit r of every task that has one, so all tasks advance
// together and early partial counts cover DD, DR and RR alike (a contiguous share, likewise,
// holds some of every task). Tasks sorted by unit count split the rounds into segments with a
// fixed set of tasks each. A contiguous range of the list holds a contiguous range of each
// task's units.
class TileSchedule {
public:
    TileSchedule() = default;
    explicit TileSchedule(std::vector<std::uint64_t> unitsPerTask);

    static TileSchedule ofTiles(const std::vector<TaskPlan>& plans);

    std::uint64_t total() const noexcept { return m_total; }

    /// (task, unit within the task) of global unit `index` < total().
    std::pair<std::size_t, std::uint64_t> locate(std::uint64_t index) const;

private:
    struct Segment {
        std::uint64_t start, firstRound, width;
        std::size_t firstSorted;
    };
    std::vector<std::size_t> m_byTileCount;
    std::vector<Segment> m_segments;
    std::uint64_t m_total = 0;
};

/// Units [begin, end) of a list.
struct UnitRange {
    std::uint64_t begin = 0, end = 0;
    std::uint64_t size() const noexcept { return end - begin; }
};

/// The units of `share`: the list [0, count) cut into share.parts contiguous parts of about
/// equal cost (unitCost(i) of unit i, any integer measure of its work), part share.part of them.
/// Unit i goes to the part whose cost interval holds the cost of the units before it, so the
/// parts cover the list exactly once; parts beyond the units are empty. Integer arithmetic:
/// every process cuts alike. The whole list without calling unitCost when share.whole().
UnitRange shareOfUnits(std::uint64_t count,
                       const std::function<std::uint64_t(std::uint64_t)>& unitCost,
                       const WorkShare& share);

/// Hands units [range.begin, range.end) of `schedule` to `workers` threads of the runner and
/// watches them from the calling thread: progress every 50 ms (counts every other call),
/// cancellation, the first error. countUnit(worker, task, unit) counts one unit and publishes
/// it; snapshot(withCounts) reads what has been published. Returns the final snapshot, which is
/// also reported. All count modes share this, so they schedule, report and cancel alike.
CountProgress runSchedule(
    const TileSchedule& schedule, UnitRange range, std::size_t workers, const CountControl& control,
    const std::function<void(std::size_t worker, std::size_t task, std::uint64_t unit)>& countUnit,
    const std::function<CountProgress(bool withCounts)>& snapshot);

} // namespace tpacf::cpu
