// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to core's readers: HDF5 catalogs (defined only where built with libhdf5).
#include "tpacf/catalog_reader.h"

#include <string>

namespace tpacf::detail {

/// Whether the file starts with HDF5's signature (\x89HDF\r\n\x1a\n); false for what cannot be
/// opened (the reader chosen instead says why). Never blocks: FIFOs and devices are not opened.
bool startsWithHdf5Signature(const std::string& path);
/// The table at ReadOptions::hdu (a group of 1-D column datasets, or a 1-D compound dataset;
/// empty: the root group, or the file's only compound table), columns chosen as in FITS.
Catalog readHdf5Catalog(const std::string& path, const ReadOptions& options);
TablePreview previewHdf5File(const std::string& path, std::size_t maxRows);

} // namespace tpacf::detail
