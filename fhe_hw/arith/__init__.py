"""Modular arithmetic hardware ([Cao14] §3.3, [Kir25] §3.2.1) and its `fhe-hw generate` entries."""

from ..params import modulus_spec
from ..units import Option, parse_bool, register
from .barrett import BarrettReducer
from .modadd import ModAdd, ModSub
from .modmul import REDUCERS, ModMul
from .montgomery import MontgomeryReducer
from .solinas import SolinasReducer
from .special import SpecialReducer

__all__ = ["ModAdd", "ModSub", "BarrettReducer", "SpecialReducer", "SolinasReducer",
           "MontgomeryReducer", "ModMul"]

_MODULUS = Option("modulus", modulus_spec, "solinas64", "modulus name or integer")
_PIPELINED = Option("pipelined", parse_bool, True, "register the stages (true/false)")
_DEEP = Option("deep", parse_bool, True, "one carry chain per register: faster clock, more "
               "cycles (true/false)")
#: ``mult_stages`` of ModMul and Barrett, and of the units that pass it on to their ModMuls
#: (fhe_hw.ntt, fhe_hw.bigint).
MULT_STAGES_OPTION = Option("mult-stages", int, None, "registers in each multiplier (default: "
                            "one per adder level, the product's and, tiled, the operands')")
#: ``tiled`` of ModMul and Barrett, and of the units that pass it on to their ModMuls.
TILED_OPTION = Option("tiled", parse_bool, True, "multipliers in 17-bit tiles, one DSP per "
                      "partial product (true/false)")
#: ``karatsuba`` of ModMul, and of the units that pass it on to their run-time ModMuls.
#: Its default None leaves the factories' own (False) and keeps it out of the parameters a
#: generated file's header lists (and with them the synthesis cache keys of the tables' rows).
KARATSUBA_OPTION = Option("karatsuba", parse_bool, None, "the operand multiplier as one level "
                          "of Karatsuba, tiled only: 12 DSPs instead of 16 at 64 bits "
                          "(true/false, default false)")

register("mod-add", "modular adder ([Kir25] Alg. 5)", _MODULUS, _PIPELINED,
         latency=ModAdd.latency_of)(ModAdd)
register("mod-sub", "modular subtracter ([Kir25] Alg. 6)", _MODULUS, _PIPELINED,
         latency=ModSub.latency_of)(ModSub)
register("barrett-reducer", "Barrett reducer, 2m -> m bits ([Cao14] Alg. 2)",
         Option("modulus", modulus_spec, "general32", "modulus name or integer"),
         Option("alpha", int, None, "alpha > m (default m + 4)"),
         Option("beta", int, None, "beta < -2 (default -4)"), MULT_STAGES_OPTION, TILED_OPTION,
         _PIPELINED, _DEEP, latency=BarrettReducer.latency_of)(BarrettReducer)
register("special-reducer", "reducer for p = 2^(m-1)+1 ([Cao14] Fig. 3b)",
         Option("m", int, 33, "bit length of p (33: 2^32+1, 65: 2^64+1)"), _PIPELINED, _DEEP,
         latency=SpecialReducer.latency_of)(SpecialReducer)
register("solinas-reducer", "reducer for p = 2^64-2^32+1 ([Cao14] Fig. 3c)",
         Option("modulus", modulus_spec, "solinas64", "must be solinas64"), _PIPELINED, _DEEP,
         latency=SolinasReducer.latency_of)(SolinasReducer)
register("montgomery-reducer", "word-level Montgomery reducer ([Kir25] Alg. 7)",
         Option("modulus", modulus_spec, "general32", "odd q with q = 1 mod 2^word"),
         Option("word", int, 17, "word size w"), _PIPELINED, _DEEP,
         latency=MontgomeryReducer.latency_of)(MontgomeryReducer)
register("mod-mul", "pipelined modular multiplier", _MODULUS,
         Option("reducer", str, "auto", "one of " + ", ".join(REDUCERS)), MULT_STAGES_OPTION,
         Option("word", int, None, "Montgomery word (default: the largest w <= 17 "
                "with q = 1 mod 2^w)"), _PIPELINED, _DEEP, TILED_OPTION,
         Option("tile", int, None, "slice width of the operand multiplier, 2..18 bits "
                "(default 17 tiled: one MULT18X18D each; narrower suits an ASIC)"),
         KARATSUBA_OPTION, latency=ModMul.latency_of)(ModMul)
