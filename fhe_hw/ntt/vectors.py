"""Test vectors of the NTT units (see :mod:`fhe_hw.sim.vectors`): butterflies against their
definition, transforms against :mod:`fhe_hw.model.ntt`."""

from ..model import ntt as model
from ..params import SOLINAS64
from ..rns.common import polynomial_beats
from ..sim.vectors import Vectors, register_vectors

__all__ = ["DEMO"]

#: The demo's NTT configurations: a 256-point forward and inverse transform over 2^64 - 2^32 + 1
#: with two butterflies, and a butterfly.
DEMO = [("butterfly", "solinas64", {"modulus": "solinas64"}),
        ("ntt", "n=256, P=2, forward", {"n": 256, "butterflies": 2}),
        ("ntt", "n=256, P=2, inverse", {"n": 256, "butterflies": 2, "inverse": True})]


@register_vectors("butterfly")
def _butterfly_vectors(unit, rng, count):
    """(up, down, ω_down[, ω_up]) at 0, p - 1 and random residues; the outputs those of
    :func:`fhe_hw.model.ntt.butterfly` or :func:`~fhe_hw.model.ntt.gs_butterfly` (the unit's
    form), ω_up None when the unit does not scale (constant twiddles are the unit's own)."""
    p = unit.modulus
    raw = [(p - 1,) * 4, (0,) * 4, (1, p - 1, 1, 1)]
    raw += [tuple(rng.randrange(p) for _ in range(4)) for _ in range(count)]
    inputs, expected = [], []
    for up, down, w_down, w_up in raw:
        beat = {"up": up, "down": down}
        if unit.twiddle is None:
            beat["w_down"] = unit.premultiply(w_down)
        else:
            w_down = unit.twiddle
        if unit.scale_up:
            if unit.twiddle is None:
                beat["w_up"] = unit.premultiply(w_up)
            else:
                w_up = unit.twiddle_up
        else:
            w_up = None
        inputs.append(beat)
        form = model.gs_butterfly if unit.plan.form == "gs" else model.butterfly
        expected.append(dict(zip(("up", "down"), form(up, down, w_up, w_down, p))))
    return Vectors({"i": inputs}, {"o": expected}, {"count": len(inputs)})


@register_vectors("parallel-ntt", small={"n": 8})
def _parallel_ntt_vectors(unit, rng, count):
    """All zeros, all p - 1, a unit impulse and random residues, one transform a beat."""
    p, n = unit.modulus, unit.n
    xs = [[0] * n, [p - 1] * n, [1] + [0] * (n - 1)]
    xs += [[rng.randrange(p) for _ in range(n)] for _ in range(count)]
    want = [model.ntt_radix2(x, unit.params, unit.inverse, unit.negacyclic) for x in xs]
    return Vectors({"i": xs}, {"o": want}, {"transforms": len(xs)})


@register_vectors("shift-ntt", small={"n": 8})
def _shift_ntt_vectors(unit, rng, count):
    """All zeros, all p - 1, all 2^64 - 1 (unreduced inputs are allowed), a unit impulse and
    ``max(count, 1)`` random words, ``lanes`` samples a beat."""
    n = unit.n
    xs = [[0] * n, [SOLINAS64 - 1] * n, [(1 << 64) - 1] * n, [1] + [0] * (n - 1)]
    xs += [[rng.randrange(1 << 64) for _ in range(n)] for _ in range(max(count, 1))]
    want = [model.shift_ntt(x, unit.inverse, unit.root) for x in xs]
    return Vectors({"i": polynomial_beats(xs, unit.lanes)},
                   {"o": polynomial_beats(want, unit.lanes)}, {"transforms": len(xs)})


def _transform(model_fn, unit, rng):
    """One transform of random residues (coefficient 0 is 0, the last p - 1), ``lanes`` per
    beat in index order, against ``model_fn(x)``."""
    n, p, lanes = unit.n, unit.modulus, unit.lanes
    x = [0] + [rng.randrange(p) for _ in range(n - 2)] + [p - 1]
    return Vectors({"i": polynomial_beats([x], lanes)},
                   {"o": polynomial_beats([model_fn(x)], lanes)}, {})


@register_vectors("ntt", small={"n": 16})
def _ntt_vectors(unit, rng, count):
    """:class:`~fhe_hw.ntt.StreamingNTT` against :func:`fhe_hw.model.ntt.ntt_radix2` (n times
    it for an unscaled inverse). ``count`` is unused: a transform has n coefficients."""
    return _transform(lambda x: engine_model(unit.plan, x), unit, rng)


def engine_model(plan, x):
    """What a :class:`~fhe_hw.ntt.StreamingNTT` of ``plan`` makes of ``x``:
    :func:`fhe_hw.model.ntt.ntt_radix2` with its roots, times n for an inverse that is not
    ``scaled``."""
    out = model.ntt_radix2(x, plan.roots, plan.inverse, plan.negacyclic)
    return out if plan.scaled else [v * plan.n % plan.roots.p for v in out]


@register_vectors("four-step-ntt", small={"n": 4096})
def _four_step_vectors(unit, rng, count):
    """:class:`~fhe_hw.ntt.FourStepNTT` against :func:`fhe_hw.model.ntt.ntt4096` /
    :func:`~fhe_hw.model.ntt.ntt65536`. ``count`` is unused."""
    transform = model.ntt4096 if unit.n == 4096 else model.ntt65536
    return _transform(lambda x: transform(x, unit.inverse, unit.omega), unit, rng)


@register_vectors("four-step-stream", small={"n": 32, "inner_n": 4, "lanes": 2, "inner_units": 2})
def _four_step_stream_vectors(unit, rng, count):
    """:class:`~fhe_hw.ntt.StreamingFourStepNTT` against the O(n^2) DFT with the unit's root
    (:func:`fhe_hw.model.ntt.dft` / :func:`~fhe_hw.model.ntt.idft`), negacyclic with the
    ψ^i twist before (forward) or ψ^-i after (inverse). ``count`` is unused."""
    n, w, psi = unit.n, unit.omega, unit.psi
    twist = [pow(psi, i, SOLINAS64) if unit.negacyclic else 1 for i in range(n)]
    if unit.inverse:
        def transform(x):
            return [v * pow(t, -1, SOLINAS64) % SOLINAS64
                    for v, t in zip(model.idft(x, SOLINAS64, w), twist)]
    else:
        def transform(x):
            return model.dft([v * t % SOLINAS64 for v, t in zip(x, twist)], SOLINAS64, w)
    return _transform(transform, unit, rng)
