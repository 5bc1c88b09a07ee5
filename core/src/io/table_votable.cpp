// SPDX-License-Identifier: GPL-3.0-or-later
// A table as a VOTable 1.4 document (the IVOA's XML table format, TOPCAT's own): one RESOURCE
// holding one TABLE (or several: a result with its covariance and jackknife samples), each column a FIELD with its datatype, unit and (where the IVOA's UCD list
// has one) UCD, the metadata as PARAMs, the conventions as the table's DESCRIPTION, and the
// rows as TABLEDATA (plain text: every value as the ECSV writes it, NaN as "NaN").
#include "io/table.h"

#include <cctype>
#include <cmath>
#include <map>
#include <ostream>
#include <string>
#include <string_view>

namespace tpacf::io {

namespace {

/// Text as XML character data or an attribute value.
std::string xmlEscaped(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        case '\n':
        case '\r':
        case '\t':
            out += ' '; // a value stays on one line
            break;
        default:
            // Control characters are not allowed in XML 1.0: never written.
            if (static_cast<unsigned char>(c) >= 0x20)
                out += c;
        }
    }
    return out;
}

/// The VOTable datatype of an ECSV one. VOTable has no unsigned 64-bit type: counts are
/// written as "long" (they stay far below 2^63).
const char* voDatatype(const std::string& ecsv) {
    if (ecsv == "uint64" || ecsv == "int64")
        return "long";
    if (ecsv == "string")
        return "char";
    return "double";
}

/// The UCD (IVOA UCD1+) of the columns the writers name, where the list has a word for it.
std::string_view ucdOf(std::string_view name) {
    if (name == "theta_lo" || name == "theta_hi" || name == "theta_mid")
        return "pos.angDistance";
    if (name == "w")
        return "stat.correlation";
    if (name == "w_err")
        return "stat.error";
    if (name == "DD" || name == "DR" || name == "RD" || name == "RR" || name == "count")
        return "meta.number";
    return {};
}

/// A metadata key as a PARAM name: letters, digits and underscores (spaces become '_').
std::string paramName(std::string_view key) {
    std::string name;
    for (const char c : key)
        name += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ? c : '_';
    return name.empty() ? std::string("meta") : name;
}

/// A TABLEDATA cell: the ECSV text, except NaN (written "nan" there) as VOTable's "NaN".
std::string cellText(const TableColumn& column, std::size_t row) {
    const std::string text = column.text(row);
    return text == "nan" ? std::string("NaN") : text;
}

// One TABLE element: its description, PARAMs, FIELDs and rows.
void writeTableElement(std::ostream& out, const Table& table, const std::string& tableName) {
    // The ID too: astropy picks a table of several by it (Table.read(..., table_id='WTHETA')).
    out << "<TABLE ID=\"" << xmlEscaped(tableName) << "\" name=\"" << xmlEscaped(tableName) << "\" nrows=\"" << table.rows << "\">\n";
    if (!table.conventions.empty()) {
        out << "<DESCRIPTION>";
        for (std::size_t i = 0; i < table.conventions.size(); ++i)
            out << (i > 0 ? "; " : "") << xmlEscaped(table.conventions[i]);
        out << "</DESCRIPTION>\n";
    }
    // A key given more than once (notes, MPI ranks) is numbered from its second PARAM on.
    std::map<std::string, int> seen;
    for (const auto& [key, value] : table.metadata) {
        std::string name = paramName(key);
        if (const int n = ++seen[name]; n > 1)
            name += "_" + std::to_string(n);
        out << "<PARAM name=\"" << name << "\" datatype=\"char\" arraysize=\"*\" value=\""
            << xmlEscaped(value) << "\"><DESCRIPTION>" << xmlEscaped(key)
            << "</DESCRIPTION></PARAM>\n";
    }
    for (const TypedValue& value : table.typed) {
        static constexpr const char* kDatatype[] = {"long", "double", "boolean", "char"};
        out << "<PARAM name=\"" << xmlEscaped(value.key) << "\" datatype=\""
            << kDatatype[static_cast<int>(value.kind)] << "\"";
        if (value.kind == TypedValue::Kind::Text)
            out << " arraysize=\"*\"";
        std::string text = value.kind == TypedValue::Kind::Text ? value.text : value.yaml();
        if (value.kind == TypedValue::Kind::Real)
            text = std::isnan(value.real) ? "NaN"
                   : std::isinf(value.real) ? (value.real > 0 ? "+Inf" : "-Inf")
                                            : text;
        out << " value=\"" << xmlEscaped(text) << "\"/>\n";
    }
    for (const TableColumn& column : table.columns) {
        out << "<FIELD name=\"" << xmlEscaped(column.header.name) << "\" datatype=\""
            << voDatatype(column.header.datatype) << "\"";
        if (!column.header.unit.empty())
            out << " unit=\"" << xmlEscaped(column.header.unit) << "\"";
        if (const std::string_view ucd = ucdOf(column.header.name); !ucd.empty())
            out << " ucd=\"" << ucd << "\"";
        out << "/>\n";
    }
    out << "<DATA><TABLEDATA>\n";
    for (std::size_t row = 0; row < table.rows; ++row) {
        out << "<TR>";
        for (const TableColumn& column : table.columns)
            out << "<TD>" << cellText(column, row) << "</TD>";
        out << "</TR>\n";
    }
    out << "</TABLEDATA></DATA>\n</TABLE>\n";
}

} // namespace

void writeVoTables(std::ostream& out, const std::vector<NamedTable>& tables) {
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<VOTABLE version=\"1.4\" xmlns=\"http://www.ivoa.net/xml/VOTable/v1.3\"\n"
           "         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n"
           "<RESOURCE type=\"results\">\n";
    for (const NamedTable& named : tables)
        writeTableElement(out, *named.table, named.name);
    out << "</RESOURCE>\n</VOTABLE>\n";
}

void writeVoTable(std::ostream& out, const Table& table, const std::string& tableName) {
    writeVoTables(out, {{&table, tableName}});
}

} // namespace tpacf::io
