"""Named configuration sets of the RNS base extension engines.

:data:`SYNTH_TABLE` is the documented ECP5-85F table (``fhe-hw table rns``,
``docs/results/rns.md``), :data:`SIDE_BY_SIDE_TABLE` its exact 4 → 4 row with the targets side
by side (``fhe-hw table rns-side-by-side``); the report's [Kir25] Table 4.9 section reads
:data:`REPORT_ROWS` (the table's N = 2^12 Shenoy–Kumaresan rows, same flow).
:data:`ITERATION_SETS` are [Kir25] Table 4.6's parameter sets.
"""

from ..flow.rows import Row

__all__ = ["TARGET", "SYNTH_TABLE", "SIDE_BY_SIDE_TABLE", "ROUTED", "REPORT_ROWS",
           "ITERATION_SETS", "SMOKE", "sk", "BOARD_SWEEP"]

#: Yosys 0.70's ABC9 asserts on these engines (YosysHQ/yosys#4349); the workaround given there,
#: ``splitnets`` just before LUT mapping, is this target.
TARGET = "ecp5-splitnets-map"


def sk(lanes, architecture="folded", n=4096, l=30, targets_per_pass=1, tile_reg=False,
       parallel_targets=False, parallel_redundant=False, fused_post_sum=False):
    """Shenoy–Kumaresan parameters with l = k limbs of 32-bit primes ≡ 1 mod 2^17
    (``prime_n`` = 2^16: the Montgomery word is then 17, two rounds of 15×17 bits, 6 MULT18X18D
    per multiplier); ``tile_reg``: a fabric register after each DSP tile's product;
    ``parallel_targets``: a pass's targets side by side on ``o``; ``parallel_redundant``: the
    redundant residue beside the last source residue on ``i``; ``fused_post_sum``: the Post-Sum
    behind each row of the last source residue."""
    params = {"prime_bits": 32, "n": n, "source_limbs": l, "target_limbs": l, "lanes": lanes,
              "architecture": architecture, "prime_n": 2**16}
    if targets_per_pass != 1:
        params["targets_per_pass"] = targets_per_pass
    if tile_reg:
        params["tile_reg"] = True
    if parallel_targets:
        params["parallel_targets"] = True
    if parallel_redundant:
        params["parallel_redundant"] = True
    if fused_post_sum:
        params["fused_post_sum"] = True
    return params


#: Synthesized configurations. N = 2^12, l = k = 30 is the parameter set of [Kir25] Table 4.9,
#: N = 2^14, l = 7 that of Table 4.8 (Table 4.7's N = 2^16 needs 3 banks of 2 Mbit, more
#: block RAM than the ECP5-85F's 208 DP16KD hold at TP = 1). N = 2^12, l = k = 4 is the
#: smallest set the report puts beside OpenFHE: the fastest exact (Shenoy–Kumaresan, TP = 4,
#: all four targets per pass, 24 × 6 = 144 of the 156 MULT18X18D) and fast conversion (TP = 4,
#: two targets per pass, 12 × 6 = 72). With all four per pass (120 MULT18X18D) fast
#: conversion routed in 7 minutes before the Sum ROM read two addresses; with the two-port Sum
#: ROM router1 still had 41,728 of 55,352 arcs to route after 31 minutes. At TP = 8 with two
#: per pass (144) it still had 48,727 arcs to route after 23 minutes. The exact one's multipliers
#: take a fabric register after each DSP tile (``tile_reg``): without it its critical path ran
#: from a multiplier's MULT18X18D across the die into its adder's carry chain.
SYNTH_TABLE = (
    [Row("shenoy-kumaresan", sk(tp), TARGET) for tp in (1, 4, 8)]
    + [Row("shenoy-kumaresan", sk(tp, "pipelined"), TARGET) for tp in (1, 4)]
    + [Row("kawamura", {"prime_bits": 32, "n": 4096, "source_limbs": 4, "target_limbs": 4,
                        "rho": 8, "prime_n": 2**16}, TARGET),
       Row("mixed-radix", {"prime_bits": 32, "n": 4096, "source_limbs": 4, "target_limbs": 4,
                           "architecture": "iterative", "prime_n": 2**16}, TARGET),
       Row("fast-base-conversion", {"prime_bits": 32, "n": 4096, "source_limbs": 30,
                                    "target_limbs": 30, "lanes": 4, "prime_n": 2**16}, TARGET)]
    + [Row("shenoy-kumaresan", sk(tp, n=16384, l=7), TARGET) for tp in (1, 4, 8)]
    + [Row("shenoy-kumaresan", sk(4, l=4, targets_per_pass=4, tile_reg=True), TARGET),
       Row("fast-base-conversion", sk(4, l=4, targets_per_pass=2), TARGET)]
)

#: The exact 4 -> 4 row again with its four targets side by side on ``o``
#: (``parallel_targets``: the outputs take N/TP beats, not 4·N/TP), and with the redundant
#: residue beside the last source residue on ``i`` too (``parallel_redundant``: the input takes
#: l·N/TP beats, not (l + 1)·N/TP), and with the Post-Sum fused behind the last source residue
#: as well (``fused_post_sum``: the outputs stream while it streams in), documented in their own
#: table (``fhe-hw table rns-side-by-side``). The report puts the one with the fewest
#: ``cycles()`` beside ``SwitchCRTBasis``. The fused row is placed by nextpnr's electrostatic
#: placer: after HeAP neither router1 nor router2 converged in the time the other rows take,
#: after the electrostatic placer router1 does, in a fraction of it.
SIDE_BY_SIDE_TABLE = [
    Row("shenoy-kumaresan", sk(4, l=4, targets_per_pass=4, tile_reg=True,
                               parallel_targets=True, parallel_redundant=beside,
                               fused_post_sum=fused), TARGET, {"placer": "static"} if fused else {})
    for beside, fused in ((False, False), (True, False), (True, True))]

#: Every routed RNS row: the rns table's and the side-by-side table's.
ROUTED = SYNTH_TABLE + SIDE_BY_SIDE_TABLE

#: The report's rows: the table's Shenoy–Kumaresan rows at [Kir25] Table 4.9's N = 2^12, l = 30.
REPORT_ROWS = [row for row in SYNTH_TABLE
               if row.unit == "shenoy-kumaresan" and row.params["n"] == 4096
               and row.params["source_limbs"] == 30]

#: [Kir25] Table 4.6's parameter sets (N, TP, l); the paper's counts are
#: :data:`fhe_hw.tables.paper.P003_T4_6`.
ITERATION_SETS = ((2**16, 32, 17), (2**14, 32, 7), (2**12, 64, 4))

#: A quick smoke set: the smallest folded engine.
SMOKE = [SYNTH_TABLE[0]]

#: The board-fit sweep (``fhe-hw table board-fits``): Shenoy–Kumaresan folded, t = 1, at
#: N = 64, l = k = 2 with 32-bit primes behind the host link, lanes grown until a board is full.
BOARD_SWEEP = (Row("shenoy-kumaresan", {"prime_bits": 32, "n": 64, "source_limbs": 2,
                                        "target_limbs": 2, "architecture": "folded"}),
               "lanes", (1, 2, 4, 8, 16))
