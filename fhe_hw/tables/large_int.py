"""``fhe-hw table large-int``: [Wang13]'s large-integer multiplier
(:class:`~fhe_hw.largeint.LargeIntegerMultiplier`) co-simulated in Verilator
(:func:`fhe_hw.largeint.cosim.cosim_large_int_mul`): for each row of :data:`RUNS`, products of
random, all-ones and one-digit × full-size operands against Python's ``*``, and the simulated
cycles against ``cycles()``. The configurations of :data:`COUNTED` are too large to compile
here and are given by ``cycles()`` only, marked so. A run that differs writes no block."""

from ..asic import synthesize_blocks
from ..asic.configs import SKY130_CLOCK_NS
from ..largeint import LargeIntegerMultiplierPlan
from ..largeint.cosim import cosim_large_int_mul
from ..largeint.estimate import SRAM_SOURCE, SRAM_UM2_PER_BIT, blocks, sky130_estimate
from ..markdown import table as markdown_table
from ..sim import SimulationMismatch
from ..sim.cosim import require_verilator
from ..tools import tool_version
from .pages import TableFailure, TableSpec

__all__ = ["TABLES", "RUNS", "COUNTED", "OPT", "ESTIMATED", "large_int_markdown",
           "estimate_markdown", "estimate_note"]

#: Simulated configurations: (max_bits, lanes, engines).
RUNS = [(49152, 4, 1), (786432, 8, 1), (786432, 8, 2)]
#: Counted only (16 lanes at 65536 points: Verilator itself takes 21.0 GB for one 16-lane
#: 65,536-point engine here, and the multiplier has two or three).
COUNTED = [(786432, 16, 1), (786432, 16, 2)]
#: The C++ optimisation of the Verilator models (-O1: the 65536-point models compile in
#: minutes instead of tens of minutes and run the three products in seconds).
OPT = "-O1"
#: [Wang13]'s clock, for the time column.
PAPER_MHZ = 100.0


def large_int_markdown(results):
    """The block from the results of :data:`RUNS` (in that order) and :data:`COUNTED`."""
    cells = []
    for (bits, lanes, engines), r in zip(RUNS, results):
        cells.append([bits, r["n"], lanes, engines, ", ".join(r["cases"]), r["cycles"],
                      r["expected_cycles"], r["expected_cycles"] / PAPER_MHZ])
    for bits, lanes, engines in COUNTED:
        c = LargeIntegerMultiplierPlan(bits, lanes=lanes, engines=engines).cycles()
        cells.append([bits, 65536, lanes, engines, "not simulated (too large for Verilator "
                      "here)", "", c, c / PAPER_MHZ])
    return markdown_table(["operand bits", "n", "lanes", "forward engines",
                           "products equal to a·b", "cycles simulated", "cycles()",
                           "µs at 100 MHz"], cells)


def _generate(args, progress):
    results = []
    for bits, lanes, engines in RUNS:
        label = f"large-int-mul {bits} bits lanes={lanes} engines={engines}"
        progress(f"{label}: building and running (Verilator {OPT})")
        try:
            r = cosim_large_int_mul(bits, lanes=lanes, engines=engines, opt=OPT, log=progress)
        except SimulationMismatch as e:
            raise TableFailure(f"{label}: {e}") from None
        results.append(r)
    facts = {"tools": f"{tool_version(require_verilator(), '--version')}, C++ {OPT}",
             "json": results}
    return large_int_markdown(results), facts


#: The sky130 estimate's configurations: (lanes, forward engines, inner units per engine) at
#: 786,432 bits.
ESTIMATED = [(16, 1, 1), (16, 2, 1), (16, 1, 2)]


def _shown(params):
    return ", ".join(f"{k}={v}" for k, v in params.items())


def block_cells(config, rows, memories, memory_bits, memory_um2):
    """The cells of an estimate's blocks (``rows``: :func:`fhe_hw.largeint.estimate.block_rows`)
    and its memories (named ``memories``) under configuration ``config``."""
    cells = [[config, f"`{unit}` {_shown(params)}", count, f"{area:,.0f}",
              f"{count * area / 1e6:.2f}", f"{fmax:.1f}", f"`{path}`"]
             for unit, params, count, area, fmax, path in rows]
    return cells + [[config, memories, f"{memory_bits:,}", f"{SRAM_UM2_PER_BIT:.1f} per bit",
                     f"{memory_um2 / 1e6:.2f}", "", ""]]


def sky130_cells(config, e, memories, per=""):
    """The cells of a :class:`~fhe_hw.largeint.estimate.Sky130Estimate` ``e`` under
    ``config``: its blocks, its memories (named ``memories``) and its total, the cycles of
    one operation (``per`` says of what: `` per polynomial``) and their time at its clock."""
    return block_cells(config, e.rows, memories, e.memory_bits, e.memory_um2) + [
        [config, f"**total (estimate)**: {e.cycles} cycles{per}, {e.product_us:.1f} µs at "
         f"{e.fmax_mhz:.1f} MHz", "", "", f"**{e.total_mm2:.1f}**", f"{e.fmax_mhz:.1f}", ""]]


def estimate_markdown(estimates):
    """The ``large-int-asic`` block from {(lanes, engines, inner_units): Sky130Estimate}."""
    cells = []
    for (lanes, engines, inner_units), e in estimates.items():
        config = f"lanes={lanes}, engines={engines}, inner_units={inner_units}"
        cells += sky130_cells(config, e, "memories (RAM + ROM bits, estimated)")
    return markdown_table(["configuration (786,432 bits)", "block", "count", "area µm² each",
                           "area mm²", "Fmax MHz", "critical path"], cells) + estimate_note(
        "the engines' control, bank crossbars and the wiring between blocks")


def estimate_note(not_counted):
    """The line under a block-by-block sky130 estimate: how memory and logic were counted, and
    what was not (``not_counted``)."""
    return (f"\nMemory area per bit: {SRAM_SOURCE}; logic: sky130_fd_sc_hd, tt corner, before "
            f"placement, every block's ports registered, ABC delay target "
            f"{SKY130_CLOCK_NS:g} ns. Not counted: {not_counted}; the clock is the slowest "
            f"block's.\n")


def _generate_estimate(args, progress):
    wanted = {(unit, tuple(sorted(params.items()))): (unit, params, None)
              for lanes, engines, inner_units in ESTIMATED
              for unit, params, _ in blocks(lanes=lanes, engines=engines,
                                            inner_units=inner_units)}
    results, tools = synthesize_blocks(wanted, SKY130_CLOCK_NS, progress)
    estimates = {config: sky130_estimate(results, lanes=config[0], engines=config[1],
                                         inner_units=config[2])
                 for config in ESTIMATED}
    facts = {"tools": tools,
             "json": {f"lanes={l}, engines={e}, inner_units={u}": {"total_mm2": x.total_mm2,
                                                                    "fmax_mhz": x.fmax_mhz,
                                                                    "cycles": x.cycles}
                      for (l, e, u), x in estimates.items()}}
    return estimate_markdown(estimates), facts


TABLES = {t.name: t for t in (
    TableSpec("large-int", "largeint.md", "large-integer multiplier in Verilator: products and "
              "cycles", _generate, logs="cosim"),
    TableSpec("large-int-asic", "largeint.md", "large-integer multiplier: sky130 estimate from "
              "its blocks", _generate_estimate, logs="asic"),
)}
