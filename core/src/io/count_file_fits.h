// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Count files as FITS (count_file_fits_write.cpp and _read.cpp, built with cfitsio only; count_file.cpp holds the
// refusals of a build without it). The layout is described in count_file_fits_format.h.
#include "tpacf/count_store.h"

#include <string>

namespace tpacf::io {

/// Writes `store` to `path` atomically. Throws InputError naming the path.
void writeCountStoreFits(const std::string& path, const CountStore& store);
/// Reads a FITS count file; `source` is set to `path`. Throws InputError naming the file and
/// what is wrong (missing HDU or column, wrong type or size, foreign or truncated file).
CountStore readCountStoreFits(const std::string& path);

} // namespace tpacf::io
