#pragma once
// Internal to core: worker threads that are joined on every way out of a scope, a throwing
// progress callback or poll included, after being told to stop.
#include <atomic>
#include <thread>
#include <utility>
#include <vector>

namespace tpacf {

class StopAndJoin {
public:
    explicit StopAndJoin(std::atomic<bool>& stop) : m_stop(stop) {}
    StopAndJoin(const StopAndJoin&) = delete;
    StopAndJoin& operator=(const StopAndJoin&) = delete;
    ~StopAndJoin() { joinAll(); }

    template <class... Args> void start(Args&&... args) {
        m_threads.emplace_back(std::forward<Args>(args)...);
    }
    /// Raises the stop flag and waits for every thread; safe to call more than once.
    void joinAll() {
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

} // namespace tpacf
