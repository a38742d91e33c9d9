"""RNS base extension tables (003_dfcf78a4748f5e5b.txt §4.1.3, §4.2): iteration counts beside
003 Table 4.6 and ECP5-85F resources beside 003 Tables 4.8–4.9 (4.7 does not fit).

    python tools/rns_table.py [--iterations-only] [--jobs N] [--only INDEX ...] [--reuse]

* Iterations: :meth:`cycles` of every engine at the three parameter sets of Table 4.6 (computed
  from the engines' formulas, which the pysim tests check against simulation), the paper's
  Table 4.5 count, and the multi-target Shenoy–Kumaresan variant (``targets_per_pass = k``)
  with its multiplier count.
* Synthesis: each row of :data:`SYNTH_ROWS` through :func:`fhe_hw.synth.synthesize` (YoWASP
  Yosys + nextpnr-ecp5, out of context), with CC = cycles per target residue (the paper's
  Tables 4.7–4.9 give the time "for computing a single new residue"), Time = CC / Fmax and
  ATP = Time · (LUT + FF/2 + 100·DSP + 300·BRAM) (DESIGN §4).

Writes ``build/synth/rns.md`` and replaces the text between ``<!-- rns-table:begin -->`` and
``<!-- rns-table:end -->`` in README.md when both markers are there.
"""

import argparse
import json
import os
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from readme_block import update  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amaranth.hdl import UnusedElaboratable  # noqa: E402

from fhe_hw import synth  # noqa: E402
from fhe_hw.rns import (  # noqa: E402
    FastBaseConversion,
    Kawamura,
    MixedRadix,
    ShenoyKumaresan,
    default_bases,
)
from fhe_hw.units import get_unit, top_name  # noqa: E402

warnings.filterwarnings("ignore", category=UnusedElaboratable)

OUTPUT = Path("build", "synth", "rns.md")

#: 003 Table 4.6: (N, TP, l) and the paper's iteration counts per architecture.
TABLE_4_6 = {
    (2**16, 32, 17): {"SK pipelined": 628736, "SK folded": 661504, "Cox-Rower": 1179648,
                      "MRC pipelined": 65536, "MRC iterative": 1179648},
    (2**14, 32, 7): {"SK pipelined": 29184, "SK folded": 32256, "Cox-Rower": 131072,
                     "MRC pipelined": 16384, "MRC iterative": 131072},
    (2**12, 64, 4): {"SK pipelined": 1344, "SK folded": 1536, "Cox-Rower": 20480,
                     "MRC pipelined": 4096, "MRC iterative": 20480},
}

#: Synthesized configurations: (unit, options). 32-bit primes; N = 2^12, l = k = 30 is the
#: parameter set of 003 Table 4.9, N = 2^14, l = 7 that of Table 4.8 (Table 4.7's N = 2^16
#: needs 3 banks of 2 Mbit, more block RAM than the ECP5-85F's 208 DP16KD hold at TP = 1).
#: The primes are ≡ 1 mod 2^17 (``prime_n`` = 2^16, valid NTT primes for N = 2^12 too): the
#: Montgomery word is then 17, two rounds of 15×17 bits, 6 MULT18X18D per multiplier; with
#: primes ≡ 1 mod 2^13 only, TP = 8 needs 169 of the 156 MULT18X18D.
SYNTH_ROWS = [
    ("shenoy-kumaresan", {"bits": 32, "n": 4096, "l": 30, "k": 30, "tp": tp,
                          "architecture": "folded", "prime_n": 2**16}) for tp in (1, 4, 8)
] + [
    ("shenoy-kumaresan", {"bits": 32, "n": 4096, "l": 30, "k": 30, "tp": tp,
                          "architecture": "pipelined", "prime_n": 2**16}) for tp in (1, 4)
] + [
    ("kawamura", {"bits": 32, "n": 4096, "l": 4, "k": 4, "rho": 8, "prime_n": 2**16}),
    ("mixed-radix", {"bits": 32, "n": 4096, "l": 4, "k": 4, "architecture": "iterative",
                     "prime_n": 2**16}),
    ("fast-base-conversion", {"bits": 32, "n": 4096, "l": 30, "k": 30, "tp": 4,
                              "prime_n": 2**16}),
] + [
    # 003 Table 4.8's parameter set, log N = 14, l = 7 (3 banks of 16384 words fit).
    ("shenoy-kumaresan", {"bits": 32, "n": 16384, "l": 7, "k": 7, "tp": tp,
                          "architecture": "folded", "prime_n": 2**16}) for tp in (1, 4, 8)
]

#: 003 Tables 4.8 and 4.9 (32-bit rows; folded, Alveo U280, Vivado 2022.2): (table, log N, l)
#: -> TP -> (LUT, FF, BRAM36, DSP, Fmax MHz, CC, Time µs, ATP ×10^6).
PAPER = {
    ("4.8", 14, 7): {1: (1800, 3600, 48, 15, 500.00, 147456, 294.91, 5.75),
                     16: (20700, 35500, 48, 240, 476.19, 9216, 19.35, 1.49),
                     64: (70000, 136900, 96, 960, 370.37, 2304, 6.22, 1.64)},
    ("4.9", 12, 30): {1: (3000, 6700, 12, 21, 512.82, 131072, 255.59, 3.09),
                      16: (24200, 41700, 24, 336, 476.19, 8192, 17.20, 1.48),
                      64: (80700, 153800, 96, 1344, 361.01, 2048, 5.67, 1.82)},
}


def iteration_rows():
    """(parameter set, architecture, cycles(), Table 4.5 count, paper Table 4.6, MM)."""
    rows = []
    for (n, tp, l), paper in TABLE_4_6.items():
        source, target, red = default_bases(32, n, l, l, redundant=True)
        ks, kt = default_bases(32, n, l, l, source_high=True)
        units = {
            "SK pipelined": ShenoyKumaresan(source, target, red, n, tp, "pipelined"),
            "SK folded": ShenoyKumaresan(source, target, red, n, tp, "folded"),
            "Cox-Rower": Kawamura(ks, kt, n, 16, _kawamura_delta(l)),
            "MRC pipelined": MixedRadix(source, target, n, "pipelined"),
            "MRC iterative": MixedRadix(source, target, n, "iterative"),
        }
        for arch, unit in units.items():
            rows.append((f"N=2^{n.bit_length() - 1}, TP={tp}, l={l}", arch, unit.cycles(),
                         unit.paper_iterations(), paper[arch], unit.arithmetic_units["MM"]))
        multi = ShenoyKumaresan(source, target, red, n, tp, "folded", targets_per_pass=l)
        rows.append((f"N=2^{n.bit_length() - 1}, TP={tp}, l={l}", f"SK folded, t = k = {l}",
                     multi.cycles(), multi.io_bound(), None, multi.arithmetic_units["MM"]))
        fbc = FastBaseConversion(source, target, n, tp, targets_per_pass=l)
        rows.append((f"N=2^{n.bit_length() - 1}, TP={tp}, l={l}", f"fast base conv., t = {l}",
                     fbc.cycles(), None, None, fbc.arithmetic_units["MM"]))
    return rows


def _kawamura_delta(l):
    """A δ that satisfies the bound for l 32-bit source primes near 2^32 with ρ = 16."""
    from fractions import Fraction
    return Fraction(1, 4) if l > 8 else Fraction(1, 8)


def iteration_markdown(rows):
    lines = ["| parameters | architecture | `cycles()` | Table 4.5 formula (t = k: I/O bound "
             "N(l+1+k)/TP) | 003 Table 4.6 | MM |",
             "| --- | --- | --- | --- | --- | --- |"]
    for params, arch, cycles, formula, paper, mm in rows:
        lines.append(f"| {params} | {arch} | {cycles} | {'—' if formula is None else formula} "
                     f"| {'—' if paper is None else paper} | {mm} |")
    return "\n".join(lines) + "\n"


def synthesize_row(row, reuse=False):
    """Synthesize one row. Yosys 0.70's ABC9 step asserts (``count_id(wire->name) == 0`` in
    ABC_OPS_REINTEGRATE; YosysHQ/yosys#4349) on these engines; the workaround given there,
    ``splitnets`` before LUT mapping, is applied by running ``synth_ecp5`` in two halves around
    it (this process only; :data:`fhe_hw.synth.TARGETS` is left alone elsewhere)."""
    name, params = row
    unit = get_unit(name).build(**params)
    cycles = unit.cycles() // len(unit.target)
    done = Path("build", "synth", f"{name}-{synth._params_hash(params)}-ecp5", "synth.json")
    if reuse and done.exists():
        return name, params, cycles, unit.arithmetic_units, \
            synth.SynthResult(**json.loads(done.read_text()))
    top = top_name(f"{name}-ooc")
    synth.TARGETS["ecp5"] = replace(
        synth.TARGETS["ecp5"],
        synth=f"synth_ecp5 -top {top} -run :map_luts; splitnets; synth_ecp5 -run map_luts:")
    result = synth.synthesize(unit, name, "ecp5", params=params)
    return name, params, cycles, unit.arithmetic_units, result


def synth_markdown(results):
    lines = ["| unit | params | MM | LUT | FF | DSP | BRAM (DP16KD) | Fmax (MHz) | CC / k "
             "| Time (µs) | ATP (×10^6) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, params, cc, au, r in results:
        shown = ", ".join(f"{k}={v}" for k, v in params.items() if k not in ("bits", "prime_n"))
        t_us = cc / r.fmax_mhz
        atp = t_us * (r.lut + r.ff / 2 + 100 * r.dsp + 300 * r.bram) / 1e6
        lines.append(f"| `{name}` | {shown} | {au['MM']} | {r.lut} | {r.ff} | {r.dsp} | {r.bram} "
                     f"| {r.fmax_mhz:.1f} | {cc} | {t_us:.2f} | {atp:.2f} |")
    lines += ["", "003 Tables 4.8 and 4.9, 32-bit rows (folded; Alveo U280, Vivado; BRAM are "
              "36 kbit RAMB36, DSP48E2 27×18). Table 4.7 (log N = 16, l = 17) has no ECP5 "
              "row: its three banks of 65536 32-bit words need 384 DP16KD, the ECP5-85F has "
              "208.", "",
              "| table | log N, l | TP | LUT | FF | BRAM36 | DSP | Fmax (MHz) | CC | Time (µs) "
              "| ATP (×10^6) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (table, log_n, l), rows in PAPER.items():
        for tp, (lut, ff, bram, dsp, fmax, cc, t_us, atp) in rows.items():
            lines.append(f"| {table} | {log_n}, {l} | {tp} | {lut} | {ff} | {bram} | {dsp} "
                         f"| {fmax} | {cc} | {t_us} | {atp} |")
    if results:
        first = results[0][4]
        seconds = sum(r.runtime_s["total"] for *_, r in results)
        lines += ["", f"ECP5 LFE5U-85F (`--{first.device}`, {first.package}), out of context, "
                  "every port registered (Yosys `splitnets` before LUT mapping, "
                  "YosysHQ/yosys#4349); LUT = LUT4 + 2 per CCU2C, DSP = MULT18X18D, Fmax from "
                  f"nextpnr at a {first.freq_target_mhz:g} MHz target. 32-bit NTT primes "
                  "q ≡ 1 mod 2^17 (`prime_n` = 2^16: Montgomery word 17); Kawamura and "
                  "mixed-radix at l = k = 4 (their multiplier count grows with l). CC / k = "
                  "`cycles()` of a whole conversion over its k target residues (003 gives the "
                  "time per new residue); Time = (CC / k) / Fmax; ATP = Time · (LUT + FF/2 + "
                  "100·DSP + 300·BRAM). Generated by `python tools/rns_table.py` (synthesis "
                  f"{seconds:.0f} s on a shared 2-core machine)."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="parallel synthesis runs")
    parser.add_argument("--iterations-only", action="store_true", help="skip synthesis")
    parser.add_argument("--reuse", action="store_true",
                        help="take a row's synth.json from an earlier run of the same "
                             "parameters instead of synthesizing again")
    parser.add_argument("--only", nargs="*", type=int, default=None,
                        help="indices into SYNTH_ROWS to synthesize")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    block = "Iteration counts (`cycles()`, first input to last output, k = l):\n\n"
    block += iteration_markdown(iteration_rows())
    if not args.iterations_only:
        rows = SYNTH_ROWS if args.only is None else [SYNTH_ROWS[i] for i in args.only]
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(synthesize_row, rows, [args.reuse] * len(rows)))
        block += "\nECP5-85F synthesis:\n\n" + synth_markdown(results)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(block)
    print(block, end="")
    print(f"wrote {OUTPUT}")
    if not args.iterations_only and args.only is None:
        update("README.md", "rns-table", block)


if __name__ == "__main__":
    main()
