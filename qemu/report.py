#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a `make test` guest run from the files it left in OUT.

Counts every igt subtest (each dynamic subtest on its own), every KUnit
case and every libdrm tool run; compares non-passing results with
igt-tests/expectations.txt; adds one failure per kernel splat found in the
guest's log (BUG, WARNING, Oops, KASAN, lockdep, kmemleak, DMA-API
debugging turning itself off) and one for a guest that did not finish.  A second configuration's run, in a folder of
OUT named after it (passthrough: the guest with iommu.passthrough=1), is
judged the same way, its results named "<configuration>:<name>".  Prints
the failures, then the closing line 'N passed, N failed, N skipped';
exits 1 if anything failed.
"""
import fnmatch
import os
import re
import sys

SPLATS = [
    re.compile(p) for p in (
        r"\bBUG: ", r"\bWARNING: ", r"\bOops\b", r"Kernel panic",
        r"\bKASAN\b.*: ", r"possible circular locking dependency",
        r"possible recursive locking", r"inconsistent lock state",
        r"suspicious RCU usage", r"INFO: task .* blocked",
        r"ODEBUG: ", r"\bUBSAN: ", r"list_(add|del) corruption",
        r"soft lockup",
        # DMA-API debugging switching itself off (its own allocation
        # failed): what it tracked is stale from then on.
        r"dma-debug disabled", r"DMA-API: debugging out of memory")
]

IGT_LINE = re.compile(r"^(Dynamic subtest|Subtest) (\S+): (SUCCESS|FAIL|SKIP|CRASH|TIMEOUT)")
KTAP_LINE = re.compile(r"^(\s*)(not ok|ok) \d+ (.*?)(?:\s+#\s*(SKIP)\b.*)?$")
KTAP_SUBTEST = re.compile(r"^(\s*)# Subtest: (\S+)")


def load_expectations(path):
    exp = []
    if os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].split()
            if len(line) >= 2:
                exp.append((line[0], line[1].upper()))
    return exp


def expected(exp, name):
    for pat, res in exp:
        if fnmatch.fnmatchcase(name, pat):
            return res
    return "SUCCESS"


def parse_igt(out_dir):
    """Yield (name, result, note) for every igt result."""
    igt = os.path.join(out_dir, "igt")
    for fn in sorted(os.listdir(igt)) if os.path.isdir(igt) else []:
        if not fn.endswith(".out"):
            continue
        base = fn[:-4]
        text = open(os.path.join(igt, fn), errors="replace").read()
        rc_path = os.path.join(igt, base + ".rc")
        rc = open(rc_path).read().strip() if os.path.exists(rc_path) else "?"
        subtest, had_dynamic, seen = None, False, 0
        for line in text.splitlines():
            m = IGT_LINE.match(line)
            if not m:
                if line.startswith("Starting subtest: "):
                    subtest, had_dynamic = line.split(": ", 1)[1], False
                continue
            kind, name, res = m.groups()
            seen += 1
            if kind == "Dynamic subtest":
                had_dynamic = True
                yield f"{base}@{subtest}@{name}", res, ""
            elif not had_dynamic or res == "CRASH":
                yield f"{base}@{name}", res, ""
        # igt exit codes: 0 ok, 77 all skipped, 98 failure; anything else
        # (a signal, a timeout kill, 79 invalid) is a failure of the binary.
        failed = [l for l in text.splitlines() if IGT_LINE.match(l) and
                  IGT_LINE.match(l).group(3) in ("FAIL", "CRASH", "TIMEOUT")]
        if failed:
            # why, for a log that keeps only this summary (CI's)
            err = os.path.join(igt, base + ".err")
            why = [l for l in open(err, errors="replace").read().splitlines()
                   if "CRITICAL:" in l] if os.path.exists(err) else []
            for l in why[:12]:
                print(f"  {base}: {l}")
        if rc not in ("0", "77", "98") or seen == 0:
            yield f"{base}", "FAIL", f"exit code {rc}, {seen} results"


def parse_kunit(out_dir):
    """Yield (name, result, note) for every KUnit case; the parameters of
    a parameterised case count one by one, as kunit_tool counts them."""
    kdir = os.path.join(out_dir, "kunit")
    for fn in sorted(os.listdir(kdir)) if os.path.isdir(kdir) else []:
        if not fn.endswith(".ktap"):
            continue
        suite = fn[:-5]
        lines = open(os.path.join(kdir, fn), errors="replace").read().splitlines()
        depths = sorted({len(m.group(1)) for m in map(KTAP_LINE.match, lines) if m})
        if not depths:
            yield f"kunit:{suite}", "FAIL", "no KTAP results"
            continue
        # the outermost level is the suite itself when it is present
        case_depth = depths[1] if len(depths) > 1 else depths[0]
        params = []
        for line in lines:
            m = KTAP_LINE.match(line)
            if not m or len(m.group(1)) < case_depth:
                continue
            indent, status, name, skip = m.groups()
            name = re.sub(r"\s+", "_", name.strip())
            res = "SKIP" if skip else ("SUCCESS" if status == "ok" else "FAIL")
            if len(indent) > case_depth:
                params.append((name, res))
                continue
            for pname, pres in params:
                yield f"kunit:{suite}.{name}.{pname}", pres, ""
            if not params or (res == "FAIL" and all(r != "FAIL" for _, r in params)):
                yield f"kunit:{suite}.{name}", res, ""
            params = []


def parse_tools(out_dir):
    tdir = os.path.join(out_dir, "tools")
    for fn in sorted(os.listdir(tdir)) if os.path.isdir(tdir) else []:
        if fn.endswith(".rc"):
            rc = open(os.path.join(tdir, fn)).read().strip()
            yield f"tool:{fn[:-3]}", "SUCCESS" if rc == "0" else "FAIL", f"exit code {rc}"


def splats(out_dir):
    found = []
    log = os.path.join(out_dir, "console.log")
    if os.path.exists(log):
        for line in open(log, errors="replace"):
            if any(p.search(line) for p in SPLATS):
                found.append(line.strip())
    leak = os.path.join(out_dir, "kmemleak.txt")
    if os.path.exists(leak):
        found += [l.strip() for l in open(leak) if l.startswith("unreferenced object")]
    return found


# The other configurations make test boots the guest in, by folder of OUT.
CONFIGS = ("passthrough",)


def run_results(out_dir):
    return list(parse_kunit(out_dir)) + list(parse_igt(out_dir)) + list(parse_tools(out_dir))


def main():
    out_dir = sys.argv[1]
    exp = load_expectations(sys.argv[2])
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failures = []
    runs = [("", out_dir)] + [(c + ":", os.path.join(out_dir, c)) for c in CONFIGS
                              if os.path.isdir(os.path.join(out_dir, c))]
    results = []
    for prefix, d in runs:
        results += [(prefix + n, r, note) for n, r, note in run_results(d)]
    with open(os.path.join(out_dir, "results.txt"), "w") as f:
        for name, res, note in results:
            f.write(f"{name} {res}\n")
            want = expected(exp, name)
            if res == want:
                # an expected non-pass (SKIP, or a known FAIL listed in the
                # expectations) is reported as skipped, never as passed
                counts["passed" if res == "SUCCESS" else "skipped"] += 1
            else:
                counts["failed"] += 1
                failures.append(f"{name}: {res} (expected {want}){' ' + note if note else ''}")
    for prefix, d in runs:
        for s in splats(d):
            counts["failed"] += 1
            failures.append(f"{prefix}kernel splat: {s}")
        if not os.path.exists(os.path.join(d, "done")):
            counts["failed"] += 1
            failures.append(f"{prefix}guest did not finish the run (hang, panic or timeout)")
    if not results:
        counts["failed"] += 1
        failures.append("no test results at all")
    for f in failures:
        print(f"FAIL {f}")
    print(f"results in {out_dir}/results.txt ({len(results)} entries)")
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
