// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/input_loading.h"

#include "cli/options.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <chrono>
#include <exception>

namespace tpacf::cli {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Files read at once. Each read already parses on several threads, but its serial parts (the
// read into fresh memory, first touches of the columns, the head) are ~half of it with 16 cores;
// a few files side by side fill those gaps.
constexpr std::size_t kFilesAtOnce = 4;

// Reads every request, several at a time, each on its share of the threads. The error reported
// is the one of the first failing file in request order, as reading them one by one would give:
// a failure stops only the files after it.
void readAll(const std::vector<CatalogRequest>& requests, const std::atomic<bool>& stopAll,
             LoadedCatalogs& loaded) {
    const std::size_t count = requests.size();
    std::vector<std::atomic<bool>> stopFile(count);
    std::vector<std::exception_ptr> errors(count);
    std::atomic<std::size_t> next{0};
    const std::size_t readers = std::min(kFilesAtOnce, count);
    RunnerWatch watch;
    watch.tick = [&] {
        if (stopAll.load())
            for (std::atomic<bool>& flag : stopFile)
                flag = true;
    };
    watch.interval = std::chrono::milliseconds(10);
    runWorkers(readers, [&](std::size_t, const std::atomic<bool>&) {
        for (std::size_t i = next++; i < count; i = next++) {
            if (stopFile[i].load() || stopAll.load())
                continue;
            const Clock::time_point start = Clock::now();
            ReadOptions options = requests[i].options;
            const int threads = options.threads > 0 ? options.threads
                                                    : static_cast<int>(hardwareThreads());
            options.threads = std::max(1, threads / static_cast<int>(readers));
            // Raised by a failure of an earlier file, or (the watch) an unusable backend or Ctrl-C.
            options.cancelRequested = &stopFile[i];
            try {
                loaded.catalogs[i] =
                    std::make_shared<const Catalog>(readCatalog(requests[i].path, options));
                loaded.readSeconds[i] = secondsSince(start);
            } catch (...) {
                errors[i] = std::current_exception();
                for (std::size_t later = i + 1; later < count; ++later)
                    stopFile[later] = true;
            }
        }
    }, watch);
    for (const std::exception_ptr& error : errors)
        if (error)
            std::rethrow_exception(error);
}

} // namespace

LoadedCatalogs loadCatalogsWhileBackendStarts(const std::vector<CatalogRequest>& requests,
                                              const BackendOptions& backend,
                                              const BackendRegistry& backends,
                                              const std::atomic<bool>* cancel) {
    LoadedCatalogs loaded;
    loaded.catalogs.resize(requests.size());
    loaded.readSeconds.resize(requests.size());
    // Raised by an unusable backend or by Ctrl-C (the watch below): the reader's cancel flag.
    std::atomic<bool> stopReading{false};
    std::exception_ptr backendError, readError;
    RunnerWatch watch;
    watch.tick = [&] {
        if (cancel && cancel->load())
            stopReading = true;
    };
    watch.interval = std::chrono::milliseconds(20);
    runWorkers(2, [&](std::size_t worker, const std::atomic<bool>&) {
        if (worker == 0) {
            const Clock::time_point start = Clock::now();
            try {
                checkBackendUsable(backend, backends);
                warmUpBackend(backend, backends);
            } catch (...) {
                backendError = std::current_exception();
                stopReading = true;
            }
            loaded.backendSeconds = secondsSince(start);
            return;
        }
        const Clock::time_point start = Clock::now();
        try {
            readAll(requests, stopReading, loaded);
        } catch (...) {
            readError = std::current_exception();
        }
        loaded.readingSeconds = secondsSince(start);
    }, watch);
    // The backend's error first, as when it was checked before any file was opened; a read
    // stopped for it ends in Cancelled, which must not hide it.
    if (backendError)
        std::rethrow_exception(backendError);
    if (cancel && cancel->load())
        throw Cancelled();
    if (readError)
        std::rethrow_exception(readError);
    return loaded;
}

} // namespace tpacf::cli
