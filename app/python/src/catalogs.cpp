// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf.Catalog: from numpy arrays (checked and converted once, as a file's values are) or
// from a file through core's readers.
#include "binding.h"

#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/count_store.h"
#include "tpacf/errors.h"
#include "tpacf/units.h"

#include <pybind11/stl.h>

#include <limits>
#include <memory>
#include <optional>

namespace tpacf::python {

namespace {

AngleUnit unitOf(const std::string& text) {
    const auto unit = parseAngleUnit(text);
    if (!unit)
        throw ConfigError("unit: '" + text + "' is not an angle unit (deg, arcmin, arcsec, rad)");
    return *unit;
}

std::vector<std::int32_t> regionLabelsFrom(const py::handle& object) {
    if (!py::isinstance<py::array>(object))
        throw py::type_error("regions: expected a numpy array of integers, got " +
                             std::string(py::str(py::type::of(object).attr("__name__"))));
    const auto array = py::reinterpret_borrow<py::array>(object);
    if (dtypeKind(array.dtype()) != 'i' && dtypeKind(array.dtype()) != 'u')
        throw py::type_error("regions: numpy array of " + py::cast<std::string>(array.dtype().attr("name")) +
                             " values; give integer region labels");
    if (array.ndim() != 1)
        throw py::value_error("regions: expected a one-dimensional array");
    // int64 holds every label numpy gives here but uint64's top half, which is out of range
    // anyway; forcecast converts, the check below refuses what int32 cannot hold.
    const auto wide = py::array_t<std::int64_t, py::array::forcecast>::ensure(array);
    if (!wide)
        throw py::value_error("regions: labels beyond the range of a 64-bit integer");
    const auto view = wide.unchecked<1>();
    std::vector<std::int32_t> labels(static_cast<std::size_t>(view.shape(0)));
    for (py::ssize_t i = 0; i < view.shape(0); ++i) {
        const std::int64_t label = view(i);
        if (label < std::numeric_limits<std::int32_t>::min() ||
            label > std::numeric_limits<std::int32_t>::max())
            throw InputError("regions", static_cast<long>(i + 1), 0,
                             "jackknife region label " + std::to_string(label) +
                                 " is out of the range of a 32-bit integer");
        labels[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(label);
    }
    return labels;
}

std::shared_ptr<Catalog> catalogFromArrays(const py::object& raArray, const py::object& decArray,
                                           const py::object& weights, const std::string& unit,
                                           bool raHours, const py::object& regions,
                                           const std::string& name, int threads) {
    const AngleUnit angleUnit = unitOf(unit);
    std::vector<double> ra = doublesFrom(raArray, "ra");
    std::vector<double> dec = doublesFrom(decArray, "dec");
    std::vector<double> weight;
    if (!weights.is_none())
        weight = doublesFrom(weights, "weights");
    std::vector<std::int32_t> labels;
    if (!regions.is_none())
        labels = regionLabelsFrom(regions);
    if (threads < 0)
        throw ConfigError("threads: " + std::to_string(threads) +
                          " is negative (0: every hardware thread)");
    // An empty weights array is not "no weights" (core reports mismatched lengths first).
    if (!weights.is_none() && weight.empty() && !ra.empty() && dec.size() == ra.size())
        throw ConfigError("catalog " + name + ": 0 weights for " + std::to_string(ra.size()) +
                          " points");
    ReadOptions options;
    options.coordUnit = angleUnit;
    options.raInHours = raHours;
    options.threads = threads;
    py::gil_scoped_release release; // the sines of 10^8 points take a while
    // Converted, checked and worded as the file readers do (core/catalog_reader.h).
    return std::make_shared<Catalog>(catalogFromCoordinates(
        name, std::move(ra), std::move(dec), std::move(weight), std::move(labels), options));
}

ColumnRef columnOf(const py::object& column, const char* what) {
    if (column.is_none())
        return {};
    if (py::isinstance<py::bool_>(column))
        throw py::type_error(std::string(what) + ": a column name (str) or 1-based number (int)");
    if (py::isinstance<py::int_>(column)) {
        const long index = py::cast<long>(column);
        if (index < 1 || index > std::numeric_limits<int>::max())
            throw ConfigError(std::string(what) + ": column number " + std::to_string(index) +
                              " must be 1 or more (columns are numbered from 1, as in tpacf)");
        ColumnRef ref;
        ref.index = static_cast<int>(index);
        return ref;
    }
    if (py::isinstance<py::str>(column)) {
        try {
            return ColumnRef::parse(py::cast<std::string>(column));
        } catch (const ConfigError& error) {
            throw ConfigError(std::string(what) + ": " + error.what());
        }
    }
    throw py::type_error(std::string(what) + ": a column name (str) or 1-based number (int), got " +
                         std::string(py::str(py::type::of(column).attr("__name__"))));
}

std::shared_ptr<Catalog> catalogFromFile(const py::object& pathObject, const py::object& raCol,
                                         const py::object& decCol, const py::object& weightCol,
                                         const py::object& regionCol, const std::string& unit,
                                         bool raHours, const py::object& hdu, int threads) {
    // str or os.PathLike, as open() takes.
    const std::string path =
        py::cast<std::string>(py::module_::import("os").attr("fspath")(pathObject));
    if (path.empty())
        throw ConfigError("path: empty file name (give the catalog's path)");
    ReadOptions options;
    options.coordUnit = unitOf(unit);
    options.raInHours = raHours;
    options.raColumn = columnOf(raCol, "ra_col");
    options.decColumn = columnOf(decCol, "dec_col");
    options.weightColumn = columnOf(weightCol, "weight_col");
    options.regionColumn = columnOf(regionCol, "region_col");
    if (!hdu.is_none()) {
        const std::string text = py::cast<std::string>(py::str(hdu));
        if (text.find_first_not_of(" \t") == std::string::npos)
            throw ConfigError("hdu: empty (give an extension number, 1 for the first, or an "
                              "EXTNAME)");
        options.hdu = text;
    }
    if (threads < 0)
        throw ConfigError("threads: " + std::to_string(threads) +
                          " is negative (0: every hardware thread)");
    options.threads = threads;
    Interruption interruption{py::none()};
    options.cancelRequested = interruption.flag();
    std::shared_ptr<Catalog> catalog;
    runWithoutGil(interruption,
                  [&] { catalog = std::make_shared<Catalog>(readCatalog(path, options)); });
    return catalog;
}

py::object weightsOf(const Catalog& catalog) {
    if (!catalog.hasWeights())
        return py::none();
    return arrayOf(catalog.weight());
}

py::array_t<double> degreesOf(std::span<const double> radians) {
    py::array_t<double> degrees(static_cast<py::ssize_t>(radians.size()));
    double* out = degrees.mutable_data();
    for (std::size_t i = 0; i < radians.size(); ++i)
        out[i] = fromRadians(radians[i], AngleUnit::Degree);
    return degrees;
}

} // namespace

void bindCatalogs(py::module_& module) {
    py::class_<Catalog, std::shared_ptr<Catalog>>(module, "Catalog", R"(A catalog of positions on the sky, immutable once built.

Catalog(ra, dec, weights=None, *, unit="deg", ra_hours=False, regions=None,
        name="array", threads=0)
    From numpy arrays: ra and dec (and weights) float32 or float64, of one
    dimension, of the same length; any layout (strided views are read in
    place, once). unit: "deg", "arcmin", "arcsec" or "rad"; ra_hours: RA in
    hours (Dec still in unit). regions: integer jackknife region labels.
    NaN or infinite values and Dec outside [-90, 90] deg raise ValueError
    (tpacf.InputError) naming the row, in the words tpacf uses for a file;
    other dtypes raise TypeError.

Catalog.read(path, ...) reads a file as `tpacf run` does.)")
        .def(py::init(&catalogFromArrays), py::arg("ra"), py::arg("dec"),
             py::arg("weights") = py::none(), py::kw_only(), py::arg("unit") = "deg",
             py::arg("ra_hours") = false, py::arg("regions") = py::none(),
             py::arg("name") = "array", py::arg("threads") = 0)
        .def_static("read", &catalogFromFile, py::arg("path"), py::kw_only(),
                    py::arg("ra_col") = py::none(), py::arg("dec_col") = py::none(),
                    py::arg("weight_col") = py::none(), py::arg("region_col") = py::none(),
                    py::arg("unit") = "deg", py::arg("ra_hours") = false,
                    py::arg("hdu") = py::none(), py::arg("threads") = 0,
                    R"(Reads a catalog file as `tpacf run` does.

ASCII (whitespace or comma separated, '#' comments, optional header) or a FITS
binary table, with cfitsio's selection syntax in the path
("d.fits[1][Z>0.4 && Z<0.8]", "d.fits[1][col RA;DEC;W=WEIGHT*WFKP]").
ra_col, dec_col, weight_col, region_col: a column name, or its number counted
from 1 (as --ra-col 3); unset RA/Dec are chosen as tpacf chooses them. unit and
ra_hours: as --coord-unit and --ra-hours; hdu: as --hdu. Bad content raises
tpacf.InputError (a ValueError) naming file, line and column; Ctrl-C stops a
long read (KeyboardInterrupt).)")
        .def_property_readonly("name", &Catalog::name, "Where the catalog came from (its path, or the name given).")
        .def_property_readonly("size", &Catalog::size, "Number of points.")
        .def("__len__", &Catalog::size)
        .def_property_readonly("ra", [](const Catalog& c) { return degreesOf(c.ra()); },
                               "RA in degrees, wrapped into [0, 360) (a copy).")
        .def_property_readonly("dec", [](const Catalog& c) { return degreesOf(c.dec()); },
                               "Dec in degrees (a copy).")
        .def_property_readonly("weights", &weightsOf, "Per-point weights (a copy), or None.")
        .def_property_readonly("has_weights", &Catalog::hasWeights)
        .def_property_readonly(
            "regions",
            [](const Catalog& c) -> py::object {
                if (c.region().empty())
                    return py::none();
                return arrayOf(c.region());
            },
            "Jackknife region labels as given (a copy), or None.")
        .def_property_readonly("origin", [](const Catalog& c) { return c.origin().describe(); },
                               "How the catalog was read: format, columns, unit, rows.")
        .def_property_readonly(
            "fingerprint", [](const Catalog& c) { return contentFingerprint(c).hex(); },
            "Content fingerprint (32 hex digits), as count files record it.")
        .def("__repr__", [](const Catalog& c) {
            return "<tpacf.Catalog '" + c.name() + "': " + std::to_string(c.size()) + " points" +
                   (c.hasWeights() ? ", weighted" : "") + ">";
        });
}

} // namespace tpacf::python
