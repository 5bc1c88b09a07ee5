// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The order in which a backend counts one task's units so that every partial count is an even
// sample of the task's pairs (live estimates; CountProgress::partialsEvenlySpread). Shared by the
// CPU backend (its tiles and work items, in bands) and the CUDA backend (its list's blocks).
#include <algorithm>
#include <cstdint>
#include <vector>

namespace tpacf {

/// The order in which one task's units are counted. Unit by unit: rank r → unit (r·stride) mod
/// count, the stride the integer nearest count/φ that is coprime with count (a permutation).
/// Units are listed cell by cell (or tile row by tile row), so counting them in list order would
/// cover the sky patch by patch and every partial count would describe one corner of it; this
/// order spreads any prefix evenly over the list (golden-ratio steps), so a partial count is an
/// even sample of the task's pairs and live estimates from it are honest. Fixed by the list
/// alone: the shares of a batch, each taking a contiguous range of ranks, still cover every unit
/// once.
///
/// In blocks: the list cut into blocks of consecutive units, the blocks in that golden-ratio
/// order and each block's units in list order. The CPU backend's blocks are bands of lines of
/// one length (tile_schedule.h): an auto count lists the pairs j >= i of each row i, so its rows
/// shorten down the list, and unit by unit the units holding most diagonal cells, where nearly
/// all close pairs lie, bunch at the list's end. Live counts of catalogs in declination order,
/// unit by unit, were up to 19 % off at small separations (a culled full-range DD of 32768
/// points at 11 % of its pairs) and 16 % (brute force); in bands of folded rows (i and R - 1 - i)
/// 2.0-2.6 % from a quarter of the pairs on (tpacf_live_evenness, BENCHMARKS.md).
class SpreadOrder {
public:
    SpreadOrder() = default;
    /// Unit by unit.
    explicit SpreadOrder(std::uint64_t count);
    /// In blocks [blockStarts[b], blockStarts[b + 1]) of the list (blockStarts nondecreasing,
    /// from 0; empty blocks allowed).
    explicit SpreadOrder(const std::vector<std::uint64_t>& blockStarts);
    std::uint64_t operator()(std::uint64_t rank) const noexcept;
    std::uint64_t count() const noexcept { return m_count; }
    /// Blocks that hold units (count() unit by unit).
    std::uint64_t filledBlocks() const noexcept { return m_filled; }

private:
    std::uint64_t unitAt(std::uint64_t rank) const noexcept;
    std::uint64_t m_count = 0, m_filled = 0;
    std::uint64_t m_stride = 1; // unit by unit
    // In blocks (empty unit by unit): each placed block's first rank, with the count at the end,
    // and its first unit in the list.
    std::vector<std::uint64_t> m_placedStart, m_placedUnit;
};

/// Whether partial counts taken in these orders are even samples of their tasks: every task
/// with work has at least kEvenSampleUnits filled blocks (units, unit by unit). With fewer (a
/// small catalog counted brute force is a handful of tiles, the diagonal ones holding every close
/// pair), a prefix is a lumpy sample whatever its order, and no live estimate should be drawn
/// from it.
inline constexpr std::uint64_t kEvenSampleUnits = 64;
bool evenSamples(const std::vector<SpreadOrder>& orders) noexcept;

/// Bands a task's work is cut into for its spread order (SpreadOrder's blocks), at most.
inline constexpr std::uint64_t kSpreadBands = 1024;

/// A task's cell pairs (tile pairs) as lines of one length, so that bands of whole lines each
/// hold their share of the close pairs. An auto task's rows i and R - 1 - i make one line, one
/// long and one short, each with its diagonal cell; a cross task's line is a row, or a column
/// where it has too few rows for even samples (kEvenSampleUnits) and more columns. The same rule
/// for both backends (the CUDA list's blocks, the CPU backend's tiles and work items).
struct SpreadLines {
    bool folded = false, byColumns = false;
    std::uint64_t rows = 0, lines = 0, bands = 0;

    SpreadLines() = default;
    SpreadLines(bool isAuto, std::uint64_t rowCount, std::uint64_t columnCount)
        : folded(isAuto),
          byColumns(!isAuto && rowCount < kEvenSampleUnits && rowCount < columnCount),
          rows(rowCount), lines(isAuto      ? (rowCount + 1) / 2
                                : byColumns ? columnCount
                                            : rowCount),
          bands(std::min(lines, kSpreadBands)) {}

    /// The line of the cell pair (row, column).
    std::uint64_t lineOf(std::uint64_t row, std::uint64_t column) const noexcept {
        return folded ? std::min(row, rows - 1 - row) : byColumns ? column : row;
    }
    /// Its band, of `bands` (lines > 0).
    std::uint64_t bandOf(std::uint64_t row, std::uint64_t column) const noexcept {
        return lineOf(row, column) * bands / lines;
    }
};

} // namespace tpacf
