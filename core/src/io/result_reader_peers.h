// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the result reader: other codes' w(θ) and pair-count outputs read as comparison
// runs (TreeCorr's NNCorrelation.write in ASCII and FITS, Corrfunc's DDtheta_mocks).
#include "tpacf/loaded_result.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::io {

/// A peer's table as a reader found it: named columns, where each row was, the relative error
/// of each printed value (text forms; empty for binary ones), and its parameters ("## {...}"
/// lines of a TreeCorr ASCII file, header keywords of a FITS one).
struct PeerColumns {
    std::vector<std::string> names;
    std::vector<std::vector<double>> columns;
    std::vector<std::vector<double>> printedError;
    std::vector<long> rowLines;
    long headerLine = 0;
    std::vector<std::string> paramLines;        // text: "{'tot': 1.0, 'sep_units': 'arcmin'}"
    std::map<std::string, std::string> keyed;   // FITS: keyword (lower case) → value
    std::string place;                          // FITS: "HDU 2: ", put before problems

    /// The parameter `key` (lower case), "" when the file does not give it.
    std::string param(std::string_view key) const;
    long rowLine(std::size_t row) const { return row < rowLines.size() ? rowLines[row] : 0; }
    /// The relative error of the printed r_nom of `row` (0 for a binary file).
    double rnomError(std::size_t row) const;
};

/// Whether the first bytes are a TreeCorr ASCII output: a "## {" parameter line or a '#'
/// header whose first name is r_nom.
bool treecorrTextContent(std::string_view head);
/// Whether the first bytes are a Corrfunc DDtheta_mocks output: a '#' header starting
/// "thetamin thetamax", or rows of five numbers (thetamin < thetamax ≤ 180, integer npairs).
bool corrfuncTextContent(std::string_view head);

/// The TreeCorr result in `table` (r_nom, xi, sigma_xi, DD, RR, DR, RD, npairs, meanr,
/// meanlogr): edges from r_nom's even spacing in log r (or r for bin_type Linear), θ in
/// sep_units, w = xi, w_err = sigma_xi, npairs as DD. Throws InputError naming the file and
/// line (or HDU) for what is not TreeCorr's Log or Linear bins.
LoadedResult treecorrResult(const std::string& path, const std::string& format,
                            const PeerColumns& table);
LoadedResult readTreeCorrText(const std::string& path);
/// Corrfunc's DDtheta_mocks output: θ edges in degrees, npairs as DD, no w (NaN).
LoadedResult readCorrfuncText(const std::string& path);

} // namespace tpacf::io
