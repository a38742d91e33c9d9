"""Test vectors of the RNS base-extension engines (see :mod:`fhe_hw.vectors`)."""

from ..model import rns as model
from ..params import RNSBase
from ..vectors import Vectors, register_vectors
from .common import polynomial_beats

__all__ = []


@register_vectors("shenoy-kumaresan", small={"n": 16, "l": 2, "k": 2, "tp": 2})
def _shenoy_kumaresan_vectors(unit, rng, count):
    """One base extension of a random polynomial (coefficient 0 is A = 0, the last A = Q - 1):
    the source residues and the redundant one, once per pass, in; the target residues out
    (003 Alg. 2 through :func:`fhe_hw.model.rns.shenoy_kumaresan`). ``count`` is unused: the
    polynomial has N coefficients."""
    n, tp = unit.n, unit.tp
    q = RNSBase(unit.source).Q
    values = [0] + [rng.randrange(q) for _ in range(n - 2)] + [q - 1]
    polys = [[a % m for a in values] for m in unit.source]
    red = [a % unit.redundant for a in values]
    golden = model.extend_polynomial(model.shenoy_kumaresan, polys, unit.constants, red)
    return Vectors({"i": polynomial_beats(polys + [red], tp) * unit.passes},
                   {"o": polynomial_beats([list(p) for p in golden], tp)}, {})
