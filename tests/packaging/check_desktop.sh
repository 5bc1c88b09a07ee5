#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Desktop integration as a distribution would check it: desktop-file-validate, appstreamcli
# (pedantic, no network, over a tree laid out as installed so the launchable must name the
# desktop file), update-mime-database on the session type, and the desktop file's MimeType list
# against the types shared-mime-info and ours define. Exit 77 where a tool is missing.
# Usage: check_desktop.sh DESKTOP_FILE METAINFO_FILE (configured) MIME_XML ICON_SVG
set -euo pipefail
desktop=$1 metainfo=$2 mime=$3 icon=$4

for tool in desktop-file-validate appstreamcli update-mime-database; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (apt-get install desktop-file-utils appstream shared-mime-info)"
    exit 77
  fi
done

failed=0
fail() { echo "FAIL: $*"; failed=1; }

# desktop-file-validate prints hints without failing; any line it prints is a finding.
report=$(desktop-file-validate "$desktop" 2>&1) || true
[[ -z $report ]] || fail "desktop-file-validate: $report"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/usr/share/applications" "$stage/usr/share/metainfo" \
         "$stage/usr/share/icons/hicolor/scalable/apps" "$stage/mime/packages"
cp "$desktop" "$stage/usr/share/applications/"
cp "$metainfo" "$stage/usr/share/metainfo/"
cp "$icon" "$stage/usr/share/icons/hicolor/scalable/apps/"
# A clean tree prints one line, the success mark; anything else (pedantic hints too) is a finding.
if ! report=$(appstreamcli validate-tree --pedantic --no-net --explain "$stage/usr" 2>&1); then
  fail "appstreamcli validate-tree: $report"
elif [[ $(grep -c . <<<"$report") -ne 1 ]]; then
  fail "appstreamcli reports: $report"
fi
grep -q '@[A-Z_]*@' "$metainfo" && fail "$metainfo holds an unconfigured @VARIABLE@"

cp "$mime" "$stage/mime/packages/"
# It warns (on stdout) about a directory outside the XDG search path: put it there.
if ! report=$(XDG_DATA_HOME=$stage update-mime-database "$stage/mime" 2>&1) || [[ -n $report ]]; then
  fail "update-mime-database: $report"
fi
grep -qx 'application/x-tpacf-session' "$stage/mime/types" || fail "$mime defines no session type"
grep -qaF '"format": "tpacf-studio-session"' "$stage/mime/magic" ||
  fail "$mime: sessions saved as *.json are not recognised by their format tag"

# Every MimeType the launcher claims exists (ours, or shared-mime-info's types and aliases), and
# it claims no generic text type: that would list it under "Open with" for every text file.
known=$(cat "$stage/mime/types" /usr/share/mime/types 2>/dev/null; cut -d' ' -f1 /usr/share/mime/aliases 2>/dev/null)
IFS=';' read -ra claimed <<<"$(sed -n 's/^MimeType=//p' "$desktop")"
((${#claimed[@]})) || fail "the desktop file registers no MimeType"
for type in "${claimed[@]}"; do
  [[ -n $type ]] || continue
  [[ $type == text/plain ]] && fail "MimeType lists text/plain"
  grep -qxF "$type" <<<"$known" || fail "MimeType $type is defined nowhere"
done
# The app opens one positional file (app/studio/studio_main.cpp): %f, not %F or %U.
grep -qE '^Exec=tpacf-studio %f$' "$desktop" || fail "Exec is not 'tpacf-studio %f'"

((failed == 0)) && echo "desktop integration: clean"
exit $failed
