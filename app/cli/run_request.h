// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf run's flags read into one request and checked, as far as they can be, before any
// catalog is read (run_request.cpp); cmd_run.cpp reads the catalogs and counts.
#include "cli/args.h"
#include "cli/context.h"
#include "cli/masking.h"
#include "cli/output.h"
#include "cli/plot_output.h"
#include "cli/progress.h"
#include "tpacf/catalog_formats.h"
#include "tpacf/correlation_job.h"
#include "tpacf/power_law_fit.h"
#include "tpacf/result_io.h"

#include <optional>
#include <string>
#include <vector>

namespace tpacf::cli {

/// What a run's flags ask for, checked before anything is read.
struct RunRequest {
    std::string dataPath;
    std::vector<std::string> randomPaths;
    std::optional<std::string> data2Path;
    std::vector<std::string> random2Paths;
    std::optional<std::string> savePath, reusePath;
    std::optional<WorkShare> share;
    std::string outputPath, jsonPath, covariancePath, samplesPath, fitOutputPath;
    std::string regionsOutPath, regionsInPath; // --save-regions, --regions
    bool quiet = false;
    double progressInterval = kDefaultProgressInterval;
    TableFormat format = TableFormat::Ecsv;           // of --output
    TableFormat covarianceFormat = TableFormat::Ecsv; // of --covariance
    TableFormat samplesFormat = TableFormat::Ecsv;    // of --jackknife-samples
    std::optional<PowerLawFitOptions> fitOptions;
    std::optional<PlotOutput> plot;
    CorrelationParams params;
    ReadOptions dataOptions, randomOptions;
    std::optional<MaskRequest> mask; // --mask: every catalog cut to it once read
};

/// The run's flags (a job file's under the command line's), read and checked: the catalogs and
/// count files named, the outputs and their forms, the jackknife, the fit, the job's settings.
/// Fails (usage) on the first flag that cannot be right. (Into `run`: the figure it may hold
/// cannot move.)
void readRunRequest(const ParsedArgs& args, const Context& context, bool distributed,
                    RunRequest& run);

} // namespace tpacf::cli
