"""``fhe-hw table rns``: RNS base extension iteration counts beside [Kir25] Table 4.6 and ECP5-85F
resources beside [Kir25] Tables 4.8–4.9 (4.7 does not fit).

* Iterations: ``cycles()`` of every engine at the three parameter sets of Table 4.6
  (:data:`fhe_hw.rns.configs.ITERATION_SETS`; the engines' formulas, which the pysim tests
  check against simulation), the paper's Table 4.5 count, and the multi-target
  Shenoy–Kumaresan variant (``targets_per_pass = k``) with its multiplier count.
* Synthesis: each row of :data:`fhe_hw.rns.configs.SYNTH_TABLE` through :mod:`fhe_hw.flow.synth`,
  with CC = cycles per target residue (the paper's Tables 4.7–4.9 give the time "for
  computing a single new residue"), Time = CC / Fmax and ATP = Time · (LUT + FF/2 + 100·DSP +
  300·BRAM).
"""

import warnings

from amaranth.hdl import UnusedElaboratable

from ..markdown import table as markdown_table
from ..rns import FastBaseConversion, Kawamura, MixedRadix, ShenoyKumaresan, default_bases
from ..rns.configs import ITERATION_SETS, SIDE_BY_SIDE_TABLE, SYNTH_TABLE
from ..units import get_unit
from .common import ecp5_facts, flow_cell, synth_rows
from .pages import TableSpec
from .paper import P003_T4_6, P003_T4_8, P003_T4_9

__all__ = ["TABLE", "SIDE_BY_SIDE", "TABLES", "iteration_rows", "iteration_markdown",
           "synth_markdown", "row_key", "side_by_side_key"]

warnings.filterwarnings("ignore", category=UnusedElaboratable)

#: [Kir25] Tables 4.8 and 4.9, 32-bit rows (folded, Alveo U280, Vivado 2022.2), from the report's
#: paper data: (table, log N, l) -> TP -> the paper's utilization.
PAPER = {(t.table.split()[-1], t.extra["n"].bit_length() - 1, t.extra["l"]):
         {tp: row for (bits, tp), row in t.rows.items() if bits == 32}
         for t in (P003_T4_8, P003_T4_9)}


def iteration_rows():
    """(parameter set, architecture, cycles(), Table 4.5 count, paper Table 4.6, MM)."""
    rows = []
    for n, tp, l in ITERATION_SETS:
        paper = P003_T4_6.rows[(n, tp, l)]
        source, target, red = default_bases(32, n, l, l, redundant=True)
        bases = {"source_primes": source, "target_primes": target}
        sk = {**bases, "n": n, "lanes": tp, "redundant_prime": red}
        units = {
            "SK pipelined": ShenoyKumaresan(**sk, architecture="pipelined"),
            "SK folded": ShenoyKumaresan(**sk, architecture="folded"),
            "Cox-Rower": Kawamura(prime_bits=32, n=n, source_limbs=l, target_limbs=l, rho=16,
                                  delta=_kawamura_delta(l)),
            "MRC pipelined": MixedRadix(**bases, n=n, architecture="pipelined"),
            "MRC iterative": MixedRadix(**bases, n=n, architecture="iterative"),
        }
        for arch, unit in units.items():
            rows.append((f"N=2^{n.bit_length() - 1}, TP={tp}, l={l}", arch, unit.cycles(),
                         unit.paper_iterations(), paper[arch], unit.arithmetic_units["MM"]))
        multi = ShenoyKumaresan(**sk, architecture="folded", targets_per_pass=l)
        rows.append((f"N=2^{n.bit_length() - 1}, TP={tp}, l={l}", f"SK folded, t = k = {l}",
                     multi.cycles(), multi.io_bound(), None, multi.arithmetic_units["MM"]))
        fbc = FastBaseConversion(**bases, n=n, lanes=tp, targets_per_pass=l)
        rows.append((f"N=2^{n.bit_length() - 1}, TP={tp}, l={l}", f"fast base conv., t = {l}",
                     fbc.cycles(), None, None, fbc.arithmetic_units["MM"]))
    return rows


def _kawamura_delta(l):
    """A δ that satisfies the bound for l 32-bit source primes near 2^32 with ρ = 16."""
    from fractions import Fraction
    return Fraction(1, 4) if l > 8 else Fraction(1, 8)


def iteration_markdown(rows):
    return markdown_table(
        ["parameters", "architecture", "`cycles()`",
         "Table 4.5 formula (t = k: I/O bound N(l+1+k)/TP)", "[Kir25] Table 4.6", "MM"], rows)


def row_key(row):
    """The cells that identify ``row`` in the synthesis table (``unit``, ``params``)."""
    return {"unit": f"`{row.unit}`",
            "params": ", ".join(f"{k}={v}" for k, v in row.params.items()
                                if k not in ("prime_bits", "prime_n"))}


def side_by_side_key(row):
    """The cells that identify ``row`` in the side-by-side table: :func:`row_key` and its
    flow (a row may set its own placer)."""
    return {**row_key(row), "flow": flow_cell(row)}


def _synth_rows(results, key=row_key):
    """The synthesis table's rows of ``results`` ((row, SynthResult) pairs), each first with
    the cells of ``key``."""
    ours = []
    for row, r in results:
        unit = get_unit(row.unit).build(**row.params)
        cc, au = unit.cycles() // len(unit.target), unit.arithmetic_units
        t_us = cc / r.fmax_mhz
        atp = t_us * (r.lut + r.ff / 2 + 100 * r.dsp + 300 * r.bram) / 1e6
        ours.append([*key(row).values(), au["MM"], r.lut, r.ff, r.dsp, r.bram,
                     f"{r.fmax_mhz:.1f}", cc, f"{t_us:.2f}", f"{atp:.2f}"])
    return ours


_RESULTS = ["MM", "LUT", "FF", "DSP", "BRAM (DP16KD)", "Fmax (MHz)", "CC / k", "Time (µs)",
            "ATP (×10^6)"]
_HEADERS = ["unit", "params", *_RESULTS]


def _flow_note(results, coefficient_engines=True):
    """The line under a synthesis table; ``coefficient_engines``: it has Kawamura and
    mixed-radix rows (the rns table), else it has a flow column (the side-by-side table)."""
    seconds = sum(r.runtime_s.get("total", 0) for _, r in results)
    engines = (" Kawamura and mixed-radix at l = k = 4 (their multiplier count grows with l)."
               if coefficient_engines else " nextpnr's HeAP placer and router1 unless the "
               "flow names another.")
    return ("Out of context, every port registered (Yosys `splitnets` before LUT "
            "mapping, YosysHQ/yosys#4349); LUT = LUT4 + 2 per CCU2C, DSP = MULT18X18D, "
            "Fmax from nextpnr. 32-bit NTT primes "
            f"q ≡ 1 mod 2^17 (`prime_n` = 2^16: Montgomery word 17);{engines} CC / k = "
            "`cycles()` of a whole conversion over its k target residues ([Kir25] gives the "
            "time per new residue); Time = (CC / k) / Fmax; ATP = Time · (LUT + FF/2 + "
            f"100·DSP + 300·BRAM). Tool time of the rows: {seconds:.0f} s.")


def synth_markdown(results):
    ours = _synth_rows(results)
    paper = [[table, f"{log_n}, {l}", tp, *(p[k] for k in ("lut", "ff", "bram", "dsp",
                                                          "fmax_mhz", "cc", "time_us",
                                                          "atp_1e6"))]
             for (table, log_n, l), rows in PAPER.items() for tp, p in rows.items()]
    lines = [markdown_table(_HEADERS, ours),
             "[Kir25] Tables 4.8 and 4.9, 32-bit rows (folded; Alveo U280, Vivado; BRAM are "
             "36 kbit RAMB36, DSP48E2 27×18). Table 4.7 (log N = 16, l = 17) has no ECP5 "
             "row: its three banks of 65536 32-bit words need 384 DP16KD, the ECP5-85F has "
             "208.", "",
             markdown_table(["table", "log N, l", "TP", "LUT", "FF", "BRAM36", "DSP",
                             "Fmax (MHz)", "CC", "Time (µs)", "ATP (×10^6)"], paper).rstrip("\n")]
    if results:
        lines += ["", _flow_note(results)]
    return "\n".join(lines) + "\n"


def generate(args, progress):
    block = "Iteration counts (`cycles()`, first input to last output, k = l):\n\n"
    block += iteration_markdown(iteration_rows())
    if args.iterations_only:
        return block, {"timed": False, "partial": True}
    results = synth_rows(SYNTH_TABLE, args, progress)
    block += "\nECP5-85F synthesis:\n\n" + synth_markdown(list(zip(SYNTH_TABLE, results)))
    return block, {**ecp5_facts(results), "json": [r.to_dict() for r in results]}


def generate_side_by_side(args, progress):
    results = list(zip(SIDE_BY_SIDE_TABLE, synth_rows(SIDE_BY_SIDE_TABLE, args, progress)))
    block = "\n".join([markdown_table(["unit", "params", "flow", *_RESULTS],
                                      _synth_rows(results, side_by_side_key)).rstrip("\n"), "",
                        _flow_note(results, coefficient_engines=False)]) + "\n"
    return block, {**ecp5_facts([r for _, r in results]),
                   "json": [r.to_dict() for _, r in results]}


TABLE = TableSpec("rns", "rns.md", "RNS base extension: iterations and ECP5-85F synthesis",
                  generate, rows=tuple(SYNTH_TABLE))
#: The engines with a pass's targets side by side on ``o`` (``parallel_targets``), and the
#: redundant residue beside the last source residue on ``i`` (``parallel_redundant``).
SIDE_BY_SIDE = TableSpec("rns-side-by-side", "rns.md",
                         "RNS base extension, targets side by side: ECP5-85F synthesis",
                         generate_side_by_side, rows=tuple(SIDE_BY_SIDE_TABLE))
TABLES = {TABLE.name: TABLE, SIDE_BY_SIDE.name: SIDE_BY_SIDE}
