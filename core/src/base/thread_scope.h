// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The threads of one outermost run of runWorkers and of every run nested in its workers (a GPU
// batch's lister builds each stage's list in several parallel steps while the devices' workers
// count). Starting and joining 32 threads costs about a millisecond, and a list paid it at every
// step; within a scope a worker that returns parks and takes the next nested worker instead.
// Every thread is joined when the outermost run ends, so nothing outlives a run.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace tpacf::detail {

class ThreadScope {
public:
    ThreadScope() = default;
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;
    /// Joins every thread; each has finished its job (runWorkers waits for them first).
    ~ThreadScope();

    /// The scope of the calling thread: the one whose thread it is, or null outside any run.
    static ThreadScope* current() noexcept;

    /// Runs `job` on a parked thread of the scope, or on a new one, then parks the thread and
    /// calls `done`: a run that waits for every `done` finds its threads parked for the next.
    /// Neither may throw. Throws std::system_error when a new thread is needed and cannot be
    /// created.
    void launch(std::function<void()> job, std::function<void()> done);
    /// Starts threads until `count` are parked, so that the nested runs that follow start at once.
    /// A thread that cannot be created is left for launch() to report.
    void park(std::size_t count);

private:
    struct Slot {
        std::function<void()> job, done;
        std::condition_variable wake;
    };
    void serve(Slot& slot);
    // Adds a slot with `job` and `done` (empty: none yet) and its thread, the lock held; the slot
    // is removed again if no thread starts.
    Slot& startThread(std::function<void()> job, std::function<void()> done);

    std::mutex m_mutex;
    std::list<Slot> m_slots; // stable addresses for the threads
    std::vector<Slot*> m_parked;
    std::vector<std::thread> m_threads;
    bool m_closing = false;
};

} // namespace tpacf::detail
