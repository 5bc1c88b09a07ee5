// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The order in which a backend counts one task's units so that every partial count is an even
// sample of the task's pairs (live estimates; CountProgress::partialsEvenlySpread). Shared by the
// CPU backend (its tiles and work items, in bands) and the CUDA backend (its list's blocks).
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
/// points at 11 % of its pairs) and 18 % (brute force); in bands of folded rows (i and R - 1 - i)
/// 1.4-2.6 % from a quarter of the pairs on.
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
    std::uint64_t m_stride = 1;
    // In blocks: the golden-ratio order of the blocks (m_stride over m_blocks), each placed
    // block's first rank and its first unit in the list.
    std::uint64_t m_blocks = 0;
    std::vector<std::uint64_t> m_placedStart, m_placedUnit;
};

/// Whether partial counts taken in these orders are even samples of their tasks: every task
/// with work has at least kEvenSampleUnits filled blocks (units, unit by unit). With fewer (a
/// small catalog counted brute force is a handful of tiles, the diagonal ones holding every close
/// pair), a prefix is a lumpy sample whatever its order, and no live estimate should be drawn
/// from it.
inline constexpr std::uint64_t kEvenSampleUnits = 64;
bool evenSamples(const std::vector<SpreadOrder>& orders) noexcept;

} // namespace tpacf
