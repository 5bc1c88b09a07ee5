// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled part of the Python package: tpacf._tpacf. The package (app/python/tpacf/) wraps
// it with the result object, tables, files and plots.
#include "binding.h"

#include "tpacf/version.h"

#include <string>

namespace {

namespace py = pybind11;

// pybind11 before 2.12 reads NumPy's dtype struct in its 1.x layout: under NumPy 2 the arrays it
// makes (the counts) come out wrong. Refuse to load there rather than return wrong numbers.
void requireSupportedNumpy() {
#if PYBIND11_VERSION_MAJOR < 2 || (PYBIND11_VERSION_MAJOR == 2 && PYBIND11_VERSION_MINOR < 12)
    const auto numpy = py::module_::import("numpy");
    const auto version = py::cast<std::string>(numpy.attr("__version__"));
    if (std::stoi(version) >= 2) // "2.5.2" -> 2
        throw py::import_error("tpacf: this module was built with pybind11 " PYBIND11_TOSTRING(
            PYBIND11_VERSION_MAJOR) "." PYBIND11_TOSTRING(PYBIND11_VERSION_MINOR) ", which does "
            "not support NumPy " + version + " (NumPy 2 needs pybind11 2.12 or newer); rebuild "
            "with a newer pybind11, or use NumPy 1.x");
#endif
}

} // namespace

PYBIND11_MODULE(_tpacf, module) {
    using namespace tpacf::python;
    requireSupportedNumpy();
    module.doc() = "The TPACF engine (core and its backends), bound for the tpacf package.";
    module.attr("__version__") = std::string(tpacf::version());
    bindErrors(module);
    bindCatalogs(module);
    bindBins(module);
    bindCounting(module);
    bindCorrelate(module);
    bindDevices(module);
    bindMasks(module);
}
