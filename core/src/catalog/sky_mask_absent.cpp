// SPDX-License-Identifier: GPL-3.0-or-later
// Masks in a build without healpix-cxx or cfitsio: every way to make one says so.
#include "tpacf/sky_mask.h"

#include "tpacf/errors.h"

namespace tpacf {

namespace {

[[noreturn]] void unavailable() {
    throw ConfigError("this build reads no masks: it was built without healpix-cxx and cfitsio "
                      "(Debian: libhealpix-cxx-dev, libcfitsio-dev)");
}

} // namespace

bool skyMasksAvailable() noexcept { return false; }

SkyMask SkyMask::fromNestedPixels(int, std::span<const std::uint64_t>, std::span<const float>,
                                  std::string) {
    unavailable();
}
SkyMask SkyMask::fromMocCells(std::span<const std::uint64_t>, std::string) { unavailable(); }
SkyMask SkyMask::fromDeepRanges(std::span<const std::uint64_t>, int, std::string) {
    unavailable();
}
// No mask can exist here, so nothing asks for a pixel.
std::uint64_t SkyMask::deepPixelOf(double, double, double) noexcept { return 0; }
void SkyMask::deepPixelCentre(std::uint64_t, double& x, double& y, double& z) noexcept {
    x = 0;
    y = 0;
    z = 1;
}
double SkyMask::completenessOfDeepPixel(std::uint64_t) const noexcept { return 0; }
void SkyMask::completenessOfDeepPixels(std::span<const std::uint64_t>,
                                       std::span<double> out) const noexcept {
    for (double& c : out)
        c = 0;
}
double SkyMask::completenessAt(double, double, double) const noexcept { return 0; }
double SkyMask::skyFraction() const noexcept { return 0; }
double SkyMask::effectiveSkyFraction() const noexcept { return 0; }
SkyMask readSkyMask(const std::string&, const MaskReadOptions&) { unavailable(); }
MaskedCatalog applySkyMask(const Catalog&, const SkyMask&, double, int) { unavailable(); }
std::string maskingNote(const SkyMask&, double, std::span<const MaskedCount>) { unavailable(); }
MaskedCatalog cutToMask(const Catalog&, const SkyMask&, double, int) { unavailable(); }
std::vector<double> skyMaskRaster(const SkyMask&, const SkyProjection&, const SkyRasterSpec&) {
    unavailable();
}

} // namespace tpacf
