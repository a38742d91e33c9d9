"""Named configuration sets of the ASIC flows.

:data:`SKY130_TABLE` is the documented sky130 table (``fhe-hw table asic``,
``docs/results/asic.md``): the reducers and multipliers of the reducer table, one butterfly per
Integer-FFT modulus, the solinas64 ModMul and butterfly at the tile width that suits sky130, one
base-extension lane, and the papers' designs that need an ASIC ([Wang13] Table 2's fully parallel
NTT over 2^64 - 2^32 + 1) at the sizes that synthesize within 30 minutes each.
:data:`QFLOW_ROWS` are hardened with qflow (OSU 0.18 µm).
"""

from fhe_hw.arith.configs import MODMULS, REDUCERS
from fhe_hw.flow.rows import Row

__all__ = ["MODULI", "SKY130_CLOCK_NS", "SKY130_TABLE", "ASIC_ONLY", "QFLOW_ROWS"]

MODULI = ("fermat32", "fermat64", "solinas64", "general32")
#: The sky130 table's clock period: ABC's delay target and the STA constraint (200 MHz).
SKY130_CLOCK_NS = 5.0

# The reducer table's reducers minus its 64-bit Barrett (the FPGA baseline), its mod-muls.
SKY130_TABLE = ([row for row in REDUCERS if row.params != {"modulus": "solinas64"}
                 or row.unit != "barrett-reducer"]
                + MODMULS
                + [Row("butterfly", {"modulus": m}) for m in MODULI]
                # the ModMul at the depth that suits the process: 9-bit tiles, whose gate-level
                # products fit a cycle where the ECP5's 17-bit DSP tiles do not
                + [Row("mod-mul", {"modulus": "solinas64", "tile": 9}),
                   Row("butterfly", {"modulus": "solinas64", "tile": 9})]
                # one base-extension lane: Shenoy-Kumaresan at TP = 1 (the ECP5 table's 32-bit
                # primes and Montgomery word), N = 16 so that its buffers, flip-flops here, stay
                # small beside the datapath
                + [Row("shenoy-kumaresan", {"prime_bits": 32, "n": 16, "source_limbs": 4,
                                            "target_limbs": 4, "lanes": 1, "prime_n": 2**16})])
ASIC_ONLY = [Row("parallel-ntt", {"n": n, "modulus": "solinas64"}) for n in (16, 32)]
QFLOW_ROWS = [Row("special-reducer", {"modulus_bits": 17}),
              Row("special-reducer", {"modulus_bits": 33}),
              Row("solinas-reducer", {"modulus": "solinas64"})]
