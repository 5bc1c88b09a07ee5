#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs dependencies, builds everything with the test suites, and runs them all; then builds
# the core and CLI suites again under AddressSanitizer and UBSan (CPU only) and runs those too.
# Last, it builds the Debian packages with scripts/build-debs.sh from the testing tree (lintian must
# report no error) and, as root, installs them, runs them and removes them again (--install-test).
# TPACF_SKIP_ASAN=1 skips the sanitizer pass; TPACF_SKIP_DEBS=1 skips the packages (one build,
# about 15 minutes on 2 cores). Each stage prints its time. The asan test preset
# sets allocator_may_return_null=1: cfitsio 4.2, given a FITS header with a negative NAXIS2, callocs
# an uninitialised column count; glibc returns NULL for an impossible size (cfitsio then reports
# an error and tpacf exits 2), while ASan's allocator would abort instead of returning.
set -euo pipefail
cd "$(dirname "$0")/.."
begin=$SECONDS
stage() { # stage NAME COMMAND...: runs it and says how long it took
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "== $name: $((SECONDS - start)) s (total $((SECONDS - begin)) s)"
}
stage "dependencies" bash scripts/install-deps.sh
stage "configure (testing)" cmake --preset testing
stage "build (testing)" cmake --build --preset testing
stage "suites (testing)" ctest --preset testing
if [[ "${TPACF_SKIP_ASAN:-0}" != 1 ]]; then
  stage "configure (asan)" cmake --preset asan
  stage "build (asan)" cmake --build --preset asan
  stage "suites (asan)" ctest --preset asan
fi
if [[ "${TPACF_SKIP_DEBS:-0}" != 1 ]]; then
  # From the testing tree, which is built as the packages are: only the CUDA code for every
  # architecture, the CLI's plotting unit and the links are built again.
  debs=(bash scripts/build-debs.sh --from-tree build/testing)
  [[ $(id -u) == 0 ]] && debs+=(--install-test)
  stage "packages" "${debs[@]}"
fi
