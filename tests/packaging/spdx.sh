#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The SPDX licence line of every tracked source file: `spdx.sh check` lists the files without it
# (exit 1 if any, 77 where there is no git checkout to ask), `spdx.sh fix` adds it. The line is the
# first one (C++, CUDA: //) or, for scripts with a "#!" line, the second (CMake, shell, Python: #).
# Fix skips files that already carry a line and files with uncommitted changes (someone else's work).
set -euo pipefail
mode=${1:-check}
root=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
readonly line_text='SPDX-License-Identifier: GPL-3.0-or-later'

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "spdx: $root is not a git checkout, nothing to list the tracked files with"
  exit 77
fi

comment_for() {
  case "$1" in
    *.cpp|*.h|*.cu|*.cuh) echo '//' ;;
    *CMakeLists.txt|*.cmake|*.sh|*.py|.ci/run) echo '#' ;;
    *) echo '' ;;
  esac
}

has_line() { head -n 2 "$1" | grep -q 'SPDX-License-Identifier:'; }

mapfile -t files < <(git ls-files | grep -E '\.(cpp|h|cu|cuh|cmake|sh|py)$|(^|/)CMakeLists\.txt$|^\.ci/run$')
dirty=$(git status --porcelain | cut -c4-)

missing=0
for f in "${files[@]}"; do
  [[ -f $f ]] || continue
  has_line "$f" && continue
  if [[ $mode == check ]]; then
    echo "no SPDX line: $f"
    missing=$((missing + 1))
    continue
  fi
  if grep -qxF "$f" <<<"$dirty"; then
    echo "skipped (uncommitted changes): $f"
    continue
  fi
  text="$(comment_for "$f") $line_text"
  if [[ $(head -c 2 "$f") == '#!' ]]; then
    sed -i "1a $text" "$f"
  else
    sed -i "1i $text" "$f"
  fi
  echo "added: $f"
done
if [[ $mode == check ]]; then
  echo "spdx: ${#files[@]} tracked source files, $missing without the line"
  ((missing == 0))
fi
