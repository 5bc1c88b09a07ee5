// SPDX-License-Identifier: GPL-3.0-or-later
// Readers of photon-count streams: raw uint8 frames and ASCII columns, both streamed in pieces
// (never the whole file), regular files only, every error naming the file (and line and column).
#include "tpacf/fcs_io.h"

#include "catalog/ascii_text.h"
#include "catalog/fits_reader.h"
#include "tpacf/errors.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

namespace tpacf::fcs {

namespace {

void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw Cancelled();
}

// The catalog readers' opener, with its refusals worded for a stream of frames.
detail::OpenedFile openStream(const std::string& path) {
    try {
        return detail::openRegularFile(path);
    } catch (const InputError& error) {
        std::string problem = error.problem();
        const std::string_view catalogWords = "cannot read the catalog";
        if (problem.starts_with(catalogWords))
            problem.replace(0, catalogWords.size(), "cannot read the photon counts");
        throw InputError(error.file(), error.line(), error.column(), problem);
    }
}

// Up to `bytes` bytes at `into`; fewer only at the end of the file.
std::size_t readSome(const detail::OpenedFile& file, const std::string& path, std::uint8_t* into,
                     std::size_t bytes) {
    std::size_t done = 0;
    while (done < bytes) {
        ssize_t got = 0;
        do
            got = ::read(file.fd.get(), into + done, bytes - done);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            throw InputError(path, 0, 0,
                             std::string("error while reading the photon counts: ") +
                                 std::strerror(errno));
        if (got == 0)
            break;
        done += static_cast<std::size_t>(got);
    }
    return done;
}

class RawFrameReader final : public FrameReader {
public:
    RawFrameReader(const std::string& path, std::size_t channels)
        : m_path(path), m_channels(channels), m_file(openStream(path)) {
        if (m_file.size == 0)
            throw InputError(path, 0, 0, "the file is empty: no frames");
        if (m_file.size % channels != 0)
            throw InputError(path, 0, 0,
                             "the file has " + std::to_string(m_file.size) +
                                 " bytes, not a multiple of " + std::to_string(channels) +
                                 " channels (one byte per channel and frame; " +
                                 std::to_string(m_file.size % channels) +
                                 (m_file.size % channels == 1 ? " byte" : " bytes") +
                                 " left over): is the channel count right?");
    }

    const std::string& path() const noexcept override { return m_path; }
    std::size_t channels() const noexcept override { return m_channels; }
    std::string formatName() const override { return "raw uint8 frames"; }
    std::optional<std::uint64_t> totalFrames() const noexcept override {
        return m_file.size / m_channels;
    }
    std::uint64_t fileBytes() const noexcept override { return m_file.size; }
    std::uint64_t bytesRead() const noexcept override { return m_read; }

    std::size_t read(std::vector<std::uint8_t>& frames, std::size_t maxFrames,
                     const std::atomic<bool>* cancel) override {
        const std::uint64_t left = (m_file.size - m_read) / m_channels;
        const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(maxFrames, left));
        frames.resize(count * m_channels);
        // Pieces of a few MB, so that Ctrl-C is honoured within one of them.
        constexpr std::size_t kPiece = std::size_t(8) << 20;
        for (std::size_t done = 0; done < frames.size();) {
            throwIfCancelled(cancel);
            const std::size_t want = std::min(kPiece, frames.size() - done);
            const std::size_t got = readSome(m_file, m_path, frames.data() + done, want);
            if (got < want)
                throw InputError(m_path, 0, 0,
                                 "the file shrank while it was being read (" +
                                     std::to_string(m_read + done + got) + " of " +
                                     std::to_string(m_file.size) +
                                     " bytes); is it being rewritten?");
            done += got;
        }
        m_read += frames.size();
        return count;
    }

private:
    std::string m_path;
    std::size_t m_channels;
    detail::OpenedFile m_file;
    std::uint64_t m_read = 0;
};

// A field that begins as a number does; a first line of other fields only is a header.
bool startsLikeNumber(std::string_view field) noexcept {
    if (!field.empty() && (field.front() == '+' || field.front() == '-'))
        field.remove_prefix(1);
    return !field.empty() && (std::isdigit(static_cast<unsigned char>(field.front())) ||
                              field.front() == '.');
}

class AsciiCountReader final : public FrameReader {
public:
    explicit AsciiCountReader(const std::string& path) : m_path(path), m_file(openStream(path)) {
        fill();
        checkText();
        findChannels();
    }

    const std::string& path() const noexcept override { return m_path; }
    std::size_t channels() const noexcept override { return m_channels; }
    std::string formatName() const override { return "ASCII columns"; }
    std::optional<std::uint64_t> totalFrames() const noexcept override { return std::nullopt; }
    std::uint64_t fileBytes() const noexcept override { return m_file.size; }
    std::uint64_t bytesRead() const noexcept override {
        return m_fromFile - std::min<std::uint64_t>(m_fromFile, m_pending.size());
    }

    std::size_t read(std::vector<std::uint8_t>& frames, std::size_t maxFrames,
                     const std::atomic<bool>* cancel) override {
        frames.clear();
        std::size_t got = 0;
        while (got < maxFrames) {
            throwIfCancelled(cancel);
            const std::size_t complete = completeLength();
            if (complete == 0) {
                if (m_atEnd)
                    break;
                fill();
                continue;
            }
            detail::LineReader lines(std::string_view(m_pending.data(), complete), m_lines,
                                     m_atFileStart);
            std::string_view line;
            long number = 0;
            while (got < maxFrames && lines.next(line, number)) {
                parseFrame(line, number, frames);
                ++got;
            }
            m_lines = lines.linesRead();
            m_pending.erase(0, complete - lines.remaining().size());
            m_atFileStart = false;
        }
        return got;
    }

private:
    static constexpr std::size_t kPiece = std::size_t(1) << 20;
    // A line longer than this is no line of counts (1024 channels take ~4 kB).
    static constexpr std::size_t kMaxLine = std::size_t(64) << 20;

    void fill() {
        const std::size_t old = m_pending.size();
        m_pending.resize(old + kPiece);
        const std::size_t got = readSome(
            m_file, m_path, reinterpret_cast<std::uint8_t*>(m_pending.data() + old), kPiece);
        m_pending.resize(old + got);
        m_fromFile += got;
        if (got < kPiece)
            m_atEnd = true;
    }

    // How much of the pending text ends with a whole line (all of it at the end of the file). A
    // CR counts as a line end only when the byte after it is known (a CRLF is one line end).
    std::size_t completeLength() const {
        if (m_atEnd)
            return m_pending.size();
        const std::size_t newline = m_pending.rfind('\n');
        if (newline != std::string::npos)
            return newline + 1;
        const std::size_t ret = m_pending.rfind('\r');
        if (ret != std::string::npos && ret + 1 < m_pending.size())
            return ret + 1;
        if (m_pending.size() > kMaxLine)
            throw InputError(m_path, m_lines + 1, 0,
                             "the line is longer than " + std::to_string(kMaxLine >> 20) +
                                 " MB: not a line of photon counts");
        return 0;
    }

    // Raw frames hold zeros (NUL bytes) and bytes below 32: said at once, not as a bad number.
    void checkText() const {
        const std::size_t look = std::min<std::size_t>(m_pending.size(), 65536);
        for (std::size_t i = 0; i < look; ++i) {
            const auto byte = static_cast<unsigned char>(m_pending[i]);
            if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r' && byte != '\f' &&
                byte != '\v')
                throw InputError(m_path, 0, 0,
                                 "looks like binary data, not columns of counts (byte " +
                                     std::to_string(i + 1) + " is " + std::to_string(byte) +
                                     "); raw uint8 frames are read with their channel count "
                                     "(tpacf autocorr --channels C)");
        }
    }

    // The number of channels: the columns of the first line that is not a comment, after a
    // first line that names its columns (a header), which is skipped.
    void findChannels() {
        long headerLine = 0;
        std::size_t headerColumns = 0;
        while (true) {
            const std::size_t complete = completeLength();
            if (complete == 0 && !m_atEnd) {
                fill();
                continue;
            }
            detail::LineReader lines(std::string_view(m_pending.data(), complete), m_lines,
                                     m_atFileStart);
            std::string_view line;
            long number = 0;
            if (!lines.next(line, number)) {
                if (m_atEnd)
                    throw InputError(m_path, 0, 0,
                                     headerLine ? "no frames: the file has a header line but no "
                                                  "line of photon counts"
                                                : "no frames: the file holds no line of photon "
                                                  "counts");
                // Blank and comment lines only so far: drop them and read on.
                m_lines = lines.linesRead();
                m_pending.erase(0, complete);
                m_atFileStart = false;
                continue;
            }
            detail::splitFields(line, m_fields);
            if (headerLine == 0 &&
                std::none_of(m_fields.begin(), m_fields.end(), startsLikeNumber)) {
                headerLine = number;
                headerColumns = m_fields.size();
                m_lines = lines.linesRead();
                m_pending.erase(0, complete - lines.remaining().size());
                m_atFileStart = false;
                continue;
            }
            if (headerLine && m_fields.size() != headerColumns)
                throw InputError(m_path, number, 0,
                                 "the line has " + std::to_string(m_fields.size()) +
                                     " columns where the header (line " +
                                     std::to_string(headerLine) + ") names " +
                                     std::to_string(headerColumns));
            m_channels = m_fields.size();
            m_firstLine = number;
            return;
        }
    }

    void parseFrame(std::string_view line, long number, std::vector<std::uint8_t>& frames) {
        detail::splitFields(line, m_fields);
        if (m_fields.size() != m_channels)
            throw InputError(m_path, number, 0,
                             "the line has " + std::to_string(m_fields.size()) +
                                 " columns where the first frame (line " +
                                 std::to_string(m_firstLine) + ") has " +
                                 std::to_string(m_channels) +
                                 ": one column per channel on every line");
        for (std::size_t c = 0; c < m_fields.size(); ++c)
            frames.push_back(countOf(m_fields[c], number, static_cast<int>(c + 1)));
    }

    std::uint8_t countOf(std::string_view field, long line, int column) const {
        if (field.empty())
            throw InputError(m_path, line, column, "the field is empty: expected a photon count");
        unsigned value = 0;
        const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
        if (error == std::errc() && end == field.data() + field.size() && value <= 255)
            return static_cast<std::uint8_t>(value);
        if (field.front() == '-' && field.size() > 1 &&
            field.find_first_not_of("0123456789", 1) == std::string_view::npos)
            throw InputError(m_path, line, column,
                             detail::quoteField(field) +
                                 " is negative: photon counts are integers 0-255");
        if ((error == std::errc() && end == field.data() + field.size()) ||
            error == std::errc::result_out_of_range)
            throw InputError(m_path, line, column,
                             detail::quoteField(field) +
                                 " is out of range: photon counts are integers 0-255 (one byte "
                                 "per channel and frame)");
        throw InputError(m_path, line, column,
                         detail::quoteField(field) +
                             " is not a photon count (an integer 0-255)");
    }

    std::string m_path;
    detail::OpenedFile m_file;
    std::string m_pending; // bytes read from the file and not yet parsed
    std::uint64_t m_fromFile = 0;
    bool m_atEnd = false;
    bool m_atFileStart = true;
    long m_lines = 0;     // lines of the file before m_pending
    long m_firstLine = 0; // the first frame's line, for messages
    std::size_t m_channels = 0;
    std::vector<std::string_view> m_fields;
};

} // namespace

std::unique_ptr<FrameReader> openRawFrames(const std::string& path, std::size_t channels) {
    if (channels == 0)
        throw ConfigError("raw frames need a channel count of at least 1 (C = 0)");
    return std::make_unique<RawFrameReader>(path, channels);
}

std::unique_ptr<FrameReader> openAsciiCounts(const std::string& path) {
    return std::make_unique<AsciiCountReader>(path);
}

} // namespace tpacf::fcs
