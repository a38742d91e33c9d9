"""Test vectors of the large-integer multiplier (see :mod:`fhe_hw.sim.vectors`): products against
Python's ``*``, digits as :func:`fhe_hw.model.large_int.to_digits` writes them."""

from ..model.large_int import to_digits
from ..sim.vectors import Vectors, register_vectors

__all__ = ["DEMO", "operand_beats"]

#: The demo's configuration: 256-bit operands in 8-bit digits, 64-point transforms of m = 4.
DEMO = [("large-int-mul", "m=4, 256-bit operands, 8-bit digits",
         {"max_bits": 256, "digit_bits": 8, "m": 4, "lanes": 4})]


def operand_beats(unit, *operands):
    """The beats of ``operands`` on the unit's ``i`` (each n/2 digits, ``lanes`` per beat)."""
    half, lanes = unit.n // 2, unit.lanes
    beats = []
    for value in operands:
        digits = to_digits(value, unit.digit_bits, half)
        beats += [digits[t:t + lanes] for t in range(0, half, lanes)]
    return beats


@register_vectors("large-int-mul", small={"max_bits": 64, "digit_bits": 8, "m": 4, "lanes": 2})
def _large_int_mul_vectors(unit, rng, count):
    """One product: A with every digit 2^d - 1 (the longest carry chains) times a random B of
    the full width with its top digit 2^d - 1. ``count`` is unused."""
    bits, d = unit.operand_bits, unit.digit_bits
    a = (1 << bits) - 1
    b = rng.getrandbits(bits) | (((1 << d) - 1) << (bits - d))
    product = to_digits(a * b, d, unit.n)
    lanes = unit.lanes
    return Vectors({"i": operand_beats(unit, a, b)},
                   {"o": [product[t:t + lanes] for t in range(0, unit.n, lanes)]}, {})
