// SPDX-License-Identifier: GPL-3.0-or-later
// The data rows of an ASCII catalog, parsed in chunks on every core. The line ends of every
// chunk are counted first, so each chunk knows its first line (for its errors) and the slice of
// the result columns its rows go to (no copy of the columns at the end, no second set of them).
#include "catalog/ascii_rows.h"

#include "base/huge_pages.h"
#include "catalog/ascii_text.h"
#include "catalog/fits_reader.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <utility>

namespace tpacf::detail {

namespace {

// Big enough that a chunk's setup (a reader, a field vector) is nothing beside its rows, small
// enough that 4 chunks per thread balance uneven lines.
constexpr std::size_t kMinChunkBytes = std::size_t(1) << 20;
constexpr std::size_t kChunksPerThread = 4;
constexpr std::size_t kRowsPerCancelCheck = std::size_t(1) << 16;

// Reads one row into `out`; every problem is an InputError at `line`.
class RowParser {
public:
    RowParser(const RowLayout& layout, const std::string& source, const ReadOptions& options)
        : m_layout(layout), m_source(source), m_convert(options),
          m_needed(std::max({layout.ra, layout.dec, layout.weight.value_or(0),
                             layout.region.value_or(0)}) +
                   1) {}

    /// `out.add(ra, dec, weight, region)` receives the row; weight and region are 0 where the
    /// layout has none.
    template <class Sink> void parse(std::string_view content, long line, Sink& out) {
        splitFields(content, m_fields, m_needed);
        if (m_fields.size() < m_needed)
            throwTooFewColumns(line);
        for (const std::size_t column : m_layout.skippedText)
            if (isNumber(m_fields[column]))
                throw InputError(m_source, line, static_cast<int>(column + 1),
                                 "column " + std::to_string(column + 1) +
                                     " held text in the first row (line " +
                                     std::to_string(m_layout.firstRowLine) +
                                     "), so RA and Dec were taken from the columns after it, but "
                                     "here it holds a number; choose the RA and Dec columns by "
                                     "name or number");
        const double raValue = value(m_layout.ra, "RA", line);
        const double decValue = value(m_layout.dec, "Dec", line);
        const std::optional<double> decRadians = m_convert.decRadians(decValue);
        if (!decRadians)
            throw InputError(m_source, line, static_cast<int>(m_layout.dec + 1),
                             m_convert.decRangeProblem(m_fields[m_layout.dec], decValue));
        const double weight = m_layout.weight ? value(*m_layout.weight, "weight", line) : 0.0;
        const std::int32_t region =
            m_layout.region
                ? regionLabel(value(*m_layout.region, "region", line), m_source, line,
                              static_cast<int>(*m_layout.region + 1), m_fields[*m_layout.region])
                : 0;
        out.add(m_convert.raRadians(raValue), *decRadians, weight, region);
    }

private:
    double value(std::size_t column, const char* role, long line) const {
        double parsed = 0;
        const NumberStatus status = parseNumber(m_fields[column], parsed);
        if (status != NumberStatus::Ok)
            throwBadNumber(m_source, line, column, role, m_fields[column], status);
        if (!std::isfinite(parsed))
            throw InputError(m_source, line, static_cast<int>(column + 1),
                             std::string(role) + " value " + quoteField(m_fields[column]) +
                                 " is not finite");
        return parsed;
    }

    // Names the first chosen column the line lacks.
    [[noreturn]] void throwTooFewColumns(long line) const {
        std::size_t missing = m_needed - 1;
        const char* role = nullptr;
        const std::pair<std::optional<std::size_t>, const char*> chosen[] = {
            {m_layout.ra, "RA"},
            {m_layout.dec, "Dec"},
            {m_layout.weight, "the weight"},
            {m_layout.region, "the jackknife region"}};
        for (const auto& [column, name] : chosen)
            if (column && *column >= m_fields.size() && (!role || *column < missing)) {
                missing = *column;
                role = name;
            }
        throw InputError(m_source, line, static_cast<int>(missing + 1),
                         "too few columns: the line has " + std::to_string(m_fields.size()) +
                             ", but " + role + " is column " + std::to_string(missing + 1));
    }

    const RowLayout& m_layout;
    const std::string& m_source;
    const CoordinateConverter m_convert;
    const std::size_t m_needed;
    std::vector<std::string_view> m_fields; // reused: no allocation per row
};

// A chunk's slice of the result columns, filled from its start.
struct ColumnSlice {
    double* ra = nullptr;
    double* dec = nullptr;
    double* weight = nullptr;       // null without weights
    std::int32_t* region = nullptr; // null without regions
    std::size_t rows = 0;

    ColumnSlice(RowColumns& columns, std::size_t at)
        : ra(columns.ra.data() + at), dec(columns.dec.data() + at),
          weight(columns.weight.empty() ? nullptr : columns.weight.data() + at),
          region(columns.region.empty() ? nullptr : columns.region.data() + at) {}

    void add(double raValue, double decValue, double weightValue, std::int32_t regionValue) {
        ra[rows] = raValue;
        dec[rows] = decValue;
        if (weight)
            weight[rows] = weightValue;
        if (region)
            region[rows] = regionValue;
        ++rows;
    }
};

// Line ends as LineReader counts them: LF, CRLF, lone CR. `text` is never cut inside a CRLF.
std::size_t countLineEnds(std::string_view text) noexcept {
    if (text.empty()) // an empty view may have no data pointer, which memchr must not get
        return 0;
    std::size_t ends = countNewlines(text);
    const char* const end = text.data() + text.size();
    for (const char* p = text.data();
         (p = static_cast<const char*>(findByte(p, '\r', static_cast<std::size_t>(end - p))));
         ++p)
        if (p + 1 == end || p[1] != '\n')
            ++ends;
    return ends;
}

// The lines of `text`: its line ends, and one more for a last line without one. Counted in
// blocks of a few MB, between which a cancel request is honoured: with one thread the whole file
// is one chunk, and counting a 500 MB one took half a second.
std::size_t countLines(std::string_view text, const ReadOptions& options) {
    constexpr std::size_t kBlockBytes = std::size_t(4) << 20;
    std::size_t ends = 0;
    for (std::size_t from = 0; from < text.size();) {
        throwIfCancelled(options);
        std::size_t to = std::min(text.size(), from + kBlockBytes);
        if (to < text.size() && text[to - 1] == '\r' && text[to] == '\n')
            ++to; // a CRLF stays in one block, where it is one line end
        ends += countLineEnds(text.substr(from, to - from));
        from = to;
    }
    const bool openLast = !text.empty() && text.back() != '\n' && text.back() != '\r';
    return ends + (openLast ? 1 : 0);
}

// Parses the rows of `chunk`, whose first line is line linesBefore + 1, into `out`. Stops
// early once `abandon()` says the result can no longer matter.
template <class Abandon>
void parseChunk(std::string_view chunk, long linesBefore, RowParser& parser, ColumnSlice& out,
                const ReadOptions& options, Abandon abandon) {
    LineReader lines(chunk, linesBefore, false);
    std::string_view content;
    long line = 0;
    std::size_t rowsSinceCheck = 0;
    while (lines.next(content, line)) {
        if (++rowsSinceCheck == kRowsPerCancelCheck) {
            rowsSinceCheck = 0;
            throwIfCancelled(options);
            if (abandon())
                return;
        }
        parser.parse(content, line, out);
    }
}

// Sizes every column the layout has to `rows`, one column per thread: zero-filling them is
// a large part of the time left once the rows are parsed in parallel.
void resizeColumns(RowColumns& columns, const RowLayout& layout, std::size_t rows, int threads) {
    // Allocated here, filled there: memory a worker thread allocates stays with its malloc
    // arena, and a process that reads catalogs again and again would keep growing.
    detail::reserveLargeColumn(columns.ra, rows);
    detail::reserveLargeColumn(columns.dec, rows);
    if (layout.weight)
        detail::reserveLargeColumn(columns.weight, rows);
    if (layout.region)
        detail::reserveLargeColumn(columns.region, rows);
    parallelForRanges(
        4,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t column = begin; column < end; ++column) {
                if (column == 0)
                    columns.ra.resize(rows);
                else if (column == 1)
                    columns.dec.resize(rows);
                else if (column == 2 && layout.weight)
                    columns.weight.resize(rows);
                else if (column == 3 && layout.region)
                    columns.region.resize(rows);
            }
        },
        rows >= kMinChunkBytes / 16 ? threads : 1);
}

template <class T>
void moveRows(std::vector<T>& column, std::size_t from, std::size_t to, std::size_t rows) {
    if (!column.empty() && from != to && rows > 0)
        std::memmove(column.data() + to, column.data() + from, rows * sizeof(T));
}

} // namespace

std::vector<std::size_t> chunkStarts(std::string_view text, std::size_t chunkBytes) {
    std::vector<std::size_t> starts{0};
    if (chunkBytes == 0)
        return starts;
    const char* const data = text.data();
    for (std::size_t from = chunkBytes; from < text.size(); from = starts.back() + chunkBytes) {
        // The first line end at or after `from`: an LF, or a CR (with the LF after it, if any).
        const std::size_t rest = text.size() - from;
        const void* lf = findByte(data + from, '\n', rest);
        const std::size_t lfAt =
            lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - data) : text.size();
        const void* cr = findByte(data + from, '\r', lfAt - from);
        std::size_t cut = lfAt + 1;
        if (cr) {
            const auto crAt = static_cast<std::size_t>(static_cast<const char*>(cr) - data);
            cut = crAt + 1 < text.size() && data[crAt + 1] == '\n' ? crAt + 2 : crAt + 1;
        }
        if (cut >= text.size())
            break;
        starts.push_back(cut);
    }
    return starts;
}

RowColumns parseRows(std::string_view firstRow, std::string_view rest, const RowLayout& layout,
                     const std::string& source, const ReadOptions& options, ChunkPlan plan) {
    std::size_t chunkBytes = plan.chunkBytes;
    if (chunkBytes == 0) {
        const std::size_t threads =
            workerCount(plan.threads, std::numeric_limits<std::size_t>::max());
        chunkBytes = threads == 1
                         ? rest.size() + 1
                         : std::max(kMinChunkBytes, rest.size() / (threads * kChunksPerThread) + 1);
    }
    const std::vector<std::size_t> starts = chunkStarts(rest, chunkBytes);
    const std::size_t chunks = starts.size();
    const auto chunkText = [&](std::size_t k) {
        const std::size_t end = k + 1 < chunks ? starts[k + 1] : rest.size();
        return rest.substr(starts[k], end - starts[k]);
    };

    // Lines per chunk, hence each chunk's first line and, as a chunk has at most one row a
    // line, where its rows go: the first row at 0, chunk k's from 1 + the lines before it.
    std::vector<std::size_t> linesIn(chunks);
    parallelForRanges(
        chunks,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k)
                linesIn[k] = countLines(chunkText(k), options);
        },
        plan.threads);
    std::vector<std::size_t> slotOf(chunks + 1, 1);
    for (std::size_t k = 0; k < chunks; ++k)
        slotOf[k + 1] = slotOf[k] + linesIn[k];

    RowColumns result;
    resizeColumns(result, layout, slotOf[chunks], plan.threads);
    std::vector<std::size_t> rowsIn(chunks, 0);
    {
        RowParser parser(layout, source, options);
        ColumnSlice first(result, 0);
        parser.parse(firstRow, layout.firstRowLine, first);
        if (chunks == 1) {
            ColumnSlice slice(result, 1);
            parseChunk(rest, layout.firstRowLine, parser, slice, options, [] { return false; });
            rowsIn[0] = slice.rows;
        }
    }
    if (chunks > 1) {
        std::vector<std::exception_ptr> errors(chunks);
        std::atomic<std::size_t> nextChunk{0};
        std::atomic<std::size_t> firstFailed{chunks};
        runWorkers(workerCount(plan.threads, chunks), [&](std::size_t, const std::atomic<bool>&) {
            RowParser parser(layout, source, options);
            // Chunks are taken in file order, so the earliest ones finish first.
            for (std::size_t k = nextChunk++; k < chunks; k = nextChunk++) {
                // An error in an earlier chunk is the one reported: later ones need no reading.
                const auto abandon = [&] {
                    return firstFailed.load(std::memory_order_relaxed) < k;
                };
                if (abandon())
                    continue;
                try {
                    ColumnSlice slice(result, slotOf[k]);
                    parseChunk(chunkText(k), layout.firstRowLine + static_cast<long>(slotOf[k] - 1),
                               parser, slice, options, abandon);
                    rowsIn[k] = slice.rows;
                } catch (...) {
                    errors[k] = std::current_exception();
                    std::size_t seen = firstFailed.load();
                    while (k < seen && !firstFailed.compare_exchange_weak(seen, k)) {
                    }
                }
            }
        });
        // Every chunk before the first failed one was read whole: its error is the first.
        if (const std::size_t k = firstFailed.load(); k < chunks)
            std::rethrow_exception(errors[k]);
    }

    // Close the gaps blank and comment lines left, in file order (rows only move down).
    std::size_t rows = 1;
    for (std::size_t k = 0; k < chunks; ++k) {
        moveRows(result.ra, slotOf[k], rows, rowsIn[k]);
        moveRows(result.dec, slotOf[k], rows, rowsIn[k]);
        moveRows(result.weight, slotOf[k], rows, rowsIn[k]);
        moveRows(result.region, slotOf[k], rows, rowsIn[k]);
        rows += rowsIn[k];
    }
    result.ra.resize(rows);
    result.dec.resize(rows);
    if (layout.weight)
        result.weight.resize(rows);
    if (layout.region)
        result.region.resize(rows);
    // A file mostly of comment lines would otherwise keep the room of its lines.
    if (rows + rows / 8 < slotOf[chunks]) {
        result.ra.shrink_to_fit();
        result.dec.shrink_to_fit();
        result.weight.shrink_to_fit();
        result.region.shrink_to_fit();
    }
    return result;
}

} // namespace tpacf::detail
