"""Named configurations of the RNS polynomial units.

:data:`POLY_TABLE` is the documented ECP5-85F table of the polynomial NTT (``fhe-hw table
rns-poly``, ``docs/results/poly.md``), the configurations issue 46 sets at N = 4096: 8 towers of
30-bit primes with two butterflies per engine (OpenFHE's primes of the ring 2^16, ≡ 1 mod 2^17:
Montgomery ModMuls), and 4 towers of OpenFHE's 60-bit primes with one butterfly per engine and
Karatsuba ModMuls; one engine per tower, the towers tower-major on the streams as OpenFHE stores
them; and both with their towers side by side on the streams (``parallel_towers``), so that their
engines load at once, with a register slice before and after every engine (``skid``): without them
the 8-tower one's critical path ran from the input's ``valid`` across the die into an engine's load
control. The 4-tower row side by side takes a fabric register after each DSP tile of its ModMuls
(``tile_reg``): without it its critical path ran from a Barrett reducer's MULT18X18D across the die
into its adder's carry chain (tower-major, the same registers moved the critical path to the input's
load control, which routed slower). All are placed by nextpnr's electrostatic placer: with HeAP the
first two routed slower (the 8-tower engines' input control and a 4-tower reducer's MULT18X18D and
carry chain spread across the die). The fifth row has the 8 towers side by side with four
butterflies per engine: its ModMuls' Montgomery rounds in the fabric (``fabric_rounds``: 4
MULT18X18D each, not 6) and each bank in one PDPW16KD (``wide_banks``: not two DP16KDs) make
room for them; a fabric register after each bank (``read_stages`` = 4) and the streams'
handshakes spread (``spread_handshakes``) keep its bank reads and its output ``ready`` from
crossing the die in one cycle, and each tower's MULT18X18D in a block of DSP sites of its own
(the ``towers`` floorplan, :mod:`fhe_hw.flow.floorplan`) keeps its ModMuls' products beside
their adders. The row after it has 4 towers of OpenFHE's 60-bit primes for the ring 2^16
side by side with two butterflies per engine: with those primes (≡ 1 mod 2^17) its ModMuls
are Montgomery's, their rounds in the fabric and their products Karatsuba's, 12 MULT18X18D
each where Barrett's take 26, with tile registers, the handshakes spread and the floorplan;
the seventh row is that one with two sets of banks per engine (``ping_pong``), so that back to
back its engines unload and load on one set while they compute on the other, and a fabric
register after each bank (``read_stages`` = 4); the last row is the fourth with the same two
sets and registers, and the handshakes spread.
:data:`POLY_MODMULS` is each row's ModMul, whose DSP count and
Fmax set the device's limit in the report. :data:`EXTEND_TABLE` is the documented ECP5-85F table of
the exact base extension (``fhe-hw table rns-poly-extend``): Q → Q ∪ B on the 8-tower row's towers,
B OpenFHE's next 8 primes, with that row's lanes. :data:`PRODUCT_TABLE` is the documented ECP5-85F
table of the polynomial product (``fhe-hw table rns-poly-product``): the 8-tower row's towers with b
in evaluation form, as OpenFHE keeps keys, and one butterfly per engine, the most that fits the
device's MULT18X18D with a forward and an inverse engine per tower, and a register slice before and
after every engine (``skid``), so that no handshake between an engine and the point-wise stage
crosses the die twice in a cycle; and again with two butterflies per engine, its ModMuls'
rounds in the fabric (``fabric_rounds``), each tower's twiddle ROM two twiddles to a word
(``wide_twiddles``: one block-RAM copy per tower, read through one port per engine) and two
lanes per beat, so that the point-wise multipliers fit the MULT18X18D the engines leave;
and on the 60-bit towers of the sixth NTT row, with one butterfly per engine (that row's
ModMuls) and one lane, for the same reason, the butterflies' delay lines in LUT RAM
(``ram_delays``), so that its flip-flops fit, the point-wise multipliers' operands in the
DSPs' input registers (``pointwise_stages``) and the queue after them in LUT RAM
(``distributed_queue``).
"""

from ..arith.pipeline import MULTIPLIER_FLAGS
from ..flow.rows import Row
from ..ntt.configs import STREAMING_TARGET
from ..units import get_unit

__all__ = ["POLY_TABLE", "POLY_MODMULS", "EXTEND_TABLE", "PRODUCT_TABLE", "modmul_row",
           "towers_of", "extension_of"]

#: The parameters of a polynomial unit that choose its ring and towers.
RING_PARAMS = ("n", "limbs", "prime_bits", "prime_n")


def towers_of(params):
    """The parameters of a polynomial unit's ``params`` that choose its ring and towers."""
    return {k: params[k] for k in RING_PARAMS if k in params}


def extension_of(params, lanes):
    """The ``rns-poly-extend`` parameters of the exact conversion from the towers of ``params``
    to as many of OpenFHE's next primes (K = L), ``lanes`` per beat."""
    return {**towers_of(params), "target_limbs": params["limbs"], "lanes": lanes}

POLY_TABLE = [
    Row("rns-poly-ntt", {"n": 4096, "limbs": 8, "prime_bits": 30, "prime_n": 65536,
                         "butterflies": 2}, STREAMING_TARGET, {"placer": "static"}),
    Row("rns-poly-ntt", {"n": 4096, "limbs": 4, "prime_bits": 60, "butterflies": 1,
                         "karatsuba": True}, STREAMING_TARGET, {"placer": "static"}),
    Row("rns-poly-ntt", {"n": 4096, "limbs": 8, "prime_bits": 30, "prime_n": 65536,
                         "butterflies": 2, "parallel_towers": True, "skid": True},
        STREAMING_TARGET, {"placer": "static"}),
    Row("rns-poly-ntt", {"n": 4096, "limbs": 4, "prime_bits": 60, "butterflies": 1,
                         "karatsuba": True, "tile_reg": True, "parallel_towers": True,
                         "skid": True},
        STREAMING_TARGET, {"placer": "static"}),
    # the 8 towers side by side with four butterflies per engine: the Montgomery rounds in the
    # fabric (4 MULT18X18D per ModMul, not 6) and each bank in one PDPW16KD (not two DP16KDs);
    # a fabric register after each bank (read_stages=4), the handshakes spread and each
    # tower's DSPs in a block of their own (the towers floorplan)
    Row("rns-poly-ntt", {"n": 4096, "limbs": 8, "prime_bits": 30, "prime_n": 65536,
                         "butterflies": 4, "parallel_towers": True, "skid": True,
                         "fabric_rounds": True, "wide_banks": True, "read_stages": 4,
                         "spread_handshakes": True},
        STREAMING_TARGET, {"placer": "static", "floorplan": "towers"}),
    # 4 towers of OpenFHE's 60-bit primes for N = 2^16 (≡ 1 mod 2^17: Montgomery ModMuls)
    # side by side with two butterflies per engine: the rounds in the fabric and Karatsuba
    # products, 12 MULT18X18D per ModMul (26 with Barrett's), tile registers, handshakes
    # spread, the towers floorplan
    Row("rns-poly-ntt", {"n": 4096, "limbs": 4, "prime_bits": 60, "prime_n": 65536,
                         "butterflies": 2, "karatsuba": True, "tile_reg": True,
                         "fabric_rounds": True, "parallel_towers": True, "skid": True,
                         "spread_handshakes": True},
        STREAMING_TARGET, {"placer": "static", "floorplan": "towers"}),
    # the row before, each engine with two sets of banks (ping_pong): one computes while the
    # other unloads the last polynomial and loads the next; a fabric register after each bank
    # (read_stages=4: with twice the banks, a bank's read crossed the die into the read
    # network)
    Row("rns-poly-ntt", {"n": 4096, "limbs": 4, "prime_bits": 60, "prime_n": 65536,
                         "butterflies": 2, "karatsuba": True, "tile_reg": True,
                         "fabric_rounds": True, "parallel_towers": True, "skid": True,
                         "spread_handshakes": True, "ping_pong": True, "read_stages": 4},
        STREAMING_TARGET, {"placer": "static", "floorplan": "towers"}),
    # the fourth row (4 × 60-bit, one butterfly per engine, side by side) with two sets of
    # banks per engine and a fabric register after each bank, as the row before, and the
    # handshakes spread (without them, the output's ready across the die into a tower's
    # output slice was the critical path)
    Row("rns-poly-ntt", {"n": 4096, "limbs": 4, "prime_bits": 60, "butterflies": 1,
                         "karatsuba": True, "tile_reg": True, "parallel_towers": True,
                         "skid": True, "spread_handshakes": True, "ping_pong": True,
                         "read_stages": 4},
        STREAMING_TARGET, {"placer": "static"}),
]


def modmul_row(row):
    """The ``mod-mul`` row of ``row``'s engines: its first tower's prime (every tower has its
    width and reducer), tiled, with Karatsuba and tile registers as the engines'."""
    plan = get_unit(row.unit).make_plan(row.params)
    params = {"modulus": str(plan.towers[0]), "tiled": True}
    for name in MULTIPLIER_FLAGS:
        if row.params.get(name):
            params[name] = True
    return Row("mod-mul", params)


EXTEND_TABLE = [
    Row("rns-poly-extend", {"n": 4096, "limbs": 8, "prime_bits": 30, "prime_n": 65536,
                            "target_limbs": 8, "lanes": 4}, "ecp5-splitnets-map",
        {"placer": "static"}),
]


PRODUCT_TABLE = [
    Row("rns-poly-product", {"n": 4096, "limbs": 8, "prime_bits": 30, "prime_n": 65536,
                             "butterflies": 1, "b_evaluated": True, "skid": True},
        STREAMING_TARGET, {"placer": "static"}),
    # two butterflies per engine: the Montgomery rounds in the fabric (4 MULT18X18D per ModMul)
    # and a twiddle ROM of two twiddles a word (one block-RAM copy per tower), two lanes so
    # that the point-wise multipliers fit beside the engines
    Row("rns-poly-product", {"n": 4096, "limbs": 8, "prime_bits": 30, "prime_n": 65536,
                             "butterflies": 2, "lanes": 2, "b_evaluated": True, "skid": True,
                             "fabric_rounds": True, "wide_twiddles": True},
        STREAMING_TARGET, {"placer": "static"}),
    # the sixth NTT row's towers (4 of OpenFHE's 60-bit primes for the ring 2^16), one
    # butterfly per engine with that row's ModMuls (12 MULT18X18D each) and one lane, so
    # that the two 60-bit point-wise multipliers fit the MULT18X18D the engines leave; the
    # butterflies' delay lines in LUT RAM (with registers it did not place: nearly every FF);
    # the point-wise multipliers' operands in the DSPs' input registers (without, the
    # critical path ran from the operand slice across the die into a DSP's input); the queue
    # after them in LUT RAM (in block RAM, its read was the critical path)
    Row("rns-poly-product", {"n": 4096, "limbs": 4, "prime_bits": 60, "prime_n": 65536,
                             "butterflies": 1, "lanes": 1, "b_evaluated": True, "skid": True,
                             "karatsuba": True, "tile_reg": True, "fabric_rounds": True,
                             "ram_delays": True, "pointwise_stages": 6,
                             "distributed_queue": True},
        STREAMING_TARGET, {"placer": "static"}),
]

#: The ModMul of each :data:`POLY_TABLE` row.
POLY_MODMULS = [modmul_row(row) for row in POLY_TABLE]
