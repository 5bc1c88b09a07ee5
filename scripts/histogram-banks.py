#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""How many shared-memory accesses a warp's add to its per-thread counters takes (the pair
kernels' private histogram, docs/gpu-kernel-notes.md), with the counters `stride` words apart:
lane l adds to word slot * stride + l, and the banks are the words modulo 32. A host model, not a
GPU measurement: N uniform points sorted by a 10-bit-per-axis Morton key (as the device sorts
them), random 32-point sub-tiles (a warp's i-points) against a j-point within reach of theta_max,
each pair's slot from the 30 log bins of the standard job; an add takes as many accesses as the
most distinct words one bank is asked for.
   /usr/bin/python3 scripts/histogram-banks.py [N=1048576] [SAMPLES=3000]
"""
import sys

import numpy as np


def morton_sorted(n, rng):
    z = rng.uniform(-1, 1, n)
    phi = rng.uniform(0, 2 * np.pi, n)
    r = np.sqrt(1 - z * z)
    points = np.c_[r * np.cos(phi), r * np.sin(phi), z]
    cells = np.clip(((points + 1) / 2 * 1024).astype(np.int64), 0, 1023)
    key = np.zeros(n, dtype=np.int64)
    for bit in range(10):
        for axis in range(3):
            key |= ((cells[:, axis] >> bit) & 1) << (3 * bit + axis)
    return points[np.argsort(key, kind="stable")]


def accesses(slots, stride):
    words = slots * stride + np.arange(32)
    banks = words % 32
    return max(len(set(words[banks == b])) for b in set(banks.tolist()))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    rng = np.random.default_rng(1)
    points = morton_sorted(n, rng)
    theta = np.radians(np.logspace(np.log10(0.01 / 60), np.log10(10), 31))
    edges = (2 * np.sin(theta / 2)) ** 2  # chord² of the 30 log bins 0.01'-10°
    counts = {64: [], 65: []}
    distinct = []
    for _ in range(samples):
        start = int(rng.integers(0, n // 32)) * 32
        warp = points[start:start + 32]
        for _ in range(400):  # a j-point within reach of the bins
            c2 = ((warp - points[rng.integers(0, n)]) ** 2).sum(axis=1)
            if c2.min() < 1.5 * edges[-1]:
                break
        else:
            continue
        slots = np.searchsorted(edges, c2, side="right")
        distinct.append(len(set(slots.tolist())))
        for stride in counts:
            counts[stride].append(accesses(slots, stride))
    print(f"{n} points, {len(distinct)} warp adds: {np.mean(distinct):.2f} distinct slots a warp")
    for stride, values in counts.items():
        print(f"stride {stride}: {np.mean(values):.3f} accesses an add "
              f"(median {np.median(values):.0f}, 99th percentile {np.percentile(values, 99):.0f})")


if __name__ == "__main__":
    main()
