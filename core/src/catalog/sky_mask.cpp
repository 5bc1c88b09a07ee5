// SPDX-License-Identifier: GPL-3.0-or-later
// Masks as runs of deep NESTED pixels (sky_mask.h): building them from a map's pixels or a
// MOC's cells, the completeness at a point, a catalog cut to a mask. Pixel numbers come from
// healpix-cxx (T_Healpix_Base<int64>), the library behind healpy.
#include "tpacf/sky_mask.h"

#include "tpacf/errors.h"
#include "tpacf/number_format.h"
#include "tpacf/work_runner.h"

#include <healpix_base.h>
#include <vec3.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace tpacf {

namespace {

using DeepBase = T_Healpix_Base<std::int64_t>;

const DeepBase& deepBase() {
    static const DeepBase base(SkyMask::kDeepOrder, NEST);
    return base;
}

constexpr std::uint64_t pixelsAtOrder(int order) noexcept {
    return std::uint64_t{12} << (2 * order);
}

// Sorts runs and joins overlapping or touching ones of equal completeness. Overlapping runs of
// different completeness cannot come from one map (its pixels are disjoint): callers check.
std::vector<SkyMask::Run> joined(std::vector<SkyMask::Run> runs) {
    std::sort(runs.begin(), runs.end(),
              [](const SkyMask::Run& a, const SkyMask::Run& b) { return a.begin < b.begin; });
    std::vector<SkyMask::Run> out;
    out.reserve(runs.size());
    for (const auto& run : runs) {
        if (!out.empty() && run.begin <= out.back().end &&
            run.completeness == out.back().completeness) {
            out.back().end = std::max(out.back().end, run.end);
            continue;
        }
        out.push_back(run);
    }
    return out;
}

} // namespace

bool skyMasksAvailable() noexcept { return true; }

SkyMask SkyMask::fromNestedPixels(int order, std::span<const std::uint64_t> pixels,
                                  std::span<const float> completeness, std::string description) {
    if (order < 0 || order > 13)
        throw ConfigError("HEALPix order " + std::to_string(order) +
                          " is beyond the masks read (NSIDE up to " +
                          std::to_string(kMaxMaskNside) + ")");
    if (pixels.size() != completeness.size())
        throw ConfigError("a mask needs one completeness per pixel");
    const std::uint64_t count = pixelsAtOrder(order);
    const int shift = 2 * (kDeepOrder - order);
    std::vector<Run> runs;
    runs.reserve(pixels.size());
    for (std::size_t i = 0; i < pixels.size(); ++i) {
        const float c = completeness[i];
        if (!(c >= 0.0F && c <= 1.0F))
            throw ConfigError("completeness " + std::to_string(c) + " at pixel " +
                              std::to_string(pixels[i]) + " is not in [0, 1]");
        if (pixels[i] >= count)
            throw ConfigError("pixel " + std::to_string(pixels[i]) + " is beyond NSIDE " +
                              std::to_string(std::int64_t{1} << order) + "'s " +
                              std::to_string(count) + " pixels");
        runs.push_back({pixels[i] << shift, (pixels[i] + 1) << shift, c});
    }
    std::sort(runs.begin(), runs.end(),
              [](const Run& a, const Run& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < runs.size(); ++i)
        if (runs[i].begin == runs[i - 1].begin)
            throw ConfigError("pixel " + std::to_string(runs[i].begin >> shift) +
                              " is given twice");
    std::erase_if(runs, [](const Run& run) { return run.completeness == 0.0F; });
    return made(order, joined(std::move(runs)), std::move(description));
}

SkyMask SkyMask::fromMocCells(std::span<const std::uint64_t> uniq, std::string description) {
    std::vector<Run> runs;
    runs.reserve(uniq.size());
    int deepest = 0;
    for (const std::uint64_t cell : uniq) {
        // uniq = 4·4^order + pixel with pixel < 12·4^order: 2·order + 2 ≤ log2(uniq) < 2·order + 4.
        const int log2 = cell == 0 ? -1 : std::bit_width(cell) - 1;
        const int order = (log2 - 2) / 2;
        if (cell < 4 || order > kDeepOrder)
            throw ConfigError("MOC cell " + std::to_string(cell) +
                              " is no NUNIQ number of an order 0 to 29");
        const std::uint64_t pixel = cell - (std::uint64_t{4} << (2 * order));
        const int shift = 2 * (kDeepOrder - order);
        runs.push_back({pixel << shift, (pixel + 1) << shift, 1.0F});
        deepest = std::max(deepest, order);
    }
    return made(deepest, joined(std::move(runs)), std::move(description));
}

SkyMask SkyMask::fromDeepRanges(std::span<const std::uint64_t> beginEnd, int order,
                                std::string description) {
    if (beginEnd.size() % 2 != 0)
        throw ConfigError("MOC ranges come in pairs (begin, end)");
    const std::uint64_t limit = pixelsAtOrder(kDeepOrder);
    std::vector<Run> runs;
    runs.reserve(beginEnd.size() / 2);
    for (std::size_t i = 0; i < beginEnd.size(); i += 2) {
        if (beginEnd[i] >= beginEnd[i + 1] || beginEnd[i + 1] > limit)
            throw ConfigError("MOC range [" + std::to_string(beginEnd[i]) + ", " +
                              std::to_string(beginEnd[i + 1]) +
                              ") is empty or beyond the order-29 pixels");
        runs.push_back({beginEnd[i], beginEnd[i + 1], 1.0F});
    }
    return made(std::clamp(order, 0, kDeepOrder), joined(std::move(runs)),
                std::move(description));
}

SkyMask SkyMask::made(int order, std::vector<Run> runs, std::string description) {
    if (runs.size() >= 0xffffffffULL)
        throw ConfigError("a mask of more than 2^32 runs of pixels");
    SkyMask mask;
    mask.m_order = order;
    mask.m_runs = std::move(runs);
    mask.m_description = std::move(description);
    // About one run a cell, at most order 9 (3.1 million cells, 12.6 MB).
    int cellOrder = 0;
    while (cellOrder < 9 && pixelsAtOrder(cellOrder) < mask.m_runs.size())
        ++cellOrder;
    mask.m_cellOrder = cellOrder;
    const std::uint64_t cells = pixelsAtOrder(cellOrder);
    const int shift = 2 * (kDeepOrder - cellOrder);
    mask.m_cellStart.resize(cells + 1);
    std::size_t run = 0;
    for (std::uint64_t cell = 0; cell <= cells; ++cell) {
        // The first run that ends after the cell begins.
        const std::uint64_t cellBegin = cell << shift;
        while (run < mask.m_runs.size() && mask.m_runs[run].end <= cellBegin)
            ++run;
        mask.m_cellStart[cell] = static_cast<std::uint32_t>(run);
    }
    return mask;
}

std::uint64_t SkyMask::deepPixelOf(double x, double y, double z) noexcept {
    return static_cast<std::uint64_t>(deepBase().vec2pix(vec3(x, y, z)));
}

void SkyMask::deepPixelCentre(std::uint64_t pixel, double& x, double& y, double& z) noexcept {
    const vec3 v = deepBase().pix2vec(static_cast<std::int64_t>(pixel));
    x = v.x;
    y = v.y;
    z = v.z;
}

double SkyMask::completenessOfDeepPixel(std::uint64_t pixel) const noexcept {
    if (m_runs.empty())
        return 0.0;
    // The run holding the pixel, if any, is among those of its cell: from the first that ends
    // after the cell begins to the first that ends after the next cell begins.
    const std::uint64_t cell = pixel >> (2 * (kDeepOrder - m_cellOrder));
    const auto first = m_runs.begin() + m_cellStart[cell];
    const auto last =
        m_runs.begin() + std::min<std::size_t>(m_cellStart[cell + 1] + 1, m_runs.size());
    auto after = std::upper_bound(first, last, pixel,
                                  [](std::uint64_t p, const Run& run) { return p < run.begin; });
    if (after == first)
        return 0.0;
    const Run& run = *(after - 1);
    return pixel < run.end ? run.completeness : 0.0;
}

void SkyMask::completenessOfDeepPixels(std::span<const std::uint64_t> pixels,
                                       std::span<double> out) const noexcept {
    if (m_runs.empty()) {
        std::fill(out.begin(), out.end(), 0.0);
        return;
    }
    const int shift = 2 * (kDeepOrder - m_cellOrder);
    constexpr std::size_t kBatch = 32;
    for (std::size_t start = 0; start < pixels.size(); start += kBatch) {
        const std::size_t end = std::min(pixels.size(), start + kBatch);
        // Three passes over the batch: fetch each cell's entry, then its first run, then look.
        for (std::size_t i = start; i < end; ++i)
            __builtin_prefetch(&m_cellStart[pixels[i] >> shift]);
        for (std::size_t i = start; i < end; ++i)
            __builtin_prefetch(m_runs.data() + m_cellStart[pixels[i] >> shift]); // may be the end
        for (std::size_t i = start; i < end; ++i)
            out[i] = completenessOfDeepPixel(pixels[i]);
    }
}

double SkyMask::completenessAt(double x, double y, double z) const noexcept {
    return completenessOfDeepPixel(deepPixelOf(x, y, z));
}

double SkyMask::skyFraction() const noexcept {
    long double pixels = 0;
    for (const auto& run : m_runs)
        pixels += static_cast<long double>(run.end - run.begin);
    return static_cast<double>(pixels / static_cast<long double>(pixelsAtOrder(kDeepOrder)));
}

double SkyMask::effectiveSkyFraction() const noexcept {
    long double pixels = 0;
    for (const auto& run : m_runs)
        pixels += static_cast<long double>(run.end - run.begin) * run.completeness;
    return static_cast<double>(pixels / static_cast<long double>(pixelsAtOrder(kDeepOrder)));
}

MaskedCatalog cutToMask(const Catalog& catalog, const SkyMask& mask, double threshold,
                        int threads) {
    MaskedCatalog cut = applySkyMask(catalog, mask, threshold, threads);
    if (cut.kept == 0 && catalog.size() > 0)
        throw InputError(catalog.name(), 0, 0,
                         "the mask " + mask.description() + " keeps none of its " +
                             withThousands(catalog.size()) +
                             " points (is it the footprint of this catalog, in the same "
                             "coordinates?)");
    return cut;
}

std::string maskingNote(const SkyMask& mask, double threshold, std::span<const MaskedCount> counts) {
    char text[96];
    std::snprintf(text, sizeof text, "%.4g %% of the sky", 100.0 * mask.skyFraction());
    std::string note = "mask " + mask.description() + ", " + text;
    if (threshold > 0.0) {
        std::snprintf(text, sizeof text, ", completeness >= %.4g", threshold);
        note += text;
    }
    note += ":";
    for (std::size_t i = 0; i < counts.size(); ++i)
        note += std::string(i ? "; " : " ") + counts[i].label + " kept " +
                withThousands(counts[i].kept) + " of " + withThousands(counts[i].total);
    return note;
}

std::vector<double> skyMaskRaster(const SkyMask& mask, const SkyProjection& projection,
                                  const SkyRasterSpec& spec) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const int width = std::max(spec.width, 0), height = std::max(spec.height, 0);
    std::vector<double> raster(static_cast<std::size_t>(width) * static_cast<std::size_t>(height),
                               nan);
    const double dx = (spec.xMax - spec.xMin) / std::max(width, 1);
    const double dy = (spec.yMax - spec.yMin) / std::max(height, 1);
    parallelForRanges(
        static_cast<std::size_t>(height),
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t row = begin; row < end; ++row)
                for (int column = 0; column < width; ++column) {
                    const auto direction = projection.inverse(
                        spec.xMin + (column + 0.5) * dx,
                        spec.yMin + (static_cast<double>(row) + 0.5) * dy);
                    if (!direction)
                        continue;
                    const double cosDec = std::cos(direction->dec);
                    const double c = mask.completenessAt(cosDec * std::cos(direction->ra),
                                                         cosDec * std::sin(direction->ra),
                                                         std::sin(direction->dec));
                    if (c > 0)
                        raster[row * static_cast<std::size_t>(width) +
                               static_cast<std::size_t>(column)] = c;
                }
        },
        0, 16);
    return raster;
}

MaskedCatalog applySkyMask(const Catalog& catalog, const SkyMask& mask, double threshold,
                           int threads) {
    if (!(threshold >= 0.0 && threshold <= 1.0))
        throw ConfigError("the mask threshold " + std::to_string(threshold) +
                          " is not in [0, 1]");
    const std::size_t n = catalog.size();
    const auto x = catalog.x(), y = catalog.y(), z = catalog.z();
    std::vector<std::uint8_t> keep(n);
    parallelForRanges(
        n,
        [&](std::size_t begin, std::size_t end) {
            constexpr std::size_t kChunk = 1024;
            std::uint64_t pixels[kChunk];
            double completeness[kChunk];
            for (std::size_t first = begin; first < end; first += kChunk) {
                const std::size_t count = std::min(kChunk, end - first);
                for (std::size_t k = 0; k < count; ++k)
                    pixels[k] = SkyMask::deepPixelOf(x[first + k], y[first + k], z[first + k]);
                mask.completenessOfDeepPixels({pixels, count}, {completeness, count});
                for (std::size_t k = 0; k < count; ++k)
                    keep[first + k] =
                        completeness[k] > 0.0 && completeness[k] >= threshold ? 1 : 0;
            }
        },
        threads, 65536);
    const std::size_t kept = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), 1));
    Catalog::Columns columns;
    const auto take = [&](std::span<const double> from, std::vector<double>& to) {
        to.reserve(kept);
        for (std::size_t i = 0; i < n; ++i)
            if (keep[i])
                to.push_back(from[i]);
    };
    take(catalog.ra(), columns.ra);
    take(catalog.dec(), columns.dec);
    take(x, columns.x);
    take(y, columns.y);
    take(z, columns.z);
    if (catalog.hasWeights())
        take(catalog.weight(), columns.weight);
    if (!catalog.region().empty()) {
        columns.region.reserve(kept);
        for (std::size_t i = 0; i < n; ++i)
            if (keep[i])
                columns.region.push_back(catalog.region()[i]);
    }
    MaskedCatalog out;
    out.catalog = Catalog::fromBuiltColumns(catalog.name(), std::move(columns));
    out.catalog.setOrigin(catalog.origin());
    out.kept = kept;
    out.dropped = n - kept;
    return out;
}

} // namespace tpacf
