#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs dependencies, builds everything with the test suites but the core ones, and runs them;
# then builds the core and CLI suites under AddressSanitizer and UBSan (CPU only) and runs those.
# Last, it builds the Debian packages with scripts/build-debs.sh from the testing tree (lintian must
# report no error) and, as root, installs them, runs them and removes them again (--install-test).
# TPACF_SKIP_ASAN=1 skips the sanitizer pass (the testing tree then builds and runs the core suites
# too); TPACF_SKIP_DEBS=1 skips the packages. Each stage prints its time. The asan test preset
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
# Each suite is compiled and run once: with the sanitizer pass, the core suites and the CLI suites
# of bad inputs, files and paths there (the code under test with ASan and UBSan, the suites' own
# code with ASan: CMakePresets.json), the other CLI suites in the testing
# tree, whose tpacf also plots and runs MPI (tests/cli/CMakeLists.txt, TPACF_CLI_SUITES).
testing_folders="core;reference;cli;ui;gpu;python;structure;packaging"
cli_suites=all
if [[ "${TPACF_SKIP_ASAN:-0}" != 1 ]]; then
  testing_folders=${testing_folders#core;}
  cli_suites=unsanitized # the suites of bad inputs, files and paths run under the sanitizers
fi
stage "configure (testing)" cmake --preset testing "-DTPACF_TEST_FOLDERS=$testing_folders" \
  "-DTPACF_CLI_SUITES=$cli_suites"
stage "build (testing)" cmake --build --preset testing
stage "suites (testing)" ctest --preset testing
if [[ "${TPACF_SKIP_ASAN:-0}" != 1 ]]; then
  stage "configure (asan)" cmake --preset asan -DTPACF_CLI_SUITES=sanitized
  stage "build (asan)" cmake --build --preset asan
  stage "suites (asan)" ctest --preset asan
fi
if [[ "${TPACF_SKIP_DEBS:-0}" != 1 ]]; then
  # From the testing tree, which is built as the packages are, with its GPU code (sm_90): only
  # the CLI's plotting unit and the links are built again. These packages are checked (lintian,
  # the install test), not released: scripts/build-debs.sh alone builds for every architecture.
  debs=(bash scripts/build-debs.sh --from-tree build/testing --keep-gpu-code)
  [[ $(id -u) == 0 ]] && debs+=(--install-test)
  stage "packages" "${debs[@]}"
fi
