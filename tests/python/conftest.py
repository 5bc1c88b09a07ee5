# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared pieces of the Python package's suites: the CLI to compare with, sample catalogs, an
independent brute-force pair count in double, and the ECSV table rows."""
import os
import subprocess

import numpy as np
import pytest

CLI = os.environ.get("TPACF_CLI", "tpacf")
SAMPLES = os.environ.get("TPACF_SAMPLES", "")


def run_cli(*args, check=True):
    """Runs the tpacf program; returns the CompletedProcess (text)."""
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError("tpacf %s failed (%d): %s" % (" ".join(map(str, args)),
                                                          done.returncode, done.stderr))
    return done


def table_rows(path):
    """The lines of a result or count CSV that are not '#' metadata: header and rows, as text."""
    with open(path) as f:
        return [line.rstrip("\n") for line in f if not line.startswith("#")]


def write_ascii(path, ra, dec, weights=None):
    """Values as their shortest round-trip text, so the CLI reads the very doubles."""
    with open(path, "w") as f:
        for i in range(len(ra)):
            fields = [repr(float(ra[i])), repr(float(dec[i]))]
            if weights is not None:
                fields.append(repr(float(weights[i])))
            f.write(" ".join(fields) + "\n")


def unit_vectors(ra_deg, dec_deg):
    """As core builds them: radians = degrees * (pi/180), RA wrapped, then cos/sin in double."""
    per_degree = np.pi / 180.0
    ra = np.mod(np.asarray(ra_deg, dtype=np.float64), 360.0) * per_degree
    dec = np.clip(np.asarray(dec_deg, dtype=np.float64) * per_degree, -np.pi / 2, np.pi / 2)
    cos_dec = np.cos(dec)
    return np.stack([cos_dec * np.cos(ra), cos_dec * np.sin(ra), np.sin(dec)], axis=1)


def brute_force(a, b, edges_rad, wa=None, wb=None):
    """Pair counts per bin in double: c^2 from coordinate differences against 4 sin^2(theta/2) of
    each edge; auto (b is None) counts each pair i<j once. Returns (counts, weighted sums)."""
    c2_edges = (2.0 * np.sin(np.asarray(edges_rad) / 2.0)) ** 2
    nbins = len(edges_rad) - 1
    counts = np.zeros(nbins, dtype=np.uint64)
    sums = np.zeros(nbins)
    other = a if b is None else b
    w_other = wa if b is None else wb
    for i in range(len(a)):
        start = i + 1 if b is None else 0
        d = other[start:] - a[i]
        c2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]
        k = np.searchsorted(c2_edges, c2, side="right") - 1
        inside = (k >= 0) & (k < nbins)
        counts += np.bincount(k[inside], minlength=nbins).astype(np.uint64)
        if wa is not None or wb is not None:
            wi = 1.0 if wa is None else wa[i]
            wj = np.ones(len(d)) if w_other is None else w_other[start:]
            sums += np.bincount(k[inside], weights=wi * wj[inside], minlength=nbins)
    return counts, sums


@pytest.fixture
def samples():
    if not SAMPLES or not os.path.isdir(SAMPLES):
        pytest.skip("no sample catalogs (TPACF_SAMPLES)")
    return {name: os.path.join(SAMPLES, name + ".txt")
            for name in ("sample_data", "sample_random_1", "sample_random_2")}
