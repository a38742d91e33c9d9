"""Named configuration sets of the big-integer units (000, Integer-FFT multiplier).

:data:`MULTIPLIERS` names the Integer-FFT multiplier configurations: the four of [Cao13] Table 4
(kb/2d = 8) and the reduced transforms that fit the LFE5U-85F's 156 MULT18X18D. The documented
CMNT table (``fhe-hw table bigint``, ``docs/results/bigint.md``) projects with
:data:`PROJECTED` and synthesizes :data:`TABLE_ROWS`; the report's 000 section reads
:data:`REPORT_MODMULS` and :data:`REPORT_SMALL`.
"""

from ..flow.rows import Row

__all__ = ["MAX_BITS", "TARGET", "MULTIPLIERS", "TABLE_ROWS", "PROJECTED", "GROUPS",
           "REPORT_MODMULS", "REPORT_SMALL", "SMOKE"]

MAX_BITS = 1 << 20
#: ``splitnets`` before synthesis (Yosys 0.70's ABC9 aborts on this design otherwise).
TARGET = "ecp5-splitnets"

MULTIPLIERS = {
    "fermat32": dict(modulus="fermat32", n=64, digit_bits=8),
    "fermat64": dict(modulus="fermat64", n=128, digit_bits=24),
    "solinas64": dict(modulus="solinas64", n=128, digit_bits=28),
    "general32": dict(modulus="general32", n=64, digit_bits=12),
    "fermat32-k16": dict(modulus="fermat32", n=16, digit_bits=14),
    "fermat64-k8": dict(modulus="fermat64", n=8, digit_bits=24, bus_width=24),
    "solinas64-k8": dict(modulus="solinas64", n=8, digit_bits=28, bus_width=28),
}


def multiplier_row(name):
    return Row("integer-fft-mul", dict(MULTIPLIERS[name], max_bits=MAX_BITS), TARGET,
               {"pnr_errors": "record"})


#: The synthesized row of the documented table: the one that places and routes.
TABLE_ROWS = {"fermat32-k16": multiplier_row("fermat32-k16")}
#: CMNT groups and the multiplier configurations whose cycles the table projects (the paper's
#: solinas64 k = 128, then the reduced fermat32 k = 16 with its measured Fmax).
GROUPS = ("toy", "small", "medium", "large")
PROJECTED = ("solinas64", "fermat32-k16")

#: The report: the ModMul of each [Cao13] Table 4 modulus (the DSP lower bound) ...
REPORT_MODMULS = [Row("mod-mul", {"modulus": m}) for m in
                  ("fermat32", "general32", "fermat64", "solinas64")]
#: ... and the reduced multiplier that fits (the documented table's synthesized row).
REPORT_SMALL = TABLE_ROWS["fermat32-k16"]
SMOKE = [REPORT_MODMULS[0]]
