// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/text_check.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

namespace tpacf {

namespace {

// Length of the well-formed UTF-8 sequence at bytes[i]; 0 where there is none; `cut` is set
// where the bytes end inside a sequence that may be well formed.
std::size_t utf8Sequence(std::string_view bytes, std::size_t i, bool& cut) noexcept {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    const std::size_t length = lead < 0xC2   ? 0
                               : lead < 0xE0 ? 2
                               : lead < 0xF0 ? 3
                               : lead < 0xF5 ? 4
                                             : 0;
    if (length == 0)
        return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if (i + k >= bytes.size()) {
            cut = true;
            return 0;
        }
        if ((static_cast<unsigned char>(bytes[i + k]) & 0xC0) != 0x80)
            return 0;
    }
    return length;
}

} // namespace

// Formats a catalog may come in that are not read, known by their first bytes, with what to do.
struct ForeignFormat {
    std::string_view signature;
    const char* problem;
};
constexpr ForeignFormat kForeignFormats[] = {
    {"PAR1", "is a Parquet file, which is not read; write the table as FITS (for example with "
             "astropy: Table.read('cat.parquet').write('cat.fits')) or as text"},
    // Reached only in a build without libhdf5: with it, the HDF5 reader takes such files.
    {"\x89HDF\r\n\x1A\n", "is an HDF5 file, and this build reads none (built without libhdf5); "
                           "write the columns as a FITS table (for example h5py and astropy) or "
                           "as text"},
    {"\x93NUMPY", "is a NumPy array file (.npy), which is not read; write it as text "
                  "(numpy.savetxt) or as a FITS table"},
    {"PK\x03\x04", "is a ZIP archive; extract the catalog from it first"},
    {"BZh", "is bzip2-compressed; decompress it first (only FITS tables are read compressed, "
            "as .fits.gz)"},
    {"\xFD" "7zXZ", "is xz-compressed; decompress it first (only FITS tables are read "
                   "compressed, as .fits.gz)"},
};

// Where an XML document starts (a VOTable): after blanks and a UTF-8 byte order mark.
bool startsAsXml(std::string_view bytes) {
    if (bytes.starts_with("\xEF\xBB\xBF"))
        bytes.remove_prefix(3);
    while (!bytes.empty() && (bytes.front() == ' ' || bytes.front() == '\t' ||
                              bytes.front() == '\r' || bytes.front() == '\n'))
        bytes.remove_prefix(1);
    return bytes.starts_with("<?xml") || bytes.starts_with("<VOTABLE") ||
           bytes.starts_with("<!--");
}

std::optional<std::string> foreignFormatProblem(std::string_view bytes) {
    for (const ForeignFormat& format : kForeignFormats)
        if (bytes.starts_with(format.signature))
            return std::string(format.problem);
    if (startsAsXml(bytes))
        return std::string(bytes.find("VOTABLE") != std::string_view::npos
                               ? "is a VOTable (XML), which is not read as a catalog; save it "
                                 "as a FITS table (TOPCAT: File > Save Table as fits; or stilts "
                                 "tcopy in=cat.vot out=cat.fits)"
                               : "is an XML document, not a table of numbers; a VOTable is "
                                 "read once saved as a FITS table (stilts tcopy in=cat.vot "
                                 "out=cat.fits)");
    return std::nullopt;
}

std::optional<std::string> textProblem(std::string_view bytes) {
    if (auto foreign = foreignFormatProblem(bytes))
        return foreign;
    if (bytes.starts_with("\x1F\x8B"))
        return std::string("is gzip-compressed; decompress it first (only FITS tables are read "
                           "compressed, as .fits.gz)");
    if (bytes.starts_with("SIMPLE  ="))
        return std::string("is a FITS file; name it .fits (or .fit, .fts) to read it as a FITS "
                           "table");
    if (bytes.starts_with("\xFF\xFE") || bytes.starts_with("\xFE\xFF"))
        return std::string("is UTF-16 text; save it as UTF-8 or ASCII");
    const auto binary = [](const std::string& what) {
        return "looks like a binary file, not text (" + what +
               "); FITS tables are read from files named .fits, .fit or .fts (also .gz)";
    };
    if (const void* nul = std::memchr(bytes.data(), '\0', bytes.size()))
        return binary("a NUL byte at byte " +
                      std::to_string(static_cast<const char*>(nul) - bytes.data() + 1));
    std::size_t odd = 0;
    std::size_t firstOdd = 0;
    for (std::size_t i = 0; i < bytes.size();) {
        const auto byte = static_cast<unsigned char>(bytes[i]);
        if (byte >= 0x20 && byte < 0x7F) {
            ++i;
            continue;
        }
        if (byte == '\t' || byte == '\n' || byte == '\r' || byte == '\f' || byte == '\v') {
            ++i;
            continue;
        }
        bool cut = false;
        if (const std::size_t length = byte >= 0x80 ? utf8Sequence(bytes, i, cut) : 0) {
            i += length;
            continue;
        }
        if (cut)
            break; // the check's window ends inside a character
        if (odd++ == 0)
            firstOdd = i;
        ++i;
    }
    if (odd * 10 > bytes.size())
        return binary(std::to_string(odd) + " of its first " + std::to_string(bytes.size()) +
                      " bytes are neither UTF-8 text nor line breaks, the first at byte " +
                      std::to_string(firstOdd + 1));
    return std::nullopt;
}

std::optional<std::string> binaryFileProblem(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::vector<char> head(kTextCheckBytes);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    return textProblem(std::string_view(head.data(), static_cast<std::size_t>(in.gcount())));
}

} // namespace tpacf
