// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf.Bins: core's BinSpec, validated into a Binning when made (log, linear, edges, presets).
#include "binding.h"

#include "tpacf/bins.h"
#include "tpacf/errors.h"
#include "tpacf/units.h"

#include <pybind11/stl.h>

#include <limits>
#include <memory>
#include <optional>

namespace tpacf::python {

namespace {

AngleUnit binUnitOf(const std::string& text) {
    const auto unit = parseAngleUnit(text);
    if (!unit)
        throw ConfigError("unit: '" + text + "' is not an angle unit (deg, arcmin, arcsec, rad)");
    return *unit;
}

std::shared_ptr<Binning> made(const BinSpec& spec) {
    return std::make_shared<Binning>(spec); // ConfigError naming the bad value
}

// The CLI's checks of --per-decade, --nbins and --width, worded for keyword arguments.
void requireOneWay(const char* first, bool hasFirst, const char* second, bool hasSecond) {
    if (hasFirst && hasSecond)
        throw ConfigError(std::string("give only one of ") + first + ", " + second);
}

int countOf(const py::object& count) {
    const long value = py::cast<long>(count);
    if (value < 1 || value > static_cast<long>(kMaxBinCount))
        throw ConfigError("count: " + std::to_string(value) + " is outside 1.." +
                          std::to_string(kMaxBinCount));
    return static_cast<int>(value);
}

std::shared_ptr<Binning> logBins(double min, double max, const py::object& perDecade,
                                 const py::object& count, const std::string& unit) {
    requireOneWay("per_decade", !perDecade.is_none(), "count", !count.is_none());
    const AngleUnit angleUnit = binUnitOf(unit);
    if (!count.is_none())
        return made(BinSpec::logCount(min, max, angleUnit, countOf(count)));
    const double perDecadeValue = perDecade.is_none() ? 5.0 : py::cast<double>(perDecade);
    if (!(perDecadeValue > 0))
        throw ConfigError("per_decade must be > 0, got " + std::string(py::str(perDecade)));
    return made(BinSpec::logPerDecade(min, max, angleUnit, perDecadeValue));
}

std::shared_ptr<Binning> linearBins(double min, double max, const py::object& count,
                                    const py::object& width, const std::string& unit) {
    requireOneWay("count", !count.is_none(), "width", !width.is_none());
    const AngleUnit angleUnit = binUnitOf(unit);
    if (!count.is_none())
        return made(BinSpec::linearCount(min, max, angleUnit, countOf(count)));
    if (width.is_none())
        throw ConfigError("linear bins need count=N or width=W");
    const double widthValue = py::cast<double>(width);
    if (!(widthValue > 0))
        throw ConfigError("width must be > 0, got " + std::string(py::str(width)));
    return made(BinSpec::linearWidth(min, max, angleUnit, widthValue));
}

std::shared_ptr<Binning> edgeBins(const py::object& edges, const std::string& unit) {
    std::vector<double> values;
    if (py::isinstance<py::array>(edges))
        values = doublesFrom(edges, "edges");
    else
        values = py::cast<std::vector<double>>(edges);
    return made(BinSpec::fromEdges(std::move(values), binUnitOf(unit)));
}

std::shared_ptr<Binning> presetBins(const std::string& name) {
    try {
        return made(BinSpec::preset(name));
    } catch (const ConfigError&) {
        std::string names;
        for (const auto& known : BinSpec::presetNames())
            names += (names.empty() ? "" : ", ") + known;
        throw ConfigError("preset: unknown preset '" + name + "' (known: " + names + ")");
    }
}

} // namespace

void bindBins(py::module_& module) {
    py::class_<Binning, std::shared_ptr<Binning>>(module, "Bins", R"(Angular bins, validated when made.

Bins.log(min, max, *, per_decade=None, count=None, unit="arcmin")
Bins.linear(min, max, *, count=None, width=None, unit="arcmin")
Bins.from_edges(edges, unit="arcmin")
Bins.preset(name)          # "log5" (5 per decade, 0.01'-10000'), "quarter-degree"

A pair falls in bin k when edges[k] <= theta < edges[k+1]. Bad values raise
tpacf.ConfigError (a ValueError) in the words `tpacf run` uses.)")
        .def_static("log", &logBins, py::arg("min"), py::arg("max"), py::kw_only(),
                    py::arg("per_decade") = py::none(), py::arg("count") = py::none(),
                    py::arg("unit") = "arcmin",
                    "Logarithmic bins from min to max: per_decade (default 5) or count bins.")
        .def_static("linear", &linearBins, py::arg("min"), py::arg("max"), py::kw_only(),
                    py::arg("count") = py::none(), py::arg("width") = py::none(),
                    py::arg("unit") = "arcmin", "Linear bins from min to max: count bins or width wide.")
        .def_static("from_edges", &edgeBins, py::arg("edges"), py::arg("unit") = "arcmin",
                    "Bins with exactly these edges (at least 2, strictly increasing, within 180 deg).")
        .def_static("preset", &presetBins, py::arg("name"), "A named preset (see Bins.presets()).")
        .def_static("presets", &BinSpec::presetNames, "Names of the presets.")
        .def_property_readonly("edges", [](const Binning& b) { return arrayOf(b.edges()); },
                               "count+1 edges in the bins' unit.")
        .def_property_readonly("centres", [](const Binning& b) { return arrayOf(b.centres()); },
                               "Bin centres in the bins' unit (geometric for log bins).")
        .def_property_readonly("count", &Binning::count, "Number of bins.")
        .def("__len__", &Binning::count)
        .def_property_readonly("unit", [](const Binning& b) { return std::string(angleUnitName(b.unit())); })
        .def_property_readonly("scale", [](const Binning& b) { return std::string(binScaleKey(b.spec().scale)); },
                               "\"log\", \"linear\" or \"custom\".")
        .def("describe", [](const Binning& b) { return b.spec().describe(); },
             "One line, as result files write it.")
        .def("__repr__", [](const Binning& b) {
            return "<tpacf.Bins " + b.spec().describe() + ", " + std::to_string(b.count()) + " bins>";
        });
}

} // namespace tpacf::python
