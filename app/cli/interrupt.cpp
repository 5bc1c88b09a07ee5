// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/interrupt.h"

#include <csignal>

namespace tpacf::cli {

namespace {
// A signal handler can reach only globals; this one flag is the whole shared state.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");

void onInterrupt(int signal) {
    g_interrupted.store(true, std::memory_order_relaxed);
    // The next Ctrl-C is not polite: the user wants out now.
    std::signal(signal, SIG_DFL);
}
} // namespace

std::atomic<bool>& interruptFlag() noexcept {
    return g_interrupted;
}

InterruptGuard::InterruptGuard() {
    g_interrupted.store(false);
    m_previousInt = std::signal(SIGINT, onInterrupt);
    m_previousTerm = std::signal(SIGTERM, onInterrupt);
}

InterruptGuard::~InterruptGuard() {
    std::signal(SIGINT, m_previousInt == SIG_ERR ? SIG_DFL : m_previousInt);
    std::signal(SIGTERM, m_previousTerm == SIG_ERR ? SIG_DFL : m_previousTerm);
}

} // namespace tpacf::cli
