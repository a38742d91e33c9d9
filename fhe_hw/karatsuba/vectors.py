"""Test vectors of the Karatsuba polynomial multiplier (see :mod:`fhe_hw.sim.vectors`)."""

from ..model.karatsuba import schoolbook
from ..sim.vectors import Vectors, register_vectors

__all__ = ["DEMO"]

#: The demo's polynomial product: Karatsuba-1 on [Mig16]'s 125-bit coefficients.
DEMO = [("karatsuba", "Karatsuba-1, 125-bit", {"recursions": 1, "coeff_bits": 125})]


def _beats(unit, products):
    """Output beats of products of 2·size - 1 coefficients: two a beat, the last lane 0."""
    return [product[k:k + 2] + [0] * (k + 2 - len(product))
            for product in products for k in range(0, 2 * unit.size, 2)]


@register_vectors("karatsuba", small={"recursions": 2, "leaf": 3, "coeff_bits": 60,
                                     "digit_bits": 17})
def _karatsuba_vectors(unit, rng, count):
    """``min(max(count, 1), 4)`` products: the first of all-ones coefficients (the carrier
    bound), the rest random; the output beats of the schoolbook products (reduced when the unit has
    a modulus), two coefficients a beat, the last beat's second lane 0."""
    top = (1 << unit.coeff_bits) - 1
    pairs = [([top] * unit.size, [top] * unit.size)]
    pairs += [([rng.getrandbits(unit.coeff_bits) for _ in range(unit.size)],
               [rng.getrandbits(unit.coeff_bits) for _ in range(unit.size)])
              for _ in range(min(max(count, 1), 4) - 1)]
    products = [schoolbook(p, q) for p, q in pairs]
    if unit.modulus is not None:
        products = [[c % unit.modulus for c in product] for product in products]
    return Vectors({"i": unit.input_beats(pairs)}, {"o": _beats(unit, products)},
                   {"products": len(pairs)})


@register_vectors("karatsuba-relin", small={"recursions": 1, "words": 3, "coeff_bits": 10,
                                           "word_bits": 4, "digit_bits": 5})
def _relin_vectors(unit, rng, count):
    """``min(max(count, 1), 4)`` groups of ``words`` (word, key) polynomial pairs, the first with
    all-ones coefficients; the output beats of Σ word·key (schoolbook products)."""
    def poly(bits, ones):
        return [(1 << bits) - 1 if ones else rng.getrandbits(bits) for _ in range(unit.size)]
    groups = [([poly(unit.word_bits, g == 0) for _ in range(unit.words)],
               [poly(unit.coeff_bits, g == 0) for _ in range(unit.words)])
              for g in range(min(max(count, 1), 4))]
    sums = [[sum(col) for col in zip(*(schoolbook(w, k) for w, k in zip(*group)))]
            for group in groups]
    return Vectors({"i": unit.input_beats(groups)}, {"o": _beats(unit, sums)},
                   {"groups": len(groups)})
