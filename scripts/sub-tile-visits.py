#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the pair kernels' sub-tile culling leaves to the pair loops (docs/gpu-kernel-notes.md), in
a host model, not a GPU measurement: N uniform points sorted by the device's Morton key, the
standard job's 30 log bins 0.01'-10°, boxes judged with the kernels' rule and margin (out of
reach, one bin, or visited pair by pair).

1. Per warp (four register groups of 32 consecutive points) and 32-point j sub-tile within
   reach: how many groups visit it. Where fewer than four do, a loop over all four computes the
   others' pairs for nothing.
2. With j groups of 32, 16 or 8 points against the 32-point i sub-boxes: the pairs in visited
   (i sub-box, j group) pairs per in-range pair among them, and the share of pairs added whole.
3. The visited 32 x 32 sub-box pairs whose pairs lie in two neighbouring slots (narrow), and
   those of them in the last bin and beyond θ_max (edge): what a count by compares could take.
   /usr/bin/python3 scripts/sub-tile-visits.py [N=1048576] [WARPS=300]
"""
import importlib.util
import pathlib
import sys

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "histogram_banks", pathlib.Path(__file__).with_name("histogram-banks.py"))
_banks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_banks)
MARGIN = 1e-5


def boxes(points, size):
    groups = points.reshape(-1, size, 3)
    return groups.min(axis=1), groups.max(axis=1)


def judge(lo_a, hi_a, lo, hi, edges):
    """Visited (some pair may be in range and not all in one bin) and whole, per box of lo, hi."""
    gap = np.maximum(0, np.maximum(lo - hi_a, lo_a - hi))
    span = np.maximum(np.abs(hi - lo_a), np.abs(hi_a - lo))
    low = (gap ** 2).sum(1) * (1 - MARGIN)
    high = (span ** 2).sum(1) * (1 + MARGIN)
    near = (low < edges[-1]) & (high >= edges[0])
    one_bin = near & (np.searchsorted(edges, low, side="right")
                      == np.searchsorted(edges, high, side="right")) & (high < edges[-1])
    return near & ~one_bin, one_bin


def slots(lo_a, hi_a, lo, hi, edges):
    """The slots (edges at or below) of the least and greatest c² of the boxes' pairs, with the
    kernels' margin."""
    gap = np.maximum(0, np.maximum(lo - hi_a, lo_a - hi))
    span = np.maximum(np.abs(hi - lo_a), np.abs(hi_a - lo))
    low = (gap ** 2).sum(1) * (1 - MARGIN)
    high = (span ** 2).sum(1) * (1 + MARGIN)
    return np.searchsorted(edges, low, side="right"), np.searchsorted(edges, high, side="right")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    warps = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = np.random.default_rng(1)
    points = _banks.morton_sorted(n, rng)
    theta = np.radians(np.logspace(np.log10(0.01 / 60), np.log10(10), 31))
    edges = (2 * np.sin(theta / 2)) ** 2
    lo32, hi32 = boxes(points, 32)
    sample = rng.integers(0, n // 128, warps)

    visiting = np.zeros(5)
    for w in sample:
        groups = [judge(lo32[4 * w + r], hi32[4 * w + r], lo32, hi32, edges)[0] for r in range(4)]
        visiting += np.bincount(np.sum(groups, axis=0), minlength=5)
    share = visiting[1:] / visiting[1:].sum()
    partial = visiting[1:4].sum()
    mean = (visiting[1:4] * np.arange(1, 4)).sum() / partial
    work = (visiting[1:] * np.arange(1, 5)).sum() / (4 * visiting[1:].sum())
    print(f"{n} points, {warps} warps: j sub-tiles visited by 1, 2, 3, 4 groups: "
          + ", ".join(f"{s:.3f}" for s in share))
    print(f"  {partial / visiting[1:].sum():.3f} of them by fewer than four, {mean:.2f} groups on "
          f"average there; the visiting groups' pairs are {work:.3f} of those a loop over all "
          "four computes")

    for size in (32, 16, 8):
        lo, hi = boxes(points, size)
        visited = kept = whole = 0
        for s in 4 * sample:
            near, one_bin = judge(lo32[s], hi32[s], lo, hi, edges)
            visited += near.sum() * 32 * size
            whole += one_bin.sum() * 32 * size
            j = points.reshape(-1, size, 3)[np.nonzero(near)[0]].reshape(-1, 3)
            c2 = ((points[32 * s:32 * s + 32, None, :] - j[None, :, :]) ** 2).sum(2)
            kept += (c2 < edges[-1]).sum()
        print(f"  j groups of {size:2d}: visited pairs {visited / kept:.3f} x the in-range ones "
              f"among them, {whole / (kept + whole):.3f} of in-range pairs added whole")

    visited = narrow = edge = 0
    for s in 4 * sample:
        for r in range(4):
            near, one_bin = judge(lo32[s + r], hi32[s + r], lo32, hi32, edges)
            slot_lo, slot_hi = slots(lo32[s + r], hi32[s + r], lo32, hi32, edges)
            open_pairs = near & ~one_bin
            two = open_pairs & (slot_hi - slot_lo <= 1)
            visited += open_pairs.sum()
            narrow += two.sum()
            edge += (two & (slot_lo == len(edges) - 1)).sum()
    print(f"  visited sub-box pairs: {narrow / visited:.3f} narrow (two neighbouring slots), "
          f"{edge / visited:.3f} edge (the last bin and beyond theta_max)")


if __name__ == "__main__":
    main()
