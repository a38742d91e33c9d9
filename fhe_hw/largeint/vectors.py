"""Test vectors of the large-integer multiplier (see :mod:`fhe_hw.sim.vectors`): products against
Python's ``*``, digits as :func:`fhe_hw.model.large_int.to_digits` writes them."""

from ..model.large_int import to_digits
from ..rns.common import polynomial_beats
from ..sim.vectors import Vectors, register_vectors

__all__ = ["DEMO", "operand_beats"]

#: The demo's configuration: 256-bit operands in 8-bit digits, 64-point transforms of
#: inner_n = 4.
DEMO = [("large-int-mul", "inner_n=4, 256-bit operands, 8-bit digits",
         {"max_bits": 256, "digit_bits": 8, "inner_n": 4, "lanes": 4})]


def operand_beats(unit, *operands):
    """The beats of ``operands`` on the unit's ``i`` (each n/2 digits, ``lanes`` per beat)."""
    return polynomial_beats([to_digits(v, unit.digit_bits, unit.n // 2) for v in operands],
                            unit.lanes)


@register_vectors("large-int-mul",
                  small={"max_bits": 64, "digit_bits": 8, "inner_n": 4, "lanes": 2})
def _large_int_mul_vectors(unit, rng, count):
    """One product: A with every digit 2^d - 1 (the longest carry chains) times a random B of
    the full width with its top digit 2^d - 1. ``count`` is unused."""
    bits, d = unit.operand_bits, unit.digit_bits
    a = (1 << bits) - 1
    b = rng.getrandbits(bits) | (((1 << d) - 1) << (bits - d))
    return Vectors({"i": operand_beats(unit, a, b)},
                   {"o": polynomial_beats([to_digits(a * b, d, unit.n)], unit.lanes)}, {})


@register_vectors("carry-resolver", small={"lanes": 4, "beats": 2})
def _carry_vectors(unit, rng, count):
    """``count`` products (at least 3): all samples 2^coeff_bits - 1 (carries through every
    digit and out of the product, which the unit drops), a single carry rippling through
    all-ones digits, and random samples; the digits of Σ s_i·2^(d·i) mod 2^(d·digits)."""
    lanes, d, beats = unit.lanes, unit.digit_bits, unit.beats
    size, w = lanes * beats, unit.coeff_bits
    products = [[(1 << w) - 1] * size, [1 << d] + [(1 << d) - 1] * (size - 1)]
    products += [[rng.getrandbits(w) for _ in range(size)] for _ in range(max(count, 3) - 2)]
    digits = [to_digits(sum(s << (d * i) for i, s in enumerate(samples)) % (1 << (d * size)),
                        d, size) for samples in products]
    return Vectors({"i": polynomial_beats(products, lanes)},
                   {"o": polynomial_beats(digits, lanes)}, {"products": len(products)})
