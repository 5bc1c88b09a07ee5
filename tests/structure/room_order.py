#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The include graph of core's rooms has no arrow running back up.

Every file of core belongs to a room: core/src/<room>/... by its folder, a public header
core/include/tpacf/<name>.h by the table HEADER_ROOMS below (the room of its implementation),
the side tools by their own folders (core/lab/..., core/fcs/...). Every `#include "..."` of a
core file names a file of some room: "tpacf/<name>.h" (a public header), "<room>/<file>" (a
room's private header, core/src is on the include path) or a name relative to the including
file. An include is allowed when it stays in its room or goes to a room earlier in ORDER; side
rooms (one rank, several rooms) may use everything before them and not each other. Anything
else is reported with its file and line: an arrow against the order, a cycle between rooms, a
public header missing from the table, an include of something outside core.

    room_order.py [--core DIR]      check core (default: the core/ beside tests/)
    room_order.py --self-test       check that the checker fails on planted back edges
"""
import argparse
import re
import sys
from pathlib import Path

# The order a run goes through: each rank may include the ranks before it. Rooms of one rank
# (the side tools) may not include each other.
ORDER = [
    ["base"],        # runner, errors, units, version, number text, the FITS handle, registries
    ["catalog"],     # catalogs and their readers
    ["counting"],    # bins, the pair-counter contract, backends, CPU counting
    ["statistics"],  # estimators, jackknife, the result type, fits and comparisons
    ["job"],         # CorrelationJob, count stores
    ["io"],          # result and count files, output paths
    ["mock"],        # mock catalogs (written through io)
    ["lab", "fcs"],  # side tools: the Kernel Lab, the FCS correlator
]
RANK = {room: rank for rank, rooms in enumerate(ORDER) for room in rooms}

# Public headers (core/include/tpacf/) and the room of their implementation.
HEADER_ROOMS = {
    "errors.h": "base", "units.h": "base", "version.h": "base", "work_runner.h": "base",
    "provider_registry.h": "base",
    "catalog.h": "catalog", "catalog_formats.h": "catalog", "catalog_reader.h": "catalog",
    "footprint.h": "catalog", "sky_projection.h": "catalog", "text_check.h": "catalog",
    "sky_mask.h": "catalog", "regions_file.h": "io", "bootstrap.h": "statistics",
    "cross_region_weight.h": "statistics", "spread_order.h": "counting",
    "number_format.h": "base",
    "unit_guess.h": "catalog",
    "backend.h": "counting", "bins.h": "counting", "chunked_count.h": "counting",
    "cpu_pair_counter.h": "counting", "separation_moments.h": "counting", "culling.h": "counting", "device_choice.h": "counting",
    "pair_counter.h": "counting",
    "correlation_result.h": "statistics", "estimator.h": "statistics",
    "jackknife.h": "statistics", "loaded_result.h": "statistics",
    "power_law_fit.h": "statistics", "run_comparison.h": "statistics",
    "correlation_job.h": "job", "count_store.h": "job", "eta_estimator.h": "job",
    "json_text.h": "io", "output_file.h": "io", "result_io.h": "io", "result_reader.h": "io",
    "mock.h": "mock",
    "lab.h": "lab", "lab_demos.h": "lab",
    "multitau.h": "fcs", "fcs_io.h": "fcs", "fcs_simulation.h": "fcs",
}

# Known arrows still to be removed, as (file, included name). Keep this empty.
PENDING = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh"}


class Core:
    """core's files, their rooms and the public headers' folders."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.problems = []
        # Folders that hold public headers (tpacf/<name>.h): core/include, core/<side>/include.
        self.public_dirs = [p for p in [root / "include"] + sorted(root.glob("*/include"))
                            if (p / "tpacf").is_dir()]
        self.src_dirs = [p for p in [root / "src"] + sorted(root.glob("*/src")) if p.is_dir()]

    def files(self):
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                yield path

    def room_of(self, path: Path):
        """The room of a file of core, or None (with a problem noted)."""
        rel = path.relative_to(self.root)
        parts = rel.parts
        if parts[0] in RANK and parts[0] not in ("base",):  # a side tool's own folder
            owner = parts[0]
        else:
            owner = None
        if len(parts) >= 2 and parts[-2] == "tpacf" and "include" in parts:
            room = HEADER_ROOMS.get(parts[-1])
            if room is None:
                self.problems.append(f"{rel}: public header without a room: add it to "
                                     "HEADER_ROOMS in tests/structure/room_order.py")
            return room
        if owner:
            return owner
        if parts[0] == "src" and len(parts) >= 3 and parts[1] in RANK:
            return parts[1]
        self.problems.append(f"{rel}: not in a room (core/src/<room>/...)")
        return None

    def resolve(self, including: Path, name: str):
        """The file of core that `#include "name"` in `including` reads, or None."""
        candidates = [including.parent / name]
        if name.startswith("tpacf/"):
            candidates += [d / name for d in self.public_dirs]
        candidates += [d / name for d in self.src_dirs]
        for candidate in candidates:
            if candidate.is_file():
                return candidate.resolve()
        return None


def edges_of(core: Core):
    """(from room, to room, where, included name) for every include between files of core."""
    edges = []
    root = core.root.resolve()
    for path in core.files():
        room = core.room_of(path)
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in INCLUDE.finditer(text):
            name = match.group(1)
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path.relative_to(core.root)}:{line}"
            target = core.resolve(path, name)
            if target is None or root not in target.parents:
                core.problems.append(f'{where}: #include "{name}" is not a file of core')
                continue
            target_room = core.room_of(target)
            if room and target_room:
                edges.append((room, target_room, where, name))
    return edges


def cycles(edges):
    """The strongly connected groups of more than one room (Tarjan)."""
    graph = {}
    for a, b, _, _ in edges:
        if a != b:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def check(core: Core, extra_edges=()):
    """Every problem found, as lines of text (none: the order holds)."""
    edges = edges_of(core) + list(extra_edges)
    problems = list(core.problems)
    for a, b, where, name in edges:
        if a == b or RANK[b] < RANK[a]:
            continue
        if (where.rsplit(":", 1)[0], name) in PENDING:
            continue
        kind = "between side rooms" if RANK[a] == RANK[b] else "against the order"
        problems.append(f'{where}: {a} -> {b} ({kind}): #include "{name}"')
    pending = {(w.rsplit(":", 1)[0], n) for a, b, w, n in edges}
    for file, name in sorted(PENDING - pending):
        problems.append(f'{file}: no longer includes "{name}": remove it from PENDING')
    kept = [e for e in edges if (e[2].rsplit(":", 1)[0], e[3]) not in PENDING]
    for group in cycles(kept):
        problems.append("cycle between rooms: " + " <-> ".join(group))
    return problems, edges


def self_test(core: Core):
    """The checker must pass the tree as it is and fail on each planted arrow."""
    problems, _ = check(core)
    failures = [] if not problems else ["the tree itself does not pass"]
    plants = [
        ("base", "job", "src/base/planted.cpp:1", "tpacf/correlation_job.h"),
        ("statistics", "io", "src/statistics/planted.cpp:1", "io/result_text.h"),
        ("catalog", "counting", "src/catalog/planted.cpp:1", "tpacf/pair_counter.h"),
        ("lab", "fcs", "lab/src/planted.cpp:1", "tpacf/multitau.h"),
    ]
    for plant in plants:
        found, _ = check(Core(core.root), [plant])
        if not any(line.startswith(plant[2]) for line in found):
            failures.append(f"a planted {plant[0]} -> {plant[1]} was not reported")
        elif plant[0] != "lab" and not any(line.startswith("cycle") for line in found):
            failures.append(f"a planted {plant[0]} -> {plant[1]} made no cycle")
    for failure in failures:
        print("self-test:", failure)
    print(f"self-test: {len(plants)} planted arrows, {len(failures)} failures")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--core", type=Path,
                        default=Path(__file__).resolve().parents[2] / "core")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    core = Core(args.core)
    if args.self_test:
        return self_test(core)
    problems, edges = check(core)
    rooms = {}
    for a, b, _, _ in edges:
        if a != b:
            rooms.setdefault(a, set()).add(b)
    for room in [r for rank in ORDER for r in rank]:
        print(f"{room:>10} -> {', '.join(sorted(rooms.get(room, ()), key=RANK.get)) or '-'}")
    for problem in problems:
        print(problem)
    print(f"{len(edges)} includes between files of core, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
