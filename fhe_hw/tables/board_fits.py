"""``fhe-hw table board-fits``: what each board fits. A unit is built behind the host link
(:func:`fhe_hw.flow.build.build_board`) for growing values of one parameter until the board runs out
(nextpnr cannot place it, or does not finish within ``--time-limit`` minutes); the table gives
the largest that fits with its resources and Fmax.

Sweeps (:func:`sweeps`): :data:`fhe_hw.rns.configs.BOARD_SWEEP` and
:data:`fhe_hw.ntt.configs.BOARD_SWEEP`, of stream engines whose run is fixed by their
parameters. The link's memories are sized to hold one whole run of the unit (:func:`depth`: the
plan's :attr:`~fhe_hw.plan.StreamPlan.input_beats` and
:attr:`~fhe_hw.plan.StreamPlan.output_beats`), so every bitstream listed can be driven by
``fhe-hw run``.
"""

from ..boards import BOARDS
from ..flow.build import build_board
from ..flow.rows import shown
from ..markdown import table as markdown_table
from ..ntt.configs import BOARD_SWEEP as NTT
from ..rns.configs import BOARD_SWEEP as RNS
from ..units import get_unit
from .pages import TableSpec

__all__ = ["TABLE", "TABLES", "TIME_LIMIT_MIN", "sweeps", "sweep", "depth"]

#: Minutes one build may run before the sweep counts it as not fitting (``--time-limit``):
#: nextpnr-himbaechel can search for a placement of an over-full Gowin design for hours.
TIME_LIMIT_MIN = 20


def sweeps():
    """``[(row, swept key, values)]``: the families' board sweeps."""

    return [RNS, NTT]


def depth(unit_name, params):
    """Words per link memory for one whole run of ``unit_name`` with ``params``: the beats of
    the run on its longer stream, from the unit's plan (no hardware is built)."""
    plan = get_unit(unit_name).make_plan(params)
    return max(plan.input_beats, plan.output_beats)


def sweep(board, row, key, values, progress, timeout_s=None):
    """Build for each value in order until one fails or runs longer than ``timeout_s``;
    (results that fit, first failure text or None)."""

    fits = []
    for value in values:
        params = {**row.params, key: value}
        progress(f"{board} {row.unit} {key}={value}: building")
        try:
            result = build_board(board, row.unit, params, depth=depth(row.unit, params),
                                 timeout_s=timeout_s, progress=progress)
        except (RuntimeError, ValueError) as e:
            reason = str(e).splitlines() or [type(e).__name__]
            why = next((x for x in reason if x.startswith("ERROR")), reason[-1])
            progress(f"{board} {row.unit} {key}={value}: does not build: {why}")
            return fits, f"{key} = {value}: {why}"
        fits.append(result)
    return fits, None


def generate(args, progress):

    rows, builds = [], []
    for board in BOARDS:
        for row, key, values in sweeps():
            fits, failure = sweep(board, row, key, values, progress,
                                  timeout_s=60 * (args.time_limit or TIME_LIMIT_MIN))
            builds += fits
            best = fits[-1] if fits else None
            rows.append([board, f"`{row.unit}` {shown(row.params)}",
                         f"**{best.params[key]}**" if best else "none",
                         *((best.lut, best.ff, best.dsp, best.bram,
                            f"{best.fmax_mhz} ({best.clock_mhz:g}, "
                            f"{'met' if best.target_met else 'not met'})") if best else [None] * 5),
                         failure or "none in the sweep"])
    table = markdown_table(["board", "unit and fixed parameters", "largest value that fits",
                            "LUT", "FF", "DSP", "BRAM", "Fmax MHz (clock)", "first failure"],
                           rows)
    return table, {"tools": "YoWASP Yosys and nextpnr (per board)",
                   "device": "each board's FPGA", "json": [b.to_dict() for b in builds]}


TABLE = TableSpec("board-fits", "boards.md", "largest configuration each board fits", generate,
                  logs="boards")
TABLES = {TABLE.name: TABLE}
