#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The standard job from numpy arrays, through `import tpacf` and through TreeCorr, on the same
arrays (those of scripts/bench-python-standard-job.py: N data and S random catalogs of N points,
uniform on the sky, the same seeds), 30 log bins 0.01'-10 deg.

TreeCorr counts DD, the S DR and the S RR with NNCorrelation.process, once per bin_slop given
(its default, 1 for 30 bins over three decades, and 0, its exact brute force within the tree);
tpacf counts the same with one correlate call (CUDA double where a GPU is present, else the
CPU), twice in one process. Each TreeCorr count is compared with tpacf's exact one, bin by bin.

    PYTHONPATH=build/headless/python:TREECORR:COORD python3 \
        scripts/bench-treecorr-standard-job.py [N] [S] [bin_slop ...]

bin_slop "default" leaves TreeCorr's own choice; "SLOP/Arc" measures separations as great-circle
angles (TreeCorr's metric "Arc", tpacf's definition), where the default metric for RA/Dec bins
chords, 2 sin(θ/2), against edges given as angles.
"""
import os
import sys
import time

import numpy as np
import tpacf
import treecorr


def sky(seed, n):
    rng = np.random.default_rng(seed)
    ra = rng.uniform(0, 360, n)
    dec = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
    return ra, dec


def worst_relative(got, want):
    """Largest |got - want| / want over the bins where want > 0, and the largest |got - want|."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    full = want > 0
    rel = np.max(np.abs(got[full] - want[full]) / want[full]) if full.any() else 0.0
    return rel, np.max(np.abs(got - want))


def run_treecorr(arrays, bin_slop, metric):
    config = dict(min_sep=0.01, max_sep=600.0, nbins=30, sep_units="arcmin", metric=metric)
    if bin_slop != "default":
        config["bin_slop"] = float(bin_slop)
    cats = [treecorr.Catalog(ra=ra, dec=dec, ra_units="deg", dec_units="deg") for ra, dec in arrays]
    start = time.perf_counter()
    dd = treecorr.NNCorrelation(**config)
    dd.process(cats[0])
    dr, rr = [], []
    for random in cats[1:]:
        pair = treecorr.NNCorrelation(**config)
        pair.process(cats[0], random)
        dr.append(pair.npairs.copy())
        auto = treecorr.NNCorrelation(**config)
        auto.process(random)
        rr.append(auto.npairs.copy())
    wall = time.perf_counter() - start
    return wall, dd.npairs.copy(), dr, rr, dd.bin_slop


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    s = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    slops = sys.argv[3:] or ["default", "0", "0/Arc"]
    arrays = [sky(1, n)] + [sky(100 + i, n) for i in range(s)]
    print(f"standard job: {n} data + {s} x {n} randoms, 30 log bins 0.01'-10 deg; "
          f"{os.cpu_count()} CPU threads; TreeCorr {treecorr.__version__}; "
          f"tpacf devices: {tpacf.devices()}")

    data = tpacf.Catalog(*arrays[0], name="data")
    randoms = [tpacf.Catalog(ra, dec) for ra, dec in arrays[1:]]
    bins = tpacf.Bins.log(0.01, 600, count=30, unit="arcmin")
    backend = "cuda" if tpacf.devices() else "cpu"
    for call in (1, 2):
        start = time.perf_counter()
        exact = tpacf.correlate(data, randoms, bins=bins, backend=backend, precision="double")
        print(f"tpacf {backend} double, call {call}: {time.perf_counter() - start:.3f} s "
              f"({exact.device})")

    for choice in slops:
        slop, _, metric = choice.partition("/")
        metric = metric or "Euclidean"
        wall, dd, dr, rr, used = run_treecorr(arrays, slop, metric)
        rel_dd, abs_dd = worst_relative(dd, exact.dd)
        rel_dr = max(worst_relative(dr[i], exact.dr_sets[i])[0] for i in range(s))
        rel_rr = max(worst_relative(rr[i], exact.rr_sets[i])[0] for i in range(s))
        print(f"TreeCorr bin_slop={slop} (used {used:g}), metric {metric}: {wall:.2f} s for DD + {s} DR + {s} RR; "
              f"largest relative count difference from the exact counts: DD {rel_dd:.2e} "
              f"(up to {abs_dd:.0f} pairs), DR {rel_dr:.2e}, RR {rel_rr:.2e}")


if __name__ == "__main__":
    main()
