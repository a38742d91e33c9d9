"""Named configuration sets of the NTT engines.

* :data:`STREAMING_TABLE`: the documented streaming-NTT table (``fhe-hw table ntt-streaming``,
  ``docs/results/ntt.md``): n = 1024 and 4096, P = 1, 2, 4, solinas64, n = 4096, P = 8 over
  solinas64 with Karatsuba multipliers, and n = 4096, P = 8 and 16 over the ~30-bit RNS prime
  :data:`RNS30_PRIME`; tiled ``ModMul``\\ s, ``splitnets`` before synthesis, nextpnr's default
  placer and router1 (the 64-bit P = 8 row: the electrostatic placer and router2,
  :data:`STREAMING_P8_TARGET`). The report's 002 section reads the same rows
  (:data:`REPORT_STREAMING` is its n = 1024, P = 1 row).
* :data:`NTT_TABLE`: the shift-only units and the fully parallel NTT (``fhe-hw table ntt``),
  and :data:`BUTTERFLY_TABLE`: the butterflies (``fhe-hw table butterflies``), each an
  :class:`NttRow` with its note.
"""

from typing import NamedTuple

from ..flow.rows import Row
from ..params import SOLINAS64

__all__ = ["STREAMING_TARGET", "STREAMING_P8_TARGET", "streaming_params", "RNS30_PRIME",
           "STREAMING_TABLE",
           "REPORT_STREAMING",
           "NttRow", "NTT_TABLE", "BUTTERFLY_TABLE", "SMOKE", "BOARD_SWEEP"]

#: ``splitnets`` before synthesis (Yosys 0.70's ABC9 aborts on this design,
#: YosysHQ/yosys#4349), nextpnr's default placer (HeAP) and router (router1).
STREAMING_TARGET = "ecp5-splitnets"


#: A ~30-bit RNS prime for the streaming NTT: 2^30 - 2^18 + 1, 2-adicity 18 (n up to 2^17
#: negacyclic); its ModMul is Montgomery.
RNS30_PRIME = 2**30 - 2**18 + 1


def streaming_params(n, p, tiled=True, modulus="solinas64", **options):
    """The parameters of a streaming-table row: ``options`` (e.g. ``read_stages``) and the
    engine's defaults otherwise."""
    params = {"n": n, "butterflies": p, "modulus": modulus, **options}
    if tiled:
        params["tiled"] = True
    return params


#: The flow of the 64-bit P = 8 row: the electrostatic placer and router2 (after HeAP, router1
#: did not finish that engine in half an hour, neither with 128 nor with 96 MULT18X18D).
STREAMING_P8_TARGET = "ecp5-splitnets-static"

STREAMING_TABLE = [Row("ntt", streaming_params(n, p), STREAMING_TARGET)
                   for n in (1024, 4096) for p in (1, 2, 4)] + [
    # 64-bit P = 8 with Karatsuba multipliers: 96 MULT18X18D (128 without).
    Row("ntt", streaming_params(4096, 8, karatsuba=True), STREAMING_P8_TARGET)] + [
    # 30-bit words: P = 8 (48 MULT18X18D), also with a register after each bank
    # (read_stages = 4), and P = 16 (96), the most that fit (P = 32 would need 192).
    Row("ntt", streaming_params(4096, 8, modulus=str(RNS30_PRIME), **options), STREAMING_TARGET)
    for options in ({}, {"read_stages": 4})] + [
    Row("ntt", streaming_params(4096, 16, modulus=str(RNS30_PRIME)), STREAMING_TARGET)]
#: The n = 1024, P = 1 row: the report's clock estimate for the 64K-point transform.
REPORT_STREAMING = STREAMING_TABLE[0]

#: 2^25 - 2^73 mod p: a primitive 128th root of unity of solinas64, a two-term shift twiddle.
SOLINAS_ROOT_128 = ((1 << 25) - (1 << 73)) % SOLINAS64


class NttRow(NamedTuple):
    """A row of the NTT table: the configuration, what it is, and for a row without a routed
    result the measured reason shown instead of numbers (the table does not rerun it)."""

    row: Row
    note: str
    not_routed: str = ""


#: The shift-only units of 002 and the fully parallel NTT (``fhe-hw table ntt``).
#: (splitnets): ``ecp5-splitnets``; (static placer): nextpnr's electrostatic
#: placer and router2 after splitnets.
NTT_TABLE = [
    NttRow(Row("shift-ntt", {"n": 64, "lanes": 8}, "ecp5-splitnets"),
           "shift-only radix-64 unit ([Wang13] §IV-A)",
           "does not fit (nextpnr: TRELLIS_COMB 108,261 / 83,640 = 129 %)"),
    NttRow(Row("shift-ntt", {"n": 64, "lanes": 2}, "ecp5-splitnets-static"),
           "shift-only radix-64 unit, 2 lanes (a quarter of the paper's rate)",
           "fits, not routed: Yosys 53,087 LUT (51,837 LUT4 + 2 x 625 CCU2C), 23,323 FF, 0 DSP; "
           "static placer + router2: 100k overused wires at iteration 2, about 4 min per "
           "iteration, stopped"),
    NttRow(Row("shift-ntt", {"n": 64, "lanes": 1}, "ecp5-splitnets-static"),
           "shift-only radix-64 unit, 1 lane (an eighth of the paper's rate)",
           "fits, not routed: Yosys 49,507 LUT (48,879 LUT4 + 2 x 314 CCU2C), 21,430 FF, 0 DSP; "
           "static placer + router2: 70k overused wires at iteration 3, about 7 min per "
           "iteration, stopped"),
    NttRow(Row("shift-ntt", {"n": 16, "lanes": 16}, "ecp5-splitnets-static"),
           "shift-only radix-16 unit ([Wang13] §IV-B)"),
    NttRow(Row("parallel-ntt", {"n": 16, "modulus": "fermat32"}, "ecp5-splitnets"),
           "fully parallel, all shifts"),
]

#: The butterflies (``fhe-hw table butterflies``): the shift-only ones of [Cao14] §3.2, then
#: one run-time-twiddle butterfly per 001 Table 2 modulus (tiled ModMuls, the default) and one
#: untiled for comparison.
BUTTERFLY_TABLE = [
    NttRow(Row("butterfly", {"modulus": "fermat32", "twiddle": 2}),
           "shift-only butterfly, ω = 2 ([Cao14] §3.2)"),
    NttRow(Row("butterfly", {"modulus": "fermat64", "twiddle": 2}),
           "shift-only butterfly, ω = 2 ([Cao14] §3.2)"),
    NttRow(Row("butterfly", {"modulus": "solinas64", "twiddle": SOLINAS_ROOT_128}),
           "shift-only butterfly, ω = 2^25 - 2^73 (two shifts)"),
    NttRow(Row("butterfly", {"modulus": "fermat32"}), "run-time twiddles"),
    NttRow(Row("butterfly", {"modulus": "fermat64"}), "run-time twiddles"),
    NttRow(Row("butterfly", {"modulus": "solinas64"}), "run-time twiddles"),
    NttRow(Row("butterfly", {"modulus": "general32"}), "run-time twiddles"),
    NttRow(Row("butterfly", {"modulus": "solinas64", "tiled": False}),
           "run-time twiddles, untiled ModMul (`tiled=False`: one operand sliced)"),
]

#: A quick smoke set: the smallest streaming engine and a butterfly.
SMOKE = [Row("ntt", streaming_params(64, 1, tiled=False), STREAMING_TARGET),
         Row("butterfly", {"modulus": "fermat32"})]

#: The board-fit sweep (``fhe-hw table board-fits``): the streaming NTT, solinas64, P = 1,
#: 2 lanes behind the host link, n grown until a board is full.
BOARD_SWEEP = (Row("ntt", {"modulus": "solinas64", "butterflies": 1, "lanes": 2}), "n",
               (256, 1024, 4096, 8192, 16384))
