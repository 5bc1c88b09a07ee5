# SPDX-License-Identifier: GPL-3.0-or-later
"""correlate() and its Result: arrays, provenance, tables, the CLI's files, a plot."""
import os

from . import _tpacf


def _names(catalogs):
    if catalogs is None:
        return []
    if isinstance(catalogs, _tpacf.Catalog):
        return [catalogs.name]
    return [getattr(c, "name", repr(c)) for c in catalogs]


def _invocation(data, randoms, data2, randoms2, bins, estimator, jackknife, backend, precision):
    """How the run was asked for, in the result's provenance (the CLI writes its command line)."""
    parts = ["data=" + getattr(data, "name", "?"), "randoms=[" + ", ".join(_names(randoms)) + "]"]
    if data2 is not None:
        parts.append("data2=" + getattr(data2, "name", "?"))
    if randoms2 is not None:
        parts.append("randoms2=[" + ", ".join(_names(randoms2)) + "]")
    parts.append("bins=" + (bins.describe() if bins is not None else "log5"))
    parts.append("estimator=" + str(estimator))
    if jackknife is not None:
        parts.append("jackknife=" + str(jackknife))
    parts.append("backend=" + str(backend))
    if precision is not None:
        parts.append("precision=" + str(precision))
    return "python: tpacf.correlate(" + ", ".join(parts) + ")"


def correlate(data, randoms, data2=None, randoms2=None, *, bins=None, estimator="ls",
              jackknife=None, jackknife_seed=None, backend="auto", precision=None,
              devices=None, threads=0, culling="auto", reuse=None, save_counts=False,
              progress=None, mean_theta=False, jackknife_healpix=None, regions_file=None,
              bootstrap=None, bootstrap_seed=None, cross_region_weight=None, mask=None,
              mask_threshold=0.0):
    """w(theta) of a data catalog against random catalogs, as `tpacf run` computes it.

    data, randoms: tpacf.Catalog, and a Catalog or a list of them (random sets).
    data2, randoms2: the second sample of a cross-correlation (D1D2, D1R2, R1D2,
        R1R2); without randoms2 the second sample uses the first's randoms.
    bins: a tpacf.Bins (default Bins.preset("log5")).
    estimator: "ls" (Landy-Szalay), "natural", "dp" (Davis-Peebles), "hamilton".
    jackknife: K regions grown on the sky (k-means, seeded by jackknife_seed), or
        "labels" to use the region labels the catalogs carry; gives w_err, the
        covariance and the leave-one-out samples. jackknife_healpix=NSIDE grows
        the K regions from HEALPix pixels instead (as --jackknife-healpix);
        regions_file: the regions of a `tpacf run --save-regions` file.
    bootstrap: B bootstrap samples of the regions instead of the jackknife
        (TreeCorr's bootstrap with cross_patch_weight "mean", as --bootstrap),
        seeded by bootstrap_seed; result.bootstrap_selections holds the regions
        each sample drew.
    cross_region_weight: how the samples weigh a pair between a kept region
        and a left-out one, as TreeCorr's cross_patch_weight and
        --cross-region-weight: "simple" (dropped; the jackknife's default),
        "mean" (1/2; the bootstrap's) or "match" (Mohammad & Percival 2022;
        jackknife only).
    mask: a tpacf.Mask; every catalog is cut to it first (points of completeness
        0 or below mask_threshold dropped), as --mask; result.notes say what
        each kept.
    backend: "auto", "cpu" or "cuda"; precision: "auto", "double", "float";
        devices: GPU indices; threads: CPU threads (0: all); culling: "auto",
        "on", "off".
    reuse: a tpacf.CountStore or a count file's path: counts whose catalogs
        match are taken from it (RR of the same randoms), the rest counted.
    save_counts: keep every count in result.counts (a CountStore to save).
    mean_theta: also sum every counted pair's separation (as --mean-theta):
        result.mean_theta and result.mean_log_theta, per kind of count.
    progress: called now and then with a dict (fraction, pairs_done,
        pairs_total, pairs_per_second, elapsed, eta, preparing, mean_theta);
        an exception
        it raises stops the run.

    The GIL is released while counting; Ctrl-C stops the run with
    KeyboardInterrupt. Bad settings raise tpacf.ConfigError (a ValueError).
    """
    invocation = _invocation(data, randoms, data2, randoms2, bins, estimator, jackknife,
                             backend, precision)
    core = _tpacf.correlate(data, randoms, data2, randoms2, bins=bins, estimator=estimator,
                            jackknife=jackknife, jackknife_seed=jackknife_seed,
                            backend=backend, precision=precision, devices=devices,
                            threads=threads, culling=culling, reuse=reuse,
                            save_counts=save_counts, invocation=invocation, progress=progress,
                            mean_theta=mean_theta, jackknife_healpix=jackknife_healpix,
                            regions_file=regions_file, bootstrap=bootstrap,
                            bootstrap_seed=bootstrap_seed,
                            cross_region_weight=cross_region_weight, mask=mask,
                            mask_threshold=mask_threshold)
    return Result(core)


def _forward(name, doc):
    return property(lambda self: getattr(self._core, name), doc=doc)


class Result:
    """The result of tpacf.correlate.

    Arrays (numpy, one entry per bin unless said): edges (bins+1), centres,
    w, w_err (None without jackknife), covariance (bins x bins or None),
    jackknife_samples (K x bins or None); raw counts dd, dr, rr (rd in a
    cross run; summed over random sets, uint64) with dr_sets, rr_sets, rd_sets
    (sets x bins); their weighted sums dd_weighted, ... (None unweighted); the
    normalised dd_norm, dr_norm, rr_norm, rd_norm.
    Provenance: backend, device, precision, precision_choice, estimator,
    unit, bins, notes, reused_counts, inputs (data, randoms, data2, randoms2),
    timings (seconds per stage), elapsed, invocation.
    to_table(), write(path), plot(ax=None).
    """

    def __init__(self, core):
        self._core = core

    edges = _forward("edges", "Bin edges in the bins' unit (count+1).")
    centres = _forward("centres", "Bin centres in the bins' unit.")
    unit = _forward("unit", "The bins' angle unit: deg, arcmin, arcsec or rad.")
    bins = _forward("bins", "The bins in one line, as result files write them.")
    w = _forward("w", "w(theta) per bin (NaN where undefined).")
    w_err = _forward("w_err", "Jackknife sigma per bin, or None without jackknife.")
    covariance = _forward("covariance", "Jackknife covariance (bins x bins), or None.")
    jackknife_samples = _forward("jackknife_samples",
                                 "Leave-one-out w samples (K x bins), or None; with bootstrap=B "
                                 "the B bootstrap samples.")
    bootstrap_selections = _forward("bootstrap_selections",
                                    "With bootstrap=B: the regions each sample drew (B x K), "
                                    "else None.")
    cross_region_weight = _forward("cross_region_weight",
                                   "How the samples weighed pairs between regions ('simple', "
                                   "'mean' or 'match'), or None without error bars.")
    jackknife_regions = _forward("jackknife_regions",
                                 "The regions (count, method, per-region sizes, warnings), or None.")
    dd = _forward("dd", "Raw DD (D1D2) counts, uint64.")
    dr = _forward("dr", "Raw DR (D1R2) counts summed over random sets, uint64.")
    rd = _forward("rd", "Raw RD (R1D2) counts summed over random sets (cross runs), or None.")
    rr = _forward("rr", "Raw RR (R1R2) counts summed over random sets, uint64.")
    dr_sets = _forward("dr_sets", "Raw DR per random set (sets x bins).")
    rd_sets = _forward("rd_sets", "Raw RD per random set (sets x bins; empty unless cross).")
    rr_sets = _forward("rr_sets", "Raw RR per random set (sets x bins).")
    dd_weighted = _forward("dd_weighted", "Sum of w_i*w_j of DD per bin, or None.")
    dr_weighted = _forward("dr_weighted", "Weighted DR summed over sets, or None.")
    rd_weighted = _forward("rd_weighted", "Weighted RD summed over sets, or None.")
    rr_weighted = _forward("rr_weighted", "Weighted RR summed over sets, or None.")
    dd_norm = _forward("dd_norm", "Normalised DD.")
    dr_norm = _forward("dr_norm", "Normalised DR (mean over sets).")
    rd_norm = _forward("rd_norm", "Normalised RD (cross runs), or None.")
    rr_norm = _forward("rr_norm", "Normalised RR (mean over sets).")
    mean_theta = _forward("mean_theta",
                          "With mean_theta=True: {'DD': <theta> per bin in the bins' unit, 'DR': "
                          "..., 'RR': ...} (pair-weighted, random sets pooled; NaN where a bin "
                          "holds no pairs); else None.")
    mean_log_theta = _forward("mean_log_theta",
                              "With mean_theta=True: <ln theta> per bin and kind of count, theta "
                              "in the bins' unit; else None.")
    is_cross = _forward("is_cross", "A two-sample run.")
    is_weighted = _forward("is_weighted", "Counts are weighted.")
    has_jackknife = _forward("has_jackknife", "The run has jackknife errors.")
    estimator = _forward("estimator", "The estimator's key: ls, natural, dp, hamilton.")
    estimator_name = _forward("estimator_name", "The estimator's name.")
    backend = _forward("backend", "The backend that counted: cpu or cuda.")
    device = _forward("device", "The device(s) that counted.")
    precision = _forward("precision", "double or float.")
    precision_choice = _forward("precision_choice", "How the precision was chosen.")
    backend_notice = _forward("backend_notice", "E.g. the fallback to the CPU; '' when none.")
    device_choice = _forward("device_choice", "How many GPUs counted and why; '' when not chosen.")
    culled = _forward("culled", "Only cell pairs within reach of the bins were visited.")
    elapsed = _forward("elapsed", "Seconds the job took.")
    timings = _forward("timings", "Seconds per stage of the job, in order (a dict).")
    invocation = _forward("invocation", "How the run was asked for (written as 'command').")
    notes = _forward("notes", "Lines a reader of the result must see.")
    reused_counts = _forward("reused_counts", "Counts taken from reuse=, one line per source.")
    counts = _forward("counts", "Every count of the run (a CountStore) with save_counts=True, else None.")

    @property
    def inputs(self):
        """Name, size, weight sums, fingerprint and origin of each input catalog."""
        core = self._core
        return {"data": core.data, "randoms": core.randoms, "data2": core.data2,
                "randoms2": core.randoms2}

    def __len__(self):
        return len(self._core.centres)

    def __repr__(self):
        jackknife = ", jackknife" if self.has_jackknife else ""
        return "<tpacf.Result %d bins, %s, %s %s%s>" % (
            len(self), self.estimator, self.backend, self.precision, jackknife)

    def ecsv(self):
        """The result as the ECSV text `tpacf run --output` writes."""
        return self._core.ecsv_text()

    def write(self, path, format=None, *, covariance=None):
        """Writes the result file `tpacf run` writes, through the same writers.

        format: "ecsv" (the default; as --output w.ecsv), "fits" (default for a
        .fits/.fit/.fts name), "votable" (default for a .vot/.xml name) or
        "json" (default for a .json name), as tpacf run chooses by the name.
        covariance: also write the jackknife covariance there (as --covariance:
        FITS or VOTable by the name, else ECSV). Written to a temporary file and
        renamed when complete.
        """
        target = os.fspath(path)
        if format is None:
            lower = target.lower()
            if lower.endswith((".fits", ".fit", ".fts")):
                format = "fits"
            elif lower.endswith((".vot", ".xml")):
                format = "votable"
            elif lower.endswith(".json"):
                format = "json"
            else:
                format = "ecsv"
        writers = {"ecsv": self._core.write_ecsv, "csv": self._core.write_ecsv,
                   "fits": self._core.write_fits, "votable": self._core.write_votable,
                   "vot": self._core.write_votable, "json": self._core.write_json}
        if format not in writers:
            raise ValueError("format: %r is not a result format (ecsv, fits, votable, json)"
                             % (format,))
        writers[format](target)
        if covariance is not None:
            self._core.write_covariance(os.fspath(covariance))

    def to_table(self):
        """The result table as an astropy Table: the columns of the ECSV file with
        their units (theta in the bins' unit) and its metadata (provenance)."""
        from astropy.table import Table

        return Table.read(self.ecsv(), format="ascii.ecsv")

    def plot(self, ax=None, **style):
        """Plots w(theta) with matplotlib on `ax` (default: a new figure's axes).

        Log-log where every w is positive; otherwise log theta, and |w| of
        negative bins drawn with open markers as Studio does on a log axis.
        Jackknife sigma as error bars. Returns the axes.
        """
        import numpy as np
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        theta = np.asarray(self.centres)
        w = np.asarray(self.w)
        sigma = self.w_err
        sigma = np.zeros_like(w) if sigma is None else np.nan_to_num(np.asarray(sigma))
        finite = np.isfinite(w) & np.isfinite(theta)
        positive = finite & (w > 0)
        negative = finite & (w < 0)
        label = "w > 0 (%s)" % self.estimator_name
        if self.has_jackknife and self.bootstrap_selections is not None:
            label += " ± σ, bootstrap of %d regions (%d samples)" % (
                self.jackknife_regions["count"], len(self.bootstrap_selections))
        elif self.has_jackknife:
            label += " ± σ, jackknife over %d regions" % self.jackknife_regions["count"]
        ax.errorbar(theta[positive], w[positive], yerr=sigma[positive], fmt="o",
                    label=label, **style)
        if negative.any():
            ax.errorbar(theta[negative], -w[negative], yerr=sigma[negative], fmt="o",
                        mfc="none", color="tab:red", label="|w| where w < 0")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("θ [%s]" % self.unit)
        ax.set_ylabel("|w(θ)|" if negative.any() else "w(θ)")
        ax.legend()
        return ax
