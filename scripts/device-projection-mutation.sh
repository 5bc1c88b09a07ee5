#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a GPU machine, from the repository root: shows that the culling suite catches a wrong
# projection. A copy of the sources (the tree itself is not touched) is built with the
# projection's band made blind to the mixed term 2|α|R_B (pair_projection.cuh), and
# tpacf_gpu_culling_tests --quick runs against it: it must fail, naming bins whose counts
# differ from brute force. Exit 0 when the suite failed as it should, 1 when it passed, 2 when
# nothing could be shown (no GPU, a build error).
#   scripts/device-projection-mutation.sh   (BUILD_JOBS=N to cap the build's jobs)
set -uo pipefail
cd "$(dirname "$0")/.."
COPY=$(mktemp -d); trap 'rm -rf "$COPY"' EXIT
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$COPY"
FILE="$COPY/kernels/src/pair_projection.cuh"
BAND='__dmul_rn(2.0, __dmul_rn(na, rb))'
if [ "$(grep -cF "$BAND" "$FILE")" != 1 ]; then
    echo "the band's mixed term is not where this script expects it in pair_projection.cuh" >&2
    exit 2
fi
sed -i "s/__dmul_rn(2.0, __dmul_rn(na, rb))/__dmul_rn(0.0, __dmul_rn(na, rb))/" "$FILE"
cd "$COPY"
cmake --preset headless -DTPACF_CUDA=ON -DBUILD_TESTING=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    > "$COPY/cfg.log" 2>&1 || { tail -20 "$COPY/cfg.log"; exit 2; }
cmake --build build/headless -j "${BUILD_JOBS:-$(nproc)}" --target tpacf_gpu_culling_tests \
    > "$COPY/build.log" 2>&1 || { grep -E "error|FAILED" "$COPY/build.log" | head -20; exit 2; }
build/headless/tests/gpu/tpacf_gpu_culling_tests --quick > "$COPY/suite.log" 2>&1
rc=$?
grep -E "^SKIP" "$COPY/suite.log" && exit 2
grep -E "^(PASS|FAIL): [0-9]" "$COPY/suite.log"
grep -m3 -E "^FAIL .*expected" "$COPY/suite.log"
if [ "$rc" -ne 0 ]; then
    echo "the suite caught the wrong projection"
    exit 0
fi
echo "the suite passed against a wrong projection" >&2
exit 1
