"""``fhe-hw table ntt-cosim`` and ``fhe-hw table ntt-four-step``: the streaming and four-step
NTT engines co-simulated in Verilator at the papers' sizes (:mod:`fhe_hw.ntt.cosim`).

Every run streams seeded random coefficients through the generated Verilog, compares every
output with the golden model (the negacyclic product with schoolbook multiplication) and the
simulated cycle count with the engine's ``cycles()``. A run that differs writes no block: the
command names it and exits with status 1. The rows are :data:`COSIM_RUNS` and
:data:`FOUR_STEP_RUNS`.
"""

from ..markdown import table as markdown_table
from ..ntt.cosim import WANG_HUANG_CYCLES, Engines, cosim_ntt, cosim_polymul
from ..sim import SimulationMismatch
from ..sim.cosim import require_verilator
from ..tools import tool_version
from ..units import get_unit
from .pages import TableFailure, TableSpec

__all__ = ["TABLES", "COSIM_RUNS", "FOUR_STEP_RUNS", "cosim_markdown", "four_step_markdown"]

#: The streaming engine's runs: (n, P, negacyclic, inverse); None for the negacyclic product
#: a·b mod x^n + 1 (two forward transforms, ``mod-mul`` pointwise, one inverse transform).
COSIM_RUNS = [(4096, 4, False, False), (4096, 4, False, True), (4096, 4, True, False),
              (4096, 4, True, True), (4096, 4, None, None),
              (65536, 4, False, False), (65536, 4, False, True)]
#: The four-step engine's runs: (n, inverse).
FOUR_STEP_RUNS = [(4096, False), (4096, True), (65536, False)]
MODULUS = "solinas64"
#: The C++ optimisation of the Verilator models.
OPT = "-O3"


def _transform(negacyclic, inverse):
    return ("negacyclic " if negacyclic else "") + ("inverse" if inverse else "forward")


def _checked(result, label):
    if result["cycles"] != result["expected_cycles"]:
        raise TableFailure(f"{label}: {result['cycles']} simulated cycles, cycles() "
                           f"{result['expected_cycles']}")
    return result


def _run(label, progress, fn, *args, **kw):
    try:
        result = fn(*args, **kw)
    except SimulationMismatch as e:
        raise TableFailure(f"{label}: {e}") from None
    progress(f"{label}: equals the model")
    return result


def _bound(n, p):
    return n * (n.bit_length() - 1) // (2 * p)


def cosim_markdown(results):
    """The ``ntt-cosim`` block from the results of :data:`COSIM_RUNS` (in that order)."""
    cells = []
    for (n, p, neg, inv), r in zip(COSIM_RUNS, results):
        if neg is None:
            cells.append([n, p, f"a·b mod x^{n}+1: 2 forward NTTs, `mod-mul` pointwise, inverse "
                          "NTT", "equals schoolbook (exact, Kronecker)", "", "", ""])
            continue
        cells.append([n, p, _transform(neg, inv), r["cycles"], r["expected_cycles"],
                      _bound(n, p), WANG_HUANG_CYCLES if n == 65536 else ""])
    return markdown_table(["n", "P", "transform", "cycles simulated", "cycles()",
                           "n·log2(n)/2P", "Wang–Huang (0.125 ms at 100 MHz)"], cells)


def four_step_markdown(results):
    """The ``ntt-four-step`` block from the results of :data:`FOUR_STEP_RUNS`."""
    cells = []
    for (n, inv), r in zip(FOUR_STEP_RUNS, results):
        radix2 = get_unit("ntt").cycles({"n": n, "butterflies": 4, "modulus": MODULUS})
        cells.append([n, _transform(False, inv), r["cycles"], r["expected_cycles"], radix2,
                      _bound(n, 4), WANG_HUANG_CYCLES if n == 65536 else ""])
    return markdown_table(["n", "transform", "cycles simulated", "cycles()",
                           "radix-2 engine P = 4, cycles()", "n·log2(n)/2P, P = 4",
                           "Wang–Huang"], cells)


def _facts(engines, results, progress):
    progress(f"Verilator builds {engines.build_seconds:.0f} s")
    return {"tools": f"{tool_version(require_verilator(), '--version')}, C++ {OPT}",
            "json": results}


def _generate_cosim(args, progress):
    engines, results = Engines(OPT), []
    for n, p, neg, inv in COSIM_RUNS:
        if neg is None:
            results.append(_run(f"polymul n={n} P={p}", progress, cosim_polymul, n, p, MODULUS,
                                engines=engines, log=progress))
            continue
        label = f"ntt n={n} P={p} {_transform(neg, inv)}"
        results.append(_checked(_run(label, progress, cosim_ntt, n, p, MODULUS, negacyclic=neg,
                                     inverse=inv, engines=engines, log=progress), label))
    return cosim_markdown(results), _facts(engines, results, progress)


def _generate_four_step(args, progress):
    engines, results = Engines(OPT), []
    for n, inv in FOUR_STEP_RUNS:
        label = f"four-step n={n} {_transform(False, inv)}"
        results.append(_checked(_run(label, progress, cosim_ntt, n, four_step=True, inverse=inv,
                                     engines=engines, log=progress), label))
    return four_step_markdown(results), _facts(engines, results, progress)


TABLES = {t.name: t for t in (
    TableSpec("ntt-cosim", "ntt.md", "streaming NTT in Verilator: outputs and cycles",
              _generate_cosim, logs="cosim"),
    TableSpec("ntt-four-step", "ntt.md", "four-step NTT in Verilator: outputs and cycles",
              _generate_four_step, logs="cosim"),
)}
