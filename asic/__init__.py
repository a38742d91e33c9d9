"""ASIC flows for fhe_hw units, imported as ``fhe_hw.asic`` (files in the top-level ``asic/``
folder, which ``fhe_hw/asic`` links to).

* :mod:`.sky130` — ``fhe-hw asic-synth``: Yosys (YoWASP) maps a unit to sky130_fd_sc_hd,
  OpenSTA reports the worst path and Fmax (pre-layout estimate).
* :mod:`.gatesim` — the sky130 netlist simulated with the cells' Verilog models (Icarus)
  against a golden model.
* :mod:`.qflow` — ``fhe-hw harden --flow qflow``: Debian's qflow with the OSU 0.18 µm cells,
  synthesis to GDS with post-route timing, DRC and LVS.
* :mod:`.librelane` — ``fhe-hw harden --flow librelane``: a LibreLane macro configuration for
  sky130A or gf180mcuD, checked against LibreLane's variable definitions, run where OpenROAD
  is installed.
* :mod:`.render` — the PNG picture of a routed layout that ``fhe-hw harden`` writes beside the
  GDS (KLayout's Python module).

See ``asic/README.md``.
"""

from .pdk import DONT_USE, pdk_root, sky130_hd
from .sky130 import AsicSynthResult, asic_synthesize, synthesize_blocks

__all__ = ["DONT_USE", "pdk_root", "sky130_hd", "AsicSynthResult", "asic_synthesize",
           "synthesize_blocks"]
