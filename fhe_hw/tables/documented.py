"""Documented tables that ``fhe-hw table`` lists but does not regenerate itself: their blocks
carry the commit and command of the run that measured them."""

from .pages import TableSpec

__all__ = ["TABLES"]

TABLES = {t.name: t for t in (
    TableSpec("ntt-cosim", "ntt.md", "streaming NTT in Verilator: outputs and cycles",
              how="a Verilator co-simulation, run `python tools/cosim_ntt.py`", synth=False),
    TableSpec("ntt-four-step", "ntt.md", "four-step NTT in Verilator: outputs and cycles",
              how="a Verilator co-simulation, run `python tools/cosim_ntt.py --four-step`",
              synth=False),
)}
