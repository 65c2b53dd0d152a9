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
and prints the table.
"""
import collections
import json
import os
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

    per = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for (f, _), c in lines.items():
        per[f][0] += c > 0
        per[f][1] += 1
    for (f, _), (_, _, c) in funcs.items():
        per[f][2] += c > 0
        per[f][3] += 1
    for (f, *_), c in branches.items():
        per[f][4] += c > 0
        per[f][5] += 1

    rows = []
    head = f"{'file':44} {'lines':>17} {'functions':>15} {'branches':>17}"
    rows.append(head)
    rows.append("-" * len(head))
    groups = collections.defaultdict(lambda: [0] * 6)
    for f in sorted(per):
        v = per[f]
        g = ("vcm" if f.startswith("drivers/vcm/") else
             "helper" if f in FILES else "gembuf")
        for k in (g, "total"):
            groups[k] = [a + b for a, b in zip(groups[k], v)]
        rows.append(f"{f:44} {v[0]:5}/{v[1]:5} {pct(v[0], v[1]):5.1f}%"
                    f" {v[2]:4}/{v[3]:4} {pct(v[2], v[3]):5.1f}%"
                    f" {v[4]:5}/{v[5]:5} {pct(v[4], v[5]):5.1f}%")
    rows.append("-" * len(head))
    for k in ("vcm", "helper", "gembuf", "total"):
        v = groups[k]
        rows.append(f"{k:44} {v[0]:5}/{v[1]:5} {pct(v[0], v[1]):5.1f}%"
                    f" {v[2]:4}/{v[3]:4} {pct(v[2], v[3]):5.1f}%"
                    f" {v[4]:5}/{v[5]:5} {pct(v[4], v[5]):5.1f}%")
    t = groups["total"]
    rows.append(f"targets: lines {pct(t[0], t[1]):.1f}% of {TARGET_LINES}%, "
                f"branches {pct(t[4], t[5]):.1f}% of {TARGET_BRANCHES}%")

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

    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "coverage.txt"), "w") as fh:
        fh.write("\n".join(rows + missed) + "\n")
    print("\n".join(rows))
    print(f"lines never run, by function: {os.path.join(outdir, 'coverage.txt')}")


if __name__ == "__main__":
    main()
