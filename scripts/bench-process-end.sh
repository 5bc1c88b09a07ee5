#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a GPU machine: where the end of a `tpacf run` goes, and what leaving the GPU driver's
# teardown to a child (app/cli/driver_teardown.cpp) changes. The standard job's files (N data +
# S = 10 random sets, as ../shared/bench/standard-job.sh writes them) in $WORK.
# 1. An LD_PRELOAD library marks, on the clock `date +%s.%N` reads, the process's start (its
#    constructor), the output's rename, and its last atexit handler (registered first, so it runs
#    after the CUDA runtime's); the shell marks exec and the process gone. With
#    TPACF_GPU_TEARDOWN=wait (the process releases the driver itself) and with the default child.
#    MARKS_MODE=reset: the last handler also destroys device 0's primary context (timed).
# 2. Runs with the child and with TPACF_GPU_TEARDOWN=wait, alternated, 0.5 s apart (each on an
#    idle GPU); then six runs back to back in each mode, the whole sequence's wall.
#   scripts/bench-process-end.sh PATH/TO/tpacf [RUNS=4] [N=1000000]   (BACKEND=cpu to try it)
set -uo pipefail
T=$(realpath "$1"); RUNS=${2:-4}; N=${3:-1000000}
BACKEND=${BACKEND:-cuda}
WORK=${WORK:-/tmp/tpacf-standard-job}; mkdir -p "$WORK"
LIB=$(mktemp -d); trap 'rm -rf "$LIB"' EXIT
cat > "$LIB/marks.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static int out = -1;
static void mark(const char* what) {
    if (out < 0) return;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    char line[128];
    int n = snprintf(line, sizeof line, "%ld.%09ld %s\n", (long)t.tv_sec, t.tv_nsec, what);
    (void)!write(out, line, n);
}
static void lastHandler(void) {
    mark("handlers");
    const char* mode = getenv("MARKS_MODE");
    if (mode && strcmp(mode, "reset") == 0) {
        void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        int (*reset)(int) = cuda ? (int (*)(int))dlsym(cuda, "cuDevicePrimaryCtxReset_v2") : 0;
        if (reset) reset(0);
        mark("reset");
    }
}
__attribute__((constructor)) static void start(void) {
    const char* path = getenv("MARKS_LOG");
    if (path) out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    mark("start");
    atexit(lastHandler);
}
int rename(const char* from, const char* to) {
    static int (*real)(const char*, const char*) = 0;
    if (!real) real = (int (*)(const char*, const char*))dlsym(RTLD_NEXT, "rename");
    int rc = real(from, to);
    mark("rename");
    return rc;
}
C
cc -shared -fPIC -O2 -o "$LIB/marks.so" "$LIB/marks.c" -ldl || exit 1
PY=python3; $PY -c "import numpy" 2>/dev/null || PY=/usr/bin/python3
cd "$WORK" || exit 1
if [ ! -f r9.txt ] || [ "$(wc -l < d.txt)" != "$N" ]; then
  $PY - "$N" <<'PY'
import sys, numpy as np
n = int(sys.argv[1])
def sky(seed, path):
    rng = np.random.default_rng(seed)
    ra = rng.uniform(0, 360, n); dec = np.degrees(np.arcsin(rng.uniform(-1, 1, n)))
    np.savetxt(path, np.c_[ra, dec], fmt='%.9f')
sky(1, 'd.txt')
for i in range(10): sky(100 + i, f'r{i}.txt')
PY
fi
cat d.txt r*.txt > /dev/null
R=(); for i in $(seq 0 9); do R+=(--random "r$i.txt"); done
FLOAT=(--bins log --min 0.01 --max 600 --unit arcmin --nbins 30 --backend "$BACKEND")
[ "$BACKEND" = cuda ] && FLOAT+=(--precision float)
EMPTY=(--bins log --min 0.0001 --max 0.0002 --unit arcmin --nbins 2 --backend "$BACKEND")
now() { date +%s.%N; }
seconds() { $PY -c "print(f'{$2 - $1:.3f}')"; }
marked() { # teardown label args...
  local teardown=$1 label=$2; shift 2
  rm -f "$LIB/marks.log"; sleep 0.5
  local s; s=$(now)
  TPACF_GPU_TEARDOWN=$teardown MARKS_LOG="$LIB/marks.log" LD_PRELOAD="$LIB/marks.so" \
    "$T" run --data d.txt "${R[@]}" "$@" --output x.ecsv --quiet > run.log 2>&1
  local rc=$? e; e=$(now)
  $PY - "$s" "$e" "$label $teardown rc=$rc" "$LIB/marks.log" <<'PY'
import sys
s, e, label, log = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
t = {}
for line in open(log):
    value, what = line.split()
    t[what] = float(value)
last = max(t.get('reset', 0), t['handlers'])
print(f"{label}: exec->start {t['start'] - s:.3f}  ->rename {t['rename'] - t['start']:.3f}  "
      f"->last handler {t['handlers'] - t['rename']:.3f}"
      + (f"  reset {t['reset'] - t['handlers']:.3f}" if 'reset' in t else '')
      + f"  ->gone {e - last:.3f}  wall {e - s:.3f} s")
PY
}
for k in $(seq "$RUNS"); do
  for mode in wait child; do marked $mode float "${FLOAT[@]}"; marked $mode near-empty "${EMPTY[@]}"; done
done
one() { # teardown label args...: one run, 0.5 s after the last
  local teardown=$1 label=$2; shift 2; sleep 0.5
  local s; s=$(now)
  TPACF_GPU_TEARDOWN=$teardown "$T" run --data d.txt "${R[@]}" "$@" --output y-$teardown.ecsv \
    --quiet > run.log 2>&1
  local rc=$? e; e=$(now)
  echo "$label $teardown rc=$rc wall $(seconds "$s" "$e") s"
}
for k in $(seq "$RUNS"); do for mode in child wait; do one $mode float "${FLOAT[@]}"; done; done
for k in $(seq "$RUNS"); do for mode in child wait; do one $mode near-empty "${EMPTY[@]}"; done; done
if cmp -s <(grep -v '^#' y-child.ecsv) <(grep -v '^#' y-wait.ecsv); then
  echo "the rows of both modes are identical"
else
  echo "the rows of the two modes differ"
fi
six() { # teardown args...
  local teardown=$1; shift
  local s; s=$(now)
  for k in 1 2 3 4 5 6; do
    TPACF_GPU_TEARDOWN=$teardown "$T" run --data d.txt "${R[@]}" "$@" --output z.ecsv --quiet \
      > /dev/null 2>&1
  done
  local e; e=$(now)
  echo "six back to back, $teardown: $(seconds "$s" "$e") s"
}
for k in 1 2; do
  for mode in child wait; do six $mode "${FLOAT[@]}"; done
done
