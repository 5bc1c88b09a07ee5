# SPDX-License-Identifier: GPL-3.0-or-later
"""check_jackknife_tables.py RESULT JSON ECSV_RESULT COVARIANCE SAMPLES: the covariance and the
leave-one-out samples a FITS or VOTable RESULT holds (COVARIANCE, JKSAMPLES), read by astropy,
against the JSON result's, against the covariance formed again from the samples in numpy, and
against the companion files an ECSV result names in its meta. Prints "ok K BINS"."""
import json
import sys

import numpy as np
from astropy.table import Table


def tables_of(path):
    """The result's tables by name: FITS extensions or VOTable TABLEs."""
    if path.endswith(".vot"):
        from astropy.io.votable import parse
        document = parse(path, verify="exception")
        return {t.name: t.to_table() for t in document.iter_tables()}
    from astropy.io import fits
    with fits.open(path) as hdus:
        names = [hdu.name for hdu in hdus[1:]]
    return {name: Table.read(path, hdu=name) for name in names}


def matrix(table, prefix, first):
    """The columns prefix_0.. of `table` as a rows × columns array."""
    names = [n for n in table.colnames if n.startswith(prefix)]
    assert names == [f"{prefix}{j}" for j in range(len(names))], names
    assert table.colnames.index(names[0]) == first, table.colnames
    return np.array([[float(row[n]) for n in names] for row in table])


def main(result_path, json_path, ecsv_path, covariance_path, samples_path):
    tables = tables_of(result_path)
    assert list(tables) == ["WTHETA", "COVARIANCE", "JKSAMPLES"], list(tables)
    w, cov, samples = tables["WTHETA"], tables["COVARIANCE"], tables["JKSAMPLES"]
    bins = len(w)
    document = json.load(open(json_path))
    jackknife = document["jackknife"]
    want_samples = np.array(jackknife["samples"], dtype=float)
    want_cov = np.array(jackknife["covariance"], dtype=float)
    regions = want_samples.shape[0]

    got_samples = matrix(samples, "w_", 2)
    assert got_samples.shape == (regions, bins), got_samples.shape
    assert list(samples["region"]) == list(range(regions))
    assert list(samples["n_data"]) == jackknife["data_per_region"]
    assert np.array_equal(got_samples, want_samples, equal_nan=True)

    got_cov = matrix(cov, "cov_", 2)
    assert got_cov.shape == (bins, bins)
    assert np.array_equal(got_cov, want_cov, equal_nan=True)
    # The covariance formed again from the samples: (K-1)/K Σ_k (w_k - mean)(w_k - mean)^T.
    finite = np.all(np.isfinite(got_samples), axis=0)
    s = got_samples[:, finite]
    d = s - s.mean(axis=0)
    again = (regions - 1) / regions * d.T @ d
    scale = np.max(np.abs(again))
    assert scale > 0
    assert np.max(np.abs(again - got_cov[np.ix_(finite, finite)])) <= 1e-12 * scale
    # σ is the diagonal's root.
    assert np.allclose(np.asarray(w["w_err"])[finite] ** 2, np.diag(got_cov)[finite],
                       rtol=1e-12, atol=0)

    meta = Table.read(ecsv_path, format="ascii.ecsv").meta
    assert meta["covariance_file"] == covariance_path, meta
    assert meta["samples_file"] == samples_path, meta
    beside_cov = matrix(Table.read(covariance_path, format="ascii.ecsv"), "cov_", 2)
    beside_samples = matrix(Table.read(samples_path, format="ascii.ecsv"), "w_", 2)
    assert np.array_equal(beside_cov, got_cov, equal_nan=True)
    assert np.array_equal(beside_samples, got_samples, equal_nan=True)
    print("ok", regions, bins)


if __name__ == "__main__":
    main(*sys.argv[1:6])
