// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/table.h"

#include "io/result_text.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace tpacf::io {

std::string TableColumn::text(std::size_t row) const {
    if (header.datatype == "uint64")
        return std::to_string(integers[row]);
    return formatDouble(doubles[row]);
}

TypedValue TypedValue::ofInteger(std::string key, std::string keyword, std::int64_t value) {
    TypedValue v{std::move(key), std::move(keyword), Kind::Integer};
    v.integer = value;
    return v;
}

TypedValue TypedValue::ofReal(std::string key, std::string keyword, double value) {
    TypedValue v{std::move(key), std::move(keyword), Kind::Real};
    v.real = value;
    return v;
}

TypedValue TypedValue::ofBoolean(std::string key, std::string keyword, bool value) {
    TypedValue v{std::move(key), std::move(keyword), Kind::Boolean};
    v.boolean = value;
    return v;
}

TypedValue TypedValue::ofText(std::string key, std::string keyword, std::string value) {
    TypedValue v{std::move(key), std::move(keyword), Kind::Text};
    v.text = std::move(value);
    return v;
}

std::string TypedValue::yaml() const {
    switch (kind) {
    case Kind::Integer:
        return std::to_string(integer);
    case Kind::Real: {
        if (std::isnan(real))
            return ".nan";
        if (std::isinf(real))
            return real > 0 ? ".inf" : "-.inf";
        // A real YAML reads as a real: with a '.' or an exponent.
        std::string text = formatDouble(real);
        if (text.find_first_of(".eE") == std::string::npos)
            text += ".0";
        return text;
    }
    case Kind::Boolean:
        return boolean ? "true" : "false";
    case Kind::Text:
        break;
    }
    return yamlQuoted(text);
}

void writeEcsvTable(std::ostream& out, const Table& table) {
    std::vector<EcsvColumn> headers;
    for (const TableColumn& column : table.columns)
        headers.push_back(column.header);
    writeEcsvHeader(out, headers, table.metadata, table.conventions, table.typed);
    for (std::size_t c = 0; c < table.columns.size(); ++c)
        out << (c ? "," : "") << table.columns[c].header.name;
    out << '\n';
    for (std::size_t row = 0; row < table.rows; ++row) {
        for (std::size_t c = 0; c < table.columns.size(); ++c)
            out << (c ? "," : "") << table.columns[c].text(row);
        out << '\n';
    }
}

#ifndef TPACF_HAVE_CFITSIO
bool fitsTablesSupported() noexcept {
    return false;
}

void writeFitsTable(const std::string&, const Table&, const std::string&) {
    throw ConfigError("this build writes no FITS tables (built without cfitsio); write CSV");
}

void writeFitsTables(const std::string&, const std::vector<NamedTable>&) {
    throw ConfigError("this build writes no FITS tables (built without cfitsio); write CSV");
}
#endif

std::string yamlQuoted(std::string_view text) {
    std::string quoted = "'";
    for (const char c : text) {
        if (c == '\'')
            quoted += "''";
        else if (c == '\n' || c == '\r')
            quoted += ' ';
        else
            quoted += c;
    }
    return quoted + "'";
}

namespace {

// Keys are the writers' own words (letters, digits, spaces): plain YAML scalars, except that a
// key YAML would read as something else is quoted.
std::string yamlKey(const std::string& key) {
    const bool plain = !key.empty() &&
                       std::all_of(key.begin(), key.end(),
                                   [](char c) {
                                       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                              (c >= '0' && c <= '9') || c == ' ' || c == '_' ||
                                              c == '.';
                                   }) &&
                       key.front() != ' ' && key.back() != ' ';
    return plain ? key : yamlQuoted(key);
}

} // namespace

void writeEcsvHeader(std::ostream& out, const std::vector<EcsvColumn>& columns,
                     const Metadata& metadata, const std::vector<std::string>& conventions,
                     const TypedMetadata& typed) {
    out << "# %ECSV 1.0\n# ---\n# delimiter: ','\n";
    // Scripts read the job time with `grep '^# elapsed'` (the line of the plain CSV before): it is
    // repeated as a top-level key, which ECSV readers (astropy, STILTS) ignore, beside its place
    // in `meta`.
    for (const auto& [key, value] : metadata)
        if (key == "elapsed")
            out << "# " << yamlKey(key) << ": " << yamlQuoted(value) << '\n';
    out << "# datatype:\n";
    for (const EcsvColumn& column : columns) {
        out << "# - {name: " << yamlQuoted(column.name);
        if (!column.unit.empty())
            out << ", unit: " << yamlQuoted(column.unit);
        out << ", datatype: " << column.datatype << "}\n";
    }
    out << "# meta:\n";
    // Keys in first-seen order; a repeated key (a note, a warning) lists its values.
    std::vector<std::string> keys;
    for (const auto& [key, value] : metadata)
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
            keys.push_back(key);
    for (const std::string& key : keys) {
        std::vector<const std::string*> values;
        for (const auto& [k, value] : metadata)
            if (k == key)
                values.push_back(&value);
        if (values.size() == 1) {
            out << "#   " << yamlKey(key) << ": " << yamlQuoted(*values.front()) << '\n';
            continue;
        }
        out << "#   " << yamlKey(key) << ":\n";
        for (const std::string* value : values)
            out << "#   - " << yamlQuoted(*value) << '\n';
    }
    for (const TypedValue& value : typed)
        out << "#   " << value.key << ": " << value.yaml() << '\n';
    if (!conventions.empty()) {
        out << "#   conventions:\n";
        for (const std::string& convention : conventions)
            out << "#   - " << yamlQuoted(convention) << '\n';
    }
    out << "# schema: astropy-2.0\n";
}

} // namespace tpacf::io
