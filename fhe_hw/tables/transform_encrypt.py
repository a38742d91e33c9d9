"""``fhe-hw table encrypt-plans``: the transform plans of CMNT and CNT encryption
(:func:`fhe_hw.model.transform_encrypt.plan`) for every group of [Cao14] Table 1 and [Cao13]
Table 2, beside [Cao13] Table 6's cycles (its times × its 166.45 MHz).

The plans are the golden model's; no unit is built from them yet, so the table gives work,
not a unit's cycles: the point-wise beats are the products' spectrum words divided by
:data:`LANES` (every word passes a multiplier, so any unit with that many point-wise
multipliers needs at least these cycles), and likewise the S stage's multiply-accumulates of
CMNT."""

from ..markdown import table as markdown_table
from ..model.transform_encrypt import SCHEMES, plan
from ..report.paper import P000_T6
from .pages import TableSpec

__all__ = ["TABLE", "LANES", "markdown"]

GROUPS = ("toy", "small", "medium", "large")
#: Words per cycle of the point-wise multipliers and of the S stage in the beat columns.
LANES = 16
_TABLE6 = {"cmnt": "CMNT 2^64-2^32+1", "cnt": "CNT 2^64-2^32+1"}


def _cut(digits, blocks):
    return f"{blocks} × {digits:,}" if blocks > 1 else f"{digits:,}"


def markdown():
    cells = []
    for scheme in SCHEMES:
        for group in GROUPS:
            p = plan(scheme, group)
            b, t = p.main, p.transforms
            paper = round(P000_T6.rows[_TABLE6[scheme]][group] * P000_T6.extra["fmax_mhz"]
                          * 1e6)
            pointwise = sum(x.products for x in p.blockings) * p.n // LANES
            s_stage = -(-p.s_stage_macs // LANES)
            cells.append([scheme.upper(), group, p.digit_bits, f"{p.n:,}",
                          _cut(b.x_block, b.x_blocks), _cut(b.y_block, b.y_blocks),
                          f"{b.bound / 2**64:.3f}",
                          f"{t['forward']:,} + {t['inverse']:,}",
                          f"{p.key_spectrum_words * 64 / 1e6:,.1f}", f"{pointwise:,}",
                          f"{s_stage:,}" if s_stage else "", f"{paper:,}",
                          f"{max(pointwise, s_stage) / paper:.2f}"])
    return markdown_table(
        ["scheme", "group", "d (bits)", "n", "X_i digits", "key digits",
         "largest sample / 2^64", "transforms (fwd + inv)", "key spectra (Mbit)",
         f"point-wise beats at {LANES} lanes", f"S-stage beats at {LANES} lanes",
         "[Cao13] Table 6 cycles", "larger beats / Table 6"], cells) + (
        "\nX_i: b_i (CNT) or S_i = Σ_j B_ij·A_j1 (CMNT), whole or in blocks × digits; key: "
        "each public-key integer (x_i or A_i0) likewise. Transforms and point-wise beats "
        "include the super-size Barrett reduction's two products. Table 6 cycles: its "
        "2^64-2^32+1 times × 166.45 MHz.\n")


def generate(args, progress):
    progress("planning every group (the model's plan())")
    return markdown(), {"timed": False}


TABLE = TableSpec("encrypt-plans", "bigint.md", "CMNT and CNT through transforms: plans and "
                  "work per group", generate, logs="none")
