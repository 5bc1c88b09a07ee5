// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the core suites: how long a count takes to stop once its cancel token is raised.
#include "tpacf/errors.h"
#include "tpacf/pair_counter.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace tpacf::test {

/// Runs `count(control)` and raises the control's cancel token from another thread after
/// `delay`. Returns the seconds from raising it to the count's return, or −1 when the count did
/// not end in tpacf::Cancelled.
template <class Count> double secondsToCancel(std::chrono::milliseconds delay, Count&& count) {
    using Clock = std::chrono::steady_clock;
    std::atomic<bool> cancel{false};
    CountControl control;
    control.cancelRequested = &cancel;
    Clock::time_point cancelledAt;
    std::thread canceller([&] {
        std::this_thread::sleep_for(delay);
        cancelledAt = Clock::now();
        cancel = true;
    });
    bool threw = false;
    try {
        count(control);
    } catch (const Cancelled&) {
        threw = true;
    }
    const Clock::time_point returned = Clock::now();
    canceller.join();
    return threw ? std::chrono::duration<double>(returned - cancelledAt).count() : -1.0;
}

} // namespace tpacf::test
