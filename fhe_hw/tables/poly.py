"""``fhe-hw table rns-poly``: resources, Fmax and time per polynomial of the RNS polynomial NTT
``rns-poly-ntt`` on ECP5-85F, rows :data:`fhe_hw.poly.configs.POLY_TABLE` (one engine per tower,
``splitnets``). Times are ``cycles()`` ÷ that configuration's Fmax: one polynomial from its
first input beat to its last output beat, and one polynomial of a stream back to back, with the
polynomials on chip (the input stream never waits; the host link's time is not included)."""

from ..markdown import table as markdown_table
from ..poly.configs import POLY_TABLE
from ..units import get_unit
from .common import ecp5_facts, synth_rows
from .pages import TableSpec

__all__ = ["TABLE", "TABLES", "markdown", "row_key", "timing"]


def timing(row):
    """(cycles of one polynomial, cycles per polynomial back to back) of ``row``."""
    unit = get_unit(row.unit)
    one, two, three = (unit.cycles(row.params, polys=k) for k in (1, 2, 3))
    return one, three - two


def _towers(row):
    plan = get_unit(row.unit).make_plan(row.params)
    ring = row.params.get("prime_n", row.params["n"])
    return f"{len(plan.towers)} × {plan.width}-bit (OpenFHE's for N = {ring})"


def row_key(row):
    """The cells that identify ``row`` in the table."""
    return {"N": str(row.params["n"]), "towers": _towers(row),
            "P per engine": str(row.params["butterflies"]), "flow": f"`{row.target}`"}


def markdown(rows, results):
    cells = []
    for row, r in zip(rows, results):
        one, period = timing(row)
        cells.append([row.params["n"], _towers(row), row.params["butterflies"],
                      "yes" if row.params.get("karatsuba") else "no", one, period,
                      r.lut, r.ff, r.dsp, r.bram, r.fmax_mhz, f"{one / r.fmax_mhz:.1f}",
                      f"{period / r.fmax_mhz:.1f}", f"`{row.target}`"])
    return markdown_table(["N", "towers", "P per engine", "Karatsuba", "cycles()",
                           "cycles per polynomial back to back", "LUT", "FF", "DSP", "BRAM",
                           "Fmax MHz", "µs per polynomial", "µs per polynomial back to back",
                           "flow"], cells)


def generate(args, progress):
    results = synth_rows(POLY_TABLE, args, progress)
    return markdown(POLY_TABLE, results), {
        **ecp5_facts(results[0]), "json": [r.to_dict() for r in results]}


TABLE = TableSpec("rns-poly", "poly.md", "RNS polynomial NTT on ECP5-85F", generate)
TABLES = {TABLE.name: TABLE}
