// SPDX-License-Identifier: GPL-3.0-or-later
// The table of catalog formats. The only place that knows whether cfitsio and libhdf5 are built
// in.
#include "tpacf/catalog_formats.h"

#include "catalog/fits_reader.h"
#include "catalog/hdf5_reader.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <sys/stat.h>
#include <unistd.h>

namespace tpacf {

namespace detail {

CatalogPath splitCatalogPath(const std::string& path) {
    const std::size_t first = path.find('[');
    if (first == std::string::npos)
        return {path, {}};
    // lstat never blocks (a FIFO is not opened) and sees a dangling link as a name that exists.
    struct stat info {};
    auto exists = [&info](const std::string& name) { return ::lstat(name.c_str(), &info) == 0; };
    if (exists(path))
        return {path, {}}; // a file whose name holds brackets is that file
    for (std::size_t at = first; at != std::string::npos; at = path.find('[', at + 1))
        if (at > 0 && exists(path.substr(0, at)))
            return {path.substr(0, at), path.substr(at)};
    // "[1]" alone names no file: left whole, so that the reader says it does not exist.
    return first == 0 ? CatalogPath{path, {}}
                      : CatalogPath{path.substr(0, first), path.substr(first)};
}

} // namespace detail

namespace {

bool anyPatternMatches(std::span<const std::string_view> patterns, std::string_view path) noexcept {
    return std::any_of(patterns.begin(), patterns.end(),
                       [path](std::string_view pattern) { return matchesPattern(path, pattern); });
}

// Names are what users and the other tools go by; text catalogs get the common suffixes.
constexpr std::array<std::string_view, 4> kAsciiPatterns{"*.txt", "*.dat", "*.csv", "*.cat"};

// Names that promise text: FITS bytes behind one are a misnamed file, which the ASCII reader
// reports ("a FITS file; name it .fits"), not a table to read as the name denies. The other
// text names say nothing for sure: SExtractor writes FITS (LDAC) tables as .cat, and .dat is
// any data at all, so there the content decides.
constexpr std::array<std::string_view, 2> kTextOnlyPatterns{"*.txt", "*.csv"};

// The ASCII reader takes whatever no other format claims and says what is wrong with a file
// that is not text (binary, compressed, UTF-16, FITS in a build without cfitsio).
bool anyPath(const std::string&) {
    return true;
}

// A gzip-compressed table (.fits.gz) is decompressed by the FITS reader itself.
constexpr std::array<std::string_view, 6> kFitsPatterns{"*.fits",    "*.fit",    "*.fts",
                                                        "*.fits.gz", "*.fit.gz", "*.fts.gz"};

// Every FITS file starts with this card (FITS standard 4.0, section 4.4.1.1), whatever its
// name; text catalogs never do.
bool startsWithFitsSignature(const std::string& path) {
    constexpr std::string_view kSignature = "SIMPLE  =";
    try {
        // Checked as the readers check: a FIFO or device is never opened (it could block).
        const detail::OpenedFile file = detail::openRegularFile(path);
        std::array<char, kSignature.size()> head{};
        const ssize_t got = ::pread(file.fd.get(), head.data(), head.size(), 0);
        return got == static_cast<ssize_t>(head.size()) &&
               std::string_view(head.data(), head.size()) == kSignature;
    } catch (const InputError&) {
        return false; // the reader chosen instead reports the same problem
    }
}

// A selection after the file name ("d.fits[1][Z>0.5]") is cfitsio's syntax: the FITS reader
// takes the path and says what is wrong if the file before it is no FITS file.
[[maybe_unused]] bool isFits(const std::string& path) {
    const detail::CatalogPath split = detail::splitCatalogPath(path);
    if (!split.selection.empty())
        return true;
    return anyPatternMatches(kFitsPatterns, path) ||
           (!anyPatternMatches(kTextOnlyPatterns, path) && startsWithFitsSignature(path));
}

// HDF5 by name or by its signature, under any name: the signature is decisive, and no text
// catalog starts with it.
constexpr std::array<std::string_view, 4> kHdf5Patterns{"*.h5", "*.hdf5", "*.hdf", "*.he5"};

[[maybe_unused]] bool isHdf5(const std::string& path) {
    return anyPatternMatches(kHdf5Patterns, path) || detail::startsWithHdf5Signature(path);
}

// Most specific first: formatFor takes the first match, and ASCII matches everything.
constexpr std::array kFormats{
#ifdef TPACF_HAVE_HDF5
    CatalogFormat{"hdf5", "HDF5 table", kHdf5Patterns, &isHdf5, &detail::readHdf5Catalog,
                  &detail::previewHdf5File},
#endif
#ifdef TPACF_HAVE_CFITSIO
    CatalogFormat{"fits", "FITS binary table", kFitsPatterns, &isFits, &detail::readFitsCatalog,
                  &detail::previewFitsFile},
#endif
    CatalogFormat{"ascii", "ASCII table", kAsciiPatterns, &anyPath, &readAsciiCatalog,
                  &detail::previewAsciiFile},
};

} // namespace

#ifndef TPACF_HAVE_HDF5
std::string hdf5LibraryVersion() {
    return {};
}
#endif

bool matchesPattern(std::string_view path, std::string_view pattern) noexcept {
    const std::size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    auto same = [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
    };
    // Greedy matching with one backtrack point (the last '*'): linear for patterns like ours.
    std::size_t n = 0, p = 0;
    std::size_t starAt = std::string_view::npos, nameAtStar = 0;
    while (n < name.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            starAt = p++;
            nameAtStar = n;
        } else if (p < pattern.size() && (pattern[p] == '?' || same(pattern[p], name[n]))) {
            ++p;
            ++n;
        } else if (starAt != std::string_view::npos) {
            p = starAt + 1;
            n = ++nameAtStar;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

bool matchesAnyPattern(const CatalogFormat& format, std::string_view path) noexcept {
    return anyPatternMatches(format.patterns, path);
}

std::span<const CatalogFormat> catalogFormats() noexcept {
    return kFormats;
}

const CatalogFormat& formatFor(const std::string& path) {
    for (const CatalogFormat& format : kFormats)
        if (format.matches(path))
            return format;
    return kFormats.back(); // not reached: the last entry matches every path
}

const CatalogFormat* findCatalogFormat(std::string_view key) noexcept {
    const auto found =
        std::find_if(kFormats.begin(), kFormats.end(),
                     [key](const CatalogFormat& format) { return format.key == key; });
    return found == kFormats.end() ? nullptr : &*found;
}

std::string describeCatalogFormats() {
    std::string text;
    for (const CatalogFormat& format : kFormats) {
        text += "  ";
        text += format.name;
        text += ':';
        for (const std::string_view pattern : format.patterns) {
            text += ' ';
            text += pattern;
        }
        text += '\n';
    }
    if (kFormats.size() > 1) {
        // The fallback's names that do not promise text go by content, as unknown names do.
        text += ' ';
        for (const std::string_view pattern : kFormats.back().patterns)
            if (!anyPatternMatches(kTextOnlyPatterns, pattern))
                text += ' ' + std::string(pattern);
        text += " and other names: by content (";
        for (const CatalogFormat& format : std::span(kFormats).first(kFormats.size() - 1)) {
            text += &format == &kFormats.front() ? "" : ", ";
            text += format.name;
        }
        text += "), else ";
        text += kFormats.back().name;
        text += '\n';
    }
    return text;
}

} // namespace tpacf
