// FITS binary tables through cfitsio. Compiled only where cfitsio was found.
#include "catalog/fits_reader.h"

#include "tpacf/errors.h"

#include <fitsio.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace tpacf::detail {

namespace {

// Rows read from a column at a time: the cancel token is polled between chunks.
constexpr long long kRowChunk = 1 << 16;

// cfitsio's own account of the last failure: the oldest message on its error stack, which
// names the problem ("NAXIS1 = 32 is not equal to the sum of column widths: 16"), else the
// generic text of the status. Empties the stack, so that the next failure starts afresh.
std::string fitsMessage(int status) {
    char text[FLEN_ERRMSG] = {};
    std::string detail;
    if (fits_read_errmsg(text))
        detail = shortText(text, FLEN_ERRMSG);
    fits_clear_errmsg();
    if (detail.empty()) {
        char generic[FLEN_STATUS] = {};
        fits_get_errstatus(status, generic);
        detail = generic;
    }
    return detail + " (cfitsio status " + std::to_string(status) + ")";
}

struct FitsCloser {
    void operator()(fitsfile* file) const noexcept {
        int status = 0;
        fits_close_file(file, &status);
    }
};
using FitsPtr = std::unique_ptr<fitsfile, FitsCloser>;

bool equalsIgnoringCase(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

struct FitsColumn {
    std::string name;
    int typecode = 0;
    long long repeat = 0;
    bool numericScalar() const noexcept {
        return repeat == 1 && typecode != TSTRING && typecode != TLOGICAL && typecode != TBIT &&
               typecode > 0 && typecode != TCOMPLEX && typecode != TDBLCOMPLEX;
    }
};

// An open binary table: the file positioned at the first BINTABLE HDU, with its columns.
struct FitsTable {
    FitsPtr file;
    int hdu = 0;
    long long rows = 0;
    std::vector<FitsColumn> columns;
};

// A decompressed copy of a .fits.gz in a private temporary directory; both go with the object.
struct TemporaryCopy {
    std::string dir, file;
    std::uint64_t size = 0;

    TemporaryCopy() = default;
    TemporaryCopy(const TemporaryCopy&) = delete;
    TemporaryCopy& operator=(const TemporaryCopy&) = delete;
    ~TemporaryCopy() {
        if (!file.empty())
            ::unlink(file.c_str());
        if (!dir.empty())
            ::rmdir(dir.c_str());
    }
};

struct GzCloser {
    void operator()(gzFile_s* file) const noexcept { gzclose(file); }
};

// Decompresses the gzip file behind `fd` to disk, in chunks between which a cancel request is
// honoured. cfitsio would decompress it into memory, all of it, however few of its bytes the
// table uses: a .fits.gz that expands to 1 GiB would take 1 GiB of memory.
void decompressToTemporary(const std::string& path, int fd, const ReadOptions& options,
                           TemporaryCopy& copy) {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    std::string pattern = (ec ? std::filesystem::path("/tmp") : base) / "tpacf-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        throw InputError(path, 0, 0,
                         "cannot make a temporary folder to decompress into (" + pattern +
                             "): " + std::strerror(errno) + "; set TMPDIR to a writable folder");
    copy.dir = pattern;
    copy.file = copy.dir + "/catalog.fits";
    const FileDescriptor out(
        ::open(copy.file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (out.get() < 0)
        throw InputError(path, 0, 0,
                         "cannot create a temporary file to decompress into (" + copy.file +
                             "): " + std::strerror(errno));
    const int input = ::dup(fd); // gzclose closes what it was given
    std::unique_ptr<gzFile_s, GzCloser> gz(input >= 0 ? gzdopen(input, "rb") : nullptr);
    if (!gz) {
        if (input >= 0)
            ::close(input);
        throw InputError(path, 0, 0, "cannot read the gzip data: out of memory or descriptors");
    }
    gzbuffer(gz.get(), 1 << 17);
    std::vector<char> buffer(std::size_t(1) << 20);
    auto gzipProblem = [&]() -> std::optional<std::string> {
        int code = Z_OK;
        const char* message = gzerror(gz.get(), &code);
        if (code == Z_OK || code == Z_STREAM_END)
            return std::nullopt;
        std::string text = message ? message : "unknown zlib error";
        // zlib names the descriptor ("<fd:5>: unexpected end of file"), which says nothing here.
        if (text.starts_with("<fd:"))
            if (const auto colon = text.find(": "); colon != std::string::npos)
                text.erase(0, colon + 2);
        return text;
    };
    while (true) {
        throwIfCancelled(options);
        const int got = gzread(gz.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
        if (got <= 0) {
            // 0 is the end, or a truncated stream that gzerror reports.
            if (const auto problem = gzipProblem())
                throw InputError(path, 0, 0,
                                 "the gzip data is damaged or cut short after " +
                                     std::to_string(copy.size) + " bytes (zlib: " + *problem + ")");
            break;
        }
        for (std::size_t done = 0; done < static_cast<std::size_t>(got);) {
            const ssize_t wrote =
                ::write(out.get(), buffer.data() + done, static_cast<std::size_t>(got) - done);
            if (wrote < 0 && errno == EINTR)
                continue;
            if (wrote <= 0)
                throw InputError(path, 0, 0,
                                 "cannot decompress into " + copy.dir + ": " +
                                     std::strerror(errno) +
                                     " (set TMPDIR to a folder with room for the table)");
            done += static_cast<std::size_t>(wrote);
        }
        copy.size += static_cast<std::uint64_t>(got);
    }
}

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

FitsTable openFirstBinaryTable(const std::string& path, const ReadOptions& options) {
    const OpenedFile opened = openRegularFile(path);
    std::array<unsigned char, 4> magic{};
    const ssize_t magicLength = ::pread(opened.fd.get(), magic.data(), magic.size(), 0);
    const auto compression =
        compressionOf(magic, magicLength > 0 ? static_cast<std::size_t>(magicLength) : 0);
    if (compression && *compression != "gzip")
        throw InputError(
            path, 0, 0,
            "the file is compressed (" + *compression +
                "); decompress it first (FITS tables are read plain or gzip-compressed)");

    // What cfitsio opens, and a descriptor on the same bytes for the checks below.
    TemporaryCopy copy;
    std::string fitsPath = path;
    std::uint64_t fileSize = opened.size;
    FileDescriptor copyFd;
    int bytesFd = opened.fd.get();
    if (compression) {
        decompressToTemporary(path, opened.fd.get(), options, copy);
        fitsPath = copy.file;
        fileSize = copy.size;
        copyFd = FileDescriptor(::open(copy.file.c_str(), O_RDONLY | O_CLOEXEC));
        bytesFd = copyFd.get();
    } else {
#ifdef __linux__
        // The very file checked above, even if the name now points elsewhere (say, a FIFO).
        const std::string self = "/proc/self/fd/" + std::to_string(opened.fd.get());
        if (::access(self.c_str(), R_OK) == 0)
            fitsPath = self;
#endif
    }

    FitsTable table;
    int fitsStatus = 0;
    fitsfile* raw = nullptr;
    fits_clear_errmsg(); // what earlier reads left there is not about this file
    // The disk-file form takes the path literally: no "[ext]" or "+n" filename syntax, so any
    // path a user picks opens as that file.
    if (fits_open_diskfile(&raw, fitsPath.c_str(), READONLY, &fitsStatus)) {
        if (raw) {
            int ignored = 0;
            fits_close_file(raw, &ignored);
        }
        throw InputError(path, 0, 0, "cannot open as FITS: " + fitsMessage(fitsStatus));
    }
    table.file.reset(raw);

    int hduCount = 0;
    if (fits_get_num_hdus(raw, &hduCount, &fitsStatus))
        throw InputError(path, 0, 0, "cannot read the FITS structure: " + fitsMessage(fitsStatus));
    std::string kinds;
    for (int hdu = 1; hdu <= hduCount && table.hdu == 0; ++hdu) {
        int type = 0;
        if (fits_movabs_hdu(raw, hdu, &type, &fitsStatus))
            throw InputError(path, 0, 0,
                             "cannot read HDU " + std::to_string(hdu) + ": " +
                                 fitsMessage(fitsStatus));
        if (type == BINARY_TBL)
            table.hdu = hdu;
        else if (hdu <= 5) {
            int axes = 0, ignored = 0;
            const bool empty =
                type == IMAGE_HDU && fits_get_img_dim(raw, &axes, &ignored) == 0 && axes == 0;
            kinds += (kinds.empty() ? "" : "; ") + ("HDU " + std::to_string(hdu) + " is ") +
                     (empty ? std::string("empty") : hduKind(type));
        }
    }
    if (table.hdu == 0) {
        // fits_get_num_hdus stops quietly at an HDU it cannot read, such as a table whose
        // header is wrong: say why, or that bytes follow which are no HDU at all (a header
        // before them may give a wrong data size).
        fits_clear_errmsg();
        LONGLONG headStart = 0, dataStart = 0, dataEnd = 0;
        int type = 0, nextStatus = 0;
        std::string trailing;
        if (fits_movabs_hdu(raw, hduCount + 1, &type, &nextStatus) && nextStatus != END_OF_FILE)
            trailing = "; HDU " + std::to_string(hduCount + 1) +
                       " cannot be read: " + fitsMessage(nextStatus);
        else if (fits_movabs_hdu(raw, hduCount, &type, &fitsStatus) == 0 &&
                 fits_get_hduaddrll(raw, &headStart, &dataStart, &dataEnd, &fitsStatus) == 0) {
            const auto end = static_cast<std::uint64_t>(dataEnd);
            const auto start = static_cast<std::uint64_t>(dataStart);
            // The last HDU's data run past the file (by more than the final padding).
            if (start < end && end > fileSize + 2879)
                trailing = "; HDU " + std::to_string(hduCount) + "'s header gives " +
                           std::to_string(end - start) + " bytes of data, but the file ends " +
                           std::to_string(fileSize > start ? fileSize - start : 0) +
                           " bytes after it: cut short, or a header gives a wrong size";
            else if (end < fileSize && bytesFd >= 0 &&
                     nonZeroBytesFrom(bytesFd, end, fileSize, std::uint64_t(16) << 20))
                trailing = "; " + std::to_string(fileSize - end) + " bytes after HDU " +
                           std::to_string(hduCount) +
                           " are not an HDU: a header may give a wrong data size";
        }
        throw InputError(path, 0, 0,
                         "the FITS file holds no binary table (" + kinds +
                             (hduCount > 5 ? "; ..." : "") + trailing + ")");
    }

    int columnCount = 0;
    if (fits_get_num_rowsll(raw, &table.rows, &fitsStatus) ||
        fits_get_num_cols(raw, &columnCount, &fitsStatus))
        throw InputError(path, 0, 0, "cannot read the table size: " + fitsMessage(fitsStatus));

    // A header's NAXIS2 (rows) is checked against the file before anything is allocated for
    // it: a lying header must not make us reserve terabytes, nor read rows that are not there.
    long long rowBytes = 0, heapBytes = 0;
    LONGLONG headStart = 0, dataStart = 0, dataEnd = 0;
    if (fits_read_key_lnglng(raw, "NAXIS1", &rowBytes, nullptr, &fitsStatus) ||
        fits_read_key_lnglng(raw, "PCOUNT", &heapBytes, nullptr, &fitsStatus) ||
        fits_get_hduaddrll(raw, &headStart, &dataStart, &dataEnd, &fitsStatus))
        throw InputError(path, 0, 0, "cannot read the table size: " + fitsMessage(fitsStatus));
    const std::string tableName = "the binary table in HDU " + std::to_string(table.hdu);
    if (table.rows < 0 || rowBytes < 0 || heapBytes < 0 || (table.rows > 0 && rowBytes == 0))
        throw InputError(path, 0, 0,
                         tableName +
                             " has an impossible size (NAXIS1 = " + std::to_string(rowBytes) +
                             ", NAXIS2 = " + std::to_string(table.rows) + ")");
    const auto start = static_cast<std::uint64_t>(dataStart);
    const std::uint64_t room = fileSize > start ? fileSize - start : 0;
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
    if (bytesFd >= 0 &&
        nonZeroBytesFrom(bytesFd, usedEnd, last ? fileSize : paddedEnd, std::uint64_t(16) << 20))
        throw InputError(path, 0, 0,
                         tableName + ": data follow its " + std::to_string(table.rows) +
                             " rows (NAXIS2) where only zero padding belongs; NAXIS2 or NAXIS1 "
                             "is wrong, or the file is damaged");

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
                             "cannot read the column's type: " + fitsMessage(fitsStatus));
        table.columns.push_back(std::move(column));
    }
    return table;
}

std::string columnLabel(const FitsTable& table, int col) {
    const std::string& name = table.columns[static_cast<std::size_t>(col - 1)].name;
    return name.empty() ? "column " + std::to_string(col) : "column " + quoteField(name);
}

std::string availableNames(const FitsTable& table) {
    std::vector<std::string> names;
    for (const FitsColumn& column : table.columns)
        if (!column.name.empty())
            names.push_back(column.name);
    return names.empty() ? "(no named columns)" : joinNames(names);
}

// 1-based column for an explicit reference, or for the default of `axis` (defaultColumnByName,
// else the first numeric scalar column not yet taken); 0 when neither is asked for.
int chooseColumn(const FitsTable& table, const std::string& path, const ColumnRef& ref,
                 std::optional<Axis> axis, const char* role, const std::vector<int>& taken) {
    const int count = static_cast<int>(table.columns.size());
    int col = 0;
    if (ref.index > 0) {
        if (ref.index > count)
            throw InputError(path, 0, ref.index,
                             std::string(role) + " is column " + std::to_string(ref.index) +
                                 ", but the table has only " + std::to_string(count) + " columns");
        col = ref.index;
    } else if (!ref.name.empty()) {
        for (int i = 1; i <= count && col == 0; ++i)
            if (equalsIgnoringCase(table.columns[static_cast<std::size_t>(i - 1)].name, ref.name))
                col = i;
        if (col == 0)
            throw InputError(path, 0, 0,
                             "no column named " + quoteField(ref.name) + " (for " + role +
                                 ") in the table; available: " + availableNames(table));
    } else if (axis) {
        auto free = [&taken](int i) {
            return std::find(taken.begin(), taken.end(), i) == taken.end();
        };
        std::vector<std::string> names;
        for (const FitsColumn& column : table.columns)
            names.push_back(column.name);
        if (const auto named = defaultColumnByName(
                names, *axis, [&](std::size_t i) { return free(static_cast<int>(i) + 1); }, path,
                0))
            col = static_cast<int>(*named) + 1;
        for (int i = 1; i <= count && col == 0; ++i)
            if (free(i) && table.columns[static_cast<std::size_t>(i - 1)].numericScalar())
                col = i;
        if (col == 0)
            throw InputError(path, 0, 0,
                             std::string("no numeric column left for ") + role +
                                 "; columns: " + availableNames(table));
    }
    if (col > 0 && !table.columns[static_cast<std::size_t>(col - 1)].numericScalar())
        throw InputError(path, 0, col,
                         columnLabel(table, col) + " (for " + role +
                             ") does not hold one number per row");
    return col;
}

// The column as doubles, read in chunks of rows between which a cancel request is honoured;
// memory is the rows used, whatever else the table holds.
std::vector<double> readColumn(const FitsTable& table, const std::string& path, int col,
                               const char* role, const ReadOptions& options) {
    std::vector<double> values(static_cast<std::size_t>(table.rows));
    std::vector<char> isNull(static_cast<std::size_t>(std::min(table.rows, kRowChunk)));
    for (long long first = 0; first < table.rows; first += kRowChunk) {
        throwIfCancelled(options);
        const long long count = std::min(kRowChunk, table.rows - first);
        double* const chunk = values.data() + first;
        int anyNull = 0, status = 0;
        if (fits_read_colnull(table.file.get(), TDOUBLE, col, first + 1, 1, count, chunk,
                              isNull.data(), &anyNull, &status))
            throw InputError(path, 0, col,
                             "cannot read " + columnLabel(table, col) + " (" + role +
                                 "): " + fitsMessage(status));
        for (long long i = 0; i < count; ++i)
            if (isNull[static_cast<std::size_t>(i)] || !std::isfinite(chunk[i])) {
                const long row = static_cast<long>(first + i + 1);
                throw InputError(path, row, col,
                                 "row " + std::to_string(row) + ", " + columnLabel(table, col) +
                                     ": " + role + " value " +
                                     (isNull[static_cast<std::size_t>(i)]
                                          ? std::string("is undefined (null)")
                                          : formatNumber(chunk[i]) + " is not finite"));
            }
    }
    return values;
}

} // namespace

Catalog readFitsCatalog(const std::string& path, const ReadOptions& options) {
    FitsTable table = openFirstBinaryTable(path, options);
    std::vector<int> taken;
    const int raCol = chooseColumn(table, path, options.raColumn, Axis::Ra, "RA", taken);
    taken.push_back(raCol);
    const int decCol = chooseColumn(table, path, options.decColumn, Axis::Dec, "Dec", taken);
    taken.push_back(decCol);
    const int weightCol =
        options.weightColumn.isSet()
            ? chooseColumn(table, path, options.weightColumn, std::nullopt, "the weight", taken)
            : 0;
    const int regionCol = options.regionColumn.isSet()
                              ? chooseColumn(table, path, options.regionColumn, std::nullopt,
                                             "the jackknife region", taken)
                              : 0;
    if (table.rows <= 0)
        throw InputError(path, 0, 0,
                         "the binary table in HDU " + std::to_string(table.hdu) + " has no rows");

    std::vector<double> ra = readColumn(table, path, raCol, "RA", options);
    std::vector<double> dec = readColumn(table, path, decCol, "Dec", options);
    std::vector<double> weight;
    if (weightCol > 0)
        weight = readColumn(table, path, weightCol, "weight", options);
    std::vector<std::int32_t> region;
    if (regionCol > 0) {
        const std::vector<double> labels = readColumn(table, path, regionCol, "region", options);
        region.reserve(labels.size());
        for (std::size_t i = 0; i < labels.size(); ++i)
            region.push_back(regionLabel(labels[i], path, static_cast<long>(i + 1), regionCol,
                                         formatNumber(labels[i])));
    }

    const CoordinateConverter convert(options);
    for (std::size_t i = 0; i < ra.size(); ++i) {
        const std::optional<double> decRadians = convert.decRadians(dec[i]);
        if (!decRadians) {
            const long row = static_cast<long>(i + 1);
            throw InputError(path, row, decCol,
                             "row " + std::to_string(row) + ", " + columnLabel(table, decCol) +
                                 ": " + convert.decRangeProblem(formatNumber(dec[i]), dec[i]));
        }
        ra[i] = convert.raRadians(ra[i]);
        dec[i] = *decRadians;
    }
    return Catalog::fromRadians(path, std::move(ra), std::move(dec), std::move(weight),
                                std::move(region));
}

TablePreview previewFitsFile(const std::string& path, std::size_t maxRows) {
    FitsTable table = openFirstBinaryTable(path, ReadOptions{});
    TablePreview preview;
    preview.hasHeader = true;
    preview.columnCount = table.columns.size();
    for (const FitsColumn& column : table.columns)
        preview.columnNames.push_back(column.name);
    const long long rows = std::min<long long>(table.rows, static_cast<long long>(maxRows));
    preview.rows.assign(static_cast<std::size_t>(std::max(0LL, rows)),
                        std::vector<std::string>(table.columns.size()));
    for (int col = 1; col <= static_cast<int>(table.columns.size()) && rows > 0; ++col) {
        int status = 0, width = 0, anyNull = 0;
        fits_get_col_display_width(table.file.get(), col, &width, &status);
        // cfitsio formats any column as text; a column it cannot (variable arrays) shows "?".
        std::vector<std::vector<char>> buffers(
            static_cast<std::size_t>(rows),
            std::vector<char>(static_cast<std::size_t>(std::max(width, 1) + 1)));
        std::vector<char*> pointers;
        for (auto& buffer : buffers)
            pointers.push_back(buffer.data());
        char nullText[] = "null";
        if (status == 0)
            fits_read_col(table.file.get(), TSTRING, col, 1, 1, rows, nullText, pointers.data(),
                          &anyNull, &status);
        for (long long r = 0; r < rows; ++r) {
            std::string text =
                status == 0 ? std::string(pointers[static_cast<std::size_t>(r)]) : std::string("?");
            const auto first = text.find_first_not_of(' ');
            const auto last = text.find_last_not_of(' ');
            text =
                first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
            preview.rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(col - 1)] = text;
        }
    }
    return preview;
}

} // namespace tpacf::detail
