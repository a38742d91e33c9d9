"""Resources and Fmax of the streaming NTT engine `ntt` on ECP5-85F (issue 4: n = 1024 and 4096,
P = 1, 2, 4, modulus solinas64 = 2^64 - 2^32 + 1, the Wang–Huang prime of 002).

    python tools/ntt_streaming_table.py [--rows 1024:4 4096:1 ...] [--reuse] [--cached-only]
                                        [--router1 | --static] [--untiled] [--lanes L]
                                        [--jobs N]

Synthesizes, places and routes each configuration (``n:P``; all six without ``--rows``) out of
context with :func:`fhe_hw.synth.synthesize` (build directory
``build/synth/ntt-<params hash>-<target>``, whose ``synth.json`` ``--reuse`` reads back
instead of running the tools again, from either target), writes the Markdown rows to
``build/synth/ntt_streaming.md`` (and one JSON per row under ``build/synth/``), prints them
and puts each row into the README table that ends at the ``<!-- ntt-streaming-rows -->``
marker, replacing the row of the same (n, P) and keeping the others.

Yosys 0.70 (YoWASP) aborts on this design inside ABC9 with "Assert `count_id(wire->name) == 0'
failed" (YosysHQ/yosys#4349, Amaranth-generated multi-bit nets); the maintainers' workaround is to
run ``splitnets`` before mapping, which the ``fhe_hw.synth`` target ``ecp5-splitnets`` does (same
device, package, counting and nextpnr flow as ``ecp5``). By default rows are routed with
router2 (target ``ecp5-splitnets-router2``; the Fmax cell says "(router2)"): with the earlier
2P:1 crossbars, nextpnr's default router (router1) did not converge on n = 1024, P = 4 in
45 min. Since the crossbars are pair-structured, router1 routes all six rows, and the README's
rows are made with it (``--router1``, the flow of the butterfly rows of `tools/ntt_table.py`).
``--static`` places with nextpnr's electrostatic placer before router2 (target
``ecp5-splitnets-static``; with the earlier crossbars HeAP packed P = 4 into the upper rows and
router2 stalled there).
Every ModMul is built with both operands in 17-bit tiles (one MULT18X18D per registered partial
product; the Fmax cell says "tiled"), which raised Fmax by 18-34 % at P = 1 and 2; ``--untiled``
builds the plain multipliers.
"""

import argparse
import json
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from fhe_hw.synth import SynthResult, params_hash, synthesize
from fhe_hw.units import get_unit

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path("build", "synth", "ntt_streaming.md")
MARKER = "<!-- ntt-streaming-rows -->"
TARGET = "ecp5-splitnets-router2"
ROUTER1 = "ecp5-splitnets"
STATIC = "ecp5-splitnets-static"
SIZES = [(n, p) for n in (1024, 4096) for p in (1, 2, 4)]


def row_params(n, p, tiled=False, lanes=None):
    params = {"n": n, "butterflies": p, "modulus": "solinas64"}
    if tiled:
        params["tiled"] = True
    if lanes is not None:
        params["lanes"] = lanes
    return params


def _cached(params, target):
    return Path("build", "synth", f"ntt-{params_hash(params)}-{target}", "synth.json")


def synthesize_row(params, reuse=False, cached_only=False, target=TARGET):
    """(params, cycles(), SynthResult or None); None when ``cached_only`` and nothing stored."""
    unit = get_unit("ntt").build(**params)
    cycles = unit.cycles()
    for t in (target, TARGET, ROUTER1, STATIC):
        if reuse and _cached(params, t).exists():
            return params, cycles, SynthResult(**json.loads(_cached(params, t).read_text()))
    if cached_only:
        return params, cycles, None
    result = synthesize(unit, "ntt", target, params=params)
    tag = ("-tiled" if params.get("tiled") else "") + \
        (f"-lanes{params['lanes']}" if "lanes" in params else "")
    out = Path("build", "synth", f"ntt-n{params['n']}-p{params['butterflies']}{tag}.json")
    out.write_text(json.dumps(result.to_dict(), indent=2, default=str))
    return params, cycles, result


def markdown_row(params, cycles, r):
    """One row of the README table (n, P, cycles(), LUT, FF, DSP, BRAM, Fmax, µs at Fmax)."""
    notes = {TARGET: ["router2"], STATIC: ["router2", "static placer"]}.get(r.target, []) + \
        (["tiled"] if params.get("tiled") else []) + \
        ([f"{params['lanes']} lanes"] if "lanes" in params else [])
    router = f" ({', '.join(notes)})" if notes else ""
    return (f"| {params['n']} | {params['butterflies']} | {cycles} | {r.lut} | {r.ff} | "
            f"{r.dsp} | {r.bram} | {r.fmax_mhz}{router} | {cycles / r.fmax_mhz:.1f} |")


def merge_rows(text, rows):
    """README text with ``rows`` (Markdown lines starting ``| n | P |``) put into the table
    that ends at :data:`MARKER`: a row replaces the one of the same (n, P), the table stays
    sorted by (n, P). None when the marker is missing."""
    if MARKER not in text:
        return None
    head, tail = text.split(MARKER, 1)
    lines = head.rstrip("\n").split("\n")
    start = len(lines)
    while start > 0 and re.match(r"\| \d+ \| \d+ \|", lines[start - 1]):
        start -= 1
    key = lambda line: tuple(int(v) for v in line.split("|")[1:3])  # noqa: E731
    table = {key(line): line for line in lines[start:]}
    table.update({key(line): line for line in rows})
    merged = lines[:start] + [table[k] for k in sorted(table)]
    return "\n".join(merged) + "\n" + MARKER + tail


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", metavar="N:P",
                    help="only these configurations (default: all six)")
    ap.add_argument("--reuse", action="store_true", help="read existing synth.json files")
    ap.add_argument("--cached-only", action="store_true",
                    help="with --reuse: skip rows without a stored result")
    flow = ap.add_mutually_exclusive_group()
    flow.add_argument("--router1", action="store_true",
                      help=f"synthesize with {ROUTER1} (nextpnr's default router)")
    flow.add_argument("--static", action="store_true",
                      help=f"synthesize with {STATIC} (nextpnr's static placer, router2)")
    ap.add_argument("--untiled", action="store_true",
                    help="ModMuls without tiles (the default is StreamingNTT(tiled=True))")
    ap.add_argument("--lanes", type=int, default=None,
                    help="coefficients per stream beat (default 2P)")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    sizes = SIZES if not args.rows else [tuple(map(int, r.split(":"))) for r in args.rows]
    params = [row_params(n, p, not args.untiled, args.lanes) for n, p in sizes]
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        done = list(pool.map(synthesize_row, params, [args.reuse] * len(params),
                             [args.reuse and args.cached_only] * len(params),
                             [ROUTER1 if args.router1 else STATIC if args.static else TARGET]
                             * len(params)))
    rows = [markdown_row(*d) for d in done if d[2] is not None]
    text = "\n".join(rows)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text + "\n")
    print(text)
    print(f"wrote {OUTPUT} in {time.monotonic() - start:.0f} s")
    readme = Path("README.md")
    if rows and readme.exists():
        merged = merge_rows(readme.read_text(), rows)
        if merged is not None:
            readme.write_text(merged)
            print(f"updated {readme}")


if __name__ == "__main__":
    main()
