# SPDX-License-Identifier: GPL-3.0-or-later
"""Bootstrap error bars (tpacf run --bootstrap B) against a direct resampling in numpy: pairs
counted by brute force in double per pair of regions, each region's mark (its inner pairs whole,
its pairs with other regions half), the regions each sample drew (from the JSON output) summed
into Landy-Szalay, the covariance with 1/(B-1); and a closed form: regions that are mirror
images of each other give every sample the same w, so sigma = 0."""
import json

import numpy as np
import pytest

from conftest import run_cli, unit_vectors

EDGES_DEG = [1.0, 2.5, 6.0, 15.0, 35.0]
BINS = ["--edges", ",".join(map(str, EDGES_DEG)), "--unit", "deg", "--backend", "cpu"]


def write_with_regions(path, ra, dec, regions):
    with open(path, "w") as f:
        f.write("# ra dec patch\n")
        for a, d, r in zip(ra, dec, regions):
            f.write("%r %r %d\n" % (float(a), float(d), int(r)))


def region_pair_counts(a, ra_, b, rb_, k, auto):
    """counts[bin, region of a, region of b] in double, brute force (auto: pairs i<j once)."""
    c2_edges = (2.0 * np.sin(np.radians(EDGES_DEG) / 2.0)) ** 2
    nbins = len(EDGES_DEG) - 1
    counts = np.zeros((nbins, k, k))
    for i in range(len(a)):
        start = i + 1 if auto else 0
        d = b[start:] - a[i]
        c2 = np.einsum("ij,ij->i", d, d)
        bins = np.searchsorted(c2_edges, c2, side="right") - 1
        inside = (bins >= 0) & (bins < nbins)
        np.add.at(counts, (bins[inside], ra_[i], rb_[start:][inside]), 1.0)
    return counts


def w_err_of(path):
    rows = [l.strip().split(",") for l in open(path) if not l.startswith("#")]
    column = rows[0].index("w_err")
    return np.array([float(row[column]) for row in rows[1:]])


def marks(counts):
    """Each region's mark per bin: its inner pairs whole, half of every pair leaving it."""
    k = counts.shape[1]
    inner = np.stack([counts[:, r, r] for r in range(k)], axis=1)
    touching = np.stack([counts[:, r, :].sum(axis=1) + counts[:, :, r].sum(axis=1)
                         - counts[:, r, r] for r in range(k)], axis=1)
    return 0.5 * (touching + inner)  # bins x regions


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bootstrap")
    rng = np.random.default_rng(21)
    def box(n, clumps):
        ra = rng.uniform(0, 60, n)
        dec = np.degrees(np.arcsin(rng.uniform(-0.5, 0.5, n)))
        if clumps:
            centres = rng.uniform([5, -20], [55, 20], (clumps, 2))
            pick = rng.integers(0, clumps, n // 3)
            ra[: n // 3] = centres[pick, 0] + rng.normal(0, 1.0, n // 3)
            dec[: n // 3] = centres[pick, 1] + rng.normal(0, 1.0, n // 3)
        return ra, dec
    k = 6
    ra, dec = box(500, 12)
    rra, rdec = box(900, 0)
    region = np.minimum((ra // 10).astype(int), k - 1)
    rregion = np.minimum((rra // 10).astype(int), k - 1)
    write_with_regions(folder / "d.txt", ra, dec, region)
    write_with_regions(folder / "r.txt", rra, rdec, rregion)
    return folder, k, (ra, dec, region), (rra, rdec, rregion)


def test_bootstrap_equals_a_direct_resampling(survey):
    folder, k, (ra, dec, region), (rra, rdec, rregion) = survey
    b = 40
    run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
            "--jackknife-column", "patch", "--bootstrap", b, "--bootstrap-seed", 5,
            "--output", folder / "w.ecsv", "--json-output", folder / "w.json", *BINS)
    result = json.load(open(folder / "w.json"))
    selections = np.array(result["jackknife"]["bootstrap"]["selections"])
    assert selections.shape == (b, k) and selections.min() >= 0 and selections.max() < k
    # Labels 0..5 map onto regions 0..5 in sorted order.
    d, r = unit_vectors(ra, dec), unit_vectors(rra, rdec)
    dd = marks(region_pair_counts(d, region, d, region, k, auto=True))
    dr = marks(region_pair_counts(d, region, r, rregion, k, auto=False))
    rr = marks(region_pair_counts(r, rregion, r, rregion, k, auto=True))
    nd = np.bincount(region, minlength=k).astype(float)
    nr = np.bincount(rregion, minlength=k).astype(float)
    samples = []
    for selection in selections:
        n_d, n_r = nd[selection].sum(), nr[selection].sum()
        ddn = dd[:, selection].sum(axis=1) / (n_d * (n_d - 1) / 2)
        drn = dr[:, selection].sum(axis=1) / (n_d * n_r)
        rrn = rr[:, selection].sum(axis=1) / (n_r * (n_r - 1) / 2)
        samples.append((ddn - 2 * drn + rrn) / rrn)
    samples = np.array(samples)
    covariance = np.cov(samples, rowvar=False, ddof=1)
    w_err = w_err_of(folder / "w.ecsv")
    np.testing.assert_allclose(np.array(result["jackknife"]["samples"]), samples, rtol=1e-9)
    np.testing.assert_allclose(np.array(result["jackknife"]["covariance"]), covariance,
                               rtol=1e-8, atol=1e-15)
    np.testing.assert_allclose(w_err, np.sqrt(np.diag(covariance)), rtol=1e-8)
    # Another seed draws other regions; the same seed the same ones.
    run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
            "--jackknife-column", "patch", "--bootstrap", b, "--bootstrap-seed", 6,
            "--output", folder / "w6.ecsv", "--json-output", folder / "w6.json", *BINS)
    other = json.load(open(folder / "w6.json"))["jackknife"]["bootstrap"]["selections"]
    assert other != selections.tolist()


def test_mirror_regions_give_zero_sigma(tmp_path):
    """Two regions, each the mirror image (Dec -> -Dec) of the other, data and randoms alike:
    every region's marks and points are equal, so every sample's w is the same."""
    rng = np.random.default_rng(3)
    ra = rng.uniform(0, 40, 300)
    dec = rng.uniform(5, 40, 300)
    rra = rng.uniform(0, 40, 600)
    rdec = rng.uniform(5, 40, 600)
    mirror = lambda a, d: (np.concatenate([a, a]), np.concatenate([d, -d]),
                           np.concatenate([np.zeros(len(a), int), np.ones(len(a), int)]))
    write_with_regions(tmp_path / "d.txt", *mirror(ra, dec))
    write_with_regions(tmp_path / "r.txt", *mirror(rra, rdec))
    run_cli("run", "--data", tmp_path / "d.txt", "--random", tmp_path / "r.txt",
            "--jackknife-column", "patch", "--bootstrap", 30, "--output", tmp_path / "w.ecsv",
            "--json-output", tmp_path / "w.json", *BINS)
    samples = np.array(json.load(open(tmp_path / "w.json"))["jackknife"]["samples"])
    assert np.ptp(samples, axis=0).max() < 1e-12
    assert w_err_of(tmp_path / "w.ecsv").max() < 1e-6


@pytest.mark.parametrize("flags,words", [
    (["--bootstrap", 10], "--bootstrap resamples the jackknife regions"),
    (["--jackknife", 4, "--bootstrap", 1], "--bootstrap"),
    (["--jackknife", 4, "--bootstrap-seed", 3], "--bootstrap-seed seeds the draws"),
])
def test_bad_bootstrap_flags(survey, tmp_path, flags, words):
    folder = survey[0]
    done = run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
                   "--output", tmp_path / "w.ecsv", *flags, *BINS, check=False)
    assert done.returncode == 2 and words in done.stderr, done.stderr


def test_python_takes_the_same_options(survey, tmp_path):
    """tpacf.correlate(bootstrap=..., jackknife_healpix=..., regions_file=...) gives the CLI's
    result, bin for bin."""
    import tpacf
    folder, k, (ra, dec, region), (rra, rdec, rregion) = survey
    data = tpacf.Catalog(ra, dec)
    randoms = tpacf.Catalog(rra, rdec)
    bins = tpacf.Bins.from_edges(EDGES_DEG, unit="deg")
    result = tpacf.correlate(data, randoms, bins=bins, jackknife=4, jackknife_healpix=8,
                             bootstrap=25, bootstrap_seed=9, backend="cpu")
    assert result.bootstrap_selections.shape == (25, 4)
    from conftest import write_ascii
    write_ascii(tmp_path / "d.txt", ra, dec)
    write_ascii(tmp_path / "r.txt", rra, rdec)
    run_cli("run", "--data", tmp_path / "d.txt", "--random", tmp_path / "r.txt",
            "--jackknife", 4, "--jackknife-healpix", 8, "--bootstrap", 25, "--bootstrap-seed", 9,
            "--save-regions", tmp_path / "regions.json", "--output", tmp_path / "w.ecsv", *BINS)
    np.testing.assert_array_equal(result.w_err, w_err_of(tmp_path / "w.ecsv"))
    again = tpacf.correlate(data, randoms, bins=bins, regions_file=str(tmp_path / "regions.json"),
                            bootstrap=25, bootstrap_seed=9, backend="cpu")
    np.testing.assert_array_equal(again.w_err, result.w_err)
    with pytest.raises(tpacf.ConfigError, match="bootstrap resamples the jackknife regions"):
        tpacf.correlate(data, randoms, bins=bins, bootstrap=10, backend="cpu")
