#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# RR reuse end to end (BENCHMARKS.md, "After issues 13 and 14"): in the standard job's folder
# (d.txt and r0..r9.txt, as ../shared/bench/standard-job.sh writes them), a run that saves its
# counts, a fresh run on new data d2.txt, and the same run reusing every RR_i; wall and job time
# of each, and whether the fresh and the reusing tables agree column by column.
#   usage: bench-reuse.sh PATH/TO/tpacf [WORK=/tmp/tpacf-standard-job]
set -uo pipefail
T=$(realpath "$1"); cd "${2:-/tmp/tpacf-standard-job}" || exit 1
PY=python3; $PY -c "import numpy" 2>/dev/null || PY=/usr/bin/python3
[ -f d2.txt ] || $PY - <<'PY'
import numpy as np
rng = np.random.default_rng(2); n = sum(1 for _ in open('d.txt'))
np.savetxt('d2.txt', np.c_[rng.uniform(0, 360, n), np.degrees(np.arcsin(rng.uniform(-1, 1, n)))], fmt='%.9f')
PY
R=(); for f in r*.txt; do R+=(--random "$f"); done
BINS=(--bins log --min 0.01 --max 600 --unit arcmin --nbins 30)
job() { grep -h "^#   elapsed: '" "$1" | grep -oE '[0-9.]+' | head -1; }
for p in float double; do
  t0=$(date +%s.%N); "$T" run --data d.txt "${R[@]}" "${BINS[@]}" --backend cuda --precision $p --save-counts all-$p.json --output save.csv --quiet; t1=$(date +%s.%N)
  "$T" run --data d2.txt "${R[@]}" "${BINS[@]}" --backend cuda --precision $p --output fresh.csv --quiet; t2=$(date +%s.%N)
  "$T" run --data d2.txt "${R[@]}" "${BINS[@]}" --backend cuda --precision $p --reuse-counts all-$p.json --output reuse.csv --quiet; t3=$(date +%s.%N)
  $PY -c "print('$p: wall save %.3f s, fresh %.3f s, reuse %.3f s' % ($t1-$t0, $t2-$t1, $t3-$t2))"
  echo "  job: save $(job save.csv) s, fresh $(job fresh.csv) s, reuse $(job reuse.csv) s"
  $PY - <<'PY'
import csv
def table(p): return list(csv.reader(l for l in open(p) if not l.startswith('#')))
a, b = table('fresh.csv'), table('reuse.csv')
differ = [c for i, c in enumerate(a[0]) if [r[i] for r in a[1:]] != [r[i] for r in b[1:]]]
print('  columns differing fresh vs reuse:', differ or 'none')
PY
done
