#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The standard job from numpy arrays already in memory, through `import tpacf`.

The catalogs of ../shared/bench/standard-job.sh (N data and S random catalogs of N points,
uniform on the sky, the same seeds), 30 log bins 0.01'-10 deg, Landy-Szalay, counted by
tpacf.correlate; each row runs twice in one process, so the second call shows what a notebook
pays once the backend is up. Catalog construction (the unit vectors) is timed apart.

    PYTHONPATH=build/headless/python python3 scripts/bench-python-standard-job.py [N] [S]
"""
import sys
import time

import numpy as np
import tpacf


def sky(seed, n):
    rng = np.random.default_rng(seed)
    ra = rng.uniform(0, 360, n)
    dec = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
    return ra, dec


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    s = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    arrays = [sky(1, n)] + [sky(100 + i, n) for i in range(s)]
    start = time.perf_counter()
    data = tpacf.Catalog(*arrays[0], name="data")
    randoms = [tpacf.Catalog(ra, dec, name=f"random {i}") for i, (ra, dec) in enumerate(arrays[1:])]
    print(f"standard job from numpy: {n} data + {s} x {n} randoms; catalogs built in "
          f"{time.perf_counter() - start:.3f} s; devices: {tpacf.devices()}")
    bins = tpacf.Bins.log(0.01, 600, count=30, unit="arcmin")
    rows = [("cuda", "float", None), ("cuda", "double", None), ("cuda", "double", 32),
            ("cpu", "double", None)]
    for backend, precision, jackknife in rows:
        if backend == "cpu" and n > 200_000:
            continue  # the CPU backend's figure comes from tpacf bench, not from minutes here
        for call in (1, 2):
            start = time.perf_counter()
            result = tpacf.correlate(data, randoms, bins=bins, backend=backend,
                                     precision=precision, jackknife=jackknife)
            wall = time.perf_counter() - start
            print(f"{backend:5} {precision:7} jackknife {str(jackknife):5} call {call}: "
                  f"{wall:7.3f} s  (job {result.elapsed:.3f} s, {result.backend}, "
                  f"{result.device})  DD total {int(result.dd.sum())}")


if __name__ == "__main__":
    main()
