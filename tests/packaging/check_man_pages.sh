#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The man pages a build installs (packaging/ManPages.cmake), checked as lintian does: each renders
# without a groff warning, each is compressed as gzip -9n (no name, no time stamp), and every
# command that `tpacf --help` lists has its page. Exit 77 where man(1) is not installed.
# Usage: check_man_pages.sh TPACF_EXE MAN_DIR (the build's man/, holding cli/ and maybe gui/)
set -euo pipefail
tpacf=$1 man_dir=$2
command -v man >/dev/null || { echo "SKIP: man is not installed (apt-get install man-db)"; exit 77; }

failed=0
fail() { echo "FAIL: $*"; failed=1; }

mapfile -t pages < <(find "$man_dir" -name '*.1.gz' | sort)
((${#pages[@]})) || fail "no man pages under $man_dir"
for page in "${pages[@]}"; do
  # lintian's groff check: man's own warnings, UTF-8, 80 columns.
  warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
             man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null) || fail "$page: man failed"
  [[ -z $warnings ]] || fail "$page: $warnings"
  # gzip header: FLG (byte 3) without FNAME (0x08), MTIME (bytes 4-7) zero.
  header=$(od -An -tu1 -N8 "$page" | tr -s ' ')
  read -r _ _ _ flags m1 m2 m3 m4 <<<"$header"
  ((flags & 8)) && fail "$page: the gzip header holds a file name (not gzip -n)"
  ((m1 + m2 + m3 + m4)) && fail "$page: the gzip header holds a time stamp (not gzip -n)"
  zcat "$page" | grep -q '^\.SH NAME' || fail "$page: no NAME section"
done

# Every command of the tool has its page.
mapfile -t commands < <("$tpacf" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
((${#commands[@]})) || fail "tpacf --help lists no commands"
[[ -f $man_dir/cli/tpacf.1.gz ]] || fail "no tpacf.1.gz"
for command in "${commands[@]}"; do
  [[ -f $man_dir/cli/tpacf-$command.1.gz ]] || fail "no page for 'tpacf $command'"
done
((failed == 0)) && echo "man pages: ${#pages[@]} pages, clean"
exit $failed
