# SPDX-License-Identifier: GPL-3.0-or-later
"""The two-point angular correlation function w(theta) of sky catalogs.

The engine of the `tpacf` command line and TPACF Studio (the exact CPU
backend and, where built, CUDA), for notebooks and pipelines:

    import numpy as np, tpacf
    data = tpacf.Catalog(ra_deg, dec_deg)               # numpy arrays
    randoms = tpacf.Catalog.read("randoms.fits[1]")     # or files, as tpacf reads them
    bins = tpacf.Bins.log(0.1, 600, per_decade=5, unit="arcmin")
    result = tpacf.correlate(data, randoms, bins=bins, jackknife=20)
    result.w, result.w_err, result.covariance
    result.write("w.ecsv")                              # the file `tpacf run` writes
    result.to_table()                                   # an astropy Table with units

count(a, b=None, bins=...) gives raw pair counts. The GIL is released while
counting, and Ctrl-C stops a count (KeyboardInterrupt).
"""
from ._tpacf import (
    BackendUnavailable,
    Bins,
    Catalog,
    ConfigError,
    Counts,
    CountStore,
    Error,
    InputError,
    Mask,
    __version__,
    backend_names,
    combine_counts,
    count,
    devices,
    load_counts,
)
from ._result import Result, correlate

# The compiled classes are the package's own (help() and reprs say tpacf.Catalog).
for _type in (Bins, Catalog, Counts, CountStore, Error, InputError, ConfigError,
              BackendUnavailable, Mask):
    _type.__module__ = "tpacf"
del _type

__all__ = [
    "BackendUnavailable",
    "Bins",
    "Catalog",
    "ConfigError",
    "CountStore",
    "Counts",
    "Error",
    "InputError",
    "Mask",
    "Result",
    "__version__",
    "backend_names",
    "combine_counts",
    "correlate",
    "count",
    "devices",
    "load_counts",
]
