#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian packages from one fresh Release build (no test suites) and checks them with
# lintian (packaging/Packaging.cmake says what goes where):
#   build/deb  TPACF_GUI=ON, TPACF_CLI_PLOT=OFF  ->  tpacf, libtpacf-core<N>, tpacf-dev (no Qt in
#                                                    any of them) and tpacf-studio
# with the shared libtpacf_core, Debian's hardening flags and prefix /usr. The packages end in
# build/debs/. Arguments after the options go to the configuration, e.g. -DTPACF_CUDA=OFF (a
# CPU-only build: minutes instead of a quarter of an hour on 2 cores) or
# -DCMAKE_CUDA_ARCHITECTURES=90.
#
#   --no-build      check and test the packages already in build/debs (after an earlier run)
#   --from-tree DIR package from DIR, a build tree of this source made by `cmake --preset
#                   testing` (which builds the shared core with the hardening flags, as the
#                   packages have them), instead of a fresh build: DIR is reconfigured as the
#                   fresh build would be (no suites, TPACF_CLI_PLOT=OFF, prefix /usr, the default
#                   GPU code list) and only what that changes is built again: the CUDA code for
#                   every architecture, the CLI's plotting unit, the links. scripts/test-all.sh
#                   does this after the suites have run; the next `cmake --preset testing`
#                   turns DIR back into a testing tree.
#   --keep-gpu-code with --from-tree: keep DIR's GPU architectures (the testing preset's sm_90)
#                   instead of building the CUDA code again for the default list. The packages
#                   are then for checking (lintian, the install test), not for release: they run
#                   on Hopper GPUs only. scripts/test-all.sh uses it; it saves about 8 minutes on
#                   2 cores.
#   --install-test  then, as root, install the packages (apt-get, which also fetches their
#                   dependencies), run tpacf --version, tpacf run on the bundled sample, tpacf-studio
#                   --version under xvfb-run and the examples/ pipeline against the installed
#                   tpacf-dev, and remove the packages again. Meant for a clean Debian 12 machine,
#                   container or chroot; it refuses where one of the packages is installed already.
#
# Exit status: 0 when every package was built, lintian reports no error and the install test (if
# asked for) passed; 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD

install_test=0 build=1 from_tree= keep_gpu_code=0
while [[ ${1:-} == --* ]]; do
  case $1 in
    --install-test) install_test=1 ;;
    --no-build) build=0 ;; # lintian and the install test on the packages already in build/debs
    --from-tree)
      from_tree=${2:-}
      [[ -f $from_tree/CMakeCache.txt ]] || { echo "--from-tree: no build tree at '$from_tree'"; exit 1; }
      shift ;;
    --keep-gpu-code) keep_gpu_code=1 ;;
    *) echo "unknown option $1 (--install-test, --no-build, --from-tree DIR, --keep-gpu-code)"; exit 1 ;;
  esac
  shift
done
if ((keep_gpu_code)) && [[ -z $from_tree ]]; then
  echo "--keep-gpu-code: only with --from-tree DIR"; exit 1
fi
jobs=${TPACF_DEB_JOBS:-$(nproc)}
out=build/debs

# What packaging needs beyond building: dpkg-shlibdeps (dpkg-dev) and file for CPack, python3 for
# the man pages, lintian to check. Installed like scripts/install-deps.sh does, where missing.
bash scripts/install-deps.sh
missing=()
for p in dpkg-dev file python3 lintian; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "Installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The packages are built from a copy of the project's files made as a release tarball unpacks
# them, group-writable (0664, 0775) under umask 002, so that no mode of the source tree or the
# builder's umask can reach a package: every installed file and control file gets its mode from
# the build (packaging/Packaging.cmake). The copy holds the tracked files as they are in the work
# tree, and new files not yet committed (git ls-files --others --exclude-standard).
copy_source() { # copy_source DIR
  local dir=$1
  rm -rf "$dir"
  mkdir -p "$dir"
  if git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$source_dir" ls-files -z --cached --others --exclude-standard |
      tar -C "$source_dir" --null --no-recursion --ignore-failed-read -T - -cf - 2>/dev/null |
      tar -xf - -C "$dir"
  else
    tar -C "$source_dir" --exclude=./build -cf - . | tar -xf - -C "$dir"
  fi
  chmod -R g+w "$dir"
}

# The configuration of every package build, fresh or from a testing tree.
package_options=(-DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DTPACF_GUI=ON -DTPACF_CLI_PLOT=OFF
                 -DTPACF_DEBIAN_FILES=ON
                 -DTPACF_SHARED_CORE=ON -DTPACF_HARDENING=ON -DCMAKE_INSTALL_PREFIX=/usr)

build_tree() { # build_tree DIR [cmake args...]: a fresh tree of the package source
  local dir=$1
  shift
  rm -rf "$dir"
  cmake -S "$package_source" -B "$dir" -G Ninja "${package_options[@]}" "$@"
  make_packages "$dir"
}

reuse_tree() { # reuse_tree DIR [cmake args...]: a testing tree of this source, reconfigured
  local dir=$1
  shift
  rm -f "$dir"/cpack/*.deb
  # -U: the testing preset's one GPU architecture gives way to the default list.
  local gpu_code=(-UCMAKE_CUDA_ARCHITECTURES)
  ((keep_gpu_code)) && gpu_code=()
  cmake -S "$source_dir" -B "$dir" "${gpu_code[@]}" "${package_options[@]}" "$@"
  make_packages "$dir"
}

make_packages() { # make_packages DIR: builds DIR and writes its packages to $out
  local dir=$1
  local start=$SECONDS
  cmake --build "$dir" -j "$jobs"
  echo "$dir: built in $((SECONDS - start)) s"
  # cpack strips the binaries (CPACK_STRIP_FILES) and writes one package per component.
  (cd "$dir" && cpack -G DEB -B "$PWD/cpack")
  cp "$dir"/cpack/*.deb "$out"/
}

if ((build)); then
  rm -rf "$out"
  mkdir -p "$out"
  umask 002
  start=$SECONDS
  if [[ -n $from_tree ]]; then
    reuse_tree "$from_tree" "$@"
  else
    package_source=$source_dir/build/deb-source
    copy_source "$package_source"
    build_tree build/deb "$@"
  fi
  echo "Built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s:"
fi
ls -1 "$out"/*.deb

echo "lintian (--pedantic --display-info):"
# Errors fail; warnings, infos and pedantic notes are shown. Root makes lintian say so: no finding.
report=$(lintian --pedantic --display-info "$out"/*.deb 2>&1 |
         grep -v 'running with root privileges is not recommended' || true)
echo "${report:-  (nothing to report)}"
if grep -q '^E:' <<<"$report"; then
  echo "lintian reports errors"
  exit 1
fi

((install_test)) || exit 0

# ---- install test ----
if [[ $(id -u) != 0 ]]; then
  echo "--install-test installs packages: run it as root"
  exit 1
fi
packages=()
for deb in "$out"/*.deb; do
  packages+=("$(dpkg-deb -f "$deb" Package)")
done
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    echo "$p is installed already: not touching it (remove it first)"
    exit 1
  fi
done

work=$(mktemp -d)
remove_packages() {
  dpkg -r "${packages[@]}" >/dev/null && echo "removed: ${packages[*]}"
  rm -rf "$work"
}
trap remove_packages EXIT

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "$(realpath "$out")"/*.deb >/dev/null
echo "installed: ${packages[*]}"
failed=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@" >"$work/out.txt" 2>&1; then
    echo "ok: $what: $(head -n 1 "$work/out.txt")"
  else
    echo "FAIL: $what (exit $?):"
    sed 's/^/  /' "$work/out.txt"
    failed=1
  fi
}
cd "$work"
check "tpacf --version" /usr/bin/tpacf --version
check "tpacf --version: no plotting in the Qt-free package" \
  sh -c '/usr/bin/tpacf --version | grep -Eq "^  plotting +no"'
check "tpacf run on the bundled sample" /usr/bin/tpacf run --quiet \
  --data "$source_dir/resources/samples/sample_data.txt" \
  --random "$source_dir/resources/samples/sample_random_1.txt" \
  --random "$source_dir/resources/samples/sample_random_2.txt" \
  --preset log5 --jackknife 16 --output "$work/w.csv"
check "the result has a row per bin" grep -c '^[0-9]' "$work/w.csv"
# The packaged tpacf has no Qt: --plot must say so (exit 2), not crash or draw nothing.
if /usr/bin/tpacf run --data "$source_dir/resources/samples/sample_data.txt" \
     --random "$source_dir/resources/samples/sample_random_1.txt" --output "$work/p.csv" \
     --plot "$work/p.png" >"$work/out.txt" 2>&1; then
  echo "FAIL: tpacf run --plot succeeded in the Qt-free package"
  failed=1
else
  echo "ok: tpacf run --plot refuses: $(head -n 1 "$work/out.txt")"
fi
check "man page tpacf-run" test -s /usr/share/man/man1/tpacf-run.1.gz
# The bash completion, as bash-completion loads it: offers run's flags.
check "bash completion of tpacf" bash -c '. /usr/share/bash-completion/completions/tpacf &&
  COMP_WORDS=(tpacf run --out); COMP_CWORD=2; _tpacf; [[ " ${COMPREPLY[*]} " == *" --output "* ]]'
# The tpacf package pulls no GUI stack: its program links no Qt library.
check "ldd tpacf: no Qt" sh -c '! ldd /usr/bin/tpacf | grep -i qt'
check "xvfb-run -a tpacf-studio --version" xvfb-run -a /usr/bin/tpacf-studio --version
check "ldd tpacf-studio: libtpacf_core from the package" \
  sh -c 'ldd /usr/bin/tpacf-studio | grep -E "libtpacf_core[^ ]* => /(usr/)?lib/"'
if [[ " ${packages[*]} " == *" python3-tpacf "* ]]; then
  # The Debian python3 imports the package from dist-packages (no PYTHONPATH) and computes the
  # sample's w(theta) with the same numbers as the installed tpacf wrote.
  check "python3-tpacf: import tpacf, the sample's w equals tpacf run's" env -u PYTHONPATH \
    /usr/bin/python3 -c '
import sys, numpy as np, tpacf
samples, csv = sys.argv[1], sys.argv[2]
data = tpacf.Catalog.read(samples + "/sample_data.txt")
randoms = [tpacf.Catalog.read(samples + "/sample_random_%d.txt" % i) for i in (1, 2)]
result = tpacf.correlate(data, randoms, bins=tpacf.Bins.preset("log5"), jackknife=16)
rows = [l for l in open(csv) if not l.startswith("#")]
header = rows[0].strip().split(",")
w = np.array([float(r.split(",")[header.index("w")]) for r in rows[1:]])
assert np.array_equal(w, result.w, equal_nan=True), (w, result.w)
print(tpacf.__file__, "w of", len(w), "bins equal to tpacf run")
' "$source_dir/resources/samples" "$work/w.csv"
fi
check "examples/ against the installed tpacf-dev (configure)" \
  cmake -S "$source_dir/examples" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release
check "examples/ (build)" cmake --build "$work/example"
check "examples/correlation_job" "$work/example/correlation_job"
((failed == 0)) && echo "install test: passed"
exit $failed
