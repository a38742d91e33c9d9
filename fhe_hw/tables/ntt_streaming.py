"""``fhe-hw table ntt-streaming``: resources and Fmax of the streaming NTT engine ``ntt`` on
ECP5-85F (n = 1024 and 4096, P = 1, 2, 4, solinas64; n = 4096, P = 8 over solinas64 with
Karatsuba multipliers; n = 4096, P = 8 over a 30-bit prime, with read_stages 3 and 4, and
P = 16), rows :data:`fhe_hw.ntt.configs.STREAMING_TABLE` (tiled ``ModMul``\\ s, ``splitnets``;
each row's flow in its last column)."""

from ..arith.pipeline import MULTIPLIER_FLAGS
from ..markdown import table as markdown_table
from ..ntt import READ_STAGES
from ..ntt.configs import STREAMING_TABLE
from ..units import get_unit
from .common import ecp5_facts, synth_rows
from .pages import TableSpec

__all__ = ["TABLE", "TABLES", "markdown", "row_key"]


def _tag(row):
    """`` (tiled, karatsuba)``: the ModMul options written after the Fmax."""
    tag = ", ".join(name for name in ("tiled", *MULTIPLIER_FLAGS) if row.params.get(name))
    return f" ({tag})" if tag else ""


def row_key(row):
    """The cells that identify ``row`` in the table (a predicate for the Fmax cell's tag)."""
    tag = _tag(row)
    return {"n": str(row.params["n"]), "P": str(row.params["butterflies"]),
            "modulus": str(row.params["modulus"]),
            "read_stages": str(row.params.get("read_stages", READ_STAGES)),
            "flow": f"`{row.target}`",
            "Fmax MHz": lambda text: text.endswith(tag) if tag else "(" not in text}


def markdown(rows, results):
    cells = []
    for row, r in zip(rows, results):
        cycles = get_unit(row.unit).cycles(row.params)
        cells.append([row.params["n"], row.params["butterflies"], row.params["modulus"],
                      row.params.get("read_stages", READ_STAGES), cycles,
                      r.lut, r.ff, r.dsp, r.bram, f"{r.fmax_mhz}{_tag(row)}",
                      f"{cycles / r.fmax_mhz:.1f}", f"`{row.target}`"])
    return markdown_table(["n", "P", "modulus", "read_stages", "cycles()", "LUT", "FF", "DSP",
                           "BRAM", "Fmax MHz", "µs per transform at Fmax", "flow"], cells)


def generate(args, progress):
    results = synth_rows(STREAMING_TABLE, args, progress)
    return markdown(STREAMING_TABLE, results), {
        **ecp5_facts(results), "json": [r.to_dict() for r in results]}


TABLE = TableSpec("ntt-streaming", "ntt.md", "streaming NTT on ECP5-85F", generate,
                  rows=tuple(STREAMING_TABLE))
TABLES = {TABLE.name: TABLE}
