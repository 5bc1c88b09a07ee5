# SPDX-License-Identifier: GPL-3.0-or-later
"""tpacf.count: exact counts, equal to a brute-force count in double and to `tpacf count`."""
import threading

import numpy as np
import pytest

import tpacf
from conftest import brute_force, run_cli, table_rows, unit_vectors, write_ascii

ARCMIN = np.pi / (180.0 * 60.0)


def clustered(n, seed):
    """Points in a 20 x 20 deg patch with clumps, so small bins get pairs."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform([0, -10], [20, 10], size=(n // 20, 2))
    points = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 0.05, (n, 2))
    return points[:, 0], points[:, 1]


BINS = tpacf.Bins.log(0.1, 600, per_decade=5, unit="arcmin")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("cross", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_counts_equal_brute_force(dtype, cross, weighted):
    ra, dec = (x.astype(dtype) for x in clustered(1200, 1))
    ra2, dec2 = (x.astype(dtype) for x in clustered(900, 2))
    rng = np.random.default_rng(5)
    wa = rng.uniform(0.2, 2.0, 1200).astype(dtype) if weighted else None
    wb = rng.uniform(0.2, 2.0, 900).astype(dtype) if weighted else None
    a = tpacf.Catalog(ra, dec, wa)
    b = tpacf.Catalog(ra2, dec2, wb) if cross else None
    counted = tpacf.count(a, b, bins=BINS, backend="cpu")
    expected, sums = brute_force(
        unit_vectors(ra, dec), unit_vectors(ra2, dec2) if cross else None, BINS.edges * ARCMIN,
        None if wa is None else wa.astype(np.float64),
        None if wb is None else wb.astype(np.float64))
    assert counted.counts.dtype == np.uint64
    assert counted.counts.sum() > 10000
    np.testing.assert_array_equal(counted.counts, expected)
    if weighted:
        # Sums of the same products in another order: equal to ~1e-15 relative per term.
        np.testing.assert_allclose(counted.weighted, sums, rtol=1e-12)
    else:
        assert counted.weighted is None
    np.testing.assert_array_equal(counted.edges, BINS.edges)


def test_strided_views_count_as_their_copies():
    ra, dec = clustered(1000, 4)
    table = np.stack([dec, ra, dec], axis=1)
    view = tpacf.count(tpacf.Catalog(table[::2, 1], table[::2, 0]), bins=BINS)
    copy = tpacf.count(tpacf.Catalog(ra[::2].copy(), dec[::2].copy()), bins=BINS)
    expected, _ = brute_force(unit_vectors(ra[::2], dec[::2]), None, BINS.edges * ARCMIN)
    np.testing.assert_array_equal(view.counts, expected)
    np.testing.assert_array_equal(copy.counts, expected)


@pytest.mark.parametrize("cross, weighted", [(False, False), (True, False), (True, True)])
def test_counts_equal_the_cli_bit_for_bit(tmp_path, cross, weighted):
    ra, dec = clustered(1500, 7)
    ra2, dec2 = clustered(1100, 8)
    w = np.random.default_rng(9).uniform(0.5, 1.5, 1500) if weighted else None
    write_ascii(tmp_path / "a.txt", ra, dec, w)
    write_ascii(tmp_path / "b.txt", ra2, dec2)
    args = ["count", "--a", tmp_path / "a.txt", "--bins", "log", "--min", "0.1", "--max", "600",
            "--unit", "arcmin", "--per-decade", "5", "--backend", "cpu",
            "--output", tmp_path / "cli.csv", "--quiet"]
    if cross:
        args += ["--b", tmp_path / "b.txt"]
    if weighted:
        args += ["--a-weight-col", "3"]
    run_cli(*args)
    counted = tpacf.count(tpacf.Catalog(ra, dec, w, name=str(tmp_path / "a.txt")),
                          tpacf.Catalog(ra2, dec2) if cross else None, bins=BINS, backend="cpu")
    counted.write(tmp_path / "py.csv")
    written, expected = table_rows(tmp_path / "py.csv"), table_rows(tmp_path / "cli.csv")
    if not weighted:
        # Every column of every row, as text: theta and the counts.
        assert written == expected
        return
    # Weighted sums are added in an order that depends on the threads' timing
    # (core/src/counting/cpu_tile_kernels.h), so two runs of the CLI differ in the last bits:
    # everything else as text, the sums to 1e-12.
    header = expected[0].split(",")
    assert written[0] == expected[0] and header[-1] == "weighted"
    for mine, theirs in zip(written[1:], expected[1:]):
        assert mine.split(",")[:-1] == theirs.split(",")[:-1]
        assert float(mine.split(",")[-1]) == pytest.approx(float(theirs.split(",")[-1]), rel=1e-12)
    assert len(written) == len(expected)


def test_progress_is_reported_and_an_exception_in_it_stops_the_count():
    ra, dec = clustered(20000, 11)
    catalog = tpacf.Catalog(ra, dec)
    bins = tpacf.Bins.log(0.01, 6000, per_decade=5, unit="arcmin")
    reports = []
    tpacf.count(catalog, bins=bins, progress=reports.append)
    assert reports and {"fraction", "pairs_done", "pairs_total", "preparing"} <= set(reports[0])
    fractions = [r["fraction"] for r in reports]
    assert fractions == sorted(fractions) and fractions[-1] <= 1.0

    class Stop(Exception):
        pass

    def stop(report):
        raise Stop()

    with pytest.raises(Stop):
        tpacf.count(catalog, bins=bins, progress=stop)
    with pytest.raises(TypeError):
        tpacf.count(catalog, bins=bins, progress=42)


def test_calls_from_several_threads_give_the_serial_counts():
    catalogs = [tpacf.Catalog(*clustered(3000, seed)) for seed in (21, 22, 23)]
    serial = [tpacf.count(c, bins=BINS, threads=1).counts for c in catalogs]
    results = [None] * 3

    def work(i):
        results[i] = tpacf.count(catalogs[i], bins=BINS, threads=1).counts

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, expected in zip(results, serial):
        np.testing.assert_array_equal(got, expected)


def test_bad_settings_raise_value_errors_in_the_cli_words():
    a = tpacf.Catalog(*clustered(100, 1))
    with pytest.raises(tpacf.ConfigError, match=r"^backend: 'tpu' is not a backend \(auto, cpu, cuda"):
        tpacf.count(a, bins=BINS, backend="tpu")
    with pytest.raises(ValueError, match="is not a precision"):
        tpacf.count(a, bins=BINS, precision="half")
    with pytest.raises(ValueError, match="is not a culling mode"):
        tpacf.count(a, bins=BINS, culling="maybe")
    with pytest.raises(TypeError):
        tpacf.count(np.zeros(3), bins=BINS)


def test_bins_validate_in_core_words(tmp_path):
    with pytest.raises(tpacf.ConfigError) as raised:
        tpacf.Bins.log(0, 10, per_decade=5)
    cli = run_cli("count", "--a", tmp_path / "none.txt", "--bins", "log", "--min", "0", "--max",
                  "10", "--output", tmp_path / "c.csv", check=False)
    assert str(raised.value) in cli.stderr
    with pytest.raises(ValueError, match="unknown preset 'nope'"):
        tpacf.Bins.preset("nope")
    edges = tpacf.Bins.from_edges([0.1, 0.3, 1.0, 3.0], unit="deg")
    np.testing.assert_array_equal(edges.edges, [0.1, 0.3, 1.0, 3.0])
    assert len(edges) == 3 and edges.unit == "deg" and edges.scale == "custom"
    assert len(tpacf.Bins.linear(0, 90, width=0.25, unit="deg")) == 360
    assert "log5" in tpacf.Bins.presets()
