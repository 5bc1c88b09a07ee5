# SPDX-License-Identifier: GPL-3.0-or-later
"""Jackknife regions from HEALPix pixels (--jackknife-healpix) and regions shared through files
(--save-regions, --regions), through the tpacf program: the grouping rule recomputed with healpy
and numpy, each leave-one-out sample against a run without that region, round trips, and the
mismatches and damaged files that must be refused."""
import json

import numpy as np
import pytest

from conftest import run_cli, write_ascii

hp = pytest.importorskip("healpy")

BINS = ["--nbins", 6, "--min", 0.5, "--max", 15, "--unit", "deg", "--backend", "cpu"]


def sky_box(rng, n, ra0, ra1, dec0, dec1):
    ra = rng.uniform(ra0, ra1, n)
    z = rng.uniform(np.sin(np.radians(dec0)), np.sin(np.radians(dec1)), n)
    return ra, np.degrees(np.arcsin(z))


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("regions")
    rng = np.random.default_rng(8)
    # Clustered enough that the regions differ: two clumps in a box that crosses RA 0.
    ra, dec = sky_box(rng, 3000, -20, 25, -10, 30)
    ra = np.mod(np.concatenate([ra, rng.normal(5, 1.5, 600)]), 360)
    dec = np.concatenate([dec, rng.normal(10, 1.5, 600)])
    weights = rng.uniform(0.5, 2.0, len(ra))
    rra, rdec = sky_box(rng, 7000, -20, 25, -10, 30)
    rra = np.mod(rra, 360)
    write_ascii(folder / "d.txt", ra, dec, weights)
    write_ascii(folder / "r.txt", rra, rdec)
    return folder, (ra, dec, weights), (rra, rdec)


def healpix_first_pixels(ra, dec, weights, nside, k):
    """The stated rule, independently: occupied NESTED pixels in order, cut where the weight
    before a pixel reaches r/K of the total, each region keeping at least one pixel."""
    pixels = hp.ang2pix(nside, ra, dec, nest=True, lonlat=True)
    occupied, inverse = np.unique(pixels, return_inverse=True)
    weight = np.bincount(inverse, weights=weights)
    prefix = np.concatenate([[0.0], np.cumsum(weight)])
    first, start, n = [0], 0, len(occupied)
    for r in range(1, k):
        target = prefix[n] * r / k
        last = n - (k - r)
        nxt = start + 1 + int(np.searchsorted(prefix[start + 1:last + 1], target, side="left"))
        start = min(nxt, last)
        first.append(int(occupied[start]))
    return first


def region_of(ra, dec, nside, first):
    pixels = hp.ang2pix(nside, ra, dec, nest=True, lonlat=True)
    return np.searchsorted(np.asarray(first), pixels, side="right") - 1


def w_column(path):
    rows = [l.strip().split(",") for l in open(path) if not l.startswith("#")]
    header = rows[0]
    return np.array([float(r[header.index("w")]) for r in rows[1:]])


@pytest.mark.parametrize("nside,k", [(16, 6), (64, 10)])
def test_healpix_regions_follow_the_stated_rule(catalogs, nside, k):
    folder, (ra, dec, weights), (rra, rdec) = catalogs
    saved = folder / ("hp%d.json" % nside)
    samples = folder / ("samples%d.ecsv" % nside)
    run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
            "--data-weight-col", 3, "--output", folder / ("w%d.ecsv" % nside), "--jackknife", k,
            "--jackknife-healpix", nside, "--save-regions", saved, "--jackknife-samples", samples,
            *BINS)
    regions = json.load(open(saved))
    assert regions["kind"] == "healpix" and regions["nside"] == nside
    first = healpix_first_pixels(ra, dec, weights, nside, k)
    assert regions["first_pixels"] == first
    # Each leave-one-out sample is the w of a run on the catalogs without that region.
    rows = [l.strip().split(",") for l in open(samples) if not l.startswith("#")]
    header, rows = rows[0], rows[1:]
    data_region = region_of(ra, dec, nside, first)
    random_region = region_of(rra, rdec, nside, first)
    for region in range(k):
        keep, rkeep = data_region != region, random_region != region
        write_ascii(folder / "dk.txt", ra[keep], dec[keep], weights[keep])
        write_ascii(folder / "rk.txt", rra[rkeep], rdec[rkeep])
        out = folder / "wk.ecsv"
        if out.exists():
            out.unlink()
        run_cli("run", "--data", folder / "dk.txt", "--random", folder / "rk.txt",
                "--data-weight-col", 3, "--output", out, *BINS)
        row = [r for r in rows if int(r[header.index("region")]) == region][0]
        sample = np.array([float(row[header.index("w_%d" % j)]) for j in range(6)])
        np.testing.assert_allclose(sample, w_column(out), rtol=1e-9, atol=1e-12)


def test_regions_files_are_shared(catalogs, tmp_path):
    folder, (ra, dec, weights), (rra, rdec) = catalogs
    for extra in ([], ["--jackknife-healpix", 32]):
        saved = tmp_path / "regions.json"
        if saved.exists():
            saved.unlink()
        run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
                "--output", tmp_path / "a.ecsv", "--jackknife", 7, *extra,
                "--save-regions", saved, *BINS)
        # The same regions read back give the same result, bin for bin.
        run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
                "--output", tmp_path / "b.ecsv", "--regions", saved, *BINS)
        table = lambda p: [l for l in open(p) if not l.startswith("#")]
        assert table(tmp_path / "a.ecsv") == table(tmp_path / "b.ecsv")
        (tmp_path / "a.ecsv").unlink()
        (tmp_path / "b.ecsv").unlink()
    # A second sample over the same footprint takes them; one elsewhere is refused.
    rng = np.random.default_rng(4)
    ra2, dec2 = sky_box(rng, 1500, -15, 20, -5, 25)
    write_ascii(tmp_path / "d2.txt", np.mod(ra2, 360), dec2)
    run_cli("run", "--data", tmp_path / "d2.txt", "--random", folder / "r.txt",
            "--output", tmp_path / "c.ecsv", "--regions", saved, *BINS)
    far_ra, far_dec = sky_box(rng, 500, 150, 170, 40, 60)
    write_ascii(tmp_path / "far.txt", far_ra, far_dec)
    kmeans = tmp_path / "kmeans.json"
    run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
            "--output", tmp_path / "k.ecsv", "--jackknife", 5, "--save-regions", kmeans, *BINS)
    done = run_cli("run", "--data", tmp_path / "far.txt", "--random", folder / "r.txt",
                   "--output", tmp_path / "far.ecsv", "--regions", kmeans, *BINS, check=False)
    assert done.returncode != 0 and "lie far from every centre" in done.stderr
    assert not (tmp_path / "far.ecsv").exists()


@pytest.mark.parametrize("flags,words", [
    (["--jackknife", 9], "9 regions asked for, but the regions given hold 7"),
    (["--jackknife-healpix", 64], "HEALPix regions at NSIDE 64 asked for"),
])
def test_regions_that_do_not_match_are_refused(catalogs, tmp_path, flags, words):
    folder = catalogs[0]
    saved = tmp_path / "regions.json"
    run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
            "--output", tmp_path / "a.ecsv", "--jackknife", 7, "--jackknife-healpix", 32,
            "--save-regions", saved, *BINS)
    done = run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
                   "--output", tmp_path / "b.ecsv", "--regions", saved, *flags, *BINS,
                   check=False)
    assert done.returncode != 0 and words in done.stderr, done.stderr
    assert not (tmp_path / "b.ecsv").exists()


@pytest.mark.parametrize("change,words", [
    (lambda d: d.update(format="other"), "not a valid regions file: \"format\""),
    (lambda d: d.update(kind="voronoi"), "neither k-means nor healpix"),
    (lambda d: d["centres"][0].__setitem__(0, 3.0), "a centre is not a unit vector"),
    (lambda d: d.update(radii=d["radii"][:-1]), "\"radii\" holds 4 values for 5 centres"),
    (lambda d: d.update(centres=d["centres"][:1], radii=d["radii"][:1]), "at least 2"),
])
def test_damaged_regions_files_are_named(catalogs, tmp_path, change, words):
    folder = catalogs[0]
    saved = tmp_path / "regions.json"
    run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
            "--output", tmp_path / "a.ecsv", "--jackknife", 5, "--save-regions", saved, *BINS)
    document = json.load(open(saved))
    change(document)
    json.dump(document, open(saved, "w"))
    done = run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
                   "--output", tmp_path / "b.ecsv", "--regions", saved, *BINS, check=False)
    assert done.returncode != 0 and words in done.stderr and "regions.json" in done.stderr, done.stderr


def test_healpix_first_pixels_must_rise(catalogs, tmp_path):
    folder = catalogs[0]
    saved = tmp_path / "regions.json"
    json.dump({"format": "tpacf-regions", "version": 1, "kind": "healpix", "nside": 8,
               "first_pixels": [0, 40, 30]}, open(saved, "w"))
    done = run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
                   "--output", tmp_path / "b.ecsv", "--regions", saved, *BINS, check=False)
    assert done.returncode != 0 and "must rise from 0" in done.stderr


@pytest.mark.parametrize("flags,words", [
    (["--jackknife-healpix", 16], "add --jackknife K"),
    (["--jackknife", 4, "--jackknife-healpix", 12], "12 is not a power of 2"),
    (["--jackknife", 4, "--jackknife-healpix", 16384], "--jackknife-healpix"),
    (["--save-regions", "x.json"], "--save-regions writes regions"),
])
def test_bad_region_flags_are_usage_errors(catalogs, tmp_path, flags, words):
    folder = catalogs[0]
    done = run_cli("run", "--data", folder / "d.txt", "--random", folder / "r.txt",
                   "--output", tmp_path / "b.ecsv", *flags, *BINS, check=False)
    assert done.returncode == 2 and words in done.stderr, done.stderr
