// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the CPU backend: the exact bin lookup the tile kernels share (which slot of the
// histogram a squared chord falls in), with the constants that shape the kernels' histograms.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace tpacf::cpu {

// Independent sub-histograms: consecutive pairs usually land in the same bin, and one counter
// would serialise every increment on the previous store. addSlots() unrolls by this.
constexpr std::size_t kHistogramCopies = 4;
// Upper limit on the bin-guess table (4-byte entries, for gathers): it should live in L1.
constexpr std::size_t kMaxGuessCells = 4096;
// Set in a guess entry whose cell holds more than one threshold: one comparison is not enough.
constexpr std::uint32_t kMultiEdgeCell = 0x80000000u;

// Exact bin lookup. A "slot" is the number of thresholds ≤ c2: slot 0 lies below the first edge,
// slot k+1 is bin k, slot count() lies at or above the last edge. The guess table, indexed by
// the top bits of c2's IEEE representation (monotone in c2 for c2 ≥ 0, so the cells are ordered
// intervals of c2), holds the slot of each cell's smallest value; comparisons with the double
// thresholds then decide the slot exactly: one where the cell holds at most one threshold, more
// (a loop) where it is flagged kMultiEdgeCell.
class SlotLookup {
public:
    explicit SlotLookup(std::span<const double> chord2Edges) : m_edgeCount(chord2Edges.size()) {
        m_thresholds.assign(chord2Edges.begin(), chord2Edges.end());
        // Sentinel: no finite c2 reaches it, so the refinement needs no bounds check.
        m_thresholds.push_back(std::numeric_limits<double>::infinity());

        double lowestPositive = 1.0;
        for (double t : chord2Edges) {
            if (t > 0) {
                lowestPositive = t;
                break;
            }
        }
        // c2 ≤ 4 up to rounding; cells reach through [4, 8) so the top clamp is never hit.
        const std::uint64_t topBits = std::bit_cast<std::uint64_t>(8.0);
        for (int mantissaBits = 12;; --mantissaBits) {
            m_shift = static_cast<std::uint64_t>(52 - mantissaBits);
            m_baseCell = std::bit_cast<std::uint64_t>(lowestPositive) >> m_shift;
            if (m_baseCell > 0)
                --m_baseCell;
            const std::uint64_t cells = (topBits >> m_shift) - m_baseCell + 1;
            if (cells <= kMaxGuessCells || mantissaBits == 0) {
                m_lastCell = static_cast<std::int64_t>(cells - 1);
                break;
            }
        }
        const auto slotOfValue = [&](double c2) {
            return static_cast<std::uint32_t>(
                std::upper_bound(chord2Edges.begin(), chord2Edges.end(), c2) - chord2Edges.begin());
        };
        m_guess.resize(static_cast<std::size_t>(m_lastCell) + 1);
        for (std::size_t cell = 0; cell < m_guess.size(); ++cell) {
            // Cell 0 also takes everything below the resolved range, down to c2 = 0; the last
            // cell everything above.
            const std::uint64_t first = (m_baseCell + cell) << m_shift;
            const double low = cell == 0 ? 0.0 : std::bit_cast<double>(first);
            const bool last = cell + 1 == m_guess.size();
            const std::uint32_t lowSlot = slotOfValue(low);
            const std::uint32_t highSlot =
                last
                    ? static_cast<std::uint32_t>(m_edgeCount)
                    : slotOfValue(std::bit_cast<double>(first + (std::uint64_t{1} << m_shift) - 1));
            m_guess[cell] = lowSlot | (highSlot - lowSlot > 1 ? kMultiEdgeCell : 0u);
        }
        m_cellThreshold.resize(m_guess.size());
        for (std::size_t cell = 0; cell < m_guess.size(); ++cell)
            m_cellThreshold[cell] = m_thresholds[m_guess[cell] & ~kMultiEdgeCell];
        packCells();
    }

    /// Slots per histogram: below, one per bin, above.
    std::size_t slotCount() const noexcept { return m_edgeCount + 1; }

    /// The slot of one squared chord (c2 ≥ 0): the guess of its cell, then one comparison per
    /// threshold the cell holds (the +inf sentinel ends the walk).
    std::uint32_t slotOf(double c2) const noexcept {
        const auto bits = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(c2) >> m_shift);
        const std::int64_t cell =
            std::clamp(bits - static_cast<std::int64_t>(m_baseCell), std::int64_t{0}, m_lastCell);
        std::uint32_t slot = m_guess[static_cast<std::size_t>(cell)] & ~kMultiEdgeCell;
        while (c2 >= m_thresholds[slot])
            ++slot;
        return slot;
    }

    /// Whether m_packed holds every cell (else the kernels read m_guess and m_cellThreshold).
    bool packed() const noexcept { return !m_packed.empty(); }

    // Public for the kernels, which copy them into locals (histogram stores could otherwise
    // alias these members and force a reload on every pair).
    std::size_t m_edgeCount;
    std::vector<double> m_thresholds; // chord2Edges and a +inf sentinel
    std::vector<std::uint32_t> m_guess;
    std::vector<double> m_cellThreshold; // thresholds[guess slot] per cell
    std::uint64_t m_shift = 52;
    std::uint64_t m_baseCell = 0;
    std::int64_t m_lastCell = 0;
    // A cell's guess and threshold in one 64-bit entry, so that a vector kernel gathers once
    // per pair instead of twice: bits [0, shift] hold e, the threshold's offset above the
    // cell's first value in IEEE bits (2^shift where the threshold lies beyond the cell), and
    // the bits above (guess slot << 1 | multi-edge flag). For c2 ≥ 0, whose bits order like its
    // value, c2 ≥ threshold ⇔ bits(c2) − bits(cell's first value) ≥ e as signed integers, for
    // the clamped cells too (below cell 0: negative, never; above the last cell: ≥ 2^shift,
    // and its threshold lies within it or is the +inf sentinel). Empty where the slots do not
    // fit beside e.
    std::vector<std::uint64_t> m_packed;

private:
    void packCells() {
        const std::uint64_t offsetBits = m_shift + 1;
        if (offsetBits + 2 + static_cast<std::uint64_t>(std::bit_width(m_edgeCount + 1)) > 63)
            return;
        m_packed.resize(m_guess.size());
        for (std::size_t cell = 0; cell < m_guess.size(); ++cell) {
            const std::uint64_t first = (m_baseCell + cell) << m_shift;
            const std::uint64_t threshold = std::bit_cast<std::uint64_t>(m_cellThreshold[cell]);
            // The threshold of a cell lies above its first value (the guess counts those ≤ it).
            if (threshold <= first) {
                m_packed.clear(); // not expected; the two tables then serve
                return;
            }
            const std::uint64_t offset = std::min(threshold - first, std::uint64_t{1} << m_shift);
            const std::uint64_t slot = m_guess[cell] & ~kMultiEdgeCell;
            const std::uint64_t multi = (m_guess[cell] & kMultiEdgeCell) ? 1 : 0;
            m_packed[cell] = ((slot << 1 | multi) << offsetBits) | offset;
        }
    }
};

} // namespace tpacf::cpu
