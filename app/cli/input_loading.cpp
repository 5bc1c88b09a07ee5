// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/input_loading.h"

#include "cli/options.h"
#include "tpacf/device_choice.h"
#include "tpacf/errors.h"
#include "tpacf/work_runner.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>

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

std::optional<std::uint64_t> estimatePointCount(const std::string& path) noexcept {
    try {
        std::error_code error;
        std::string file = path;
        if (!std::filesystem::is_regular_file(file, error)) {
            file = path.substr(0, path.find('[')); // 'd.fits[1][Z>0.5]'
            if (!std::filesystem::is_regular_file(file, error))
                return std::nullopt;
        }
        const std::uint64_t size = std::filesystem::file_size(file, error);
        if (error)
            return std::nullopt;
        std::ifstream in(file, std::ios::binary);
        std::string head(std::min<std::uint64_t>(size, 65536), '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        head.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
        if (head.find('\0') != std::string::npos || head.starts_with("SIMPLE  ="))
            return size / 16;
        std::uint64_t lines = 0;
        for (const char c : head)
            lines += c == '\n' ? 1 : 0;
        if (head.size() == size)
            return lines + (head.empty() || head.back() == '\n' ? 0 : 1);
        return lines == 0 ? 1 : size / std::max<std::uint64_t>(1, head.size() / lines);
    } catch (...) {
        return std::nullopt;
    }
}

std::vector<RequestCount> requestCounts(std::size_t randomSets, bool cross,
                                        std::size_t random2Sets) {
    std::vector<RequestCount> counts;
    if (!cross) {
        counts.push_back({0, std::nullopt});                 // DD
        for (std::size_t i = 0; i < randomSets; ++i)
            counts.push_back({0, 1 + i});                   // DR_i
        for (std::size_t i = 0; i < randomSets; ++i)
            counts.push_back({1 + i, std::nullopt});        // RR_i
        return counts;
    }
    const std::size_t data2 = 1 + randomSets;
    const auto random2 = [&](std::size_t i) { return random2Sets > 0 ? data2 + 1 + i : 1 + i; };
    counts.push_back({0, data2});                           // D1D2
    for (std::size_t i = 0; i < randomSets; ++i)
        counts.push_back({0, random2(i)});                  // D1R2_i
    for (std::size_t i = 0; i < randomSets; ++i)
        counts.push_back({1 + i, data2});                   // R1D2_i
    for (std::size_t i = 0; i < randomSets; ++i)            // R1R2_i (R1R1 without randoms2)
        counts.push_back(random2Sets > 0 ? RequestCount{1 + i, random2(i)}
                                         : RequestCount{1 + i, std::nullopt});
    return counts;
}

BackendOptions reserveDevicesBeforeReading(const std::vector<CatalogRequest>& requests,
                                           const std::vector<RequestCount>& counts,
                                           const BinSpec& bins, const BackendOptions& backend,
                                           const BackendRegistry& backends,
                                           double shareFraction) {
    std::optional<CountWorkEstimate> work;
    if (backend.gpuDevices.empty() && backendModuleFor(backend, backends)) {
        std::vector<std::optional<std::uint64_t>> points;
        for (const CatalogRequest& request : requests)
            points.push_back(estimatePointCount(request.path));
        std::vector<CountShape> shapes;
        bool known = true;
        for (const RequestCount& count : counts) {
            const auto first = points.at(count.first);
            const auto second = count.second ? points.at(*count.second) : first;
            known = known && first && second;
            if (known)
                shapes.push_back({*first, *second, !count.second});
        }
        // A size that cannot be judged leaves the choice to the job: every GPU of the process.
        if (known)
            work = estimateCountWork(shapes, Binning(bins), backend.culling, shareFraction);
    }
    BackendOptions chosen = reserveJobDevices(backend, backends, work ? &*work : nullptr);
    if (!work && backend.gpuDevices.empty()) {
        // No estimate: the rank's GPUs are reserved and started beside the reading, and the job
        // chooses among them from the catalogs themselves.
        chosen.gpuDevices.clear();
        chosen.deviceChoice.clear();
        chosen.placement = backend.placement;
    }
    return chosen;
}

LoadedCatalogs loadCatalogsWhileBackendStarts(const std::vector<CatalogRequest>& requests,
                                              const BackendOptions& backend,
                                              const BackendRegistry& backends,
                                              const std::atomic<bool>* cancel) {
    LoadedCatalogs loaded;
    loaded.started = Clock::now();
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
