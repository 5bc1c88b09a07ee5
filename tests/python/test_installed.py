# SPDX-License-Identifier: GPL-3.0-or-later
"""cmake --install puts a package that a fresh python3 imports and counts with."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tpacf

BUILD = os.environ.get("TPACF_BUILD_DIR", "")
CMAKE = os.environ.get("TPACF_CMAKE", "cmake")
PACKAGE_DIR = os.environ.get("TPACF_PYTHON_INSTALL_DIR", "")


def test_installed_package_imports_and_counts(tmp_path):
    if not BUILD or not PACKAGE_DIR:
        pytest.skip("no build tree given (TPACF_BUILD_DIR, TPACF_PYTHON_INSTALL_DIR)")
    prefix = tmp_path / "prefix"
    for component in ("lib", "python"):
        subprocess.run([CMAKE, "--install", BUILD, "--prefix", str(prefix),
                        "--component", component], check=True, capture_output=True)
    installed = prefix / PACKAGE_DIR
    assert (installed / "tpacf" / "__init__.py").is_file()
    script = ("import numpy as np, tpacf\n"
              "rng = np.random.default_rng(4)\n"
              "c = tpacf.Catalog(rng.uniform(0, 10, 500), rng.uniform(0, 10, 500))\n"
              "print(tpacf.__file__)\n"
              "print(' '.join(map(str, tpacf.count(c, bins=tpacf.Bins.log(1, 600)).counts)))\n")
    # Only the installed package on the path, run from elsewhere, as a user's script.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(installed)
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    where, counts = done.stdout.splitlines()
    assert where.startswith(str(installed))
    rng = np.random.default_rng(4)
    here = tpacf.count(tpacf.Catalog(rng.uniform(0, 10, 500), rng.uniform(0, 10, 500)),
                       bins=tpacf.Bins.log(1, 600))
    assert counts == " ".join(map(str, here.counts))
    assert here.counts.sum() > 0
