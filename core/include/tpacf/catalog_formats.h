// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The catalog file formats this build reads, as one table: readCatalog, previewCatalogFile, the
// GUI's file dialogs and the CLI's help all ask it, so a new format is one entry plus its tests.
#include "tpacf/catalog_reader.h"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace tpacf {

/// One catalog file format: how to recognise a file in it, read it and preview it.
struct CatalogFormat {
    std::string_view key;  // "ascii", "fits": stable, for code, tests and scripts
    std::string_view name; // "ASCII table": for file dialogs and help text
    /// File-name patterns, matched in any case ("*.fits" takes CAT.FITS): the dialogs' filter.
    std::span<const std::string_view> patterns;
    /// Whether `path` holds this format: by name, and by content where the name does not decide
    /// (FITS bytes behind a .dat or .cat name are FITS; behind .txt or .csv, which promise text,
    /// they are left to the ASCII reader, which refuses them). Never throws and never blocks: a
    /// path that is no readable regular file is left to the reader, which says what is wrong.
    bool (*matches)(const std::string& path);
    Catalog (*read)(const std::string& path, const ReadOptions& options);
    TablePreview (*preview)(const std::string& path, std::size_t maxRows);
};

/// The formats built in, the most specific first. FITS is there only where built with cfitsio;
/// the last entry (ASCII) matches every path, so every file has a format.
std::span<const CatalogFormat> catalogFormats() noexcept;

/// The first format in catalogFormats() that matches `path`: the one readCatalog uses.
const CatalogFormat& formatFor(const std::string& path);

/// The format with this key, or nullptr where this build has none ("fits" without cfitsio).
const CatalogFormat* findCatalogFormat(std::string_view key) noexcept;

/// Whether the file name of `path` (after the last '/') matches the glob `pattern` ('*' any
/// run, '?' one character), ignoring ASCII case.
bool matchesPattern(std::string_view path, std::string_view pattern) noexcept;
/// Whether `path` matches one of `format`'s patterns.
bool matchesAnyPattern(const CatalogFormat& format, std::string_view path) noexcept;

/// The formats for help text, one line each, indented by two spaces ("  ASCII table: *.txt
/// *.dat *.csv *.cat"), then which names go by content.
std::string describeCatalogFormats();

} // namespace tpacf
