#pragma once
// Internal to the writers: the header of astropy's Enhanced CSV (ECSV 1.0). Every table the
// tool writes starts with it, so astropy (Table.read), TOPCAT/STILTS and pandas (comment='#')
// read the columns with their units and types, and people still read the metadata as text.
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

/// A YAML single-quoted scalar: the text between single quotes, quotes doubled, line breaks
/// replaced by spaces (a value stays on its '#' line).
std::string yamlQuoted(std::string_view text);

/// Writes "# %ECSV 1.0", "# ---", the comma delimiter, the columns' datatypes and units, the
/// metadata as a mapping under `meta` (values quoted, repeated keys as lists, the conventions as
/// the list `conventions`) and the schema line, each line starting "# ". The header row and
/// the data rows follow from the caller.
void writeEcsvHeader(std::ostream& out, const std::vector<EcsvColumn>& columns,
                     const Metadata& metadata, const std::vector<std::string>& conventions);

} // namespace tpacf::io
