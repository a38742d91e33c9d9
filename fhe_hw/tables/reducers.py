"""``fhe-hw table reducers``: resources and Fmax of the reducers and modular multipliers on
ECP5-85F ([Cao14] §3.3, Fig. 3), rows :data:`fhe_hw.arith.configs.REDUCER_TABLE`; ``fhe-hw table
engine-modmuls``: the same table of the engines' own ModMuls,
:data:`fhe_hw.arith.configs.ENGINE_MODMULS`."""

from ..arith.configs import ENGINE_MODMULS, REDUCER_TABLE
from ..flow.rows import shown
from ..markdown import table as markdown_table
from ..units import get_unit
from .common import ecp5_facts, latency, synth_rows
from .pages import TableSpec

__all__ = ["TABLES", "markdown", "row_key"]


def _shown(row):
    text = shown(row.params)
    if row.unit == "mod-mul" and "reducer" not in row.params:
        # the automatic reducer, read from the built unit (no synthesis)
        text += f" (auto: {get_unit(row.unit).build(**row.params).reducer})"
    return text


def row_key(row):
    """The cells that identify ``row`` in the table (``unit``, ``params``)."""
    return {"unit": f"`{row.unit}`", "params": _shown(row)}


def markdown(rows, results):
    """The table and its note (without the provenance line)."""
    body = markdown_table(
        ["unit", "params", "latency", "LUT", "FF", "of which port FF", "DSP", "Fmax (MHz)"],
        [[*row_key(row).values(), latency(row), r.lut, r.ff,
          r.io_ff, r.dsp, f"{r.fmax_mhz:.1f}"] for row, r in zip(rows, results)])
    return body + ("\nOut of context with every port registered (the port FF); LUT = LUT4 + 2 "
                   "per CCU2C, DSP = MULT18X18D, Fmax from nextpnr.\n")


def _generator(rows):
    def generate(args, progress):
        results = synth_rows(rows, args, progress)
        return markdown(rows, results), {
            **ecp5_facts(results), "json": [r.to_dict() for r in results]}
    return generate


TABLES = {t.name: t for t in (
    TableSpec("reducers", "arith.md", "reducers and modular multipliers on ECP5-85F",
              _generator(REDUCER_TABLE), rows=tuple(REDUCER_TABLE)),
    TableSpec("engine-modmuls", "arith.md", "the engines' own ModMuls on ECP5-85F",
              _generator(ENGINE_MODMULS), rows=tuple(ENGINE_MODMULS)))}
