// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the Studio's workers (job, Kernel Lab, FCS) share: one task at a time and its cancel flag.
// The owner's thread claims the worker in start(); the worker's thread releases it before each
// final signal, so that a slot reacting to that signal can start the next task at once.
#include <atomic>

namespace tpacf::ui {

class WorkerState {
public:
    /// False while a task runs; otherwise marks the worker busy and clears the cancel flag.
    bool claim() noexcept {
        if (m_busy.exchange(true))
            return false;
        m_cancelRequested.store(false);
        return true;
    }
    void release() noexcept { m_busy.store(false); }
    void requestCancel() noexcept { m_cancelRequested.store(true); }
    bool busy() const noexcept { return m_busy.load(); }
    bool cancelRequested() const noexcept { return m_cancelRequested.load(); }
    /// The flag the science polls (CorrelationJob::run, the readers, the lab).
    const std::atomic<bool>* cancelFlag() const noexcept { return &m_cancelRequested; }

private:
    std::atomic<bool> m_cancelRequested{false};
    std::atomic<bool> m_busy{false};
};

} // namespace tpacf::ui
