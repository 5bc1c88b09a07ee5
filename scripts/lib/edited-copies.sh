# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the device scripts that build changed copies of the sources (the tree itself is never
# touched): a copy of the tracked files with one exact text replaced, configured and built.

# edited_copy DIR FILE FROM TO: the tracked files copied into DIR, FROM replaced by TO in FILE
# (a path inside the tree); FROM must occur exactly once (else a message, and status 2). An
# empty FROM leaves the copy as it is.
edited_copy() {
    local dir=$1 file=$2 from=$3 to=$4
    mkdir -p "$dir"
    git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$dir"
    [ -z "$from" ] && return 0
    if [ "$(grep -cF -- "$from" "$dir/$file")" != 1 ]; then
        echo "$file: the text to replace is not there exactly once: $from" >&2
        return 2
    fi
    FROM="$from" TO="$to" perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$dir/$file"
}

# build_copy DIR JOBS TARGET...: the headless preset with CUDA for sm_90, the targets built
# (logs in DIR/cfg.log and DIR/build.log; on failure the errors, and status 2).
build_copy() {
    local dir=$1 jobs=$2
    shift 2
    (cd "$dir" &&
        cmake --preset headless -DTPACF_CUDA=ON -DBUILD_TESTING=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
            > cfg.log 2>&1 &&
        cmake --build build/headless -j "$jobs" --target "$@" > build.log 2>&1) ||
        { grep -E "error|FAILED" "$dir/build.log" "$dir/cfg.log" | head -10 >&2; return 2; }
}
