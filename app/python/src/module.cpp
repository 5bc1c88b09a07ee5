// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled part of the Python package: tpacf._tpacf. The package (app/python/tpacf/) wraps
// it with the result object, tables, files and plots.
#include "binding.h"

#include "tpacf/version.h"

PYBIND11_MODULE(_tpacf, module) {
    using namespace tpacf::python;
    module.doc() = "The TPACF engine (core and its backends), bound for the tpacf package.";
    module.attr("__version__") = std::string(tpacf::version());
    bindErrors(module);
    bindCatalogs(module);
    bindBins(module);
    bindCounting(module);
    bindCorrelate(module);
    bindDevices(module);
}
