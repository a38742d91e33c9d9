"""[Wang13]'s large-number multiplier (§III-A, §IV): integers multiplied through
number-theoretic transforms over 2^64 - 2^32 + 1. The golden model is
:mod:`fhe_hw.model.large_int`.

Each unit is registered as a (plan, component) pair (:mod:`fhe_hw.plan`): its command-line
options come from the plan's fields.
"""

from ..units import register
from .carry import CarryResolver, CarryResolverPlan
from .multiplier import LargeIntegerMultiplier, LargeIntegerMultiplierPlan

__all__ = ["CarryResolver", "CarryResolverPlan", "LargeIntegerMultiplier",
           "LargeIntegerMultiplierPlan"]


register("carry-resolver", plan=CarryResolverPlan, component=CarryResolver,
         description="carry resolution: convolution samples in, product digits out, lanes per "
         "beat ([Wang13] §III-A step 4)")
register("large-int-mul", plan=LargeIntegerMultiplierPlan, component=LargeIntegerMultiplier,
         description="large-integer multiplier through 2^64-2^32+1 transforms: two forward "
         "four-step NTTs, point-wise products, inverse, carries ([Wang13] §III-A)")
