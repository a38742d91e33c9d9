"""``fhe-hw table bigint``: projected time per CMNT encryption ([Cao13] Table 6) from the validated
``CMNTEncryptPlan.cycles()`` formula and the measured Fmax of the multiplier configuration that
places and routes on ECP5-85F, beside the paper's numbers and GMP (gmpy2) on this machine.

Rows: :mod:`fhe_hw.bigint.configs` (:data:`~fhe_hw.bigint.configs.PROJECTED` configurations,
:data:`~fhe_hw.bigint.configs.TABLE_ROWS` synthesized through :mod:`fhe_hw.flow.synth`). GMP:
:func:`fhe_hw.bench.baselines.gmp_cmnt_encrypt` (the inner sum first, median of 3 runs); the large
group (19 Mbit keys, minutes per run) is left "not run".
"""

import warnings

from ..bench.baselines import gmp_cmnt_encrypt
from ..bigint import CMNTEncryptPlan
from ..bigint.configs import GROUPS, MULTIPLIERS, PROJECTED, TABLE_ROWS
from ..markdown import table as markdown_table
from .common import ecp5_facts, synth_rows
from .pages import TableSpec
from .paper import P000_T6

__all__ = ["TABLE", "TABLES", "PAPER", "markdown"]

#: [Cao13] Table 6 (Solinas multiplier, Virtex-7, 166.45 MHz) and its software column, seconds, from
#: the report's paper data.
PAPER = {g: (P000_T6.rows["CMNT 2^64-2^32+1"][g], P000_T6.rows["CMNT software [8]"][g])
         for g in GROUPS}
#: Groups GMP is timed for (the large group takes minutes).
GMP_GROUPS = ("toy", "small", "medium")


def _config(name):
    p = MULTIPLIERS[name]
    return f"{p['modulus']} k={p['n']} b={p['digit_bits']}"


def markdown(fmax, gmp):
    """``fmax``: config name -> measured MHz; ``gmp``: group -> seconds (or missing)."""
    cells = []
    for group in GROUPS:
        first = True
        for name in PROJECTED:
            for schedule in ("paper", "factored"):
                cyc = CMNTEncryptPlan(group, schedule, **MULTIPLIERS[name]).cycles()
                mhz = fmax.get(name)
                time = f"{cyc / (mhz * 1e6):.4g} s" if mhz else "Fmax not measured"
                paper, soft = (f"{t} s" for t in PAPER[group]) if first else ("", "")
                g = gmp.get(group)
                gtxt = (f"{g:.3g} s" if g is not None else "not run") if first else ""
                cells.append([group, _config(name), schedule, f"{cyc:,}", time, paper, soft,
                              gtxt])
                first = False
    lines = [markdown_table(["group", "config", "schedule", "cycles (formula)",
                             "time at measured Fmax", "[Cao13] Table 6 (Virtex-7, 166.45 MHz)",
                             "[Cao13] software", "GMP here"], cells).rstrip("\n")]
    measured = ", ".join(f"{_config(n)} at {m} MHz" for n, m in fmax.items() if m)
    lines += ["", f"Measured Fmax: {measured or 'none'}."]
    return "\n".join(lines) + "\n"


def generate(args, progress):
    warnings.filterwarnings("ignore", message=".*created but never used")

    rows = list(TABLE_ROWS.values())
    results = synth_rows(rows, args, progress)
    fmax = {name: r.fmax_mhz for name, r in zip(TABLE_ROWS, results)}
    gmp = {}
    for group in GMP_GROUPS:
        progress(f"GMP CMNT encryption, {group} group")
        gmp[group] = gmp_cmnt_encrypt(group, repeat=3)["median_s"]
    return markdown(fmax, gmp), {**ecp5_facts(results),
                                 "json": {"synth": [r.to_dict() for r in results], "gmp": gmp}}


TABLE = TableSpec("bigint", "bigint.md", "CMNT encryption time: cycles, Fmax, GMP", generate,
                  rows=tuple(TABLE_ROWS.values()))
TABLES = {TABLE.name: TABLE}
