// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_support.h"

#include <algorithm>
#include <charconv>

namespace tpacf::cuda::detail {

namespace {

std::string ccText(int cc) {
    return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

} // namespace

std::optional<std::vector<CodeTarget>> parseArchitectures(std::string_view list) {
    std::vector<CodeTarget> targets;
    while (!list.empty()) {
        const std::size_t end = std::min(list.find_first_of(";,"), list.size());
        std::string_view entry = list.substr(0, end);
        list.remove_prefix(std::min(end + 1, list.size()));
        if (entry.empty())
            continue;
        bool real = true, virt = true;
        if (entry.ends_with("-real")) {
            virt = false;
            entry.remove_suffix(5);
        } else if (entry.ends_with("-virtual")) {
            real = false;
            entry.remove_suffix(8);
        }
        int value = 0;
        const auto [rest, error] = std::from_chars(entry.data(), entry.data() + entry.size(), value);
        if (error != std::errc() || value < 10)
            return std::nullopt; // "all", "native", ...: resolved by CMake, not known here
        const std::string_view suffix(rest, static_cast<std::size_t>(entry.data() + entry.size() - rest));
        const bool exact = suffix == "a" || suffix == "f";
        if (!suffix.empty() && !exact)
            return std::nullopt;
        if (real)
            targets.push_back({value, true, exact});
        if (virt)
            targets.push_back({value, false, exact});
    }
    if (targets.empty())
        return std::nullopt;
    return targets;
}

DeviceCode codeForDevice(int major, int minor, const std::vector<CodeTarget>& targets) {
    const int cc = 10 * major + minor;
    DeviceCode best;
    // Machine code runs on its own major generation, at its minor version or a later one.
    for (const CodeTarget& t : targets)
        if (t.machine && (t.exact ? t.cc == cc : t.cc / 10 == major && t.cc <= cc) &&
            (!best.runs || t.cc > best.cc))
            best = {true, false, t.cc, "sm_" + std::to_string(t.cc) + " machine code"};
    if (best.runs)
        return best;
    // PTX runs on its compute capability and every later one, compiled by the driver.
    for (const CodeTarget& t : targets)
        if (!t.machine && (t.exact ? t.cc == cc : t.cc <= cc) && (!best.runs || t.cc > best.cc))
            best = {true, true, t.cc,
                    "compute_" + std::to_string(t.cc) + " PTX (compiled by the driver at first use)"};
    return best;
}

std::string describeTargets(const std::vector<CodeTarget>& targets) {
    std::string machine, ptx;
    for (const CodeTarget& t : targets) {
        std::string& list = t.machine ? machine : ptx;
        list += (list.empty() ? "" : ", ") + std::string(t.machine ? "sm_" : "compute_") +
                std::to_string(t.cc) + (t.exact ? "a" : "");
    }
    std::string text;
    if (!machine.empty())
        text = "machine code for " + machine;
    if (!ptx.empty())
        text += (text.empty() ? "" : "; ") + std::string("PTX for ") + ptx;
    return text;
}

std::string unsupportedReason(int index, const std::string& name, int major, int minor,
                              std::string_view architectures) {
    const auto targets = parseArchitectures(architectures);
    if (!targets || codeForDevice(major, minor, *targets).runs)
        return {};
    const int cc = 10 * major + minor;
    int oldestPtx = 0;
    for (const CodeTarget& t : *targets)
        if (!t.machine && (oldestPtx == 0 || t.cc < oldestPtx))
            oldestPtx = t.cc;
    std::string text = "GPU " + std::to_string(index) + " (" + name + ", compute capability " +
                       ccText(cc) + ") cannot run this build's GPU code (" +
                       describeTargets(*targets) + ")";
    if (oldestPtx > cc)
        text += ": its PTX needs compute capability " + ccText(oldestPtx) + " or newer";
    text += ". Rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(cc) +
            (cc < 75 ? " and CUDA 12 (CUDA 13 dropped compute capability " + ccText(cc) + ")" : "");
    return text;
}

std::string_view builtArchitectures() {
#ifdef TPACF_CUDA_ARCHITECTURES
    return TPACF_CUDA_ARCHITECTURES;
#else
    return {};
#endif
}

} // namespace tpacf::cuda::detail
