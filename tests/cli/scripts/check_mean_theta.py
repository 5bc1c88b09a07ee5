# SPDX-License-Identifier: GPL-3.0-or-later
"""check_mean_theta.py DATA1 DATA2|- RANDOM RESULT... [--count COUNT_TABLE]: the mean_theta_X and
mean_log_theta_X columns of each RESULT (ECSV, FITS, VOTable read by astropy; JSON read as JSON)
against a brute force in numpy: every pair of the catalogs (text files, RA Dec [weight] in
degrees), binned by the result's own edges, θ = arctan2(|u × v|, u · v) from double unit
vectors, pair-weighted where a catalog has a third column. DATA2 "-": one sample (DD auto, DR,
RR auto); else two (DD = D1D2, DR = D1R, RD = RD2, RR = R auto, the second sample using the
first's randoms). --count: a `tpacf count --a DATA1 --b RANDOM` table's mean_theta column.
Relative tolerance 1e-12. Prints "ok" and the kinds checked."""
import json
import sys

import numpy as np
from astropy.table import Table


def catalog(path):
    values = np.loadtxt(path, ndmin=2)
    ra, dec = np.radians(values[:, 0]), np.radians(values[:, 1])
    xyz = np.stack([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)], axis=1)
    weights = values[:, 2] if values.shape[1] > 2 else np.ones(len(values))
    return xyz, weights


def moments(a, b, lo, hi):
    """Σw, Σwθ, Σw ln θ and pairs per bin [lo, hi) of θ in radians; b None: auto (i < j)."""
    (u, wu), (v, wv) = a, (b if b is not None else a)
    cross = np.cross(u[:, None, :], v[None, :, :])
    dot = np.einsum("ik,jk->ij", u, v)
    theta = np.arctan2(np.linalg.norm(cross, axis=2), dot)
    w = wu[:, None] * wv[None, :]
    keep = np.ones_like(theta, dtype=bool) if b is not None else np.triu(np.ones_like(theta, dtype=bool), 1)
    sums = []
    for low, high in zip(lo, hi):
        inside = keep & (theta >= low) & (theta < high)
        sums.append((inside.sum(), w[inside].sum(), (w * theta)[inside].sum(),
                     (w * np.log(np.where(inside, theta, 1.0)))[inside].sum()))
    return np.array(sums)


def close(got, want, what):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    bad = ~(np.isclose(got, want, rtol=1e-12, atol=0) | (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), f"{what}: {got[bad]} against {want[bad]}"


def columns_of(path):
    """(theta_lo, theta_hi, unit, {kind: (mean, mean_log)}, {kind: raw counts})."""
    if path.endswith(".json"):
        doc = json.load(open(path))
        unit = doc["bins"]["unit"]
        means = {k: (np.array(v["theta"], dtype=float), np.array(v["log_theta"], dtype=float))
                 for k, v in doc["mean_theta"].items()}
        raw = {k: v["pairs"] for k, v in doc["mean_theta"].items()}
        return np.array(doc["theta_lo"]), np.array(doc["theta_hi"]), unit, means, raw
    table = Table.read(path, hdu="WTHETA") if path.endswith(".fits") else Table.read(path)
    kinds = [n[len("mean_theta_"):] for n in table.colnames if n.startswith("mean_theta_")]
    unit = str(table["theta_lo"].unit)
    assert str(table[f"mean_theta_{kinds[0]}"].unit) == unit, "mean_theta has the bins' unit"
    means = {k: (np.array(table[f"mean_theta_{k}"]), np.array(table[f"mean_log_theta_{k}"]))
             for k in kinds}
    raw = {k: np.array(table[k]) for k in kinds}
    return np.array(table["theta_lo"]), np.array(table["theta_hi"]), unit, means, raw


PER_RADIAN = {"deg": 180 / np.pi, "arcmin": 10800 / np.pi, "arcsec": 648000 / np.pi, "rad": 1.0}


def expected_means(sums, unit):
    scale = PER_RADIAN[unit]
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[:, 2] / sums[:, 1] * scale, sums[:, 3] / sums[:, 1] + np.log(scale)


def main(argv):
    count = None
    if "--count" in argv:
        count = argv[argv.index("--count") + 1]
        argv = argv[: argv.index("--count")]
    d1, d2, r = catalog(argv[0]), (None if argv[1] == "-" else catalog(argv[1])), catalog(argv[2])
    checked = []
    for path in argv[3:]:
        lo, hi, unit, means, raw = columns_of(path)
        scale = PER_RADIAN[unit]
        lo, hi = lo / scale, hi / scale
        pairs = {"DD": (d1, d2), "DR": (d1, r), "RR": (r, None)}
        if d2 is not None:
            pairs["RD"] = (r, d2)
        assert sorted(means) == sorted(pairs), f"{path}: kinds {sorted(means)}"
        for kind, (a, b) in pairs.items():
            sums = moments(a, b, lo, hi)
            assert (sums[:, 0] > 0).sum() >= 3, f"{kind}: too few bins hold pairs"
            assert np.array_equal(np.asarray(raw[kind], dtype=np.int64), sums[:, 0].astype(np.int64)), \
                f"{path} {kind}: counts {raw[kind]} against {sums[:, 0]}"
            mean, mean_log = expected_means(sums, unit)
            close(means[kind][0], mean, f"{path} mean_theta_{kind}")
            close(means[kind][1], mean_log, f"{path} mean_log_theta_{kind}")
            inside = sums[:, 0] > 0
            assert np.all((means[kind][0][inside] >= lo[inside] * scale) &
                          (means[kind][0][inside] < hi[inside] * scale)), "a mean leaves its bin"
        checked.append(path)
    if count:
        table = Table.read(count)
        unit = str(table["theta_lo"].unit)
        scale = PER_RADIAN[unit]
        sums = moments(d1, r, np.array(table["theta_lo"]) / scale, np.array(table["theta_hi"]) / scale)
        mean, mean_log = expected_means(sums, unit)
        close(table["mean_theta"], mean, f"{count} mean_theta")
        close(table["mean_log_theta"], mean_log, f"{count} mean_log_theta")
        checked.append(count)
    print("ok", " ".join(checked))


if __name__ == "__main__":
    main(sys.argv[1:])
