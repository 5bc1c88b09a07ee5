// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpacf/backend.h"

#include "tpacf/cpu_pair_counter.h"
#include "tpacf/device_choice.h"
#include "tpacf/errors.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tpacf {

namespace {

std::string lowerCase(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

std::string inQuotes(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

// Why `module` cannot count here, or "" when it can.
std::string moduleUnavailableReason(const BackendModule& module) {
    if (!module.compiledIn() || module.devices().empty()) {
        std::string reason = module.unavailableReason();
        return reason.empty() ? std::string("no usable device found") : reason;
    }
    return {};
}

// Every counter leaves here with the culling mode and memory limit asked for, whichever backend
// it is.
std::unique_ptr<PairCounter> withCulling(std::unique_ptr<PairCounter> counter,
                                         const BackendOptions& options) {
    counter->setCulling(options.culling);
    counter->setDeviceMemoryLimit(options.deviceMemoryLimit);
    return counter;
}

std::unique_ptr<PairCounter> makeCpuCounter(const BackendOptions& options) {
    return withCulling(std::make_unique<CpuPairCounter>(options.cpuThreads), options);
}

// The devices a counter over `indices` uses (empty: every device the module lists).
std::vector<GpuDeviceInfo> chosenDevices(const BackendModule& module,
                                         const std::vector<int>& indices) {
    std::vector<GpuDeviceInfo> devices = module.devices();
    if (indices.empty())
        return devices;
    std::vector<GpuDeviceInfo> chosen;
    for (const int index : indices)
        for (const GpuDeviceInfo& device : devices)
            if (device.index == index)
                chosen.push_back(device);
    return chosen;
}

// The precision a counter of `module` over `devices` counts in, and why: the one asked for,
// else the one "auto" picks on those devices.
PrecisionChoice jobPrecision(const BackendOptions& options, const BackendModule& module,
                             const std::vector<int>& devices) {
    if (options.precision)
        return {*options.precision, "requested"};
    PrecisionChoice choice = autoPrecision(chosenDevices(module, devices));
    choice.reason = "auto: " + choice.reason;
    return choice;
}

BackendSelection moduleSelection(const BackendOptions& options, const BackendModule& module,
                                 const CountWorkEstimate* work) {
    BackendSelection selection;
    // The devices first (asked for, this rank's, or as many as the work wants), then the
    // precision "auto" picks on them.
    DeviceChoice devices = chooseJobDevices(module, options, work);
    const PrecisionChoice precision = jobPrecision(options, module, devices.devices);
    selection.precisionChoice = precision.reason;
    selection.deviceChoice = std::move(devices.reason);
    selection.counter = withCulling(module.create(precision.precision, devices.devices), options);
    return selection;
}

BackendSelection cpuSelection(const BackendOptions& options, std::string notice = {}) {
    return {makeCpuCounter(options), std::move(notice),
            options.precision == Precision::Double ? "requested"
                                                   : "the CPU backend counts in double",
            {}};
}

std::string ratioText(int fp32PerFp64) {
    return fp32PerFp64 == 1 ? std::string("the same rate as") : "1/" + std::to_string(fp32PerFp64) + " of";
}

} // namespace

void BackendModule::warmUp(const std::vector<int>&, Precision) const {}

void BackendModule::reserveDevices(const std::vector<int>&) const {}

std::vector<std::string> BackendModule::unsupportedDevices() const {
    return {};
}

std::string BackendModule::buildDescription() const {
    return {};
}

std::string BackendModule::displayName() const {
    std::string text = name();
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return text;
}

BackendRegistry& BackendRegistry::add(std::shared_ptr<const BackendModule> module) {
    if (!module)
        throw ConfigError("a backend module to register is missing");
    const std::string name = module->name();
    if (name.empty() || lowerCase(name) != name)
        throw ConfigError("the backend name " + inQuotes(name) + " is not a lower-case word");
    if (name == kAutoBackend || name == kCpuBackend || name == kGpuAlias)
        throw ConfigError("the backend name " + inQuotes(name) + " is reserved");
    if (find(name))
        throw ConfigError("a backend named " + inQuotes(name) + " is already registered");
    m_modules.push_back(std::move(module));
    return *this;
}

BackendRegistry& BackendRegistry::replace(std::shared_ptr<const BackendModule> module) {
    if (!module)
        throw ConfigError("a backend module to register is missing");
    for (auto& registered : m_modules)
        if (registered->name() == module->name()) {
            registered = std::move(module);
            return *this;
        }
    throw ConfigError("no backend named " + inQuotes(module->name()) + " to replace (" + namesText() +
                      ")");
}

const BackendModule* BackendRegistry::find(std::string_view name) const noexcept {
    try {
        const std::string lower = lowerCase(name);
        for (const auto& module : m_modules)
            if (module->name() == lower)
                return module.get();
    } catch (...) {
        // Only a failed allocation of the lower-case copy lands here: no such module then.
    }
    return nullptr;
}

std::vector<std::string> BackendRegistry::names() const {
    std::vector<std::string> list{std::string(kAutoBackend), std::string(kCpuBackend)};
    for (const auto& module : m_modules)
        list.push_back(module->name());
    return list;
}

std::string BackendRegistry::namesText() const {
    std::string text;
    for (const std::string& name : names())
        text += (text.empty() ? "" : ", ") + name;
    return text;
}

std::optional<std::string> BackendRegistry::resolve(std::string_view text) const {
    const std::string lower = lowerCase(text);
    if (lower == kAutoBackend || lower == kCpuBackend)
        return lower;
    if (lower == kGpuAlias)
        return m_modules.empty() ? std::nullopt : std::optional(m_modules.front()->name());
    if (const BackendModule* module = find(lower))
        return module->name();
    return std::nullopt;
}

BackendSelection selectBackend(const BackendOptions& options, const BackendRegistry& backends,
                               const CountWorkEstimate* work) {
    const std::optional<std::string> name = backends.resolve(options.name);
    if (!name)
        throw ConfigError(inQuotes(options.name) + " is not a backend (" + backends.namesText() +
                          ")");
    if (*name == kCpuBackend) {
        if (options.precision == Precision::Float)
            throw ConfigError("the CPU backend counts in double precision only");
        return cpuSelection(options);
    }
    if (*name != kAutoBackend) {
        const BackendModule& module = *backends.find(*name);
        const std::string reason = moduleUnavailableReason(module);
        if (!reason.empty())
            throw BackendUnavailable("the " + module.displayName() +
                                     " backend is not available: " + reason);
        return moduleSelection(options, module, work);
    }

    // Auto: the first module that can count, in registration order.
    std::string notice;
    for (const auto& module : backends.modules()) {
        std::string reason = moduleUnavailableReason(*module);
        if (reason.empty()) {
            try {
                return moduleSelection(options, *module, work);
            } catch (const BackendUnavailable& e) {
                // Devices were listed but cannot be used (out of memory, busy, driver mismatch):
                // "auto" means the user accepts the next backend then. Bad settings
                // (ConfigError) still fail.
                reason = e.what();
            }
        }
        notice += (notice.empty() ? "" : "; ") + ("no " + module->displayName() + " device (") +
                  reason + ")";
    }
    if (notice.empty())
        notice = "this build has no GPU backend";
    notice += "; using the CPU backend";
    if (options.precision == Precision::Float)
        notice += " in double precision";
    return cpuSelection(options, std::move(notice));
}

PrecisionChoice autoPrecision(const std::vector<GpuDeviceInfo>& devices) {
    // One device with slow or unknown FP64 decides for all: the devices share one batch.
    for (const GpuDeviceInfo& device : devices)
        if (device.fp32PerFp64 <= 0 || device.fp32PerFp64 > kFullRateFp64Ratio)
            return {Precision::Float,
                    "float (hi+lo), since " + device.name +
                        (device.fp32PerFp64 > 0
                             ? " computes FP64 at " + ratioText(device.fp32PerFp64) +
                                   " its FP32 rate"
                             : " does not report its FP64 rate")};
    if (devices.empty())
        return {Precision::Float, "float (hi+lo): no device to judge FP64 by"};
    const GpuDeviceInfo& first = devices.front();
    return {Precision::Double, "double, since " + first.name + " computes FP64 at " +
                                   ratioText(first.fp32PerFp64) + " its FP32 rate"};
}

const BackendModule* backendModuleFor(const BackendOptions& options,
                                      const BackendRegistry& backends) noexcept {
    try {
        const std::optional<std::string> name = backends.resolve(options.name);
        if (!name || *name == kCpuBackend)
            return nullptr;
        if (*name != kAutoBackend)
            return backends.find(*name);
        for (const auto& module : backends.modules())
            if (module->compiledIn() && !module->devices().empty())
                return module.get();
    } catch (...) {
    }
    return nullptr;
}

void warmUpBackend(const BackendOptions& options, const BackendRegistry& backends) noexcept {
    try {
        if (const BackendModule* module = backendModuleFor(options, backends)) {
            const std::vector<int> devices = chooseJobDevices(*module, options, nullptr).devices;
            module->warmUp(devices, jobPrecision(options, *module, devices).precision);
        }
    } catch (...) {
        // Warming up is an optimisation: the job's own selection reports every problem.
    }
}

} // namespace tpacf
