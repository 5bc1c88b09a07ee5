// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/build_parts.h"

#include "cli/plot_output.h"
#include "tpacf/catalog_reader.h"
#include "tpacf/version.h"

#include <cstdio>

namespace tpacf::cli {

namespace {

std::string partLine(const std::string& name, bool present, const std::string& what) {
    char line[32];
    std::snprintf(line, sizeof line, "  %-10s%-4s", name.c_str(), present ? "yes" : "no");
    return line + what + "\n";
}

} // namespace

std::string versionText(const BackendRegistry& backends) {
    std::string text = "tpacf " + std::string(version()) + "\nparts of this build:\n";
    for (const auto& module : backends.modules()) {
        std::string what = module->compiledIn()
                               ? "pair counting on " + module->name() + " devices"
                               : "(" + module->unavailableReason() + ")";
        if (const std::string built = module->buildDescription(); !built.empty())
            what += " (" + built + ")";
        text += partLine(module->name(), module->compiledIn(), what);
    }
#if TPACF_HAVE_MPI
    text += partLine("mpi", true, "run, count and bench across MPI ranks");
#else
    text += partLine("mpi", false, "(built without MPI: one process)");
#endif
    text += partLine("fits", fitsSupported(),
                     fitsSupported() ? "FITS catalogs, results and count files (" +
                                           fitsLibraryVersion() + ")"
                                     : "(built without cfitsio: text catalogs and outputs only)");
    text += partLine("votable", true, "VOTable results (.vot): written, not read as catalogs");
    const std::string hdf5 = hdf5LibraryVersion();
    text += partLine("hdf5", !hdf5.empty(),
                     hdf5.empty() ? "(built without libhdf5: HDF5 catalogs are not read)"
                                  : "HDF5 catalogs (" + hdf5 + ")");
    if (plotsAvailable())
        text += partLine("plotting", true,
                         std::string("run --plot writes PNG, PDF") +
                             (svgPlotsAvailable() ? ", SVG" : "") + " (Qt)");
    else
        text += partLine("plotting", false,
                         "(this tpacf links no Qt: run --plot is refused; Studio draws figures)");
#if TPACF_HAVE_FCS
    text += partLine("fcs", true, "tpacf autocorr, the multi-tau FCS correlator");
#else
    text += partLine("fcs", false, "(built without the FCS correlator)");
#endif
    return text;
}

} // namespace tpacf::cli
