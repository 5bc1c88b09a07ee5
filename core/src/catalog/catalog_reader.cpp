// SPDX-License-Identifier: GPL-3.0-or-later
// Format dispatch (through the table in catalog_formats.cpp), column references and the unit
// handling both readers share.
#include "tpacf/catalog_reader.h"

#include "base/number_text.h"
#include "catalog/fits_reader.h"
#include "tpacf/catalog_formats.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tpacf {

ColumnRef ColumnRef::parse(std::string_view text) {
    if (text.empty())
        throw ConfigError("empty column reference: give a column name or a 1-based index");
    const bool negative = text.front() == '-';
    const std::string_view digits = negative ? text.substr(1) : text;
    const bool allDigits = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
        return c >= '0' && c <= '9';
    });
    if (!allDigits)
        return ColumnRef{std::string(text), 0};
    if (negative)
        throw ConfigError("column index " + std::string(text) +
                          " is negative; columns count from 1");
    int index = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end != digits.data() + digits.size())
        throw ConfigError("column index " + std::string(text) + " is too large");
    if (index == 0)
        throw ConfigError("column index 0 is not valid; columns count from 1");
    return ColumnRef{std::string(), index};
}

std::string ColumnRef::describe() const {
    if (index > 0)
        return "column " + std::to_string(index);
    if (!name.empty())
        return "column '" + name + "'";
    return "default column";
}

bool fitsSupported() noexcept {
    return findCatalogFormat("fits") != nullptr;
}

#ifndef TPACF_HAVE_CFITSIO
std::string fitsLibraryVersion() {
    return {};
}

FitsRowCount countFitsRows(const std::string& path) {
    throw InputError(path, 0, 0, "this build reads no FITS files (built without cfitsio)");
}
#endif

Catalog readCatalog(const std::string& path, const ReadOptions& options) {
    return formatFor(path).read(path, options);
}

TablePreview previewCatalogFile(const std::string& path, std::size_t maxRows) {
    return formatFor(path).preview(path, maxRows);
}

namespace detail {

namespace {

// Length of the well-formed UTF-8 sequence at `text[i]`, or 0 where it is not one.
std::size_t utf8Length(std::string_view text, std::size_t i) noexcept {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = byte < 0xC2   ? 0
                               : byte < 0xE0 ? 2
                               : byte < 0xF0 ? 3
                               : byte < 0xF5 ? 4
                                             : 0;
    if (length == 0 || i + length > text.size())
        return 0;
    for (std::size_t k = 1; k < length; ++k)
        if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
            return 0;
    return length;
}

} // namespace

std::string shortText(std::string_view text, std::size_t maxBytes) {
    std::string shown;
    std::size_t i = 0;
    while (i < text.size() && shown.size() < maxBytes) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte >= 0x20 && byte < 0x7F) {
            shown += text[i++];
        } else if (const std::size_t length = byte >= 0x80 ? utf8Length(text, i) : 0) {
            shown.append(text.substr(i, length));
            i += length;
        } else {
            // Control bytes would break the one-line message (or the terminal); show them.
            static constexpr char kHex[] = "0123456789ABCDEF";
            shown += "\\x";
            shown += kHex[byte >> 4];
            shown += kHex[byte & 0xF];
            ++i;
        }
    }
    if (i < text.size())
        shown += "...";
    return shown;
}

std::string quoteField(std::string_view text) {
    // Appended piecewise: GCC 12 warns (-Wrestrict, a false alarm) on "'" + std::string.
    const std::string shown = shortText(text);
    std::string quoted(1, '\'');
    quoted.append(shown);
    quoted.push_back('\'');
    if (shown.ends_with("...")) {
        quoted.append(" (");
        quoted.append(std::to_string(text.size()));
        quoted.append(" bytes)");
    }
    return quoted;
}

std::string joinNames(const std::vector<std::string>& names) {
    constexpr std::size_t kShownNames = 10;
    std::string joined;
    for (std::size_t i = 0; i < names.size() && i < kShownNames; ++i)
        joined += (i == 0 ? "" : ", ") +
                  (names[i].empty() ? std::string("(unnamed)") : shortText(names[i]));
    if (names.size() > kShownNames)
        joined += ", ... (" + std::to_string(names.size()) + " columns)";
    return joined;
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

FileDescriptor::~FileDescriptor() {
    if (m_fd >= 0)
        ::close(m_fd);
}

namespace {

// What a path that is not a regular file is, for "cannot read the catalog: this is ...".
std::string notRegularFile(mode_t mode) {
    if (S_ISDIR(mode))
        return "this is a directory, not a file";
    if (S_ISFIFO(mode))
        return "this is a FIFO (named pipe), not a regular file; catalogs are read from "
               "regular files only";
    if (S_ISCHR(mode))
        return "this is a character device (like /dev/zero or a terminal), not a regular file";
    if (S_ISBLK(mode))
        return "this is a block device, not a regular file";
    if (S_ISSOCK(mode))
        return "this is a socket, not a regular file";
    return "this is not a regular file";
}

[[noreturn]] void throwCannotRead(const std::string& path, const std::string& why) {
    // An empty name would read "input: ..."; say what is wrong with it instead.
    throw InputError(path, 0, 0, "cannot read the catalog: " + why);
}

} // namespace

OpenedFile openRegularFile(const std::string& path) {
    if (path.empty())
        throwCannotRead(path, "the file name is empty");
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        const int error = errno;
        struct stat link {};
        switch (error) {
        case ENOENT:
            if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
                throwCannotRead(path, "it is a symbolic link to a file that does not exist");
            throwCannotRead(path, "the file does not exist");
        case ELOOP:
            throwCannotRead(path, "too many levels of symbolic links (a symbolic link loop)");
        case ENOTDIR:
            throwCannotRead(path, "a part of the path is a file, not a directory");
        case EACCES:
            throwCannotRead(path, "permission denied (a directory on the path cannot be searched)");
        default:
            throwCannotRead(path, std::strerror(error));
        }
    }
    // Checked before opening: open() itself blocks on a FIFO without writer.
    if (!S_ISREG(info.st_mode))
        throwCannotRead(path, notRegularFile(info.st_mode));
    // Non-blocking, so that a FIFO swapped in since the check cannot hang us either.
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        const int error = errno;
        throwCannotRead(path, error == EACCES ? std::string("permission denied")
                                              : std::string(std::strerror(error)));
    }
    if (::fstat(fd.get(), &info) != 0)
        throwCannotRead(path, std::strerror(errno));
    if (!S_ISREG(info.st_mode))
        throwCannotRead(path, notRegularFile(info.st_mode));
    // Regular files never block; plain blocking reads are simpler to get right.
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0)
        ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    return OpenedFile{std::move(fd), static_cast<std::uint64_t>(std::max<off_t>(info.st_size, 0))};
}

namespace {

// The first word of a column name, lower case: "RA_J2000" → "ra", "RA (deg)" → "ra",
// "_RAJ2000" (VizieR's computed positions) → "raj2000".
std::string firstWord(std::string_view name) {
    while (!name.empty() && name.front() == '_')
        name.remove_prefix(1);
    std::string word;
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (!std::isalnum(u))
            break;
        word += static_cast<char>(std::tolower(u));
    }
    return word;
}

bool namedExactly(std::string_view name, std::string_view wanted) {
    return name.size() == wanted.size() &&
           std::equal(name.begin(), name.end(), wanted.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           });
}

} // namespace

std::optional<std::size_t> defaultColumnByName(const std::vector<std::string>& names, Axis axis,
                                               const std::function<bool(std::size_t)>& isFree,
                                               const std::string& source, long line) {
    if (std::all_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); }))
        return std::nullopt;
    const bool ra = axis == Axis::Ra;
    const char* const role = ra ? "RA" : "Dec";
    const std::string_view exact = ra ? "ra" : "dec";
    // Words that start the usual RA and Dec column names (SExtractor, VizieR, Gaia, SDSS):
    // RA_J2000, RAJ2000, RAdeg, RA_DEG, "RA (deg)", ALPHA_J2000; DEC_J2000, DEJ2000, DE_ICRS...
    static const std::vector<std::string_view> raWords{"ra", "raj2000", "ra2000", "radeg", "alpha"};
    static const std::vector<std::string_view> decWords{"dec",    "decl",    "dej2000", "decj2000",
                                                        "de2000", "dec2000", "dedeg",   "decdeg",
                                                        "de",     "delta"};
    const auto& words = ra ? raWords : decWords;
    // Asked of the user in every refusal; core knows the CLI's flags by these names, the GUI
    // by its column fields.
    const std::string ask = "; choose the RA and Dec columns by name or 1-based number "
                            "(--ra-col/--dec-col); columns: " +
                            joinNames(names);

    for (std::size_t i = 0; i < names.size(); ++i)
        if (isFree(i) && namedExactly(names[i], exact))
            return i;
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (isFree(i) && std::find(words.begin(), words.end(), firstWord(names[i])) != words.end())
            candidates.push_back(i);
    if (candidates.size() == 1)
        return candidates.front();
    // Taking the first numeric column here would read TARGETID as RA: ask instead.
    if (candidates.empty())
        throw InputError(
            source, line, 0,
            std::string("cannot tell which column holds ") + role + ": none is named " +
                std::string(exact) + " or like it (" +
                (ra ? "RA_J2000, ALPHA_J2000, RAJ2000" : "DEC_J2000, DELTA_J2000, DEJ2000") + ")" +
                ask);
    throw InputError(source, line, 0,
                     std::string("cannot tell which column holds ") + role + ": " +
                         quoteField(names[candidates[0]]) + " and " +
                         quoteField(names[candidates[1]]) + " both could" + ask);
}

namespace {
double quarterTurnIn(AngleUnit unit) {
    switch (unit) {
    case AngleUnit::Degree:
        return 90.0;
    case AngleUnit::Arcminute:
        return 90.0 * 60.0;
    case AngleUnit::Arcsecond:
        return 90.0 * 3600.0;
    case AngleUnit::Radian:
        return 0.5 * kPi;
    }
    return 90.0;
}
} // namespace

CoordinateConverter::CoordinateConverter(const ReadOptions& options)
    : m_unit(options.coordUnit),
      m_raRadiansPer(options.raInHours ? 15.0 * radiansPer(AngleUnit::Degree)
                                       : radiansPer(options.coordUnit)),
      m_decLimit(quarterTurnIn(options.coordUnit)) {}

std::optional<double> CoordinateConverter::decRadians(double value) const noexcept {
    if (!(value >= -m_decLimit && value <= m_decLimit))
        return std::nullopt;
    // The check above is exact in the file's unit; the conversion may overshoot by an ulp.
    const double halfPi = 0.5 * kPi;
    return std::clamp(value * radiansPer(m_unit), -halfPi, halfPi);
}

std::string CoordinateConverter::decRangeProblem(std::string_view writtenValue,
                                                 double value) const {
    std::string problem = "Dec " + shortText(writtenValue) + " " +
                          std::string(angleUnitName(m_unit)) + " is outside ";
    switch (m_unit) {
    case AngleUnit::Degree:
        return problem + "[-90, 90]";
    case AngleUnit::Radian:
        return problem + "[-pi/2, pi/2]";
    default:
        return problem + "[-" + detail::formatDouble(m_decLimit) + ", " + detail::formatDouble(m_decLimit) + "] (" +
               detail::formatDouble(value / m_decLimit * 90.0) + " deg)";
    }
}

std::int32_t regionLabel(double value, const std::string& source, long line, int column,
                         std::string_view written) {
    if (!std::isfinite(value) || value != std::floor(value))
        throw InputError(source, line, column,
                         "jackknife region label " + quoteField(written) + " is not an integer");
    if (value < static_cast<double>(std::numeric_limits<std::int32_t>::min()) ||
        value > static_cast<double>(std::numeric_limits<std::int32_t>::max()))
        throw InputError(source, line, column,
                         "jackknife region label " + quoteField(written) +
                             " is out of the range of a 32-bit integer");
    return static_cast<std::int32_t>(value);
}

} // namespace detail

Catalog catalogFromCoordinates(std::string name, std::vector<double> ra, std::vector<double> dec,
                               std::vector<double> weight, std::vector<std::int32_t> region,
                               const ReadOptions& options) {
    const bool sameLengths = dec.size() == ra.size() &&
                             (weight.empty() || weight.size() == ra.size()) &&
                             (region.empty() || region.size() == ra.size());
    if (sameLengths) {
        // Rows up to the first non-finite value, which fromRadians names (rows before it are in
        // range); mismatched lengths are fromRadians's to report before any value is looked at.
        const detail::CoordinateConverter converter(options);
        for (std::size_t i = 0; i < ra.size(); ++i) {
            if (!std::isfinite(ra[i]) || !std::isfinite(dec[i]))
                break;
            const std::optional<double> decRadians = converter.decRadians(dec[i]);
            if (!decRadians) {
                const long row = static_cast<long>(i + 1);
                throw InputError(name, row, 0,
                                 converter.decRangeProblem(detail::formatDouble(dec[i]), dec[i]) +
                                     " (row " + std::to_string(row) + ")");
            }
            ra[i] = converter.raRadians(ra[i]);
            dec[i] = *decRadians;
        }
    }
    return Catalog::fromRadians(std::move(name), std::move(ra), std::move(dec), std::move(weight),
                                std::move(region), options.threads);
}

} // namespace tpacf
