// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf devices: what can count pairs here, and where a GPU is missing, why.
#include "cli/args.h"
#include "cli/context.h"
#include "cli/flag_help.h"
#include "tool_flags.h"
#include "tpacf/backend.h"
#include "tpacf/cpu_pair_counter.h"

#include <cstdio>
#include <ostream>
#include <string>
#include <thread>

namespace tpacf::cli {

namespace {

// One module: its devices, or why it has none.
void listModule(std::ostream& out, const BackendModule& module) {
    const auto devices = module.devices();
    const std::string version = module.versionDescription();
    if (devices.empty()) {
        out << module.name() << ": not available: " << module.unavailableReason() << '\n';
        if (!version.empty())
            out << "  " << version << '\n';
        return;
    }
    // Devices this build cannot run on come after the usable ones, each with why.
    const auto unsupported = module.unsupportedDevices();
    out << module.name() << ": " << devices.size()
        << (devices.size() == 1 ? " device" : " devices");
    if (!version.empty())
        out << " (" << version << ")";
    out << ", float and double precision\n";
    for (const auto& device : devices) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "  [%d] %s, %.1f GiB, compute capability %d.%d, %d multiprocessors",
                      device.index, device.name.c_str(),
                      static_cast<double>(device.memoryBytes) / (1024.0 * 1024.0 * 1024.0),
                      device.computeMajor, device.computeMinor, device.multiprocessors);
        out << line;
        if (device.fp32PerFp64 > 0)
            out << ", FP64 at 1/" << device.fp32PerFp64 << " of FP32";
        out << " (precision auto: "
            << precisionName(autoPrecision({device}).precision) << ")\n";
        if (!device.code.empty())
            out << "      runs " << device.code << '\n';
    }
    for (const std::string& reason : unsupported)
        out << "  not used: " << reason << '\n';
}

} // namespace

std::string devicesHelp(const BackendRegistry& backends) {
    return R"(Usage: tpacf devices [--threads N]

Lists the backends this build of tpacf can use: the CPU (threads) and, for each GPU backend,
its GPUs with their index (for --devices), name, memory, compute capability,
multiprocessor count and which of the build's GPU code each runs. Where a backend has no usable
GPU, or a GPU this build has no code for, it says why. The GPUs are read without being started
(NVML: no GPU driver start, ~0.25 s a GPU on a multi-GPU host). Always exits 0 when the listing
itself works.

)" + flagHelp(flags::kDevicesFlags, backends);
}

int devicesCommand(const Context& context) {
    const ParsedArgs args = parseArgs(flags::kDevicesFlags, context.args);
    const int threads = static_cast<int>(args.integer(flags::devices::kThreads, 0, 0, 4096));

    auto& out = context.out;
    const CpuPairCounter cpu(threads);
    out << "cpu: available\n";
    out << "  " << cpu.deviceDescription()
        << " (hardware threads: " << std::thread::hardware_concurrency() << "), double precision\n";

    for (const auto& module : context.backends.modules())
        listModule(out, *module);
    return 0;
}

} // namespace tpacf::cli
