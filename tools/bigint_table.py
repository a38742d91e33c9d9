"""ECP5-85F synthesis of the Integer-FFT block multiplier (000 §3, Table 4) and the projected
time per CMNT encryption (000 Table 6) from the validated ``cycles()`` formula, beside the
paper's numbers and GMP (gmpy2) on this machine.

    python tools/bigint_table.py --synth ROW [ROW ...]   # one synthesis per row, in turn
    python tools/bigint_table.py --table                 # projection + gmpy2 timing, Markdown
    python tools/bigint_table.py --table --gmp-groups toy small

Rows: ``fermat32``, ``fermat64``, ``solinas64``, ``general32`` (the DESIGN §4 Integer-FFT table,
kb/2d = 8) and the reduced transforms that fit the LFE5U-85F's 156 MULT18X18D: ``fermat32-k16``
(k = 16, b = 14, d = 14, kb/2d = 8), ``fermat64-k8`` (k = 8, b = d = 24) and ``solinas64-k8``
(k = 8, b = d = 28; kb/2d = 4, the most a k = 8 transform allows with d ≥ b). Synthesis goes
through :func:`fhe_hw.synth.synthesize` with target ``ecp5-splitnets`` (``--target
ecp5-splitnets-router2`` routes with router2: router1 did not converge on solinas64-k8, 112k
arcs left after 24,000 iterations); when nextpnr cannot place a row (too many DSP tiles) the
Yosys cell counts from ``stat.json`` are kept and Fmax is left empty. Results accumulate in
``build/synth/bigint.json``; ``--table`` writes ``build/synth/bigint.md``.

GMP: :func:`fhe_hw.baselines.gmp_cmnt_encrypt` (gmpy2, the inner sum first: θ big products),
one run per group on this machine.

Projection: cycles per encryption = :meth:`CMNTEncrypt.cycles` (the sequencer formula, whose
parts are checked against simulation in tests/test_bigint_*.py) for a multiplier configuration,
divided by a measured Fmax. Only a configuration that placed and routed has a measured Fmax.
"""

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fhe_hw.baselines import gmp_cmnt_encrypt  # noqa: E402
from fhe_hw.bigint import CMNTEncrypt, IntegerFFTMultiplier  # noqa: E402
from fhe_hw.synth import count_resources, read_yosys_stat, synthesize  # noqa: E402

OUT = Path("build", "synth", "bigint.json")
ROWS = {
    "fermat32": dict(modulus="fermat32", k=64, b=8),
    "fermat64": dict(modulus="fermat64", k=128, b=24),
    "solinas64": dict(modulus="solinas64", k=128, b=28),
    "general32": dict(modulus="general32", k=64, b=12),
    "fermat32-k16": dict(modulus="fermat32", k=16, b=14),
    "fermat64-k8": dict(modulus="fermat64", k=8, b=24, bus_width=24),
    "solinas64-k8": dict(modulus="solinas64", k=8, b=28, bus_width=28),
}
MAX_BITS = 1 << 20
#: 000 Table 6 (Solinas multiplier, Virtex-7, 166.45 MHz) and its software column (DESIGN §4).
PAPER = {"toy": (0.000815, 0.05), "small": (0.0130, 0.79), "medium": (0.221, 10.0),
         "large": (3.958, 177.0)}


def load():
    return json.loads(OUT.read_text()) if OUT.exists() else {}


def synth_row(name, target="ecp5-splitnets"):
    params = dict(ROWS[name], max_bits=MAX_BITS)
    unit = IntegerFFTMultiplier(**params)
    record = {"params": params, "k": unit.k, "b": unit.b, "d": unit.bus_width,
              "words_per_block": unit.words_per_block, "pipeline": unit.pipeline_latency}
    build_dir = Path("build", "synth", f"integer-fft-mul-{name}"
                     + ("" if target == "ecp5-splitnets" else f"-{target}"))
    start = time.monotonic()
    try:
        r = synthesize(unit, "integer-fft-mul", target, params=params, build_dir=build_dir)
        record.update(lut=r.lut, ff=r.ff, dsp=r.dsp, bram=r.bram, fmax_mhz=r.fmax_mhz,
                      placed=True)
    except RuntimeError as e:
        record.update(placed=False, error=str(e)[-400:])
        stat = build_dir / "stat.json"
        if stat.exists():
            record.update(count_resources(read_yosys_stat(stat), target))
    record["runtime_s"] = round(time.monotonic() - start, 1)
    record["target"] = target
    results = load()
    results[name] = record
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=2))
    print(json.dumps({name: record}))


def table(gmp_groups):
    results = load()
    placed = {n: r for n, r in results.items() if r.get("placed")}
    lines = ["| row | k | b | d | LUT | FF | MULT18X18D | Fmax (MHz) | placed |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['k']} | {r['b']} | {r['d']} | {r.get('lut', '—')} | "
                     f"{r.get('ff', '—')} | {r.get('dsp', '—')} | "
                     f"{r.get('fmax_mhz', '—') if r.get('placed') else 'not measured'} | "
                     f"{'yes' if r.get('placed') else 'no (nextpnr failed)'} |")
    lines += ["", "| group | config | schedule | cycles (formula) | time at measured Fmax | "
              "000 Table 6 | 000 software | gmpy2 here |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    configs = ["solinas64"] + list(placed)
    for group in ("toy", "small", "medium", "large"):
        gmp = gmp_cmnt_encrypt(group, repeat=1)["median_s"] if group in gmp_groups else None
        for cname in dict.fromkeys(configs):
            for schedule in ("paper", "factored"):
                unit = CMNTEncrypt(group, schedule, **ROWS[cname])
                cyc = unit.cycles()
                r = results.get(cname, {})
                t = (f"{cyc / (r['fmax_mhz'] * 1e6):.4g} s at {r['fmax_mhz']} MHz"
                     if r.get("placed") else "Fmax not measured")
                paper, soft = PAPER[group]
                gtxt = "not run" if gmp is None else f"{gmp:.4g} s"
                lines.append(f"| {group} | {cname} | {schedule} | {cyc} | {t} | {paper} s | "
                             f"{soft} s | {gtxt} |")
                print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    Path("build", "synth", "bigint.md").write_text(text)
    print(text)


def main(argv=None):
    warnings.filterwarnings("ignore", message=".*created but never used")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synth", nargs="*", choices=list(ROWS), default=[])
    ap.add_argument("--target", default="ecp5-splitnets", choices=["ecp5-splitnets",
                                                                  "ecp5-splitnets-router2"],
                    help="synthesis target of --synth (router2: nextpnr's other router)")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--gmp-groups", nargs="*", default=["toy", "small", "medium"])
    args = ap.parse_args(argv)
    for name in args.synth:
        synth_row(name, args.target)
    if args.table:
        table(args.gmp_groups)
    return 0


if __name__ == "__main__":
    sys.exit(main())
