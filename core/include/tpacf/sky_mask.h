// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A survey's footprint as a HEALPix map (completeness per pixel, RING or NESTED, full-sky or
// partial) or a MOC (the IVOA multi-order coverage): points inside or outside it, catalogs cut
// to it, and the cells that random points are drawn from (mock.h, generateRandomsInMask).
// Built with healpix-cxx (pixel indices) and cfitsio (the files); without them every call
// throws ConfigError saying so (skyMasksAvailable()).
#include "tpacf/catalog.h"
#include "tpacf/sky_projection.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tpacf {

/// Whether this build reads masks (healpix-cxx and cfitsio were found).
bool skyMasksAvailable() noexcept;

/// The largest NSIDE of a HEALPix map read (a full-sky map at 8192 is 805 million pixels).
inline constexpr std::int64_t kMaxMaskNside = 8192;

class SkyMask {
public:
    /// Every mask is held as sorted, disjoint runs of NESTED pixels at the deepest order of
    /// 64-bit HEALPix (NSIDE 2^29, cells of 0.4 milliarcseconds): a map's pixel at order k is
    /// the run of its 4^(29−k) descendants, a MOC's cell likewise, and neighbours of equal
    /// completeness are one run. A binary mask of any resolution is then a few runs per edge.
    static constexpr int kDeepOrder = 29;
    struct Run {
        std::uint64_t begin = 0, end = 0; ///< deep NESTED pixels [begin, end)
        float completeness = 1.0F;        ///< (0, 1]; pixels outside every run have 0
    };

    SkyMask() = default;
    /// A map's pixels at NSIDE 2^order in NESTED numbering with their completeness; pixels of
    /// completeness 0 may be given or left out. ConfigError on an order beyond 13, a pixel out
    /// of range, a pixel given twice, a completeness that is not in [0, 1] (naming the pixel).
    static SkyMask fromNestedPixels(int order, std::span<const std::uint64_t> pixels,
                                    std::span<const float> completeness, std::string description);
    /// A MOC's cells as NUNIQ numbers (4·4^order + nested pixel, order ≤ 29), completeness 1;
    /// cells may overlap. ConfigError on a number that is no cell.
    static SkyMask fromMocCells(std::span<const std::uint64_t> uniq, std::string description);

    /// A MOC 2.0's ranges of deep pixels as (begin, end) pairs, completeness 1; `order` is the
    /// MOC's own (MOCORDER). ConfigError on an empty range or one past the last pixel.
    static SkyMask fromDeepRanges(std::span<const std::uint64_t> beginEnd, int order,
                                  std::string description);

    /// Completeness at a unit vector (0 outside the mask).
    double completenessAt(double x, double y, double z) const noexcept;
    /// The deep pixel that holds a unit vector, and its completeness.
    static std::uint64_t deepPixelOf(double x, double y, double z) noexcept;
    double completenessOfDeepPixel(std::uint64_t pixel) const noexcept;
    /// The same for many pixels at once (out[i] for pixels[i]): the lookups of a batch are
    /// interleaved so that their cache misses overlap (a graded map at NSIDE 2048 is millions
    /// of runs, each lookup two misses when done one by one).
    void completenessOfDeepPixels(std::span<const std::uint64_t> pixels,
                                  std::span<double> out) const noexcept;
    /// The centre of a deep pixel as a unit vector {x, y, z}.
    static void deepPixelCentre(std::uint64_t pixel, double& x, double& y, double& z) noexcept;

    const std::vector<Run>& runs() const noexcept { return m_runs; }
    bool empty() const noexcept { return m_runs.empty(); }
    /// Share of the sphere with completeness > 0, and the completeness-weighted share.
    double skyFraction() const noexcept;
    double effectiveSkyFraction() const noexcept;
    /// NSIDE of the map (a MOC: of its deepest cells).
    std::int64_t nside() const noexcept { return std::int64_t{1} << m_order; }
    /// "HEALPix map mask.fits (NSIDE 256, RING, column T)"; set by the reader.
    const std::string& description() const noexcept { return m_description; }

private:
    static SkyMask made(int order, std::vector<Run> runs, std::string description);

    int m_order = 0;
    std::vector<Run> m_runs;
    std::string m_description;
    // Where the runs of each cell at a coarse order begin (cell j: runs m_cellStart[j] ..
    // m_cellStart[j + 1], the last possibly reaching in from before), so that a lookup searches
    // a few neighbouring runs instead of all of them: a graded map at NSIDE 2048 is millions.
    int m_cellOrder = 0;
    std::vector<std::uint32_t> m_cellStart;
};

/// Which column of a HEALPix map holds the completeness ("" : the first numeric column that is
/// not PIXEL) and the HDU (as ReadOptions::hdu; "" : the first binary table).
struct MaskReadOptions {
    std::string column;
    std::string hdu;
};

/// Reads a HEALPix map or a MOC from a FITS file (a .fits.gz too). A map: PIXTYPE = 'HEALPIX',
/// ORDERING RING or NESTED, NSIDE a power of 2 up to kMaxMaskNside, implicit indexing (every
/// pixel in order, FIRSTPIX..LASTPIX where given) or explicit (INDXSCHM = 'EXPLICIT' or
/// OBJECT = 'PARTIAL': a PIXEL column beside the values); healpy's UNSEEN is 0. A MOC:
/// ORDERING NUNIQ (MOC 1.x) or RANGE (MOC 2.0), or MOCORDER/MOCORD_S with an UNIQ column.
/// InputError naming the file and what is wrong: not a HEALPix table, a bad NSIDE, the wrong
/// pixel count, a NaN or out-of-range completeness (with its pixel), a pixel out of range.
SkyMask readSkyMask(const std::string& path, const MaskReadOptions& options = {});

/// A catalog cut to a mask: the points whose completeness is > 0 and ≥ threshold, in their
/// order, with their weights and regions.
struct MaskedCatalog {
    Catalog catalog;
    std::size_t kept = 0, dropped = 0;
};
/// ConfigError on a threshold outside [0, 1]. `threads` as parallelForRanges'.
MaskedCatalog applySkyMask(const Catalog& catalog, const SkyMask& mask, double threshold = 0.0,
                           int threads = 0);

/// applySkyMask, and an InputError naming the catalog when the mask keeps none of its points
/// (the job and tpacf count refuse such a catalog alike).
MaskedCatalog cutToMask(const Catalog& catalog, const SkyMask& mask, double threshold,
                        int threads = 0);

/// What a mask kept of one catalog, for maskingNote.
struct MaskedCount {
    std::string label; ///< "data", "random set 2", "A"
    std::size_t kept = 0, total = 0;
};
/// "mask HEALPix map m.fits (NSIDE 64, RING, column T), 12.3 % of the sky: data kept 9,812 of
/// 10,000; randoms kept ...": one line for notices and a result's notes.
std::string maskingNote(const SkyMask& mask, double threshold, std::span<const MaskedCount> counts);

/// The mask as the sky preview draws it: the completeness at each raster pixel's centre (row
/// major, row 0 at spec.yMin), NaN where the centre is off the projection's domain or outside
/// the mask.
std::vector<double> skyMaskRaster(const SkyMask& mask, const SkyProjection& projection,
                                  const SkyRasterSpec& spec);

} // namespace tpacf
