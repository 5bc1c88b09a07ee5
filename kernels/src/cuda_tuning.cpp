// SPDX-License-Identifier: GPL-3.0-or-later
// CudaTuning: the CUDA backend's benchmark and test settings (built with and without CUDA, so
// the CLI parses and checks its flags the same way in every build).
#include "tpacf/cuda/cuda_backend.h"

#include "tpacf/errors.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace tpacf::cuda {

namespace {

// The words of the flags, one table per setting, read both ways.
constexpr std::pair<std::string_view, CudaHistogram> kHistogramWords[] = {
    {"auto", CudaHistogram::Auto},
    {"thread-atomic", CudaHistogram::PerThreadAtomic},
    {"warp", CudaHistogram::PerWarp},
    {"global", CudaHistogram::Global},
};
constexpr std::pair<std::string_view, CudaProjection> kProjectionWords[] = {
    {"auto", CudaProjection::Auto},
    {"on", CudaProjection::On},
    {"off", CudaProjection::Off},
};
constexpr std::pair<std::string_view, CudaTileOrder> kTileOrderWords[] = {
    {"auto", CudaTileOrder::Auto},
    {"curve", CudaTileOrder::Curve},
    {"kd", CudaTileOrder::Kd},
};
constexpr std::pair<std::string_view, CudaSharedUploads> kSharedUploadWords[] = {
    {"auto", CudaSharedUploads::Auto},
    {"all", CudaSharedUploads::All},
    {"off", CudaSharedUploads::Off},
};

template <class Value, std::size_t N>
std::optional<Value> valueOf(std::string_view word,
                             const std::pair<std::string_view, Value> (&words)[N]) noexcept {
    for (const auto& [known, value] : words)
        if (known == word)
            return value;
    return std::nullopt;
}

} // namespace

std::optional<CudaHistogram> parseCudaHistogram(std::string_view text) noexcept {
    return valueOf(text, kHistogramWords);
}

std::optional<CudaProjection> parseCudaProjection(std::string_view text) noexcept {
    return valueOf(text, kProjectionWords);
}

std::optional<CudaTileOrder> parseCudaTileOrder(std::string_view text) noexcept {
    return valueOf(text, kTileOrderWords);
}

std::optional<CudaSharedUploads> parseCudaSharedUploads(std::string_view text) noexcept {
    return valueOf(text, kSharedUploadWords);
}

std::string_view cudaHistogramName(CudaHistogram histogram) noexcept {
    for (const auto& [word, value] : kHistogramWords)
        if (value == histogram)
            return word;
    return "auto";
}

void CudaTuning::validate() const {
    // The planner walks block sizes down from the cap in steps of 32 and needs at least 64
    // threads (two warps); above 256 a tile would hold more sub-boxes than a warp's ballot.
    if (blockSizeCap != 0 && (blockSizeCap < 64 || blockSizeCap > 256 || blockSizeCap % 32 != 0))
        throw ConfigError("CUDA tuning: block size cap " + std::to_string(blockSizeCap) +
                          " is not 0 or a multiple of 32 in [64, 256]");
    // A reach of 16 projects every tile pair in range (the boxes' half-diagonals are at most 2
    // apiece, the centres' distance at most 2): nothing larger means anything.
    if (!(std::isfinite(projectionReach) && projectionReach > 0 && projectionReach <= 16)) {
        char text[96];
        std::snprintf(text, sizeof text, "CUDA tuning: projection reach %g is outside (0, 16]",
                      projectionReach);
        throw ConfigError(text);
    }
    if (regionCellLevel < 0 || regionCellLevel > 5)
        throw ConfigError("CUDA tuning: region cell level " + std::to_string(regionCellLevel) +
                          " is outside [0, 5]");
}

std::string CudaTuning::describe() const {
    std::string text;
    auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
    if (histogram != CudaHistogram::Auto)
        add("hist=" + std::string(cudaHistogramName(histogram)));
    if (bruteForce)
        add("brute force");
    if (blockSizeCap != 0)
        add("block<=" + std::to_string(blockSizeCap));
    if (!subTileCulling)
        add("sub-tiles off");
    if (!wholeSubTiles)
        add("whole sub-tiles off");
    if (!narrowSubTiles)
        add("narrow sub-tiles off");
    if (!bandedLookup)
        add("banded lookup off");
    if (projection == CudaProjection::On)
        add("projection at every theta_max");
    if (projection == CudaProjection::Off)
        add("projection off");
    if (projectionReach != CudaTuning{}.projectionReach) {
        char text[48];
        std::snprintf(text, sizeof text, "projection reach %g", projectionReach);
        add(text);
    }
    if (tileOrder == CudaTileOrder::Curve)
        add("curve tiles");
    if (tileOrder == CudaTileOrder::Kd)
        add("k-d tiles");
    if (regionCellLevel != 0)
        add("region level " + std::to_string(regionCellLevel));
    if (sharedUploads == CudaSharedUploads::All)
        add("every catalog shared");
    if (sharedUploads == CudaSharedUploads::Off)
        add("shared uploads off");
    if (trace)
        add("trace");
    return text;
}

} // namespace tpacf::cuda
