#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# TPACF Studio with big catalogs, as a user opens them: a FITS data catalog of N points and two
# FITS random catalogs of M points each (RA 150-190, Dec 0-40 deg), opened as a session, the sky
# preview drawn, a CPU run to 1 deg, the window grabbed, quit. Reports the event loop's stalls
# (tpacf-studio --stall-log: every time the window could not answer for over 50 ms) and the
# process's peak memory (GNU time's maximum resident set).
#   scripts/bench-studio-big.sh PATH/TO/tpacf-studio [N=10000000] [M=20000000]
# Needs /usr/bin/python3 with numpy and astropy, xvfb-run, and GNU time (/usr/bin/time).
set -euo pipefail
STUDIO=$(realpath "$1"); N=${2:-10000000}; M=${3:-20000000}
WORK=${WORK:-/tmp/tpacf-studio-big}; mkdir -p "$WORK"; cd "$WORK"
if [ ! -f "random_2_$M.fits" ] || [ ! -f "data_$N.fits" ]; then
  /usr/bin/python3 - "$N" "$M" <<'PY'
import sys, numpy as np
from astropy.io import fits
n, m = int(sys.argv[1]), int(sys.argv[2])
def box(count, seed, path):
    rng = np.random.default_rng(seed)
    ra = rng.uniform(150, 190, count)
    sin0, sin1 = np.sin(np.radians(0)), np.sin(np.radians(40))
    dec = np.degrees(np.arcsin(rng.uniform(sin0, sin1, count)))
    cols = [fits.Column(name='RA', format='D', array=ra), fits.Column(name='DEC', format='D', array=dec)]
    fits.BinTableHDU.from_columns(cols, name='CATALOG').writeto(path, overwrite=True)
box(n, 1, f'data_{n}.fits')
box(m, 2, f'random_1_{m}.fits')
box(m, 3, f'random_2_{m}.fits')
PY
fi
cat > session.json <<JSON
{"format":"tpacf-studio-session","formatVersion":1,
 "data":{"path":"$WORK/data_$N.fits","raColumn":1,"decColumn":2,"unit":"deg","raInHours":false,"hdu":"1"},
 "randoms":[{"path":"$WORK/random_1_$M.fits","raColumn":1,"decColumn":2,"unit":"deg","raInHours":false,"hdu":"1"},
            {"path":"$WORK/random_2_$M.fits","raColumn":1,"decColumn":2,"unit":"deg","raInHours":false,"hdu":"1"}],
 "bins":{"scale":"log","unit":"arcmin","min":0.05,"max":6,"perDecade":0,"count":10,"width":0},
 "estimator":"ls",
 "backend":{"kind":"cpu","precision":"double","cpuThreads":0,"culling":"auto","gpuDevices":[]}}
JSON
cat data_$N.fits random_1_$M.fits random_2_$M.fits > /dev/null # page cache, as on a second start
export HOME=$WORK/home; mkdir -p "$HOME"
start=$(date +%s.%N)
/usr/bin/time -v -o time.txt xvfb-run -a -s "-screen 0 1280x720x24" \
  "$STUDIO" session.json --screenshot big.png --stall-log stalls.txt > studio.log 2>&1
end=$(date +%s.%N)
echo "tpacf-studio, $N data + 2 x $M randoms (FITS), $(nproc) cores: $(/usr/bin/python3 -c "print(round($end - $start, 1))") s from start to quit"
grep -E "Maximum resident set size" time.txt
cat stalls.txt
