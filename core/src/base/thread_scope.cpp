// SPDX-License-Identifier: GPL-3.0-or-later
#include "thread_scope.h"

#include <utility>

namespace tpacf::detail {

namespace {
thread_local ThreadScope* t_scope = nullptr;
} // namespace

ThreadScope* ThreadScope::current() noexcept {
    return t_scope;
}

ThreadScope::~ThreadScope() {
    {
        const std::lock_guard lock(m_mutex);
        m_closing = true;
    }
    for (Slot& slot : m_slots)
        slot.wake.notify_one();
    for (std::thread& thread : m_threads)
        thread.join();
}

void ThreadScope::serve(Slot& slot) {
    t_scope = this;
    std::unique_lock lock(m_mutex);
    for (;;) {
        slot.wake.wait(lock, [&] { return slot.job || m_closing; });
        if (!slot.job)
            return;
        std::function<void()> job = std::move(slot.job);
        std::function<void()> done = std::move(slot.done);
        slot.job = nullptr;
        slot.done = nullptr;
        lock.unlock();
        job();
        job = nullptr; // its captures go before the slot is offered again
        lock.lock();
        m_parked.push_back(&slot);
        lock.unlock();
        if (done)
            done();
        done = nullptr;
        lock.lock();
    }
}

ThreadScope::Slot& ThreadScope::startThread(std::function<void()> job, std::function<void()> done) {
    Slot& slot = m_slots.emplace_back();
    slot.job = std::move(job);
    slot.done = std::move(done);
    try {
        m_threads.emplace_back([this, &slot] { serve(slot); });
    } catch (...) {
        m_slots.pop_back();
        throw;
    }
    return slot;
}

void ThreadScope::launch(std::function<void()> job, std::function<void()> done) {
    const std::lock_guard lock(m_mutex);
    if (m_parked.empty()) {
        startThread(std::move(job), std::move(done));
        return;
    }
    Slot& slot = *m_parked.back();
    m_parked.pop_back();
    slot.job = std::move(job);
    slot.done = std::move(done);
    slot.wake.notify_one();
}

void ThreadScope::park(std::size_t count) {
    const std::lock_guard lock(m_mutex);
    try {
        // Parked from the start: a launch may hand it a job before the thread first runs.
        while (m_parked.size() < count)
            m_parked.push_back(&startThread({}, {}));
    } catch (...) {
        // No thread for the rest now: launch() reports it where a worker needs one.
    }
}

} // namespace tpacf::detail
