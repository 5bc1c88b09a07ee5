// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf.count: one auto or cross pair count through the chosen backend, as `tpacf count`.
#include "binding.h"

#include "tpacf/backend.h"
#include "tpacf/bins.h"
#include "tpacf/catalog.h"
#include "tpacf/correlation_result.h"
#include "tpacf/device_choice.h"
#include "tpacf/output_file.h"
#include "tpacf/result_io.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

namespace tpacf::python {

namespace {

/// What tpacf.count returns: the count with its bins and provenance (what `tpacf count` writes).
struct CountOutcome {
    CountSummary summary;
    std::shared_ptr<Binning> bins;
};

double fractionOf(const CountProgress& progress) {
    if (progress.workTotal > 0)
        return std::min(1.0, progress.workDone / progress.workTotal);
    if (progress.pairsTotal > 0)
        return static_cast<double>(progress.pairsDone) / static_cast<double>(progress.pairsTotal);
    return 0.0;
}

std::shared_ptr<CountOutcome> count(const std::shared_ptr<Catalog>& first,
                                    const std::shared_ptr<Catalog>& second,
                                    std::shared_ptr<Binning> bins, const std::string& backend,
                                    const py::object& precision, const py::object& devices,
                                    int threads, const std::string& culling,
                                    const py::object& progress) {
    if (!first)
        throw py::type_error("count: a must be a tpacf.Catalog");
    if (!bins)
        bins = std::make_shared<Binning>(BinSpec::preset("log5"));
    BackendOptions options = backendOptionsOf(backend, precision, devices, threads, culling);
    Interruption interruption(progress);
    auto outcome = std::make_shared<CountOutcome>(CountOutcome{
        CountSummary{*bins, {}, InputSummary::of(*first), std::nullopt, "", "", Precision::Double, 0},
        bins});
    CountSummary& summary = outcome->summary;
    runWithoutGil(interruption, [&] {
        const CountTask task{first.get(), second.get()};
        const CountWorkEstimate work =
            estimateCountWork(std::span(&task, 1), *bins, options.culling);
        BackendSelection selection = selectBackend(options, backends(), &work);
        PairCounter& counter = *selection.counter;
        CountControl control;
        control.cancelRequested = interruption.flag();
        control.onProgress = [&](const CountProgress& report) {
            interruption.poll([&] {
                py::dict fields;
                fields["fraction"] = fractionOf(report);
                fields["pairs_done"] = report.pairsDone;
                fields["pairs_total"] = report.pairsTotal;
                fields["preparing"] = report.preparing;
                return fields;
            });
        };
        const auto start = std::chrono::steady_clock::now();
        TaskCounts counts =
            std::move(counter.countBatch(std::span<const CountTask>(&task, 1), *bins, control).front());
        summary.elapsedSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        summary.counts = std::move(counts.raw);
        summary.weighted = std::move(counts.weighted);
        summary.backendName = counter.backendName();
        summary.deviceDescription = counter.deviceDescription();
        summary.precision = counter.precision();
        summary.cullingRequested = counter.culling();
        summary.culled = counter.lastBatchCulled();
        if (second)
            summary.second = InputSummary::of(*second);
        if (!selection.notice.empty())
            summary.notes.push_back(selection.notice);
        if (!selection.deviceChoice.empty())
            summary.notes.push_back(selection.deviceChoice);
        const auto& batchNotes = counter.lastBatchNotes();
        summary.notes.insert(summary.notes.end(), batchNotes.begin(), batchNotes.end());
    });
    summary.invocation = "python: tpacf.count(" + first->name() +
                         (second ? ", " + second->name() : std::string()) + ", bins=" +
                         bins->spec().describe() + ")";
    return outcome;
}

} // namespace

void bindCounting(py::module_& module) {
    py::class_<CountOutcome, std::shared_ptr<CountOutcome>>(module, "Counts", R"(The result of tpacf.count: raw pair counts per bin (uint64), the weighted sums
(float64, or None without weights), the bins and how they were counted.)")
        .def_property_readonly("counts", [](const CountOutcome& o) { return arrayOf(o.summary.counts); },
                               "Raw pair counts per bin (numpy uint64).")
        .def_property_readonly(
            "weighted",
            [](const CountOutcome& o) -> py::object {
                if (o.summary.weighted.empty())
                    return py::none();
                return arrayOf(o.summary.weighted);
            },
            "Sum of w_i*w_j per bin (numpy float64), or None when no catalog has weights.")
        .def_property_readonly("bins", [](const CountOutcome& o) { return o.bins; })
        .def_property_readonly("edges", [](const CountOutcome& o) { return arrayOf(o.bins->edges()); })
        .def_property_readonly("centres", [](const CountOutcome& o) { return arrayOf(o.bins->centres()); })
        .def_property_readonly("is_auto", [](const CountOutcome& o) { return !o.summary.second.has_value(); })
        .def_property_readonly("backend", [](const CountOutcome& o) { return o.summary.backendName; })
        .def_property_readonly("device", [](const CountOutcome& o) { return o.summary.deviceDescription; })
        .def_property_readonly("precision", [](const CountOutcome& o) {
            return std::string(precisionName(o.summary.precision));
        })
        .def_property_readonly("culled", [](const CountOutcome& o) { return o.summary.culled; },
                               "Whether only the cell pairs within reach of the bins were visited.")
        .def_property_readonly("elapsed", [](const CountOutcome& o) { return o.summary.elapsedSeconds; },
                               "Seconds the count took.")
        .def_property_readonly("notes", [](const CountOutcome& o) { return o.summary.notes; })
        .def(
            "write",
            [](const CountOutcome& o, const py::object& path) {
                const std::string target =
                    py::cast<std::string>(py::module_::import("os").attr("fspath")(path));
                py::gil_scoped_release release;
                writeFileAtomically(target, [&](std::ostream& out) { writeCountsCsv(out, o.summary); });
            },
            py::arg("path"), "Writes the CSV `tpacf count --output` writes.")
        .def("__repr__", [](const CountOutcome& o) {
            return "<tpacf.Counts " + std::to_string(o.summary.counts.size()) + " bins, " +
                   o.summary.backendName + ">";
        });

    module.def("count", &count, py::arg("a"), py::arg("b") = nullptr, py::kw_only(),
               py::arg("bins") = nullptr, py::arg("backend") = "auto",
               py::arg("precision") = py::none(), py::arg("devices") = py::none(),
               py::arg("threads") = 0, py::arg("culling") = "auto",
               py::arg("progress") = py::none(),
               R"(Counts the pairs of catalog a with itself (b None: each unordered pair once) or
with catalog b (all N_a x N_b pairs) in each bin, on the engine `tpacf count` uses.

bins: a tpacf.Bins (default Bins.preset("log5")). backend: "auto", "cpu" or
"cuda"; precision: "auto", "double" or "float" (GPU only); devices: GPU
indices; threads: CPU threads (0: all); culling: "auto", "on" or "off".
progress: called now and then with a dict (fraction, pairs_done, pairs_total,
preparing); an exception it raises stops the count. The GIL is released while
counting; Ctrl-C stops the count (KeyboardInterrupt).
Returns a tpacf.Counts: counts (uint64), weighted (float64 or None), edges.)");
}

} // namespace tpacf::python
