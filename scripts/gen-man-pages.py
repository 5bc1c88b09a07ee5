#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the man pages of tpacf, of each of its subcommands and of tpacf-studio from their
--help texts, so that the pages never drift from the programs (help2man's idea, without the
dependency). Each page is gzipped as `gzip -9n` would: level 9, no name, no time stamp.

Usage: gen-man-pages.py --outdir DIR --version V --date YYYY-MM-DD
                        (--tpacf PATH | --studio PATH)

The help texts share one layout (app/cli/*.cpp, QCommandLineParser): a "Usage:" block, prose
paragraphs, then sections headed by an unindented line ending in ':' whose items are indented
two spaces, "  --flag ARG   description" with continuation lines indented further.
"""
import argparse
import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

# "  --flag ARG    text": the tag ends at the first run of two or more spaces.
ITEM = re.compile(r"^  (\S.*?)(?: {2,}(\S.*))?$")
# "  name     summary" under "Commands:": names are one word, padded to a column they may fill.
COMMAND = re.compile(r"^  (\S+) +(\S.*)$")


def roff_text(text):
    """Escapes text for roff: backslashes, minus signs, non-ASCII (as \\[uXXXX])."""
    out = []
    for ch in text.replace("\\", "\\e").replace("-", "\\-"):
        out.append(ch if ord(ch) < 128 else "\\[u%04X]" % ord(ch))
    line = "".join(out)
    # A line starting with '.' or "'" would be read as a request.
    return "\\&" + line if line[:1] in (".", "'") else line


def is_header(lines, i):
    """An unindented line ending in ':' followed by an indented one opens a section."""
    line = lines[i]
    if not line or line[0] == " " or not line.endswith(":"):
        return False
    return i + 1 < len(lines) and lines[i + 1].startswith("  ")


def split_usage(lines):
    """The 'Usage:' line and the indented lines after it; returns (usage lines, the rest)."""
    start = next((i for i, line in enumerate(lines) if line.startswith("Usage:")), None)
    if start is None:
        return [], lines
    end = start + 1
    while end < len(lines) and lines[end].startswith(" "):
        end += 1
    # Continuation lines keep their alignment under the first line's words.
    width = len("Usage: ")
    usage = [lines[start][width:].strip()] + [
        line[width:].rstrip() if line[:width].isspace() else line.strip()
        for line in lines[start + 1:end]]
    return usage, lines[:start] + lines[end:]


def body_to_roff(lines):
    """Paragraphs, sections and their items, as roff. Example sections are kept verbatim."""
    out = []
    section = None          # the current section's title, None before the first
    in_options = False      # an OPTIONS heading was written for items outside any section
    verbatim = False        # inside .nf
    i = 0

    def end_verbatim():
        nonlocal verbatim
        if verbatim:
            out.extend([".fi", ".RE"])
            verbatim = False

    def start_verbatim():
        nonlocal verbatim
        if not verbatim:
            out.extend([".RS 4", ".nf"])
            verbatim = True

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            end_verbatim()
            i += 1
            continue
        if is_header(lines, i):
            end_verbatim()
            section = line[:-1]
            if re.fullmatch(r"Examples?|Commands", section):
                out.append(".SH " + section.upper())
                in_options = False
            else:
                if not in_options:
                    out.append(".SH OPTIONS")
                    in_options = True
                if section != "Options":
                    out.append('.SS "%s"' % roff_text(section).replace('"', '\\(dq'))
            i += 1
            continue
        if not line.startswith(" "):
            # A prose paragraph: unindented lines up to a blank line or a section.
            end_verbatim()
            if line.startswith("Exit status:"):
                out.append('.SH "EXIT STATUS"')
                lines[i] = line[len("Exit status:"):].strip()
            out.append(".PP")
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(" ") \
                    and not is_header(lines, i):
                out.append(roff_text(lines[i]))
                i += 1
            continue
        if section and re.fullmatch(r"Examples?", section):
            start_verbatim()
            out.append(roff_text(line[2:]))
            i += 1
            continue
        item = (COMMAND if section == "Commands" else ITEM).match(line)
        if item and (item.group(2) or item.group(1).startswith("-")):
            # A flag or an argument: its text, and the continuation lines indented past the tag.
            end_verbatim()
            if section is None and not in_options:
                out.append(".SH OPTIONS")
                in_options = True
            tag, text = item.group(1), [item.group(2)] if item.group(2) else []
            i += 1
            while i < len(lines) and lines[i].startswith("    ") and lines[i].strip():
                text.append(lines[i].strip())
                i += 1
            out.append(".TP")
            out.append("\\fB" + roff_text(tag) + "\\fR")
            out.append(roff_text(" ".join(text)) if text else "")
            continue
        # Any other indented line (a list of formats, a note): kept as laid out.
        start_verbatim()
        out.append(roff_text(line[2:]))
        i += 1
    end_verbatim()
    return [line for line in out if line != ""]


def page(name, summary, help_text, version, date, see_also):
    lines = help_text.rstrip("\n").split("\n")
    usage, rest = split_usage(lines)
    command = name.replace("tpacf-", "tpacf ", 1) if name != "tpacf-studio" else name
    out = ['.\\" Generated from "%s --help" by scripts/gen-man-pages.py: edit the help text.'
           % command,
           '.TH %s 1 "%s" "%s" "User Commands"' % (roff_text(name.upper()), date,
                                                   roff_text("tpacf " + version)),
           ".SH NAME",
           "%s \\- %s" % (roff_text(name), roff_text(summary)),
           ".SH SYNOPSIS",
           ".nf"]
    out += [roff_text(u) for u in usage]
    out += [".fi", ".SH DESCRIPTION"]
    body = body_to_roff(rest)
    # The body opens with its prose (DESCRIPTION); a body that starts with a section needs none.
    if body and body[0].startswith(".SH"):
        out.pop()
    out += body
    if see_also:
        out += [".SH SEE ALSO", ",\n".join("\\fB%s\\fR(1)" % roff_text(s) for s in see_also)]
    return "\n".join(out) + "\n"


def write_gz(path, text):
    # gzip -9n: compresslevel 9, mtime 0 and no file name in the header (reproducible).
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
            gz.write(text.encode("utf-8"))


def help_of(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0 or not result.stdout.strip():
        sys.exit("gen-man-pages: %s exited %d: %s"
                 % (" ".join(command), result.returncode, result.stderr.strip()))
    return result.stdout


def tpacf_pages(exe, version, date):
    """tpacf(1) and tpacf-CMD(1) for every command 'tpacf --help' lists."""
    main_help = help_of([exe, "--help"])
    lines = main_help.split("\n")
    # "tpacf 0.1.0 - summary" is the first line; the commands are the items under "Commands:".
    summary = lines[0].split(" - ", 1)[1].strip() if " - " in lines[0] else "tpacf"
    commands = []
    in_commands = False
    for line in lines:
        if line == "Commands:":
            in_commands = True
            continue
        if in_commands:
            item = COMMAND.match(line)
            if not item or not item.group(2):
                break
            commands.append((item.group(1), item.group(2)))
    if not commands:
        sys.exit("gen-man-pages: '%s --help' lists no commands under 'Commands:'" % exe)
    names = ["tpacf-" + c for c, _ in commands]
    pages = {"tpacf": page("tpacf", summary, "\n".join(lines[1:]), version, date,
                           names + ["tpacf-studio"])}
    for command, command_summary in commands:
        text = help_of([exe, command, "--help"])
        pages["tpacf-" + command] = page("tpacf-" + command, command_summary, text, version, date,
                                         ["tpacf"] + [n for n in names if n != "tpacf-" + command])
    return pages


def studio_page(exe, version, date):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    text = help_of([exe, "--help"], env)
    # QCommandLineParser names the program by its path: the page names the installed command.
    text = re.sub(r"^Usage: \S+", "Usage: tpacf-studio", text, count=1)
    lines = text.split("\n")
    # Its description is the line after the usage line; it is the page's summary too.
    summary = lines[1].strip().rstrip(".") if len(lines) > 1 else "w(theta) on GPU and CPU"
    summary = summary[:1].lower() + summary[1:]
    return {"tpacf-studio": page("tpacf-studio", "the desktop application: " + summary,
                                 text, version, date, ["tpacf"])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--date", required=True)
    parser.add_argument("--stamp", help="file to touch when done (the build's output)")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--tpacf")
    group.add_argument("--studio")
    args = parser.parse_args()

    pages = tpacf_pages(args.tpacf, args.version, args.date) if args.tpacf \
        else studio_page(args.studio, args.version, args.date)
    outdir = Path(args.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    # A command that was removed leaves no page behind.
    for old in outdir.glob("*.1.gz"):
        if old.name[:-len(".1.gz")] not in pages:
            old.unlink()
    for name, text in pages.items():
        write_gz(outdir / (name + ".1.gz"), text)
    if args.stamp:
        Path(args.stamp).write_text("\n".join(sorted(pages)) + "\n")


if __name__ == "__main__":
    main()
