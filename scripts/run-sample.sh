#!/usr/bin/env bash
# Installs dependencies, builds TPACF Studio and the tpacf CLI, and computes w(theta) for the
# bundled sample catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
out="${TPACF_OUTPUT:-$PWD/sample-w.csv}"
./build/default/app/tpacf run \
  --data resources/samples/sample_data.txt \
  --random resources/samples/sample_random_1.txt \
  --random resources/samples/sample_random_2.txt \
  --preset log5 --estimator ls --output "$out"
echo "w(theta) of the sample written to $out"
