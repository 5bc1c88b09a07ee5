// SPDX-License-Identifier: GPL-3.0-or-later
// The FITS form of a table (built with cfitsio only; table_ecsv.cpp says so otherwise).
#include "io/fits_memory_file.h"
#include "io/table.h"

#include "tpacf/errors.h"
#include "tpacf/output_file.h"

#include <fitsio.h>

#include <cctype>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tpacf::io {

namespace {

// A FITS keyword of at most 8 characters from a metadata key ("random 1" → RANDOM1,
// "bin count" → BINCOUNT), numbered where two keys would collide (NOTE, NOTE2).
std::string keywordFor(const std::string& key, std::set<std::string>& used) {
    std::string word;
    for (const char c : key)
        if (std::isalnum(static_cast<unsigned char>(c)))
            word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (word.empty())
        word = "META";
    word.resize(std::min<std::size_t>(word.size(), 8));
    std::string candidate = word;
    for (int n = 2; used.count(candidate); ++n) {
        const std::string suffix = std::to_string(n);
        candidate = word.substr(0, 8 - suffix.size()) + suffix;
    }
    used.insert(candidate);
    return candidate;
}

} // namespace

bool fitsTablesSupported() noexcept {
    return true;
}

namespace {

// One binary table extension, appended to `file`, with its columns, metadata and conventions.
void appendFitsTable(MemoryFitsFile& file, const Table& table, const std::string& extname) {
    int status = 0;
    std::vector<std::string> names, forms, units;
    for (const TableColumn& column : table.columns) {
        names.push_back(column.header.name);
        forms.push_back(column.header.datatype == "float64" ? "1D" : "1K");
        units.push_back(column.header.unit);
    }
    std::vector<char*> namePointers, formPointers, unitPointers;
    for (std::size_t c = 0; c < names.size(); ++c) {
        namePointers.push_back(names[c].data());
        formPointers.push_back(forms[c].data());
        unitPointers.push_back(units[c].data());
    }
    std::string name = extname;
    fits_create_tbl(file.get(), BINARY_TBL, static_cast<LONGLONG>(table.rows),
                    static_cast<int>(names.size()), namePointers.data(), formPointers.data(),
                    unitPointers.data(), name.data(), &status);
    file.check(status, "table");
    for (std::size_t c = 0; c < table.columns.size() && table.rows > 0; ++c) {
        const TableColumn& column = table.columns[c];
        if (column.header.datatype == "uint64") {
            // Counts are far below 2^63: as signed 64-bit integers (TFORM K) every reader
            // takes them without the unsigned offset convention.
            std::vector<LONGLONG> values(column.integers.begin(), column.integers.end());
            fits_write_col(file.get(), TLONGLONG, static_cast<int>(c + 1), 1, 1,
                           static_cast<LONGLONG>(table.rows), values.data(), &status);
        } else if (column.header.datatype == "int64") {
            // Small integers held as doubles (a bin or region index): 64-bit integers too.
            std::vector<LONGLONG> values(column.doubles.begin(), column.doubles.end());
            fits_write_col(file.get(), TLONGLONG, static_cast<int>(c + 1), 1, 1,
                           static_cast<LONGLONG>(table.rows), values.data(), &status);
        } else {
            std::vector<double> values = column.doubles;
            fits_write_col(file.get(), TDOUBLE, static_cast<int>(c + 1), 1, 1,
                           static_cast<LONGLONG>(table.rows), values.data(), &status);
        }
        file.check(status, "column");
    }
    fits_write_key_longwarn(file.get(), &status);
    std::set<std::string> used;
    for (const auto& [key, value] : table.metadata) {
        if (key == "command" || key == "job file line") {
            // The command line (and a job file's lines) as HISTORY cards of 70 characters: they
            // may hold quotes, which a long string keyword's CONTINUE cards carry but some
            // readers (astropy 5.2) garble.
            const std::string text = (key == "command" ? "command: " : "job: ") + value;
            for (std::size_t at = 0; at < text.size(); at += 70)
                fits_write_history(file.get(), text.substr(at, 70).c_str(), &status);
            continue;
        }
        std::string keyword = keywordFor(key, used);
        std::string text = value;
        fits_write_key_longstr(file.get(), keyword.c_str(), text.c_str(), key.c_str(), &status);
    }
    // The typed values: integers, reals and booleans as FITS values of their type.
    for (const TypedValue& value : table.typed) {
        if (value.fitsKeyword.empty())
            continue; // no keyword of 8 characters (the 100th random set and beyond)
        const char* keyword = value.fitsKeyword.c_str();
        const char* comment = value.key.c_str();
        switch (value.kind) {
        case TypedValue::Kind::Integer: {
            LONGLONG number = value.integer;
            fits_write_key(file.get(), TLONGLONG, keyword, &number, comment, &status);
            break;
        }
        case TypedValue::Kind::Real: {
            double number = value.real;
            if (std::isfinite(number))
                fits_write_key(file.get(), TDOUBLE, keyword, &number, comment, &status);
            else // FITS has no NaN value: the keyword without one
                fits_write_key_null(file.get(), keyword, comment, &status);
            break;
        }
        case TypedValue::Kind::Boolean: {
            int flag = value.boolean ? 1 : 0;
            fits_write_key(file.get(), TLOGICAL, keyword, &flag, comment, &status);
            break;
        }
        case TypedValue::Kind::Text: {
            std::string text = value.text;
            fits_write_key_longstr(file.get(), keyword, text.c_str(), comment, &status);
            break;
        }
        }
    }
    for (const std::string& convention : table.conventions)
        fits_write_comment(file.get(), convention.c_str(), &status);
    file.check(status, "header");
}

} // namespace

void writeFitsTables(const std::string& path, const std::vector<NamedTable>& tables) {
    std::size_t size = 2880 * 8;
    for (const NamedTable& named : tables)
        size += 2880 * 4 + named.table->rows * named.table->columns.size() * 8 +
                100 * named.table->metadata.size();
    MemoryFitsFile file(path, "FITS table", size);
    for (const NamedTable& named : tables)
        appendFitsTable(file, *named.table, named.name);
    file.commit();
}

void writeFitsTable(const std::string& path, const Table& table, const std::string& extname) {
    writeFitsTables(path, {{&table, extname}});
}

} // namespace tpacf::io
