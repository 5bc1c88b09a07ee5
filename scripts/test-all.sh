#!/usr/bin/env bash
# Installs dependencies, builds everything with the test suites, and runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset testing
cmake --build --preset testing
ctest --preset testing
