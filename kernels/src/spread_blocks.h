// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where each task's work units go in the list the devices take (plain C++). A task's units are
// counted in blocks of neighbouring units (neighbours on the sky, which share the device's
// cache), and the blocks go in SpreadOrder, so that any prefix of a task's list covers its sky
// evenly and a partial count is an even sample of its pairs.
//
// A block is a band of lines of one length, so that it holds its share of the close pairs
// (those of an auto task's diagonal tiles, of a cross task's two catalogs where their skies
// meet), never an equal share of the units. An auto task lists the pairs j >= i of each row i,
// so its rows shorten down the list: in blocks of equal unit counts the last few blocks held
// most of the rows' diagonal tiles, where nearly all close pairs lie, and a prefix that held
// one of those blocks or missed it was far from an even sample at small separations (11.6 % off
// in one bin at 12 % of a brute-force DD of 2^20 points). Its rows are therefore folded: rows i
// and R - 1 - i, one long and one short, make one line of R + 1 tiles with two diagonal tiles,
// and a block is a band of these lines, every one of the same length. A cross task's block is
// a band of its rows, or of its j-tiles where it has too few rows for even samples (a small
// data catalog against large randoms).
#include "tpacf/spread_order.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace tpacf::cuda::detail {

/// A stretch of one task's units, consecutive in list order, that lie in one block; `at`: the
/// place of its first unit (SpreadBlocks::place).
struct BlockRun {
    std::uint32_t block = 0;
    std::size_t units = 0, at = 0;
};

/// Each task's blocks, from its tiles alone (so that every rank of an MPI job and every share of a
/// batch sees the same list). Used in two passes over the units in list order: the first
/// tallies each stretch's units by block (Tally), place() then puts each task's blocks in spread
/// order and each stretch at its place, and the second pass writes every unit once, straight to
/// its place (Cursor), adding up each block's work.
class SpreadBlocks {
    struct TaskBlocks {
        SpreadLines spread;    // the task's lines and their bands, the blocks
        std::size_t count = 0; // blocks: spread.bands, 0 for a task without pairs
        std::vector<std::size_t> at, units, spreadOrder;
        std::vector<std::atomic<std::uint64_t>> work;
    };

public:
    /// taskRows / taskCols: the tiles of each task's first and second catalog; taskAuto: whether
    /// the task is an auto count (its pairs j >= i).
    SpreadBlocks(std::span<const std::size_t> taskRows, std::span<const std::size_t> taskCols,
                 std::span<const std::uint8_t> taskAuto);

    /// The block of a unit of `task` (i-tile `row`, first j-tile `col`).
    std::uint32_t blockOf(std::size_t task, std::uint32_t row, std::uint32_t col) const {
        return static_cast<std::uint32_t>(m_tasks[task].spread.bandOf(row, col));
    }

    /// The first pass over one stretch of a task's units in list order: their blocks as runs.
    class Tally {
    public:
        Tally(const SpreadBlocks& blocks, std::size_t task, std::vector<BlockRun>& runs)
            : m_blocks(blocks), m_task(task), m_runs(runs) {}
        void add(std::uint32_t row, std::uint32_t col) {
            const std::uint32_t block = m_blocks.blockOf(m_task, row, col);
            if (!m_runs.empty() && m_runs.back().block == block)
                ++m_runs.back().units;
            else
                m_runs.push_back({block, 1, 0});
        }

    private:
        const SpreadBlocks& m_blocks;
        std::size_t m_task;
        std::vector<BlockRun>& m_runs;
    };

    /// Each task's blocks in spread order from the start of its units (taskUnits: [begin, end) in
    /// the list), and each run's place: runs[k] are the runs of stretch k, stretches in list order,
    /// stretch k of task stretchTask[k]. Every unit of a block keeps its list order within it.
    void place(std::span<const std::pair<std::size_t, std::size_t>> taskUnits,
               std::span<const std::size_t> stretchTask, std::span<std::vector<BlockRun>> runs);

    /// Whether every task with units fills enough blocks (kEvenSampleUnits) for its prefixes to
    /// be even samples. After place().
    bool even() const { return m_even; }

    /// The second pass over one stretch: the place of each unit in turn; the work of each unit
    /// goes to its block's.
    class Cursor {
    public:
        Cursor(SpreadBlocks& blocks, std::size_t task, std::span<const BlockRun> runs)
            : m_task(blocks.m_tasks[task]), m_runs(runs),
              m_next(runs.empty() ? 0 : runs.front().at),
              m_left(runs.empty() ? 0 : runs.front().units) {}
        ~Cursor() { flush(); }
        Cursor(const Cursor&) = delete;
        Cursor& operator=(const Cursor&) = delete;
        /// The place of the next unit, which holds `pairs` of work.
        std::size_t place(std::uint64_t pairs) {
            while (m_left == 0) {
                flush();
                ++m_run;
                m_next = m_runs[m_run].at;
                m_left = m_runs[m_run].units;
            }
            --m_left;
            m_work += pairs;
            return m_next++;
        }

    private:
        void flush();
        TaskBlocks& m_task;
        std::span<const BlockRun> m_runs;
        std::size_t m_run = 0, m_next, m_left;
        std::uint64_t m_work = 0;
    };

    /// A block as placed: its task, its first place, its units, and the task's work before it in
    /// spread order.
    struct Placed {
        std::size_t task, at, units;
        std::uint64_t workAt;
    };
    /// Every block with units in spread order, task by task, once every unit is written;
    /// workBegin: each task's work before its first unit.
    std::vector<Placed> placed(std::span<const std::uint64_t> workBegin) const;

private:
    std::vector<TaskBlocks> m_tasks;
    bool m_even = true;
};

} // namespace tpacf::cuda::detail
