#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs dependencies, builds everything with the test suites, and runs them all; then builds
# the core and CLI suites again under AddressSanitizer and UBSan (CPU only) and runs those too.
# Last, it builds the Debian packages with scripts/build-debs.sh (lintian must report no error) and,
# as root, installs them, runs them and removes them again (--install-test).
# TPACF_SKIP_ASAN=1 skips the sanitizer pass (it roughly doubles the time); TPACF_SKIP_DEBS=1 skips
# the packages (about 30 minutes on 2 cores). The asan test preset
# sets allocator_may_return_null=1: cfitsio 4.2, given a FITS header with a negative NAXIS2, callocs
# an uninitialised column count; glibc returns NULL for an impossible size (cfitsio then reports
# an error and tpacf exits 2), while ASan's allocator would abort instead of returning.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset testing
cmake --build --preset testing
ctest --preset testing
if [[ "${TPACF_SKIP_ASAN:-0}" != 1 ]]; then
  cmake --preset asan
  cmake --build --preset asan
  ctest --preset asan
fi
if [[ "${TPACF_SKIP_DEBS:-0}" != 1 ]]; then
  if [[ $(id -u) == 0 ]]; then
    bash scripts/build-debs.sh --install-test
  else
    bash scripts/build-debs.sh
  fi
fi
