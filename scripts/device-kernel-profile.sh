#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where a pair kernel's instructions and stalls go, per SASS basic block, on a GPU machine, from
# the repository root: builds `tpacf` with -lineinfo (build/profile), profiles the first pair
# kernel launch of a `tpacf bench` count with Nsight Compute (source counters: executed
# instructions and stall samples per SASS instruction) and sums them by basic block
# (scripts/sass-profile-blocks.py). Reports, the CSV and the summary go to $OUT (default
# ./out/kernel-profile).
#   scripts/device-kernel-profile.sh [BENCH ARGUMENTS...]
# Default count: the standard job's DR in float (`--only dr --n 1048576 --max 600 --precision
# float`), with 30 log bins from 0.01'.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out/kernel-profile}
mkdir -p "$OUT"
ARGS=("$@")
[[ ${#ARGS[@]} -eq 0 ]] && ARGS=(--only dr --n 1048576 --max 600 --precision float)
cmake -S . -B build/profile -G Ninja -DCMAKE_BUILD_TYPE=Release -DTPACF_CUDA=ON -DTPACF_GUI=OFF \
    -DBUILD_TESTING=OFF -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-native}" \
    -DCMAKE_CUDA_FLAGS=-lineinfo > "$OUT/configure.log" 2>&1 &&
    cmake --build build/profile -j "$(nproc)" --target tpacf > "$OUT/build.log" 2>&1 ||
    { echo "build failed: $OUT/build.log"; exit 1; }
ncu --clock-control none --kernel-name regex:[pP]airCount --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section LaunchStats --section Occupancy \
    -f -o "$OUT/profile" build/profile/app/tpacf bench --backend cuda --nbins 30 --min 0.01 \
    --unit arcmin --repeat 1 --no-warm-up "${ARGS[@]}" > "$OUT/run.log" 2>&1 ||
    { echo "ncu failed: $OUT/run.log"; exit 1; }
ncu -i "$OUT/profile.ncu-rep" --page details > "$OUT/details.txt"
ncu -i "$OUT/profile.ncu-rep" --page source --csv --print-source sass > "$OUT/sass.csv"
python3 scripts/sass-profile-blocks.py "$OUT/sass.csv" | tee "$OUT/blocks.txt"
