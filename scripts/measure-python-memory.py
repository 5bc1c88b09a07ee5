#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Memory of `import tpacf` on a large catalog: resident memory after the numpy arrays, after
tpacf.Catalog (one copy, in the engine's layout), and the peak during a count.

    PYTHONPATH=build/testing/python python3 scripts/measure-python-memory.py [N] [backend]

The count is an auto count of N uniform points in 5 log bins 0.01'-0.1' (small angles, so the
culled counters finish in seconds even for 10^7 points); the figures are the kernel's VmRSS and
VmHWM (/proc/self/status), in MB of 10^6 bytes.
"""
import sys
import time

import numpy as np
import tpacf


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(field)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    backend = sys.argv[2] if len(sys.argv) > 2 else "auto"
    base = status("VmRSS")
    rng = np.random.default_rng(3)
    ra = rng.uniform(0, 360, n)
    dec = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
    arrays = status("VmRSS")
    start = time.perf_counter()
    catalog = tpacf.Catalog(ra, dec)
    built = time.perf_counter() - start
    with_catalog = status("VmRSS")
    peak_before_count = status("VmHWM")
    start = time.perf_counter()
    counts = tpacf.count(catalog, bins=tpacf.Bins.log(0.01, 0.1, count=5, unit="arcmin"),
                         backend=backend)
    counted = time.perf_counter() - start
    after = status("VmRSS")
    peak = status("VmHWM")
    print(f"N = {n:,}, backend {counts.backend}: {int(counts.counts.sum()):,} pairs in "
          f"{counted:.2f} s (catalog built in {built:.2f} s)")
    print(f"  interpreter + numpy + tpacf      {base:8.0f} MB")
    print(f"  + ra, dec float64 arrays         {arrays - base:8.0f} MB  ({16 * n / 1e6:.0f} MB of data)")
    print(f"  + tpacf.Catalog                  {with_catalog - arrays:8.0f} MB  "
          f"({(with_catalog - arrays) * 1e6 / n:.1f} bytes per point)")
    print(f"  peak while building the catalog  {peak_before_count - arrays:8.0f} MB above the arrays")
    print(f"  peak during the count            {peak - with_catalog:8.0f} MB above the catalog "
          f"(resident after: {after - with_catalog:.0f} MB above)")
    print(f"  peak of the process              {peak:8.0f} MB")


if __name__ == "__main__":
    main()
