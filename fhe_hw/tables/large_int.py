"""``fhe-hw table large-int``: [Wang13]'s large-integer multiplier
(:class:`~fhe_hw.largeint.LargeIntegerMultiplier`) co-simulated in Verilator
(:func:`fhe_hw.largeint.cosim.cosim_large_int_mul`): for each row of :data:`RUNS`, products of
random, all-ones and one-digit × full-size operands against Python's ``*``, and the simulated
cycles against ``cycles()``. The configurations of :data:`COUNTED` are too large to compile
here and are given by ``cycles()`` only, marked so. A run that differs writes no block."""

from ..flow.synth import tool_version
from ..largeint import LargeIntegerMultiplier
from ..largeint.cosim import cosim_large_int_mul
from ..markdown import table as markdown_table
from ..sim.cosim import require_verilator
from .pages import TableFailure, TableSpec

__all__ = ["TABLE", "RUNS", "COUNTED", "OPT", "large_int_markdown"]

#: Simulated configurations: (max_bits, lanes, engines).
RUNS = [(49152, 4, 1), (786432, 8, 1), (786432, 8, 2)]
#: Counted only (16 lanes at 65536 points: the Verilator model of one 16-lane 4096-point
#: engine already takes 21.4 GB to compile here).
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
        c = LargeIntegerMultiplier.cycles_of(bits, lanes=lanes, engines=engines)
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
        except AssertionError as e:
            raise TableFailure(f"{label}: {e}") from None
        results.append(r)
    facts = {"tools": f"{tool_version(require_verilator(), '--version')}, C++ {OPT}",
             "json": results}
    return large_int_markdown(results), facts


TABLE = TableSpec("large-int", "largeint.md", "large-integer multiplier in Verilator: products "
                  "and cycles", _generate, logs="cosim")
