"""Test vectors of the Karatsuba polynomial multiplier (see :mod:`fhe_hw.vectors`)."""

from ..model.karatsuba import schoolbook
from ..vectors import Vectors, register_vectors

__all__ = []


@register_vectors("karatsuba", small={"recursions": 2, "leaf": 3, "coeff_bits": 60,
                                     "digit_bits": 17})
def _karatsuba_vectors(unit, rng, count):
    """``max(count, 1)`` products: the first of all-ones coefficients (the carrier bound),
    the rest random; the output beats of the schoolbook products (reduced when the unit has
    a modulus), two coefficients a beat, the last beat's second lane 0."""
    top = (1 << unit.coeff_bits) - 1
    pairs = [([top] * unit.size, [top] * unit.size)]
    pairs += [([rng.getrandbits(unit.coeff_bits) for _ in range(unit.size)],
               [rng.getrandbits(unit.coeff_bits) for _ in range(unit.size)])
              for _ in range(max(count, 1) - 1)]
    products = [schoolbook(p, q) for p, q in pairs]
    if unit.modulus is not None:
        products = [[c % unit.modulus for c in product] for product in products]
    beats = [product[k:k + 2] + [0] * (k + 2 - len(product))
             for product in products for k in range(0, 2 * unit.size, 2)]
    return Vectors({"i": unit.input_beats(pairs)}, {"o": beats}, {"products": len(pairs)})
