// SPDX-License-Identifier: GPL-3.0-or-later
// The FITS form of a result read back (cfitsio builds only): the WTHETA binary table that
// writeResultFitsFile writes, or else the file's first binary table; its TUNIT gives θ's unit and
// its keywords the metadata (the writer keeps the original key in each keyword's comment).
#include "base/fits_handle.h"
#include "io/result_reader_table.h"

#include "tpacf/errors.h"

#include <fitsio.h>

#include <set>
#include <string>

namespace tpacf::io {

namespace {

// The keywords of the table's own layout: not metadata.
bool structuralKeyword(const std::string& name) {
    static const std::set<std::string> fixed = {"XTENSION", "BITPIX", "NAXIS", "PCOUNT",
                                                "GCOUNT",   "TFIELDS", "EXTNAME", "COMMENT",
                                                "HISTORY",  "LONGSTRN", "CONTINUE", ""};
    if (fixed.count(name))
        return true;
    for (const char* prefix : {"NAXIS", "TTYPE", "TFORM", "TUNIT", "TNULL", "TSCAL", "TZERO",
                               "TDIM", "TDISP"})
        if (name.rfind(prefix, 0) == 0)
            return true;
    return false;
}

} // namespace

LoadedResult readResultFits(const std::string& path) {
    int status = 0;
    fitsfile* raw = nullptr;
    // The disk-file form: a name with brackets is a file name, not cfitsio's selection syntax.
    fits_open_diskfile(&raw, path.c_str(), READONLY, &status);
    FitsPtr file(raw);
    if (status != 0)
        throw InputError(path, 0, 0, "cannot open as FITS: " + fitsStatusText(status));
    int hdus = 0;
    fits_get_num_hdus(file.get(), &hdus, &status);
    char extname[] = "WTHETA";
    fits_movnam_hdu(file.get(), BINARY_TBL, extname, 0, &status);
    if (status != 0) {
        // Not written by this tool's writer, or renamed: the first binary table will do.
        status = 0;
        fits_clear_errmsg();
        bool found = false;
        for (int hdu = 2; hdu <= hdus && !found; ++hdu) {
            int type = 0;
            fits_movabs_hdu(file.get(), hdu, &type, &status);
            found = status == 0 && type == BINARY_TBL;
        }
        if (!found)
            throw InputError(path, 0, 0,
                             "no binary table in the FITS file: not a result table of this tool");
    }
    int hdu = 0;
    fits_get_hdu_num(file.get(), &hdu);
    TextTable table;
    {
        char name[FLEN_VALUE] = {};
        int keyStatus = 0;
        table.hduPlace = "HDU " + std::to_string(hdu);
        if (fits_read_key(file.get(), TSTRING, "EXTNAME", name, nullptr, &keyStatus) == 0)
            table.hduPlace += " (" + std::string(name) + ")";
        fits_clear_errmsg();
    }
    const auto fail = [&](const std::string& where) {
        throw InputError(path, 0, 0, table.hduPlace + where + ": " + fitsStatusText(status));
    };
    int columns = 0;
    LONGLONG rows = 0;
    fits_get_num_cols(file.get(), &columns, &status);
    fits_get_num_rowsll(file.get(), &rows, &status);
    if (status != 0)
        fail("");
    for (int c = 1; c <= columns; ++c) {
        char key[FLEN_KEYWORD] = {}, name[FLEN_VALUE] = {}, unit[FLEN_VALUE] = {};
        fits_make_keyn("TTYPE", c, key, &status);
        fits_read_key(file.get(), TSTRING, key, name, nullptr, &status);
        if (status != 0)
            fail(", column " + std::to_string(c) + " (TTYPE)");
        const std::string columnName = name;
        int unitStatus = 0;
        fits_make_keyn("TUNIT", c, key, &unitStatus);
        if (fits_read_key(file.get(), TSTRING, key, unit, nullptr, &unitStatus) == 0)
            table.units[columnName] = unit;
        fits_clear_errmsg();
        int type = 0;
        long repeat = 0, width = 0;
        fits_get_coltype(file.get(), c, &type, &repeat, &width, &status);
        if (status != 0)
            fail(", column " + columnName);
        if (type == TSTRING || type == TLOGICAL || type == TBIT || repeat != 1)
            throw InputError(path, 0, 0,
                             table.hduPlace + ", column " + columnName +
                                 ": not a numeric scalar column, as a result table's are");
        std::vector<double> values(static_cast<std::size_t>(rows));
        int anyNull = 0;
        double nullValue = std::numeric_limits<double>::quiet_NaN();
        if (rows > 0)
            fits_read_col(file.get(), TDOUBLE, c, 1, 1, rows, &nullValue, values.data(),
                          &anyNull, &status);
        if (status != 0)
            fail(", column " + columnName);
        table.names.push_back(columnName);
        table.columns.push_back(std::move(values));
    }
    int keys = 0;
    fits_get_hdrspace(file.get(), &keys, nullptr, &status);
    for (int i = 1; i <= keys && status == 0; ++i) {
        char name[FLEN_KEYWORD] = {}, value[FLEN_VALUE] = {}, comment[FLEN_COMMENT] = {};
        fits_read_keyn(file.get(), i, name, value, comment, &status);
        const std::string keyword = name;
        if (status != 0)
            break;
        if (keyword == "COMMENT") {
            table.metadata.emplace_back("conventions", comment);
            continue;
        }
        if (structuralKeyword(keyword))
            continue;
        // Long values continue over CONTINUE cards: read whole.
        char* text = nullptr;
        char longComment[FLEN_COMMENT] = {};
        int valueStatus = 0;
        std::string whole;
        if (fits_read_key_longstr(file.get(), name, &text, longComment, &valueStatus) == 0 && text)
            whole = text;
        else
            whole = value;
        if (text)
            fits_free_memory(text, &valueStatus);
        fits_clear_errmsg();
        const std::string original = comment;
        table.metadata.emplace_back(original.empty() ? keyword : original, whole);
    }
    if (status != 0)
        fail(" header");
    return resultFromTable(path, "fits", std::move(table));
}

} // namespace tpacf::io
