// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where each task's work units go in the list the devices take (plain C++). A task's units are
// counted in blocks of consecutive units (neighbours on the sky, which share the device's cache),
// and the blocks go in SpreadOrder, so that any prefix of a task's list covers its sky evenly and
// a partial count is an even sample of its pairs.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace tpacf::cuda::detail {

/// Blocks per task (fewer where it has fewer units).
inline constexpr std::size_t kSpreadBlocks = 256;

/// Each task's blocks, from its number of units alone: in list order, block b holds the task's
/// list positions [start[b], start[b + 1]) and is placed from `at[b]`; the pairs of work each
/// block holds are added up as the units are written (Cursor), so that every unit is written
/// once, straight to its place.
class SpreadBlocks {
    struct TaskBlocks {
        std::vector<std::size_t> start, at, spreadOrder;
        std::vector<std::atomic<std::uint64_t>> work;
    };

public:
    /// taskUnits: each task's units [begin, end) in the list, in task order.
    explicit SpreadBlocks(std::span<const std::pair<std::size_t, std::size_t>> taskUnits);
    /// Whether every task with units has enough blocks (kEvenSampleUnits) for its prefixes to be
    /// even samples.
    bool even() const { return m_even; }

    /// The places of a task's list positions, walked forwards from `first` (one cursor per
    /// thread); the work of each unit goes to its block's.
    class Cursor {
    public:
        Cursor(SpreadBlocks& blocks, std::size_t task, std::size_t first);
        ~Cursor() { flush(); }
        Cursor(const Cursor&) = delete;
        Cursor& operator=(const Cursor&) = delete;
        /// The place of the next list position, whose unit holds `pairs` of work.
        std::size_t place(std::uint64_t pairs) {
            while (m_next >= m_task.start[m_block + 1]) {
                flush();
                ++m_block;
            }
            m_work += pairs;
            return m_task.at[m_block] + (m_next++ - m_task.start[m_block]);
        }

    private:
        void flush();
        TaskBlocks& m_task;
        std::size_t m_next, m_block;
        std::uint64_t m_work = 0;
    };

    /// A block as placed: its task, its first place, its units, and the task's work before it in
    /// spread order.
    struct Placed {
        std::size_t task, at, units;
        std::uint64_t workAt;
    };
    /// Every block in spread order, task by task, once every unit is written; workBegin: each
    /// task's work before its first unit.
    std::vector<Placed> placed(std::span<const std::uint64_t> workBegin) const;

private:
    std::vector<TaskBlocks> m_tasks;
    bool m_even = true;
};

} // namespace tpacf::cuda::detail
