"""``fhe-hw table karatsuba``: resources and Fmax of the Karatsuba-r multiplier on ECP5-85F
beside [Mig16] Table II, and the accelerator time of Table III (A) and (B) projected from
``cycles()``.

Rows: :data:`fhe_hw.karatsuba.configs.TABLE_ROWS`, synthesized through :mod:`fhe_hw.flow.synth`
(target ``ecp5-splitnets-map``). nextpnr places and routes the rows that fit: an LFE5U-85F has
156 MULT18X18D and each 27 x 27 digit multiplier takes four, so only Karatsuba-1 (25 digit
multipliers, 100 MULT18X18D) fits; for larger r the table gives the Yosys counts and the reason
nextpnr gave up.
"""

from ..flow.synth import ECP5_85F_DSP
from ..karatsuba.configs import (
    RECURSIONS,
    TABLE_ROWS,
    TOTAL,
    multiplier_params,
    relin_params,
)
from ..karatsuba.configs import row as table_row
from ..markdown import table as markdown_table
from ..model.karatsuba import hardware_cycles
from ..units import get_unit
from .common import ecp5_facts, synth_rows
from .pages import TableSpec
from .paper import P004_T2, P004_T3

__all__ = ["TABLE", "TABLES", "markdown", "projection", "row_key"]

PAPER_MHZ = P004_T3.extra["clock_mhz"]    # [Mig16] §III-D: the PCIe clock of Table III

#: [Mig16] Table II (DE5-net, Stratix V, balanced) and Table III's hardware accelerator row, from
#the : report's paper data.
PAPER = {r: {"alm": t2["alm"], "regs": t2["regs"], "dsp": t2["dsp"], "fmax": t2["fmax_mhz"],
             "hw_us": P004_T3.rows[r]["hw_us"]} for r, t2 in P004_T2.rows.items()}


def projection(r, fmax_mhz):
    """Accelerator cycles and times for one degree-2559 product (A) and one relinearization
    (B, l = 5 words): 3^(9-r) accelerator calls back to back, from ``cycles()``."""
    calls = 3 ** (TOTAL - r)
    a = get_unit("karatsuba").cycles(multiplier_params(r), products=calls)
    b = get_unit("karatsuba-relin").cycles(relin_params(r), groups=calls)
    out = {"calls": calls, "a_cycles": a, "b_cycles": b, "model_cycles": hardware_cycles(r)}
    for key, mhz in (("paper_clock", PAPER_MHZ), ("fmax", fmax_mhz)):
        out[key] = None if mhz is None else (a / mhz, b / mhz)
    return out


def _why(row):
    """Why a row has no Fmax, in a few words."""
    if "MULT18X18D" in row["pnr"]:
        return f"does not fit: {row['dsp']} of {ECP5_85F_DSP} MULT18X18D"
    return f"no P&R: {row['pnr']}"


def _us(value):
    return None if value is None else f"{value:.1f}"


def row_key(row):
    """The cells that identify configuration ``row`` in the first table (``r``, ``coeff
    bits``)."""
    return {"r": str(row.params["recursions"]), "coeff bits": str(row.params["coeff_bits"])}


def markdown(rows):
    fits, times = [], []
    for row in rows:
        p = PAPER.get(row["r"])
        paper = None if p is None else f"{p['alm']} / {p['regs']} / {p['dsp']} / {p['fmax']} MHz"
        fmax = f"{row['fmax_mhz']:.1f}" if row["fmax_mhz"] else f"— ({_why(row)})"
        fits.append([row["r"], row["coeff_bits"], row["multipliers"], row["lut"], row["ff"],
                     row["dsp"], row["bram"], fmax, paper])
        pr = row["projection"]
        at_fmax = pr["fmax"] or (None, None)
        times.append([row["r"], pr["calls"], pr["a_cycles"], _us(pr["paper_clock"][0]),
                      _us(at_fmax[0]), pr["b_cycles"], _us(pr["paper_clock"][1]),
                      _us(at_fmax[1]), None if p is None else f"{p['hw_us']} µs"])
    lines = [markdown_table(["r", "coeff bits", "27x27 mult.", "LUT", "FF", "DSP (MULT18X18D)",
                             "BRAM", "Fmax ECP5 (MHz)",
                             "[Mig16] Table II (DE5-net): ALM / reg. / DSP / Fmax"], fits),
             markdown_table(["r", "calls 3^(9-r)", "(A) cycles", "(A) µs @ 250 MHz",
                             "(A) µs @ Fmax", "(B) cycles (l = 5)", "(B) µs @ 250 MHz",
                             "(B) µs @ Fmax", "[Mig16] Table III accelerator (A) = (B)"],
                            times).rstrip("\n")]
    lines += ["", f"{ECP5_85F_DSP} MULT18X18D on the LFE5U-85F; out of context with "
              f"every port registered; LUT = LUT4 + 2 per CCU2C; distributed RAM "
              f"(TRELLIS_DPR16X4) not counted as LUT. Yosys with `splitnets` "
              f"before LUT mapping (YosysHQ/yosys#4349). Cycles from `KaratsubaMultiplier."
              f"cycles(3^(9-r))` / `KaratsubaRelinearizer(r, 5).cycles(3^(9-r))` (latency "
              f"included)."]
    return "\n".join(lines) + "\n"


def generate(args, progress):
    recursions = args.recursions or list(RECURSIONS)
    rows = [table_row(r) for r in recursions]
    results = synth_rows(rows, args, progress, pnr=not args.no_pnr)
    table = []
    for config, r in zip(rows, results):
        plan = get_unit("karatsuba").make_plan(config.params)
        item = {"r": plan.recursions, "coeff_bits": plan.coeff_bits,
                "multipliers": plan.layout.multipliers, "lut": r.lut, "ff": r.ff, "dsp": r.dsp,
                "bram": r.bram, "fmax_mhz": r.fmax_mhz, "pnr": r.pnr}
        item["projection"] = projection(item["r"], r.fmax_mhz)
        table.append(item)
    partial = args.no_pnr or list(recursions) != list(RECURSIONS)
    return markdown(table), {**ecp5_facts(results), "json": table, "partial": partial}


TABLE = TableSpec("karatsuba", "karatsuba.md", "Karatsuba-r multiplier on ECP5-85F", generate,
                  rows=tuple(TABLE_ROWS))
TABLES = {TABLE.name: TABLE}
