// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Flags several subcommands share, one row each: how catalogs are read, how bins are chosen,
// which backend runs, where generated points lie and how they cluster.
#include "flag_table.h"

namespace tpacf::cli::flags {

using enum FlagKind;

// Reading catalogs.
inline constexpr Flag kCoordUnit{
    "--coord-unit", Value, "U",
    "unit of RA and Dec in the files: deg (default), arcmin, arcsec, rad"};
inline constexpr Flag kRaHours{
    "--ra-hours", Switch, {}, "RA is in hours (Dec stays in --coord-unit)"};
inline constexpr Flag kRaCol{"--ra-col", Value, "C",
                             "RA column by header name or 1-based index\n"
                             "(default: the column named ra, else the first numeric column)"};
inline constexpr Flag kDecCol{"--dec-col", Value, "C",
                              "Dec column by header name or 1-based index\n"
                              "(default: the column named dec, else the next numeric column)"};
inline constexpr Flag kHdu{
    "--hdu", Value, "N|NAME",
    "FITS: the table's HDU, by extension number (1 is the first) or EXTNAME\n"
    "(default: the first binary table). HDF5: the group whose 1-D datasets\n"
    "are the columns, or a table (compound dataset), e.g. survey/north\n"
    "(default: the root group, or the file's only table)"};
inline constexpr Flag kMask{
    "--mask", Value, "FILE",
    "a footprint as a HEALPix map (completeness 0..1, RING or NESTED,\n"
    "full-sky or partial, NSIDE up to 8192) or a MOC, in FITS: points\n"
    "outside it (completeness 0) are dropped from every catalog, and how\n"
    "many is said for each"};
inline constexpr Flag kMaskThreshold{
    "--mask-threshold", Value, "T",
    "also drop points where the completeness is below T (0..1; default 0:\n"
    "keep every point the mask covers)"};
inline constexpr Flag kMaskColumn{
    "--mask-column", Value, "C",
    "the map's column of completeness (default: the first numeric column\n"
    "that is not PIXEL)"};
inline constexpr const Flag* kMaskFlags[] = {&kMask, &kMaskThreshold, &kMaskColumn};
inline constexpr FlagGroup kMaskGroup{"Mask", kMaskFlags};

inline constexpr const Flag* kReadFlags[] = {&kCoordUnit, &kRaHours, &kRaCol, &kDecCol, &kHdu};
inline constexpr FlagGroup kReadGroup{
    "Reading catalogs (applies to every catalog of the command)", kReadFlags,
    R"(  FITS paths take cfitsio's selections (quote them in the shell): 'd.fits[CATALOG]',
  'd.fits[1][Z>0.4 && Z<0.8]' (rows kept), 'd.fits[1][col RA;DEC;W=WEIGHT*WFKP]'
  (columns, computed ones too), 'd.fits[1][col RA=POS[1];DEC=POS[2]]' (vector elements);
  the column list is applied before the row filter; an HDU in the path overrides --hdu.
  A selection never reads another file: '@file' and regfilter(), gtifilter(), gtioverlap(),
  gtifind() are refused (write the expression itself in the brackets).
)"};

// Weights: one column for every catalog, and per role (the commands' tables add those rows).
inline constexpr std::string_view kWeightsTitle =
    "Weights (per-object weights: pairs count w_i*w_j, summed in double beside the raw counts)";
inline constexpr Flag kWeightCol{
    "--weight-col", Value, "C",
    "weight column of every catalog, by header name or 1-based index\n"
    "(a catalog without it is an error; weights must be finite, negative\n"
    "weights are allowed and reported)"};

// Bins.
inline constexpr Flag kPreset{
    "--preset", Value, "NAME",
    "log5 (5 per decade, 0.01'-10000') or quarter-degree (linear 0-90 deg)"};
inline constexpr Flag kBins{"--bins", Value, "log|linear",
                            "bin scale for bins given by hand (default log)"};
inline constexpr Flag kMin{"--min", Value, "X", "smallest bin edge (theta), in --unit"};
inline constexpr Flag kMax{"--max", Value, "Y", "largest bin edge (theta), in --unit"};
inline constexpr Flag kUnit{"--unit", Value, "U",
                            "unit of the bins: deg, arcmin (default), arcsec, rad"};
inline constexpr Flag kPerDecade{"--per-decade", Value, "K", "log bins per decade (default 5)"};
inline constexpr Flag kNbins{"--nbins", Value, "N", "number of bins (log or linear)"};
inline constexpr Flag kWidth{"--width", Value, "W", "linear bin width, in --unit"};
inline constexpr Flag kEdges{
    "--edges", Value, "E",
    "custom bins from their edges, in --unit: a comma list (0.1,0.3,1,3) or\n"
    "a file with one edge per line, or \"lo hi\" per line as Corrfunc's bin\n"
    "file ('#' comments allowed); not with the flags above but --unit"};
inline constexpr const Flag* kBinFlags[] = {&kPreset,    &kBins,  &kMin,   &kMax,  &kUnit,
                                            &kPerDecade, &kNbins, &kWidth, &kEdges};
inline constexpr FlagGroup kBinGroup{"Bins (default: --preset log5)", kBinFlags};

// Backend.
inline constexpr Flag kBackend{
    "--backend", Value, "B",
    "auto (default: the GPU where usable, else the CPU), cpu{backend-modules}"};
inline constexpr Flag kPrecision{"--precision", Value, "P",
                                 "float, double or auto (auto, the default: double on the CPU\n"
                                 "and on GPUs with full-rate FP64 (H100, A100, V100), float\n"
                                 "(hi+lo) on GPUs with slow FP64 (GeForce, RTX); the result\n"
                                 "says which and why)"};
inline constexpr Flag kThreads{"--threads", Value, "N",
                               "CPU threads (default: all hardware threads)"};
inline constexpr Flag kDevices{"--devices", Value, "LIST",
                               "GPU indices to use, e.g. 0,1 (default: as many as the job's work\n"
                               "pays for, each GPU costing ~0.3 s to start; under MPI each rank\n"
                               "takes its own share of its host's GPUs); see 'tpacf devices'"};
inline constexpr Flag kGpuMemoryLimit{
    "--gpu-memory-limit", Value, "SIZE",
    "the most memory of each GPU the catalogs may take (e.g. 6G; default:\n"
    "what the GPU has free). Catalogs that need more are streamed through\n"
    "the GPU in pieces: the same counts, more uploads (the result notes it)"};
inline constexpr Flag kCulling{
    "--culling", Value, "M",
    "spatial culling: auto (default: the backend decides from theta_max and\n"
    "N), on (visit only the cell pairs of the sky that can hold a pair below\n"
    "theta_max) or off (brute force, every pair); counts are the same either way"};
inline constexpr const Flag* kBackendFlags[] = {&kBackend, &kPrecision,      &kThreads,
                                                &kDevices, &kGpuMemoryLimit, &kCulling};
inline constexpr FlagGroup kBackendGroup{"Backend", kBackendFlags};

// Where generated points lie (mock, bench): one flag; mock's three flags of old are its aliases.
inline constexpr Flag kFootprint{
    "--footprint",
    Value,
    "F",
    "where the points lie (degrees): full-sky (default),\n"
    "box:RA_MIN,RA_MAX,DEC_MIN,DEC_MAX (RA_MIN > RA_MAX wraps through RA 0)\n"
    "or cap:RA,DEC,RADIUS (spherical cap)",
    {{{"--full-sky", FlagAlias::Form::Fixed, "full-sky"},
      {"--box", FlagAlias::Form::Prefix, "box:"},
      {"--cap", FlagAlias::Form::Prefix, "cap:"}}}};

// Soneira-Peebles clustering (mock, bench --clustered).
inline constexpr Flag kLevels{"--levels", Value, "L", "levels of the hierarchy (default 8)"};
inline constexpr Flag kEta{"--eta", Value, "E", "sub-spheres per sphere (default 2)"};
inline constexpr Flag kLambda{"--lambda", Value, "X",
                              "radius ratio between levels, > 1 (default 1.7818: slope -0.8)"};
inline constexpr Flag kOuterRadius{"--outer-radius", Value, "D",
                                   "radius of the top-level spheres in degrees (default 10)"};
inline constexpr const Flag* kClusteringFlags[] = {&kLevels, &kEta, &kLambda, &kOuterRadius};

} // namespace tpacf::cli::flags
