# SPDX-License-Identifier: GPL-3.0-or-later
"""`pip install --no-build-isolation .` from a clone, in a venv made with --system-site-packages
(Debian's numpy, setuptools and wheel), builds the package with the project's CMake (setup.py),
and the installed package imports and counts as the package under test does, with the CUDA
backend compiled in where a CUDA compiler is found."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tpacf

SOURCE = os.environ.get("TPACF_SOURCE_DIR", "")


def clone_files(source, into):
    """The files a clone has (git ls-files where this is a git work tree), copied to `into`: pip
    builds in the source folder (build/, *.egg-info), which must not be the project's own."""
    listed = subprocess.run(["git", "-C", source, "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True)
    if listed.returncode != 0:
        shutil.copytree(source, into, ignore=shutil.ignore_patterns("build", ".git"))
        return
    for name in filter(None, listed.stdout.decode().split("\0")):
        origin = Path(source) / name
        if origin.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, into / name)


def test_pip_install_from_a_clone(tmp_path):
    if not SOURCE:
        pytest.skip("no source tree given (TPACF_SOURCE_DIR)")
    clone = tmp_path / "clone"
    clone.mkdir()
    clone_files(SOURCE, clone)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    # The wheel's CUDA backend: TPACF_PIP_TEST_CUDA=AUTO builds it where nvcc is found (for one
    # GPU architecture, minutes more on 2 cores); the default OFF builds the CPU-only wheel, the
    # part of the route that differs from the CMake build the other suites test.
    env["TPACF_CUDA"] = os.environ.get("TPACF_PIP_TEST_CUDA", "OFF")
    env.setdefault("CMAKE_CUDA_ARCHITECTURES", "90")
    # The core compiled in batches of sources (the project's TPACF_UNITY_BUILD, as the test
    # trees build it): the same code in half the compile time on a small machine; and at -O1,
    # as the suites' own code is: what this checks is the route (setup.py, CMake, the wheel, its
    # import and a count), not the optimiser, and it takes 106 s of a core instead of 130 s.
    env.setdefault("TPACF_CMAKE_ARGS",
                   "-DTPACF_UNITY_BUILD=ON '-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG'")
    log = tmp_path / "pip.log"
    with open(log, "w") as out:
        done = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation",
                               "--no-index", "-v", "."], cwd=clone, env=env, stdout=out,
                              stderr=subprocess.STDOUT)
    if done.returncode != 0:
        pytest.fail("pip install failed:\n" + log.read_text()[-6000:])

    script = ("import numpy as np, tpacf\n"
              "rng = np.random.default_rng(9)\n"
              "c = tpacf.Catalog(rng.uniform(0, 10, 700), rng.uniform(-5, 5, 700))\n"
              "print(tpacf.__file__)\n"
              "print(tpacf.__version__)\n"
              "cuda = [d for d in tpacf.devices() if d['backend'] == 'cuda']\n"
              "print(bool(cuda and cuda[0].get('compiled_in')))\n"
              "print(' '.join(map(str, tpacf.count(c, bins=tpacf.Bins.log(1, 600)).counts)))\n")
    ran = subprocess.run([str(python), "-c", script], env=env, cwd=tmp_path, capture_output=True,
                         text=True)
    assert ran.returncode == 0, ran.stderr
    where, version, cuda, counts = ran.stdout.splitlines()
    assert where.startswith(str(venv)), where
    assert version == tpacf.__version__
    nvcc = shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")
    if env.get("TPACF_CUDA", "AUTO").upper() != "OFF" and nvcc:
        assert cuda == "True", "nvcc is here, but the wheel's module has no CUDA backend"
    rng = np.random.default_rng(9)
    here = tpacf.count(tpacf.Catalog(rng.uniform(0, 10, 700), rng.uniform(-5, 5, 700)),
                       bins=tpacf.Bins.log(1, 600))
    assert here.counts.sum() > 0
    assert counts == " ".join(map(str, here.counts))
