// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ASCII reader: the data rows after the head, parsed in chunks on several
// threads with exactly the values and the first error a one-thread pass would give.
#include "tpacf/catalog_reader.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpacf::detail {

/// Where each value of a row is (0-based fields), as the column choice found it.
struct RowLayout {
    std::size_t ra = 0, dec = 0;
    std::optional<std::size_t> weight;
    std::optional<std::size_t> region;
    /// Columns stepped over as text in the first row; a number there later is an error.
    std::vector<std::size_t> skippedText;
    long firstRowLine = 0; // named by the skipped-text error
};

/// The columns read, RA and Dec in radians (RA not yet wrapped).
struct RowColumns {
    std::vector<double> ra, dec, weight;
    std::vector<std::int32_t> region;
};

/// Chunk size and threads of the row parser; 0 = chosen from the text and the machine.
struct ChunkPlan {
    std::size_t chunkBytes = 0;
    int threads = 0;
};

/// Parses `firstRow` (at `firstRowLine`), then every row of `rest`, the text after it, whose
/// first line is line `firstRowLine + 1`. `rest` is cut into chunks just after line ends and
/// the chunks are parsed in parallel, each knowing its first line from the line ends counted
/// before it; an error is the one a single pass would report first (the chunks before it are
/// read whole). Polls options.cancelRequested every 2^16 rows per chunk.
RowColumns parseRows(std::string_view firstRow, std::string_view rest, const RowLayout& layout,
                     const std::string& source, const ReadOptions& options, ChunkPlan plan = {});

/// parseAsciiCatalog with the row parser's chunk size and threads as `plan` says, so that the
/// tests can cut small texts into many chunks.
Catalog parseAsciiCatalog(std::string_view text, const std::string& sourceName,
                          const ReadOptions& options, ChunkPlan plan);

/// Offsets where the chunks of `text` start: 0, then just after the first line end at or past
/// each multiple of `chunkBytes` ("\r\n" is never split). Exposed for the tests.
std::vector<std::size_t> chunkStarts(std::string_view text, std::size_t chunkBytes);

} // namespace tpacf::detail
