"""Test vectors of the RNS base-extension engines (see :mod:`fhe_hw.sim.vectors`): one polynomial
of N random coefficients A (the first A = 0, the last the largest input the engine extends
exactly), its source residues in, the target residues out, from :mod:`fhe_hw.model.rns`."""

from ..model import rns as model
from ..params import RNSBase
from ..sim.vectors import Vectors, register_vectors

__all__ = ["DEMO"]

#: The demo's base extension: Shenoy–Kumaresan, N = 256, 3 → 3 residues of 60-bit primes.
DEMO = [("shenoy-kumaresan", "N=256, l=k=3, 60-bit, TP=4",
         {"prime_bits": 60, "n": 256, "source_limbs": 3, "target_limbs": 3, "lanes": 4})]

_SMALL = {"n": 16, "source_limbs": 2, "target_limbs": 2}


def _values(rng, n, top):
    """N coefficients in [0, top): 0, random, top - 1."""
    return [0] + [rng.randrange(top) for _ in range(n - 2)] + [top - 1]


def _residues(values, moduli):
    return [[a % m for a in values] for m in moduli]


@register_vectors("shenoy-kumaresan", small={**_SMALL, "lanes": 2})
def _shenoy_kumaresan_vectors(unit, rng, count):
    """The source residues and the redundant one, once per pass, in; the target residues out
    ([Kir25] Alg. 2 through :func:`fhe_hw.model.rns.shenoy_kumaresan`). ``count`` is unused:
    the polynomial has N coefficients."""
    values = _values(rng, unit.n, RNSBase(unit.source).Q)
    polys = _residues(values, unit.source)
    red = [a % unit.redundant for a in values]
    golden = model.extend_polynomial(model.shenoy_kumaresan, polys, unit.constants, red)
    return Vectors({"i": unit.plan.source_beats(polys, red)},
                   {"o": unit.plan.target_beats([list(p) for p in golden])}, {})


@register_vectors("fast-base-conversion", small={**_SMALL, "lanes": 2})
def _fast_base_conversion_vectors(unit, rng, count):
    """The source residues, once per pass, in; |A + α·Q|_p out ([Kir25] Alg. 1 through
    :func:`fhe_hw.model.rns.fast_base_conversion`)."""
    polys = _residues(_values(rng, unit.n, RNSBase(unit.source).Q), unit.source)
    columns = zip(*polys, strict=True)
    golden = [model.fast_base_conversion(list(col), unit.constants) for col in columns]
    targets = [list(p) for p in zip(*golden, strict=True)]
    return Vectors({"i": unit.plan.source_beats(polys)},
                   {"o": unit.plan.target_beats(targets)}, {})


def _per_coefficient(unit, top, extend):
    def vectors(rng):
        polys = _residues(_values(rng, unit.n, top), unit.source)
        columns = [list(col) for col in zip(*polys, strict=True)]
        return Vectors({"i": columns}, {"o": [list(extend(col, unit.constants))
                                              for col in columns]}, {})
    return vectors


@register_vectors("kawamura", small=_SMALL)
def _kawamura_vectors(unit, rng, count):
    """One coefficient's l residues a beat in, its k target residues a beat out ([Kir25]
    Alg. 3 through :func:`fhe_hw.model.rns.kawamura`), A below the Cox-Rower's exact bound."""
    return _per_coefficient(unit, unit.max_input, model.kawamura)(rng)


#: mixed-radix: the primes of N = 16 allow a 5-bit Montgomery word, whose deep rounds would need
#: more multiplier registers than the limit to make the iterative loop a power of two
@register_vectors("mixed-radix", small={**_SMALL, "deep": False})
def _mixed_radix_vectors(unit, rng, count):
    """One coefficient's l residues a beat in, its k target residues a beat out ([Kir25]
    Alg. 4 through :func:`fhe_hw.model.rns.mixed_radix`)."""
    return _per_coefficient(unit, RNSBase(unit.source).Q, model.mixed_radix)(rng)
