// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading a command's catalogs while its backend starts: the GPU driver and contexts take
// ~0.25 s, reading 11 catalogs of 10^6 points about as long, and neither needs the other.
#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpacf::cli {

/// One catalog to read: its path and how.
struct CatalogRequest {
    std::string path;
    ReadOptions options;
};

struct LoadedCatalogs {
    std::vector<std::shared_ptr<const Catalog>> catalogs; // in the order requested
    std::vector<double> readSeconds;                      // per catalog (they overlap)
    double readingSeconds = 0;                            // all of them, wall
    double backendSeconds = 0;                            // the check and the warm-up
    std::chrono::steady_clock::time_point started;        // when both began
};

/// Points a catalog file probably holds, judged from its size and its first 64 KiB (text: the
/// mean length of its lines there; a binary file such as FITS: 16 bytes a row, at least two
/// doubles); nullopt where the path (a FITS selection's brackets left out) names no file.
/// For choosing GPUs before reading; never throws.
std::optional<std::uint64_t> estimatePointCount(const std::string& path) noexcept;

/// One count of a job by the requests it reads; no second: an auto count.
struct RequestCount {
    std::size_t first = 0;
    std::optional<std::size_t> second;
};

/// The counts of a correlation job (CorrelationJob's order) by request, the requests being the
/// data, its random sets, then (cross) the second sample and its random sets.
std::vector<RequestCount> requestCounts(std::size_t randomSets, bool cross,
                                        std::size_t random2Sets);

/// Before reading: the GPUs the job will use (device_choice.h) — from the catalogs' estimated
/// sizes where none were asked for, this rank's share under MPI — with every other GPU kept
/// out of the driver (reserveJobDevices). Call it on the thread that then starts the reading,
/// before it does. The options come back with gpuDevices and deviceChoice set.
BackendOptions reserveDevicesBeforeReading(const std::vector<CatalogRequest>& requests,
                                           const std::vector<RequestCount>& counts,
                                           const BinSpec& bins, const BackendOptions& backend,
                                           const BackendRegistry& backends,
                                           double shareFraction);

/// Reads `requests` (a few files at a time, each parsed on several threads) while another thread
/// checks the backend (checkBackendUsable) and warms it up (warmUpBackend). Of several bad files
/// the first in request order is reported; an unusable backend stops the reading and is the
/// error reported, whatever the files hold (as when it was checked first); a raised `cancel`
/// (Ctrl-C) stops both (Cancelled).
LoadedCatalogs loadCatalogsWhileBackendStarts(const std::vector<CatalogRequest>& requests,
                                              const BackendOptions& backend,
                                              const BackendRegistry& backends,
                                              const std::atomic<bool>* cancel);

} // namespace tpacf::cli
