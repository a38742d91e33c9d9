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
    TableSpec("board-builds", "boards.md", "bitstreams behind the host link, per board",
              how="one `fhe-hw build --board BOARD UNIT` per row"),
    # Until their generators move into this package (they are being ported):
    TableSpec("rns", "rns.md", "RNS base extension: iterations and ECP5-85F synthesis",
              how="not ported yet"),
    TableSpec("karatsuba", "karatsuba.md", "Karatsuba-r multiplier on ECP5-85F",
              how="not ported yet"),
    TableSpec("ntt", "ntt.md", "butterflies, shift-only units, parallel NTT on ECP5-85F",
              how="not ported yet"),
    TableSpec("ntt-streaming", "ntt.md", "streaming NTT on ECP5-85F", how="not ported yet"),
    TableSpec("bigint", "bigint.md", "CMNT encryption time: cycles, Fmax, GMP",
              how="not ported yet"),
    TableSpec("asic", "asic.md", "sky130 synthesis and OpenSTA", how="not ported yet"),
    TableSpec("board-fits", "boards.md", "largest configuration each board fits",
              how="not ported yet"),
)}
