"""Named configuration sets of the arithmetic units (reducers, modular multipliers).

:data:`REDUCER_TABLE` is the documented reducer table (``fhe-hw table reducers``, the results
page ``docs/results/arith.md``); the report's [Cao14] Table 3 section reads :data:`REDUCERS` and
:data:`MODMULS`, drawn from the same rows. :data:`ENGINE_MODMULS` are the engines' own ModMuls
(``fhe-hw table engine-modmuls``, the same page), which the report's device-limit section reads.
"""

from ..flow.rows import Row

__all__ = ["REDUCER_TABLE", "REDUCERS", "MODMULS", "ENGINE_MODMULS", "SMOKE", "BOARD_BUILDS",
           "BOARD_DEPTH"]

#: The reducer table, in its documented order. The two 64-bit Barrett rows are the baseline the
#: special and Solinas reducers are compared against ([Cao14] §3.3: no multiplier is needed).
REDUCER_TABLE = [
    Row("barrett-reducer", {"modulus": "general32"}),
    Row("barrett-reducer", {"modulus": "solinas64"}),
    Row("special-reducer", {"modulus_bits": 33}),
    Row("special-reducer", {"modulus_bits": 65}),
    Row("solinas-reducer", {"modulus": "solinas64"}),
    Row("montgomery-reducer", {"modulus": "general32", "word": 17}),
    Row("mod-mul", {"modulus": "fermat32"}),
    Row("mod-mul", {"modulus": "fermat64"}),
    Row("mod-mul", {"modulus": "solinas64"}),
    Row("mod-mul", {"modulus": "general32"}),
    Row("mod-mul", {"modulus": "general32", "reducer": "barrett"}),
    Row("mod-mul", {"modulus": "solinas64", "reducer": "barrett"}),
    # The 60-bit prime of OpenFHE's 4096-point NTT in the report (the largest q ≡ 1 mod 2^13
    # below 2^60, fhe_hw.bench.openfhe): a general prime, Barrett.
    Row("mod-mul", {"modulus": 1152921504606830593}),
    # One level of Karatsuba: 12 MULT18X18D instead of 16.
    Row("mod-mul", {"modulus": "solinas64", "karatsuba": True}),
]

#: The reducers alone (the table's rows that are not ``mod-mul``).
REDUCERS = [row for row in REDUCER_TABLE if row.unit != "mod-mul"]
#: One ``mod-mul`` per Integer-FFT modulus with its automatic reducer.
MODMULS = [row for row in REDUCER_TABLE if row.unit == "mod-mul" and "reducer" not in row.params
           and "karatsuba" not in row.params and isinstance(row.params["modulus"], str)]
#: The ModMul of each engine whose DSP-bound limit the report computes (its device-limit
#: section, ``fhe_hw.report.sections``): the streaming NTT's at n = 4096 (tiled over solinas64,
#: with Karatsuba as the P = 8 engine's, and tiled over the 30-bit RNS prime 2^30 - 2^18 + 1)
#: and the RNS engines' (one of their 32-bit primes ≡ 1 mod 2^17, the first below 2^32:
#: Montgomery with a 17-bit word), and the RNS polynomial NTT's (the 30-bit one is the
#: streaming NTT's). ``fhe-hw table engine-modmuls``.
ENGINE_MODMULS = [
    Row("mod-mul", {"modulus": "solinas64", "tiled": True}),
    Row("mod-mul", {"modulus": "solinas64", "tiled": True, "karatsuba": True}),
    Row("mod-mul", {"modulus": "1073479681", "tiled": True}),
    # and with its Montgomery rounds in the fabric (the 30-bit RNS polynomial NTT with four
    # butterflies per engine)
    Row("mod-mul", {"modulus": "1073479681", "tiled": True, "fabric_rounds": True}),
    Row("mod-mul", {"modulus": 4293918721}),
    # The 60-bit RNS polynomial NTT's (fhe_hw.poly.configs): OpenFHE's first 60-bit prime for
    # N = 4096, Barrett, with Karatsuba as the engines', and with their tile registers.
    Row("mod-mul", {"modulus": "1152921504606830593", "tiled": True, "karatsuba": True}),
    Row("mod-mul", {"modulus": "1152921504606830593", "tiled": True, "karatsuba": True,
                    "tile_reg": True}),
    # and OpenFHE's first 60-bit prime for N = 2^16 (≡ 1 mod 2^17): Montgomery, its rounds in
    # the fabric, with Karatsuba and tile registers (12 MULT18X18D, the 60-bit row with two
    # butterflies per engine)
    Row("mod-mul", {"modulus": "1152921504606584833", "tiled": True, "karatsuba": True,
                    "tile_reg": True, "fabric_rounds": True}),
]

#: A quick smoke set: the smallest reducer and multiplier.
SMOKE = [REDUCER_TABLE[2], REDUCER_TABLE[9]]

#: The documented board builds (``fhe-hw table board-builds``): (board, row) with the link's
#: memory depth 256.
BOARD_BUILDS = [("ulx3s", Row("mod-add", {"modulus": "general32"})),
                ("icebreaker", Row("mod-add", {"modulus": "general32"})),
                ("tang-nano-9k", Row("mod-add", {"modulus": "general32"})),
                ("ulx3s", Row("mod-mul", {"modulus": "solinas64"}))]
BOARD_DEPTH = 256
