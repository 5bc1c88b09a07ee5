#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Masks at survey size, through `import tpacf`: random points drawn inside an NSIDE 2048 mask and
10^7 points cut to it, on every core of this machine (and on one thread, for the scaling).

Two masks of NSIDE 2048, made with healpy and written as FITS: a binary footprint (a DES-like
cap of 40 deg radius with holes: 1.8 % of its pixels off, as stars and bad fields cut them) and
the same footprint with a completeness drawn per pixel from [0.5, 1] (every pixel its own run).
Each figure is the best of three calls in one process; reading the mask is timed apart.

    PYTHONPATH=build/testing/python /usr/bin/python3 scripts/bench-masks.py [N]
"""
import os
import sys
import tempfile
import time

import healpy as hp
import numpy as np
import tpacf


def best_of(calls, function):
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def footprint(nside, rng, graded):
    m = np.zeros(hp.nside2npix(nside), dtype=np.float32)
    disc = hp.query_disc(nside, hp.ang2vec(40.0, -30.0, lonlat=True), np.radians(40.0))
    m[disc] = 1.0
    holes = disc[rng.random(len(disc)) < 0.018]
    m[holes] = 0.0
    if graded:
        inside = m > 0
        m[inside] = rng.uniform(0.5, 1.0, int(inside.sum())).astype(np.float32)
    return m


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    nside = 2048
    rng = np.random.default_rng(1)
    ra = rng.uniform(0, 360, n)
    dec = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
    catalog = tpacf.Catalog(ra, dec)
    cores = os.cpu_count()
    print("N = %d, NSIDE %d, %d hardware threads" % (n, nside, cores))
    with tempfile.TemporaryDirectory() as folder:
        for graded in (False, True):
            m = footprint(nside, rng, graded)
            path = os.path.join(folder, "mask.fits")
            hp.write_map(path, m, nest=False, dtype=np.float32, overwrite=True)
            start = time.perf_counter()
            mask = tpacf.Mask.read(path)
            read = time.perf_counter() - start
            kind = "completeness 0.5-1 per pixel" if graded else "binary"
            print("\nmask: %s, %.2f %% of the sky, read in %.2f s" %
                  (kind, 100 * mask.sky_fraction, read))
            for threads in (1, 0):
                label = "1 thread" if threads == 1 else "all threads"
                seconds = best_of(3, lambda: mask.randoms(n, seed=3, threads=threads))
                print("  randoms inside the mask, %s: %.3f s = %.3g points/s" %
                      (label, seconds, n / seconds))
                seconds = best_of(3, lambda: mask.apply(catalog, threads=threads))
                print("  %d points cut to the mask, %s: %.3f s = %.3g points/s" %
                      (n, label, seconds, n / seconds))


if __name__ == "__main__":
    main()
