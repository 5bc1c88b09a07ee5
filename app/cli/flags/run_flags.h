// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tpacf run and tpacf count: their flags, one row each, in the groups --help shows.
#include "common_flags.h"

namespace tpacf::cli::flags {

namespace run {

inline constexpr Flag kData{"--data", Value, "FILE",
                            "data catalog (formats below); D1 with --data2"};
inline constexpr Flag kRandom{"--random", Repeated, "FILE",
                              "random catalog; repeat for several sets (DR and RR are averaged)"};
inline constexpr Flag kData2{"--data2", Value, "FILE",
                             "second data catalog: cross-correlation of --data with it"};
inline constexpr Flag kRandom2{"--random2", Repeated, "FILE",
                               "random catalog of the second sample; none, or as many as --random\n"
                               "(set i pairs with set i)"};
inline constexpr Flag kOutput{"--output", Value, "FILE",
                              "result CSV (required, except with --share)"};
inline constexpr Flag kFormat{
    "--format", Value, "F",
    "the --output table's form, where its name's extension should not decide:\n"
    "ecsv (or csv; ECSV 1.0, a CSV with a YAML header giving every column's\n"
    "unit and type, which astropy reads), fits (a FITS binary table, the\n"
    "metadata as header keywords), votable (TOPCAT's own XML table, units,\n"
    "UCDs, the metadata as PARAMs) or json. By default the name decides:\n"
    ".fits/.fit/.fts FITS, .vot/.xml VOTable, .json JSON, anything else ECSV"};
inline constexpr Flag kJsonOutput{"--json-output",
                                  Value,
                                  "FILE",
                                  "the same result as JSON, with per-set raw counts",
                                  {{{"--json"}}}};
inline constexpr Flag kEstimator{"--estimator", Value, "E", "{estimators}"};
inline constexpr Flag kQuiet{
    "--quiet", Switch, {}, "no progress bar and no summary on the terminal"};
inline constexpr Flag kProgressInterval{
    "--progress-interval", Value, "S",
    "where stderr is not a terminal (a batch job's log): a time-stamped progress\n"
    "line (stage, percent, pairs/s, ETA) every S seconds, default 10; 0: none"};
inline constexpr Flag kMeanTheta{
    "--mean-theta",
    Switch,
    {},
    "also the mean separation of each count's pairs per bin: mean_theta_X and\n"
    "mean_log_theta_X columns (X = DD, DR, RR), weighted by w_i*w_j where the\n"
    "catalogs carry weights; a pass of its own after the counts"};
inline constexpr Flag kTimings{
    "--timings",
    Switch,
    {},
    "where the time went (reading each catalog, starting the backend, the\n"
    "job's stages, writing), in seconds on stderr"};
inline constexpr Flag kPlot{
    "--plot", Value, "FILE",
    "the w(theta) figure as TPACF Studio draws it (jackknife error bars when\n"
    "there are some; log axes for log bins; the fitted curve with --fit):\n"
    "FILE.png (1800 x 1200 px at 300 dpi), FILE.pdf or FILE.svg (vector,\n"
    "6 x 4 in). Drawn offscreen: no display needed. Needs a build with the\n"
    "GUI (Qt){plot-availability}"};
inline constexpr Flag kPlotStyle{
    "--plot-style", Value, "FILE",
    "the figure's style as TPACF Studio's Export Plot dialog saves it (Save\n"
    "Style...): size (journal presets: 3.5 in single, 7.2 in double column),\n"
    "fonts, PNG dpi, legend, title, axes, markers, error bars, theta unit"};
inline constexpr Flag kConfig{
    "--config", Value, "FILE",
    "a job file: the run's flags as TOML keys (data = \"d.fits\", random =\n"
    "[\"r1.fits\", \"r2.fits\"], jackknife = 20, quiet = true), under an optional\n"
    "[run] table; flags on the command line override it. The result's\n"
    "metadata records the file. Studio writes one (Run > Save Run as Job File)"};
inline constexpr const Flag* kInputOutputFlags[] = {&kConfig, &kData,   &kRandom,  &kData2,      &kRandom2,
                                                    &kOutput, &kFormat,  &kJsonOutput, &kEstimator,
                                                    &kQuiet,  &kProgressInterval,
                                                    &kMeanTheta, &kTimings, &kPlot,
                                                    &kPlotStyle};
inline constexpr FlagGroup kInputOutputGroup{"Inputs and outputs", kInputOutputFlags};

inline constexpr Flag kSaveCounts{
    "--save-counts", Value, "FILE",
    "every count of the run (DD, DR_i, RD_i, RR_i; weighted sums and\n"
    "region tallies where the run has them) for later runs and 'tpacf combine'"};
inline constexpr Flag kReuseCounts{
    "--reuse-counts", Value, "FILE",
    "take every count whose catalogs (by content, not name), bins and\n"
    "jackknife regions match from FILE and count only the rest (typically\n"
    "all RR_i, and DR_i while the data is unchanged); bins that differ, a\n"
    "random catalog whose content is not in FILE or regions that differ are\n"
    "errors. The CSV metadata says which counts were reused. Impossible\n"
    "numbers are refused (more pairs than the catalogs have, weighted sums\n"
    "beyond their weights, two different counts of the same catalogs), but a\n"
    "count file carries no signature: an edited, plausible number is not caught"};
inline constexpr Flag kShare{
    "--share", Value, "K/N",
    "count only part K of N of the work (1 <= K <= N) into --save-counts;\n"
    "no w is written. 'tpacf combine' adds the N parts into one count file\n"
    "that --reuse-counts takes"};
inline constexpr const Flag* kCountFileFlags[] = {&kSaveCounts, &kReuseCounts, &kShare};
inline constexpr FlagGroup kCountFileGroup{
    "Count files (every count with its bins and each catalog's content fingerprint; JSON, or\n"
    "FITS binary tables for a name ending .fits)",
    kCountFileFlags};

inline constexpr Flag kJackknife{
    "--jackknife", Value, "K",
    "K regions of about equal data count, grown on the sky by k-means;\n"
    "adds w_err (sigma) to the CSV, and the regions, covariance and the\n"
    "K leave-one-out samples to the JSON. K from 2 to {max-jackknife-regions}"};
inline constexpr Flag kJackknifeColumn{
    "--jackknife-column", Value, "C",
    "regions from column C of the data and every random catalog (header name\n"
    "or 1-based index; integer labels, any values); with --jackknife K too,\n"
    "the column must hold K distinct labels"};
inline constexpr Flag kJackknifeSeed{
    "--jackknife-seed", Value, "S",
    "seed of the k-means regions (default 1); the same seed on the same data\n"
    "gives the same regions"};
inline constexpr Flag kJackknifeHealpix{
    "--jackknife-healpix", Value, "NSIDE",
    "grow the --jackknife K regions from HEALPix pixels at NSIDE (a power of\n"
    "2 up to 8192) instead of k-means: the data's occupied pixels in NESTED\n"
    "order cut into K runs of near-equal data weight"};
inline constexpr Flag kSaveRegions{
    "--save-regions", Value, "FILE",
    "write the jackknife regions (k-means centres, or HEALPix pixel runs) as\n"
    "JSON, for --regions in another run"};
inline constexpr Flag kRegions{
    "--regions", Value, "FILE",
    "take the jackknife regions from a --save-regions file, so that two\n"
    "samples (redshift slices, data and mocks) share them; points far from\n"
    "every centre, or another --jackknife K or NSIDE, are an error"};
inline constexpr Flag kBootstrap{
    "--bootstrap", Value, "B",
    "error bars from B bootstrap samples of the jackknife regions instead of\n"
    "the jackknife: the regions drawn with replacement, a pair between two\n"
    "regions weighing the mean of their draws (TreeCorr's bootstrap with\n"
    "cross_patch_weight 'mean'; Loh 2008's marks), C = 1/(B-1) sum (w_b -\n"
    "mean)(w_b - mean); needs regions (--jackknife K, --jackknife-column or\n"
    "--regions)"};
inline constexpr Flag kBootstrapSeed{"--bootstrap-seed", Value, "S",
                                     "seed of the bootstrap draws (default 1)"};
inline constexpr Flag kCrossRegionWeight{
    "--cross-region-weight", Value, "W",
    "how the samples weigh a pair between a kept region and a left-out one\n"
    "(TreeCorr's cross_patch_weight): simple (dropped; the jackknife's\n"
    "default), mean (1/2; the bootstrap's, its only one here) or match\n"
    "(1 - K/(2 + sqrt(2)(K-1)), Mohammad & Percival 2022; jackknife only)"};
inline constexpr Flag kCovariance{
    "--covariance", Value, "FILE",
    "the bins x bins covariance matrix of w (needs jackknife): ECSV, or FITS\n"
    "or VOTable where the name ends .fits/.fit/.fts or .vot/.xml (a FITS or\n"
    "VOTable --output holds it too, as its COVARIANCE table)"};
inline constexpr Flag kJackknifeSamples{
    "--jackknife-samples", Value, "FILE",
    "the K leave-one-out samples of w (a row per region, a column w_j per\n"
    "bin; needs jackknife), in the form its name asks for, as --covariance\n"
    "(a FITS or VOTable --output holds them too, as its JKSAMPLES table)"};
inline constexpr const Flag* kErrorBarFlags[] = {
    &kJackknife,   &kJackknifeColumn, &kJackknifeSeed, &kJackknifeHealpix,
    &kSaveRegions, &kRegions,         &kBootstrap,     &kBootstrapSeed,
    &kCrossRegionWeight, &kCovariance, &kJackknifeSamples};
inline constexpr FlagGroup kErrorBarGroup{
    "Error bars (jackknife: w is recomputed with each sky region left out)", kErrorBarFlags};

inline constexpr Flag kFit{
    "--fit", Value, "MIN:MAX",
    "w = A theta^(1-gamma) over the bins whose centre lies in MIN..MAX (bin\n"
    "unit), by generalised least squares with the jackknife covariance\n"
    "(Hartlap-corrected inverse), sigma only without it, unweighted without\n"
    "errors"};
inline constexpr Flag kFitOutput{"--fit-output", Value, "FILE",
                                 "the fit's parameters and errors as CSV"};
inline constexpr const Flag* kFitFlags[] = {&kFit, &kFitOutput};
inline constexpr FlagGroup kFitGroup{"Fit (printed on stderr after the result is written)",
                                     kFitFlags};

inline constexpr FlagGroup kCatalogFormatsGroup{"Catalog formats", {}, "{catalog-formats}"};

inline constexpr Flag kDataWeightCol{
    "--data-weight-col", Value, "C",
    "weight column of --data and --data2 (overrides --weight-col)"};
inline constexpr Flag kRandomWeightCol{
    "--random-weight-col", Value, "C",
    "weight column of --random and --random2 (overrides --weight-col)"};
inline constexpr const Flag* kWeightFlags[] = {&kWeightCol, &kDataWeightCol, &kRandomWeightCol};
inline constexpr FlagGroup kWeightGroup{kWeightsTitle, kWeightFlags};

inline constexpr const FlagGroup* kGroups[] = {
    &kInputOutputGroup, &kCountFileGroup, &kErrorBarGroup, &kFitGroup, &kCatalogFormatsGroup,
    &kReadGroup,        &kMaskGroup,      &kWeightGroup,   &kBinGroup, &kBackendGroup};

} // namespace run

/// tpacf run.
inline constexpr CommandFlags kRunFlags{"run", run::kGroups};

namespace count {

inline constexpr Flag kA{"--a", Value, "FILE", "first catalog (formats below)"};
inline constexpr Flag kB{"--b", Value, "FILE",
                         "second catalog (cross count); omit for the auto count of A"};
inline constexpr Flag kOutput{
    "--output", Value, "FILE",
    "the counts table (required): ECSV, or FITS or VOTable by the name's\n"
    "extension (.fits/.fit/.fts, .vot/.xml) or --format"};
inline constexpr const Flag* kInputOutputFlags[] = {
    &kA, &kB, &kOutput, &run::kFormat, &run::kQuiet, &run::kProgressInterval, &run::kMeanTheta};
inline constexpr FlagGroup kInputOutputGroup{"Inputs and outputs", kInputOutputFlags};

inline constexpr Flag kAWeightCol{"--a-weight-col", Value, "C",
                                  "weight column of --a (overrides --weight-col)"};
inline constexpr Flag kBWeightCol{"--b-weight-col", Value, "C",
                                  "weight column of --b (overrides --weight-col)"};
inline constexpr const Flag* kWeightFlags[] = {&kWeightCol, &kAWeightCol, &kBWeightCol};
inline constexpr FlagGroup kWeightGroup{kWeightsTitle, kWeightFlags};

inline constexpr const FlagGroup* kGroups[] = {&kInputOutputGroup, &run::kCatalogFormatsGroup,
                                               &kReadGroup,        &kMaskGroup,
                                               &kWeightGroup,      &kBinGroup,
                                               &kBackendGroup};

} // namespace count

/// tpacf count.
inline constexpr CommandFlags kCountFlags{"count", count::kGroups};

} // namespace tpacf::cli::flags
