// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Mock catalogs: clustered data with a known w(θ) power law, and uniform randoms,
// over a footprint. Deterministic for a given seed.
#include "tpacf/catalog.h"
#include "tpacf/sky_mask.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf {

/// Region of the sky. Box: RA/Dec limits in degrees (raMin > raMax wraps through RA = 0).
/// Cap: centre and radius in degrees.
struct Footprint {
    enum class Shape { FullSky, Box, Cap };
    Shape shape = Shape::FullSky;
    double raMin = 0, raMax = 360, decMin = -90, decMax = 90;
    double capRa = 0, capDec = 90, capRadius = 180;

    static Footprint fullSky();
    static Footprint box(double raMin, double raMax, double decMin, double decMax);
    static Footprint cap(double ra, double dec, double radius);

    /// Validates; throws ConfigError.
    void validate() const;
    bool contains(double raDeg, double decDeg) const noexcept;
    /// Solid angle in steradians.
    double solidAngle() const noexcept;
    std::string describe() const;
};

/// Soneira–Peebles hierarchical clustering on the sphere: `levels` levels, each sphere holding
/// `eta` sub-spheres of radius shrunk by `lambda`. w(θ) ∝ θ^(log(eta)/log(lambda) − 2) between the
/// innermost and outermost scale.
struct MockParams {
    std::size_t count = 10000;
    std::uint64_t seed = 1;
    Footprint footprint;
    int levels = 8;
    int eta = 2;
    double lambda = 1.7818; // with eta = 2: slope log 2 / log 1.7818 − 2 = −0.80, as galaxies
    double outerRadiusDeg = 10.0; // radius of the top-level spheres
};

/// Expected logarithmic slope of w(θ) for the given parameters.
double mockExpectedSlope(const MockParams& params) noexcept;

Catalog generateClusteredMock(const MockParams& params, std::string name = "mock");
Catalog generateUniformRandoms(std::size_t count, const Footprint& footprint, std::uint64_t seed,
                               std::string name = "randoms");

/// `count` random points uniform on the sphere inside `mask`, thinned by its completeness (a
/// pixel of completeness c holds c times the points of a full one, on average), on `threads`
/// threads (0: all); the same catalog for the same seed whatever the thread count. ConfigError
/// for an empty mask (mask_randoms.cpp says how they are drawn).
Catalog generateRandomsInMask(std::size_t count, const SkyMask& mask, std::uint64_t seed,
                              std::string name = "randoms", int threads = 0);

/// The line a file of such randoms starts with: "randoms inside the mask <description>, seed
/// S, N points".
std::string maskRandomsNote(const SkyMask& mask, std::uint64_t seed, std::size_t count);

/// Writes "ra dec" in degrees with a '#' header line, after `notes` as '#' lines of their own
/// (how the catalog was made: mask, seed); throws InputError when not writable.
void writeCatalogAscii(const std::string& path, const Catalog& catalog,
                       const std::vector<std::string>& notes = {});
/// The same content to a stream.
void writeCatalogAscii(std::ostream& out, const Catalog& catalog,
                       const std::vector<std::string>& notes = {});

} // namespace tpacf
