"""Verilator co-simulation scenarios of the fixed-size NTT units (:mod:`fhe_hw.sim.cosim`): many
transforms through :class:`~fhe_hw.ntt.ShiftNTT` and :class:`~fhe_hw.ntt.ParallelNTT`, each
checked against the golden model and the cycle count against the unit's ``cycles()``.
``tools/cosim_ntt.py`` runs them."""

import random

from ..model.ntt import ntt_radix2, shift_ntt
from ..params import SOLINAS64
from ..sim.cosim import build
from .parallel import ParallelNTT
from .shift import ShiftNTT

__all__ = ["cosim_shift_ntt", "cosim_parallel_ntt"]


def cosim_shift_ntt(points=64, lanes=None, *, inverse=False, transforms=256, seed=1,
                    valid_prob=1.0, ready_prob=1.0, workdir=None):
    """Co-simulate :class:`ShiftNTT` with Verilator (:mod:`fhe_hw.sim.cosim`) on ``transforms``
    random transforms (the first three are all 0, all p - 1 and all 2^64 - 1) and check every
    output against :func:`fhe_hw.model.ntt.shift_ntt` and, with always-valid input and
    always-ready output, the cycle count against :meth:`ShiftNTT.cycles`. Returns a dict with
    the run's numbers; raises ``AssertionError`` on the first mismatch (naming the seed)."""
    unit = ShiftNTT(points, lanes, inverse=inverse)
    rng = random.Random(seed)
    vectors = [[0] * points, [SOLINAS64 - 1] * points, [(1 << 64) - 1] * points]
    vectors += [[rng.randrange(1 << 64) for _ in range(points)]
                for _ in range(max(0, transforms - 3))]
    vectors = vectors[:transforms]
    beats = [x[b:b + unit.lanes] for x in vectors for b in range(0, points, unit.lanes)]
    model = build(unit, "shift-ntt", workdir)
    run = model.run({"i": beats}, {"o": len(beats)}, valid_prob=valid_prob,
                    ready_prob=ready_prob)
    flat = [v for beat in run.outputs["o"] for v in beat]
    for n, x in enumerate(vectors):
        want, have = shift_ntt(x, inverse), flat[n * points:(n + 1) * points]
        assert want == have, (f"ShiftNTT({points}, {unit.lanes}, inverse={inverse}) transform "
                              f"{n} (seed {seed}) differs from the model at output "
                              f"{next(i for i, (a, b) in enumerate(zip(want, have)) if a != b)}")
    expected = unit.cycles(len(vectors))
    if valid_prob == 1.0 and ready_prob == 1.0:
        assert run.cycles == expected, f"cycles {run.cycles} != cycles() {expected}"
    return {"points": points, "lanes": unit.lanes, "inverse": inverse,
            "transforms": len(vectors), "cycles": run.cycles, "cycles_formula": expected}


def cosim_parallel_ntt(k, modulus, *, inverse=False, negacyclic=False, transforms=64, seed=1,
                       workdir=None):
    """Co-simulate :class:`ParallelNTT` with Verilator (:mod:`fhe_hw.sim.cosim`) on ``transforms``
    vectors (all 0, all p - 1, then random residues), check each against
    :func:`fhe_hw.model.ntt.ntt_radix2` and the cycle count against :meth:`ParallelNTT.cycles`.
    Returns a dict with the run's numbers; raises ``AssertionError`` on a mismatch."""
    unit = ParallelNTT(k, modulus, inverse=inverse, negacyclic=negacyclic)
    p, rng = unit.modulus, random.Random(seed)
    vectors = ([[0] * k, [p - 1] * k] +
               [[rng.randrange(p) for _ in range(k)] for _ in range(transforms)])[:transforms]
    model = build(unit, "parallel-ntt", workdir)
    run = model.run({"i": vectors}, {"o": len(vectors)})
    for n, (x, have) in enumerate(zip(vectors, run.outputs["o"])):
        want = ntt_radix2(x, unit.params, inverse, negacyclic)
        assert want == have, (f"ParallelNTT({k}, {modulus}, inverse={inverse}, negacyclic="
                              f"{negacyclic}) vector {n} (seed {seed}) differs from the model")
    assert run.cycles == unit.cycles(len(vectors)), (run.cycles, unit.cycles(len(vectors)))
    return {"k": k, "modulus": str(modulus), "inverse": inverse, "negacyclic": negacyclic,
            "transforms": len(vectors), "cycles": run.cycles, "latency": unit.latency}
