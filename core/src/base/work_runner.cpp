// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/work_runner.h"

#include "thread_scope.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace tpacf {

std::size_t hardwareThreads() noexcept {
    return std::max(1u, std::thread::hardware_concurrency());
}

std::size_t workerCount(int threads, std::size_t workItems) noexcept {
    const std::size_t wanted = threads > 0 ? static_cast<std::size_t>(threads) : hardwareThreads();
    return std::max<std::size_t>(1, std::min(wanted, workItems));
}

namespace {

/// What the workers share with the watching thread.
class RunState {
public:
    void fail(std::exception_ptr error) {
        {
            const std::lock_guard lock(m_mutex);
            if (!m_error)
                m_error = std::move(error);
        }
        m_stop = true;
        m_wake.notify_one();
    }

    // Notified under the lock: once the waiter sees the last one done it may return and destroy
    // this state, so the worker touches nothing of it after unlocking.
    void workerDone() {
        const std::lock_guard lock(m_mutex);
        ++m_done;
        m_wake.notify_one();
    }

    /// Waits up to `interval` for every one of `workers` to be done.
    bool waitAllDone(std::size_t workers, std::chrono::milliseconds interval) {
        std::unique_lock lock(m_mutex);
        return m_wake.wait_for(lock, interval, [&] { return m_done == workers; });
    }

    /// Waits for every one of `workers` to be done.
    void waitAllDone(std::size_t workers) {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [&] { return m_done == workers; });
    }

    std::exception_ptr error() {
        const std::lock_guard lock(m_mutex);
        return m_error;
    }

    std::atomic<bool>& stop() noexcept { return m_stop; }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::size_t m_done = 0;
    std::exception_ptr m_error;
    std::atomic<bool> m_stop{false};
};

} // namespace

void runWorkers(std::size_t workers,
                const std::function<void(std::size_t worker, const std::atomic<bool>& stop)>& work,
                const RunnerWatch& watch) {
    if (workers == 0)
        return;
    // A run nested in a worker takes the threads of the outermost run's scope; the outermost run
    // joins them all as it returns.
    std::optional<detail::ThreadScope> ownScope;
    detail::ThreadScope* scope = detail::ThreadScope::current();
    if (!scope)
        scope = &ownScope.emplace();
    RunState state;
    std::size_t started = 0;
    try {
        for (; started < workers; ++started)
            scope->launch(
                [&state, &work, worker = started] {
                    try {
                        work(worker, state.stop());
                    } catch (...) {
                        state.fail(std::current_exception());
                    }
                },
                [&state] { state.workerDone(); });
    } catch (...) {
        // No thread for the rest (std::system_error): stop the ones running, report it.
        state.fail(std::current_exception());
    }
    bool cancelled = false;
    while (started == workers && !state.waitAllDone(workers, watch.interval)) {
        if (watch.cancel && watch.cancel->load(std::memory_order_relaxed)) {
            cancelled = true;
            break;
        }
        if (state.stop().load(std::memory_order_relaxed))
            continue; // a worker failed: wait for the others to see the flag
        if (watch.tick) {
            try {
                watch.tick();
            } catch (...) {
                state.fail(std::current_exception());
            }
        }
    }
    // Every way out: the workers see the flag and return before `state` and `work` go.
    state.stop() = true;
    state.waitAllDone(started);
    if (cancelled && !state.error())
        throw Cancelled();
    if (const std::exception_ptr error = state.error())
        std::rethrow_exception(error);
    if (watch.cancel && watch.cancel->load(std::memory_order_relaxed))
        throw Cancelled();
}

void parkWorkers(std::size_t workers) {
    if (detail::ThreadScope* scope = detail::ThreadScope::current())
        scope->park(workers);
}

void parallelForRanges(std::size_t count,
                       const std::function<void(std::size_t begin, std::size_t end)>& body,
                       int threads, std::size_t minPerWorker) {
    if (count == 0)
        return;
    const std::size_t workers = workerCount(
        threads, std::max<std::size_t>(1, count / std::max<std::size_t>(1, minPerWorker)));
    if (workers == 1) {
        body(0, count);
        return;
    }
    const std::size_t step = (count + workers - 1) / workers;
    runWorkers(workers, [&](std::size_t worker, const std::atomic<bool>&) {
        const std::size_t begin = std::min(count, worker * step);
        const std::size_t end = std::min(count, begin + step);
        if (begin < end)
            body(begin, end);
    });
}

} // namespace tpacf
