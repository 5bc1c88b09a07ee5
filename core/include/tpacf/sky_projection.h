// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whole-sky map projections as astronomers draw them (RA growing to the LEFT, the sky seen from
// inside), the extent of a footprint that picks one, and density rasters in projected
// coordinates, so a preview of 10⁶–10⁸ points is a few hundred thousand pixels, not markers.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf {

enum class SkyProjectionKind {
    Mollweide,    ///< equal-area, parallels straight: the usual all-sky map
    HammerAitoff, ///< equal-area, parallels curved, less shear near the edge
    PlateCarree,  ///< x = −ΔRA, y = Dec in radians: the plain RA/Dec view of small fields
};

/// One row of the projection table: what the GUI lists and the CLI could name.
struct SkyProjectionInfo {
    SkyProjectionKind kind;
    std::string_view key;  ///< "mollweide", "hammer", "plain"
    std::string_view name; ///< for people
    bool equalArea;
    double xMax; ///< the domain is |x| ≤ xMax, |y| ≤ yMax (an ellipse for the equal-area ones)
    double yMax;
};

std::span<const SkyProjectionInfo> skyProjections() noexcept;
const SkyProjectionInfo& skyProjectionInfo(SkyProjectionKind kind) noexcept;

/// A direction on the sky, in radians: RA in [0, 2π), Dec in [−π/2, π/2].
struct SkyDirection {
    double ra = 0;
    double dec = 0;
};

/// A position in the projection's plane (dimensionless; RA to the left: x < 0 east of λ0).
struct ProjectedPoint {
    double x = 0;
    double y = 0;
};

/// Mollweide: 2θ + sin 2θ = π sin δ, x = −(2√2/π)(λ−λ0) cos θ, y = √2 sin θ.
/// Hammer–Aitoff: x = −2√2 cos δ sin(Δλ/2)/√(1 + cos δ cos(Δλ/2)), y = √2 sin δ/√(…).
/// Both fill the ellipse x²/8 + y²/2 ≤ 1. Δλ = λ − λ0 is wrapped to (−π, π].
class SkyProjection {
public:
    explicit SkyProjection(SkyProjectionKind kind = SkyProjectionKind::Mollweide,
                           double centralRa = 0.0);

    SkyProjectionKind kind() const noexcept { return m_kind; }
    double centralRa() const noexcept { return m_centralRa; }
    const SkyProjectionInfo& info() const noexcept { return skyProjectionInfo(m_kind); }

    ProjectedPoint forward(double ra, double dec) const noexcept;
    /// The direction drawn at (x, y); nullopt outside the projection's domain.
    std::optional<SkyDirection> inverse(double x, double y) const noexcept;
    /// Whether (x, y) lies in the domain (inside the ellipse, or the plain rectangle).
    bool contains(double x, double y) const noexcept;

    /// Mollweide's auxiliary angle θ for a Dec: bracketed Halley/Newton on 2θ + sin 2θ = π sin δ
    /// (its derivative vanishes at the poles, where plain Newton stalls); exact ±π/2 at the poles.
    static double mollweideTheta(double dec) noexcept;

private:
    SkyProjectionKind m_kind;
    double m_centralRa;
};

/// The sky a set of points covers: the RA arc outside its largest empty gap, and its Dec range.
struct SkyFootprintExtent {
    std::size_t points = 0;
    double centralRa = 0; ///< the middle of the occupied RA arc, radians in [0, 2π)
    double raSpan = 0;    ///< width of that arc, radians (2π when no gap of 1° is empty)
    double decMin = 0;
    double decMax = 0;
    double heightDegrees() const noexcept;
};

/// The extent of all points of `ras`/`decs` together (parallel spans of each catalog; radians);
/// an even subsample of about `maxPoints` of each keeps it a few milliseconds on 10⁸ points.
SkyFootprintExtent skyExtent(std::span<const std::span<const double>> ras,
                             std::span<const std::span<const double>> decs,
                             std::size_t maxPoints = 500000);

/// Plate carrée for a field that the plain RA/Dec plane shows without much distortion: at most
/// half the circle of RA and 60° of Dec, clear of the poles (|Dec| ≤ 75°), and a degree of RA no
/// more than twice as long at one edge as at the other (cos δ varies by ≤ 2 over the field), so
/// that a survey stripe along the equator stays a strip rather than a line on a whole-sky map.
/// Mollweide otherwise.
SkyProjectionKind suggestedProjection(const SkyFootprintExtent& extent) noexcept;

/// A raster over [xMin, xMax) × [yMin, yMax] of the projected plane, `width` × `height` pixels.
struct SkyRasterSpec {
    int width = 720;
    int height = 360;
    double xMin = -1, xMax = 1, yMin = -1, yMax = 1;
    /// The raster covering a projection's whole domain.
    static SkyRasterSpec wholeDomain(const SkyProjection& projection, int width, int height);
    /// The pixel holding (x, y) (column, row; row 0 at yMin), or nullopt outside the raster.
    /// The upper edges belong to the last column and row.
    std::optional<std::pair<int, int>> pixelOf(double x, double y) const noexcept;
};

/// Counts of points per pixel. `outside[i]` marks pixels whose centre lies outside the
/// projection's domain (drawn transparent); `missed` points fell outside the raster.
struct SkyDensityGrid {
    SkyRasterSpec spec;
    std::vector<std::uint64_t> counts; ///< row-major, index row·width + column
    std::vector<std::uint8_t> outside;
    std::uint64_t missed = 0;
    std::uint64_t total() const noexcept;
    std::uint64_t maxCount() const noexcept;
    std::uint64_t at(int column, int row) const {
        return counts[std::size_t(row) * spec.width + column];
    }
};

/// Projected positions of points (float: ~1e-7 of the plane, far below a pixel; rounded toward
/// the origin, so none leaves the domain), kept by the GUI so that a zoom re-bins without
/// re-solving Mollweide's θ.
struct ProjectedPoints {
    std::vector<float> x;
    std::vector<float> y;
    std::size_t stride = 1; ///< every stride-th point of the catalog was taken
    std::size_t size() const noexcept { return x.size(); }
    /// The catalog index of point k.
    std::size_t sourceIndex(std::size_t k) const noexcept { return k * stride; }
};

/// Projects every `stride`-th point (stride ≥ 1) on the runner's workers (inline when few).
ProjectedPoints projectPoints(const SkyProjection& projection, std::span<const double> ra,
                              std::span<const double> dec, std::size_t stride = 1, int threads = 0);

/// Bins projected points into `spec`'s raster; per-worker rasters merged, so counts are exact.
SkyDensityGrid binProjected(const ProjectedPoints& points, const SkyRasterSpec& spec,
                            const SkyProjection& projection, int threads = 0);

/// Projects and bins `ra`/`dec` (radians) in one go.
SkyDensityGrid skyDensity(const SkyProjection& projection, std::span<const double> ra,
                          std::span<const double> dec, const SkyRasterSpec& spec, int threads = 0);

/// Per pixel, the label of the lowest-indexed point in it (−1: no point, or a negative label),
/// whatever the worker count: a region map for jackknife labels at raster resolution.
/// `labels` is indexed by the catalog's point index (ProjectedPoints::sourceIndex).
std::vector<std::int32_t> labelRaster(const ProjectedPoints& points,
                                      std::span<const std::int32_t> labels,
                                      const SkyRasterSpec& spec, int threads = 0);

} // namespace tpacf
