# SPDX-License-Identifier: GPL-3.0-or-later
"""Masks (tpacf.Mask, tpacf run/count/mock --mask) against healpy, Debian's python3-healpy: pixel
indices at every NSIDE in both orderings, catalogs cut by a numpy brute force, randoms drawn
inside a mask with the counts its completeness predicts, MOCs, and bad masks."""
import os

import numpy as np
import pytest

import tpacf
from conftest import run_cli, write_ascii

hp = pytest.importorskip("healpy")
fits = pytest.importorskip("astropy.io.fits")

if not hasattr(tpacf, "Mask"):
    pytest.skip("this build reads no masks", allow_module_level=True)


def explicit_map(path, nside, nest, pixels, values, column="SIGNAL"):
    """A partial map as healpy writes one (write_map(partial=True)): PIXEL and the values."""
    cols = [fits.Column(name="PIXEL", format="K", array=np.asarray(pixels, dtype=np.int64)),
            fits.Column(name=column, format="E", array=np.asarray(values, dtype=np.float32))]
    hdu = fits.BinTableHDU.from_columns(cols)
    hdu.header["PIXTYPE"] = "HEALPIX"
    hdu.header["ORDERING"] = "NESTED" if nest else "RING"
    hdu.header["NSIDE"] = nside
    hdu.header["INDXSCHM"] = "EXPLICIT"
    hdu.header["OBJECT"] = "PARTIAL"
    fits.HDUList([fits.PrimaryHDU(), hdu]).writeto(path, overwrite=True)


def test_points(rng, n):
    """Uniform on the sphere, plus crowds at both poles, across RA 0, and the poles themselves."""
    ra = rng.uniform(0.0, 360.0, n)
    dec = np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, n)))
    k = n // 8
    dec[:k] = rng.uniform(89.99, 90.0, k)
    dec[k:2 * k] = rng.uniform(-90.0, -89.99, k)
    ra[2 * k:3 * k] = np.mod(rng.uniform(-0.001, 0.001, k), 360.0)
    ra[3 * k:3 * k + 4] = [45.0, 135.0, 225.0, 315.0]
    dec[3 * k:3 * k + 4] = [90.0, -90.0, 90.0, -90.0]
    return ra, dec


test_points.__test__ = False  # a helper, not a test


@pytest.mark.parametrize("nest", [False, True], ids=["ring", "nested"])
@pytest.mark.parametrize("nside", [1, 2, 4, 64, 1024, 8192])
def test_pixel_indices_match_healpy(tmp_path, nside, nest):
    """Each point's completeness is the value of the pixel healpy gives it: every pixel of the
    map holds its own value, so one wrong index shows."""
    rng = np.random.default_rng(nside * 2 + nest)
    ra, dec = test_points(rng, 40000)
    expected_pixel = hp.ang2pix(nside, ra, dec, nest=nest, lonlat=True)
    # Half of the pixels the points hit are in the map, each with a value that names it.
    pixels = np.unique(expected_pixel)
    pixels = pixels[rng.random(len(pixels)) < 0.5]
    values = (1 + pixels % 250) / 256.0  # exact in float32
    path = tmp_path / "map.fits"
    explicit_map(path, nside, nest, pixels, values)
    mask = tpacf.Mask.read(str(path))
    got = mask.completeness(ra, dec)
    lookup = dict(zip(pixels.tolist(), values.tolist()))
    want = np.array([lookup.get(p, 0.0) for p in expected_pixel.tolist()])
    wrong = np.flatnonzero(got != want)
    assert len(wrong) == 0, "%d of %d points differ, first RA %r Dec %r: got %r, healpy pixel %d" % (
        len(wrong), len(ra), ra[wrong[0]], dec[wrong[0]], got[wrong[0]], expected_pixel[wrong[0]])


@pytest.mark.parametrize("nest", [False, True], ids=["ring", "nested"])
def test_healpy_written_maps_are_read(tmp_path, nest):
    """Full-sky maps as healpy.write_map writes them (1024 values a row), and partial ones."""
    nside = 64
    rng = np.random.default_rng(7)
    m = rng.choice([0.0, 0.25, 0.5, 1.0], hp.nside2npix(nside)).astype(np.float32)
    m[::7] = hp.UNSEEN
    full = tmp_path / "full.fits"
    hp.write_map(str(full), m, nest=nest, column_names=["COMPLETENESS"], dtype=np.float32)
    partial_map = m.copy()
    partial_map[m == 0] = hp.UNSEEN
    partial = tmp_path / "partial.fits"
    hp.write_map(str(partial), partial_map, nest=nest, partial=True, dtype=np.float32)
    ra, dec = test_points(rng, 20000)
    want = m[hp.ang2pix(nside, ra, dec, nest=nest, lonlat=True)].astype(np.float64)
    want[want < 0] = 0.0  # UNSEEN is outside
    for path in (full, partial):
        mask = tpacf.Mask.read(str(path))
        assert mask.nside == nside
        np.testing.assert_array_equal(mask.completeness(ra, dec), want)
        covered = np.mean((m > 0))
        assert mask.sky_fraction == pytest.approx(covered, rel=1e-12)


def test_catalogs_are_cut_as_numpy_cuts_them(tmp_path):
    nside = 32
    rng = np.random.default_rng(3)
    m = rng.choice([0.0, 0.3, 0.6, 1.0], hp.nside2npix(nside))
    path = tmp_path / "mask.fits"
    hp.write_map(str(path), m, dtype=np.float64)
    ra, dec = test_points(rng, 30000)
    weights = rng.uniform(0.5, 2.0, len(ra))
    catalog = tpacf.Catalog(ra, dec, weights)
    c = m[hp.ang2pix(nside, ra, dec, lonlat=True)]
    mask = tpacf.Mask.read(str(path))
    for threshold in (0.0, 0.5, 1.0):
        keep = (c > 0) & (c >= threshold)
        cut = mask.apply(catalog, threshold=threshold)
        np.testing.assert_array_equal(cut.ra, catalog.ra[keep])
        np.testing.assert_array_equal(cut.dec, catalog.dec[keep])
        np.testing.assert_array_equal(cut.weights, weights[keep])
    # The CLI says how many points of each catalog the mask kept.
    data = tmp_path / "data.txt"
    write_ascii(data, ra, dec)
    done = run_cli("count", "--a", data, "--output", tmp_path / "c.ecsv", "--nbins", 3,
                   "--min", 1, "--max", 10, "--unit", "deg", "--mask", path,
                   "--mask-threshold", 0.5)
    kept = int(np.sum((c > 0) & (c >= 0.5)))
    assert "A kept {:,} of {:,}".format(kept, len(ra)) in done.stderr


def test_run_counts_the_masked_catalogs(tmp_path):
    """tpacf run --mask gives the result of a run on catalogs cut beforehand, and says so."""
    nside = 16
    rng = np.random.default_rng(11)
    m = np.zeros(hp.nside2npix(nside))
    m[hp.query_disc(nside, hp.ang2vec(180.0, 30.0, lonlat=True), np.radians(15.0))] = 1.0
    mask_path = tmp_path / "mask.fits"
    hp.write_map(str(mask_path), m, nest=False, dtype=np.float32)
    ra, dec = test_points(rng, 4000)
    rra, rdec = test_points(rng, 8000)
    inside = m[hp.ang2pix(nside, ra, dec, lonlat=True)] > 0
    rinside = m[hp.ang2pix(nside, rra, rdec, lonlat=True)] > 0
    for name, a, b in (("d.txt", ra, dec), ("r.txt", rra, rdec),
                       ("dm.txt", ra[inside], dec[inside]), ("rm.txt", rra[rinside], rdec[rinside])):
        write_ascii(tmp_path / name, a, b)
    common = ["--nbins", 6, "--min", 0.5, "--max", 20, "--unit", "deg", "--backend", "cpu"]
    masked = run_cli("run", "--data", tmp_path / "d.txt", "--random", tmp_path / "r.txt",
                     "--output", tmp_path / "masked.ecsv", "--mask", mask_path, *common)
    run_cli("run", "--data", tmp_path / "dm.txt", "--random", tmp_path / "rm.txt",
            "--output", tmp_path / "cut.ecsv", *common)
    table = lambda p: [l for l in open(p) if not l.startswith("#")]
    assert table(tmp_path / "masked.ecsv") == table(tmp_path / "cut.ecsv")
    assert "data kept {:,} of 4,000".format(int(inside.sum())) in masked.stderr
    header = "".join(l for l in open(tmp_path / "masked.ecsv") if l.startswith("#"))
    assert "mask HEALPix map mask.fits (NSIDE 16, RING" in header


def chi_square_p_value(observed, expected):
    from math import erfc, sqrt
    chi2 = float(np.sum((observed - expected) ** 2 / expected))
    dof = len(observed) - 1
    # Wilson-Hilferty: (chi2/dof)^(1/3) is nearly normal; enough for a threshold of 1e-3.
    z = ((chi2 / dof) ** (1.0 / 3.0) - (1 - 2.0 / (9 * dof))) / sqrt(2.0 / (9 * dof))
    return 0.5 * erfc(z / sqrt(2.0))


def test_randoms_follow_the_completeness(tmp_path):
    nside = 8
    rng = np.random.default_rng(5)
    m = rng.choice([0.0, 0.2, 0.5, 1.0], hp.nside2npix(nside))
    path = tmp_path / "mask.fits"
    hp.write_map(str(path), m, nest=True, dtype=np.float64)
    mask = tpacf.Mask.read(str(path))
    assert mask.effective_sky_fraction == pytest.approx(m.mean(), rel=1e-6)
    n = 300000
    randoms = mask.randoms(n, seed=42, threads=1)
    assert len(randoms) == n
    pixel = hp.ang2pix(nside, randoms.ra, randoms.dec, nest=True, lonlat=True)
    assert np.all(m[pixel] > 0), "a random point outside the mask"
    covered = np.flatnonzero(m > 0)
    observed = np.bincount(pixel, minlength=len(m))[covered]
    expected = n * m[covered] / m[covered].sum()
    # Fixed seed: the test passes or fails the same way every time; a correct generator fails
    # a 1e-3 threshold once in a thousand seeds.
    assert chi_square_p_value(observed, expected) > 1e-3
    # Within pixels too: the two halves (by RA) of each of the 4 subpixels hold equal shares.
    sub = hp.ang2pix(nside * 4, randoms.ra, randoms.dec, nest=True, lonlat=True)
    inner = np.bincount(sub, minlength=16 * len(m))
    sub_expected = np.repeat(n * m / m.sum() / 16, 16)
    keep = sub_expected > 0
    assert chi_square_p_value(inner[keep], sub_expected[keep]) > 1e-3
    # The same catalog on any number of threads.
    again = mask.randoms(n, seed=42, threads=3)
    np.testing.assert_array_equal(again.ra, randoms.ra)
    np.testing.assert_array_equal(again.dec, randoms.dec)
    other = mask.randoms(1000, seed=43)
    assert not np.array_equal(other.ra, randoms.ra[:1000])


def test_mock_writes_randoms_inside_a_mask(tmp_path):
    nside = 4
    m = np.zeros(hp.nside2npix(nside))
    m[:40] = 1.0
    path = tmp_path / "mask.fits"
    hp.write_map(str(path), m, dtype=np.float32)
    out = tmp_path / "r.txt"
    done = run_cli("mock", "--randoms", 5000, "--random-output", out, "--mask", path,
                   "--random-seed", 9)
    assert "inside the mask" in done.stdout
    lines = open(out).read().splitlines()
    assert lines[0].startswith("# randoms inside the mask HEALPix map mask.fits") and "seed 9" in lines[0]
    ra, dec = np.loadtxt(out, unpack=True)
    assert len(ra) == 5000
    assert np.all(m[hp.ang2pix(nside, ra, dec, lonlat=True)] > 0)
    # The file reads back as a catalog, the note line and all.
    assert len(tpacf.Catalog.read(str(out))) == 5000
    bad = run_cli("mock", "--n", 10, "--output", tmp_path / "d.txt", "--mask", path, check=False)
    assert bad.returncode == 2 and "--mask draws randoms only" in bad.stderr


def moc_file(path, uniq, ordering="NUNIQ"):
    hdu = fits.BinTableHDU.from_columns(
        [fits.Column(name="UNIQ" if ordering == "NUNIQ" else "RANGE", format="K",
                     array=np.asarray(uniq, dtype=np.int64))])
    hdu.header["PIXTYPE"] = "HEALPIX"
    hdu.header["ORDERING"] = ordering
    hdu.header["COORDSYS"] = "C"
    hdu.header["MOCORDER"] = 10
    fits.HDUList([fits.PrimaryHDU(), hdu]).writeto(path, overwrite=True)


def test_mocs_cover_their_cells(tmp_path):
    rng = np.random.default_rng(2)
    cells = [(0, 3), (3, 100), (3, 101), (5, 6000), (10, 123456), (10, 9000000)]
    uniq = [4 * 4 ** order + pix for order, pix in cells]
    moc_file(tmp_path / "moc.fits", uniq)
    ra, dec = test_points(rng, 20000)
    # Points inside the small cells too: their centres.
    extra = [hp.pix2ang(2 ** order, pix, nest=True, lonlat=True) for order, pix in cells]
    ra = np.concatenate([ra, [e[0] for e in extra]])
    dec = np.concatenate([dec, [e[1] for e in extra]])
    inside = np.zeros(len(ra), dtype=bool)
    for order, pix in cells:
        inside |= hp.ang2pix(2 ** order, ra, dec, nest=True, lonlat=True) == pix
    mask = tpacf.Mask.read(str(tmp_path / "moc.fits"))
    np.testing.assert_array_equal(mask.completeness(ra, dec), inside.astype(float))
    area = sum(1.0 / (12 * 4 ** order) for order, _ in cells)
    assert mask.sky_fraction == pytest.approx(area, rel=1e-12)
    # MOC 2.0: the same cells as ranges of order-29 pixels.
    ranges = []
    for order, pix in cells:
        shift = 2 * (29 - order)
        ranges += [pix << shift, (pix + 1) << shift]
    moc_file(tmp_path / "moc2.fits", ranges, ordering="RANGE")
    mask2 = tpacf.Mask.read(str(tmp_path / "moc2.fits"))
    np.testing.assert_array_equal(mask2.completeness(ra, dec), inside.astype(float))


def bad_mask(tmp_path, case):
    path = tmp_path / (case + ".fits")
    if case == "nside":
        explicit_map(path, 3, False, [1, 2], [1.0, 1.0])
    elif case == "nan":
        explicit_map(path, 4, False, [1, 2, 5], [1.0, np.nan, 1.0])
    elif case == "range":
        explicit_map(path, 4, True, [1, 2], [1.0, 1.5])
    elif case == "pixel":
        explicit_map(path, 4, True, [1, 192], [1.0, 1.0])
    elif case == "count":
        hp.write_map(str(path), np.ones(hp.nside2npix(8)), dtype=np.float32)
        with fits.open(path, mode="update") as f:
            f[1].header["NSIDE"] = 16
    elif case == "catalog":
        fits.BinTableHDU.from_columns(
            [fits.Column(name="RA", format="D", array=[1.0]),
             fits.Column(name="DEC", format="D", array=[2.0])]).writeto(path)
    elif case == "empty":
        explicit_map(path, 4, False, [1, 2], [0.0, 0.0])
    return path


@pytest.mark.parametrize("case,words", [
    ("nside", "NSIDE = 3 is not a power of 2"),
    ("nan", "completeness is NaN at pixel 2"),
    ("range", "completeness 1.500000 at pixel 2"),
    ("pixel", "pixel 192 is beyond NSIDE 4's 192 pixels"),
    ("count", "holds 768 values, but NSIDE 16"),
    ("catalog", "not a HEALPix map or MOC"),
    ("empty", "covers no part of the sky"),
])
def test_bad_masks_are_named(tmp_path, case, words):
    path = bad_mask(tmp_path, case)
    with pytest.raises(tpacf.InputError) as error:
        tpacf.Mask.read(str(path))
    assert words in str(error.value) and path.name in str(error.value)
    # The CLI says the same and writes nothing.
    data = tmp_path / "d.txt"
    write_ascii(data, [10.0, 20.0], [0.0, 1.0])
    out = tmp_path / "out.ecsv"
    done = run_cli("count", "--a", data, "--output", out, "--nbins", 2, "--min", 1, "--max", 5,
                   "--unit", "deg", "--mask", path, check=False)
    assert done.returncode != 0 and words in done.stderr
    assert not out.exists()


def test_a_mask_that_keeps_nothing_is_an_error(tmp_path):
    path = tmp_path / "m.fits"
    explicit_map(path, 4, False, [0], [1.0])  # one pixel at the north pole
    data = tmp_path / "d.txt"
    write_ascii(data, [10.0, 20.0], [-40.0, -41.0])
    done = run_cli("count", "--a", data, "--output", tmp_path / "o.ecsv", "--nbins", 2,
                   "--min", 1, "--max", 5, "--unit", "deg", "--mask", path, check=False)
    assert done.returncode != 0 and "keeps none of its 2 points" in done.stderr
    bad = run_cli("count", "--a", data, "--output", tmp_path / "o.ecsv", "--nbins", 2,
                  "--min", 1, "--max", 5, "--unit", "deg", "--mask", path,
                  "--mask-threshold", 2, check=False)
    assert bad.returncode == 2 and "--mask-threshold 2 is not a completeness" in bad.stderr


def test_correlate_takes_a_mask(tmp_path):
    """tpacf.correlate(mask=...) is the run on the catalogs cut beforehand, and its notes say so."""
    nside = 8
    m = np.zeros(hp.nside2npix(nside))
    m[hp.query_disc(nside, hp.ang2vec(30.0, 10.0, lonlat=True), np.radians(25.0))] = 0.7
    path = tmp_path / "mask.fits"
    hp.write_map(str(path), m, dtype=np.float32)
    mask = tpacf.Mask.read(str(path))
    rng = np.random.default_rng(12)
    data = tpacf.Catalog(*test_points(rng, 3000))
    randoms = tpacf.Catalog(*test_points(rng, 6000))
    bins = tpacf.Bins.from_edges([1.0, 3.0, 10.0, 30.0], unit="deg")
    masked = tpacf.correlate(data, randoms, bins=bins, mask=mask, backend="cpu")
    cut = tpacf.correlate(mask.apply(data), mask.apply(randoms), bins=bins, backend="cpu")
    np.testing.assert_array_equal(masked.dd, cut.dd)
    np.testing.assert_array_equal(masked.w, cut.w)
    assert any(note.startswith("mask HEALPix map mask.fits") for note in masked.notes)
    with pytest.raises(tpacf.InputError, match="keeps none"):
        tpacf.correlate(data, randoms, bins=bins, mask=mask, mask_threshold=0.8, backend="cpu")
