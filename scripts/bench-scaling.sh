#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a two-GPU machine, from the repository root: DD at every scale on one GPU and on two (full
# range 2^22..2^24, 10 deg 2^24, the 10^7 clustered box's DD and DR), the standard job on one GPU
# and two, the CPU backend against Corrfunc's DDtheta_mocks on the standard job's files (DD, DR
# and RR of the data and one random set), and the CPU's cost growth. Logs in $OUT.
#   scripts/bench-scaling.sh [STANDARD_JOB_SCRIPT] [CORRFUNC_SOURCE_DIR]
# CORRFUNC_SOURCE_DIR: a copy of github.com/manodeep/Corrfunc (built here with make); without it
# the Corrfunc rows are left out.
set -uo pipefail
cd "$(dirname "$0")/.."
JOB=${1:-../shared/bench/standard-job.sh}
CORRFUNC=${2:-}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpus.txt"
nproc | tee -a "$OUT/gpus.txt"
cmake --preset headless -DTPACF_CUDA=ON -DBUILD_TESTING=OFF -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/cfg.log" 2>&1 || { tail -30 "$OUT/cfg.log"; exit 1; }
cmake --build build/headless -j "$(nproc)" --target tpacf > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1; }
CF=
if [ -n "$CORRFUNC" ]; then
  ( cd "$CORRFUNC/mocks/DDtheta_mocks" && make -j"$(nproc)" DDtheta_mocks > "$OUT/cf-build.log" 2>&1 ) &&
    CF=$(realpath "$CORRFUNC/mocks/DDtheta_mocks/DDtheta_mocks") || echo "Corrfunc build failed"
fi
echo "build: $((SECONDS - start)) s"
T=$(realpath build/headless/app/tpacf)
b() { echo "## tpacf bench $*"; timeout 200 "$T" bench --quiet "$@" 2>&1 | grep -E "DD|DR|RR|pairs/s|error" | head -6; }
{
for dev in 0 0,1; do
  for n in 4194304 8388608; do b --backend cuda --precision float --only dd --nbins 30 --min 0.01 --unit arcmin --max 10800 --n $n --repeat 3 --devices $dev; done
  b --backend cuda --precision float --only dd --nbins 30 --min 0.01 --unit arcmin --max 10800 --n 16777216 --repeat 1 --no-warm-up --devices $dev
  b --backend cuda --precision float --only dd --nbins 30 --min 0.01 --unit arcmin --max 600 --n 16777216 --repeat 1 --devices $dev
  b --backend cuda --precision double --only dd --nbins 30 --min 0.01 --unit arcmin --max 600 --n 10000000 --clustered --footprint box:150,190,0,40 --repeat 3 --devices $dev
  b --backend cuda --precision double --only dr --nbins 30 --min 0.01 --unit arcmin --max 600 --n 10000000 --clustered --footprint box:150,190,0,40 --repeat 1 --devices $dev
done
echo "gpu benches: $((SECONDS - start)) s"
} > "$OUT/gpu2.txt" 2>&1
W=/tmp/tpacf-standard-job; mkdir -p $W
JOB=$(realpath "$JOB")
( cd $W && timeout 150 bash "$JOB" "$T" 1000000 10 > "$OUT/std.txt" 2>&1 )
cd $W
R=(); for i in $(seq 0 9); do R+=(--random "r$i.txt"); done
BINS=(--bins log --min 0.01 --max 600 --unit arcmin --nbins 30)
t() { local s=$(date +%s.%N); "$T" "$@" --output /tmp/x2.ecsv --quiet --timings > /tmp/x2.log 2>&1; local rc=$?; local e=$(date +%s.%N); echo "rc=$rc wall $(python3 -c "print(round($e-$s,3))") s: $*"; grep -iE "count|read|start|total" /tmp/x2.log | head -8; }
{
echo "== standard job, GPU float, 1 and 2 GPUs"
t run --data d.txt "${R[@]}" "${BINS[@]}" --backend cuda --precision float --devices 0
t run --data d.txt "${R[@]}" "${BINS[@]}" --backend cuda --precision float --devices 0,1
t run --data d.txt "${R[@]}" "${BINS[@]}" --backend cuda --precision double --devices 0,1
echo "== CPU ($(nproc) threads) against Corrfunc, DD + DR + RR of d.txt and r0.txt"
t run --data d.txt --random r0.txt "${BINS[@]}" --backend cpu
t run --data d.txt --random r0.txt "${BINS[@]}" --backend cpu
python3 -c "
import numpy as np
e=np.logspace(np.log10(0.01/60), np.log10(10), 31)
np.savetxt('cfbins.txt', np.c_[e[:-1], e[1:]], fmt='%.15g')"
for pair in "d.txt d.txt" "d.txt r0.txt" "r0.txt r0.txt"; do
  [ -n "$CF" ] || break
  set -- $pair
  for rep in 1 2; do
    s=$(date +%s.%N); "$CF" $1 a $2 a cfbins.txt "$(nproc)" > cf.out 2> cf.err; e=$(date +%s.%N)
    echo "corrfunc $1 x $2: wall $(python3 -c "print(round($e-$s,3))") s; $(grep -o 'pair-counting time = *[0-9.]* sec' cf.err)"
  done
  tail -2 cf.out
done
echo "cpu: $((SECONDS - start)) s"
} > "$OUT/cpu.txt" 2>&1
cd "$OLDPWD"
{
for n in 262144 524288 1048576; do b --backend cpu --only dd --nbins 30 --min 0.01 --unit arcmin --max 10800 --n $n --repeat 1; done
for n in 1048576 2097152 4194304; do b --backend cpu --only dd --nbins 30 --min 0.01 --unit arcmin --max 600 --n $n --repeat 1; done
} > "$OUT/cpu-growth.txt" 2>&1
echo "total: $((SECONDS - start)) s"
