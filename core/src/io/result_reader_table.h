// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the result reader: a table as a reader found it (named numeric columns, their
// units, the metadata, where each row was), which one routine turns into a LoadedResult so that
// every format checks the same things and says so alike.
#include "tpacf/result_reader.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tpacf::io {

struct TextTable {
    std::vector<std::string> names;
    std::vector<std::vector<double>> columns;
    std::map<std::string, std::string> units; // by column name, as the file states them
    std::vector<std::pair<std::string, std::string>> metadata;
    long headerLine = 0;          // text forms: the header row's line
    std::vector<long> rowLines;   // text forms: each row's line
    std::string hduPlace;         // FITS: "HDU 2 (WTHETA)", named in errors instead of a line
};

/// The LoadedResult of `table`; throws InputError naming the file and the line (or HDU) when
/// the table is not a w(θ) result (missing θ or w column), holds no bins, or has bins out of order.
LoadedResult resultFromTable(const std::string& path, const std::string& format, TextTable table);

/// The FITS reader (result_reader_fits.cpp); without cfitsio it throws ConfigError.
LoadedResult readResultFits(const std::string& path);

} // namespace tpacf::io
