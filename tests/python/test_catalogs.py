# SPDX-License-Identifier: GPL-3.0-or-later
"""tpacf.Catalog from numpy arrays and files: converted once, like a file's values, and every bad
input refused with the exception and the words tpacf uses."""
import numpy as np
import pytest

import tpacf
from conftest import run_cli, write_ascii


def sample_points(n=500, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 360, n), np.degrees(np.arcsin(rng.uniform(-1, 1, n)))


def test_arrays_build_the_catalog_the_reader_builds(tmp_path):
    ra, dec = sample_points()
    path = tmp_path / "points.txt"
    write_ascii(path, ra, dec)
    from_file = tpacf.Catalog.read(path)
    from_arrays = tpacf.Catalog(ra, dec)
    # The fingerprint hashes every RA and Dec bit for bit as the catalog holds them (radians).
    assert from_arrays.fingerprint == from_file.fingerprint
    assert from_file.name == str(path)
    assert len(from_file) == 500
    assert "ascii" in from_file.origin


def test_float32_and_strided_views_are_read_as_their_values():
    ra, dec = sample_points(400)
    ra32, dec32 = ra.astype(np.float32), dec.astype(np.float32)
    widened = tpacf.Catalog(ra32.astype(np.float64), dec32.astype(np.float64))
    assert tpacf.Catalog(ra32, dec32).fingerprint == widened.fingerprint
    # A column of a 2-D array and every other element: strided views, read in place.
    table = np.stack([ra, dec], axis=1)
    assert not table[:, 0].flags.c_contiguous
    assert tpacf.Catalog(table[:, 0], table[:, 1]).fingerprint == tpacf.Catalog(ra, dec).fingerprint
    assert (tpacf.Catalog(ra[::2], dec[::2]).fingerprint ==
            tpacf.Catalog(ra[::2].copy(), dec[::2].copy()).fingerprint)
    # The other byte order holds the same numbers.
    swapped = ra.astype(">f8")
    assert tpacf.Catalog(swapped, dec).fingerprint == tpacf.Catalog(ra, dec).fingerprint


def test_units_and_hours_match_the_reader(tmp_path):
    ra, dec = sample_points(300)
    path = tmp_path / "arcmin.txt"
    write_ascii(path, ra / 15.0, dec * 60.0)
    from_file = tpacf.Catalog.read(path, unit="arcmin", ra_hours=True)
    from_arrays = tpacf.Catalog(ra / 15.0, dec * 60.0, unit="arcmin", ra_hours=True)
    assert from_arrays.fingerprint == from_file.fingerprint
    np.testing.assert_allclose(from_arrays.dec, dec, rtol=0, atol=1e-12)


def test_weights_and_regions_are_kept():
    ra, dec = sample_points(50)
    weights = np.linspace(0.5, 1.5, 50)
    regions = np.arange(50) % 4
    catalog = tpacf.Catalog(ra, dec, weights, regions=regions)
    assert catalog.has_weights
    np.testing.assert_array_equal(catalog.weights, weights)
    np.testing.assert_array_equal(catalog.regions, regions)
    assert tpacf.Catalog(ra, dec).weights is None


def test_dec_outside_the_sphere_is_refused_in_the_cli_words(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("10 20\n11 95\n")
    cli = run_cli("count", "--a", bad, "--output", tmp_path / "c.csv", check=False)
    assert cli.returncode == 2
    phrase = "Dec 95 deg is outside [-90, 90]"
    assert phrase in cli.stderr
    with pytest.raises(ValueError) as raised:
        tpacf.Catalog(np.array([10.0, 11.0]), np.array([20.0, 95.0]), name="bad")
    assert isinstance(raised.value, tpacf.InputError)
    assert str(raised.value) == "bad:2: " + phrase + " (row 2)"


def test_dec_in_arcmin_is_checked_in_its_unit_as_the_cli_does(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("10 20\n11 5460\n")
    cli = run_cli("count", "--a", bad, "--coord-unit", "arcmin", "--output", tmp_path / "c.csv",
                  check=False)
    phrase = "Dec 5460 arcmin is outside [-5400, 5400] (91 deg)"
    assert phrase in cli.stderr
    with pytest.raises(tpacf.InputError, match=r"^array:2: " + __import__("re").escape(phrase)):
        tpacf.Catalog(np.array([10.0, 11.0]), np.array([20.0, 5460.0]), unit="arcmin")
    # Exactly 90 deg in any unit is on the sphere.
    assert len(tpacf.Catalog(np.array([1.0]), np.array([5400.0]), unit="arcmin")) == 1


@pytest.mark.parametrize("column, message", [
    ("ra", "array:3: RA nan is not finite (row 3)"),
    ("dec", "array:3: Dec inf is not finite (row 3)"),
    ("weights", "array:3: weight nan is not finite (row 3)"),
])
def test_non_finite_values_name_the_row(column, message):
    ra, dec = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])
    weights = np.ones(3)
    {"ra": ra, "dec": dec, "weights": weights}[column][2] = np.inf if column == "dec" else np.nan
    with pytest.raises(ValueError, match="^" + __import__("re").escape(message) + "$"):
        tpacf.Catalog(ra, dec, weights)


def test_lengths_must_agree():
    with pytest.raises(ValueError, match=r"^catalog array: 3 RA values but 2 Dec values$"):
        tpacf.Catalog(np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match=r"^catalog array: 2 weights for 3 points$"):
        tpacf.Catalog(np.zeros(3), np.zeros(3), np.ones(2))


@pytest.mark.parametrize("values", [
    np.arange(3),                       # integers
    np.zeros(3, dtype=np.complex128),
    np.zeros(3, dtype=np.float16),
    np.array(["1", "2", "3"]),
    [1.0, 2.0, 3.0],                    # not an array
])
def test_wrong_types_are_type_errors(values):
    with pytest.raises(TypeError):
        tpacf.Catalog(values, np.zeros(3))


def test_wrong_shapes_and_settings_are_value_errors():
    with pytest.raises(ValueError, match="one-dimensional"):
        tpacf.Catalog(np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(tpacf.ConfigError, match="is not an angle unit"):
        tpacf.Catalog(np.zeros(3), np.zeros(3), unit="furlong")
    with pytest.raises(TypeError):
        tpacf.Catalog(np.zeros(3), np.zeros(3), regions=np.zeros(3))


def test_file_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("ra dec\n1 2\n3 x\n")
    cli = run_cli("count", "--a", bad, "--output", tmp_path / "c.csv", check=False)
    with pytest.raises(tpacf.InputError) as raised:
        tpacf.Catalog.read(bad)
    assert str(raised.value) in cli.stderr
    with pytest.raises(tpacf.InputError):
        tpacf.Catalog.read(tmp_path / "missing.txt")


def test_columns_by_name_and_number(tmp_path):
    path = tmp_path / "named.txt"
    path.write_text("id w dec ra\n1 2.0 10 20\n2 0.5 -10 30\n")
    by_name = tpacf.Catalog.read(path, ra_col="ra", dec_col="dec", weight_col="w")
    by_number = tpacf.Catalog.read(path, ra_col=4, dec_col=3, weight_col=2)
    assert by_name.fingerprint == by_number.fingerprint
    np.testing.assert_array_equal(by_name.weights, [2.0, 0.5])
    np.testing.assert_allclose(by_name.ra, [20.0, 30.0])
