// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/sky_projection.h"

#include "tpacf/units.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <mutex>
#include <numbers>

namespace tpacf {

namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;
constexpr double kSqrt2 = std::numbers::sqrt2;

constexpr std::array<SkyProjectionInfo, 3> kProjections{{
    {SkyProjectionKind::Mollweide, "mollweide", "Mollweide", true, 2 * kSqrt2, kSqrt2},
    {SkyProjectionKind::HammerAitoff, "hammer", "Hammer–Aitoff", true, 2 * kSqrt2, kSqrt2},
    {SkyProjectionKind::PlateCarree, "plain", "RA/Dec plane", false, kPi, kPi / 2},
}};

// λ − λ0 in (−π, π]: the far meridian goes to the left edge, like RA = λ0 + 180°.
double wrapOffset(double offset) noexcept {
    double wrapped = std::fmod(offset, kTwoPi);
    if (wrapped <= -kPi)
        wrapped += kTwoPi;
    else if (wrapped > kPi)
        wrapped -= kTwoPi;
    return wrapped;
}

double wrapRa(double ra) noexcept {
    double wrapped = std::fmod(ra, kTwoPi);
    if (wrapped < 0)
        wrapped += kTwoPi;
    return wrapped >= kTwoPi ? 0.0 : wrapped;
}

// Rounded to float toward the origin, so a point on the domain's rim never lands outside it.
float towardOrigin(double value) noexcept {
    const float rounded = float(value);
    return std::abs(double(rounded)) > std::abs(value) ? std::nextafter(rounded, 0.0f) : rounded;
}

double clampUnit(double value) noexcept {
    return std::clamp(value, -1.0, 1.0);
}

// Below this many points a pass stays on the calling thread: starting workers costs more.
constexpr std::size_t kMinPointsPerWorker = 1 << 16;

} // namespace

std::span<const SkyProjectionInfo> skyProjections() noexcept {
    return kProjections;
}

const SkyProjectionInfo& skyProjectionInfo(SkyProjectionKind kind) noexcept {
    for (const SkyProjectionInfo& info : kProjections)
        if (info.kind == kind)
            return info;
    return kProjections.front();
}

SkyProjection::SkyProjection(SkyProjectionKind kind, double centralRa)
    : m_kind(kind), m_centralRa(wrapRa(centralRa)) {}

double SkyProjection::mollweideTheta(double dec) noexcept {
    if (!(std::abs(dec) < kPi / 2))
        return std::copysign(kPi / 2, dec);
    // g(t) = 2t + sin 2t rises monotonically on [0, π/2] (g' = 4cos²t), so the root stays
    // bracketed; Newton alone stalls near the pole where g' → 0.
    const double target = kPi * std::sin(std::abs(dec));
    const double fromPole = kPi / 2 - std::abs(dec);
    // Start: g ≈ 4t near the equator; near the pole π − g(π/2 − ε) ≈ (4/3)ε³ and
    // π(1 − sin δ) ≈ πη²/2, so ε ≈ (3πη²/8)^⅓.
    double t = fromPole < 0.5 ? kPi / 2 - std::cbrt(3 * kPi * fromPole * fromPole / 8) : target / 4;
    double lo = 0, hi = kPi / 2;
    for (int iteration = 0; iteration < 100; ++iteration) {
        const double sin2t = std::sin(2 * t), cos2t = std::cos(2 * t);
        const double f = 2 * t + sin2t - target;
        if (f == 0)
            break;
        (f > 0 ? hi : lo) = t;
        // Halley's step (g'' = −4 sin 2t is free here): 3.3 iterations on average instead of
        // Newton's 4.4 to the last bit. A step that leaves the bracket, or a vanishing
        // denominator at the pole, falls back to bisection.
        const double slope = 2 + 2 * cos2t;
        const double denominator = 2 * slope * slope + 4 * f * sin2t;
        double next = denominator > 0 ? t - 2 * f * slope / denominator : lo - 1;
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (std::abs(next - t) <= 4e-16)
            break;
        t = next;
    }
    return std::copysign(t, dec);
}

ProjectedPoint SkyProjection::forward(double ra, double dec) const noexcept {
    const double offset = wrapOffset(ra - m_centralRa);
    switch (m_kind) {
    case SkyProjectionKind::Mollweide: {
        const double theta = mollweideTheta(dec);
        return {-(2 * kSqrt2 / kPi) * offset * std::cos(theta), kSqrt2 * std::sin(theta)};
    }
    case SkyProjectionKind::HammerAitoff: {
        const double cosDec = std::cos(dec);
        const double scale = std::sqrt(1 + cosDec * std::cos(offset / 2));
        return {-2 * kSqrt2 * cosDec * std::sin(offset / 2) / scale,
                kSqrt2 * std::sin(dec) / scale};
    }
    case SkyProjectionKind::PlateCarree:
        return {-offset, dec};
    }
    return {};
}

bool SkyProjection::contains(double x, double y) const noexcept {
    // The ellipse's rim belongs to it: points on the far meridian land there exactly, up to
    // rounding.
    constexpr double kRim = 1e-12;
    if (m_kind == SkyProjectionKind::PlateCarree)
        return std::abs(x) <= kPi * (1 + kRim) && std::abs(y) <= kPi / 2 * (1 + kRim);
    return x * x / 8 + y * y / 2 <= 1 + kRim;
}

std::optional<SkyDirection> SkyProjection::inverse(double x, double y) const noexcept {
    if (!contains(x, y))
        return std::nullopt;
    double offset = 0, dec = 0;
    switch (m_kind) {
    case SkyProjectionKind::Mollweide: {
        const double theta = std::asin(clampUnit(y / kSqrt2));
        dec = std::asin(clampUnit((2 * theta + std::sin(2 * theta)) / kPi));
        const double cosTheta = std::cos(theta);
        // At the poles every RA is the same point: report the central one.
        offset = cosTheta > 1e-15 ? -kPi * x / (2 * kSqrt2 * cosTheta) : 0.0;
        break;
    }
    case SkyProjectionKind::HammerAitoff: {
        const double east = -x;
        const double z = std::sqrt(std::max(0.0, 1 - east * east / 16 - y * y / 4));
        offset = 2 * std::atan2(z * east, 2 * (2 * z * z - 1));
        dec = std::asin(clampUnit(z * y));
        break;
    }
    case SkyProjectionKind::PlateCarree:
        offset = -x;
        dec = y;
        break;
    }
    offset = std::clamp(offset, -kPi, kPi);
    dec = std::clamp(dec, -kPi / 2, kPi / 2);
    return SkyDirection{wrapRa(m_centralRa + offset), dec};
}

double SkyFootprintExtent::heightDegrees() const noexcept {
    return (decMax - decMin) * 180 / kPi;
}

SkyFootprintExtent skyExtent(std::span<const std::span<const double>> ras,
                             std::span<const std::span<const double>> decs, std::size_t maxPoints) {
    // RA occupancy in 0.1° bins; the occupied arc is what lies outside the widest empty run.
    constexpr int kBins = 3600;
    std::vector<std::uint8_t> occupied(kBins, 0);
    SkyFootprintExtent extent;
    extent.decMin = kPi / 2;
    extent.decMax = -kPi / 2;
    const std::size_t groups = std::min(ras.size(), decs.size());
    auto strideOf = [maxPoints](std::size_t size) {
        return maxPoints == 0 || size <= maxPoints ? std::size_t{1}
                                                   : (size + maxPoints - 1) / maxPoints;
    };
    for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t size = std::min(ras[g].size(), decs[g].size());
        const std::size_t stride = strideOf(size);
        for (std::size_t i = 0; i < size; i += stride) {
            const double ra = wrapRa(ras[g][i]);
            occupied[std::min(kBins - 1, int(ra / kTwoPi * kBins))] = 1;
            extent.decMin = std::min(extent.decMin, decs[g][i]);
            extent.decMax = std::max(extent.decMax, decs[g][i]);
            ++extent.points;
        }
    }
    if (extent.points == 0)
        return SkyFootprintExtent{0, kPi, 0, 0, 0};
    // The widest circular run of empty bins, and the first occupied bin after it.
    int bestGap = 0, bestEnd = 0, run = 0;
    for (int i = 0; i < 2 * kBins; ++i) {
        if (occupied[i % kBins]) {
            if (run > bestGap) {
                bestGap = run;
                bestEnd = i % kBins;
            }
            run = 0;
        } else {
            ++run;
        }
    }
    bestGap = std::min(bestGap, kBins);
    if (bestGap < kBins / 360) { // no empty degree: the whole circle, centred at 12h
        extent.centralRa = kPi;
        extent.raSpan = kTwoPi;
        return extent;
    }
    // Exact ends of the arc, measured from the start of its first bin.
    const double arcStart = bestEnd * kTwoPi / kBins;
    double low = kTwoPi, high = 0;
    for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t size = std::min(ras[g].size(), decs[g].size());
        const std::size_t stride = strideOf(size);
        for (std::size_t i = 0; i < size; i += stride) {
            const double offset = wrapRa(ras[g][i] - arcStart);
            low = std::min(low, offset);
            high = std::max(high, offset);
        }
    }
    extent.raSpan = high - low;
    extent.centralRa = wrapRa(arcStart + 0.5 * (low + high));
    return extent;
}

SkyProjectionKind suggestedProjection(const SkyFootprintExtent& extent) noexcept {
    constexpr double kMaxRaSpan = kPi;
    constexpr double kMaxHeightDegrees = 60.0;
    constexpr double kMaxAbsDec = 75.0 * kPi / 180;
    constexpr double kMaxScaleChange = 2.0;
    const double farthest = std::max(std::abs(extent.decMin), std::abs(extent.decMax));
    const double nearest = extent.decMin <= 0 && extent.decMax >= 0
                               ? 0.0
                               : std::min(std::abs(extent.decMin), std::abs(extent.decMax));
    const bool plain = extent.points > 0 && extent.raSpan <= kMaxRaSpan &&
                       extent.heightDegrees() <= kMaxHeightDegrees && farthest <= kMaxAbsDec &&
                       std::cos(nearest) <= kMaxScaleChange * std::cos(farthest);
    return plain ? SkyProjectionKind::PlateCarree : SkyProjectionKind::Mollweide;
}

SkyRasterSpec SkyRasterSpec::wholeDomain(const SkyProjection& projection, int width, int height) {
    const SkyProjectionInfo& info = projection.info();
    return SkyRasterSpec{width, height, -info.xMax, info.xMax, -info.yMax, info.yMax};
}

std::optional<std::pair<int, int>> SkyRasterSpec::pixelOf(double x, double y) const noexcept {
    if (!(x >= xMin && x <= xMax && y >= yMin && y <= yMax) || width <= 0 || height <= 0)
        return std::nullopt; // also NaN
    const int column = std::min(width - 1, int((x - xMin) / (xMax - xMin) * width));
    const int row = std::min(height - 1, int((y - yMin) / (yMax - yMin) * height));
    return std::pair{column, row};
}

std::uint64_t SkyDensityGrid::total() const noexcept {
    std::uint64_t sum = 0;
    for (const std::uint64_t count : counts)
        sum += count;
    return sum;
}

std::uint64_t SkyDensityGrid::maxCount() const noexcept {
    return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

ProjectedPoints projectPoints(const SkyProjection& projection, std::span<const double> ra,
                              std::span<const double> dec, std::size_t stride, int threads) {
    stride = std::max<std::size_t>(stride, 1);
    const std::size_t size = std::min(ra.size(), dec.size());
    const std::size_t taken = (size + stride - 1) / stride;
    ProjectedPoints points;
    points.x.resize(taken);
    points.y.resize(taken);
    points.stride = stride;
    parallelForRanges(
        taken,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                const std::size_t i = k * stride;
                const ProjectedPoint p = projection.forward(ra[i], dec[i]);
                points.x[k] = towardOrigin(p.x);
                points.y[k] = towardOrigin(p.y);
            }
        },
        threads, kMinPointsPerWorker);
    return points;
}

SkyDensityGrid binProjected(const ProjectedPoints& points, const SkyRasterSpec& spec,
                            const SkyProjection& projection, int threads) {
    SkyDensityGrid grid;
    grid.spec = spec;
    const std::size_t pixels = std::size_t(std::max(spec.width, 0)) * std::max(spec.height, 0);
    grid.counts.assign(pixels, 0);
    grid.outside.assign(pixels, 0);
    for (int row = 0; row < spec.height; ++row)
        for (int column = 0; column < spec.width; ++column) {
            const double x = spec.xMin + (column + 0.5) * (spec.xMax - spec.xMin) / spec.width;
            const double y = spec.yMin + (row + 0.5) * (spec.yMax - spec.yMin) / spec.height;
            grid.outside[std::size_t(row) * spec.width + column] = !projection.contains(x, y);
        }
    std::mutex merge;
    parallelForRanges(
        points.size(),
        [&](std::size_t begin, std::size_t end) {
            std::vector<std::uint64_t> local(pixels, 0);
            std::uint64_t missed = 0;
            for (std::size_t k = begin; k < end; ++k) {
                if (const auto pixel = spec.pixelOf(points.x[k], points.y[k]))
                    ++local[std::size_t(pixel->second) * spec.width + pixel->first];
                else
                    ++missed;
            }
            const std::lock_guard lock(merge);
            for (std::size_t i = 0; i < pixels; ++i)
                grid.counts[i] += local[i];
            grid.missed += missed;
        },
        threads, kMinPointsPerWorker);
    return grid;
}

SkyDensityGrid skyDensity(const SkyProjection& projection, std::span<const double> ra,
                          std::span<const double> dec, const SkyRasterSpec& spec, int threads) {
    return binProjected(projectPoints(projection, ra, dec, 1, threads), spec, projection, threads);
}

std::vector<std::int32_t> labelRaster(const ProjectedPoints& points,
                                      std::span<const std::int32_t> labels,
                                      const SkyRasterSpec& spec, int threads) {
    const std::size_t pixels = std::size_t(std::max(spec.width, 0)) * std::max(spec.height, 0);
    constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
    // The lowest point index per pixel is the same however the points are split: merging by
    // min makes the map independent of the worker count.
    std::vector<std::size_t> first(pixels, kNone);
    std::mutex merge;
    parallelForRanges(
        points.size(),
        [&](std::size_t begin, std::size_t end) {
            std::vector<std::size_t> local(pixels, kNone);
            for (std::size_t k = begin; k < end; ++k)
                if (const auto pixel = spec.pixelOf(points.x[k], points.y[k])) {
                    std::size_t& slot =
                        local[std::size_t(pixel->second) * spec.width + pixel->first];
                    slot = std::min(slot, k);
                }
            const std::lock_guard lock(merge);
            for (std::size_t i = 0; i < pixels; ++i)
                first[i] = std::min(first[i], local[i]);
        },
        threads, kMinPointsPerWorker);
    std::vector<std::int32_t> raster(pixels, -1);
    for (std::size_t i = 0; i < pixels; ++i)
        if (first[i] != kNone && points.sourceIndex(first[i]) < labels.size())
            raster[i] = std::max(-1, labels[points.sourceIndex(first[i])]);
    return raster;
}

} // namespace tpacf
