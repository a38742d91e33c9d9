"""Test vectors of the streaming NTT engine (see :mod:`fhe_hw.vectors`)."""

from ..model import ntt as model
from ..rns.common import polynomial_beats
from ..vectors import Vectors, register_vectors

__all__ = []


@register_vectors("ntt", small={"n": 16})
def _ntt_vectors(unit, rng, count):
    """One transform of :class:`~fhe_hw.ntt.StreamingNTT` on random residues (coefficient 0 is
    0, the last p - 1), ``lanes`` per beat in index order, against
    :func:`fhe_hw.model.ntt.ntt_radix2` (:func:`~fhe_hw.model.ntt.ntt4096` /
    :func:`~fhe_hw.model.ntt.ntt65536` in the four-step mode). ``count`` is unused: a
    transform has n coefficients."""
    n, p, lanes = unit.n, unit.modulus, unit.lanes
    x = [0] + [rng.randrange(p) for _ in range(n - 2)] + [p - 1]
    if unit.four_step:
        want = (model.ntt4096 if n == 4096 else model.ntt65536)(x, unit.inverse)
    else:
        want = model.ntt_radix2(x, unit.params, unit.inverse, unit.negacyclic)
    return Vectors({"i": polynomial_beats([x], lanes)}, {"o": polynomial_beats([want], lanes)},
                   {})
