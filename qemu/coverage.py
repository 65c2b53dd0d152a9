#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make coverage: the drivers' lines, functions and branches run.

usage: coverage.py KOUT OUTDIR GCDA_DIR [GCDA_DIR ...]

Each GCDA_DIR holds the .gcda files one guest boot copied out of
/sys/kernel/debug/gcov (qemu/guest/runtests).  Their notes (.gcno) are in
the coverage kernel's build folder KOUT.  gcov reads each boot's counts;
they are added up here, line by line and branch by branch, so the table
covers both boots of make coverage (IOMMU translation and passthrough).

Only the project's own files count: drivers/vcm, the GEM VCM helper and
drivers/gpu/drm/gembuf, without their KUnit suites.  Writes
OUTDIR/coverage.txt (the table, then the lines never run, by function)
and prints the table.  OUTDIR/branches.txt lists each line with a branch
never taken: how many of its branches were taken, and its text.

Branches are counted twice.  "branches" are all of gcov's, as gcov -b
counts them.  "in conditions" are those of lines that hold or continue a
condition in the source: an if, while, for, switch or case, a for_each
macro, min(), max() or clamp(), or a line with, or continuing, ?:, &&
or ||; the branch target is judged on them.  The others come from
macros a statement expands to (flush_workqueue()'s checks of system
workqueues, dma_resv_assert_held(), a WARN_ON() used as a statement),
whose outcomes are the macros' rather than the drivers' decisions.  It
is a heuristic of this script's, near lcov's "--filter branch" but not
the same: lcov reads to the end of a statement and takes comparisons
for conditions.  Macros that branch
inside a condition (a WARN_ON() in an if) are kept; the waits and
retries of macros such as wait_event_*() on lines of their own are left
out.  The same condition inlined into several callers counts once per
caller in both.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

GCOV = os.environ.get("GCOV", "aarch64-linux-gnu-gcov")
DIRS = ("drivers/vcm/", "drivers/gpu/drm/gembuf/")
FILES = ("drivers/gpu/drm/drm_gem_vcm_helper.c",)
TARGET_LINES, TARGET_BRANCHES = 97.0, 90.0


def ours(path):
    """The repo-relative path of one of the drivers' files, or None."""
    path = os.path.normpath(path)
    for f in FILES:
        if path == f or path.endswith("/" + f):
            return f
    for d in DIRS:
        i = path.find("/" + d)
        rel = path[i + 1:] if i >= 0 else (path if path.startswith(d) else None)
        if rel and "/tests/" not in rel:
            return rel
    return None


def gcov_json(kout, gcda):
    """Run gcov on one .gcda next to its .gcno; yield its file records."""
    name = os.path.basename(gcda)[:-len(".gcda")]
    # The guest copies the counts by name only: one file of that name.
    found = [g for g in (os.path.join(kout, d, name + ".gcno")
                         for d in DIRS + tuple(os.path.dirname(f) + "/"
                                               for f in FILES))
             if os.path.exists(g)]
    if len(found) != 1:
        sys.exit(f"coverage: {len(found)} notes for {name}.gcda under {kout}")
    gcno = found[0]
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(gcda, os.path.join(tmp, name + ".gcda"))
        os.symlink(gcno, os.path.join(tmp, name + ".gcno"))
        out = subprocess.run([GCOV, "-b", "-j", "-t", name + ".gcda"],
                             cwd=tmp, check=True, capture_output=True,
                             text=True).stdout
    for doc in out.splitlines():
        doc = doc.strip()
        if doc:
            yield from json.loads(doc)["files"]


def collect(kout, dirs):
    lines = collections.defaultdict(int)       # (file, line) -> count
    branches = collections.defaultdict(int)    # (file, line, tu, i) -> count
    funcs = {}                                 # (file, name) -> [start, end, count]
    for d in dirs:
        for gcda in sorted(os.listdir(d)):
            if not gcda.endswith(".gcda"):
                continue
            for rec in gcov_json(kout, os.path.join(d, gcda)):
                f = ours(rec["file"])
                if not f:
                    continue
                for ln in rec["lines"]:
                    key = (f, ln["line_number"])
                    lines[key] += ln["count"]
                    for i, br in enumerate(ln.get("branches", [])):
                        branches[(f, ln["line_number"], gcda, i)] += br["count"]
                for fn in rec["functions"]:
                    k = (f, fn["name"])
                    e = funcs.setdefault(k, [fn["start_line"], fn["end_line"], 0])
                    e[2] += fn["execution_count"]
    return lines, branches, funcs


# A line that holds a condition, or a for_each macro's loop.
# min(), max() and clamp() choose as ?: does, in whatever statement.
COND = re.compile(r"\b(if|while|for|switch|case)\b|\?|&&|\|\||\w*for_each\w*\s*\("
                  r"|\b(min|max|clamp)(3|_t|_val|_not_zero)?\s*\(|\bu(min|max)\s*\(")
# The keywords whose parenthesised condition may span several lines.
OPEN = re.compile(r"\b(if|while|for|switch|\w*for_each\w*)\s*\(")


def code_lines(path):
    """The lines of a C file, its comments and literals blanked."""
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as e:
        sys.exit(f"coverage: {path}: {e}")

    def blank(m):
        tok = m.group(0)
        if tok.startswith("/"):
            return "\n" * tok.count("\n")
        return tok[0] * 2
    return re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*',
                  blank, text, flags=re.S).split("\n")


def condition_lines(path):
    """The numbers of the lines of @path that hold or continue a condition."""
    out, depth, inside, cont = set(), 0, False, False
    for n, line in enumerate(code_lines(path), 1):
        code = line.strip()
        # a line that continues an expression of && || ?: goes with it
        if inside or cont or COND.search(line):
            out.add(n)
        if code:
            cont = code.endswith(("&&", "||", "?", ":")) and \
                not code.endswith(("default:", "::")) and \
                not re.match(r"(case\b.*|\w+):$", code)
        i = 0
        while i < len(line):
            if not inside:
                m = OPEN.search(line, i)
                if not m:
                    break
                inside, depth, i = True, 1, m.end()
                continue
            if line[i] == "(":
                depth += 1
            elif line[i] == ")":
                depth -= 1
                if not depth:
                    inside = False
            i += 1
    return out


def built(kout, f):
    """@f as the build compiled it (its tree, the build folder's source
    link), so that line numbers match even if the repo moved on."""
    path = os.path.join(kout, "source", f)
    return path if os.path.exists(path) else f


def pct(a, b):
    return 100.0 * a / b if b else 100.0


def ranges(nums):
    out, start, prev = [], None, None
    for n in sorted(nums):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append((start, prev))
            start = prev = n
    if start is not None:
        out.append((start, prev))
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    kout, outdir, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    dirs = [d for d in dirs if os.path.isdir(d) and os.listdir(d)]
    if not dirs:
        sys.exit("coverage: no GCOV counts came out of the guest")
    lines, branches, funcs = collect(kout, dirs)

    per = collections.defaultdict(lambda: [0] * 8)
    for (f, _), c in lines.items():
        per[f][0] += c > 0
        per[f][1] += 1
    for (f, _), (_, _, c) in funcs.items():
        per[f][2] += c > 0
        per[f][3] += 1
    conds = {}
    for (f, ln, *_), c in branches.items():
        per[f][4] += c > 0
        per[f][5] += 1
        if f not in conds:
            conds[f] = condition_lines(built(kout, f))
        if ln in conds[f]:
            per[f][6] += c > 0
            per[f][7] += 1

    def row(name, v):
        return (f"{name:44} {v[0]:5}/{v[1]:5} {pct(v[0], v[1]):5.1f}%"
                f" {v[2]:4}/{v[3]:4} {pct(v[2], v[3]):5.1f}%"
                f" {v[4]:5}/{v[5]:5} {pct(v[4], v[5]):5.1f}%"
                f" {v[6]:5}/{v[7]:5} {pct(v[6], v[7]):5.1f}%")

    rows = []
    head = (f"{'file':44} {'lines':>17} {'functions':>15} {'branches':>17}"
            f" {'in conditions':>17}")
    rows.append(head)
    rows.append("-" * len(head))
    groups = collections.defaultdict(lambda: [0] * 8)
    for f in sorted(per):
        v = per[f]
        g = ("vcm" if f.startswith("drivers/vcm/") else
             "helper" if f in FILES else "gembuf")
        for k in (g, "total"):
            groups[k] = [a + b for a, b in zip(groups[k], v)]
        rows.append(row(f, v))
    rows.append("-" * len(head))
    for k in ("vcm", "helper", "gembuf", "total"):
        rows.append(row(k, groups[k]))
    t = groups["total"]
    rows.append(f"targets: lines {pct(t[0], t[1]):.1f}% of {TARGET_LINES}%, "
                f"branches in conditions {pct(t[6], t[7]):.1f}% of "
                f"{TARGET_BRANCHES}%")
    rows.append(f"branches: {pct(t[4], t[5]):.1f}% of all {t[5]} of gcov's; "
                f"{t[5] - t[7]} on lines that are not conditions, "
                f"{(t[5] - t[7]) - (t[4] - t[6])} of them never taken")

    missed = ["", "Lines never run, by function:"]
    byfile = collections.defaultdict(list)
    for (f, ln), c in lines.items():
        if not c:
            byfile[f].append(ln)
    for f in sorted(byfile):
        fl = sorted((s, e, n) for (ff, n), (s, e, _) in funcs.items() if ff == f)
        missed.append(f"{f}:")
        owner = collections.defaultdict(list)
        for ln in byfile[f]:
            name = next((n for s, e, n in fl if s <= ln <= e), "(outside functions)")
            owner[name].append(ln)
        for name in sorted(owner, key=lambda n: min(owner[n])):
            missed.append(f"  {name}: {ranges(owner[name])}")

    # Branches never taken: per line, taken of all (both boots' counts).
    perline = collections.defaultdict(lambda: [0, 0])
    for (f, ln, *_), c in branches.items():
        perline[(f, ln)][0] += c > 0
        perline[(f, ln)][1] += 1
    untaken = ["Lines with a branch never taken: taken/all, C where the line",
               "is in a condition (see coverage.py), then the line."]
    src = {}
    for (f, ln), (a, b) in sorted(perline.items()):
        if a == b:
            continue
        if f not in src:
            try:
                with open(built(kout, f)) as fh:
                    src[f] = fh.read().splitlines()
            except OSError:
                src[f] = []
        text = src[f][ln - 1].strip() if ln <= len(src[f]) else ""
        mark = "C" if ln in conds.get(f, ()) else " "
        untaken.append(f"{f}:{ln}: {a}/{b} {mark} {text}")

    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "coverage.txt"), "w") as fh:
        fh.write("\n".join(rows + missed) + "\n")
    with open(os.path.join(outdir, "branches.txt"), "w") as fh:
        fh.write("\n".join(untaken) + "\n")
    print("\n".join(rows))
    print(f"lines never run, by function: {os.path.join(outdir, 'coverage.txt')}")


if __name__ == "__main__":
    main()
