// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Jackknife regions as a file (tpacf run --save-regions, --regions): k-means centres with their
// radii, or HEALPix runs of NESTED pixels, as JSON, so that two redshift slices, or data and
// mocks, share regions.
#include "tpacf/jackknife.h"

#include <string>

namespace tpacf {

/// Writes the definition as JSON through the safe output path (writeFileAtomically).
void writeRegionsFile(const std::string& path, const RegionsDefinition& regions);

/// Reads a regions file; InputError naming the file, the line and the field of anything wrong
/// (not a regions file, an unknown kind, a centre that is no unit vector, pixels out of order
/// or beyond the NSIDE, fewer than two regions).
RegionsDefinition readRegionsFile(const std::string& path);

} // namespace tpacf
