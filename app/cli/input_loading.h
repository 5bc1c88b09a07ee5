// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading a command's catalogs while its backend starts: the GPU driver and contexts take
// ~0.25 s, reading 11 catalogs of 10^6 points about as long, and neither needs the other.
#include "tpacf/backend.h"
#include "tpacf/catalog.h"
#include "tpacf/catalog_reader.h"

#include <atomic>
#include <memory>
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
};

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
