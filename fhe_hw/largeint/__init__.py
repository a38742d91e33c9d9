"""[Wang13]'s large-number multiplier (§III-A, §IV): integers multiplied through
number-theoretic transforms over 2^64 - 2^32 + 1. The golden model is
:mod:`fhe_hw.model.large_int`."""

from .carry import CarryResolver
from .multiplier import LargeIntegerMultiplier

__all__ = ["CarryResolver", "LargeIntegerMultiplier"]
