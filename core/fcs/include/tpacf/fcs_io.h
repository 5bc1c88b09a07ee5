// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Photon-count streams in and multi-tau results out. Readers stream a file in pieces (files of
// a running experiment are many GB): raw interleaved uint8 frames (frame-major, one byte per
// channel) and ASCII with one channel per column. The result is an ECSV table in long form, one
// row per channel and lag (docs/fcs-multitau.md).
#include "tpacf/multitau.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpacf::fcs {

/// A file of photon counts read in pieces of whole frames.
class FrameReader {
public:
    virtual ~FrameReader() = default;
    virtual const std::string& path() const noexcept = 0;
    virtual std::size_t channels() const noexcept = 0;
    /// "raw uint8 frames" or "ASCII columns", for messages and metadata.
    virtual std::string formatName() const = 0;
    /// The frames of the file where known before reading it (raw files); nullopt for ASCII.
    virtual std::optional<std::uint64_t> totalFrames() const noexcept = 0;
    /// The file's size and the bytes consumed so far: the fraction read, for progress.
    virtual std::uint64_t fileBytes() const noexcept = 0;
    virtual std::uint64_t bytesRead() const noexcept = 0;
    /// Replaces `frames` with the next frames of the file (frame-major, channels() bytes each),
    /// at most `maxFrames` of them; returns how many, 0 at the end. Throws InputError naming the
    /// file (and line and column for ASCII), or Cancelled once `cancel` is set.
    virtual std::size_t read(std::vector<std::uint8_t>& frames, std::size_t maxFrames,
                             const std::atomic<bool>* cancel = nullptr) = 0;
};

/// Raw interleaved uint8 frames of `channels` channels. Regular files only; InputError naming
/// the file when it cannot be read, is empty, or its size is not a multiple of `channels`;
/// ConfigError for channels == 0.
std::unique_ptr<FrameReader> openRawFrames(const std::string& path, std::size_t channels);

/// One channel per column: integers 0-255 separated by blanks or commas, one frame per line;
/// '#' starts a comment; a first line of names only (a header) is skipped. The first frame
/// fixes the number of channels. Errors (InputError) name file, line and column: a field that
/// is not such an integer, a line with another number of columns, a binary file, no frames.
std::unique_ptr<FrameReader> openAsciiCounts(const std::string& path);

/// What the result table says about its run beside the counts.
struct AutocorrelationInfo {
    double frameSeconds = 1.6e-6; ///< the duration of one frame: tau_s = tau_frames * this
    std::string invocation;       ///< the command line, if any
    std::string input;            ///< where the frames came from, in words
    std::string backend;          ///< "cpu", "cuda"
    std::string device;
    double elapsedSeconds = 0;
    bool completed = true;        ///< false: the stream was stopped early (counts so far)
    /// More (key, value) metadata, e.g. a simulation's parameters.
    std::vector<std::pair<std::string, std::string>> extra;
};

/// The columns of the table, in order: channel (string: the channel index, or "mean"), level,
/// j, tau_frames, tau_s, A, G.
std::vector<std::string> autocorrelationColumns();

/// The counts as ECSV: one row per channel and lag (lagsOf order), then one row per lag with
/// channel "mean" holding the mean of G over the channels where it is defined and an empty
/// (missing) A. Metadata: the settings, frames, channels, frame time, backend, device and `info`.
void writeAutocorrelationEcsv(std::ostream& out, const MultiTauCounts& counts,
                              const AutocorrelationInfo& info);

} // namespace tpacf::fcs
