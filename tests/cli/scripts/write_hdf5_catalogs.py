# SPDX-License-Identifier: GPL-3.0-or-later
"""write_hdf5_catalogs.py FOLDER: HDF5 catalogs in the layouts surveys and other tools write,
made with h5py and astropy (independently of the reader under test), each with the same points
as an ASCII twin (twin.txt: ra dec weight, every value written exactly), and bad ones."""
import os
import sys

import h5py
import numpy as np


def main(folder):
    os.chdir(folder)
    rng = np.random.default_rng(5)
    n = 1500
    ra = rng.uniform(150, 170, n)
    dec = rng.uniform(0, 20, n).astype(np.float32)  # float32 on disk, exact in double
    weight = rng.uniform(0.5, 1.5, n)
    np.savetxt("twin.txt", np.c_[ra, dec.astype(np.float64), weight], fmt="%.17g",
               header="ra dec weight", comments="")
    from astropy.table import Table
    Table({"ra": ra, "dec": dec.astype(np.float64), "weight": weight}).write("twin.fits")

    # h5py, one dataset per column in a group (TreeCorr's ext + ra_col layout), an integer
    # column and a column of another length beside them.
    with h5py.File("groups.h5", "w") as f:
        g = f.create_group("survey/north")
        g["RA"] = ra
        g["DEC"] = dec
        g["weight"] = weight
        g["id"] = np.arange(n, dtype=np.int64)
        g["short"] = np.arange(10.0)
        g["name"] = np.array([b"g%d" % i for i in range(n)])
        f["readme"] = np.arange(3)
    # astropy's Table.write: one compound dataset, chunked and gzip-compressed.
    Table({"ra": ra, "dec": dec, "w": weight}).write("astropy.hdf5", path="galaxies",
                                                     compression=True)
    # The root group holding the columns, under a name that promises text.
    with h5py.File("root_columns.txt", "w") as f:
        f["ra"] = ra
        f["dec"] = dec
        f["weight"] = weight

    # Bad ones.
    with h5py.File("nan_dec.h5", "w") as f:
        bad = dec.astype(np.float64)
        bad[41] = np.nan
        f["ra"], f["dec"] = ra, bad
    with h5py.File("dec_95.h5", "w") as f:
        bad = dec.astype(np.float64)
        bad[7] = 95.0
        f["ra"], f["dec"] = ra, bad
    with h5py.File("empty.h5", "w") as f:
        f["ra"], f["dec"] = np.zeros(0), np.zeros(0)
    with h5py.File("external.h5", "w") as f:
        f["catalog"] = h5py.ExternalLink("groups.h5", "/survey/north")
    with open("groups.h5", "rb") as whole, open("truncated.h5", "wb") as cut:
        cut.write(whole.read()[:600])
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
