// SPDX-License-Identifier: GPL-3.0-or-later
// tpacf.correlate: a CorrelationJob (the one entry point the CLI and Studio share), its result
// with every array, and the result files `tpacf run` writes; count stores (save, load, combine).
#include "binding.h"

#include "tpacf/correlation_job.h"
#include "tpacf/count_store.h"
#include "tpacf/errors.h"
#include "tpacf/estimator.h"
#include "tpacf/bootstrap.h"
#include "tpacf/jackknife.h"
#include "tpacf/regions_file.h"
#include "tpacf/sky_mask.h"
#include "tpacf/output_file.h"
#include "tpacf/result_io.h"

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <sstream>

namespace tpacf::python {

namespace {

using CatalogPtr = std::shared_ptr<Catalog>;

std::vector<std::shared_ptr<const Catalog>> catalogList(const py::object& object, const char* what) {
    std::vector<std::shared_ptr<const Catalog>> catalogs;
    if (object.is_none())
        return catalogs;
    if (py::isinstance<Catalog>(object)) {
        catalogs.push_back(py::cast<CatalogPtr>(object));
        return catalogs;
    }
    if (py::isinstance<py::str>(object) || !py::hasattr(object, "__iter__"))
        throw py::type_error(std::string(what) + ": a tpacf.Catalog or a list of them");
    for (const py::handle item : object) {
        if (!py::isinstance<Catalog>(item))
            throw py::type_error(std::string(what) + ": a tpacf.Catalog or a list of them, got " +
                                 std::string(py::str(py::type::of(item).attr("__name__"))) +
                                 " in the list");
        catalogs.push_back(py::cast<CatalogPtr>(item));
    }
    return catalogs;
}

std::string pathOf(const py::object& path) {
    return py::cast<std::string>(py::module_::import("os").attr("fspath")(path));
}

/// jackknife=K (regions grown on the sky by k-means, as --jackknife K) or "labels" (the region
/// labels the catalogs carry, from regions= or region_col=, as --jackknife-column).
JackknifeSettings jackknifeOf(const py::object& jackknife, const py::object& seed,
                              const std::shared_ptr<const Catalog>& data) {
    JackknifeSettings settings;
    if (jackknife.is_none()) {
        if (!seed.is_none())
            throw ConfigError("jackknife_seed seeds the regions jackknife=K grows on the sky: "
                              "add jackknife=K");
        return settings;
    }
    if (py::isinstance<py::str>(jackknife)) {
        if (py::cast<std::string>(jackknife) != "labels")
            throw ConfigError("jackknife: '" + py::cast<std::string>(jackknife) +
                              "' is neither a number of regions K nor \"labels\"");
        if (!seed.is_none())
            throw ConfigError("jackknife_seed seeds the regions jackknife=K grows on the sky; "
                              "region labels take no seed");
        const std::string& column = data->origin().regionColumn;
        settings.regionColumn = column.empty() ? std::string("regions") : column;
        return settings;
    }
    if (py::isinstance<py::bool_>(jackknife) || !py::isinstance<py::int_>(jackknife))
        throw py::type_error("jackknife: a number of regions K (int), \"labels\" or None");
    const long regions = py::cast<long>(jackknife);
    if (regions < kMinJackknifeRegions)
        throw ConfigError("jackknife: K = " + std::to_string(regions) +
                          " regions cannot give error bars: K must be at least " +
                          std::to_string(kMinJackknifeRegions) +
                          " (w is recomputed with each region left out; 10-100 is usual)");
    if (regions > kMaxJackknifeRegions)
        throw ConfigError("jackknife: K = " + std::to_string(regions) +
                          " regions is more than the limit of " +
                          std::to_string(kMaxJackknifeRegions));
    settings.regions = static_cast<int>(regions);
    if (!seed.is_none())
        settings.seed = py::cast<std::uint64_t>(seed);
    return settings;
}

/// jackknife_healpix, regions_file, bootstrap, bootstrap_seed and cross_region_weight, as
/// --jackknife-healpix, --regions, --bootstrap, --bootstrap-seed and --cross-region-weight.
void applyRegionOptions(JackknifeSettings& settings, const py::object& healpix,
                        const py::object& regionsFile, const py::object& bootstrap,
                        const py::object& bootstrapSeed, const py::object& crossRegionWeight) {
    if (!healpix.is_none()) {
        if (settings.regions <= 0)
            throw ConfigError("jackknife_healpix says how the jackknife=K regions are grown: add "
                              "jackknife=K");
        settings.healpixNside = py::cast<std::int64_t>(healpix);
    }
    if (!regionsFile.is_none()) {
        const std::string path = pathOf(regionsFile);
        settings.given = std::make_shared<const RegionsDefinition>(readRegionsFile(path));
    }
    if (!bootstrap.is_none()) {
        if (!settings.enabled())
            throw ConfigError("bootstrap resamples the jackknife regions: add jackknife=K, "
                              "jackknife=\"labels\" or regions_file=");
        const long samples = py::cast<long>(bootstrap);
        if (samples < kMinBootstrapSamples || samples > kMaxBootstrapSamples)
            throw ConfigError("bootstrap: " + std::to_string(samples) + " samples; give " +
                              std::to_string(kMinBootstrapSamples) + " to " +
                              std::to_string(kMaxBootstrapSamples));
        settings.bootstrapSamples = static_cast<int>(samples);
    } else if (!bootstrapSeed.is_none()) {
        throw ConfigError("bootstrap_seed seeds the draws of bootstrap=B: add bootstrap=B");
    }
    if (!bootstrapSeed.is_none())
        settings.bootstrapSeed = py::cast<std::uint64_t>(bootstrapSeed);
    if (!crossRegionWeight.is_none()) {
        if (!settings.enabled())
            throw ConfigError("cross_region_weight weighs pairs between jackknife regions: add "
                              "jackknife=K, jackknife=\"labels\" or regions_file=");
        const auto text = py::cast<std::string>(crossRegionWeight);
        settings.crossRegionWeight = parseCrossRegionWeight(text);
        if (!settings.crossRegionWeight)
            throw ConfigError("cross_region_weight: '" + text + "' is none of " +
                              crossRegionWeightKeys());
        (void)settings.crossWeight(); // one the method does not take: now
    }
}

std::shared_ptr<CorrelationResult> correlate(
    const py::object& data, const py::object& randoms, const py::object& data2,
    const py::object& randoms2, std::shared_ptr<Binning> bins, const std::string& estimator,
    const py::object& jackknife, const py::object& jackknifeSeed, const std::string& backend,
    const py::object& precision, const py::object& devices, int threads,
    const std::string& culling, const py::object& reuse, bool collectCounts,
    const std::string& invocation, const py::object& progress, bool meanTheta,
    const py::object& jackknifeHealpix, const py::object& regionsFile, const py::object& bootstrap,
    const py::object& bootstrapSeed, const py::object& crossRegionWeight, const py::object& mask,
    double maskThreshold) {
    CorrelationParams params;
    if (!py::isinstance<Catalog>(data))
        throw py::type_error("data: a tpacf.Catalog");
    params.data = py::cast<CatalogPtr>(data);
    params.randoms = catalogList(randoms, "randoms");
    if (params.randoms.empty())
        throw ConfigError("randoms: at least one random catalog is needed");
    if (!data2.is_none()) {
        if (!py::isinstance<Catalog>(data2))
            throw py::type_error("data2: a tpacf.Catalog or None");
        params.data2 = py::cast<CatalogPtr>(data2);
    }
    params.randoms2 = catalogList(randoms2, "randoms2");
    if (!params.randoms2.empty() && !params.data2)
        throw ConfigError("randoms2 gives randoms of the second sample: add data2");
    if (!params.randoms2.empty() && params.randoms2.size() != params.randoms.size())
        throw ConfigError("randoms2 holds " + std::to_string(params.randoms2.size()) +
                          " random catalog(s) and randoms " + std::to_string(params.randoms.size()) +
                          ": give as many (set i of each sample pairs with set i of the other) or "
                          "none (the second sample then uses the first's randoms)");
    params.bins = bins ? bins->spec() : BinSpec::preset("log5");
    const auto parsedEstimator = parseEstimator(estimator);
    if (!parsedEstimator)
        throw ConfigError("estimator: '" + estimator + "' is not an estimator (" +
                          estimatorKeyList() + ")");
    params.estimator = *parsedEstimator;
    params.backend = backendOptionsOf(backend, precision, devices, threads, culling);
    if (jackknife.is_none() && !regionsFile.is_none()) // the regions file gives them
        params.jackknife = JackknifeSettings{};
    else
        params.jackknife = jackknifeOf(jackknife, jackknifeSeed, params.data);
    applyRegionOptions(params.jackknife, jackknifeHealpix, regionsFile, bootstrap, bootstrapSeed,
                       crossRegionWeight);
    if (!mask.is_none()) {
        if (!py::isinstance<SkyMask>(mask))
            throw py::type_error("mask: a tpacf.Mask or None");
        params.mask = py::cast<std::shared_ptr<SkyMask>>(mask);
        params.maskThreshold = maskThreshold;
    }
    if (!reuse.is_none()) {
        if (py::isinstance<CountStore>(reuse))
            params.reuse = py::cast<std::shared_ptr<CountStore>>(reuse);
        else {
            const std::string path = pathOf(reuse);
            py::gil_scoped_release release;
            params.reuse = std::make_shared<const CountStore>(readCountFile(path));
        }
    }
    params.collectCounts = collectCounts;
    params.invocation = invocation;
    params.meanSeparation = meanTheta;

    Interruption interruption(progress);
    auto result = std::make_shared<CorrelationResult>();
    runWithoutGil(interruption, [&] {
        CorrelationJob job(std::move(params), backends());
        *result = job.run(
            [&](const JobProgress& report) {
                interruption.poll([&] {
                    py::dict fields;
                    fields["fraction"] = report.fraction;
                    fields["pairs_done"] = report.pairsDone;
                    fields["pairs_total"] = report.pairsTotal;
                    fields["pairs_per_second"] = report.pairsPerSecond;
                    fields["elapsed"] = report.elapsedSeconds;
                    fields["eta"] = report.etaSeconds >= 0 ? py::object(py::float_(report.etaSeconds))
                                                           : py::object(py::none());
                    fields["preparing"] = report.preparing;
                    fields["mean_theta"] = report.meanSeparation;
                    return fields;
                });
            },
            interruption.flag());
        if (result->status == JobStatus::Cancelled)
            throw Cancelled();
    });
    return result;
}

py::object optionalArray(const std::vector<double>& values) {
    if (values.empty())
        return py::none();
    return arrayOf(values);
}

py::dict inputOf(const InputSummary& input) {
    py::dict fields;
    fields["name"] = input.name;
    fields["size"] = input.size;
    fields["weighted"] = input.weighted;
    fields["weight_sum"] = input.weightSum;
    fields["weight_square_sum"] = input.weightSquareSum;
    fields["negative_weights"] = input.negativeWeights;
    fields["fingerprint"] = input.fingerprint;
    fields["origin"] = input.origin.describe();
    return fields;
}

py::list inputsOf(const std::vector<InputSummary>& inputs) {
    py::list list;
    for (const auto& input : inputs)
        list.append(inputOf(input));
    return list;
}

std::string textOf(const std::function<void(std::ostream&)>& write) {
    std::ostringstream out;
    write(out);
    return out.str();
}

void bindCountStore(py::module_& module) {
    py::class_<CountStore, std::shared_ptr<CountStore>>(module, "CountStore", R"(Every pair count of a run with its bins and catalog fingerprints (a count file).

tpacf.load_counts(path) reads one (JSON or FITS, as --save-counts writes);
correlate(..., save_counts=True).counts holds a run's; combine_counts([...]) adds
stores of distinct shares of one batch; correlate(..., reuse=store_or_path) takes
the counts whose catalogs match instead of counting them (RR of the same randoms).)")
        .def("save", [](const CountStore& store, const py::object& path) {
                 const std::string target = pathOf(path);
                 py::gil_scoped_release release;
                 writeCountFile(target, store);
             }, py::arg("path"), "Writes the count file (FITS for a .fits name, else JSON), as --save-counts.")
        .def_property_readonly("bins", [](const CountStore& s) { return s.binsDescription; })
        .def_property_readonly("edges", [](const CountStore& s) { return arrayOf(s.edges); })
        .def_property_readonly("whole", &CountStore::whole, "Every share of the batch is in it.")
        .def_property_readonly("shares", &CountStore::describeShares)
        .def_property_readonly("source", [](const CountStore& s) { return s.source; })
        .def_property_readonly("labels", [](const CountStore& s) {
            std::vector<std::string> labels;
            for (const auto& stored : s.counts)
                labels.push_back(stored.label);
            return labels;
        }, "The counts it holds: \"DD\", \"DR_1\", \"RR_1\", ...")
        .def("raw", [](const CountStore& s, const std::string& label) {
            for (const auto& stored : s.counts)
                if (stored.label == label)
                    return arrayOf(stored.counts.raw);
            throw ConfigError("count store: no count '" + label + "'");
        }, py::arg("label"), "The raw counts of one count (numpy uint64).")
        .def("__repr__", [](const CountStore& s) {
            return "<tpacf.CountStore " + std::to_string(s.counts.size()) + " counts, " +
                   s.binsDescription + ", " + s.describeShares() + ">";
        });
    module.def("load_counts", [](const py::object& path) {
        const std::string source = pathOf(path);
        py::gil_scoped_release release;
        return std::make_shared<CountStore>(readCountFile(source));
    }, py::arg("path"), "Reads a count file (JSON or FITS) into a tpacf.CountStore; checked as tpacf checks it.");
    module.def("combine_counts", [](const std::vector<std::shared_ptr<CountStore>>& stores) {
        std::vector<CountStore> copies;
        for (const auto& store : stores)
            copies.push_back(*store);
        return std::make_shared<CountStore>(combineCountStores(copies));
    }, py::arg("stores"), "Adds count stores of distinct shares of one batch (tpacf combine).");
}

using R = CorrelationResult;
using ResultClass = py::class_<R, std::shared_ptr<R>>;

// Per bin: the edges, w and its jackknife error, covariance and leave-one-out samples.
void bindResultBins(ResultClass& result) {
    result
        .def_property_readonly("edges", [](const R& r) { return arrayOf(r.edges); })
        .def_property_readonly("centres", [](const R& r) { return arrayOf(r.centres); })
        .def_property_readonly("unit", [](const R& r) { return std::string(angleUnitName(r.bins.unit)); })
        .def_property_readonly("bins", [](const R& r) { return r.bins.describe(); })
        .def_property_readonly("w", [](const R& r) { return arrayOf(r.w); })
        .def_property_readonly("w_err", [](const R& r) { return optionalArray(r.wError); })
        .def_property_readonly("covariance", [](const R& r) -> py::object {
            if (!r.hasJackknife())
                return py::none();
            const auto n = static_cast<py::ssize_t>(r.binCount());
            py::array_t<double> matrix({n, n});
            std::copy(r.covariance.begin(), r.covariance.end(), matrix.mutable_data());
            return matrix;
        })
        .def_property_readonly("jackknife_samples", [](const R& r) -> py::object {
            if (!r.hasJackknife())
                return py::none();
            return matrixOf(r.jackknifeSamples);
        })
        .def_property_readonly("cross_region_weight", [](const R& r) -> py::object {
            if (!r.hasJackknife())
                return py::none();
            return py::str(std::string(crossRegionWeightInfo(r.crossRegionWeight()).key));
        })
        .def_property_readonly("bootstrap_selections", [](const R& r) -> py::object {
            if (!r.hasBootstrap())
                return py::none();
            py::array_t<std::uint32_t> matrix(
                {static_cast<py::ssize_t>(r.bootstrapSelections.size()),
                 static_cast<py::ssize_t>(r.bootstrapSelections.front().size())});
            auto* out = matrix.mutable_data();
            for (const auto& selection : r.bootstrapSelections)
                out = std::copy(selection.begin(), selection.end(), out);
            return matrix;
        })
        .def_property_readonly("jackknife_regions", [](const R& r) -> py::object {
            if (!r.hasJackknife())
                return py::none();
            py::dict fields;
            fields["count"] = r.jackknifeRegions.count;
            fields["method"] = r.jackknifeRegions.method;
            fields["data_per_region"] = arrayOf(r.jackknifeRegions.dataPerRegion);
            fields["random_per_region"] = arrayOf(r.jackknifeRegions.randomPerRegion);
            fields["warnings"] = r.jackknifeRegions.warnings;
            return fields;
        });
}

// The raw counts per catalog set and summed, weighted and normalised.
void bindResultCounts(ResultClass& result) {
    result
        .def_property_readonly("dd", [](const R& r) { return arrayOf(r.raw.dd); })
        .def_property_readonly("dr_sets", [](const R& r) { return matrixOf(r.raw.dr); })
        .def_property_readonly("rd_sets", [](const R& r) { return matrixOf(r.raw.rd); })
        .def_property_readonly("rr_sets", [](const R& r) { return matrixOf(r.raw.rr); })
        .def_property_readonly("dr", [](const R& r) { return arrayOf(r.drSummed()); })
        .def_property_readonly("rd", [](const R& r) -> py::object {
            if (!r.isCross())
                return py::none();
            return arrayOf(r.rdSummed());
        })
        .def_property_readonly("rr", [](const R& r) { return arrayOf(r.rrSummed()); })
        .def_property_readonly("dd_weighted", [](const R& r) { return optionalArray(r.raw.ddWeighted); })
        .def_property_readonly("dr_weighted", [](const R& r) { return optionalArray(r.drWeightedSummed()); })
        .def_property_readonly("rd_weighted", [](const R& r) { return optionalArray(r.rdWeightedSummed()); })
        .def_property_readonly("rr_weighted", [](const R& r) { return optionalArray(r.rrWeightedSummed()); })
        .def_property_readonly("dd_norm", [](const R& r) { return arrayOf(r.normalised.dd); })
        .def_property_readonly("dr_norm", [](const R& r) { return arrayOf(r.normalised.dr); })
        .def_property_readonly("rd_norm", [](const R& r) { return optionalArray(r.normalised.rd); })
        .def_property_readonly("rr_norm", [](const R& r) { return arrayOf(r.normalised.rr); })
        .def_property_readonly("mean_theta", [](const R& r) -> py::object {
            if (r.meanSeparations.empty())
                return py::none();
            py::dict means;
            for (const MeanSeparation& mean : r.meanSeparations)
                means[py::str(mean.label)] = arrayOf(mean.theta);
            return means;
        })
        .def_property_readonly("mean_log_theta", [](const R& r) -> py::object {
            if (r.meanSeparations.empty())
                return py::none();
            py::dict means;
            for (const MeanSeparation& mean : r.meanSeparations)
                means[py::str(mean.label)] = arrayOf(mean.logTheta);
            return means;
        });
}

// How the result was made: estimator, backend, device, timings, inputs, notes, the counts.
void bindResultProvenance(ResultClass& result) {
    result
        .def_property_readonly("is_cross", &R::isCross)
        .def_property_readonly("is_weighted", &R::isWeighted)
        .def_property_readonly("has_jackknife", &R::hasJackknife)
        .def_property_readonly("estimator", [](const R& r) { return std::string(estimatorKey(r.estimator)); })
        .def_property_readonly("estimator_name", [](const R& r) { return std::string(estimatorName(r.estimator)); })
        .def_property_readonly("backend", [](const R& r) { return r.backendName; })
        .def_property_readonly("device", [](const R& r) { return r.deviceDescription; })
        .def_property_readonly("precision", [](const R& r) { return std::string(precisionName(r.precision)); })
        .def_property_readonly("precision_choice", [](const R& r) { return r.precisionChoice; })
        .def_property_readonly("backend_notice", [](const R& r) { return r.backendNotice; })
        .def_property_readonly("device_choice", [](const R& r) { return r.deviceChoice; })
        .def_property_readonly("culled", [](const R& r) { return r.culled; })
        .def_property_readonly("elapsed", [](const R& r) { return r.elapsedSeconds; })
        .def_property_readonly("timings", [](const R& r) {
            py::dict stages;
            for (const auto& [stage, seconds] : r.stageSeconds)
                stages[py::str(stage)] = seconds;
            return stages;
        })
        .def_property_readonly("invocation", [](const R& r) { return r.invocation; })
        .def_property_readonly("notes", [](const R& r) { return r.notes; })
        .def_property_readonly("reused_counts", [](const R& r) { return r.reusedCounts; })
        .def_property_readonly("bins_without_sigma", &R::binsWithoutSigma)
        .def_property_readonly("data", [](const R& r) { return inputOf(r.data); })
        .def_property_readonly("randoms", [](const R& r) { return inputsOf(r.randoms); })
        .def_property_readonly("data2", [](const R& r) -> py::object {
            if (!r.isCross())
                return py::none();
            return inputOf(r.data2);
        })
        .def_property_readonly("randoms2", [](const R& r) { return inputsOf(r.randoms2); })
        .def_property_readonly("counts", [](const R& r) -> py::object {
            if (!r.counts)
                return py::none();
            return py::cast(std::make_shared<CountStore>(*r.counts));
        });
}

// The CLI's files and texts of the result, written by core's writers.
void bindResultFiles(ResultClass& result) {
    result
        .def("ecsv_text", [](const R& r) { return textOf([&](std::ostream& out) { writeResultCsv(out, r); }); })
        .def("json_text", [](const R& r) { return textOf([&](std::ostream& out) { writeResultJson(out, r); }); })
        .def("write_ecsv", [](const R& r, const std::string& path) {
            py::gil_scoped_release release;
            writeResultCsvFile(path, r);
        })
        .def("write_fits", [](const R& r, const std::string& path) {
            py::gil_scoped_release release;
            writeResultFitsFile(path, r);
        })
        .def("write_json", [](const R& r, const std::string& path) {
            py::gil_scoped_release release;
            writeFileAtomically(path, [&](std::ostream& out) { writeResultJson(out, r); });
        })
        .def("write_covariance", [](const R& r, const std::string& path) {
            py::gil_scoped_release release;
            writeCovarianceFile(path, r, tableFormatOfPath(path));
        })
        .def("write_votable", [](const R& r, const std::string& path) {
            py::gil_scoped_release release;
            writeResultFile(path, r, TableFormat::VoTable);
        });
}

} // namespace

void bindCorrelate(py::module_& module) {
    bindCountStore(module);
    ResultClass result(module, "CorrelationResult",
                       "What a correlate() run gives (wrapped by tpacf.Result).");
    bindResultBins(result);
    bindResultCounts(result);
    bindResultProvenance(result);
    bindResultFiles(result);
    module.attr("fits_output_supported") = fitsOutputSupported();

    module.def("correlate", &correlate, py::arg("data"), py::arg("randoms"),
               py::arg("data2") = py::none(), py::arg("randoms2") = py::none(), py::kw_only(),
               py::arg("bins") = nullptr, py::arg("estimator") = "ls",
               py::arg("jackknife") = py::none(), py::arg("jackknife_seed") = py::none(),
               py::arg("backend") = "auto", py::arg("precision") = py::none(),
               py::arg("devices") = py::none(), py::arg("threads") = 0,
               py::arg("culling") = "auto", py::arg("reuse") = py::none(),
               py::arg("save_counts") = false, py::arg("invocation") = "",
               py::arg("progress") = py::none(), py::arg("mean_theta") = false,
               py::arg("jackknife_healpix") = py::none(), py::arg("regions_file") = py::none(),
               py::arg("bootstrap") = py::none(), py::arg("bootstrap_seed") = py::none(),
               py::arg("cross_region_weight") = py::none(), py::arg("mask") = py::none(),
               py::arg("mask_threshold") = 0.0,
               "The job behind tpacf.correlate (which see); returns a CorrelationResult.");
}

} // namespace tpacf::python
