// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one way the project runs work on several threads: a set of workers watched from the
// calling thread for progress, cancellation and the first error. The CPU backend, a GPU
// module's host side (one worker per GPU) and the helpers (cell plans, region assignment) all
// use it.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>

namespace tpacf {

/// Hardware threads of this machine, at least 1.
std::size_t hardwareThreads() noexcept;

/// Workers to use for a request: `threads` <= 0 means every hardware thread; never more than
/// `workItems` (at least 1).
std::size_t workerCount(int threads, std::size_t workItems) noexcept;

/// What the calling thread does while the workers run.
struct RunnerWatch {
    /// Called on the calling thread about every `interval` while workers run (progress
    /// snapshots); may be empty. An exception from it stops the workers and is rethrown.
    std::function<void()> tick;
    /// Raised by the caller (Ctrl-C, the GUI's Cancel): the workers are stopped and Cancelled
    /// is thrown once they are joined. May be null.
    const std::atomic<bool>* cancel = nullptr;
    std::chrono::milliseconds interval{50};
};

/// Runs work(worker, stop) for worker = 0 … workers−1, each on its own thread, and returns when
/// all have returned. A run made inside a worker takes threads the outermost run has parked, or
/// new ones; the outermost run joins every thread before it returns, so none outlives it. `stop` is
/// raised when the caller cancels or any worker throws; workers poll it between units of work.
/// After every worker has returned, the first exception (a worker's, the tick's, or Cancelled) is
/// rethrown on the calling thread. A thread that cannot be created is such an error too
/// (std::system_error), never std::terminate. workers == 1 still runs on a worker thread, so the
/// calling thread stays free to report progress and watch the cancel flag.
void runWorkers(std::size_t workers,
                const std::function<void(std::size_t worker, const std::atomic<bool>& stop)>& work,
                const RunnerWatch& watch = {});

/// Inside a worker of a run: starts threads until `workers` are parked for the runs nested in it,
/// so that they start without creating threads (a GPU batch's lister, while it waits for the first
/// tile boxes, before each stage's list is built in several parallel steps). Outside a run, or
/// where no thread can be created now, it does nothing.
void parkWorkers(std::size_t workers);

/// Calls body(begin, end) over [0, count) split into contiguous ranges, one per worker
/// (`threads` <= 0: every hardware thread; fewer when `count` is below `minPerWorker` per
/// worker), through runWorkers; the first exception is rethrown. Runs inline when one worker.
void parallelForRanges(std::size_t count,
                       const std::function<void(std::size_t begin, std::size_t end)>& body,
                       int threads = 0, std::size_t minPerWorker = 1);

} // namespace tpacf
