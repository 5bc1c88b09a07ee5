// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/mock.h"
#include "base/number_text.h"

#include "tpacf/errors.h"
#include "tpacf/output_file.h"
#include "tpacf/units.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <random>
#include <system_error>
#include <utility>
#include <vector>

namespace tpacf {

namespace {

constexpr double kDeg = kPi / 180.0;
constexpr double kTwoPi = 2.0 * kPi;

// Leaves one top-level sphere may hold (eta^levels): they are generated in memory at once.
constexpr double kMaxPointsPerCluster = 16777216.0; // 2^24

// std::uniform_real_distribution is implementation-defined; this is the same on every platform.
class UniformSource {
  public:
    explicit UniformSource(std::uint64_t seed) : m_engine(seed) {}
    /// Uniform in [0, 1) with 53 random bits.
    double next() { return static_cast<double>(m_engine() >> 11) * 0x1.0p-53; }
    /// Uniform integer in [0, n), n > 0 (bias-free by rejection).
    std::uint64_t below(std::uint64_t n) {
        const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
        std::uint64_t value = m_engine();
        while (value >= limit)
            value = m_engine();
        return value % n;
    }

  private:
    std::mt19937_64 m_engine;
};

struct Vec3 {
    double x = 0, y = 0, z = 1;
};

Vec3 unitVector(double ra, double dec) noexcept {
    const double cosDec = std::cos(dec);
    return {cosDec * std::cos(ra), cosDec * std::sin(ra), std::sin(dec)};
}

double wrapRadians(double ra) noexcept {
    double wrapped = std::fmod(ra, kTwoPi);
    if (wrapped < 0)
        wrapped += kTwoPi;
    return wrapped >= kTwoPi ? 0.0 : wrapped;
}

double wrapDegrees(double ra) noexcept {
    double wrapped = std::fmod(ra, 360.0);
    if (wrapped < 0)
        wrapped += 360.0;
    return wrapped >= 360.0 ? 0.0 : wrapped;
}

std::pair<double, double> raDecOf(const Vec3& v) noexcept {
    const double ra = wrapRadians(std::atan2(v.y, v.x));
    const double dec = std::asin(std::clamp(v.z, -1.0, 1.0));
    return {ra, dec};
}

// Squared chord between two directions from coordinate differences (haversine form): exact
// enough at any separation, unlike 1 − cos, so tiny caps still have a sharp rim.
double chord2Between(double ra1, double dec1, double ra2, double dec2) noexcept {
    const double sinHalfDec = std::sin((dec2 - dec1) / 2.0);
    const double sinHalfRa = std::sin((ra2 - ra1) / 2.0);
    return 4.0 *
           (sinHalfDec * sinHalfDec + std::cos(dec1) * std::cos(dec2) * sinHalfRa * sinHalfRa);
}

double chord2OfRadius(double radiusRad) noexcept {
    const double half = std::sin(radiusRad / 2.0);
    return 4.0 * half * half;
}

// A point uniform on the sphere within angular radius `radius` (radians) of `centre`.
// 1 − cos θ is drawn uniformly in [0, 2 sin²(r/2)], which keeps small caps accurate.
Vec3 pointInCap(const Vec3& centre, double radius, UniformSource& random) {
    const double halfSin = std::sin(radius / 2.0);
    const double oneMinusCos = random.next() * 2.0 * halfSin * halfSin;
    const double cosTheta = 1.0 - oneMinusCos;
    const double sinTheta = std::sqrt(std::max(0.0, oneMinusCos * (2.0 - oneMinusCos)));
    const double phi = kTwoPi * random.next();

    // An orthonormal basis (e1, e2) perpendicular to the centre, built from the axis the centre
    // is least aligned with so it never degenerates.
    Vec3 axis{1, 0, 0};
    if (std::abs(centre.x) > std::abs(centre.z) || std::abs(centre.y) > std::abs(centre.z))
        axis = {0, 0, 1};
    Vec3 e1{centre.y * axis.z - centre.z * axis.y, centre.z * axis.x - centre.x * axis.z,
            centre.x * axis.y - centre.y * axis.x};
    const double norm = std::sqrt(e1.x * e1.x + e1.y * e1.y + e1.z * e1.z);
    e1 = {e1.x / norm, e1.y / norm, e1.z / norm};
    const Vec3 e2{centre.y * e1.z - centre.z * e1.y, centre.z * e1.x - centre.x * e1.z,
                  centre.x * e1.y - centre.y * e1.x};

    const double c = std::cos(phi) * sinTheta;
    const double s = std::sin(phi) * sinTheta;
    Vec3 point{cosTheta * centre.x + c * e1.x + s * e2.x, cosTheta * centre.y + c * e1.y + s * e2.y,
               cosTheta * centre.z + c * e1.z + s * e2.z};
    const double length = std::sqrt(point.x * point.x + point.y * point.y + point.z * point.z);
    return {point.x / length, point.y / length, point.z / length};
}

// A region sampled without rejection: a band of RA × sin(Dec) (the whole sky is one), or a cap.
// Sampling inside it and rejecting what the footprint does not contain gives uniform points.
struct SamplingRegion {
    bool isCap = false;
    double raStart = 0, raWidth = kTwoPi, sinDecMin = -1, sinDecMax = 1; // band, radians
    Vec3 capCentre;
    double capRadius = kPi;

    Vec3 draw(UniformSource& random) const {
        if (isCap)
            return pointInCap(capCentre, capRadius, random);
        const double ra = raStart + raWidth * random.next();
        const double sinDec = sinDecMin + (sinDecMax - sinDecMin) * random.next();
        const double cosDec = std::sqrt(std::max(0.0, 1.0 - sinDec * sinDec));
        return {cosDec * std::cos(ra), cosDec * std::sin(ra), sinDec};
    }
};

double boxRaWidthDeg(const Footprint& footprint) noexcept {
    return footprint.raMin <= footprint.raMax ? footprint.raMax - footprint.raMin
                                              : footprint.raMax + 360.0 - footprint.raMin;
}

// The region to draw from for `footprint` grown by `marginDeg` in every direction (0: the
// footprint's own bounds). Growing is conservative: the result contains every point within
// the margin of the footprint, which is all the clustered mock needs.
SamplingRegion samplingRegion(const Footprint& footprint, double marginDeg) {
    SamplingRegion region;
    switch (footprint.shape) {
    case Footprint::Shape::FullSky:
        return region;
    case Footprint::Shape::Cap: {
        const double radius = footprint.capRadius + marginDeg;
        if (radius >= 180.0)
            return region;
        region.isCap = true;
        region.capCentre = unitVector(footprint.capRa * kDeg, footprint.capDec * kDeg);
        region.capRadius = radius * kDeg;
        return region;
    }
    case Footprint::Shape::Box: {
        const double decMin = std::max(-90.0, footprint.decMin - marginDeg);
        const double decMax = std::min(90.0, footprint.decMax + marginDeg);
        region.sinDecMin = std::sin(decMin * kDeg);
        region.sinDecMax = std::sin(decMax * kDeg);
        // Two points with |Dec| <= P and separation <= m differ in RA by at most
        // 2 asin(sin(m/2) / cos P) (from the haversine formula); P is the grown band's
        // Dec nearest a pole.
        double raMargin = 0;
        if (marginDeg > 0) {
            const double poleward = std::max(std::abs(decMin), std::abs(decMax));
            const double sinHalfRa = std::sin(marginDeg * kDeg / 2.0) / std::cos(poleward * kDeg);
            raMargin =
                poleward >= 90.0 || !(sinHalfRa < 1.0) ? 360.0 : 2.0 * std::asin(sinHalfRa) / kDeg;
        }
        const double width = boxRaWidthDeg(footprint) + 2.0 * raMargin;
        if (width >= 360.0)
            return region; // full RA range, Dec band only
        region.raStart = (footprint.raMin - raMargin) * kDeg;
        region.raWidth = width * kDeg;
        return region;
    }
    }
    return region;
}

bool containsRadians(const Footprint& footprint, double ra, double dec) noexcept {
    return footprint.contains(ra / kDeg, dec / kDeg);
}

void validateMock(const MockParams& params) {
    params.footprint.validate();
    if (params.levels < 1)
        throw ConfigError("mock: levels must be at least 1, got " + std::to_string(params.levels));
    if (params.eta < 2)
        throw ConfigError("mock: eta (sub-spheres per sphere) must be at least 2, got " +
                          std::to_string(params.eta));
    if (!std::isfinite(params.lambda) || params.lambda <= 1.0)
        throw ConfigError("mock: lambda (radius ratio per level) must be > 1, got " +
                          detail::formatDouble(params.lambda));
    if (!std::isfinite(params.outerRadiusDeg) || params.outerRadiusDeg <= 0 ||
        params.outerRadiusDeg > 180.0)
        throw ConfigError("mock: outer radius must be in (0, 180] degrees, got " +
                          detail::formatDouble(params.outerRadiusDeg));
    if (std::pow(static_cast<double>(params.eta), params.levels) > kMaxPointsPerCluster)
        throw ConfigError("mock: eta^levels = " + std::to_string(params.eta) + "^" +
                          std::to_string(params.levels) +
                          " points per top-level sphere is more than 2^24; use fewer levels");
}

} // namespace

Footprint Footprint::fullSky() {
    return Footprint{};
}

Footprint Footprint::box(double raMin, double raMax, double decMin, double decMax) {
    Footprint footprint;
    footprint.shape = Shape::Box;
    footprint.raMin = raMin;
    footprint.raMax = raMax;
    footprint.decMin = decMin;
    footprint.decMax = decMax;
    return footprint;
}

Footprint Footprint::cap(double ra, double dec, double radius) {
    Footprint footprint;
    footprint.shape = Shape::Cap;
    footprint.capRa = ra;
    footprint.capDec = dec;
    footprint.capRadius = radius;
    return footprint;
}

void Footprint::validate() const {
    switch (shape) {
    case Shape::FullSky:
        return;
    case Shape::Box:
        if (!std::isfinite(raMin) || !std::isfinite(raMax) || raMin < 0 || raMin > 360.0 ||
            raMax < 0 || raMax > 360.0)
            throw ConfigError("footprint: RA limits must lie in [0, 360] degrees, got " +
                              detail::formatDouble(raMin) + " to " + detail::formatDouble(raMax) +
                              " (use raMin > raMax to wrap through RA = 0)");
        if (raMin == raMax || (raMin == 360.0 && raMax == 0.0))
            throw ConfigError("footprint: RA range " + detail::formatDouble(raMin) + " to " + detail::formatDouble(raMax) +
                              " is empty");
        if (!std::isfinite(decMin) || !std::isfinite(decMax) || decMin < -90.0 || decMax > 90.0 ||
            decMin >= decMax)
            throw ConfigError(
                "footprint: Dec limits must satisfy -90 <= decMin < decMax <= 90, got " +
                detail::formatDouble(decMin) + " to " + detail::formatDouble(decMax));
        return;
    case Shape::Cap:
        if (!std::isfinite(capRa))
            throw ConfigError("footprint: cap centre RA must be finite");
        if (!std::isfinite(capDec) || capDec < -90.0 || capDec > 90.0)
            throw ConfigError("footprint: cap centre Dec must lie in [-90, 90] degrees, got " +
                              detail::formatDouble(capDec));
        if (!std::isfinite(capRadius) || capRadius <= 0 || capRadius > 180.0)
            throw ConfigError("footprint: cap radius must be in (0, 180] degrees, got " +
                              detail::formatDouble(capRadius));
        return;
    }
    throw ConfigError("footprint: unknown shape");
}

bool Footprint::contains(double raDeg, double decDeg) const noexcept {
    if (!std::isfinite(raDeg) || !std::isfinite(decDeg) || decDeg < -90.0 || decDeg > 90.0)
        return false;
    switch (shape) {
    case Shape::FullSky:
        return true;
    case Shape::Box: {
        if (decDeg < decMin || decDeg > decMax)
            return false;
        const double ra = wrapDegrees(raDeg);
        if (raMin <= raMax)
            return (ra >= raMin && ra <= raMax) || (raMax == 360.0 && ra == 0.0);
        return ra >= raMin || ra <= raMax;
    }
    case Shape::Cap:
        return chord2Between(capRa * kDeg, capDec * kDeg, raDeg * kDeg, decDeg * kDeg) <=
               chord2OfRadius(capRadius * kDeg);
    }
    return false;
}

double Footprint::solidAngle() const noexcept {
    switch (shape) {
    case Shape::FullSky:
        return 4.0 * kPi;
    case Shape::Box:
        return boxRaWidthDeg(*this) * kDeg * (std::sin(decMax * kDeg) - std::sin(decMin * kDeg));
    case Shape::Cap: {
        // 2π(1 − cos r) written as 4π sin²(r/2), exact for small caps.
        const double half = std::sin(capRadius * kDeg / 2.0);
        return 4.0 * kPi * half * half;
    }
    }
    return 0;
}

std::string Footprint::describe() const {
    switch (shape) {
    case Shape::FullSky:
        return "full sky";
    case Shape::Box:
        return "box RA " + detail::formatDouble(raMin) + " to " + detail::formatDouble(raMax) + " deg" +
               (raMin > raMax ? " (wrapping through 0)" : "") + ", Dec " + detail::formatDouble(decMin) + " to " +
               detail::formatDouble(decMax) + " deg";
    case Shape::Cap:
        return "cap centred at RA " + detail::formatDouble(capRa) + ", Dec " + detail::formatDouble(capDec) + " deg, radius " +
               detail::formatDouble(capRadius) + " deg";
    }
    return "unknown footprint";
}

double mockExpectedSlope(const MockParams& params) noexcept {
    // Fractal dimension D = log η / log λ of the point set; on the sphere (a 2-D surface) the
    // neighbour density around a point scales as θ^(D−2), and so does w(θ).
    return std::log(static_cast<double>(params.eta)) / std::log(params.lambda) - 2.0;
}

Catalog generateUniformRandoms(std::size_t count, const Footprint& footprint, std::uint64_t seed,
                               std::string name) {
    footprint.validate();
    const SamplingRegion region = samplingRegion(footprint, 0.0);
    UniformSource random(seed);
    std::vector<double> ra, dec;
    ra.reserve(count);
    dec.reserve(count);
    // Draws fall outside only for a wrapped-edge rounding or a box near a pole; the sampling
    // region is the footprint's bounds, so the acceptance rate is essentially 1.
    std::size_t missesInARow = 0;
    while (ra.size() < count) {
        const auto [pointRa, pointDec] = raDecOf(region.draw(random));
        if (!containsRadians(footprint, pointRa, pointDec)) {
            if (++missesInARow > 1000000)
                throw ConfigError("footprint " + footprint.describe() +
                                  ": no random point lands inside it");
            continue;
        }
        missesInARow = 0;
        ra.push_back(pointRa);
        dec.push_back(pointDec);
    }
    return Catalog::fromRadians(std::move(name), std::move(ra), std::move(dec));
}

Catalog generateClusteredMock(const MockParams& params, std::string name) {
    validateMock(params);
    UniformSource random(params.seed);

    // Top-level centres are drawn in the footprint grown by the largest distance a point can
    // land from its centre (R + R/λ + R/λ² + ... < Rλ/(λ−1)). Every point of the footprint
    // then sees clusters from all sides, so the mock's mean density is the same everywhere in
    // it, as the uniform randoms assume. Centres drawn inside the footprint only would thin
    // its edges: a density gradient the randoms lack, which shows up as spurious w(θ) at
    // large θ.
    const double spreadDeg =
        std::min(180.0, params.outerRadiusDeg * params.lambda / (params.lambda - 1.0));
    const SamplingRegion centreRegion = samplingRegion(params.footprint, spreadDeg);

    std::vector<double> ra, dec;
    std::vector<Vec3> level, next;
    double pointsDrawn = 0;
    while (ra.size() < params.count) {
        // A footprint much smaller than the spheres' spread would keep this loop busy for
        // hours; stop once the acceptance seen so far says it needs over 10^9 points.
        if (pointsDrawn > 1e7 && pointsDrawn /
                                         static_cast<double>(std::max<std::size_t>(ra.size(), 1)) *
                                         static_cast<double>(params.count) >
                                     1e9)
            throw ConfigError("mock: footprint " + params.footprint.describe() +
                              " is too small for spheres of radius " +
                              detail::formatDouble(params.outerRadiusDeg) + " deg");
        level.assign(1, centreRegion.draw(random));
        double radius = params.outerRadiusDeg * kDeg;
        for (int depth = 0; depth < params.levels; ++depth) {
            next.clear();
            for (const Vec3& centre : level)
                for (int child = 0; child < params.eta; ++child)
                    next.push_back(pointInCap(centre, radius, random));
            level.swap(next);
            radius /= params.lambda;
        }
        pointsDrawn += static_cast<double>(level.size());
        for (const Vec3& point : level) {
            const auto [pointRa, pointDec] = raDecOf(point);
            if (containsRadians(params.footprint, pointRa, pointDec)) {
                ra.push_back(pointRa);
                dec.push_back(pointDec);
            }
        }
    }

    // The last sphere overshoots `count`. Keeping a uniformly random subset thins every
    // separation alike, so w(θ) is unchanged; cutting the list would keep a lopsided piece.
    const std::size_t total = ra.size();
    for (std::size_t i = 0; i < params.count; ++i) {
        const std::size_t j = i + static_cast<std::size_t>(random.below(total - i));
        std::swap(ra[i], ra[j]);
        std::swap(dec[i], dec[j]);
    }
    ra.resize(params.count);
    dec.resize(params.count);
    return Catalog::fromRadians(std::move(name), std::move(ra), std::move(dec));
}

void writeCatalogAscii(const std::string& path, const Catalog& catalog,
                       const std::vector<std::string>& notes) {
    writeFileAtomically(path, [&](std::ostream& out) { writeCatalogAscii(out, catalog, notes); });
}

void writeCatalogAscii(std::ostream& out, const Catalog& catalog,
                       const std::vector<std::string>& notes) {
    for (const auto& note : notes)
        out << "# " << note << '\n';
    out << "# ra dec\n";
    const auto raValues = catalog.ra();
    const auto decValues = catalog.dec();
    std::array<char, 64> buffer{};
    std::string line;
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        // Shortest round-trip form: the file reads back to the same double degrees. The
        // conversion can round a pole to 90.00000000000001 or RA just below 2π to 360, which
        // a reader would reject or store differently, so both are pinned to the valid range.
        const double raDeg = raValues[i] / kDeg;
        const double decDeg = std::clamp(decValues[i] / kDeg, -90.0, 90.0);
        line.clear();
        auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                                    raDeg >= 360.0 ? 0.0 : raDeg);
        line.append(buffer.data(), result.ptr);
        line += ' ';
        result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), decDeg);
        line.append(buffer.data(), result.ptr);
        line += '\n';
        out << line;
    }
}

} // namespace tpacf
