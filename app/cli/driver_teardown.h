// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU driver's teardown of this process, left to a child process so that a command returns
// without waiting for it (driver_teardown.cpp says why and how).
#include <string>
#include <string_view>

namespace tpacf::cli {

/// Whether a command's end leaves the driver's teardown to a child (the default) or waits for
/// it, as the environment variable kGpuTeardownVariable says: "child", or "wait" for containers
/// whose first process does not reap orphans (each ended child would stay a zombie there).
enum class TeardownChoice { Child, Wait };
inline constexpr const char* kGpuTeardownVariable = "TPACF_GPU_TEARDOWN";

/// The choice for the variable's value (null: unset). Unset, empty and "child" give Child,
/// "wait" Wait; any other value gives Child and a one-line `problem` naming it.
TeardownChoice teardownChoice(const char* value, std::string& problem);

/// Where the NVIDIA driver's device files live: a file descriptor of this process that names a
/// path under it means the driver holds state for the process.
inline constexpr std::string_view kGpuDriverFiles = "/dev/nvidia";

/// Call once a command's outputs are complete and flushed, just before the process ends. Where a
/// file descriptor of this process names a path under `driverFiles`, forks a child that closes
/// every other descriptor, keeps those until this process is gone and then ends, so that the
/// driver's teardown (when the last descriptor of its files closes) runs in the child. Returns
/// the child's pid, or 0 where there is nothing to hand over or no child could be made (the
/// process then ends as before). Linux only; elsewhere always 0.
int leaveDriverTeardownToChild(std::string_view driverFiles = kGpuDriverFiles) noexcept;

} // namespace tpacf::cli
