#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A kernel's executed instructions and stall samples summed by SASS basic block, from Nsight
Compute's source page (`ncu -i REPORT --page source --csv --print-source sass`, as
scripts/device-kernel-profile.sh writes it): the blocks that execute the most, each with its share
of the warp instructions executed and of the stall samples, how often it ran, and its opcodes.
A block ends at a branch or exit and starts at a branch target; a loop's body is one or a few
blocks, its count the iterations.
   python3 scripts/sass-profile-blocks.py SASS.csv [ROWS=30]
"""
import csv
import re
import sys


def instructions(path):
    rows = list(csv.reader(open(path, newline="")))
    header = next(r for r in rows if "Address" in r and "Source" in r)
    at = {name: header.index(name) for name in
          ("Address", "Source", "Instructions Executed", "Warp Stall Sampling (All Samples)")}
    out = []
    for row in rows[rows.index(header) + 1:]:
        try:
            address = int(row[at["Address"]], 16)
        except (ValueError, IndexError):
            continue
        out.append((address, row[at["Source"]].strip(),
                    int(row[at["Instructions Executed"]] or 0),
                    int(row[at["Warp Stall Sampling (All Samples)"]] or 0)))
    return out


def basic_blocks(code):
    targets = {int(m.group(1), 16) for _, text, _, _ in code
               if (m := re.search(r"BRA (?:[^,]*, )?0x([0-9a-f]+)", text))}
    blocks, current = [], []
    for item in code:
        if item[0] in targets and current:
            blocks.append(current)
            current = []
        current.append(item)
        if re.search(r"\b(BRA|EXIT|RET)\b", item[1]):
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def opcode(text):
    words = text.split()
    word = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    return word.split(".")[0]


def main():
    code = instructions(sys.argv[1])
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    if not code:
        sys.exit(f"{sys.argv[1]}: no SASS rows")
    base = code[0][0]
    executed = sum(c[2] for c in code) or 1
    samples = sum(c[3] for c in code) or 1
    print(f"{executed} warp instructions executed, {samples} stall samples")
    blocks = basic_blocks(code)

    def show(block):
        ops = " ".join(sorted({opcode(c[1]) for c in block}))
        return (f"{block[0][0] - base:#07x}-{block[-1][0] - base:#07x} {len(block):4d} instructions: "
                f"executed {100 * sum(c[2] for c in block) / executed:5.1f} %, "
                f"stall samples {100 * sum(c[3] for c in block) / samples:5.1f} %, "
                f"ran {block[0][2]} times: {ops[:70]}")

    running = 0
    print("by instructions executed (running share first):")
    for block in sorted(blocks, key=lambda b: -sum(c[2] for c in b))[:rows]:
        running += sum(c[2] for c in block)
        print(f"{100 * running / executed:5.1f} % {show(block)}")
    print("by stall samples:")
    for block in sorted(blocks, key=lambda b: -sum(c[3] for c in b))[:8]:
        print(show(block))


if __name__ == "__main__":
    main()
