#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a `make bench` run: qemu/bench_summary.py <out/bench folder>.

Each benchmark of igt-tests/benchmarks prints one table, every line
prefixed "<name>: ": an optional header comment line, then the columns
case | median | min | max | unit.  This reads <folder>/<name>.txt for
every benchmark, writes <folder>/summary.md (a section per benchmark with
its table and the kernel it ran on), <folder>/cost.svg (the cost of
allocation and of mapping against the buffer size, log-log) and
<folder>/scale.svg (gembuf_scale: each operation's cost against the size
of a population, as a ratio to its cost at the smallest size, log-log,
a panel per population), with the standard library only.  A benchmark without output, or without a table,
gets a note instead of a table.
"""
import glob
import math
import os
import re
import sys
from xml.sax.saxutils import escape

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_SRC = os.path.join(TOP, "igt-tests", "benchmarks")
NOT_BENCH = {"dmesg", "summary"}
# "...; kernel <uname -r> <uname -v>" ends a benchmark's header line.
KERNEL = re.compile(r";\s*kernel (.+)$")

# Microseconds per unit of a time row.
TIME_UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}

# The curves of cost.svg: (panel title, y label, benchmark, series), each
# series (label, row pattern whose groups are the size and its unit,
# KiB or MiB, anchor?).
PANELS = [
    ("Allocation + CPU map + free", "time per alloc+map+free (\u00b5s)", "gembuf_alloc", [
        ("gembuf", re.compile(r"^alloc\+map\+free (\d+) ([KM]iB), gembuf$"), False),
        ("system heap", re.compile(r"^alloc\+map\+free (\d+) ([KM]iB), system heap\b"), True),
    ]),
    ("Map + unmap for edu", "time per map+unmap (\u00b5s)", "vcm_map", [
        ("VCM", re.compile(r"^map\+unmap (\d+) ([KM]iB), VCM$"), False),
        ("DMA API fresh", re.compile(r"^map\+unmap (\d+) ([KM]iB), DMA API fresh\b"), True),
        ("DMA API aged", re.compile(r"^map\+unmap (\d+) ([KM]iB), DMA API aged\b"), True),
    ]),
]


class Bench:
    def __init__(self, name):
        self.name = name
        self.found = False
        self.comments = []	# prefixed lines before the table
        self.rows = []		# (case, median, min, max, unit) as printed
        self.other = []		# lines without the prefix (errors, ...)

    def values(self, pattern):
        """{size: (median, min, max) in microseconds} of the time rows
        whose case matches @pattern."""
        out = {}
        for case, med, lo, hi, unit in self.rows:
            m = pattern.search(case)
            if not m or unit not in TIME_UNITS:
                continue
            try:
                v = tuple(float(x) * TIME_UNITS[unit] for x in (med, lo, hi))
            except ValueError:
                continue
            if all(x > 0 and math.isfinite(x) for x in v):
                # the size in MiB
                out[int(m.group(1)) / (1024 if m.group(2) == "KiB" else 1)] = v
        return out

    def kernel(self):
        for line in self.comments:
            m = KERNEL.search(line)
            if m:
                return m.group(1).strip()
        return None


def empty_panel(s, left, right, top, bottom, note):
    """Close SVG list @s as a panel with no data: @note in its middle."""
    s.append(f'<text x="{(left + right) / 2}" y="{(top + bottom) / 2}" '
             f'text-anchor="middle" font-size="13" fill="#666">'
             f'{escape(note or "no data")}</text>')
    s.append("</g>")
    return s


def plot_series(s, data, keys, X, Y, color, radius, dash, title):
    """One series into SVG list @s: medians joined, min..max as whiskers."""
    if len(keys) > 1:
        path = " ".join(f"{X(k):.1f},{Y(data[k][0]):.1f}" for k in keys)
        s.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                 f'stroke-width="2"{dash}/>')
    for k in keys:
        med, lo, hi = data[k]
        x = X(k)
        s.append(f'<line x1="{x:.1f}" y1="{Y(lo):.1f}" x2="{x:.1f}" '
                 f'y2="{Y(hi):.1f}" stroke="{color}"/>')
        s.append(f'<circle cx="{x:.1f}" cy="{Y(med):.1f}" r="{radius}" fill="{color}">'
                 f'<title>{title(k, med, lo, hi)}</title></circle>')


def parse(path, name):
    b = Bench(name)
    if not os.path.exists(path):
        return b
    b.found = True
    prefix = name + ": "
    header = False
    for line in open(path, errors="replace").read().splitlines():
        if not line.startswith(prefix):
            if line.strip():
                b.other.append(line)
            continue
        text = line[len(prefix):].rstrip()
        parts = text.rsplit(None, 4)
        if len(parts) == 5 and [p.lower() for p in parts] == ["case", "median", "min", "max", "unit"]:
            header = True
            continue
        if header and len(parts) == 5:
            try:
                [float(p) for p in parts[1:4]]
            except ValueError:
                pass
            else:
                b.rows.append(tuple(parts))
                continue
        b.comments.append(text)
    return b


def dmesg_kernel(folder):
    """The kernel of the boot, from dmesg.txt: its version line, and
    whether it is the debug build (KASAN and the others of
    qemu/configs/debug.config) or the release one."""
    path = os.path.join(folder, "dmesg.txt")
    if not os.path.exists(path):
        return None, None
    version, debug = None, False
    for line in open(path, errors="replace"):
        if version is None:
            m = re.search(r"Linux version (.*)$", line)
            if m:
                version = m.group(1).strip()
        if "KernelAddressSanitizer initialized" in line:
            debug = True
    if version is None:
        return None, None
    return version, "debug" if debug else "release"


def md_cell(s):
    return s.replace("|", "\\|")


def markdown(benches, version, flavour):
    out = ["# Benchmarks", ""]
    if version:
        out += [f"Kernel (dmesg.txt): `Linux {version}`, the {flavour} build.", ""]
    out += ["Each figure is the median of the runs, with their minimum and "
            "maximum; a ratio row is the ratio of each run to its anchor's, "
            "then their median, minimum and maximum.", "",
            "![cost against buffer size](cost.svg)", "",
            "![cost ratio against population size](scale.svg)", ""]
    for b in benches:
        out += [f"## {b.name}", ""]
        if not b.found:
            out += [f"_Skipped: no {b.name}.txt (the benchmark did not run)._", ""]
            continue
        kernel = b.kernel()
        build = f", the {flavour} build (dmesg.txt)" if flavour else ""
        if kernel:
            out += [f"Kernel: `{kernel}`{build}.", ""]
        elif version:
            out += [f"Kernel (dmesg.txt): `Linux {version}`, the {flavour} build.", ""]
        for c in b.comments:
            c = KERNEL.sub("", c)
            if c:
                out += [md_cell(c), ""]
        if not b.rows:
            out += [f"_No table in {b.name}.txt: the benchmark failed or "
                    "was skipped._", ""]
        else:
            out += ["| case | median | min | max | unit |",
                    "|:-----|-------:|----:|----:|:-----|"]
            out += ["| " + " | ".join(md_cell(x) for x in r) + " |" for r in b.rows]
            out.append("")
        if b.other:
            out += ["Other output:", "", "```"] + b.other[:40]
            if len(b.other) > 40:
                out.append(f"... {len(b.other) - 40} more lines")
            out += ["```", ""]
    return "\n".join(out)


# --- cost.svg, drawn by hand ------------------------------------------

PW, PH = 460, 340		# panel size
ML, MR, MT, MB = 70, 20, 40, 50	# plot margins inside a panel
COLORS = ["#1f77b4", "#d62728", "#2ca02c"]


def log_ticks(lo, hi):
    """Tick values for a log axis over [lo, hi]: decades, plus 2 and 5
    times them when the range is short."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for steps in ((1,), (1, 2, 5), range(1, 10)):
        ticks = [t for t in (m * 10 ** e for e in range(a, b + 1) for m in steps)
                 if lo <= t * 1.0000001 and t <= hi * 1.0000001]
        if len(ticks) >= 3:
            break
    return ticks


def size_label(mib):
    """A size given in MiB, as "4K", "1M" or "256M"."""
    return f"{mib * 1024:g}K" if mib < 1 else f"{mib:g}M"


def fmt_num(v):
    if v >= 1e4 or v < 1e-2:
        e = int(math.floor(math.log10(v)))
        m = v / 10 ** e
        return f"1e{e}" if abs(m - 1) < 1e-9 else f"{m:g}e{e}"
    return f"{v:g}"


def panel(x0, title, ylabel, series, note):
    """SVG of one panel at horizontal offset @x0; @series is a list of
    (label, {size: (median, min, max)}, anchor)."""
    s = [f'<g transform="translate({x0},0)">',
         f'<text x="{PW / 2}" y="22" text-anchor="middle" font-size="15" '
         f'font-weight="bold">{escape(title)}</text>']
    pts = [v for _, d, _ in series for v in d.values()]
    sizes = [k for _, d, _ in series for k in d]
    x_lo = min([1] + sizes)
    x_hi = max([64] + sizes)
    pad = 0.3	# in powers of two, so that no marker sits on the frame
    left, right, top, bottom = ML, PW - MR, MT, PH - MB
    s.append(f'<rect x="{left}" y="{top}" width="{right - left}" '
             f'height="{bottom - top}" fill="none" stroke="#000"/>')
    if not pts:
        return empty_panel(s, left, right, top, bottom, note)
    y_lo = min(p[1] for p in pts)
    y_hi = max(p[2] for p in pts)
    # a decade's margin at least around the data, on whole decades when wide
    y_lo, y_hi = y_lo / 1.3, y_hi * 1.3
    if math.log10(y_hi / y_lo) > 2:
        y_lo = 10 ** math.floor(math.log10(y_lo))
        y_hi = 10 ** math.ceil(math.log10(y_hi))

    def X(v):
        return left + (right - left) * (math.log2(v) - math.log2(x_lo) + pad) / \
            (math.log2(x_hi) - math.log2(x_lo) + 2 * pad)

    def Y(v):
        return bottom - (bottom - top) * (math.log10(v) - math.log10(y_lo)) / \
            (math.log10(y_hi) - math.log10(y_lo))

    # grid and ticks: every power of two, or every fourth one on a long axis
    e = math.floor(math.log2(x_lo))
    step = 1 if math.log2(x_hi / x_lo) <= 10 else 4
    while 2 ** e <= x_hi:
        v = 2 ** e
        if v >= x_lo and e % step == 0:
            x = X(v)
            s.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
                     f'stroke="#ddd"/>')
            s.append(f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle" '
                     f'font-size="11">{size_label(v)}</text>')
        e += 1
    for t in log_ticks(y_lo, y_hi):
        y = Y(t)
        s.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" '
                 f'stroke="#ddd"/>')
        s.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end" '
                 f'font-size="11">{fmt_num(t)}</text>')
    s.append(f'<text x="{(left + right) / 2}" y="{PH - 12}" text-anchor="middle" '
             f'font-size="12">buffer size (log scale)</text>')
    s.append(f'<text transform="translate(16,{(top + bottom) / 2}) rotate(-90)" '
             f'text-anchor="middle" font-size="12">{escape(ylabel)}, log scale</text>')

    # one line per series: medians joined, min..max as whiskers
    for i, (label, data, anchor) in enumerate(series):
        color = COLORS[i % len(COLORS)]
        dash = ' stroke-dasharray="6,4"' if anchor else ""
        plot_series(s, data, sorted(data), X, Y, color, 3.5, dash,
                    lambda k, med, lo, hi, label=label:
                    f'{escape(label)}, {size_label(k)}: median {med:g} \u00b5s '
                    f'(min {lo:g}, max {hi:g})')

    # legend, top left
    lx, ly = left + 10, top + 10
    s.append(f'<rect x="{lx}" y="{ly}" width="190" height="{14 + 18 * len(series)}" '
             f'fill="#fff" fill-opacity="0.85" stroke="#999"/>')
    for i, (label, data, anchor) in enumerate(series):
        color = COLORS[i % len(COLORS)]
        dash = ' stroke-dasharray="6,4"' if anchor else ""
        y = ly + 16 + 18 * i
        s.append(f'<line x1="{lx + 8}" y1="{y - 4}" x2="{lx + 36}" y2="{y - 4}" '
                 f'stroke="{color}" stroke-width="2"{dash}/>')
        text = label + (" (anchor)" if anchor else "") + ("" if data else ": no data")
        s.append(f'<text x="{lx + 42}" y="{y}" font-size="12">{escape(text)}</text>')
    s.append("</g>")
    return s


def svg(benches):
    by_name = {b.name: b for b in benches}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{PW * len(PANELS)}" '
           f'height="{PH}" viewBox="0 0 {PW * len(PANELS)} {PH}" '
           f'font-family="sans-serif">',
           f'<rect width="100%" height="100%" fill="#fff"/>']
    for i, (title, ylabel, name, patterns) in enumerate(PANELS):
        b = by_name.get(name)
        if b is None or not b.found:
            note = f"no {name}.txt"
        elif not b.rows:
            note = f"no table in {name}.txt"
        else:
            note = None
        series = [(label, b.values(pat) if b else {}, anchor)
                  for label, pat, anchor in patterns]
        out += panel(PW * i, title, ylabel, series, note)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- scale.svg: gembuf_scale's ratios, a panel per population ---------

SCALE_BENCH = "gembuf_scale"
SCALE_AXES = ["objects", "clients", "mappings", "devices"]
# "ratio <operation>, <axis> <size> / <smallest size>"
SCALE_ROW = re.compile(r"^ratio (.+), (\w+) (\d+) / (\d+)$")
SCALE_TARGET = 2.0
SCALE_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]
SPW, SPH = 520, 360		# panel size
SMR = 170			# right margin, for the legend


def scale_series(b):
    """{axis: {operation: {size: (median, min, max)}}} of @b's ratio rows,
    each operation with 1 at its axis's smallest size."""
    out = {}
    for case, med, lo, hi, unit in b.rows if b else []:
        m = SCALE_ROW.match(case)
        if not m or unit != "x":
            continue
        op, axis, size, base = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        try:
            vals = tuple(float(x) for x in (med, lo, hi))
        except ValueError:
            continue
        ops = out.setdefault(axis, {})
        d = ops.setdefault(op, {base: (1.0, 1.0, 1.0)})
        d[size] = vals
    return out


def scale_panel(x0, axis, ops, note):
    """SVG of one panel at horizontal offset @x0: a line per operation
    of @ops ({operation: {size: (median, min, max)}}), both axes log."""
    s = [f'<g transform="translate({x0},0)">',
         f'<text x="{(SPW - SMR + ML) / 2}" y="22" text-anchor="middle" font-size="15" '
         f'font-weight="bold">{escape(axis)}</text>']
    left, right, top, bottom = ML, SPW - SMR, MT, SPH - MB
    s.append(f'<rect x="{left}" y="{top}" width="{right - left}" '
             f'height="{bottom - top}" fill="none" stroke="#000"/>')
    # Ratios that are not positive (a difference of two times can be
    # noise below zero) have no place on a log axis: left out.
    pts = [(k, t) for d in ops.values() for k, t in d.items() if min(t) > 0]
    if not pts:
        return empty_panel(s, left, right, top, bottom, note)
    x_lo, x_hi = min(k for k, _ in pts), max(k for k, _ in pts)
    if x_hi <= x_lo:
        x_hi = x_lo * 10
    y_lo = min([0.5] + [t[1] for _, t in pts]) / 1.2
    y_hi = max([SCALE_TARGET * 2] + [t[2] for _, t in pts]) * 1.2
    pad = 0.05 * math.log10(x_hi / x_lo)

    def X(v):
        return left + (right - left) * (math.log10(v / x_lo) + pad) / \
            (math.log10(x_hi / x_lo) + 2 * pad)

    def Y(v):
        return bottom - (bottom - top) * math.log(v / y_lo) / math.log(y_hi / y_lo)

    # x: every size measured; y: powers of two
    for k in sorted({k for k, _ in pts}):
        x = X(k)
        s.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
                 f'stroke="#ddd"/>')
        s.append(f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle" '
                 f'font-size="11">{k:g}</text>')
    e = math.floor(math.log2(y_lo))
    while 2 ** e <= y_hi:
        t = 2.0 ** e
        if t >= y_lo:
            y = Y(t)
            s.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" '
                     f'stroke="#ddd"/>')
            s.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end" '
                     f'font-size="11">{t:g}</text>')
        e += 1
    y = Y(SCALE_TARGET)
    s.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" '
             f'stroke="#d62728" stroke-dasharray="6,4"/>')
    s.append(f'<text x="{right - 4}" y="{y - 4:.1f}" text-anchor="end" '
             f'font-size="11" fill="#d62728">target {SCALE_TARGET:g}x</text>')
    s.append(f'<text x="{(left + right) / 2}" y="{SPH - 12}" text-anchor="middle" '
             f'font-size="12">{escape(axis)} (log scale)</text>')
    s.append(f'<text transform="translate(16,{(top + bottom) / 2}) rotate(-90)" '
             f'text-anchor="middle" font-size="12">cost / cost at the smallest, '
             f'log scale</text>')

    for i, (op, data) in enumerate(sorted(ops.items())):
        color = SCALE_COLORS[i % len(SCALE_COLORS)]
        keys = [k for k in sorted(data) if min(data[k]) > 0]
        plot_series(s, data, keys, X, Y, color, 3, "",
                    lambda k, med, lo, hi, op=op:
                    f'{escape(op)}, {escape(axis)} {k:g}: {med:g}x '
                    f'(min {lo:g}, max {hi:g})')
        ly = top + 10 + 16 * i
        s.append(f'<line x1="{right + 10}" y1="{ly - 4}" x2="{right + 30}" '
                 f'y2="{ly - 4}" stroke="{color}" stroke-width="2"/>')
        s.append(f'<text x="{right + 35}" y="{ly}" font-size="11">{escape(op)}</text>')
    s.append("</g>")
    return s


def scale_svg(benches):
    b = {x.name: x for x in benches}.get(SCALE_BENCH)
    if b is None or not b.found:
        note = f"no {SCALE_BENCH}.txt"
    elif not b.rows:
        note = f"no table in {SCALE_BENCH}.txt"
    else:
        note = None
    series = scale_series(b)
    width = SPW * len(SCALE_AXES)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{SPH}" viewBox="0 0 {width} {SPH}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="#fff"/>']
    for i, axis in enumerate(SCALE_AXES):
        out += scale_panel(SPW * i, axis, series.get(axis, {}), note)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_summary.py <out/bench folder>")
    folder = sys.argv[1]
    if not os.path.isdir(folder):
        sys.exit(f"bench_summary: no folder {folder}")
    names = {os.path.basename(p)[:-2] for p in glob.glob(os.path.join(BENCH_SRC, "*.c"))}
    names |= {os.path.basename(p)[:-4] for p in glob.glob(os.path.join(folder, "*.txt"))}
    names -= NOT_BENCH
    benches = [parse(os.path.join(folder, n + ".txt"), n) for n in sorted(names)]

    with open(os.path.join(folder, "cost.svg"), "w") as f:
        f.write(svg(benches))
    with open(os.path.join(folder, "scale.svg"), "w") as f:
        f.write(scale_svg(benches))
    with open(os.path.join(folder, "summary.md"), "w") as f:
        f.write(markdown(benches, *dmesg_kernel(folder)))

    for b in benches:
        if not b.found:
            print(f"bench: {b.name}: skipped, no {b.name}.txt")
        elif not b.rows:
            print(f"bench: {b.name}: no table (failed?)")
    print(f"bench: summary in {os.path.join(folder, 'summary.md')}, "
          f"plots in {os.path.join(folder, 'cost.svg')} and "
          f"{os.path.join(folder, 'scale.svg')}")


if __name__ == "__main__":
    main()
