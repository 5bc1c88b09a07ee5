# SPDX-License-Identifier: GPL-3.0-or-later
"""The wheel's compiled module, built by the project's CMake (pyproject.toml has the metadata).

Debian 12 has no scikit-build, so build_ext runs CMake itself: a Release tree of the module
alone (no GUI, no test suites, no MPI, the core linked in statically so that the wheel needs no
libtpacf_core), with the CUDA backend where CMake finds nvcc. Environment:

    TPACF_CUDA=ON|OFF|AUTO             the CUDA backend (default AUTO)
    CMAKE_CUDA_ARCHITECTURES=90        GPU code to build (default: the project's list)
    TPACF_CMAKE_ARGS="-D..."           more configuration
    CMAKE_BUILD_PARALLEL_LEVEL=N       compile jobs (default: every core)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


def project_version():
    """The version in CMakeLists.txt's project(), the one the programs and the module print."""
    text = (SOURCE / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(\s*\w+\s+VERSION\s+([0-9.]+)", text)
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(... VERSION x.y.z)")
    return match.group(1)


class CMakeModule(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class BuildWithCMake(build_ext):
    def build_extension(self, ext):
        tree = Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(SOURCE), "-B", str(tree),
            "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF", "-DTPACF_GUI=OFF",
            "-DTPACF_FCS=OFF", "-DTPACF_MPI=OFF", "-DTPACF_SHARED_CORE=OFF",
            "-DTPACF_PYTHON=ON", "-DTPACF_UNITY_BUILD=ON",
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DTPACF_CUDA={os.environ.get('TPACF_CUDA', 'AUTO')}",
        ]
        if shutil.which("ninja") and not (tree / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        if os.environ.get("CMAKE_CUDA_ARCHITECTURES"):
            configure.append(f"-DCMAKE_CUDA_ARCHITECTURES={os.environ['CMAKE_CUDA_ARCHITECTURES']}")
        configure += shlex.split(os.environ.get("TPACF_CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(tree), "--target", "tpacf_python", "-j", jobs],
                       check=True)
        built = sorted((tree / "python" / "tpacf").glob("_tpacf*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one compiled module in {tree}/python/tpacf, found {built}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)


setup(
    version=project_version(),
    ext_modules=[CMakeModule("tpacf._tpacf")],
    cmdclass={"build_ext": BuildWithCMake},
)
