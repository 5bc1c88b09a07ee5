// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf.devices(): the backends of this build and their devices, as `tpacf devices` lists them
// (read without starting any GPU).
#include "binding.h"

#include "tpacf/cpu_pair_counter.h"

#include <pybind11/stl.h>

#include <thread>

namespace tpacf::python {

namespace {

py::list listDevices(int threads) {
    py::list listing;
    const CpuPairCounter cpu(threads);
    py::dict cpuEntry;
    cpuEntry["backend"] = "cpu";
    cpuEntry["available"] = true;
    cpuEntry["description"] = cpu.deviceDescription();
    cpuEntry["hardware_threads"] = std::thread::hardware_concurrency();
    cpuEntry["kernel"] = cpu.kernelName();
    cpuEntry["devices"] = py::list();
    listing.append(cpuEntry);
    for (const auto& module : backends().modules()) {
        py::dict entry;
        const auto devices = module->devices();
        entry["backend"] = module->name();
        entry["available"] = !devices.empty();
        entry["compiled_in"] = module->compiledIn();
        entry["reason"] = module->unavailableReason();
        entry["version"] = module->versionDescription();
        entry["unsupported"] = module->unsupportedDevices();
        py::list deviceList;
        for (const auto& device : devices) {
            py::dict fields;
            fields["index"] = device.index;
            fields["name"] = device.name;
            fields["memory_bytes"] = device.memoryBytes;
            fields["compute_capability"] = py::make_tuple(device.computeMajor, device.computeMinor);
            fields["multiprocessors"] = device.multiprocessors;
            fields["fp32_per_fp64"] = device.fp32PerFp64;
            fields["code"] = device.code;
            fields["auto_precision"] = std::string(precisionName(autoPrecision({device}).precision));
            deviceList.append(fields);
        }
        entry["devices"] = deviceList;
        listing.append(entry);
    }
    return listing;
}

} // namespace

void bindDevices(py::module_& module) {
    module.def("devices", &listDevices, py::kw_only(), py::arg("threads") = 0,
               R"(The backends this build can use, as `tpacf devices` lists them: a list of dicts,
the CPU first, then each GPU backend with "available", "reason" (why not) and
"devices" (index, name, memory_bytes, compute_capability, multiprocessors,
fp32_per_fp64, code, auto_precision). No GPU is started to list them.)");
    module.def("backend_names", [] { return backends().names(); },
               "Names the backend= argument takes: auto, cpu, then each GPU backend.");
}

} // namespace tpacf::python
