"""Resources and Fmax of the NTT units on ECP5-85F (issue 4: the shift-only units and one
butterfly per modulus; 001 §3.2 / Table 2, 002 §IV-A/B).

    python tools/ntt_table.py [--jobs N] [--reuse] [--only SUBSTRING]

Synthesizes, places and routes each row of :data:`ROWS` out of context with
:func:`fhe_hw.synth.synthesize` (build directory ``build/synth/<unit>-<params hash>-ecp5``, whose
``synth.json`` ``--reuse`` reads back instead of running the tools again), writes a Markdown table
to ``build/synth/ntt.md`` and puts it between the ``<!-- ntt-table:begin -->`` and
``<!-- ntt-table:end -->`` markers of README.md when both are there. A row without a result in
this run (``--reuse --cached-only``) keeps its measured line from README.md.

Other NTT units add their rows to :data:`ROWS` (one ``(unit, params, note[, targets])`` per
row).
"""

import argparse
import json
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from readme_block import update

from fhe_hw.params import SOLINAS64
from fhe_hw.synth import SynthResult, params_hash, synthesize
from fhe_hw.units import get_unit

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path("build", "synth", "ntt.md")
TAG = "ntt-table"
MARKERS = (f"<!-- {TAG}:begin -->", f"<!-- {TAG}:end -->")
TARGET = "ecp5"
#: Yosys 0.70 (YoWASP) aborts on some Amaranth designs inside ABC9 with "Assert
#: `count_id(wire->name) == 0' failed" (YosysHQ/yosys#4349); the maintainers' workaround is
#: ``splitnets`` before mapping. Rows that hit it are rerun with this target (same device,
#: package, counting and nextpnr flow), and the table says so.
FALLBACK = "ecp5-splitnets"
#: nextpnr's electrostatic placer and router2 after splitnets: for the shift-only units, which
#: HeAP + router1/router2 left unrouted (see the README).
STATIC = "ecp5-splitnets-static"
_FLAGS = {FALLBACK: " (splitnets)", STATIC: " (splitnets, static placer)"}

#: 2^25 - 2^73 mod p: the primitive 128th root of DESIGN §4, a two-term shift twiddle.
_SOLINAS_ROOT_128 = ((1 << 25) - (1 << 73)) % SOLINAS64

#: (unit, params, note). The three shift-only units of issue 4 first, then one run-time-twiddle
#: butterfly per 001 Table 2 modulus.
ROWS = [
    ("shift-ntt", {"points": 64, "lanes": 8}, "shift-only radix-64 unit (002 §IV-A)"),
    ("shift-ntt", {"points": 64, "lanes": 2},
     "shift-only radix-64 unit, 2 lanes (a quarter of the paper's rate)", (STATIC,)),
    ("shift-ntt", {"points": 64, "lanes": 1},
     "shift-only radix-64 unit, 1 lane (an eighth of the paper's rate)", (STATIC,)),
    ("shift-ntt", {"points": 16, "lanes": 16}, "shift-only radix-16 unit (002 §IV-B)",
     (STATIC,)),
    ("butterfly", {"modulus": "fermat32", "twiddle": 2},
     "shift-only butterfly, ω = 2 (001 §3.2)"),
    ("butterfly", {"modulus": "fermat64", "twiddle": 2},
     "shift-only butterfly, ω = 2 (001 §3.2)"),
    ("butterfly", {"modulus": "solinas64", "twiddle": _SOLINAS_ROOT_128},
     "shift-only butterfly, ω = 2^25 - 2^73 (two shifts)"),
    ("butterfly", {"modulus": "fermat32"}, "run-time twiddles"),
    ("butterfly", {"modulus": "fermat64"}, "run-time twiddles"),
    ("butterfly", {"modulus": "solinas64"}, "run-time twiddles"),
    ("butterfly", {"modulus": "general32"}, "run-time twiddles"),
    ("butterfly", {"modulus": "fermat64", "tiled": True}, "run-time twiddles, tiled ModMul"),
    ("butterfly", {"modulus": "solinas64", "tiled": True}, "run-time twiddles, tiled ModMul"),
    ("parallel-ntt", {"k": 16, "modulus": "fermat32"}, "fully parallel, all shifts"),
]


def _build_dir(name, params, target):
    return Path("build", "synth", f"{name}-{params_hash(params)}-{target}")


def synthesize_row(row, reuse=False, cached_only=False):
    """(row, SynthResult or None, cycles() or None, target used); with ``cached_only`` a row
    without a stored result is not synthesized (its result is None). A row's targets are
    :data:`TARGET` then :data:`FALLBACK`, or the fourth element of its :data:`ROWS` entry."""
    name, params = row[:2]
    targets = row[3] if len(row) > 3 else (TARGET, FALLBACK)
    unit = get_unit(name).build(**params)
    cycles = unit.cycles() if hasattr(unit, "cycles") else None
    for target in targets:
        cached = _build_dir(name, params, target) / "synth.json"
        if reuse and cached.exists():
            return row, SynthResult(**json.loads(cached.read_text())), cycles, target
    if cached_only:
        return row, None, cycles, None
    for target in targets[:-1]:
        try:
            return row, synthesize(unit, name, target, params=params), cycles, target
        except RuntimeError as error:
            if "count_id" not in str(error):
                raise
        unit = get_unit(name).build(**params)
    return row, synthesize(unit, name, targets[-1], params=params), cycles, targets[-1]


def _shown(params):
    return ", ".join(f"{k}={v:#x}" if isinstance(v, int) and v > 1 << 16 else f"{k}={v}"
                     for k, v in params.items())


#: Rows without a routed result on the ECP5-85F, with the reason shown instead of numbers.
DOES_NOT_FIT = {
    ("shift-ntt", "points=64, lanes=8"):
        "does not fit (nextpnr: TRELLIS_COMB 108,261 / 83,640 = 129 %)",
    ("shift-ntt", "points=64, lanes=2"):
        "fits, not routed: Yosys 53,087 LUT (51,837 LUT4 + 2 x 625 CCU2C), 23,323 FF, 0 DSP; "
        "static placer + router2: 100k overused wires at iteration 2, about 4 min per "
        "iteration, stopped",
    ("shift-ntt", "points=64, lanes=1"):
        "fits, not routed: Yosys 49,507 LUT (48,879 LUT4 + 2 x 314 CCU2C), 21,430 FF, 0 DSP; "
        "static placer + router2: 70k overused wires at iteration 3, about 7 min per "
        "iteration, stopped",
}


def _row_key(line):
    """(unit, params) of a table row, e.g. ("shift-ntt", "points=64, lanes=8")."""
    cells = [c.strip() for c in line.split("|")[1:3]]
    return cells[0].strip("`"), cells[1]


def previous_rows(text):
    """The measured rows of the README block, by (unit, params): kept for rows that have no
    stored result in this run (``--cached-only``), so a partial rerun does not erase them."""
    pattern = re.compile(re.escape(MARKERS[0]) + "(.*?)" + re.escape(MARKERS[1]), re.S)
    found = pattern.search(text)
    if not found:
        return {}
    rows = {_row_key(line): line for line in found.group(1).splitlines()
            if line.startswith("| `") and "not synthesized" not in line
            and "does not fit" not in line}
    footer = [line for line in found.group(1).splitlines() if line.startswith("ECP5")]
    if footer:
        rows[FOOTER] = footer[0]
    return rows


FOOTER = ("", "footer")


def markdown(rows, seconds, previous=None):
    previous = previous or {}
    lines = ["| unit | params | what | latency | cycles() | LUT | FF | DSP | Fmax (MHz) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    kept_seconds = 0
    if FOOTER in previous:
        found = re.search(r"tool time of the rows (\d+) s", previous[FOOTER])
        kept_seconds = int(found.group(1)) if found else 0
    for (name, params, note, *_), r, cycles, target in rows:
        if r is None:
            key = (name, _shown(params))
            if key in previous:
                lines.append(previous[key])
                continue
            why = DOES_NOT_FIT.get(key, "not synthesized")
            lines.append(f"| `{name}` | {_shown(params)} | {note} | | "
                         f"{'' if cycles is None else cycles} | {why} | | | |")
            continue
        flag = _FLAGS.get(target, "")
        latency = "" if r.latency is None else r.latency
        lines.append(f"| `{name}` | {_shown(params)} | {note}{flag} | {latency} | "
                     f"{'' if cycles is None else cycles} | {r.lut} | {r.ff} | {r.dsp} | "
                     f"{r.fmax_mhz:.1f} |")
    first = next((r for _, r, _, _ in rows if r is not None), None)
    if first is None:
        return "\n".join(lines + ([""] + [previous[FOOTER]] if FOOTER in previous else [])) \
            + "\n"
    tool_seconds = kept_seconds + sum(r.runtime_s.get("total", 0)
                                      for _, r, _, _ in rows if r is not None)
    nextpnr = re.search(r"Version (nextpnr-[\w.]+)", first.tools["nextpnr"])
    yosys = first.tools["yosys"].split(" (")[0]
    lines += ["", f"ECP5 LFE5U-85F (nextpnr `--{first.device}`) {first.package}, out of context "
              f"with every port registered; LUT = LUT4 + 2 per CCU2C, DSP = MULT18X18D, Fmax "
              f"from nextpnr at a {first.freq_target_mhz:g} MHz target. {yosys}, "
              f"{nextpnr.group(1) if nextpnr else 'nextpnr'}. (splitnets): Yosys ABC9 "
              f"aborts on that design (YosysHQ/yosys#4349), so it ran `hierarchy; proc; "
              f"flatten; splitnets; synth_ecp5`. (static placer): placed by nextpnr's "
              f"`--placer static` and routed by `--router router2`. Generated by `python "
              f"tools/ntt_table.py` "
              f"(tool time of the rows {tool_seconds:.0f} s on a shared 2-core machine; this "
              f"run {seconds:.0f} s)."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="parallel runs")
    parser.add_argument("--reuse", action="store_true", help="read existing synth.json files")
    parser.add_argument("--only", default=None, help="rows whose unit/params contain this")
    parser.add_argument("--cached-only", action="store_true",
                        help="with --reuse: list rows without a stored result as not synthesized")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    rows = [r for r in ROWS if args.only is None or args.only in f"{r[0]} {_shown(r[1])}"]
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        done = list(pool.map(synthesize_row, rows, [args.reuse] * len(rows),
                             [args.reuse and args.cached_only] * len(rows)))
    readme = Path("README.md")
    previous = previous_rows(readme.read_text()) if readme.exists() else {}
    table = markdown(done, time.monotonic() - start, previous)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(table)
    print(table, end="")
    print(f"wrote {OUTPUT}")
    if args.only is None:
        update(readme, TAG, table)


if __name__ == "__main__":
    main()
