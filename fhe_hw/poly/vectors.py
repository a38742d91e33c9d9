"""Test vectors of the RNS polynomial units: seeded polynomials and the DCRTPoly model's
results (:mod:`fhe_hw.model.dcrt`)."""

from ..model.dcrt import dcrt_extend, dcrt_ntt, dcrt_product
from ..sim.vectors import Vectors, register_vectors

DEMO = [("rns-poly-ntt", "N=256, 3 towers of OpenFHE's 60-bit primes, P=2",
         {"n": 256, "limbs": 3, "prime_bits": 60, "butterflies": 2}),
        ("rns-poly-product", "N=64, 2 towers of OpenFHE's 30-bit primes, P=2",
         {"n": 64, "limbs": 2, "butterflies": 2}),
        ("rns-poly-extend", "N=64, 3 towers of OpenFHE's 30-bit primes, extended by 2 (Q to Q u B)",
         {"n": 64, "limbs": 3, "target_limbs": 2})]


def _dcrt(unit, rng):
    """A polynomial of the unit's towers: coefficient 0 is 0 and the last q - 1 in every tower,
    the rest uniform."""
    n = unit.n
    return [[0] + [rng.randrange(q) for _ in range(n - 2)] + [q - 1] for q in unit.towers]


@register_vectors("rns-poly-ntt", small={"n": 16, "limbs": 3})
def _rns_poly_ntt_vectors(unit, rng, count):
    """:class:`~fhe_hw.poly.RNSPolyNTT` against :func:`fhe_hw.model.dcrt.dcrt_ntt`: two
    polynomials back to back. ``count`` is unused: a polynomial has L·n coefficients."""
    xs = [_dcrt(unit, rng) for _ in range(2)]
    inverse = unit.plan.inverse
    want = [dcrt_ntt(x, unit.towers, inverse) for x in xs]
    return Vectors({"i": unit.plan.stream_beats(xs)}, {"o": unit.plan.stream_beats(want)},
                   {"polys": len(xs)})


@register_vectors("rns-poly-product", small={"n": 16, "limbs": 2})
def _rns_poly_product_vectors(unit, rng, count):
    """:class:`~fhe_hw.poly.RNSPolyProduct` against :func:`fhe_hw.model.dcrt.dcrt_product`
    (checked against the schoolbook product in the tests): one product. ``count`` is
    unused."""
    a, b = _dcrt(unit, rng), _dcrt(unit, rng)
    towers, b_evaluated = unit.towers, unit.plan.b_evaluated
    fed = dcrt_ntt(b, towers) if b_evaluated else b
    want = dcrt_product(a, fed, towers, b_evaluated=b_evaluated)
    beats = unit.plan.stream_beats
    return Vectors({"i_a": beats([a]), "i_b": beats([fed])}, {"o": beats([want])}, {"polys": 1})


@register_vectors("rns-poly-extend", small={"n": 16, "limbs": 3, "target_limbs": 2})
def _rns_poly_extend_vectors(unit, rng, count):
    """:class:`~fhe_hw.poly.RNSPolyExtend` against :func:`fhe_hw.model.dcrt.dcrt_extend`: two
    polynomials back to back. ``count`` is unused."""
    xs = [_dcrt(unit, rng) for _ in range(2)]
    want = [dcrt_extend(x, unit.towers, unit.targets) for x in xs]
    return Vectors({"i": unit.plan.stream_beats(xs)}, {"o": unit.plan.stream_beats(want)},
                   {"polys": len(xs)})
