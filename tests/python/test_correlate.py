# SPDX-License-Identifier: GPL-3.0-or-later
"""tpacf.correlate equals `tpacf run` on the same catalogs in every column (one and two samples,
with and without jackknife, with reused counts), and its result's arrays, table and files say
the same as the CLI's file."""
import json

import numpy as np
import pytest

import tpacf
from conftest import run_cli, table_rows

BIN_FLAGS = ["--bins", "log", "--min", "1", "--max", "300", "--unit", "arcmin",
             "--per-decade", "4"]
BINS = tpacf.Bins.log(1, 300, per_decade=4, unit="arcmin")


def cli_run(tmp_path, name, *args):
    out = tmp_path / (name + ".csv")
    run_cli("run", *args, *BIN_FLAGS, "--backend", "cpu", "--output", out, "--quiet")
    return out


def column(rows, name):
    header = rows[0].split(",")
    return np.array([float(row.split(",")[header.index(name)]) for row in rows[1:]])


@pytest.mark.parametrize("jackknife", [None, 6])
def test_one_sample_equals_tpacf_run(tmp_path, samples, jackknife):
    extra = ["--jackknife", str(jackknife)] if jackknife else []
    cli = cli_run(tmp_path, "cli", "--data", samples["sample_data"],
                  "--random", samples["sample_random_1"], "--random", samples["sample_random_2"],
                  *extra)
    data = tpacf.Catalog.read(samples["sample_data"])
    randoms = [tpacf.Catalog.read(samples[n]) for n in ("sample_random_1", "sample_random_2")]
    result = tpacf.correlate(data, randoms, bins=BINS, jackknife=jackknife, backend="cpu")
    result.write(tmp_path / "py.csv")
    rows = table_rows(cli)
    assert table_rows(tmp_path / "py.csv") == rows
    # The arrays are the file's columns.
    np.testing.assert_array_equal(result.w, column(rows, "w"))
    np.testing.assert_array_equal(result.dd, column(rows, "DD"))
    np.testing.assert_array_equal(result.rr, column(rows, "RR"))
    np.testing.assert_array_equal(result.rr_sets.sum(axis=0), result.rr)
    np.testing.assert_array_equal(result.centres, column(rows, "theta_mid"))
    assert result.backend == "cpu" and result.precision == "double"
    assert "count" in result.timings and result.elapsed > 0
    if jackknife:
        np.testing.assert_array_equal(result.w_err, column(rows, "w_err"))
        assert result.covariance.shape == (len(BINS), len(BINS))
        assert result.jackknife_samples.shape == (jackknife, len(BINS))
        np.testing.assert_allclose(np.sqrt(np.diag(result.covariance)), result.w_err, rtol=1e-12)
    else:
        assert result.w_err is None and result.covariance is None


def with_weights(source, target, every=1):
    """The catalog's rows (every n-th) with a weight column named w."""
    lines = [l for l in open(source) if not l.startswith("#")][::every]
    target.write_text("ra dec w\n" + "".join(
        l.rstrip("\n") + " %r\n" % (0.5 + (i % 7) / 6.0) for i, l in enumerate(lines)))
    return target


def test_two_samples_and_weights_equal_tpacf_run(tmp_path, samples):
    # --data-weight-col reads the column of both samples: both get one.
    first = with_weights(samples["sample_data"], tmp_path / "d1.txt")
    second = with_weights(samples["sample_random_2"], tmp_path / "d2.txt", every=3)
    cli = cli_run(tmp_path, "cli", "--data", first, "--data2", second,
                  "--random", samples["sample_random_1"], "--data-weight-col", "w")
    result = tpacf.correlate(tpacf.Catalog.read(first, weight_col="w"),
                             tpacf.Catalog.read(samples["sample_random_1"]),
                             tpacf.Catalog.read(second, weight_col="w"),
                             bins=BINS, backend="cpu")
    assert result.is_cross and result.is_weighted
    result.write(tmp_path / "py.csv")
    rows = table_rows(cli)
    written = table_rows(tmp_path / "py.csv")
    assert written[0] == rows[0]
    # Raw counts and theta bit for bit; the weighted sums, and what is computed from them, are
    # summed in an order that depends on the threads' timing (core/src/counting/
    # cpu_tile_kernels.h): two runs of the CLI itself differ in the last bits. w is a
    # difference of ratios of order 1, so where it is near zero those bits are its absolute
    # error (1.2e-15 on a w of -0.0012 was seen): an absolute tolerance beside the relative one.
    for name in rows[0].split(","):
        if name in ("theta_lo", "theta_hi", "theta_mid", "DD", "DR", "RD", "RR"):
            np.testing.assert_array_equal(column(written, name), column(rows, name))
        else:
            np.testing.assert_allclose(column(written, name), column(rows, name), rtol=1e-12,
                                       atol=1e-13)
    np.testing.assert_array_equal(result.rd, column(rows, "RD"))
    # The second sample counted against the first's randoms: the note the CLI writes.
    assert any("random" in note for note in result.notes)


def test_reused_counts_equal_tpacf_run_reusing_them(tmp_path, samples):
    store_path = tmp_path / "run.counts.json"
    first = tpacf.correlate(tpacf.Catalog.read(samples["sample_data"]),
                            tpacf.Catalog.read(samples["sample_random_1"]), bins=BINS,
                            backend="cpu", save_counts=True)
    first.counts.save(store_path)
    store = tpacf.load_counts(store_path)
    assert set(store.labels) == {"DD", "DR_1", "RR_1"}
    np.testing.assert_array_equal(store.raw("RR_1"), first.rr)
    # New data against the same randoms: RR taken from the count file.
    other = tmp_path / "other.txt"
    other.write_text("".join(l for i, l in enumerate(open(samples["sample_random_2"]))
                             if i % 3 == 1))
    cli = cli_run(tmp_path, "cli", "--data", other, "--random", samples["sample_random_1"],
                  "--reuse-counts", store_path)
    for reuse in (store_path, store):
        result = tpacf.correlate(tpacf.Catalog.read(other),
                                 tpacf.Catalog.read(samples["sample_random_1"]), bins=BINS,
                                 backend="cpu", reuse=reuse)
        assert result.reused_counts and "RR_1" in result.reused_counts[0]
        result.write(tmp_path / "py.csv")
        assert table_rows(tmp_path / "py.csv") == table_rows(cli)


def test_combined_shares_equal_the_whole_run(tmp_path, samples):
    # Two --share parts counted by tpacf run, combined here and by tpacf combine: the counts of
    # the whole run, and the same file.
    inputs = ["--data", samples["sample_data"], "--random", samples["sample_random_1"]]
    parts = []
    for k in (1, 2):
        part = tmp_path / ("part%d.json" % k)
        run_cli("run", *inputs, *BIN_FLAGS, "--backend", "cpu", "--share", "%d/2" % k,
                "--save-counts", part, "--quiet")
        parts.append(tpacf.load_counts(part))
    assert not parts[0].whole and not parts[1].whole
    combined = tpacf.combine_counts(parts)
    assert combined.whole
    whole = tpacf.correlate(tpacf.Catalog.read(samples["sample_data"]),
                            tpacf.Catalog.read(samples["sample_random_1"]), bins=BINS,
                            backend="cpu", save_counts=True).counts
    assert sorted(combined.labels) == sorted(whole.labels)
    for label in whole.labels:
        np.testing.assert_array_equal(combined.raw(label), whole.raw(label))
        assert sum(p.raw(label).sum() for p in parts) == whole.raw(label).sum()
    run_cli("combine", tmp_path / "part1.json", tmp_path / "part2.json",
            "--output", tmp_path / "cli.json")
    combined.save(tmp_path / "py.json")
    by_cli = tpacf.load_counts(tmp_path / "cli.json")
    for label in whole.labels:
        np.testing.assert_array_equal(by_cli.raw(label), combined.raw(label))
    # One part twice is not a whole batch: refused in the words of tpacf combine.
    with pytest.raises(ValueError):
        tpacf.combine_counts([parts[0], parts[0]])


def test_table_and_other_formats(tmp_path, samples):
    pytest.importorskip("astropy", reason="to_table needs astropy (Debian: python3-astropy)")
    result = tpacf.correlate(tpacf.Catalog.read(samples["sample_data"]),
                             tpacf.Catalog.read(samples["sample_random_1"]), bins=BINS,
                             jackknife=4, backend="cpu")
    table = result.to_table()
    assert str(table["theta_mid"].unit) == "arcmin"
    np.testing.assert_array_equal(table["w"], result.w)
    np.testing.assert_array_equal(table["DD"], result.dd)
    assert table.meta["backend"] == "cpu"
    result.write(tmp_path / "w.json")
    written = json.load(open(tmp_path / "w.json"))
    assert written["jackknife"] is not None
    result.write(tmp_path / "w.csv", covariance=tmp_path / "cov.csv")
    cov_rows = table_rows(tmp_path / "cov.csv")
    assert len(cov_rows) == len(BINS) + 1
    if tpacf._tpacf.fits_output_supported:
        from astropy.table import Table
        result.write(tmp_path / "w.fits")
        fits = Table.read(tmp_path / "w.fits", hdu="WTHETA")
        np.testing.assert_array_equal(fits["w"], result.w)
    from astropy.table import Table
    result.write(tmp_path / "w.vot", covariance=tmp_path / "cov.vot")
    # With jackknife the VOTable holds WTHETA, COVARIANCE and JKSAMPLES: astropy takes an ID.
    votable = Table.read(tmp_path / "w.vot", format="votable", table_id="WTHETA")
    assert Table.read(tmp_path / "w.vot", format="votable",
                      table_id="JKSAMPLES").colnames[:2] == ["region", "n_data"]
    np.testing.assert_array_equal(votable["DD"], result.dd)
    np.testing.assert_array_equal(votable["w"], result.w)
    assert str(votable["theta_mid"].unit) == "arcmin"
    assert Table.read(tmp_path / "cov.vot", format="votable").colnames[:2] == ["bin", "theta_mid"]
    with pytest.raises(ValueError):
        result.write(tmp_path / "w.txt", format="xlsx")


def test_bad_correlate_settings(samples):
    data = tpacf.Catalog.read(samples["sample_data"])
    randoms = tpacf.Catalog.read(samples["sample_random_1"])
    with pytest.raises(tpacf.ConfigError, match=r"K = 1 regions cannot give error bars"):
        tpacf.correlate(data, randoms, bins=BINS, jackknife=1)
    with pytest.raises(ValueError, match=r"'xx' is not an estimator \(ls, natural, dp, hamilton\)"):
        tpacf.correlate(data, randoms, bins=BINS, estimator="xx")
    with pytest.raises(ValueError, match="at least one random catalog"):
        tpacf.correlate(data, [], bins=BINS)
    with pytest.raises(TypeError):
        tpacf.correlate(data, [randoms, "r.txt"], bins=BINS)
    with pytest.raises(ValueError, match="randoms2 gives randoms of the second sample"):
        tpacf.correlate(data, randoms, randoms2=randoms, bins=BINS)
    with pytest.raises(ValueError, match=r"^precision: 'half' is not a precision"):
        tpacf.correlate(data, randoms, bins=BINS, precision="half")
    if not any(entry["available"] for entry in tpacf.devices()[1:]):
        with pytest.raises(RuntimeError) as raised:
            tpacf.correlate(data, randoms, bins=BINS, backend="cuda")
        assert isinstance(raised.value, tpacf.BackendUnavailable)


def test_plot_draws_w_with_error_bars(samples):
    import matplotlib
    matplotlib.use("Agg")
    result = tpacf.correlate(tpacf.Catalog.read(samples["sample_data"]),
                             tpacf.Catalog.read(samples["sample_random_1"]), bins=BINS,
                             jackknife=4, backend="cpu")
    ax = result.plot()
    drawn = sum(len(line.get_xdata()) for line in ax.lines)
    assert drawn == np.isfinite(result.w).sum() - (result.w == 0).sum()
    assert ax.get_xscale() == "log"


def with_regions(source, target, every=1):
    """The catalog's rows (every n-th) with a region label column: RA in 4 slices of the patch."""
    rows = [l.split() for l in open(source) if not l.startswith("#")][::every]
    target.write_text("ra dec region\n" + "".join(
        "%s %s %d\n" % (ra, dec, int(float(ra) // 10) % 4) for ra, dec in rows))
    return target


def test_region_labels_equal_tpacf_run_with_a_region_column(tmp_path, samples):
    data = with_regions(samples["sample_data"], tmp_path / "d.txt")
    randoms = with_regions(samples["sample_random_1"], tmp_path / "r.txt")
    cli = cli_run(tmp_path, "cli", "--data", data, "--random", randoms,
                  "--jackknife-column", "region")
    from_files = tpacf.correlate(tpacf.Catalog.read(data, region_col="region"),
                                 tpacf.Catalog.read(randoms, region_col="region"),
                                 bins=BINS, jackknife="labels", backend="cpu")
    from_files.write(tmp_path / "py.csv")
    assert table_rows(tmp_path / "py.csv") == table_rows(cli)
    assert from_files.jackknife_regions["count"] == 4
    # The same labels given as arrays.
    arrays = {}
    for name, path in (("d", data), ("r", randoms)):
        table = np.loadtxt(path, skiprows=1)
        arrays[name] = tpacf.Catalog(table[:, 0], table[:, 1], regions=table[:, 2].astype(int))
    from_arrays = tpacf.correlate(arrays["d"], arrays["r"], bins=BINS, jackknife="labels",
                                  backend="cpu")
    np.testing.assert_array_equal(from_arrays.w_err, from_files.w_err)
    np.testing.assert_array_equal(from_arrays.covariance, from_files.covariance)
    with pytest.raises(ValueError):
        tpacf.correlate(tpacf.Catalog.read(data), tpacf.Catalog.read(randoms), bins=BINS,
                        jackknife="labels")


def brute_force_means(a, b, edges_rad, weights_a, weights_b):
    """<theta> and <ln theta> per bin (radians) of every pair of a x b (b None: a's pairs i < j),
    theta by arctan2(|u x v|, u . v) in double, pair-weighted."""
    def unit(ra, dec):
        ra, dec = np.radians(ra), np.radians(dec)
        return np.stack([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)], axis=1)
    u = unit(*a)
    v = unit(*b) if b is not None else u
    theta = np.arctan2(np.linalg.norm(np.cross(u[:, None], v[None, :]), axis=2), u @ v.T)
    w = np.outer(weights_a, weights_b if b is not None else weights_a)
    keep = np.ones_like(theta, dtype=bool) if b is not None else np.triu(np.ones_like(theta, dtype=bool), 1)
    means, logs = [], []
    for low, high in zip(edges_rad[:-1], edges_rad[1:]):
        inside = keep & (theta >= low) & (theta < high)
        means.append((w * theta)[inside].sum() / w[inside].sum())
        logs.append((w * np.log(np.where(inside, theta, 1)))[inside].sum() / w[inside].sum())
    return np.array(means), np.array(logs)


def test_mean_theta_against_a_brute_force():
    rng = np.random.default_rng(8)
    def box(n):
        return rng.uniform(150, 160, n), rng.uniform(0, 10, n)
    (dra, ddec), (rra, rdec) = box(400), box(500)
    weights = rng.uniform(0.5, 2, 400)
    bins = tpacf.Bins.log(0.5, 8, count=6, unit="deg")
    result = tpacf.correlate(tpacf.Catalog(dra, ddec, weights), tpacf.Catalog(rra, rdec),
                             bins=bins, backend="cpu", mean_theta=True)
    assert sorted(result.mean_theta) == ["DD", "DR", "RR"]
    edges = np.radians(result.edges)
    ones = np.ones(500)
    for kind, (a, b, wa, wb) in {"DD": ((dra, ddec), None, weights, None),
                                 "DR": ((dra, ddec), (rra, rdec), weights, ones),
                                 "RR": ((rra, rdec), None, ones, None)}.items():
        mean, log = brute_force_means(a, b, edges, wa, wb)
        np.testing.assert_allclose(result.mean_theta[kind], np.degrees(mean), rtol=1e-12)
        # ln of theta in degrees crosses 0 at 1 deg: an absolute floor beside the relative.
        np.testing.assert_allclose(result.mean_log_theta[kind], log + np.log(180 / np.pi),
                                   rtol=1e-12, atol=1e-13)
    # Not asked for: None.
    plain = tpacf.correlate(tpacf.Catalog(dra, ddec), tpacf.Catalog(rra, rdec), bins=bins,
                            backend="cpu")
    assert plain.mean_theta is None and plain.mean_log_theta is None
