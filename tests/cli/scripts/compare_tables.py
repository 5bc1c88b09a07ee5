# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads a result as ECSV and as FITS or VOTable with astropy and checks that they hold the same
table.

Usage: compare_tables.py RESULT.csv RESULT.fits|RESULT.vot UNIT
Exit 0 and prints "ok ROWS" when the columns, units, types, values and metadata agree; exit 1
otherwise. A VOTable is parsed with every warning an error (astropy's VOTable checks).
"""
import math
import sys

from astropy.io import fits
from astropy.table import Table


def votable_metadata(path, problems):
    """The PARAMs of a VOTable (parsed strictly), and its columns' UCDs checked."""
    import warnings
    from astropy.io.votable import parse
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        votable = parse(path, verify="exception")
    first = votable.get_first_table()
    for field in first.fields:
        if field.name.startswith("theta_") and field.ucd != "pos.angDistance":
            problems.append(f"{field.name}: UCD {field.ucd!r}")
    return {param.name: param.value for param in first.params}


def main(ecsv_path, fits_path, unit):
    ecsv = Table.read(ecsv_path, format="ascii.ecsv")
    is_votable = fits_path.lower().endswith((".vot", ".xml"))
    # A jackknife result holds three tables: the first (WTHETA) is the result's.
    table = (Table.read(fits_path, format="votable", table_id=0) if is_votable
             else Table.read(fits_path, hdu=1))
    problems = []
    if ecsv.colnames != table.colnames:
        problems.append(f"columns differ: {ecsv.colnames} / {table.colnames}")
    for name in ("theta_lo", "theta_hi", "theta_mid"):
        if str(ecsv[name].unit) != unit or str(table[name].unit) != unit:
            problems.append(f"{name}: unit {ecsv[name].unit} / {table[name].unit}, not {unit}")
    for name in ("DD", "DR", "RR"):
        if ecsv[name].dtype.kind != "u" or table[name].dtype.kind not in "iu":
            problems.append(f"{name}: not integers ({ecsv[name].dtype}, {table[name].dtype})")
    for name in ecsv.colnames:
        if name not in table.colnames:
            continue
        for row, (a, b) in enumerate(zip(ecsv[name], table[name])):
            same = (math.isnan(a) and math.isnan(b)) if isinstance(a, float) and a != a else a == b
            if not same:
                problems.append(f"{name} row {row}: {a!r} in ECSV, {b!r} in {fits_path}")
                break
    # The typed keys: ECSV meta, FITS keywords and VOTable PARAMs of one type and value.
    typed = {"n_data": ("N_DATA", int), "bin_count": ("N_BINS", int),
             "random_sets": ("N_RSETS", int), "elapsed_s": ("ELAPS_S", float),
             "theta_max": ("TH_MAX", float), "culled": ("IS_CULL", bool),
             "weighted": ("IS_WGHT", bool), "version": ("TOOL_VER", str)}
    for key, (_, kind) in typed.items():
        if key in ecsv.meta and type(ecsv.meta[key]) is not kind:
            problems.append(f"ECSV meta {key}: {ecsv.meta[key]!r} is not {kind.__name__}")
    if is_votable:
        params = votable_metadata(fits_path, problems)
        for key, (_, kind) in typed.items():
            if key not in ecsv.meta:
                continue
            value = params.get(key)
            value = value.decode() if isinstance(value, bytes) else value
            value = value.item() if hasattr(value, "item") else value
            if kind is float and key == "elapsed_s":
                continue  # another run, another time
            if type(value) is not kind or value != ecsv.meta[key]:
                problems.append(f"PARAM {key}: {value!r} / ECSV {ecsv.meta[key]!r}")
        for key in ("estimator", "bins", "mode"):
            value = params.get(key)
            value = value.decode() if isinstance(value, bytes) else value
            if ecsv.meta.get(key) != value:
                problems.append(f"metadata {key}: {ecsv.meta.get(key)!r} / {value!r}")
    else:
        header = fits.getheader(fits_path, 1)
        for key, (keyword, kind) in typed.items():
            if key not in ecsv.meta or (kind is float and key == "elapsed_s"):
                continue
            value = header.get(keyword)
            if type(value) is not kind or value != ecsv.meta[key]:
                problems.append(f"keyword {keyword}: {value!r} / ECSV {key} {ecsv.meta[key]!r}")
        history = "".join(str(card) for card in header.get("HISTORY", []))
        if "command: tpacf run" not in history:
            problems.append(f"no command in the HISTORY cards: {history!r}")
        if header.get("EXTNAME") != "WTHETA":
            problems.append(f"EXTNAME {header.get('EXTNAME')!r}")
        for key, fits_key in (("estimator", "ESTIMATO"), ("bins", "BINS"), ("mode", "MODE")):
            if ecsv.meta.get(key) != header.get(fits_key):
                problems.append(f"metadata {key}: {ecsv.meta.get(key)!r} / {header.get(fits_key)!r}")
    if not ecsv.meta.get("conventions"):
        problems.append("no conventions in the ECSV metadata")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"ok {len(ecsv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
