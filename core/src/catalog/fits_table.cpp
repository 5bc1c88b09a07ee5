// SPDX-License-Identifier: GPL-3.0-or-later
// Opening a FITS binary table through cfitsio (fits_table.h). Compiled only where cfitsio was
// found.
#include "catalog/fits_table.h"

#include "catalog/fits_gzip.h"

#include "tpacf/catalog_reader.h"
#include "tpacf/errors.h"
#include "tpacf/units.h"

#include <fitsio.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace tpacf::detail {

namespace {

using io::FitsPtr;

// The compression a file's first bytes announce, if any ("gzip", "Unix compress", ...).
std::optional<std::string> compressionOf(const std::array<unsigned char, 4>& magic,
                                         std::size_t length) {
    if (length >= 2 && magic[0] == 0x1F && magic[1] == 0x8B)
        return "gzip";
    if (length >= 2 && magic[0] == 0x1F &&
        (magic[1] == 0x9D || magic[1] == 0x1E || magic[1] == 0xA0))
        return "Unix compress, pack or LZH";
    if (length >= 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4)
        return "zip";
    if (length >= 3 && magic[0] == 'B' && magic[1] == 'Z' && magic[2] == 'h')
        return "bzip2";
    return std::nullopt;
}

// Bytes from `offset` on that are not zero, scanning at most `limit` bytes: the padding after
// a table's data, and whatever follows the last HDU, hold zeros in a well-formed file.
bool nonZeroBytesFrom(int fd, std::uint64_t offset, std::uint64_t end, std::uint64_t limit) {
    std::vector<char> buffer(std::size_t(1) << 16);
    end = std::min(end, offset + limit);
    while (offset < end) {
        const auto want =
            static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - offset));
        const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset));
        if (got <= 0)
            return false;
        if (std::any_of(buffer.begin(), buffer.begin() + got, [](char c) { return c != 0; }))
            return true;
        offset += static_cast<std::uint64_t>(got);
    }
    return false;
}

std::string hduKind(int type) {
    switch (type) {
    case IMAGE_HDU:
        return "an image";
    case ASCII_TBL:
        return "an ASCII table";
    case BINARY_TBL:
        return "a binary table";
    default:
        return "of unknown type";
    }
}

// "HDU 1 (CATALOG)", or "the primary HDU": numbered as extensions, as d.fits[1] and --hdu are.
std::string hduLabel(int absolute, const std::string& name) {
    if (absolute == 1)
        return "the primary HDU";
    std::string label = "HDU " + std::to_string(absolute - 1);
    if (!name.empty())
        label += " (" + shortText(name) + ")";
    return label;
}

// The EXTNAME of the current HDU, "" where it has none.
std::string extensionName(fitsfile* file) {
    char value[FLEN_VALUE] = {};
    int status = 0;
    if (fits_read_key(file, TSTRING, "EXTNAME", value, nullptr, &status)) {
        fits_clear_errmsg();
        return {};
    }
    return value;
}

// Every extension as a line for listings: "1: CATALOG (5000 rows, 4 columns)", "2: (image)".
// Reads headers only; stops at the first HDU cfitsio cannot read, and after kMaxListed.
std::vector<std::string> listExtensions(fitsfile* file, int hduCount) {
    constexpr int kMaxListed = 64;
    std::vector<std::string> lines;
    for (int hdu = 2; hdu <= hduCount && hdu <= kMaxListed + 1; ++hdu) {
        int type = 0, status = 0;
        if (fits_movabs_hdu(file, hdu, &type, &status))
            break;
        const std::string name = extensionName(file);
        std::string line =
            std::to_string(hdu - 1) + ": " + (name.empty() ? "(unnamed)" : shortText(name));
        long long rows = 0;
        int columns = 0;
        if (type == IMAGE_HDU)
            line += " (image)";
        else if (fits_get_num_rowsll(file, &rows, &status) == 0 &&
                 fits_get_num_cols(file, &columns, &status) == 0)
            line += std::string(" (") + (type == ASCII_TBL ? "ASCII table, " : "") +
                    std::to_string(rows) + (rows == 1 ? " row, " : " rows, ") +
                    std::to_string(columns) + (columns == 1 ? " column)" : " columns)");
        fits_clear_errmsg();
        lines.push_back(std::move(line));
    }
    if (hduCount - 1 > kMaxListed)
        lines.push_back("... (" + std::to_string(hduCount - 1) + " extensions)");
    return lines;
}

std::string joinLines(const std::vector<std::string>& lines) {
    std::string joined;
    for (std::size_t i = 0; i < lines.size() && i < 10; ++i)
        joined += (i == 0 ? "" : "; ") + lines[i];
    if (lines.size() > 10)
        joined += "; ...";
    return joined.empty() ? "none" : joined;
}

// The parts of a selection after the file name, as cfitsio parses them.
struct SelectionParts {
    std::string hdu, rowFilter, columnSpec;
};

SelectionParts parseSelection(const std::string& path, const std::string& selection) {
    SelectionParts parts;
    if (selection.empty())
        return parts;
    refuseFileReadingSelection(path, selection);
    // cfitsio writes each part into a caller's buffer: each is at most the whole URL.
    std::string url = "catalog.fits" + selection;
    const std::size_t room = url.size() + FLEN_FILENAME;
    std::vector<char> type(room), infile(room), outfile(room), ext(room), rows(room), bin(room),
        cols(room), pixels(room);
    int status = 0;
    fits_clear_errmsg();
    if (fits_parse_input_filename(url.data(), type.data(), infile.data(), outfile.data(),
                                  ext.data(), rows.data(), bin.data(), cols.data(), pixels.data(),
                                  &status))
        throw InputError(path, 0, 0,
                         "cannot parse the selection " + quoteField(selection) + ": " +
                             io::fitsStatusText(status));
    if (bin[0] != '\0' || pixels[0] != '\0')
        throw InputError(path, 0, 0,
                         "the selection " + quoteField(selection) +
                             " makes an image (binning or a pixel filter); a catalog takes an HDU "
                             "([CATALOG], [1]), a row filter ([Z>0.5]) and a column list "
                             "([col RA;DEC;W=WEIGHT*WFKP])");
    parts.hdu = ext.data();
    parts.rowFilter = rows.data();
    parts.columnSpec = cols.data();
    return parts;
}

// cfitsio's account of a failed filter: the part that failed and the first reason it gives,
// without routine names ("ffgcnn could not find column: QQ" → "could not find column: QQ").
std::string filterFailure(int status, const SelectionParts& parts) {
    std::vector<std::string> messages;
    char text[FLEN_ERRMSG] = {};
    while (fits_read_errmsg(text))
        messages.emplace_back(text);
    fits_clear_errmsg();
    std::string part;
    for (const std::string& message : messages)
        if (message.find("selection of rows") != std::string::npos && !parts.rowFilter.empty())
            part = "the row filter [" + shortText(parts.rowFilter, 80) + "]";
        else if (message.find("editing columns") != std::string::npos && !parts.columnSpec.empty())
            part = "the column list [" + shortText(parts.columnSpec, 80) + "]";
    if (part.empty())
        part = "the selection";
    std::string reason;
    if (!messages.empty()) {
        reason = messages.front();
        if (reason.size() > 3 && reason.starts_with("ff"))
            if (const auto space = reason.find(' ');
                space != std::string::npos &&
                std::all_of(reason.begin(), reason.begin() + static_cast<long>(space),
                            [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
                reason.erase(0, space + 1);
        reason = shortText(reason, FLEN_ERRMSG);
    } else {
        char generic[FLEN_STATUS] = {};
        fits_get_errstatus(status, generic);
        reason = generic;
    }
    return part + " failed: " + reason + " (cfitsio status " + std::to_string(status) + ")";
}

// Moves to the HDU `spec` names (cfitsio's extension syntax: "1", "CATALOG", "CATALOG,2");
// the error lists the extensions there are.
void moveToNamedHdu(fitsfile* raw, const std::string& path, const std::string& spec,
                    const std::string& from, int hduCount) {
    const std::size_t room = spec.size() + FLEN_FILENAME;
    std::string text = spec;
    std::vector<char> name(room), column(room), expression(room);
    int number = 0, version = 0, type = ANY_HDU, status = 0;
    fits_clear_errmsg();
    auto listing = [&] { return "; extensions: " + joinLines(listExtensions(raw, hduCount)); };
    if (spec.find_first_not_of(" \t") == std::string::npos ||
        ffexts(text.data(), &number, name.data(), &version, &type, column.data(), expression.data(),
               &status) ||
        column[0] != '\0')
        throw InputError(path, 0, 0,
                         quoteField(spec) + from +
                             " names no HDU: give an extension number (1 is the first) or an "
                             "EXTNAME" +
                             listing());
    fits_clear_errmsg();
    if (name[0] == '\0') {
        int hduType = 0;
        if (fits_movabs_hdu(raw, number + 1, &hduType, &status)) {
            // Past the end, or an HDU before it that cfitsio cannot read: say which.
            const std::string why =
                status == END_OF_FILE ? std::string() : ": " + io::fitsStatusText(status);
            throw InputError(path, 0, 0,
                             "there is no HDU " + std::to_string(number) + from + why + listing());
        }
        return;
    }
    if (fits_movnam_hdu(raw, type, name.data(), version, &status))
        throw InputError(path, 0, 0,
                         "there is no HDU named " + quoteField(name.data()) +
                             (version > 0 ? " with EXTVER " + std::to_string(version) : "") + from +
                             listing());
}

} // namespace

namespace {

// The file's first bytes: gzip (returned), another compression (refused), or no FITS where a
// selection asks for one.
std::optional<std::string> checkHead(const std::string& path, const CatalogPath& split, int fd) {
    std::array<unsigned char, 8> magic{};
    const ssize_t magicLength = ::pread(fd, magic.data(), magic.size(), 0);
    const std::size_t headLength = magicLength > 0 ? static_cast<std::size_t>(magicLength) : 0;
    const auto compression = compressionOf({magic[0], magic[1], magic[2], magic[3]},
                                           std::min<std::size_t>(headLength, 4));
    if (compression && *compression != "gzip")
        throw InputError(
            path, 0, 0,
            "the file is compressed (" + *compression +
                "); decompress it first (FITS tables are read plain or gzip-compressed)");
    if (!compression && !split.selection.empty() &&
        std::string_view(reinterpret_cast<const char*>(magic.data()), headLength) != "SIMPLE  ")
        throw InputError(path, 0, 0,
                         "the file is no FITS file (it does not start with SIMPLE =); a selection "
                         "such as " +
                             quoteField(split.selection) + " applies to FITS tables only");
    return compression;
}

// What cfitsio opens, and a descriptor on the same bytes for the checks of the table's size.
struct FitsSource {
    TemporaryCopy copy; // the decompressed file of a gzip one
    std::string fitsPath;
    std::uint64_t size = 0;
    FileDescriptor copyFd;
    int bytesFd = -1;
};

void prepareSource(FitsSource& source, const std::string& path, const std::string& file,
                   const OpenedFile& opened, bool gzip, const ReadOptions& options) {
    source.fitsPath = file;
    source.size = opened.size;
    source.bytesFd = opened.fd.get();
    if (gzip) {
        decompressToTemporary(path, opened.fd.get(), options, source.copy);
        source.fitsPath = source.copy.file;
        source.size = source.copy.size;
        source.copyFd = FileDescriptor(::open(source.copy.file.c_str(), O_RDONLY | O_CLOEXEC));
        source.bytesFd = source.copyFd.get();
        return;
    }
#ifdef __linux__
    // The very file checked above, even if the name now points elsewhere (say, a FIFO).
    const std::string self = "/proc/self/fd/" + std::to_string(opened.fd.get());
    if (::access(self.c_str(), R_OK) == 0)
        source.fitsPath = self;
#endif
}

// Why no binary table was found: fits_get_num_hdus stops quietly at an HDU it cannot read, such
// as a table whose header is wrong; say so, or that bytes follow which are no HDU at all (a
// header before them may give a wrong data size). "" when neither.
std::string whyNoTable(fitsfile* raw, int hduCount, const FitsSource& source) {
    fits_clear_errmsg();
    int fitsStatus = 0;
    LONGLONG headStart = 0, dataStart = 0, dataEnd = 0;
    int type = 0, nextStatus = 0;
    std::string trailing;
    if (fits_movabs_hdu(raw, hduCount + 1, &type, &nextStatus) && nextStatus != END_OF_FILE)
        trailing = "; " + hduLabel(hduCount + 1, {}) +
                   " cannot be read: " + io::fitsStatusText(nextStatus);
    else if (fits_movabs_hdu(raw, hduCount, &type, &fitsStatus) == 0 &&
             fits_get_hduaddrll(raw, &headStart, &dataStart, &dataEnd, &fitsStatus) == 0) {
        const auto end = static_cast<std::uint64_t>(dataEnd);
        const auto start = static_cast<std::uint64_t>(dataStart);
        // The last HDU's data run past the file (by more than the final padding).
        if (start < end && end > source.size + 2879)
            trailing = "; " + hduLabel(hduCount, {}) + ": its header gives " +
                       std::to_string(end - start) + " bytes of data, but the file ends " +
                       std::to_string(source.size > start ? source.size - start : 0) +
                       " bytes after it: cut short, or a header gives a wrong size";
        else if (end < source.size && source.bytesFd >= 0 &&
                 nonZeroBytesFrom(source.bytesFd, end, source.size, std::uint64_t(16) << 20))
            trailing = "; " + std::to_string(source.size - end) + " bytes after " +
                       hduLabel(hduCount, {}) +
                       " are not an HDU: a header may give a wrong data size";
    }
    return trailing;
}

// Moves to the binary table the selection, the options or (by default) the first one names;
// table.hdu gets its number.
void findTable(FitsTable& table, fitsfile* raw, const std::string& path,
               const SelectionParts& selection, const ReadOptions& options, int hduCount,
               const FitsSource& source) {
    int fitsStatus = 0;
    const std::string hduSpec = !selection.hdu.empty() ? selection.hdu : options.hdu;
    if (!hduSpec.empty()) {
        // The path shows an HDU it names; one from the read options is said to be one.
        moveToNamedHdu(raw, path, hduSpec,
                       selection.hdu.empty() ? std::string(" (the HDU option)") : std::string(),
                       hduCount);
        int type = 0;
        fits_get_hdu_num(raw, &table.hdu);
        fits_get_hdu_type(raw, &type, &fitsStatus);
        if (type != BINARY_TBL) {
            const std::string label = hduLabel(table.hdu, extensionName(raw));
            throw InputError(path, 0, 0,
                             label + " is " + hduKind(type) + ", not a binary table; extensions: " +
                                 joinLines(listExtensions(raw, hduCount)));
        }
    }
    std::string kinds;
    for (int hdu = 1; hdu <= hduCount && table.hdu == 0; ++hdu) {
        int type = 0;
        if (fits_movabs_hdu(raw, hdu, &type, &fitsStatus))
            throw InputError(path, 0, 0,
                             "cannot read " + hduLabel(hdu, {}) + ": " +
                                 io::fitsStatusText(fitsStatus));
        if (type == BINARY_TBL)
            table.hdu = hdu;
        else if (hdu <= 5) {
            int axes = 0, ignored = 0;
            const bool empty =
                type == IMAGE_HDU && fits_get_img_dim(raw, &axes, &ignored) == 0 && axes == 0;
            kinds += (kinds.empty() ? "" : "; ") + hduLabel(hdu, {}) + " is " +
                     (empty ? std::string("empty") : hduKind(type));
        }
    }
    if (table.hdu == 0)
        throw InputError(path, 0, 0,
                         "the FITS file holds no binary table (" + kinds +
                             (hduCount > 5 ? "; ..." : "") + whyNoTable(raw, hduCount, source) +
                             ")");
}

// The table's rows and columns; NAXIS2 (rows) checked against the file before anything is
// allocated for it: a lying header must not make us reserve terabytes, nor read rows that are
// not there. Returns the column count.
int checkTableSize(FitsTable& table, fitsfile* raw, const std::string& path, int hduCount,
                   const FitsSource& source) {
    int fitsStatus = 0;
    int columnCount = 0;
    if (fits_get_num_rowsll(raw, &table.rows, &fitsStatus) ||
        fits_get_num_cols(raw, &columnCount, &fitsStatus))
        throw InputError(path, 0, 0,
                         "cannot read the table size: " + io::fitsStatusText(fitsStatus));
    long long rowBytes = 0, heapBytes = 0;
    LONGLONG headStart = 0, dataStart = 0, dataEnd = 0;
    if (fits_read_key_lnglng(raw, "NAXIS1", &rowBytes, nullptr, &fitsStatus) ||
        fits_read_key_lnglng(raw, "PCOUNT", &heapBytes, nullptr, &fitsStatus) ||
        fits_get_hduaddrll(raw, &headStart, &dataStart, &dataEnd, &fitsStatus))
        throw InputError(path, 0, 0,
                         "cannot read the table size: " + io::fitsStatusText(fitsStatus));
    table.hduLabel = hduLabel(table.hdu, extensionName(raw));
    table.rowsInFile = table.rows;
    const std::string tableName = "the binary table in " + table.hduLabel;
    if (table.rows < 0 || rowBytes < 0 || heapBytes < 0 || (table.rows > 0 && rowBytes == 0))
        throw InputError(path, 0, 0,
                         tableName +
                             " has an impossible size (NAXIS1 = " + std::to_string(rowBytes) +
                             ", NAXIS2 = " + std::to_string(table.rows) + ")");
    const auto start = static_cast<std::uint64_t>(dataStart);
    const std::uint64_t room = source.size > start ? source.size - start : 0;
    const auto rows = static_cast<std::uint64_t>(table.rows);
    const auto width = static_cast<std::uint64_t>(rowBytes);
    const auto heap = static_cast<std::uint64_t>(heapBytes);
    if (heap > room || (rows > 0 && rows > (room - heap) / width))
        throw InputError(path, 0, 0,
                         tableName + ": its header says " + std::to_string(table.rows) +
                             " rows of " + std::to_string(rowBytes) + " bytes, but the file has " +
                             std::to_string(room) +
                             " bytes after the header; the file is cut short or NAXIS2 is wrong");
    // Rows beyond NAXIS2 would sit in the padding, or after the last HDU: both must be zeros.
    const std::uint64_t usedEnd = start + rows * width + heap;
    const std::uint64_t paddedEnd = static_cast<std::uint64_t>(dataEnd);
    const bool last = table.hdu == hduCount;
    if (source.bytesFd >= 0 &&
        nonZeroBytesFrom(source.bytesFd, usedEnd, last ? source.size : paddedEnd, std::uint64_t(16) << 20))
        throw InputError(path, 0, 0,
                         tableName + ": data follow its " + std::to_string(table.rows) +
                             " rows (NAXIS2) where only zero padding belongs; NAXIS2 or NAXIS1 "
                             "is wrong, or the file is damaged");

    return columnCount;
}

// The checked table through cfitsio's filters: the column list, then the row filter (cfitsio's
// order, whatever the order written), into a copy in memory of the rows kept. Returns the
// filtered table's column count (columnCount where there is no selection).
int applySelection(FitsTable& table, const std::string& path, const std::string& fitsPath,
                   const SelectionParts& selection, int columnCount) {
    table.rowFilter = selection.rowFilter;
    table.columnSpec = selection.columnSpec;
    if (table.rowFilter.empty() && table.columnSpec.empty())
        return columnCount;
    std::string url = fitsPath + "[" + std::to_string(table.hdu - 1) + "]";
    if (!table.columnSpec.empty())
        url += "[" + table.columnSpec + "]";
    if (!table.rowFilter.empty())
        url += "[" + table.rowFilter + "]";
    fitsfile* filtered = nullptr;
    int status = 0;
    fits_clear_errmsg();
    if (fits_open_file(&filtered, url.c_str(), READONLY, &status)) {
        if (filtered) {
            int ignored = 0;
            fits_close_file(filtered, &ignored);
        }
        throw InputError(path, 0, 0, table.hduLabel + ": " + filterFailure(status, selection));
    }
    table.file.reset(filtered);
    int fitsStatus = 0;
    if (fits_get_num_rowsll(filtered, &table.rows, &fitsStatus) ||
        fits_get_num_cols(filtered, &columnCount, &fitsStatus))
        throw InputError(path, 0, 0,
                         "cannot read the filtered table's size: " +
                             io::fitsStatusText(fitsStatus));
    return columnCount;
}

void readColumns(FitsTable& table, fitsfile* raw, const std::string& path, int columnCount) {
    int fitsStatus = 0;
    for (int col = 1; col <= columnCount; ++col) {
        FitsColumn column;
        char keyName[FLEN_KEYWORD] = {};
        char value[FLEN_VALUE] = {};
        fits_make_keyn("TTYPE", col, keyName, &fitsStatus);
        if (fits_read_key(raw, TSTRING, keyName, value, nullptr, &fitsStatus) == KEY_NO_EXIST) {
            fitsStatus = 0; // an unnamed column is legal; it is chosen by index
            fits_clear_errmsg();
        }
        column.name = value;
        long long width = 0;
        if (fits_get_coltypell(raw, col, &column.typecode, &column.repeat, &width, &fitsStatus))
            throw InputError(path, 0, col,
                             "cannot read the column's type: " + io::fitsStatusText(fitsStatus));
        table.columns.push_back(std::move(column));
    }
}

} // namespace

FitsTable openTable(const std::string& path, const ReadOptions& options, bool wantListing) {
    const CatalogPath split = splitCatalogPath(path);
    const SelectionParts selection = parseSelection(path, split.selection);
    // Every check on the file is on the file part: "d.fits[1]" is d.fits.
    OpenedFile opened = openRegularFile(split.file);
    const std::optional<std::string> compression = checkHead(path, split, opened.fd.get());
    FitsSource source;
    prepareSource(source, path, split.file, opened, compression.has_value(), options);

    FitsTable table;
    table.nameHolder = std::move(opened.fd); // still opened.fd's number: bytesFd stays valid
    int fitsStatus = 0;
    fitsfile* raw = nullptr;
    fits_clear_errmsg(); // what earlier reads left there is not about this file
    // First the plain file (the disk-file form takes the path literally): the HDU is found and
    // its size checked before cfitsio filters anything, which would read what NAXIS2 claims.
    if (fits_open_diskfile(&raw, source.fitsPath.c_str(), READONLY, &fitsStatus)) {
        if (raw) {
            int ignored = 0;
            fits_close_file(raw, &ignored);
        }
        throw InputError(path, 0, 0, "cannot open as FITS: " + io::fitsStatusText(fitsStatus));
    }
    table.file.reset(raw);

    int hduCount = 0;
    if (fits_get_num_hdus(raw, &hduCount, &fitsStatus))
        throw InputError(path, 0, 0,
                         "cannot read the FITS structure: " + io::fitsStatusText(fitsStatus));
    findTable(table, raw, path, selection, options, hduCount, source);
    int columnCount = checkTableSize(table, raw, path, hduCount, source);
    if (wantListing) {
        table.hdus = listExtensions(raw, hduCount);
        int type = 0;
        if (fits_movabs_hdu(raw, table.hdu, &type, &fitsStatus))
            throw InputError(path, 0, 0,
                             "cannot read " + table.hduLabel + ": " +
                                 io::fitsStatusText(fitsStatus));
    }
    columnCount = applySelection(table, path, source.fitsPath, selection, columnCount);
    readColumns(table, table.file.get(), path, columnCount);
    return table;
}

} // namespace tpacf::detail

namespace tpacf {

std::string fitsLibraryVersion() {
    // The library's own number (the one linked at run time); its minor part in hundredths.
    float version = 0;
    fits_get_version(&version);
    const int hundredths = static_cast<int>(std::lround(static_cast<double>(version) * 100));
    char text[32];
    std::snprintf(text, sizeof text, "cfitsio %d.%d", hundredths / 100, hundredths % 100);
    return text;
}

} // namespace tpacf
