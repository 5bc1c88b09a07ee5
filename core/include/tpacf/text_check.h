// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether a file meant as a text catalog holds text at all. A binary file split into "lines"
// gives a preview of garbled bytes thousands of pixels wide; saying so before any preview is
// kinder than a parse error at some line.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tpacf {

/// How much of a file textProblem looks at.
inline constexpr std::size_t kTextCheckBytes = std::size_t(64) << 10;

/// Why the bytes are no text: a NUL byte, or more than one in ten bytes that are control bytes
/// (other than tab, line feed, carriage return, form feed) or not well-formed UTF-8 (a few, as
/// in a Latin-1 "°" of a header, pass). Names what the bytes are where their start says so
/// (gzip, FITS, UTF-16). nullopt for text. `bytes` may end inside a UTF-8 sequence.
std::optional<std::string> textProblem(std::string_view bytes);

/// Where the bytes start as a format catalogs come in that is not read (Parquet, HDF5, NumPy,
/// a VOTable or other XML, ZIP, bzip2, xz): "is a Parquet file, which is not read; write the
/// table as FITS ..." (what it is and what to do). nullopt otherwise. textProblem says the same.
std::optional<std::string> foreignFormatProblem(std::string_view bytes);

/// textProblem of the first kTextCheckBytes of the file at `path`, as "… looks like a binary
/// file, not text (a NUL byte at byte 17); FITS tables are read from files named .fits, .fit or
/// .fts (also .gz)". nullopt for text, and where the file cannot be read (the reader then says
/// why). Reads regular files only.
std::optional<std::string> binaryFileProblem(const std::string& path);

} // namespace tpacf
