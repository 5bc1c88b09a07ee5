// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A catalog file's bytes read whole (or its head), as the ASCII reader parses them: private to
// core's readers.
#include "tpacf/catalog_reader.h"

#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace tpacf::detail {

/// A file's bytes, left uninitialised until read: zero-filling a few hundred MB first would
/// cost about as much as reading them.
struct FileText {
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0;
    std::string_view view() const noexcept { return {bytes.get(), size}; }
};

/// Reads the whole file, or its first `limit` bytes, in chunks of a few MB between which a
/// cancel request is honoured. Only regular files are read (openRegularFile), and only as many
/// bytes as the file had when opened: a file that shrinks or grows meanwhile is an InputError,
/// never a catalog cut at some row.
FileText readFileBytes(const std::string& path, const ReadOptions& options,
                       std::size_t limit = std::numeric_limits<std::size_t>::max());

} // namespace tpacf::detail
