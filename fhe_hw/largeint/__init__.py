"""[Wang13]'s large-number multiplier (§III-A, §IV): integers multiplied through
number-theoretic transforms over 2^64 - 2^32 + 1. The golden model is
:mod:`fhe_hw.model.large_int`."""

from ..arith import MULT_STAGES_OPTION, TILED_OPTION
from ..model.large_int import DIGIT_BITS
from ..units import Option, register
from .carry import CarryResolver
from .multiplier import LargeIntegerMultiplier

__all__ = ["CarryResolver", "LargeIntegerMultiplier"]


register("carry-resolver", "carry resolution: convolution samples in, product digits out, "
         "lanes per beat ([Wang13] §III-A step 4)",
         Option("lanes", int, 16, "samples per beat (1..64)"),
         Option("digit-bits", int, DIGIT_BITS, "digit width d (8..32)"),
         Option("sample-bits", int, 64, "sample width (d..128)"),
         Option("beats", int, 1, "beats per product (1..2^20)"),
         latency=CarryResolver.latency_of,
         cycles=lambda params, products=1: CarryResolver.cycles_of(**params, products=products),
         )(CarryResolver)

register("large-int-mul", "large-integer multiplier through 2^64-2^32+1 transforms: two "
         "forward four-step NTTs, point-wise products, inverse, carries ([Wang13] §III-A)",
         Option("max-bits", int, 49152, "operand size the transform is sized for, in bits "
                "(default 49152: n = 4096, quicker to generate; the class's default is the "
                "paper's 786432: n = 65536)"),
         Option("digit-bits", int, DIGIT_BITS, "digit width d (8..32; (n/2)(2^d-1)^2 < p)"),
         Option("lanes", int, 4, "digits per beat, a power of two up to m (default 4, quicker to "
                "generate; the class's default is the paper's 16)"),
         Option("engines", int, 1, "forward engines: 1 (time-shared) or 2"),
         Option("m", int, 64, "the engines' inner shift unit size (power of two, 2..64)"),
         Option("m-units", int, 1, "the engines' m-point units: 1 (P1 and P2 share it) or 2"),
         MULT_STAGES_OPTION, TILED_OPTION,
         latency=LargeIntegerMultiplier.latency_of,
         cycles=lambda params: LargeIntegerMultiplier.cycles_of(**params),
         )(LargeIntegerMultiplier)
