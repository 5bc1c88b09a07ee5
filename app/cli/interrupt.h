// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Ctrl-C handling: SIGINT (and SIGTERM) set the cancel flag the running job polls, so a long
// count stops cleanly at its next check instead of the process dying mid-write.
#include <atomic>

namespace tpacf::cli {

/// The flag the handler sets. Lock-free, so setting it from a signal handler is safe.
std::atomic<bool>& interruptFlag() noexcept;

/// Installs the handlers for the lifetime of the object and restores the previous ones after.
/// A second Ctrl-C while the first is being honoured kills the process the default way.
class InterruptGuard {
  public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

  private:
    void (*m_previousInt)(int) = nullptr;
    void (*m_previousTerm)(int) = nullptr;
};

} // namespace tpacf::cli
