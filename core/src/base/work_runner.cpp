// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/work_runner.h"

#include "tpacf/errors.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

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

    void workerDone() {
        {
            const std::lock_guard lock(m_mutex);
            ++m_done;
        }
        m_wake.notify_one();
    }

    /// Waits up to `interval` for every one of `workers` to be done.
    bool waitAllDone(std::size_t workers, std::chrono::milliseconds interval) {
        std::unique_lock lock(m_mutex);
        return m_wake.wait_for(lock, interval, [&] { return m_done == workers; });
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

/// Threads joined on every way out, after the stop flag is raised.
class JoinedThreads {
public:
    explicit JoinedThreads(std::atomic<bool>& stop) : m_stop(stop) {}
    JoinedThreads(const JoinedThreads&) = delete;
    JoinedThreads& operator=(const JoinedThreads&) = delete;
    ~JoinedThreads() { joinAll(false); }

    template <class Fn> void start(Fn&& fn) { m_threads.emplace_back(std::forward<Fn>(fn)); }

    void joinAll(bool raiseStop) {
        if (raiseStop)
            m_stop = true;
        for (std::thread& thread : m_threads)
            if (thread.joinable())
                thread.join();
        m_threads.clear();
    }

private:
    std::atomic<bool>& m_stop;
    std::vector<std::thread> m_threads;
};

} // namespace

void runWorkers(std::size_t workers,
                const std::function<void(std::size_t worker, const std::atomic<bool>& stop)>& work,
                const RunnerWatch& watch) {
    if (workers == 0)
        return;
    RunState state;
    std::size_t started = 0;
    {
        JoinedThreads threads(state.stop());
        try {
            for (; started < workers; ++started)
                threads.start([&state, &work, worker = started] {
                    try {
                        work(worker, state.stop());
                    } catch (...) {
                        state.fail(std::current_exception());
                    }
                    state.workerDone();
                });
        } catch (...) {
            // No thread for the rest (std::system_error): stop the ones running, report it.
            state.fail(std::current_exception());
            threads.joinAll(true);
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
        threads.joinAll(true);
        if (cancelled && !state.error())
            throw Cancelled();
    }
    if (const std::exception_ptr error = state.error())
        std::rethrow_exception(error);
    if (watch.cancel && watch.cancel->load(std::memory_order_relaxed))
        throw Cancelled();
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
