// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A catalog of positions on the sky, as structure of arrays. Immutable once built.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tpacf {

/// How a catalog was read, for summaries, result metadata and the GUI: which columns, in which
/// unit, from which part of the file. Readers fill it; a catalog built in memory has it empty.
struct CatalogOrigin {
    std::string format;       ///< "ascii", "fits"; "" for a catalog built in memory
    std::string raColumn;     ///< as the file names it ("RA_J2000"), or "column 1" without names
    std::string decColumn;
    std::string weightColumn; ///< "" without weights
    std::string regionColumn; ///< "" without region labels
    std::string unit;         ///< "deg", or "RA in hours, Dec in deg"
    /// How the columns were chosen: "named by --ra-col/--dec-col", "header names ra, dec",
    /// "first two numeric columns (no header)".
    std::string columnChoice;
    std::string selection;    ///< FITS: the HDU and any row filter or column expression
    std::uint64_t rows = 0;   ///< data rows read

    bool known() const noexcept { return !format.empty(); }
    /// One line: "ascii, columns ra, dec (header names), deg, 5000 rows".
    std::string describe() const;
};

/// RA/Dec bounds of a catalog in radians (RA in [0, 2π), Dec in [−π/2, π/2]).
struct SkyExtent {
    double raMin = 0, raMax = 0, decMin = 0, decMax = 0;
    /// The shortest RA arc that holds every point, from raFrom eastwards to raTo: raFrom > raTo
    /// where it passes RA 0 (a field at 350°–10° is 350° to 10°, not 10°–350°).
    double raFrom = 0, raTo = 0;
    bool raWraps() const noexcept { return raFrom > raTo; }
};

class Catalog {
public:
    Catalog() = default;

    /// Builds from RA/Dec in radians; computes unit vectors once, in double. RA is wrapped
    /// into [0, 2π). Throws InputError (naming `name` and the row) on a non-finite value or a
    /// Dec outside [−π/2, π/2]. `weight` and `region` are empty or of the same size. Large
    /// catalogs are built on `threads` threads (0: all); the result is the same for any number.
    static Catalog fromRadians(std::string name, std::vector<double> ra, std::vector<double> dec,
                               std::vector<double> weight = {}, std::vector<std::int32_t> region = {},
                               int threads = 0);
    /// Points taken as they are from catalogs already built (RA wrapped, Dec checked, unit
    /// vectors computed), e.g. the same points in another order: only the sizes are checked, and
    /// no sine is computed again. ConfigError when the columns differ in length.
    struct Columns {
        std::vector<double> ra, dec, x, y, z, weight;
        std::vector<std::int32_t> region;
    };
    static Catalog fromBuiltColumns(std::string name, Columns columns);
    /// The same from degrees.
    static Catalog fromDegrees(std::string name, std::vector<double> raDeg, std::vector<double> decDeg,
                               std::vector<double> weight = {}, std::vector<std::int32_t> region = {});

    /// Where the catalog came from (file path or a label).
    const std::string& name() const noexcept { return m_name; }
    std::size_t size() const noexcept { return m_ra.size(); }
    bool empty() const noexcept { return m_ra.empty(); }

    std::span<const double> ra() const noexcept { return m_ra; }
    std::span<const double> dec() const noexcept { return m_dec; }
    std::span<const double> x() const noexcept { return m_x; }
    std::span<const double> y() const noexcept { return m_y; }
    std::span<const double> z() const noexcept { return m_z; }
    /// Per-point weights; empty when the catalog has none.
    std::span<const double> weight() const noexcept { return m_weight; }
    /// Per-point jackknife region; empty when none assigned.
    std::span<const std::int32_t> region() const noexcept { return m_region; }
    bool hasWeights() const noexcept { return !m_weight.empty(); }

    /// RA/Dec bounds (RA bounds are min/max of the wrapped values, and the shortest arc that
    /// holds them all). All zero when empty.
    SkyExtent extent() const noexcept;

    /// How the catalog was read (empty for one built in memory). Readers set it once, before
    /// the catalog is handed out; it changes no coordinate.
    const CatalogOrigin& origin() const noexcept { return m_origin; }
    void setOrigin(CatalogOrigin origin) { m_origin = std::move(origin); }

private:
    std::string m_name;
    std::vector<double> m_ra, m_dec, m_x, m_y, m_z, m_weight;
    std::vector<std::int32_t> m_region;
    CatalogOrigin m_origin;
};

} // namespace tpacf
