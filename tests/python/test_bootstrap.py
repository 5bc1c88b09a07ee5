# SPDX-License-Identifier: GPL-3.0-or-later
"""Bootstrap and jackknife samples that weigh pairs between regions (tpacf run --bootstrap B,
--cross-region-weight) against a direct computation in numpy: pairs counted by brute force in
double for every pair of regions (K x K per bin), each sample a matrix G of pair weights as
TreeCorr defines them (G_ii the region's weight, G_ij that of pairs between regions i and j),
its counts sum(G * n) and its pair totals the same sum of the K x K pair totals, then
Landy-Szalay and the covariance. And a closed form: regions that are mirror images of each
other give every bootstrap sample the same w, so sigma = 0."""
import json

import numpy as np
import pytest

from conftest import run_cli, unit_vectors

EDGES_DEG = [1.0, 2.5, 6.0, 15.0, 35.0]
BINS = ["--edges", ",".join(map(str, EDGES_DEG)), "--unit", "deg", "--backend", "cpu"]


def write_with_regions(path, ra, dec, regions, weights=None):
    with open(path, "w") as f:
        f.write("# ra dec patch w\n" if weights is not None else "# ra dec patch\n")
        for i, (a, d, r) in enumerate(zip(ra, dec, regions)):
            extra = " %r" % float(weights[i]) if weights is not None else ""
            f.write("%r %r %d%s\n" % (float(a), float(d), int(r), extra))


def region_pair_counts(a, ra_, b, rb_, k, auto, wa=None, wb=None):
    """counts[bin, region of a, region of b] in double, brute force (auto: pairs i<j once);
    with weights, the sums of w_i * w_j."""
    c2_edges = (2.0 * np.sin(np.radians(EDGES_DEG) / 2.0)) ** 2
    nbins = len(EDGES_DEG) - 1
    counts = np.zeros((nbins, k, k))
    wa = np.ones(len(a)) if wa is None else wa
    wb = np.ones(len(b)) if wb is None else wb
    for i in range(len(a)):
        start = i + 1 if auto else 0
        d = b[start:] - a[i]
        c2 = np.einsum("ij,ij->i", d, d)
        bins = np.searchsorted(c2_edges, c2, side="right") - 1
        inside = (bins >= 0) & (bins < nbins)
        np.add.at(counts, (bins[inside], ra_[i], rb_[start:][inside]),
                  wa[i] * wb[start:][inside])
    return counts


def w_err_of(path):
    rows = [l.strip().split(",") for l in open(path) if not l.startswith("#")]
    column = rows[0].index("w_err")
    return np.array([float(row[column]) for row in rows[1:]])


def weighed(counts, g):
    """A sample's count per bin: sum over region pairs of G_ij * n_ij (n_ij: the pairs whose
    first point is in region i and second in j; G is symmetric, so the order is immaterial)."""
    return np.einsum("nij,ij->n", counts, g)


def auto_total(w, w2, g):
    """Distinct pairs of one catalog under G: region i's inner pairs ((sum w)^2 - sum w^2)/2
    weigh G_ii, the pairs between i and j (i < j) W_i W_j weigh G_ij."""
    inner = (w * w - w2) / 2.0
    between = np.triu(np.outer(w, w), 1)
    return (np.diag(g) * inner).sum() + (g * between).sum()


def cross_total(wa, wb, g):
    return (g * np.outer(wa, wb)).sum()


def landy_szalay(dd, dr, rr, g, sums):
    (wd, wd2), (wr, wr2) = sums
    ddn = weighed(dd, g) / auto_total(wd, wd2, g)
    drn = weighed(dr, g) / cross_total(wd, wr, g)
    rrn = weighed(rr, g) / auto_total(wr, wr2, g)
    return (ddn - 2 * drn + rrn) / rrn


def per_region(regions, k, weights=None):
    weights = np.ones(len(regions)) if weights is None else weights
    return (np.bincount(regions, weights, minlength=k),
            np.bincount(regions, weights * weights, minlength=k))


def bootstrap_g(selection, k):
    """TreeCorr's bootstrap, cross_patch_weight 'mean': region i drawn m_i times weighs its inner
    pairs m_i, a pair between i and j (m_i + m_j)/2."""
    m = np.bincount(selection, minlength=k).astype(float)
    g = (m[:, None] + m[None, :]) / 2.0
    np.fill_diagonal(g, m)
    return g


def jackknife_g(left_out, k, cross):
    """Leave one region out: pairs inside it weigh 0, pairs between it and the rest `cross`."""
    g = np.ones((k, k))
    g[left_out, :] = g[:, left_out] = cross
    g[left_out, left_out] = 0.0
    return g


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
    dd = region_pair_counts(d, region, d, region, k, auto=True)
    dr = region_pair_counts(d, region, r, rregion, k, auto=False)
    rr = region_pair_counts(r, rregion, r, rregion, k, auto=True)
    sums = (per_region(region, k), per_region(rregion, k))
    samples = [landy_szalay(dd, dr, rr, bootstrap_g(selection, k), sums)
               for selection in selections]
    samples = np.array(samples)
    covariance = np.cov(samples, rowvar=False, ddof=1)
    w_err = w_err_of(folder / "w.ecsv")
    np.testing.assert_allclose(np.array(result["jackknife"]["samples"]), samples, rtol=1e-9)
    np.testing.assert_allclose(np.array(result["jackknife"]["covariance"]), covariance,
                               rtol=1e-8, atol=1e-15)
    np.testing.assert_allclose(w_err, np.sqrt(np.diag(covariance)), rtol=1e-8)
    assert result["jackknife"]["cross_region_weight"] == "mean"
    # Another seed draws other regions; the same seed the same ones.
    run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
            "--jackknife-column", "patch", "--bootstrap", b, "--bootstrap-seed", 6,
            "--output", folder / "w6.ecsv", "--json-output", folder / "w6.json", *BINS)
    other = json.load(open(folder / "w6.json"))["jackknife"]["bootstrap"]["selections"]
    assert other != selections.tolist()


@pytest.mark.parametrize("weight,cross", [
    ("simple", 0.0), ("mean", 0.5), ("match", 1.0 - 6 / (2 + np.sqrt(2) * 5))])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_jackknife_weighs_pairs_between_regions(survey, tmp_path, weight, cross, weighted):
    """--cross-region-weight: every leave-one-out sample against the G-matrix sum (TreeCorr's
    JackknifePairIterator with cross_patch_weight simple, mean, match: eq. 27 of Mohammad &
    Percival 2022 for K = 6), weighted and not."""
    folder, k, (ra, dec, region), (rra, rdec, rregion) = survey
    rng = np.random.default_rng(8)
    wd = rng.uniform(0.5, 2.0, len(ra)) if weighted else None
    wr = rng.uniform(0.5, 2.0, len(rra)) if weighted else None
    write_with_regions(tmp_path / "d.txt", ra, dec, region, wd)
    write_with_regions(tmp_path / "r.txt", rra, rdec, rregion, wr)
    weights = ["--weight-col", "w"] if weighted else []
    run_cli("run", "--data", tmp_path / "d.txt", "--random", tmp_path / "r.txt",
            "--jackknife-column", "patch", "--cross-region-weight", weight, *weights,
            "--output", tmp_path / "w.ecsv", "--json-output", tmp_path / "w.json", *BINS)
    result = json.load(open(tmp_path / "w.json"))
    assert result["jackknife"]["cross_region_weight"] == weight
    d, r = unit_vectors(ra, dec), unit_vectors(rra, rdec)
    dd = region_pair_counts(d, region, d, region, k, True, wd, wd)
    dr = region_pair_counts(d, region, r, rregion, k, False, wd, wr)
    rr = region_pair_counts(r, rregion, r, rregion, k, True, wr, wr)
    sums = (per_region(region, k, wd), per_region(rregion, k, wr))
    samples = np.array([landy_szalay(dd, dr, rr, jackknife_g(j, k, cross), sums)
                        for j in range(k)])
    np.testing.assert_allclose(np.array(result["jackknife"]["samples"]), samples, rtol=1e-9)
    deviations = samples - samples.mean(axis=0)
    covariance = (k - 1) / k * deviations.T @ deviations
    np.testing.assert_allclose(np.array(result["jackknife"]["covariance"]), covariance,
                               rtol=1e-8, atol=1e-15)
    np.testing.assert_allclose(w_err_of(tmp_path / "w.ecsv"), np.sqrt(np.diag(covariance)),
                               rtol=1e-8)
    if weight != "simple":
        assert "cross-region weight" in open(tmp_path / "w.ecsv").read()


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
    (["--cross-region-weight", "mean"], "--cross-region-weight weighs pairs between"),
    (["--jackknife", 4, "--cross-region-weight", "geom"], "'geom' is none of simple, mean, match"),
    (["--jackknife", 4, "--bootstrap", 10, "--cross-region-weight", "match"],
     "'match' is not one the bootstrap takes: it takes mean"),
    (["--jackknife", 4, "--bootstrap", 10, "--cross-region-weight", "simple"],
     "K x K counts per bin"),
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
    # cross_region_weight as --cross-region-weight.
    matched = tpacf.correlate(data, randoms, bins=bins, jackknife=4, jackknife_healpix=8,
                              cross_region_weight="match", backend="cpu")
    run_cli("run", "--data", tmp_path / "d.txt", "--random", tmp_path / "r.txt",
            "--jackknife", 4, "--jackknife-healpix", 8, "--cross-region-weight", "match",
            "--output", tmp_path / "m.ecsv", *BINS)
    np.testing.assert_array_equal(matched.w_err, w_err_of(tmp_path / "m.ecsv"))
    assert matched.cross_region_weight == "match" and result.cross_region_weight == "mean"
    with pytest.raises(tpacf.ConfigError, match="is not one the bootstrap takes"):
        tpacf.correlate(data, randoms, bins=bins, jackknife=4, bootstrap=10,
                        cross_region_weight="match", backend="cpu")
