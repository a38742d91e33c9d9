"""``fhe-hw table board-builds``: bitstreams of a unit behind the host link, one per row of
:data:`fhe_hw.arith.configs.BOARD_BUILDS` (:func:`fhe_hw.flow.build.build_board`, link memories of
:data:`~fhe_hw.arith.configs.BOARD_DEPTH` words; a build whose design files, board and tools
are unchanged is reused)."""

from ..arith.configs import BOARD_BUILDS, BOARD_DEPTH
from ..flow.build import build_board, markdown
from .pages import TableSpec

__all__ = ["TABLE", "TABLES"]


def generate(args, progress):

    results = []
    for board, row in BOARD_BUILDS:
        progress(f"{board} {row.unit} {row.params}: building (logs in its build directory)")
        result = build_board(board, row.unit, row.params, depth=BOARD_DEPTH, progress=progress)
        progress(f"{board} {row.unit}: {result.lut} LUT, {result.fmax_mhz} MHz "
                 f"({result.runtime_s} s)")
        results.append(result)
    return markdown(results) + f"\nDepth {BOARD_DEPTH}.\n", {
        "tools": "YoWASP Yosys and nextpnr (per board)",
        "device": "each board's FPGA and clock (table columns)",
        "json": [r.to_dict() for r in results]}


TABLE = TableSpec("board-builds", "boards.md", "bitstreams behind the host link, per board",
                  generate, logs="boards")
TABLES = {TABLE.name: TABLE}
