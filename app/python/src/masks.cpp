// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf.Mask: a HEALPix map or MOC read as `tpacf run --mask` reads it, the completeness at
// points, catalogs cut to it and random points drawn inside it.
#include "binding.h"

#include "tpacf/catalog.h"
#include "tpacf/mock.h"
#include "tpacf/sky_mask.h"
#include "tpacf/units.h"

#include <cmath>
#include <memory>
#include <optional>

namespace tpacf::python {

namespace {

py::array_t<double> completenessOf(const SkyMask& mask, const py::object& raArray,
                                   const py::object& decArray) {
    const std::vector<double> ra = doublesFrom(raArray, "ra");
    const std::vector<double> dec = doublesFrom(decArray, "dec");
    if (ra.size() != dec.size())
        throw py::value_error("ra and dec differ in length (" + std::to_string(ra.size()) +
                              " and " + std::to_string(dec.size()) + ")");
    std::vector<double> out(ra.size());
    {
        py::gil_scoped_release released;
        for (std::size_t i = 0; i < ra.size(); ++i) {
            if (!std::isfinite(ra[i]) || !(std::abs(dec[i]) <= 90.0))
                throw py::value_error("point " + std::to_string(i) +
                                      ": RA must be finite and Dec within [-90, 90] deg");
            const double a = ra[i] * kDegree, d = dec[i] * kDegree;
            out[i] = mask.completenessAt(std::cos(d) * std::cos(a), std::cos(d) * std::sin(a),
                                         std::sin(d));
        }
    }
    return arrayOf(out);
}

} // namespace

void bindMasks(py::module_& module) {
    py::class_<SkyMask, std::shared_ptr<SkyMask>>(module, "Mask", R"(A survey footprint: a HEALPix map or a MOC.

Mask.read(path, column=None, hdu=None) reads a FITS file as `tpacf run --mask`
does: a HEALPix map (completeness 0..1 per pixel; RING or NESTED; full-sky or
partial, implicit or explicit indexing; NSIDE up to 8192; healpy's UNSEEN is 0)
or a MOC (NUNIQ or RANGE). A file that is neither, a bad NSIDE or pixel count,
a NaN completeness raise tpacf.InputError naming the file and the place.)")
        .def_static(
            "read",
            [](const std::string& path, const std::optional<std::string>& column,
               const std::optional<std::string>& hdu) {
                MaskReadOptions options{column.value_or(""), hdu.value_or("")};
                py::gil_scoped_release released;
                return std::make_shared<SkyMask>(readSkyMask(path, options));
            },
            py::arg("path"), py::kw_only(), py::arg("column") = py::none(),
            py::arg("hdu") = py::none())
        .def("completeness", &completenessOf, py::arg("ra"), py::arg("dec"),
             "The completeness at each point (RA, Dec in degrees, numpy arrays); 0 outside.")
        .def(
            "apply",
            [](const SkyMask& mask, const Catalog& catalog, double threshold, int threads) {
                py::gil_scoped_release released;
                MaskedCatalog cut = applySkyMask(catalog, mask, threshold, threads);
                return std::make_shared<Catalog>(std::move(cut.catalog));
            },
            py::arg("catalog"), py::kw_only(), py::arg("threshold") = 0.0, py::arg("threads") = 0,
            "The catalog's points whose completeness is > 0 and >= threshold, in order, with "
            "their weights and regions (as --mask and --mask-threshold).")
        .def(
            "randoms",
            [](const SkyMask& mask, std::size_t n, std::uint64_t seed, int threads,
               const std::string& name) {
                py::gil_scoped_release released;
                return std::make_shared<Catalog>(
                    generateRandomsInMask(n, mask, seed, name, threads));
            },
            py::arg("n"), py::kw_only(), py::arg("seed") = 1, py::arg("threads") = 0,
            py::arg("name") = "randoms",
            "n points uniform on the sphere inside the mask, thinned by its completeness, as "
            "`tpacf mock --mask`: the same catalog for the same seed on any number of threads.")
        .def_property_readonly("sky_fraction", &SkyMask::skyFraction,
                               "Share of the sphere where the completeness is > 0.")
        .def_property_readonly("effective_sky_fraction", &SkyMask::effectiveSkyFraction,
                               "Share of the sphere weighted by completeness.")
        .def_property_readonly("nside", &SkyMask::nside,
                               "NSIDE of the map (a MOC: of its deepest cells).")
        .def_property_readonly("description", &SkyMask::description)
        .def("__repr__", [](const SkyMask& mask) {
            return "<tpacf.Mask " + mask.description() + ">";
        });
}

} // namespace tpacf::python
