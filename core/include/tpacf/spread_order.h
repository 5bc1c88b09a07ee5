// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The order in which a backend counts one task's units so that every partial count is an even
// sample of the task's pairs (live estimates; CountProgress::partialsEvenlySpread). Shared by the
// CPU backend (unit by unit) and the CUDA backend (block by block of its work list).
#include <cstdint>
#include <vector>

namespace tpacf {

/// The order in which one task's units are counted: rank r → unit (r·stride) mod count, the
/// stride the integer nearest count/φ that is coprime with count (a permutation). Units are
/// listed cell by cell (or tile row by tile row), so counting them in list order would cover
/// the sky patch by patch and every partial count would describe one corner of it; this order
/// spreads any prefix evenly over the list (golden-ratio steps), so a partial count is an even
/// sample of the task's pairs and live estimates from it are honest. Fixed by count alone: the
/// shares of a batch, each taking a contiguous range of ranks, still cover every unit once.
class SpreadOrder {
public:
    SpreadOrder() = default;
    explicit SpreadOrder(std::uint64_t count);
    std::uint64_t operator()(std::uint64_t rank) const noexcept;
    std::uint64_t count() const noexcept { return m_count; }

private:
    std::uint64_t m_count = 0;
    std::uint64_t m_stride = 1;
};

/// Whether partial counts taken in these orders are even samples of their tasks: every task
/// with work has at least kEvenSampleUnits units. With fewer (a small catalog counted brute
/// force is a handful of tiles, the diagonal ones holding every close pair), a prefix is a
/// lumpy sample whatever its order, and no live estimate should be drawn from it.
inline constexpr std::uint64_t kEvenSampleUnits = 64;
bool evenSamples(const std::vector<SpreadOrder>& orders) noexcept;

} // namespace tpacf
