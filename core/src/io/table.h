// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the writers: a table as every writer holds it (typed columns with units, the
// metadata and the conventions), and its two forms. ECSV 1.0 (astropy's Enhanced CSV): a YAML
// header in '#' lines, then CSV, so astropy (Table.read), TOPCAT/STILTS and pandas
// (comment='#') read the columns with their units and types, and people still read the
// metadata as text. FITS: a binary table with the metadata as header keywords.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpacf::io {

/// One column of the table: its name, unit ("" for none) and ECSV datatype ("float64",
/// "uint64", "int64", "string").
struct EcsvColumn {
    std::string name;
    std::string unit;
    std::string datatype;
};

/// (key, value) metadata lines in order; a key given more than once becomes a list.
using Metadata = std::vector<std::pair<std::string, std::string>>;

/// A metadata value a script reads as what it is: an integer, a real, a boolean or a text. Each
/// has a snake_case key (ECSV meta, VOTable PARAM) and a FITS keyword of at most 8 characters
/// holding a '_' (the prose keys' keywords have none, so the two never collide).
struct TypedValue {
    enum class Kind { Integer, Real, Boolean, Text };
    std::string key;
    std::string fitsKeyword;
    Kind kind = Kind::Text;
    std::int64_t integer = 0;
    double real = 0;
    bool boolean = false;
    std::string text;

    static TypedValue ofInteger(std::string key, std::string keyword, std::int64_t value);
    static TypedValue ofReal(std::string key, std::string keyword, double value);
    static TypedValue ofBoolean(std::string key, std::string keyword, bool value);
    static TypedValue ofText(std::string key, std::string keyword, std::string value);
    /// The value as YAML writes it: an integer, the shortest exact real (.nan, .inf, -.inf),
    /// true/false, or a single-quoted text.
    std::string yaml() const;
};
using TypedMetadata = std::vector<TypedValue>;

/// A column with its values: `integers` for datatype "uint64", `doubles` for "float64" or
/// "int64" (small integers such as a bin index, exact in double).
struct TableColumn {
    EcsvColumn header;
    std::vector<std::uint64_t> integers;
    std::vector<double> doubles;

    std::size_t size() const noexcept {
        return header.datatype == "uint64" ? integers.size() : doubles.size();
    }
    /// The value of `row` as the CSV writes it: integers in decimal, doubles in their shortest
    /// exact form, "nan" for NaN.
    std::string text(std::size_t row) const;
};

struct Table {
    std::vector<TableColumn> columns;
    Metadata metadata;
    TypedMetadata typed; ///< after the prose metadata in every form
    std::vector<std::string> conventions;
    std::size_t rows = 0;
};

/// A table and the name its FITS extension or VOTable TABLE carries, for files of several tables
/// (a result with its covariance and jackknife samples).
struct NamedTable {
    const Table* table = nullptr;
    std::string name;
};

/// The whole table as ECSV: header, header row, rows.
void writeEcsvTable(std::ostream& out, const Table& table);

/// Whether this build writes FITS tables (built with cfitsio).
bool fitsTablesSupported() noexcept;
/// The table as a FITS file: an empty primary HDU, then a binary table named `extname` (TTYPE,
/// TUNIT, 'K' for uint64, 'D' for float64) whose header carries the metadata as keywords
/// (long values continued, the original key in the comment) and the conventions as COMMENT
/// cards. Written through a temporary and renamed, like every output. Throws InputError
/// naming `path` on failure, ConfigError where fitsTablesSupported() is false.
void writeFitsTable(const std::string& path, const Table& table, const std::string& extname);
/// Several tables in one FITS file: a binary table extension each, in order, each with its own
/// metadata keywords (the first one is the file's main table).
void writeFitsTables(const std::string& path, const std::vector<NamedTable>& tables);

/// The table as a VOTable 1.4 document (TABLEDATA): FIELDs with datatype ("long" for the
/// integer columns, "double"), unit and UCD where one fits, the metadata as PARAMs (text), the
/// conventions as the TABLE's DESCRIPTION. TOPCAT, STILTS and astropy.io.votable read it.
void writeVoTable(std::ostream& out, const Table& table, const std::string& tableName);
/// Several tables in one VOTable document: one RESOURCE, a TABLE each, in order.
void writeVoTables(std::ostream& out, const std::vector<NamedTable>& tables);

/// A YAML single-quoted scalar: the text between single quotes, quotes doubled, line breaks
/// replaced by spaces (a value stays on its '#' line).
std::string yamlQuoted(std::string_view text);

/// Writes "# %ECSV 1.0", "# ---", the comma delimiter, the columns' datatypes and units, the
/// metadata as a mapping under `meta` (values quoted, repeated keys as lists, the conventions as
/// the list `conventions`) and the schema line, each line starting "# ". The header row and
/// the data rows follow from the caller.
void writeEcsvHeader(std::ostream& out, const std::vector<EcsvColumn>& columns,
                     const Metadata& metadata, const std::vector<std::string>& conventions,
                     const TypedMetadata& typed = {});

} // namespace tpacf::io
