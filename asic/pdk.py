"""Where the PDK data and the Debian tools of the ASIC flows are.

The sky130 standard cells are found through ``PDK_ROOT`` in the ciel/volare layout
(``$PDK_ROOT/sky130A/libs.ref/sky130_fd_sc_hd/...``); without ``PDK_ROOT`` the default ciel root
``~/.ciel`` is tried. Nothing of the PDK is copied into this repository.
"""

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["sky130_hd", "DONT_USE", "FLOP_DONT_USE", "Sky130Library", "pdk_root",
           "klayout_lyp"]

# Cells that synthesis must not pick: power gating and isolation (lpflow_*), probes, delay
# lines, scan flip-flops and scan clock gates, the spare-cell macro. Their functional models
# are not ordinary logic, and OpenLane's sky130 flow excludes them the same way.
DONT_USE = ("*lpflow*", "*probe*", "*dlygate*", "*dlymetal*", "*clkdlybuf*", "*sdf*",
            "*sedf*", "*sdlclkp*", "*macro_sparecell*")

# Flip-flops the mapping must not pick beyond :data:`DONT_USE`: the drive-strength-1 D
# flip-flop. ABC sizes only the logic between registers; a register that feeds many gates
# (an operand bit of several multiplier tiles) then drives them from a size-1 output, whose
# clock-to-output grows with the load (1.16 ns in the solinas64 ModMul with 9-bit tiles,
# 0.76 ns at size 2). A resizer after placement would upsize such drivers; before placement
# every flip-flop is taken at size 2 (1.7 % more area there).
FLOP_DONT_USE = ("sky130_fd_sc_hd__dfxtp_1",)


def pdk_root():
    """``$PDK_ROOT`` (a relative path is taken from the current directory, resolved before any
    tool runs in a build directory), else ciel's default ``~/.ciel``."""
    return Path(os.environ.get("PDK_ROOT") or Path.home() / ".ciel").expanduser().resolve()


def klayout_lyp(pdk):
    """The PDK's KLayout layer properties (``$PDK_ROOT/<pdk>/libs.tech/klayout/tech/*.lyp``, the
    layer colours), or None where the PDK copy has none (the minimal one has only
    ``libs.ref``)."""
    found = sorted((pdk_root() / pdk / "libs.tech" / "klayout" / "tech").glob("*.lyp"))
    return found[0] if found else None


@dataclass(frozen=True)
class Sky130Library:
    """Paths of one sky130 standard-cell library and corner under a PDK root."""

    root: Path
    pdk: str = "sky130A"
    name: str = "sky130_fd_sc_hd"
    corner: str = "tt_025C_1v80"

    @property
    def ref(self):
        return self.root / self.pdk / "libs.ref" / self.name

    @property
    def liberty(self):
        return self.ref / "lib" / f"{self.name}__{self.corner}.lib"

    @property
    def verilog(self):
        return self.ref / "verilog" / f"{self.name}.v"

    @property
    def lef(self):
        return self.ref / "lef" / f"{self.name}.lef"

    @property
    def tech_lef(self):
        return self.ref / "techlef" / f"{self.name}__nom.tlef"

    def require(self, *paths):
        """Raise RuntimeError naming the first of ``paths`` (default: the Liberty file) that
        does not exist, with how to get the PDK."""
        for path in paths or (self.liberty,):
            if not path.exists():
                raise RuntimeError(
                    f"{path} not found: set PDK_ROOT to a ciel/volare PDK root holding "
                    f"{self.pdk} (install it with `pip install ciel && ciel enable --pdk-family "
                    f"sky130 <version>`)")
        return self


def sky130_hd():
    """The sky130_fd_sc_hd library (typical corner) under :func:`pdk_root`."""
    return Sky130Library(pdk_root())
