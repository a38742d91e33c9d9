"""Named configuration sets of the Karatsuba multiplier (004, n = 2560 = 5 · 2^9).

:data:`TABLE_ROWS` is the documented ECP5-85F table (``fhe-hw table karatsuba``,
``docs/results/karatsuba.md``): Karatsuba-r in the paper's configuration for r recursions in
hardware, 125-bit inputs grown by 9 - r software recursions (coeff_bits = 134 - r), 5 digits
of 27 bits, leaf 5. The report's 004 section reads :data:`REPORT_ROWS` (the row that fits).
"""

from ..flow.rows import Row

__all__ = ["TOTAL", "TARGET", "RECURSIONS", "multiplier_params", "relin_params", "row",
           "TABLE_ROWS", "REPORT_ROWS", "SMOKE"]

TOTAL = 9                   # 004: n = 2560 = 5 * 2^9, 9 Karatsuba recursions in all
RECURSIONS = (1, 2, 3)
#: Yosys 0.70's ABC9 re-integration aborts on this design (YosysHQ/yosys#4349); the
#: suggested workaround, ``splitnets`` before LUT mapping, is this target.
TARGET = "ecp5-splitnets-map"


def multiplier_params(r):
    """Karatsuba-r as in 004: 125-bit coefficients grown by 9 - r software recursions."""
    return {"recursions": r, "coeff_bits": 125 + TOTAL - r, "digits": 5}


def relin_params(r):
    """Relinearization (l = 5 words of 27 bits, 125-bit keys), both grown by 9 - r bits."""
    return {"recursions": r, "words": 5, "coeff_bits": 125 + TOTAL - r,
            "word_bits": 27 + TOTAL - r, "digits": 5}


def row(r):
    """The table row of Karatsuba-r (nextpnr's failure to place is recorded, not raised)."""
    return Row("karatsuba", multiplier_params(r), TARGET, {"pnr_errors": "record"})


TABLE_ROWS = [row(r) for r in RECURSIONS]
#: Karatsuba-1 is the only configuration that fits an LFE5U-85F (100 of 156 MULT18X18D).
REPORT_ROWS = [TABLE_ROWS[0]]
#: A small smoke configuration (Karatsuba-1 at 16-bit coefficients).
SMOKE = [Row("karatsuba", {"recursions": 1, "coeff_bits": 16, "digits": 1}, TARGET)]
