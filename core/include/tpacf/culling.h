// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Spatial culling: which cell pairs of two partitioned catalogs can hold a pair inside the bins.
// Shared by every backend (the CPU partitions on the host, a GPU module on the device), so
// both visit the same kind of list and both stay exact.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace tpacf {

/// Auto: the backend decides per batch from θ_max and N (see chooseCulling); On: visit only cell
/// pairs within reach of the bins; Off: brute force, every pair computed.
enum class CullingMode { Auto, On, Off };

/// "auto", "on", "off".
std::optional<CullingMode> parseCullingMode(std::string_view text) noexcept;
std::string_view cullingModeName(CullingMode mode) noexcept;

/// Axis-aligned bounding box, in R³, of the unit vectors of one cell's points. The chord between
/// two points is their Euclidean distance in R³, so box-to-box distances bound every pair's
/// chord from below and above with no spherical trigonometry: poles and RA = 0/360 need no
/// special case.
struct CellBounds {
    std::array<double, 3> lo{};
    std::array<double, 3> hi{};
};

/// What the list builder knows about a cell pair besides "it can hold a pair in range".
enum class CellPairClass : std::uint8_t {
    Partial,      ///< some pairs may fall outside [c²_min, c²_max): every pair must be binned
    InsideRange,  ///< every pair lies in [c²_min, c²_max) (still binned one by one)
};

/// Cell pairs (a, b) for b in [bBegin, bEnd): runs keep the list short where whole groups of
/// cells are within reach of each other (large θ_max), and map straight onto tile runs.
struct CellPairRun {
    std::uint32_t a = 0;      ///< cell of the first catalog
    std::uint32_t bBegin = 0; ///< cells of the second (of the same catalog, b >= a, for auto)
    std::uint32_t bEnd = 0;
    CellPairClass kind = CellPairClass::Partial;
};

struct CellPairQuery {
    /// Squared chord range of the bins: [chord2Min, chord2Max) (Binning's first and last edge).
    double chord2Min = 0;
    double chord2Max = 4;
    /// Relative safety margin on both bounds, larger than the rounding error of the precision
    /// that will compute each pair's c² (double: 1e-12; the GPU's float path: 1e-5). A cell pair
    /// is dropped only when its boxes are farther apart than chord2Max · (1 + margin), or
    /// (where chord2Min > 0) closer everywhere than chord2Min · (1 − margin).
    double relativeMargin = 1e-12;
    /// Auto-correlation of one catalog: only b >= a is listed (the diagonal cells included).
    bool autoPairs = false;
};

/// Every cell pair (a, b) whose boxes allow a pair in range, as runs sorted by a, then bBegin;
/// adjacent runs of one a and one kind are merged. Cells are expected in a spatially coherent
/// order (Morton, bands): the builder groups consecutive cells into a tree of merged boxes and
/// descends only into group pairs within reach, so the cost follows the output, not cells².
/// Cells with empty boxes (lo > hi) are skipped where cells are tested one by one; a run taken
/// whole from a group pair may include them (they hold no points, so they add nothing).
/// threads > 1: the descent's top levels are cut into independent group pairs, listed on that
/// many workers of the runner; the list is the same for any number.
std::vector<CellPairRun> listCellPairs(std::span<const CellBounds> cellsA,
                                       std::span<const CellBounds> cellsB,
                                       const CellPairQuery& query, std::size_t threads = 1);

/// Cell pairs the runs cover.
std::uint64_t cellPairCount(std::span<const CellPairRun> runs) noexcept;

/// The Auto rule, shared by the backends and reported in the metadata: culling pays when the
/// bins stop well short of 180° and the catalogs are large enough to amortise the sort.
/// thetaMaxDegrees: the last bin edge; pairTotal: unique pairs of the whole batch.
bool chooseCulling(CullingMode mode, double thetaMaxDegrees, std::uint64_t pairTotal) noexcept;

} // namespace tpacf
